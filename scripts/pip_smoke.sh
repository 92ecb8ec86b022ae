#!/usr/bin/env bash
# `pip install --no-build-isolation .` proven by use (docs/python.md): setup.py
# drives CMake in build/release, which the release stage of scripts/test.sh has
# just configured and built with the settings setup.py
# passes (Release, no tests, the module on), so only what changed is rebuilt.
# setup.py leaves SAFESPEC_TESTS off in that cache, so it is put back as it
# was afterwards: otherwise a later `cmake --build` there would build no test
# and ctest would run the test programs left from before (only `cmake
# --preset release` set it on again).
# The module is installed with --target into a scratch folder and imported
# from outside the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${SAFESPEC_PIP_BUILD:-build/release}
py=$(sed -n 's/^Python3_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
py=${py:-/usr/bin/python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tests=$(sed -n 's/^SAFESPEC_TESTS:BOOL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
SAFESPEC_PIP_BUILD="$build" "$py" -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-deps --no-index \
  --target "$scratch/site" .
if [ "$tests" = ON ]; then cmake -DSAFESPEC_TESTS=ON "$build" > /dev/null; fi
cd "$scratch"
PYTHONPATH="$scratch/site" "$py" - "$root" <<'PY'
import sys
from pathlib import Path

import safespec

root = Path(sys.argv[1])
where = Path(safespec.__file__).resolve()
assert where.is_relative_to(Path.cwd()), f"imported {where}, not the installed module"
report = safespec.check(str(root / "corpus/examples/tiny-llm.safetensors"))
assert report["files"][0]["ok"] is True, report
bad = safespec.check(str(root / "corpus/examples/bad/reject_F8_gap.safetensors"))
assert [f["rule"] for f in bad["files"][0]["findings"]][0] == "ST-OFFSET-GAP", bad
assert (where.parent / "safespec.pyi").exists(), "the type stubs were not installed"
assert len(safespec.conformance_cases("strict")) > 600
print(f"pip install: ok ({where.name}, {len(safespec.rules())} rules)")
PY
