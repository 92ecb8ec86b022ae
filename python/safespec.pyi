"""safespec: the executable specification of safetensors and comfy_quant
layers. check() gives what `safespec check --json` gives, w4a8_linear(),
int8_linear(), w4a4_linear() and dequant() the reference numerics bit for bit, compare() an ulp comparison,
rules() the catalogue and conformance_cases() the conformance suite for
pytest.

Type stubs for the extension module (python/*.cpp); python/tests/test_stubs.py
holds them to the module's functions and parameter names."""
import os
from typing import Any, Dict, Literal, Mapping, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

_Path = Union[str, "os.PathLike[str]"]
_Semantics = Literal["cuda", "eager"]
_FailOn = Literal["default", "error", "misload", "warning"]



class Error(Exception):
    """Every error safespec raises: catch this for all of them."""

class InputError(Error, ValueError):
    """An argument or an input safespec refuses: what was expected and what was found."""

class InputTypeError(Error, TypeError):
    """An array of a dtype or kind safespec does not take."""

class InternalError(Error, RuntimeError):
    """safespec failed where it should not have; the message says where."""

def check(path_or_bytes: Union[_Path, bytes, bytearray], profile: str = "strict", data: bool = False,
          layers: Optional[Sequence[str]] = None, *, fail_on: _FailOn = "default",
          consumers: Optional[Sequence[str]] = None) -> dict[str, Any]:
    """Check a file (a path) or whole file bytes as `safespec check --json
    --profile PROFILE` does; returns that JSON document as a dict
    ({'schema': 1, 'profile': ..., 'files': [...]}). data: also the value
    rules (paths only). layers: ['NAME=linear', ...] as --layer. fail_on:
    what makes a file's 'ok' false, as --fail-on. consumers:
    ['comfyui=dynamic-vram', ...] as --consumer. Raises ValueError for an
    unknown profile or fail_on."""


def rules() -> list[dict[str, Any]]:
    """The rule catalogue as `safespec rules --json` gives it: a list of
    dicts (id, severity, ...)."""


@overload
def w4a8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], s_rel: npt.NDArray[Any],
                s_channel: npt.NDArray[np.float32], codebook: Optional[npt.NDArray[np.float32]] = None,
                correction: Optional[npt.NDArray[Any]] = None, bias: Optional[npt.NDArray[Any]] = None, *,
                group_size: int, convrot_groupsize: int, semantics: _Semantics = "cuda",
                dump: Literal[False] = False, dtype: Optional[str] = None, s_rel_dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]: ...
@overload
def w4a8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], s_rel: npt.NDArray[Any],
                s_channel: npt.NDArray[np.float32], codebook: Optional[npt.NDArray[np.float32]] = None,
                correction: Optional[npt.NDArray[Any]] = None, bias: Optional[npt.NDArray[Any]] = None, *,
                group_size: int, convrot_groupsize: int, semantics: _Semantics = "cuda",
                dump: Literal[True], dtype: Optional[str] = None, s_rel_dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> tuple[npt.NDArray[Any], dict[str, npt.NDArray[Any]]]: ...
def w4a8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], s_rel: npt.NDArray[Any],
                s_channel: npt.NDArray[np.float32], codebook: Optional[npt.NDArray[np.float32]] = None,
                correction: Optional[npt.NDArray[Any]] = None, bias: Optional[npt.NDArray[Any]] = None, *,
                group_size: int, convrot_groupsize: int, semantics: _Semantics = "cuda", dump: bool = False,
                dtype: Optional[str] = None, s_rel_dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> Any:
    """The reference W4A8 linear (asym_w4a8_int8) as `safespec linear`
    computes it, bit for bit. x [M, K] float32, float16, or uint16 bf16 bits
    with dtype='bf16' (dtype also names uint16 correction and bias); weight
    [N, K/2] int8/uint8; s_rel [N, K/G] float32 or uint8 E4M3 codes;
    s_channel [N] float32. Returns y [M, N] in x's dtype, or
    (y, {name: intermediate}) with dump=True. C-contiguous arrays are read in
    place, without a copy; out: a C-contiguous writable [M, N] array of x's
    numpy dtype that y is written into and returned as. Bad inputs raise
    ValueError or TypeError with the C API's message."""


@overload
def int8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 0,
                semantics: _Semantics = "cuda", dump: Literal[False] = False, dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]: ...
@overload
def int8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 0,
                semantics: _Semantics = "cuda", dump: Literal[True], dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> tuple[npt.NDArray[Any], dict[str, npt.NDArray[Any]]]: ...
def int8_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 0,
                semantics: _Semantics = "cuda", dump: bool = False, dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> Any:
    """The reference int8_tensorwise linear (quant-numerics.md §7.1) as
    `safespec linear` computes it, bit for bit. x [M, K] float32, float16, or
    uint16 bf16 bits with dtype='bf16' (dtype also names uint16 weight_scale
    and bias); weight [N, K] int8/uint8; weight_scale one element or [N, 1];
    bias [N] or None; convrot_groupsize 0 without ConvRot, else C (a power
    of 4). int8 has one activation path, so both semantics give the same y.
    Returns y [M, N] in x's dtype, or (y, {name: intermediate}) with
    dump=True (rotated, xs, xq, acc, y). Arrays are read in place; out= as
    for w4a8_linear. Bad inputs raise ValueError or TypeError with the C
    API's message."""


