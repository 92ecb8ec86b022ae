"""int8_linear() and w4a4_linear() against the command: the committed
int8_tensorwise and convrot_w4a4 example layers and generated ones of every
x dtype, linear_dtype and semantics go through `safespec linear --dump` and
through the module, and y and every intermediate must be the same bits. Then
the arrays: read in place, out= written in place, and bad inputs refused
with the C API's exact message."""
import json
import os
import subprocess
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import safespec

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SAFESPEC_CLI", str(ROOT / "build/dev/safespec"))
EXAMPLES = ROOT / "corpus/examples/quant"
PREFIX = "model.layers.0.mlp.down_proj"

_NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I8": np.int8, "U8": np.uint8,
          "I64": np.int64}
_NAMES = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16", np.dtype(np.int8): "I8",
          np.dtype(np.uint8): "U8"}


def read(path):
    """{name: (dtype, array)} of a small safetensors file, decoded here."""
    raw = Path(path).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    out = {}
    for name, t in json.loads(raw[8:8 + n]).items():
        if name != "__metadata__":
            begin, end = t["data_offsets"]
            arr = np.frombuffer(raw[8 + n + begin:8 + n + end], dtype=_NUMPY[t["dtype"]]).reshape(t["shape"])
            out[name] = (t["dtype"], arr.copy())
    return out


def write(path, tensors):
    """A safetensors file of {name: (dtype, array)}, written here."""
    header, data = {}, b""
    for name, (dtype, arr) in tensors.items():
        b = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    Path(path).write_bytes(len(h).to_bytes(8, "little") + h + data)


def bf16(values):
    """float32 values rounded to bf16 (nearest even), as uint16 bits."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def random_x(rng, m, k, dtype):
    """x [M, K] of `dtype` ('F32', 'F16', 'BF16') and the module's dtype= for it."""
    v = rng.uniform(-4, 4, (m, k)).astype(np.float32)
    if dtype == "BF16":
        return bf16(v), "bf16"
    return v.astype(np.float16 if dtype == "F16" else np.float32), None


