"""The Python module against the command and the C API: same findings, same
numbers bit for bit, every rule, the suite for parametrization, and bad
inputs refused with clear errors."""
import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import safespec

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SAFESPEC_CLI", str(ROOT / "build/dev/safespec"))
VECTOR = ROOT / "corpus/vectors/g16_c256_f32_bias"

_NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "F64": np.float64,
          "I8": np.int8, "U8": np.uint8, "F8_E4M3": np.uint8, "I32": np.int32}


def read_safetensors(path):
    """{name: (dtype, array)} of a small safetensors file, read here so the
    test does not trust safespec to read its own inputs."""
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        data = raw[8 + n + begin:8 + n + end]
        out[name] = (t["dtype"], np.frombuffer(data, dtype=_NUMPY[t["dtype"]]).reshape(t["shape"]).copy())
    return out


def cli_json(*args):
    run = subprocess.run([CLI, *args], capture_output=True, text=True)
    return json.loads(run.stdout)


def test_check_of_a_corrupted_file_gives_the_command_s_finding(tmp_path):
    data = bytearray((ROOT / "corpus/examples/tiny-llm.safetensors").read_bytes())
    data[:8] = struct.pack("<Q", len(data) - 8 + 1)  # header length one past the file
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(bytes(data))
    report = safespec.check(str(bad))
    assert report == cli_json("check", "--json", str(bad))
    finding = report["files"][0]["findings"][0]
    assert finding["rule"] == "ST-HEADER-LENGTH"
    assert finding["message"] == cli_json("check", "--json", str(bad))["files"][0]["findings"][0]["message"]
    # bytes in memory: the same findings under the name "<memory>"
    in_memory = safespec.check(bytes(data))
    assert in_memory["files"][0]["findings"] == report["files"][0]["findings"]


@pytest.mark.parametrize("profile", ["strict", "safetensors", "sglang", "comfyui", "kitchen"])
def test_check_equals_the_command_on_examples(profile):
    for path in ["corpus/examples/bad/reject_F13_polyglot.safetensors", "corpus/examples/quant/w4a8_valid.safetensors"]:
        assert safespec.check(str(ROOT / path), profile=profile) == cli_json(
            "check", "--json", "--profile", profile, str(ROOT / path))


def test_check_reports_every_consumer_version_and_takes_consumers():
    gap = str(ROOT / "corpus/examples/bad/reject_F8_gap.safetensors")
    doc = safespec.check(gap, profile="comfyui")
    f = doc["files"][0]
    assert f["consumer_versions"]["comfyui"] == "safe-open"
    assert [v["version"] for v in f["versions"]["comfyui"]] == ["safe-open", "dynamic-vram", "dynamic-vram-6db4fa2"]
    assert [v["loads"] for v in f["versions"]["comfyui"]] == [False, True, True]
    assert f["ok"] is False
    picked = safespec.check(gap, profile="comfyui", consumers=["comfyui=dynamic-vram"])["files"][0]
    assert picked["ok"] is True and picked["consumers"]["comfyui"]["loads"] is True
    with pytest.raises(ValueError):
        safespec.check(gap, consumers=["comfyui=nightly"])


def test_unknown_profile_raises():
    with pytest.raises(ValueError, match="unknown profile"):
        safespec.check(b"", profile="nope")


def test_rules_are_the_catalogue():
    ids = [r["id"] for r in safespec.rules()]
    assert ids == [r["id"] for r in cli_json("rules", "--json")["rules"]]
    assert "ST-HEADER-LENGTH" in ids


def vector_layer():
    t = read_safetensors(VECTOR / "layer.safetensors")
    x = next(iter(read_safetensors(VECTOR / "x.safetensors").values()))[1]
    return t, x


def test_w4a8_linear_reproduces_the_golden_vector_bit_for_bit():
    t, x = vector_layer()
    layer = dict(weight=t["lin.weight"][1], s_rel=t["lin.weight_s_rel"][1], s_channel=t["lin.weight_s_channel"][1],
                 bias=t["lin.bias"][1] if "lin.bias" in t else None)
    for semantics in ["cuda", "eager"]:
        want = next(iter(read_safetensors(VECTOR / f"y_{semantics}.safetensors").values()))[1]
        y = safespec.w4a8_linear(x, **layer, group_size=16, convrot_groupsize=256, semantics=semantics)
        assert y.dtype == want.dtype and y.tobytes() == want.tobytes()
        cmp = safespec.compare(want, y)
        assert cmp["bit_exact"] == want.size and cmp["first_difference"] is None and cmp["histogram"] == {0: want.size}


def test_w4a8_linear_equals_the_command_with_its_dump(tmp_path):
    t, x = vector_layer()
    subprocess.run([CLI, "linear", str(VECTOR / "layer.safetensors"), "--layer", "lin", "--input",
                    str(VECTOR / "x.safetensors"), "--out", str(tmp_path / "y.safetensors"), "--dump",
                    str(tmp_path / "dump")], check=True)
    y, dump = safespec.w4a8_linear(x, t["lin.weight"][1], t["lin.weight_s_rel"][1], t["lin.weight_s_channel"][1],
                                   bias=t["lin.bias"][1] if "lin.bias" in t else None, group_size=16,
                                   convrot_groupsize=256, dump=True)
    assert y.tobytes() == read_safetensors(tmp_path / "y.safetensors")["y"][1].tobytes()
    files = sorted(p.stem for p in (tmp_path / "dump").glob("*.safetensors"))
    assert sorted(dump) == files
    for name in files:
        assert dump[name].tobytes() == read_safetensors(tmp_path / "dump" / f"{name}.safetensors")[name][1].tobytes()


