//===- Passes.td - vibegemm pass definitions ---------------*- tablegen -*-===//
//
// The vibegemm pipeline, one pass per stage: form dispatches, schedule,
// apply, lower to PTX. The user-facing `llm-schedule` that chains them is
// in include/vibegemm/Tuner/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMS_PASSES
#define VIBEGEMM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def VibeGemmApplySchedulesPass
    : Pass<"vibegemm-apply-schedules", "::mlir::ModuleOp"> {
  let summary = "Apply each dispatch's transform script with the interpreter";
  let description = [{
    For every function marked `vibegemm.dispatch`, looks up the named sequence
    `vibegemm.schedule` refers to inside the `@__vibegemm_schedules` module and
    applies it with the transform interpreter, using the dispatch function as
    the payload root. The schedules module is erased afterwards unless
    `keep-schedules` is set. A dispatch without a schedule is an error.
  }];
  let dependentDialects = [
    "::mlir::transform::TransformDialect", "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::affine::AffineDialect", "::mlir::vector::VectorDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect"];
  let options = [
    Option<"keepSchedules", "keep-schedules", "bool", /*default=*/"false",
           "Keep the @__vibegemm_schedules module after applying it">,
    Option<"expensiveChecks", "expensive-checks", "bool", /*default=*/"false",
           "Have the interpreter check every handle before use, so an "
           "untrusted script that reuses a consumed handle fails with a "
           "diagnostic instead of crashing">,
  ];
}

def VibeGemmApplyTunedSchedulesPass
    : Pass<"vibegemm-apply-tuned-schedules", "::mlir::ModuleOp"> {
  let summary = "Attach the best stored schedule to every dispatch";
  let description = [{
    The scheduling step of `vibegemm-compile`, alone. For every dispatch
    (after `vibegemm-form-dispatches`), looks up the best schedule stored for
    its signature and target: in the tuning spec file `specs` (a transform
    library exported by `vibegemm-db export`, one named sequence per
    signature tagged `vibegemm.signature`), else in the tuning database `db`
    (keyed by signature, target and toolchain version). A found schedule is
    checked against the allowlist of transform ops and attached; the dispatch
    records where its schedule came from in `vibegemm.schedule_source`
    (`specs`, `db`). Dispatches with no stored schedule are left for
    `vibegemm-builtin-schedule`. Needs no LLM and no GPU.
  }];
  let dependentDialects = ["::mlir::transform::TransformDialect"];
  let options = [
    Option<"db", "db", "std::string", /*default=*/"\"\"",
           "Tuning database to read winners from">,
    Option<"specs", "specs", "std::string", /*default=*/"\"\"",
           "Tuning spec file (transform library) to read schedules from; "
           "wins over db">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture the schedules were tuned for">,
  ];
}

def VibeGemmCompilePass : Pass<"vibegemm-compile", "::mlir::ModuleOp"> {
  let summary = "Compile every GEMM dispatch with its tuned schedule to PTX";
  let description = [{
    The deterministic compile for flows that tuned once: prepares the input
    (`vibegemm-prepare`), forms dispatches,
    applies the best stored schedule of each (`vibegemm-apply-tuned-schedules`
    with `db` or `specs`), the built-in one where none is stored, and lowers
    to PTX (`vibegemm-lower-to-ptx`). No LLM, no GPU, no artifacts: the same
    input and schedules give byte-identical output.
  }];
  let dependentDialects = [
    "::mlir::transform::TransformDialect", "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::affine::AffineDialect", "::mlir::vector::VectorDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::math::MathDialect", "::mlir::func::FuncDialect"];
  let options = [
    Option<"db", "db", "std::string", /*default=*/"\"\"",
           "Tuning database to read winners from (or $VIBEGEMM_DB)">,
    Option<"specs", "specs", "std::string", /*default=*/"\"\"",
           "Tuning spec file to read schedules from instead">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture (sm_80, sm_90, sm_90a)">,
    Option<"programmaticLaunch", "programmatic-launch", "bool",
           /*default=*/"false",
           "Let each kernel launch start while the one before it ends "
           "(vibegemm-programmatic-launch; sm_90 and later; not yet timed)">,
    Option<"optLevel", "opt-level", "unsigned", /*default=*/"3",
           "LLVM optimisation level for device code">,
    ListOption<"bucketSizes", "bucket-sizes", "int64_t",
               "Buckets of a dynamic M: the largest M of each, increasing "
               "(vibegemm-bucket-dispatches; default 1, 16, 64, 256, 1024)">,
    Option<"f32Precision", "f32-precision", "std::string",
           /*default=*/"\"ieee\"",
           "ieee|tf32|3xtf32: what f32 GEMMs may use (passed to "
           "vibegemm-form-dispatches; TF32 changes accuracy)">,
    Option<"gemmOnly", "gemm-only", "bool", /*default=*/"false",
           "Compile only the GEMM dispatches and leave every other op in "
           "the host functions, for a flow that compiles them itself (a "
           "module without GEMMs comes back prepared, with no GPU code)">,
  ];
}

