# Sourced by the GPU scripts (repo root, carrying .dist and build/bin):
# unpacks the carried MLIR libraries once, puts CUDA on PATH, and points
# vibegemm-run at a libcublas when the default search finds none (PyTorch
# wheels keep theirs in site-packages/nvidia/*/lib).
# The archive comes whole, or in parts over consecutive calls on one warm
# machine (carry .dist/vibegemm-libs.tar.xz.part-0 and .parts, then part-1...).
pack=.dist/vibegemm-libs.tar.xz
mkdir -p /tmp/vg/parts
for part in "$pack".part-*; do [ -e "$part" ] && cp "$part" /tmp/vg/parts/; done
if [ ! -d /tmp/vg/lib ]; then
  if [ -e "$pack" ]; then
    tar -C /tmp/vg -xJf "$pack"
  elif [ -e "$pack.parts" ] &&
       [ "$(ls /tmp/vg/parts | wc -l)" -ge "$(cat "$pack.parts")" ]; then
    cat /tmp/vg/parts/* | tar -C /tmp/vg -xJf -
  else
    echo "env.sh: library parts so far: $(ls /tmp/vg/parts | tr '\n' ' ')"
  fi
fi
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
