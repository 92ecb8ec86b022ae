"""The module against the command on everything the project ships as ground
truth: every file of the conformance suite (same report, same verdict as the
manifest) and every golden vector (same bits). A binding that drifts from the
command, drops an option or reorders a field fails here, file by file."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import safespec

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("SAFESPEC_CLI", str(ROOT / "build/dev/safespec"))
SUITE = ROOT / "corpus/conformance"
VECTORS = ROOT / "corpus/vectors"

# The manifest read here, not through conformance_cases(), so the test does
# not trust the code it checks to list the cases.
MANIFEST = [json.loads(line) for line in (SUITE / "manifest.jsonl").read_text().splitlines() if line]
PROFILES = sorted({p for e in MANIFEST for p in e["expect"]})
# The command is run per file and profile; two profiles (the strictest and
# the consumer with the most verdict logic) keep the run short while every
# file still goes through the same report code.
CLI_PROFILES = ["strict", "sglang"]


def entry_id(e):
    return e["file"]


@pytest.mark.parametrize("profile", CLI_PROFILES)
def test_check_equals_the_command_on_the_whole_suite(profile):
    differing = []
    for e in MANIFEST:
        path = str(SUITE / e["file"])
        args = ["check", "--json", "--profile", profile] + (["--data"] if e.get("data") else []) + [path]
        run = subprocess.run([CLI, *args], capture_output=True, text=True)
        assert run.stdout, f"{e['file']}: the command printed nothing ({run.stderr.strip()})"
        if safespec.check(path, profile=profile, data=bool(e.get("data"))) != json.loads(run.stdout):
            differing.append(e["file"])
    assert differing == []


@pytest.mark.parametrize("profile", PROFILES)
def test_every_verdict_matches_the_manifest(profile):
    # The manifest's verdicts are `check --profile P --data --fail-on error`
    # (the suite generator's run): the profile's own default fail_on also
    # fails, for the consumer profiles, files they load but compute wrongly.
    wrong = []
    for e in MANIFEST:
        if profile not in e["expect"]:
            continue
        report = safespec.check(str(SUITE / e["file"]), profile=profile, data=True, fail_on="error")
        accepted = bool(report["files"]) and all(f["ok"] for f in report["files"])
        if accepted != (e["expect"][profile] == "accept"):
            wrong.append((e["file"], e["expect"][profile]))
    assert wrong == []


def test_conformance_cases_are_the_manifest():
    for profile in PROFILES:
        want = [(str(SUITE / e["file"]), e["expect"][profile]) for e in MANIFEST if profile in e["expect"]]
        got = safespec.conformance_cases(profile)
        assert all(Path(p).exists() for p, _ in got)
        # By name: the module may have been built from another checkout.
        assert [(Path(p).name, v) for p, v in got] == [(Path(p).name, v) for p, v in want]


# --- golden vectors ------------------------------------------------------

_NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I8": np.int8, "U8": np.uint8,
          "F8_E4M3": np.uint8}


def tensors(path):
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


def vector_params():
    """(folder, G, C) of every W4A8 and W6A8 vector, from index.txt: the
    layer's options live only there. w4a8_linear reads 6-bit storage
    (weight [N, 3K/4]) as comfy-kitchen infers it; the svdquant_w4a4 ones
    (no G or C) are dequant()'s and the CLI tests'."""
    out = []
    for line in (VECTORS / "index.txt").read_text().splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        name, rest = line.split(":", 1)
        fields = dict(w.split("=", 1) for w in rest.split() if "=" in w)
        if "G" not in fields:
            continue
        out.append(pytest.param(name, int(fields["G"]), int(fields["C"]), id=name))
    return out


@pytest.mark.parametrize("name,group_size,convrot_groupsize", vector_params())
def test_w4a8_linear_reproduces_every_golden_vector(name, group_size, convrot_groupsize):
    folder = VECTORS / name
    t = tensors(folder / "layer.safetensors")
    x_dtype, x = tensors(folder / "x.safetensors")["x"]
    bits = {"BF16": "bf16"}.get(x_dtype)

    def opt(suffix):
        return t[f"lin.{suffix}"][1] if f"lin.{suffix}" in t else None

    s_rel_dtype, s_rel = t["lin.weight_s_rel"]
    outputs = sorted(folder.glob("y_*.safetensors"))
    assert outputs, f"{name}: no stored output"
    for out in outputs:
        semantics = out.stem[2:]
        want = tensors(out)["y"][1]
        y = safespec.w4a8_linear(x, t["lin.weight"][1], s_rel, t["lin.weight_s_channel"][1],
                                 codebook=opt("weight_codebook"), correction=opt("weight_correction"),
                                 bias=opt("bias"), group_size=group_size, convrot_groupsize=convrot_groupsize,
                                 semantics=semantics, dtype=bits,
                                 s_rel_dtype="F8_E4M3" if s_rel_dtype == "F8_E4M3" else None)
        assert (y.dtype, y.shape) == (want.dtype, want.shape), f"{name} {semantics}"
        assert y.tobytes() == want.tobytes(), f"{name} {semantics}: {safespec.compare(want, y, dtype=bits)}"