def command(tmp_path, layer_file, x_dtype, x, semantics):
    """`safespec linear --dump` on layer PREFIX: y and {name: array} of the dump."""
    write(tmp_path / "x.safetensors", {"x": (x_dtype, x)})
    dump = tmp_path / f"dump_{semantics}"
    run = subprocess.run([CLI, "linear", str(layer_file), "--layer", PREFIX, "--input", str(tmp_path / "x.safetensors"),
                          "--out", str(tmp_path / "y.safetensors"), "--semantics", semantics, "--dump", str(dump)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return read(tmp_path / "y.safetensors")["y"][1], {p.stem: read(p)[p.stem][1] for p in dump.glob("*.safetensors")}


def module(layer, x, x_bits, semantics):
    """The module on the same layer ({suffix: array}, marker dict)."""
    t, marker = layer
    args = (x, t["weight"], t["weight_scale"], t.get("bias"))
    fmt = marker["format"]
    if fmt == "int8_tensorwise":
        c = marker.get("convrot_groupsize", 256) if marker.get("convrot") else 0
        return safespec.int8_linear(*args, convrot_groupsize=c, semantics=semantics, dump=True, dtype=x_bits)
    return safespec.w4a4_linear(*args, convrot_groupsize=marker.get("convrot_groupsize", 256),
                                linear_dtype=marker.get("linear_dtype", "int4"), semantics=semantics, dump=True,
                                dtype=x_bits)


def load_layer(path):
    t = read(path)
    marker = json.loads(t[f"{PREFIX}.comfy_quant"][1].tobytes())
    tensors = {name[len(PREFIX) + 1:]: arr for name, (_, arr) in t.items() if name.startswith(PREFIX + ".")}
    return tensors, marker


def assert_same(got, want, what):
    y, dump = got
    want_y, want_dump = want
    assert (y.dtype, y.shape) == (want_y.dtype, want_y.shape), what
    assert y.tobytes() == want_y.tobytes(), what
    assert sorted(dump) == sorted(want_dump) == sorted(["rotated", "xs", "xq", "acc", "y"]), what
    for name, arr in want_dump.items():
        assert (dump[name].dtype, dump[name].shape) == (arr.dtype, arr.shape), f"{what}: {name}"
        assert dump[name].tobytes() == arr.tobytes(), f"{what}: {name}"


@pytest.mark.parametrize("example", ["int8_convrot_valid", "int8_no_convrot", "w4a4_valid"])
@pytest.mark.parametrize("semantics", ["cuda", "eager"])
def test_the_examples_equal_the_command(tmp_path, example, semantics):
    path = EXAMPLES / f"{example}.safetensors"
    layer = load_layer(path)
    x, bits = random_x(np.random.default_rng(7), 3, layer[0]["weight"].shape[1] * (2 if "w4a4" in example else 1),
                       "BF16")
    assert_same(module(layer, x, bits, semantics), command(tmp_path, path, "BF16", x, semantics), example)


# Generated layers: every x dtype, both semantics and, for convrot_w4a4, both
# linear_dtypes (cuda int8 is the only run of the int8 path), with a bias of
# another dtype than x's and ConvRot on and off for int8.
CASES = [(fmt, dtype, semantics) for fmt in ["int8", "int8_convrot", "w4a4_int4", "w4a4_int8"]
         for dtype in ["F32", "F16", "BF16"] for semantics in ["cuda", "eager"]]


@pytest.mark.parametrize("fmt,x_dtype,semantics", CASES, ids=["-".join(c) for c in CASES])
def test_generated_layers_equal_the_command(tmp_path, fmt, x_dtype, semantics):
    rng = np.random.default_rng(len(fmt) * 31 + len(x_dtype) * 7 + len(semantics))
    n, k = 5, 128
    w4a4 = fmt.startswith("w4a4")
    if w4a4:
        marker = {"format": "convrot_w4a4", "convrot_groupsize": 64, "linear_dtype": fmt[-4:]}
        weight = rng.integers(0, 256, (n, k // 2), dtype=np.uint8).view(np.int8)
        scale = rng.uniform(0.01, 0.1, n).astype(np.float32)
    else:
        convrot = {"convrot": True, "convrot_groupsize": 16} if fmt.endswith("convrot") else {}
        marker = {"format": "int8_tensorwise", **convrot}
        weight = rng.integers(-127, 128, (n, k), dtype=np.int8)
        scale = rng.uniform(0.001, 0.01, (n, 1)).astype(np.float32)
    bias = rng.uniform(-1, 1, n).astype(np.float16)
    path = tmp_path / "layer.safetensors"
    write(path, {f"{PREFIX}.comfy_quant": ("U8", np.frombuffer(json.dumps(marker).encode(), np.uint8)),
                 f"{PREFIX}.weight": ("I8", weight), f"{PREFIX}.weight_scale": ("F32", scale),
                 f"{PREFIX}.bias": ("F16", bias)})
    x, bits = random_x(rng, 3, k, x_dtype)
    layer = ({"weight": weight, "weight_scale": scale, "bias": bias}, marker)
    assert_same(module(layer, x, bits, semantics), command(tmp_path, path, x_dtype, x, semantics), fmt)


def test_the_backend_decides_the_w4a4_path():
    layer, marker = load_layer(EXAMPLES / "w4a4_valid.safetensors")
    x = np.random.default_rng(3).uniform(-2, 2, (2, 128)).astype(np.float32)
    run = lambda ld, sem: safespec.w4a4_linear(x, layer["weight"], layer["weight_scale"], convrot_groupsize=64,
                                               linear_dtype=ld, semantics=sem).tobytes()
    assert run("int8", "eager") == run("int4", "eager") == run("int4", "cuda")
    assert run("int8", "cuda") != run("int4", "cuda")


# --- the arrays --------------------------------------------------------------

def int8_layer():
    """An int8_tensorwise layer, N = 2, K = 16, and its x [1, 16]."""
    return dict(x=(np.arange(16, dtype=np.float32).reshape(1, 16) - 7) / 4,
                weight=(np.arange(32, dtype=np.int16).reshape(2, 16) * 9 % 255 - 127).astype(np.int8),
                weight_scale=np.array(0.01, np.float32), bias=np.array([0.5, -0.25], np.float32))


def int8(**changes):
    return safespec.int8_linear(**{**int8_layer(), **changes})


def w4a4(**changes):
    layer = dict(x=np.ones((1, 64), np.float32), weight=np.full((2, 32), 0x21, np.uint8),
                 weight_scale=np.array([0.25, 0.5], np.float32))
    return safespec.w4a4_linear(**{**layer, **changes}, convrot_groupsize=16)


def test_a_contiguous_input_is_not_copied():
    # As test_inputs.py measures it for w4a8_linear: numpy reports its buffers
    # to tracemalloc, so a copy of the 4 MiB x would show in the peak.
    x = np.random.default_rng(0).standard_normal((65536, 16)).astype(np.float32)
    int8(x=x[:1].copy())
    tracemalloc.start()
    try:
        y = int8(x=x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < y.nbytes + x.nbytes // 8, f"traced peak {peak} bytes: the input was copied"


def test_out_is_written_in_place():
    want = int8()
    out = np.full((1, 2), np.nan, np.float32)
    assert int8(out=out) is out and out.tobytes() == want.tobytes()
    out = np.full((1, 2), np.nan, np.float32)
    assert w4a4(out=out) is out and out.tobytes() == w4a4().tobytes()


@pytest.mark.parametrize("call,changes,error,message", [
    (int8, dict(x=np.zeros((1, 16), np.int32)), ValueError, "x: expected dtype F32, BF16 or F16, found I32"),
    (int8, dict(weight=np.zeros((2, 16), np.float32)), ValueError, "weight: expected dtype I8 or U8, found F32"),
    (int8, dict(weight_scale=np.ones(2, np.float32)), ValueError,
     "weight_scale: expected shape () or [2, 1], found [2]"),
    (int8, dict(bias=np.ones(3, np.float32)), ValueError, "bias [N]: expected shape [2], found [3]"),
    (int8, dict(x=np.zeros((1, 8), np.float32)), ValueError,
     "x: expected shape [M, 16] (the weight is [N, K] = [2, 16]), found [1, 8]"),
    (int8, dict(x=np.zeros((1, 32), np.float32)[:, ::2]), ValueError,
     "x: expected a C-contiguous array (numpy.ascontiguousarray), found strides"),
    (int8, dict(x=np.zeros((1, 16), np.uint16)), ValueError, "x: expected dtype F32, BF16 or F16, found U16"),
    (int8, dict(convrot_groupsize=8), ValueError,
     "CQ-INT8-CONVROT-GROUPSIZE: convrot_groupsize: expected a ConvRot group size that is a power of 4 and at "
     "least 4, found 8"),
    (int8, dict(semantics="fast"), ValueError, "semantics: expected 'cuda' or 'eager', found 'fast'"),
    (int8, dict(x=np.zeros((1, 16), np.complex64)), TypeError,
     "arrays of numpy dtype complex64 have no safespec dtype (bf16 is passed as uint16 and the fp8 formats as "
     "uint8, with the dtype named)"),
    (w4a4, dict(linear_dtype="int2"), ValueError, "linear_dtype: expected 'int4' or 'int8', found 'int2'"),
    (w4a4, dict(x=np.ones((1, 32), np.float32), weight=np.zeros((2, 16), np.uint8)), ValueError,
     "CQ-W4A4-K: x: expected K divisible by 64 (quant_group_size), found K = 32"),
    (w4a4, dict(weight_scale=np.ones(3, np.float32)), ValueError, "weight_scale [N]: expected shape [2], found [3]"),
    (w4a4, dict(x=np.ones((1, 32), np.float32)), ValueError,
     "x: expected shape [M, 64] (the weight is [N, K] = [2, 64]), found [1, 32]"),
    (w4a4, dict(out=np.zeros((2, 1), np.float32)), ValueError, "out: expected shape [1, 2], found [2, 1]"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_bad_inputs_raise_the_exact_message(call, changes, error, message):
    with pytest.raises(error) as raised:
        call(**changes)
    assert str(raised.value) == message
