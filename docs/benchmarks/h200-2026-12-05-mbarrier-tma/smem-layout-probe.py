"""Where shared memory lands at run time (GPU machine, CuPy): MLIR's
dynamic shared memory as the NVPTX backend demotes it (a 1-byte static
`.shared` variable declared before `__mbarrier`) against CUDA's
`.extern .shared` array that vibegemm-lower-to-ptx now emits. Each kernel
aligns the dynamic base up to 1024 bytes, as the wgmma kernels do, and says
whether that base overlays the mbarriers.

    python3 docs/benchmarks/h200-2026-12-05-mbarrier-tma/smem-layout-probe.py
"""
import os
import tempfile

import cupy as cp

# One kernel, the dynamic region declared either way: {module} before the
# entry, {local} inside it. Thread 0 writes the dynamic base, the aligned
# base, the mbarriers' address, and the first mbarrier word after a store
# at aligned base + 8.
PTX = r"""
.version 8.0
.target sm_90a
.address_size 64
{module}
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
{local}
  .shared .align 8 .b8 __mbarrier[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.b64 %rd3, __dynamic_shmem__0;
  sub.s64 %rd4, 1024, %rd3;
  and.b64 %rd5, %rd4, 1008;
  add.s64 %rd6, %rd3, %rd5;
  cvt.u32.u64 %r1, %rd6;
  cvt.u32.u64 %r5, %rd3;
  mov.u32 %r2, __mbarrier;
  mov.b32 %r6, 1;
  mbarrier.init.shared.b64 [__mbarrier], %r6;
  mov.b32 %r7, -1;
  st.shared.u32 [%r1+8], %r7;
  ld.shared.u32 %r3, [__mbarrier];
  st.global.u32 [%rd2], %r5;
  st.global.u32 [%rd2+4], %r1;
  st.global.u32 [%rd2+8], %r2;
  st.global.u32 [%rd2+12], %r3;
  ret;
}}
"""


def probe(ptx: str, label: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    try:
        kernel = cp.RawModule(path=f.name).get_function("k")
    finally:
        os.unlink(f.name)
    out = cp.zeros(4, dtype=cp.uint32)
    kernel((1,), (1,), (out,), shared_mem=4096)
    cp.cuda.runtime.deviceSynchronize()
    d, base, mbar, word = [int(x) for x in out.get()]
    print(f"{label}: __dynamic_shmem__0 at {d:#x}, aligned base {base:#x}, "
          f"__mbarrier at {mbar:#x}; mbarrier word after a store at base+8: "
          f"{word:#x}; overlap: {base <= mbar < base + 1024}")


probe(PTX.format(module="", local="  .shared .align 16 .b8 __dynamic_shmem__0;"),
      "demoted (before)")
probe(PTX.format(module=".extern .shared .align 16 .b8 __dynamic_shmem__0[];", local=""),
      "extern (after)")