def case_a():
    """props/c_api_numerics_cases.h's case A, whose output the C test pins."""
    weight = np.array([(i * 37 + 11) & 0xFF for i in range(16)], dtype=np.uint8).reshape(2, 8)
    x = (np.arange(16, dtype=np.float32).reshape(1, 16) - 7) / 4
    return dict(x=x, weight=weight, s_rel=np.array([[1.5], [0.75]], np.float32),
                s_channel=np.array([0.01, 0.02], np.float32), bias=np.array([0.5, -0.25], np.float32))


def test_w4a8_linear_equals_the_c_api_pin():
    y = safespec.w4a8_linear(**case_a(), group_size=16, convrot_groupsize=16, semantics="eager")
    assert y.tobytes() == bytes([0xc8, 0x3a, 0x81, 0x3f, 0x96, 0x92, 0xaa, 0xbe])


def test_bad_inputs_raise_clear_errors():
    a = case_a()
    with pytest.raises(ValueError, match=r"^CQ-W4A8-K: K: expected K divisible by 16, G = 16 and C = 64, found K = 16$"):
        safespec.w4a8_linear(**a, group_size=16, convrot_groupsize=64, semantics="eager")
    with pytest.raises(ValueError, match="CQ-W4A8-CUDA-GROUPSIZE"):
        safespec.w4a8_linear(**a, group_size=16, convrot_groupsize=16)
    with pytest.raises(ValueError, match="C-contiguous"):
        safespec.w4a8_linear(**{**a, "x": np.asfortranarray(np.tile(a["x"], (2, 1)))}, group_size=16,
                             convrot_groupsize=16, semantics="eager")
    with pytest.raises(ValueError, match=r"x: expected shape \[M, 16\]"):
        safespec.w4a8_linear(**{**a, "x": a["x"][:, :8].copy()}, group_size=16, convrot_groupsize=16, semantics="eager")
    with pytest.raises(ValueError, match="x: expected dtype F32, BF16 or F16, found I32"):
        safespec.w4a8_linear(**{**a, "x": a["x"].astype(np.int32)}, group_size=16, convrot_groupsize=16,
                             semantics="eager")
    with pytest.raises(TypeError, match="uint16"):
        safespec.w4a8_linear(**{**a, "x": a["x"].astype(np.complex64)}, group_size=16, convrot_groupsize=16)


def test_bf16_passes_as_uint16_bits():
    a = case_a()
    bits = (a["x"].view(np.uint32) >> 16).astype(np.uint16)  # exact: these values fit in bf16
    y = safespec.w4a8_linear(**{**a, "x": bits}, group_size=16, convrot_groupsize=16, semantics="eager", dtype="bf16")
    assert y.dtype == np.uint16 and y.shape == (1, 2)


def test_dequant_fp8_and_compare_histogram():
    codes = np.array([[0x38, 0x40], [0xB8, 0x00]], dtype=np.uint8)  # 1, 2, -1, 0
    w = safespec.dequant("float8_e4m3fn", {"weight": codes, "weight_scale": np.array([0.5], np.float32)},
                         dtypes={"weight": "F8_E4M3"})
    assert w.tolist() == [[0.5, 1.0], [-0.5, 0.0]]
    off = w.copy()
    off.view(np.uint32)[0, 0] += 3
    cmp = safespec.compare(w, off, ulps=2)
    assert cmp["within"] is False and cmp["max_ulps"] == 3 and cmp["histogram"] == {0: 3, 3: 1}
    assert cmp["first_difference"]["index"] == 0 and cmp["first_difference"]["position"] == "[0, 0]"
    assert cmp["beyond"] == 1
    # A later, larger difference is the worst one, not the first.
    off.view(np.uint32)[1, 0] += 7
    cmp = safespec.compare(w, off)
    assert cmp["first_difference"]["position"] == "[0, 0]"
    assert cmp["worst_difference"]["position"] == "[1, 0]" and cmp["max_ulps"] == 7


def test_compare_atol_rtol_follow_numpy_isclose():
    expected = np.array([1.0, 2.0, -4.0, 0.0], np.float32)
    actual = np.array([1.0, 2.001, -4.01, np.nan], np.float32)
    cmp = safespec.compare(expected, actual, atol=0.002)
    assert cmp["within"] is False and cmp["beyond"] == 2  # -4.01 (0.01 off) and the NaN
    # numpy's own verdict, element by element (isclose(a, b) scales with |b|, the expected values).
    for atol, rtol in [(0.001, 0.002), (0.001, 0.003), (0.0, 0.0003), (0.02, 0.0)]:
        want = np.isclose(actual[:3], expected[:3], atol=atol, rtol=rtol)
        cmp = safespec.compare(expected[:3], actual[:3], atol=atol, rtol=rtol)
        assert cmp["beyond"] == int((~want).sum()) and cmp["within"] is bool(want.all()), (atol, rtol)
    assert safespec.compare(expected[:3], actual[:3], atol=0.001, rtol=0.003)["within"] is True
    assert safespec.compare(expected[:3], actual[:3], rtol=0.0001)["beyond"] == 2
    with pytest.raises(ValueError, match="expected atol and rtol finite, 0 or more"):
        safespec.compare(expected, actual, atol=-1.0)
    with pytest.raises(ValueError, match="expected atol and rtol finite, 0 or more"):
        safespec.compare(expected, actual, rtol=float("inf"))


def test_conformance_cases_cover_the_manifest():
    cases = safespec.conformance_cases("strict")
    lines = (ROOT / "corpus/conformance/manifest.jsonl").read_text().splitlines()
    assert len(cases) == len(lines)
    path, expected = cases[0]
    assert Path(path).exists() and expected in ("accept", "reject")