def VibeGemmBuiltinSchedulePass
    : Pass<"vibegemm-builtin-schedule", "::mlir::ModuleOp"> {
  let summary = "Write a SIMT transform script for every dispatch";
  let description = [{
    The built-in scheduler. For every `vibegemm.dispatch` function that has no
    `vibegemm.schedule` yet, it picks block, K and thread tile sizes from the
    problem shape and the target table, writes a transform script
    (`transform.named_sequence @<dispatch>`) whose tunable choices are
    `transform.tune.knob`s, and places it in the `@__vibegemm_schedules`
    module. The script tiles the GEMM (or its fused epilogue) to blocks, pads
    ragged tiles, tiles K, stages operand tiles in shared memory, tiles to
    threads with a register tile, bufferizes and maps to the GPU.
  }];
  // The built-in schedules' mappings are `#gpu.block` and `#gpu.thread`
  // attributes, built rather than parsed.
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::transform::TransformDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture the schedule is written for (sm_80, sm_90, sm_90a)">,
    Option<"cpuCheck", "cpu-check", "bool", /*default=*/"false",
           "Write the same schedules with sequential loops instead of the "
           "GPU mapping, for checking their math with mlir-runner">,
    Option<"reference", "reference", "bool", /*default=*/"false",
           "Write the reference schedule instead: 16x16 blocks, one output "
           "per thread, every op its own kernel. The runtime checks "
           "candidates against kernels scheduled this way">,
  ];
}

