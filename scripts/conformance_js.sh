#!/usr/bin/env bash
# conformance_js.sh [PROFILE]: installs two JavaScript safetensors parsers from
# the npm registry (tools/js_impls/package.json, pinned) into build/js-impls
# and holds each to the conformance suite under PROFILE (default safetensors)
# with the dev build's safespec. A demonstration, not a test: exit 0 whatever
# the parsers do. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-safetensors}
safespec=${SAFESPEC:-build/dev/safespec}
dir=build/js-impls
mkdir -p "$dir"
cp tools/js_impls/package.json tools/js_impls/*.cjs tools/js_impls/*.mjs "$dir/"
(cd "$dir" && npm install --no-audit --no-fund --silent)
for impl in safetensors_npm.cjs huggingface_hub.mjs; do
  echo "== $impl"
  "$safespec" conformance run --profile "$profile" --impl "node $PWD/$dir/$impl {file}" || true
done
