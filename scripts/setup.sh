#!/usr/bin/env bash
# Installs the Debian 12 packages safespec builds with. Idempotent: installs
# only what is missing, and runs apt-get update only then.
set -euo pipefail
packages=(cmake ninja-build ccache g++-12 clang-14 libclang-rt-14-dev libsimdjson-dev libfmt-dev libcli11-dev
          catch2 librapidcheck-dev libbenchmark-dev libcurl4-openssl-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-setuptools python3-pip pre-commit)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
