#!/usr/bin/env bash
# Installs what vibegemm builds with (Debian 12: LLVM/MLIR 22 from Debian's
# archive, ninja, ccache), then configures and builds it in ./build.
# Idempotent: a second run only rebuilds what changed. The opt-in Slurm
# test (VIBEGEMM_TEST_SLURM=1, test/Slurm) also needs, as root:
#   apt-get install -y slurm-wlm munge
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
          clang-format-22 cmake ninja-build ccache g++ python3 libgtest-dev
          libcurl4-openssl-dev nlohmann-json3-dev libsqlite3-dev chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
ninja -C build vibegemm-opt vibegemm-run vibegemm-unittests vibegemm-db
