# lit configuration for the vibegemm regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "VIBEGEMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
# test/lib holds the test infrastructure (the fake LLM server, the report.html
# checker), no tests.
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vibegemm_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%vibegemm_src", config.vibegemm_src_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))

llvm_config.with_system_environment(["HOME", "TMPDIR", "CUDA_HOME"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["vibegemm-opt", "vibegemm-run", "vibegemm-unittests", "vibegemm-db",
         "mlir-runner", "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(
    tools, [config.vibegemm_tools_dir, config.llvm_tools_dir])

# ptxas checks run wherever the CUDA toolkit is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found: tests that need it are UNSUPPORTED")

# Math in kernels (tanh, erf, exp, fmax) links CUDA's libdevice.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_home, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")
else:
    lit_config.note("libdevice not found: tests with math epilogues are UNSUPPORTED")

# GPU tests run only where vibegemm-run finds a CUDA driver and a GPU; CI has
# neither, so they show as UNSUPPORTED with this note.
import subprocess
config.substitutions.append(("%python", shutil.which("python3") or "python3"))
runner = os.path.join(config.vibegemm_tools_dir, "vibegemm-run")
try:
    probe = subprocess.run([runner, "--probe"], capture_output=True, text=True,
                           timeout=60)
    gpu_ok, gpu_note = probe.returncode == 0, probe.stdout.strip()
except (OSError, subprocess.TimeoutExpired) as e:
    gpu_ok, gpu_note = False, str(e)
if gpu_ok:
    config.available_features.add("cuda-gpu")
    lit_config.note("GPU tests run on " + gpu_note)
else:
    lit_config.note("no GPU (" + gpu_note + "): GPU tests are UNSUPPORTED")

# report.html is checked in headless Chromium where one is installed.
if any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    config.available_features.add("chromium")
else:
    lit_config.note("chromium not found: report.html rendering tests are UNSUPPORTED")

# The plugin tests (test/plugin) load build/lib/libVibeGemmPlugin.so into
# Debian's stock mlir-opt-22.
from lit.llvm.subst import ToolSubst
config.substitutions.append(("%vibegemm_plugin", os.path.join(
    config.vibegemm_obj_root, "lib", "libVibeGemmPlugin.so")))
config.substitutions.append(("%vibegemm_obj_root", config.vibegemm_obj_root))
# add_mlir_doc's output (test/docs checks the committed docs against it).
config.substitutions.append(("%vibegemm_docs", os.path.join(
    config.vibegemm_obj_root, "docs")))
llvm_config.add_tool_substitutions([ToolSubst(
    "mlir-opt-22", command=shutil.which("mlir-opt-22")
    or os.path.join(config.llvm_tools_dir, "mlir-opt"))])

# The format check needs Debian's clang-format 22 and a git checkout that has
# the commit from which every changed line must be formatted (.ci/format-base).
format_base = open(os.path.join(config.vibegemm_src_root, ".ci",
                                "format-base")).read().strip()
if (shutil.which("git-clang-format-22") and shutil.which("clang-format-22")
        and subprocess.run(["git", "-C", config.vibegemm_src_root, "cat-file",
                            "-e", format_base + "^{commit}"],
                           capture_output=True).returncode == 0):
    config.available_features.add("clang-format")
    config.substitutions.append(("%format_base", format_base))
else:
    lit_config.note("no clang-format-22 or no git history back to "
                    ".ci/format-base: the format check is UNSUPPORTED")

# The install test installs the whole build tree and builds a downstream
# project against it: slow, so only with VIBEGEMM_TEST_INSTALL=1.
if os.environ.get("VIBEGEMM_TEST_INSTALL") == "1":
    config.available_features.add("install-test")
else:
    lit_config.note("VIBEGEMM_TEST_INSTALL is not 1: the install test is UNSUPPORTED")

# The Slurm test starts munged, slurmctld and slurmd on this machine, as
# root: only with VIBEGEMM_TEST_SLURM=1 (docs/tuning-at-scale.md says how to
# install them).
if os.environ.get("VIBEGEMM_TEST_SLURM") == "1":
    config.available_features.add("slurm-test")
else:
    lit_config.note("VIBEGEMM_TEST_SLURM is not 1: the Slurm job array test is UNSUPPORTED")
