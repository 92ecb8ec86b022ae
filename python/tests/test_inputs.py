"""What the module does with the arrays it is given: contiguous ones are used
in place (no copy in, and out= written in place), bad ones are refused with
the C API's exact message, and NaN scales do what docs/spec/numerics.md
says the reference does."""
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import safespec

ROOT = Path(__file__).resolve().parents[2]


def layer():
    """props/c_api_numerics_cases.h's case A (N = 2, K = 16, G = 16)."""
    weight = np.array([(i * 37 + 11) & 0xFF for i in range(16)], dtype=np.uint8).reshape(2, 8)
    x = (np.arange(16, dtype=np.float32).reshape(1, 16) - 7) / 4
    return dict(x=x, weight=weight, s_rel=np.array([[1.5], [0.75]], np.float32),
                s_channel=np.array([0.01, 0.02], np.float32), bias=np.array([0.5, -0.25], np.float32))


def linear(**changes):
    return safespec.w4a8_linear(**{**layer(), **changes}, group_size=16, convrot_groupsize=16, semantics="eager")


# --- zero copy -------------------------------------------------------------
# The mechanism: numpy reports every array buffer it allocates to tracemalloc,
# so a binding that copied an input through numpy (ascontiguousarray, astype,
# a forcecast array_t) would show the input's size in the traced peak. With
# a 4 MiB input and a 16 KiB output, the peak must stay near the output. A
# copy made in C++ would not be traced; the binding has none for inputs
# (python/arrays.cpp: tensor_of points at the array's own buffer).

