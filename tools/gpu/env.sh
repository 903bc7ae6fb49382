# Sourced by the GPU scripts (repo root, carrying .dist and build/bin):
# unpacks the carried MLIR libraries once, puts CUDA on PATH, and points
# vibegemm-run at a libcublas when the default search finds none (PyTorch
# wheels keep theirs in site-packages/nvidia/*/lib).
mkdir -p /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/vibegemm-libs.tar.xz
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