def VibeGemmConvertFrontendOpsPass
    : Pass<"vibegemm-convert-frontend-ops", "::mlir::ModuleOp"> {
  let summary = "Rewrite what frontends emit into generics and fills";
  let description = [{
    The first step of `vibegemm-prepare`. Frontends (torch-mlir, TOSA's
    lowering, IREE's input, StableHLO) spell elementwise work, constants and
    data movement in many ways; this pass gives them one form:

    - elementwise `arith`/`math` ops on whole tensors become
      `linalg.generic`s (upstream's elementwise-to-linalg patterns);
    - named linalg ops other than `linalg.matmul`, `linalg.batch_matmul` and
      `linalg.fill` (`linalg.transpose`, `linalg.broadcast`, `linalg.add`,
      `linalg.elementwise`, `linalg.copy`, ...) are generalized;
    - a splat `arith.constant` used as a linalg init becomes a `linalg.fill`,
      and one used as a generic's input is inlined into its body;
    - a generic that reads none of its operands (a scalar computed from
      constants, such as attention's 1/sqrt(d) in 0-d tensors) becomes a
      fill, and a fill read by a generic is inlined as its scalar;
    - f64 constants that only feed a truncation fold (canonicalization).

    Functions marked `vibegemm.ignore` are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def VibeGemmNormalizeContractionsPass
    : Pass<"vibegemm-normalize-contractions", "::mlir::ModuleOp"> {
  let summary = "Give every GEMM one batch, M, N and K loop and an f32 fill";
  let description = [{
    The second step of `vibegemm-prepare`, on every contraction:

    - input maps with a constant 0 on a unit dimension (`(d0, d1) -> (0,
      d1)`) read a collapsed operand instead, and unit loops that index
      one operand only are dropped, with reshapes around the op (in
      reductions that are no contraction, such as layer norm's row sums,
      every unit loop is dropped, so their generic schedule can split them);
    - contraction generics with several batch, M, N or K loops (attention's
      `[B, H, S, D]` products, a batch of 1 broadcast against a 2-D weight)
      are interchanged and collapsed to one loop of each kind;
    - every GEMM accumulates from its own `linalg.fill` in f32 when its
      operands are f16/bf16 (or in its own type otherwise): an f16/bf16
      accumulator is widened and the result rounded once in an epilogue, as
      cuBLAS, IREE and PyTorch do, and an accumulator initialised from a
      tensor (addmm's broadcast bias, `C += A*B` into an argument, a dense
      constant) becomes a zero fill plus an epilogue that adds it.

    Functions marked `vibegemm.ignore` are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def VibeGemmFuseProducersPass
    : Pass<"vibegemm-fuse-producers", "::mlir::ModuleOp"> {
  let summary = "Fold transposes, broadcasts and reshapes into their users";
  let description = [{
    The third step of `vibegemm-prepare`. Elementwise producers are fused
    into their consumers (upstream's elementwise fusion) under one rule: a
    pure data-movement generic (a transpose or broadcast: its body only
    yields an input) folds into any consumer, a contraction's included, as
    an indexing map; other elementwise producers fold only into elementwise
    consumers they alone feed, which turns epilogue DAGs (SiLU as
    x * sigmoid(x), SwiGLU's gate * up) into one generic. Reshapes between
    a GEMM and its elementwise consumers are moved past the consumers
    (upstream's reshape-by-collapsing patterns), so the epilogue runs on the
    GEMM's 2-D result and the reshape is left in host code, where it is
    free.

    Functions marked `vibegemm.ignore` are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VibeGemmUntieEpiloguesPass
    : Pass<"vibegemm-untie-epilogues", "::mlir::ModuleOp"> {
  let summary = "Give every elementwise op a fresh output tensor";
  let description = [{
    The last step of `vibegemm-prepare`. An elementwise generic that writes
    into storage it does not own (the GEMM's result itself, a function
    argument, a `tensor.empty` shared with another op) writes into a fresh
    `tensor.empty` instead; where its body read that output, the value is
    passed as an input. Every op's `tensor.empty` init is its own.

    Functions marked `vibegemm.ignore` are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VibeGemmPreparePass : Pass<"vibegemm-prepare", "::mlir::ModuleOp"> {
  let summary = "Bring frontend linalg into the form dispatches are made of";
  let description = [{
    Runs before `vibegemm-form-dispatches` in every entry point
    (`llm-schedule`, `vibegemm-compile`, the plugin, the C++ API). TOSA
    input is first lowered with upstream's TOSA-to-linalg pipeline. Then
    `vibegemm-convert-frontend-ops`, `vibegemm-normalize-contractions`,
    `vibegemm-fuse-producers` and `vibegemm-untie-epilogues` run, each
    followed by canonicalization and CSE. See docs/frontends.md for what
    each frontend emits and what this does to it.

    Before any rewrite, dynamic shapes are refused at the value, and an op
    that reads a `tensor.empty` init as its starting value (an accumulator
    never filled) gets a warning: its result is undefined.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def VibeGemmFormDispatchesPass
    : Pass<"vibegemm-form-dispatches", "::mlir::ModuleOp"> {
  let summary = "Outline each GEMM and its fusable epilogue into a dispatch";
  let description = [{
    Finds GEMM roots (`linalg.matmul`, `linalg.batch_matmul`, and contraction
    `linalg.generic`s), pulls in the `linalg.fill` that initialises the
    accumulator (or, when the GEMM accumulates onto an input, a
    `linalg.copy` of it into a fresh tensor) and the chain of elementwise `linalg.generic` and
    `linalg.softmax` consumers that only the GEMM feeds. Whether those
    consumers run in the GEMM's kernel is recorded as
    `vibegemm.fuse_epilogues` (from `fuse-epilogues`), which schedules honour
    or override.
    Each group becomes a `func.func` marked `vibegemm.dispatch`, carrying a
    stable `vibegemm.signature` key and the fusion decision
    (`vibegemm.fusion`, and a `vibegemm.role` on every op), and the original
    code calls it.

    Functions marked `vibegemm.ignore` are left alone.

    `f32-precision=tf32` or `3xtf32` marks dispatches whose GEMM has f32
    operands with `vibegemm.f32_precision`: the user accepts that accuracy
    there, so schedules may put those GEMMs on TF32 tensor cores. The mark
    is part of the dispatch's signature (its tuning-database key), and the
    launch plan carries it to the runtime's tolerance. By default (`ieee`)
    nothing is marked and f32 stays f32.

    Every other linalg op on tensors (elementwise ops, broadcasts,
    transposes, reductions, fills, a softmax no GEMM fused, decomposed)
    becomes a generic dispatch of its own, marked `vibegemm.generic`, its op
    tagged `vibegemm.role = "generic"`; reshapes stay in host code. A
    reduction takes its init along (role `"init"`): the fill that starts it,
    or, where it accumulates onto a tensor it does not own (an argument), a
    `linalg.copy` of that tensor into a fresh one. With `gemm-only` those
    ops are left where they are.

    Refused with an error at the offending op: dynamic shapes, GEMMs on
    element types other than f32, f16 and bf16 (or FP8 inputs, f8E4M3FN and
    f8E5M2, into an f32 accumulator), convolutions, absurd sizes,
    ops with no kernel (named with the reason), and modules with nothing to
    compile.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Run elementwise consumers in the GEMM's kernel (recorded as "
           "vibegemm.fuse_epilogues on each dispatch)">,
    Option<"f32Precision", "f32-precision", "std::string",
           /*default=*/"\"ieee\"",
           "ieee|tf32|3xtf32: what f32 GEMMs may use (TF32 changes "
           "accuracy, so it is never chosen unasked)">,
    Option<"gemmOnly", "gemm-only", "bool", /*default=*/"false",
           "Outline only GEMM dispatches and leave every other op where it "
           "is, for a host flow that compiles them itself (by default each "
           "becomes a generic dispatch)">,
    Option<"maxDim", "max-dim", "int64_t", /*default=*/"16777216",
           "Largest extent accepted for any tensor dimension">,
    Option<"maxTensorBytes", "max-tensor-bytes", "int64_t",
           /*default=*/"68719476736",
           "Largest size in bytes accepted for any single tensor">,
  ];
}

def VibeGemmCpuCheckHarnessPass
    : Pass<"vibegemm-cpu-check-harness", "::mlir::ModuleOp"> {
  let summary = "Wrap a function in a main that checks it against itself";
  let description = [{
    Testing aid for IR written by others: clones `function` (default: the
    first public function with a body) as `<function>_reference`, marked
    `vibegemm.ignore` so the compiler leaves it as written, and adds a
    `vibegemm_check_main` that builds deterministic non-zero inputs, calls both, and
    prints for each result `max_rel_err`, the largest |a - b| / (1 + |b|),
    and `ok` (1 when it is below `tolerance`). Run it before
    `vibegemm-prepare` and the CPU-check schedules, then
    `vibegemm-lower-to-cpu` and `mlir-runner -e vibegemm_check_main`: the compiled function
    is then checked against the input's own semantics, lowered naively.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
    "::mlir::linalg::LinalgDialect"];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Function to check (default: the first public one with a body)">,
    Option<"tolerance", "tolerance", "double", /*default=*/"1e-3",
           "Largest relative error that passes">,
    Option<"inputScale", "input-scale", "double", /*default=*/"1.0",
           "Scale of the inputs (|x| <= 0.53 * scale): smaller sums keep "
           "an f16/bf16 accumulator as written closer to vibegemm's f32 "
           "one">,
  ];
}

def VibeGemmWidenHalfSoftmaxPass
    : Pass<"vibegemm-widen-half-softmax", "::mlir::ModuleOp"> {
  let summary = "Compute each dispatch's f16/bf16 softmax in f32";
  let description = [{
    Runs before `vibegemm-builtin-schedule{reference=true}` or
    `{cpu-check=true}`, whose schedules decompose a softmax into generics in
    its own element type, where an f16/bf16 row sum saturates (adding 1 to
    256 is lost in bf16); those schedules refuse an unwidened one. Each
    f16/bf16 `linalg.softmax` of a dispatch becomes an f32 softmax between
    an extension and a rounding, two elementwise ops tagged as epilogues, as
    PyTorch and vibegemm's kernels compute it, and the dispatch is marked
    `vibegemm.widened_softmax` (the scheduler then keeps its epilogues
    unfused: the rounding lies beyond the softmax).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VibeGemmWidenFloat8Pass : Pass<"vibegemm-widen-float8"> {
  let summary = "Lower arith.extf from FP8 to integer arithmetic";
  let description = [{
    `arith.extf` from `f8E4M3FN` or `f8E5M2` (scalars or vectors) becomes a
    bitcast to i8 and integer arithmetic that builds an f16 of the same
    value (e5m2) or of the value times 2^-8 (e4m3fn), widened and scaled
    exactly; e4m3fn's NaN encodings (0x7f, 0xff) give NaN. Neither
    arith-to-llvm nor gpu-to-nvvm lowers these conversions, so both
    lowering pipelines (`vibegemm-lower-to-ptx`, `vibegemm-lower-to-cpu`)
    run this pass before them. Other ops are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def VibeGemmLowerToCPUPass : Pass<"vibegemm-lower-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower CPU-check schedules to LLVM for mlir-runner";
  let description = [{
    Testing aid: after `vibegemm-builtin-schedule{cpu-check=true}` and
    `vibegemm-apply-schedules`, bufferizes the module and lowers everything
    to the LLVM dialect for the host, so `mlir-runner` can compare the
    scheduled dispatches with a reference and catch schedule bugs without a
    GPU.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect"];
}

//===----------------------------------------------------------------------===//
// The steps of `vibegemm-lower-to-ptx` (a pipeline; see Pipelines.h), in the
// order it runs them.
//===----------------------------------------------------------------------===//

def VibeGemmPrepareLoweringPass
    : Pass<"vibegemm-prepare-lowering", "::mlir::ModuleOp"> {
  let summary = "Check a scheduled module and record what bufferization loses";
  let description = [{
    The first step of `vibegemm-lower-to-ptx`. Fails, at the module, when the
    target is unknown or schedules were attached but not applied. Records each
    function's input count as `vibegemm.num_inputs` (launch plans map
    arguments back to inputs and results by position once results become
    out-parameters), and marks the boundary of each dispatch its script
    bufferized (`restrict` tensors, `read_only` buffers) so the module-wide
    bufferization that follows adds no defensive copies.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture the module is lowered for">,
  ];
}

def VibeGemmPrivatizeKernelAllocationsPass
    : Pass<"vibegemm-privatize-kernel-allocations", "::mlir::ModuleOp"> {
  let summary = "Turn allocations inside gpu.launch bodies into allocas";
  let description = [{
    An allocation inside a `gpu.launch` runs once per thread, so its buffer is
    thread private: `memref.alloca` (registers or local memory) means the same
    and needs no device malloc. Fails, at the allocation, on a dynamically
    sized one or one over 4096 bytes per thread. Allocations that are
    explicitly deallocated are left alone.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def VibeGemmOutlineKernelsPass
    : Pass<"vibegemm-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline gpu.launch bodies into kernels, keeping launch hints";
  let description = [{
    Runs upstream's `gpu-launch-sink-index-computations` and
    `gpu-kernel-outlining`, which drop a launch's discardable attributes, and
    carries vibegemm's launch hints across: `vibegemm.cluster` becomes
    the `gpu.launch_func`'s cluster sizes (which launch plans read) and the
    kernel's `nvvm.cluster_dim`, and `vibegemm.max_registers` the kernel's
    `nvvm.maxnreg`. Then checks that every linalg op of a dispatch ended up
    inside a kernel, and fails at the dispatch if one did not.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def VibeGemmForwardCopiesIntoOutParamsPass
    : Pass<"vibegemm-forward-copies-into-out-params", "::mlir::ModuleOp"> {
  let summary = "Write results straight into out-parameters";
  let description = [{
    After `buffer-results-to-out-params`, a result computed into a local
    allocation reaches its out-parameter through a final `memref.copy`.
    Where the out-parameter has no other use, the allocation is replaced by
    the out-parameter (or, when host code reshaped the result, by the inverse
    reshape of it) and the copy disappears: one copy less, and host code a
    launch plan can express. Only functions carrying `vibegemm.num_inputs`
    are touched.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def VibeGemmHoistKernelAccumulatorsPass
    : Pass<"vibegemm-hoist-kernel-accumulators", "::mlir::ModuleOp"> {
  let summary = "Hoist accumulator transfers out of K loops in each kernel";
  let description = [{
    Runs `linalg::hoistRedundantVectorTransfers` on every `gpu.func`. A
    script hoists accumulators itself only where the output buffer has no
    other views; a dispatch split into several kernels views it from each,
    and only once outlined does every kernel see its own argument.
  }];
}

def VibeGemmPassTensorMapsAsPointersPass
    : Pass<"vibegemm-pass-tensor-maps-as-pointers", "::mlir::ModuleOp"> {
  let summary = "Pass TMA descriptors to kernels as global pointers";
  let description = [{
    A TMA descriptor reaches a kernel as a pointer to the 128-byte tensor map
    in global memory, which the runtime encodes from the launch plan. NVVM
    lowering has no conversion for a kernel argument of
    `!nvgpu.tensormap.descriptor` type, so such arguments become `!llvm.ptr`
    with an `unrealized_conversion_cast` back for their users (it folds away
    once the nvgpu ops are lowered), and launches pass the same value through
    the inverse cast.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def VibeGemmBucketDispatchesPass
    : Pass<"vibegemm-bucket-dispatches", "::mlir::ModuleOp"> {
  let summary = "Split each GEMM dispatch with a dynamic M into one dispatch "
                "per bucket of M, chosen on the host at run time, and give "
                "generic dispatches their run-time sizes as arguments";
  let description = [{
    Serving stacks know the token count only at run time. A GEMM dispatch
    whose M is dynamic (N, K and any batch static) becomes one dispatch per
    bucket of M, `<dispatch>_m<lo>_<hi>`, each scheduled and tuned for its
    representative M (the bucket's largest; 4096 for the open last bucket)
    and keyed by its bucket in the tuning database. A bucket of one size
    (M = 1) is a static dispatch, with its own kernel path (block reduce).
    Each call becomes a chain of `scf.if` on `tensor.dim` of an operand:
    the emitted host code picks the bucket's kernels at run time. The
    other buckets take M as a trailing `index` argument: their grid is
    `ceildiv(M, block_m)` rows of blocks, and edge rows are masked
    (mma.sync, FFMA) or clipped by TMA (wgmma).

    A generic dispatch (elementwise ops, broadcasts, reductions: no GEMM)
    over run-time sizes is not split: its schedule does not change with
    them. Each size becomes a trailing `index` argument, in the order the
    sizes appear in its tensors, which the caller reads with `tensor.dim`;
    the op's indexing maps must read every size at the same position in
    each tensor.

    Refused, at the dispatch: a dynamic batch that does not fold into M, a
    dynamic N or K, GEMM dispatches whose arguments have a dynamic size
    other than M, and generic dispatches whose tensors disagree on their
    run-time sizes.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    ListOption<"bucketSizes", "bucket-sizes", "int64_t",
               "The largest M of each bucket, increasing; M above the last "
               "falls in an open last bucket (default: 1, 16, 64, 256, "
               "1024)">,
  ];
}

def VibeGemmPassDynamicSizesAsScalarsPass
    : Pass<"vibegemm-pass-dynamic-sizes-as-scalars", "::mlir::ModuleOp"> {
  let summary = "Pass the run-time sizes of dynamically shaped buffers to "
                "kernels as index arguments";
  let description = [{
    Kernels take one pointer per buffer (the bare-pointer calling
    convention), which has no room for a run-time size: NVVM lowering
    refuses a kernel argument such as `memref<?x4096xbf16>`. Each such
    argument becomes the same memref with its dynamic sizes set to 1 (only
    its pointer is passed), followed at the end of the argument list by one
    `index` argument per dynamic size, in order. The body sees the buffer
    as before through a `memref.reinterpret_cast` to the original type,
    with the row-major strides the sizes give. Each launch casts its operand
    to the new type and passes `memref.dim` of it for the sizes, which the
    launch plan writes as expressions of the dispatch's named sizes.
  }];
}

def VibeGemmMergeKernelsPerDispatchPass
    : Pass<"vibegemm-merge-kernels-per-dispatch", "::mlir::ModuleOp"> {
  let summary = "Move each dispatch's kernels into one gpu.module";
  let description = [{
    Each function's kernels move into one `gpu.module @<function>_kernels`,
    renamed `<function>_kernel_<i>` in launch order, so a dispatch ships as
    one PTX file. Symbols the kernels use (shared-memory globals) come along;
    a clashing one is renamed first. Emptied modules are erased.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def VibeGemmProgrammaticLaunchPass
    : Pass<"vibegemm-programmatic-launch", "::mlir::ModuleOp"> {
  let summary = "Let each kernel launch start while the one before it ends";
  let description = [{
    Hopper's programmatic dependent launch: every kernel a host function
    launches first waits for the grids before it (`griddepcontrol.wait`,
    as inline PTX with a memory clobber so no load is hoisted above it:
    they have completed and their memory is visible) and then lets the
    next launch be scheduled (`griddepcontrol.launch_dependents`); each
    `gpu.launch_func` gets `vibegemm.programmatic`, which the launch plan
    writes as `"programmatic": true` and the runtime turns into the launch
    attribute. A dependent's blocks are then resident and waiting as the
    grid before it drains (split-K's combine behind its partial GEMM, a
    chain of generic kernels), instead of being launched after it. The
    wait comes before anything else a kernel does, so no read or write
    can overtake the grid before it; launched without the attribute, both
    instructions do nothing. sm_90 and later only (the pipeline adds the
    pass for targets with clusters).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def VibeGemmExternDynamicSharedMemoryPass
    : Pass<"vibegemm-extern-dynamic-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Give dynamic shared memory external linkage";
  let description = [{
    `convert-gpu-to-nvvm` gives `gpu.dynamic_shared_memory` an internal
    zero-length global, which the NVPTX backend demotes into the kernel as a
    1-byte static `.shared` variable laid out before the mbarriers, so the
    dynamic region would start on top of them. External linkage makes it
    CUDA's `extern __shared__` array (`.extern .shared ... []`), which ptxas
    places after every static variable.
  }];
}

def VibeGemmFinalizeBinariesPass
    : Pass<"vibegemm-finalize-binaries", "::mlir::ModuleOp"> {
  let summary = "Make gpu.binary objects deterministic and loadable";
  let description = [{
    Drops the compile times `gpu-module-to-binary` records in each object's
    properties (`...TimeInMs`), which would make identical compiles differ,
    and fails at the `gpu.binary` whose PTX still declares an `.extern
    .func`: a libdevice function (`__nv_tanhf`, ...) left unresolved because
    the CUDA toolkit's libdevice was not found, which no driver can load.
  }];
}

#endif // VIBEGEMM_TRANSFORMS_PASSES