def test_a_contiguous_input_is_not_copied():
    x = np.random.default_rng(0).standard_normal((65536, 16)).astype(np.float32)  # 4 MiB
    linear(x=x[:1].copy())  # import-time and first-call allocations out of the way
    tracemalloc.start()
    try:
        y = linear(x=x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.nbytes == 65536 * 2 * 4
    assert peak < y.nbytes + x.nbytes // 8, f"traced peak {peak} bytes: the input was copied"


def test_the_measure_sees_a_copy():
    # The same measure, on a call that must copy (a strided view made
    # contiguous by the caller), to show it would catch one.
    x = np.random.default_rng(0).standard_normal((131072, 16)).astype(np.float32)[::2]
    tracemalloc.start()
    try:
        linear(x=np.ascontiguousarray(x))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= x.nbytes


def test_out_is_written_in_place():
    want = linear()
    out = np.full((1, 2), np.nan, np.float32)
    y = linear(out=out)
    assert y is out and np.shares_memory(y, out)
    assert out.tobytes() == want.tobytes()


def test_out_must_fit():
    with pytest.raises(TypeError, match=r"^out: expected numpy dtype float32 \(x's\), found float64$"):
        linear(out=np.zeros((1, 2), np.float64))
    with pytest.raises(ValueError, match=r"^out: expected shape \[1, 2\], found \[2, 1\]$"):
        linear(out=np.zeros((2, 1), np.float32))
    with pytest.raises(ValueError, match=r"^out: expected a C-contiguous array, found strides$"):
        linear(out=np.zeros((1, 4), np.float32)[:, ::2])
    ro = np.zeros((1, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"^out: expected a writable array, found a read-only one$"):
        linear(out=ro)


# --- bad inputs: the exact messages --------------------------------------

@pytest.mark.parametrize("changes,error,message", [
    # wrong dtype: one safespec knows but the operand does not take, and one it has no name for
    (dict(x=np.zeros((1, 16), np.int32)), ValueError, "x: expected dtype F32, BF16 or F16, found I32"),
    (dict(x=np.zeros((1, 16), np.float64)), ValueError, "x: expected dtype F32, BF16 or F16, found F64"),
    (dict(weight=np.zeros((2, 8), np.int16)), ValueError, "weight: expected dtype I8 or U8, found I16"),
    (dict(s_channel=np.zeros(2, np.float64)), ValueError, "s_channel: expected dtype F32, found F64"),
    (dict(x=np.zeros((1, 16), np.complex64)), TypeError,
     "arrays of numpy dtype complex64 have no safespec dtype (bf16 is passed as uint16 and the fp8 formats as "
     "uint8, with the dtype named)"),
    # bf16 bits without the dtype named are plain U16
    (dict(x=np.zeros((1, 16), np.uint16)), ValueError, "x: expected dtype F32, BF16 or F16, found U16"),
    # non-contiguous
    (dict(x=np.zeros((1, 32), np.float32)[:, ::2]), ValueError,
     "x: expected a C-contiguous array (numpy.ascontiguousarray), found strides"),
    (dict(weight=np.zeros((8, 2), np.uint8).T), ValueError,
     "weight: expected a C-contiguous array (numpy.ascontiguousarray), found strides"),
    # shape mismatch
    (dict(x=np.zeros((1, 8), np.float32)), ValueError,
     "x: expected shape [M, 16] (the weight is [N, K] = [2, 16]), found [1, 8]"),
    (dict(s_rel=np.ones((3, 1), np.float32)), ValueError, "s_rel [N, K/G]: expected shape [2, 1], found [3, 1]"),
    (dict(s_channel=np.ones(3, np.float32)), ValueError, "s_channel [N]: expected shape [2], found [3]"),
    (dict(bias=np.ones(3, np.float32)), ValueError, "bias [N]: expected shape [2], found [3]"),
], ids=lambda v: v.__name__ if isinstance(v, type) else None)
def test_bad_inputs_raise_the_exact_message(changes, error, message):
    with pytest.raises(error) as raised:
        linear(**changes)
    assert str(raised.value) == message


def test_bad_options_raise_the_exact_message():
    with pytest.raises(ValueError) as raised:
        safespec.w4a8_linear(**layer(), group_size=16, convrot_groupsize=16, semantics="fast")
    assert str(raised.value) == "semantics: expected 'cuda' or 'eager', found 'fast'"
    with pytest.raises(ValueError) as raised:
        safespec.check(b"", fail_on="never")
    assert str(raised.value) == "fail_on: expected 'default', 'error', 'misload' or 'warning', found 'never'"
    with pytest.raises(TypeError) as raised:
        linear(x=np.zeros((1, 16), np.uint16), dtype="bf17")
    assert str(raised.value) == "unknown dtype name 'bf17'"


# --- NaN scales ------------------------------------------------------------
# docs/spec/numerics.md, W4A8.1: a NaN product (NaN scale or codebook entry)
# decodes to 0, safespec's choice where upstream is undetermined (U8), so a
# NaN s_rel is not an error: its group weighs exactly as an s_rel of 0 does.
# s_channel multiplies after the decode, so a NaN there reaches y (IEEE
# propagation, no error). Neither is refused by the numerics; the file-level
# value rules (check(data=True): CQ-DATA-S-REL, CQ-DATA-SCALE) are where a
# checkpoint carrying them is rejected.

def test_a_nan_s_rel_weighs_as_zero():
    nan = linear(s_rel=np.array([[np.nan], [0.75]], np.float32))
    zero = linear(s_rel=np.array([[0.0], [0.75]], np.float32))
    assert nan.tobytes() == zero.tobytes() and not np.isnan(nan).any()
    assert nan[0, 0] == np.float32(0.5)  # only the bias is left in the NaN row
    # E4M3 codes: 0x7F is NaN, 0x00 zero, 0x30 0.5
    nan8 = linear(s_rel=np.array([[0x7F], [0x30]], np.uint8))
    zero8 = linear(s_rel=np.array([[0x00], [0x30]], np.uint8))
    assert nan8.tobytes() == zero8.tobytes()


def test_a_nan_s_channel_reaches_its_output_column_only():
    y = linear(s_channel=np.array([np.nan, 0.02], np.float32))
    assert np.isnan(y[0, 0]) and y[0, 1] == linear()[0, 1]


def test_a_checkpoint_with_a_nan_s_rel_is_rejected_by_the_value_rules():
    path = ROOT / "corpus/conformance/strict-reject_CQ-DATA-S-REL_w4a8_s_rel_nan.safetensors"
    rules = [f["rule"] for f in safespec.check(str(path), data=True)["files"][0]["findings"]]
    assert "CQ-DATA-S-REL" in rules
    assert safespec.check(str(path))["files"][0]["findings"] == []  # only --data reads values


# --- errors ----------------------------------------------------------------
# Every refusal is a safespec.Error, and also the built-in a caller may
# already catch; a negative count is refused by name, in one short line.

def test_a_refused_input_is_a_safespec_error_and_a_value_error():
    with pytest.raises(safespec.InputError) as e:
        safespec.w4a8_linear(**layer(), group_size=16, convrot_groupsize=16, semantics="fast")
    assert isinstance(e.value, safespec.Error) and isinstance(e.value, ValueError)
    assert str(e.value) == "semantics: expected 'cuda' or 'eager', found 'fast'"


def test_a_negative_group_size_is_refused_by_name():
    with pytest.raises(safespec.InputError) as e:
        safespec.w4a8_linear(**layer(), group_size=-128, convrot_groupsize=16)
    assert str(e.value) == "group_size: expected a whole number, 0 or more, found -128"
    with pytest.raises(safespec.InputError, match="^codebook: expected 'uniform' or 'frozen', found 'lut'$"):
        safespec.dequant("nvfp4", {"weight": np.zeros((2, 8), np.uint8)}, codebook="lut")


def test_an_array_of_a_dtype_safespec_does_not_take_is_a_type_error():
    with pytest.raises(safespec.InputTypeError) as e:
        safespec.compare(np.zeros(3, np.complex64), np.zeros(3, np.complex64))
    assert isinstance(e.value, TypeError) and isinstance(e.value, safespec.Error)
