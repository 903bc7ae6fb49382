#!/usr/bin/env bash
# Packs the shared libraries vibegemm-opt needs (Debian's libMLIR/libLLVM and
# their dependencies, not glibc) into one archive, so the tool runs on a GPU
# machine that has no MLIR installed. Usage: package-libs.sh BINARY OUT.tar.xz
set -euo pipefail
bin=$1 out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
ldd "$bin" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true
tar -C "$stage" -cf - lib | xz -T2 -9 > "$out.tmp"
mv "$out.tmp" "$out"
ls -la "$out"
