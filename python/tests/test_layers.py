"""dequant() and layer_info(): one layer of any format by its marker name,
against the command on the quantized examples (the same bits as `safespec
dequant`, the same size as `safespec inspect`), and the refusals."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import safespec

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SAFESPEC_CLI", str(ROOT / "build/dev/safespec"))
QUANT = ROOT / "corpus/examples/quant"
NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I8": np.int8, "U8": np.uint8,
         "F8_E4M3": np.uint8, "F8_E5M2": np.uint8, "F8_E8M0": np.uint8, "I32": np.int32}


def read_layer(path, prefix):
    """P's tensors {suffix: array}, their dtypes, and the marker's text."""
    raw = Path(path).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    tensors, dtypes, marker = {}, {}, None
    for name, e in header.items():
        if not name.startswith(prefix + "."):
            continue
        suffix = name[len(prefix) + 1:]
        b = data[e["data_offsets"][0]:e["data_offsets"][1]]
        if suffix == "comfy_quant":
            marker = b.decode()
            continue
        tensors[suffix] = np.frombuffer(b, NUMPY[e["dtype"]]).reshape(e["shape"]).copy()
        dtypes[suffix] = e["dtype"]
    return tensors, dtypes, marker


def inspect_layer(path):
    out = subprocess.run([CLI, "inspect", "--json", str(path)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["summary"]["quantized_layers"][0]


@pytest.mark.parametrize("name", ["svdquant_w4a4_natural", "svdquant_w4a4_tilepack", "w6a8_valid_for_kitchen_2a6f4ef",
                                  "w4a8_valid", "nvfp4_valid", "mxfp8_valid", "awq_w4a16_valid", "int8_convrot_valid",
                                  "w4a4_valid", "fp8_e5m2_valid"])
def test_dequant_and_layer_info_equal_the_command(name, tmp_path):
    path = QUANT / f"{name}.safetensors"
    layer = inspect_layer(path)
    tensors, dtypes, marker = read_layer(path, layer["prefix"])
    info = safespec.layer_info(layer["format"], tensors, marker, dtypes=dtypes)
    assert info["format"] == layer["format"] and info["packing"] == layer["packing"]
    assert [info["rows"], info["cols"]] == layer["logical_shape"]
    assert info["parameters"] == layer["logical_parameters"] and info["stored_bytes"] == layer["stored_bytes"]
    out = tmp_path / "w.npy"
    subprocess.run([CLI, "dequant", str(path), "--layer", layer["prefix"], "--out", str(out)], check=True)
    w = safespec.dequant(layer["format"], tensors, marker, dtypes=dtypes)
    expected = np.load(out)
    assert w.dtype == np.float32 and w.shape == expected.shape
    assert w.tobytes() == expected.tobytes()


def test_the_marker_may_be_a_dict_and_the_output_bf16():
    path = QUANT / "svdquant_w4a4_tilepack.safetensors"
    prefix = inspect_layer(path)["prefix"]
    tensors, dtypes, marker = read_layer(path, prefix)
    keys = {k: v for k, v in json.loads(marker).items() if k != "format"}
    f32 = safespec.dequant("svdquant_w4a4", tensors, keys, dtypes=dtypes)
    bf16 = safespec.dequant("svdquant_w4a4", tensors, keys, dtypes=dtypes, out_dtype="BF16")
    assert bf16.dtype == np.uint16 and bf16.shape == f32.shape == (128, 64)
    # Round to nearest even on the top 16 bits of each F32 (finite values).
    u = f32.view(np.uint32).astype(np.uint64)
    assert (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16) == bf16).all()


def test_refusals_name_the_rule_or_the_argument():
    path = QUANT / "fp8_e4m3fn_valid.safetensors"
    prefix = inspect_layer(path)["prefix"]
    tensors, dtypes, _ = read_layer(path, prefix)
    with pytest.raises(safespec.InputError, match="^format: expected one of float8_e4m3fn, .* found 'int9'$"):
        safespec.dequant("int9", tensors, dtypes=dtypes)
    with pytest.raises(safespec.InputError) as e:
        safespec.dequant("float8_e4m3fn", {"weight": tensors["weight"]}, dtypes={"weight": dtypes["weight"]})
    assert str(e.value).startswith("CQ-")
    with pytest.raises(safespec.InputError, match="^marker_json: expected no \"format\" key"):
        safespec.layer_info("float8_e4m3fn", tensors, {"format": "nvfp4"}, dtypes=dtypes)
    with pytest.raises(TypeError, match="^marker: expected a dict, a JSON str or None, found int$"):
        safespec.layer_info("float8_e4m3fn", tensors, 3, dtypes=dtypes)
    with pytest.raises(safespec.InputError, match="^dtypes: expected a suffix of one of the tensors, found 'bias'$"):
        safespec.layer_info("float8_e4m3fn", tensors, dtypes={**dtypes, "bias": "F32"})


def test_w4a8_dequant_reads_six_bit_storage_as_dequant_does():
    path = QUANT / "w6a8_valid_for_kitchen_2a6f4ef.safetensors"
    layer = inspect_layer(path)
    tensors, dtypes, marker = read_layer(path, layer["prefix"])
    keys = json.loads(marker)
    group_size = keys.get("group_size", keys.get("params", {}).get("group_size", 16))
    convrot = keys.get("convrot_groupsize", keys.get("params", {}).get("convrot_groupsize", 256))
    w = safespec.w4a8_dequant(tensors["weight"], tensors["weight_s_rel"], tensors["weight_s_channel"],
                              group_size=group_size, convrot_groupsize=convrot,
                              s_rel_dtype=dtypes["weight_s_rel"] if dtypes["weight_s_rel"] == "F8_E4M3" else None)
    assert w.shape == tuple(layer["logical_shape"]) and layer["packing"] == "bits6"
    assert w.tobytes() == safespec.dequant("asym_w4a8_int8", tensors, marker, dtypes=dtypes).tobytes()