@overload
def w4a4_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 256,
                linear_dtype: Literal["int4", "int8"] = "int4", semantics: _Semantics = "cuda",
                dump: Literal[False] = False, dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]: ...
@overload
def w4a4_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 256,
                linear_dtype: Literal["int4", "int8"] = "int4", semantics: _Semantics = "cuda",
                dump: Literal[True], dtype: Optional[str] = None,
                out: Optional[npt.NDArray[Any]] = None) -> tuple[npt.NDArray[Any], dict[str, npt.NDArray[Any]]]: ...
def w4a4_linear(x: npt.NDArray[Any], weight: npt.NDArray[Any], weight_scale: npt.NDArray[Any],
                bias: Optional[npt.NDArray[Any]] = None, *, convrot_groupsize: int = 256,
                linear_dtype: Literal["int4", "int8"] = "int4", semantics: _Semantics = "cuda",
                dump: bool = False, dtype: Optional[str] = None, out: Optional[npt.NDArray[Any]] = None) -> Any:
    """The reference convrot_w4a4 linear (quant-numerics.md §6.2, §6.3) as
    `safespec linear` computes it, bit for bit. x as for int8_linear; weight
    [N, K/2] uint8/int8, signed low-nibble-first codes; weight_scale [N];
    bias [N] or None; convrot_groupsize C (a power of 4); linear_dtype the
    marker's. semantics picks comfy-kitchen's backend: 'cuda' runs
    linear_dtype as given, 'eager' always the int4 path. Returns y [M, N] in
    x's dtype, or (y, {name: intermediate}) with dump=True. Bad inputs raise
    ValueError or TypeError with the C API's message."""


def dequant(format: str, tensors: Mapping[str, npt.NDArray[Any]], marker: Union[Mapping[str, Any], str, None] = None,
            *, dtypes: Optional[Mapping[str, str]] = None, out_dtype: str = "F32",
            codebook: Literal["uniform", "frozen"] = "uniform") -> npt.NDArray[Any]:
    """One layer of `format` (its comfy_quant marker's name) dequantized as
    `safespec dequant` does for the same layer in a file, in the original
    basis, after the format's rules (InputError naming the rule). tensors:
    {suffix: array} as the file names them ('weight', 'weight_scale', ...);
    marker: the marker's other keys; dtypes: {suffix: dtype} for arrays of
    bit patterns ('BF16' for uint16, 'F8_E4M3' for uint8); out_dtype F32,
    BF16 (uint16 bits) or F16 [N, K]."""


def layer_info(format: str, tensors: Mapping[str, npt.NDArray[Any]], marker: Union[Mapping[str, Any], str, None] = None,
               *, dtypes: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """The layer's format, packing ('plain', 'nibbles', 'bits6',
    'tile_packed4'), logical rows N and cols K, parameters N * K and
    stored_bytes, as `safespec inspect` reports them."""


def w4a8_dequant(weight: npt.NDArray[Any], s_rel: npt.NDArray[Any], s_channel: npt.NDArray[np.float32],
                 codebook: Optional[npt.NDArray[np.float32]] = None, correction: Optional[npt.NDArray[Any]] = None,
                 *, group_size: int, convrot_groupsize: int, dtype: Optional[str] = None,
                 s_rel_dtype: Optional[str] = None) -> npt.NDArray[np.float32]:
    """An asym_w4a8_int8 weight as comfy-kitchen's eager dequantize computes
    it, float32 [N, K]."""


def compare(expected: npt.NDArray[Any], actual: npt.NDArray[Any], ulps: int = 0, *,
            atol: float = 0.0, rtol: float = 0.0, dtype: Optional[str] = None) -> dict[str, Any]:
    """Compare two arrays of one dtype as `safespec compare` compares two
    tensors: a dict with count, bit_exact, max_ulps (None: infinite),
    max_abs, max_rel, within (every element within ulps, or, for finite
    values, within atol + rtol * |expected| as numpy.isclose), beyond (the
    elements that are not), histogram ({ulps: elements}, None for infinitely
    far), first_difference (None, or index, position, expected, actual,
    differing) and worst_difference (None, or the first element furthest
    apart: index, position, expected, actual). dtype names bit patterns: 'bf16' for uint16, 'F8_E4M3' for
    uint8."""


def conformance_cases(profile: str = "strict", suite: Optional[str] = None) -> list[tuple[str, str]]:
    """The conformance suite as a list of (path, expected) for
    pytest.mark.parametrize: expected is the manifest's verdict for the
    profile ('accept' or 'reject'). suite: the folder holding manifest.jsonl
    (default: $SAFESPEC_CONFORMANCE, else the suite beside the source tree
    this module was built from, else the installed one under
    share/safespec/conformance)."""
