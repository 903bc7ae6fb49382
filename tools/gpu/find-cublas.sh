# Sourced by the GPU scripts: points vibegemm-run at a libcublas when the
# default library search finds none (PyTorch wheels keep theirs in
# site-packages/nvidia/*/lib).
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
