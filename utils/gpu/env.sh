# Sourced by the GPU scripts (repo root, carrying .dist and build/bin):
# unpacks the carried library archives once, puts CUDA on PATH, and points
# vibegemm-run at a libcublas when the default search finds none (PyTorch
# wheels keep theirs in site-packages/nvidia/*/lib).
# Each .dist/*libs*.tar.xz (utils/dist/package-libs.sh) unpacks into
# /tmp/vg/lib once per machine, so consecutive calls on one warm machine can
# carry different archives (run-libs.tar.xz for vibegemm-run, then the rest
# vibegemm-opt needs), or one archive in parts (NAME.part-N and NAME.parts).
mkdir -p /tmp/vg/parts
for part in .dist/*libs*.tar.xz.part-*; do [ -e "$part" ] && cp "$part" /tmp/vg/parts/; done
for pack in .dist/*libs*.tar.xz; do
  [ -e "$pack" ] || continue
  name=$(basename "$pack")
  [ -e "/tmp/vg/.unpacked-$name" ] || { tar -C /tmp/vg -xJf "$pack" && touch "/tmp/vg/.unpacked-$name"; }
done
for count in .dist/*libs*.tar.xz.parts; do
  [ -e "$count" ] || continue
  name=$(basename "$count" .parts)
  [ -e "/tmp/vg/.unpacked-$name" ] && continue
  if [ "$(ls /tmp/vg/parts/"$name".part-* | wc -l)" -ge "$(cat "$count")" ]; then
    cat /tmp/vg/parts/"$name".part-* | tar -C /tmp/vg -xJf - && touch "/tmp/vg/.unpacked-$name"
  else
    echo "env.sh: $name: parts so far: $(ls /tmp/vg/parts | tr '\n' ' ')"
  fi
done
export LD_LIBRARY_PATH=/tmp/vg/lib PATH=/usr/local/cuda/bin:$PATH
if ! ldconfig -p | grep -q 'libcublas\.so\.1[23]' &&
   [ ! -e /usr/local/cuda/lib64/libcublas.so.13 ] &&
   [ ! -e /usr/local/cuda/lib64/libcublas.so.12 ]; then
  found=$(python3 - <<'PY' 2>/dev/null
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for root in roots:
    for hit in sorted(glob.glob(os.path.join(root, "nvidia", "**", "libcublas.so.1*"),
                            recursive=True)):
        if "Lt" not in os.path.basename(hit):
            print(hit)
            raise SystemExit
PY
)
  [ -n "$found" ] && export VIBEGEMM_LIBCUBLAS=$found
fi
