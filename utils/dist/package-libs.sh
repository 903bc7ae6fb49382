#!/usr/bin/env bash
# Packs the shared libraries vibegemm-opt needs (Debian's libMLIR/libLLVM and
# their dependencies, not glibc) into one archive, so the tool runs on a GPU
# machine that has no MLIR installed. Usage: package-libs.sh BINARY OUT.tar.xz
# (writes OUT.tar.xz, OUT.tar.xz.part-N and OUT.tar.xz.parts).
# Libraries every Python-capable Ubuntu 24.04 GPU image has (same sonames,
# newer versions) stay out, to fit the 64 MiB the device tool carries;
# VIBEGEMM_PACK_KEEP_ALL=1 packs them too.
# libLLVM links Z3 (the static analyzer's solver) and libxml2 (llvm-mt's
# Windows manifests, which pulls in 33 MB of ICU); vibegemm calls neither,
# and libLLVM binds functions lazily, so empty stubs of the same sonames
# take their place (VIBEGEMM_PACK_STUBS=0 packs the real ones). The stub
# libxml2 defines the one data symbol and the version nodes libLLVM asks
# for at load time; the script refuses to stub if that set ever grows.
set -euo pipefail
bin=$1 out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$(dirname "$out")"
stubs=${VIBEGEMM_PACK_STUBS:-1}
llvm=$(ldd "$bin" | awk '/libLLVM\.so/{print $3}')
if [ "$stubs" = 1 ]; then
  eager=$(readelf -rW "$llvm" | grep -E ' (Z3_|xml)' | grep -v JUMP_SLOT |
          awk '{print $5}' | sort -u | tr '\n' ' ')
  if [ "$eager" != "xmlFree@LIBXML2_2.4.30 " ]; then
    echo "package-libs.sh: libLLVM binds '$eager' from Z3/libxml2 at load time; packing the real libraries" >&2
    stubs=0
  fi
fi
ldd "$bin" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*) ;;
    libstdc++.so.6|libgcc_s.so.1|libz.so.1|liblzma.so.5|libzstd.so.1|\
    libcrypto.so.3|libssl.so.3|libsqlite3.so.0)
      if [ -n "${VIBEGEMM_PACK_KEEP_ALL:-}" ]; then cp -L "$lib" "$stage/lib/"; fi ;;
    libz3.so.*|libxml2.so.*|libicu*)
      if [ "$stubs" = 0 ]; then cp -L "$lib" "$stage/lib/"; fi ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
if [ "$stubs" = 1 ]; then
  echo 'void *xmlFree = 0;' > "$stage/xml.c"
  printf 'LIBXML2_2.4.30 { global: xmlFree; local: *; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' > "$stage/xml.map"
  echo 'static int unused;' > "$stage/z3.c"
  cc -shared -fPIC -o "$stage/lib/libxml2.so.2" -Wl,-soname,libxml2.so.2 \
    -Wl,--version-script="$stage/xml.map" "$stage/xml.c"
  cc -shared -fPIC -o "$stage/lib/libz3.so.4" -Wl,-soname,libz3.so.4 "$stage/z3.c"
fi
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true
# The packed libraries must load: the binary's ldd against them alone.
if LD_LIBRARY_PATH="$stage/lib" ldd "$bin" | grep -q 'not found'; then
  LD_LIBRARY_PATH="$stage/lib" ldd "$bin" | grep 'not found' >&2
  exit 1
fi
tar -C "$stage" -cf - lib | xz -T2 -9 > "$out.tmp"
mv "$out.tmp" "$out"
# The device tool carries 64 MiB per call, the working tree included: the
# archive also goes in two parts that two calls in a row carry one by one
# (utils/gpu/env.sh joins them on the GPU machine).
rm -f "$out".part-*
split -b 36M -d -a 1 "$out" "$out.part-"
ls "$out".part-* | wc -l > "$out.parts"
ls -la "$out" "$out".part-*
