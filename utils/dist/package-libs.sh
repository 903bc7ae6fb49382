#!/usr/bin/env bash
# Packs the shared libraries vibegemm-opt needs (Debian's libMLIR/libLLVM and
# their dependencies, not glibc) into one archive, so the tool runs on a GPU
# machine that has no MLIR installed. Usage: package-libs.sh BINARY OUT.tar.xz
# (writes OUT.tar.xz, OUT.tar.xz.part-N and OUT.tar.xz.parts).
# Libraries every Python-capable Ubuntu 24.04 GPU image has (same sonames,
# newer versions) stay out, to fit the 64 MiB the device tool carries;
# VIBEGEMM_PACK_KEEP_ALL=1 packs them too.
set -euo pipefail
bin=$1 out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$(dirname "$out")"
ldd "$bin" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    libstdc++.so.6|libgcc_s.so.1|libz.so.1|liblzma.so.5|libzstd.so.1|\
    libcrypto.so.3|libssl.so.3|libsqlite3.so.0)
      if [ -n "${VIBEGEMM_PACK_KEEP_ALL:-}" ]; then cp -L "$lib" "$stage/lib/"; fi ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true
tar -C "$stage" -cf - lib | xz -T2 -9 > "$out.tmp"
mv "$out.tmp" "$out"
# The device tool carries 64 MiB per call, the working tree included: the
# archive also goes in two parts that two calls in a row carry one by one
# (utils/gpu/env.sh joins them on the GPU machine).
rm -f "$out".part-*
split -b 36M -d -a 1 "$out" "$out.part-"
ls "$out".part-* | wc -l > "$out.parts"
ls -la "$out" "$out".part-*
