//===- Passes.td - The vibegemm tuner's pass ---------------*- tablegen -*-===//
//
// The user-facing `llm-schedule`: tunes every dispatch's schedule (the
// built-in one, its variants, the tuning database's winner and LLM-written
// scripts), then compiles the winners to PTX. The deterministic passes it
// chains are in include/vibegemm/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_PASSES
#define VIBEGEMM_TUNER_PASSES

include "mlir/Pass/PassBase.td"

def LLMSchedulePass : Pass<"llm-schedule", "::mlir::ModuleOp"> {
  let summary = "Schedule and compile every GEMM dispatch to PTX";
  let description = [{
    The user entry point. Forms dispatches, asks the scheduler for a transform
    script per dispatch, applies the winning scripts, lowers to PTX, checks
    every kernel with `ptxas`, and writes the artifacts:
    `<dispatch>.ptx`, `<dispatch>.schedule.mlir`, `<dispatch>.plan.json`,
    `<function>.plan.json` for functions with several dispatches, and
    `report.json`.

    Each dispatch is also compiled with the reference schedule (one output
    per thread, every op its own kernel) into `<dispatch>.reference.ptx` and
    `<dispatch>.reference.plan.json`, which `vibegemm-run` checks candidates
    against when cuBLAS cannot (epilogues). Plans of plain GEMMs carry a
    `reference` GEMM description so cuBLAS can check them.

    With `measure=auto` (the default) and a GPU present, every candidate is
    verified and timed by `vibegemm-run` in a child process with a timeout,
    and candidates are ranked by measured time; without one they are ranked
    by a static estimate and the report marks them `estimated`.
    `measure=on` fails when no GPU is usable; `measure=off` never measures.

    With an `endpoint` (or `$VIBEGEMM_LLM_ENDPOINT`), each dispatch goes
    through `rounds` rounds of `candidates` LLM-written scripts (prompts in
    `prompts/`, the key only from `$VIBEGEMM_LLM_API_KEY`). Each candidate is
    extracted from the reply's first ```mlir block, parsed, checked against
    the allowlist of transform ops, applied to a copy of the dispatch,
    lowered, checked by ptxas and measured (or estimated); the built-in
    schedule is candidate 0, so the result is never worse than it. Replies
    are cached by prompt. Without an endpoint the built-in scheduler runs
    and stderr says so in one line. `report.html` charts the candidates.

    Candidates run concurrently, each resource with its own bound. A
    round's `candidates` requests go out together, at most
    `llm-concurrency` of one dispatch in flight; each follows the direction
    for its number and sees the rounds before. `jobs` candidates compile at
    once (applied first in a sandboxed child vibegemm-opt, then in a
    context of their own). Measurements queue for the GPUs (`devices`, by
    default every GPU `CUDA_VISIBLE_DEVICES` shows; one model only), one at
    a time per GPU, so timings never overlap on a device; the report gives
    each candidate's device and when it ran. `tune-dispatches` dispatches
    are tuned at once, and dispatches with the same signature are tuned
    once. Candidates are ranked in index order, ties to the lower index,
    so the same replies give the same winner whatever the threads' timing.
    `token-budget` stops a dispatch's rounds once its requests have used
    that many prompt and completion tokens (checked before each round).
    A dispatch's rounds also stop after `patience` rounds in a row that
    had a valid candidate but no measured gain (a round with no valid
    candidate carries on, so the next prompt shows what failed); with
    `patience` at least `rounds`, every round runs, and the LLM sees each
    round's measured times before writing the next.

    `target=auto` (the default) asks `vibegemm-run --probe` which GPU is
    here: compute capability 9.0 gets `sm_90a` (wgmma, TMA), 8.x `sm_80`,
    later GPUs portable `sm_90` PTX, and no GPU `sm_90`; stderr and
    `report.json`'s `target_choice` say which and why. The deterministic
    entry point, `vibegemm-compile`, keeps an explicit target.

    `shard=I/N` splits the tuning of a model over N processes, e.g. the
    tasks of a Slurm job array (docs/tuning-at-scale.md): each dispatch
    signature's xxh3 hash modulo N picks the one task that tunes it, the
    same on every host. The other dispatches keep the built-in schedule and
    appear in neither the tuning database nor the report. Each task writes
    its own database; `vibegemm-db import` merges them.
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
    Option<"endpoint", "endpoint", "std::string", /*default=*/"\"\"",
           "OpenAI-compatible base URL (or $VIBEGEMM_LLM_ENDPOINT)">,
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "Model name (or $VIBEGEMM_LLM_MODEL)">,
    Option<"rounds", "rounds", "unsigned", /*default=*/"3",
           "LLM rounds per dispatch">,
    Option<"patience", "patience", "unsigned", /*default=*/"1",
           "Rounds in a row without a measured gain before a dispatch's "
           "rounds stop (at least 1; at least rounds: every round runs)">,
    Option<"candidates", "candidates", "unsigned", /*default=*/"4",
           "Candidates per round">,
    Option<"measure", "measure", "std::string", /*default=*/"\"auto\"",
           "auto|on|off: measure candidates on a GPU">,
    ListOption<"bucketSizes", "bucket-sizes", "int64_t",
               "Buckets of a dynamic M: the largest M of each, increasing "
               "(vibegemm-bucket-dispatches; default 1, 16, 64, 256, 1024)">,
    Option<"f32Precision", "f32-precision", "std::string",
           /*default=*/"\"ieee\"",
           "ieee|tf32|3xtf32: what f32 GEMMs may use (passed to "
           "vibegemm-form-dispatches; TF32 changes accuracy)">,
    Option<"target", "target", "std::string", /*default=*/"\"auto\"",
           "GPU architecture (sm_80, sm_90, sm_90a), or auto: the GPU "
           "here's (sm_90a on compute capability 9.0, sm_80 on 8.x), sm_90 "
           "without one">,
    Option<"artifactsDir", "artifacts-dir", "std::string", /*default=*/"\"\"",
           "Directory for PTX, schedules, launch plans and report.json">,
    Option<"keepCandidates", "keep-candidates", "bool", /*default=*/"false",
           "Also write every candidate that compiled (PTX, launch plan with "
           "its reference, script) to <artifacts-dir>/candidates/"
           "<dispatch>-<index>/, to inspect or rerun it">,
    Option<"db", "db", "std::string", /*default=*/"\"\"",
           "Tuning database path (or $VIBEGEMM_DB)">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"\"",
           "ptxas to check kernels with (default: CUDA's, then PATH)">,
    Option<"runner", "runner", "std::string", /*default=*/"\"\"",
           "vibegemm-run executable that measures candidates (default: the "
           "one installed beside this tool)">,
    Option<"measureTimeout", "measure-timeout", "double", /*default=*/"60",
           "Seconds one GPU step of a measurement may take before the "
           "candidate is a timeout">,
    Option<"programmaticLaunch", "programmatic-launch", "bool",
           /*default=*/"false",
           "Let each kernel launch start while the one before it ends "
           "(vibegemm-programmatic-launch; sm_90 and later; not yet timed)">,
    Option<"reuseMeasurements", "reuse-measurements", "bool",
           /*default=*/"true",
           "Take the verified time the tuning database holds for a kernel "
           "(the same PTX and launch plan, on a GPU of the same name, under "
           "the same timing protocol) instead of running it again; the "
           "built-in schedule is always run, as it times cuBLAS">,
    Option<"sandboxTimeout", "sandbox-timeout", "unsigned", /*default=*/"60",
           "Seconds a child vibegemm-opt may take to apply and lower an "
           "untrusted (LLM or tuning-database) script before this process "
           "runs it; one that crashes, runs longer or takes more than 8 GiB "
           "is an apply-error">,
    Option<"llmTimeout", "llm-timeout", "double", /*default=*/"120",
           "Seconds one LLM request may take (retries of 429/5xx come on "
           "top, at most 3)">,
    Option<"cacheDir", "cache-dir", "std::string", /*default=*/"\"\"",
           "Where replies to identical prompts are kept (default "
           "$VIBEGEMM_CACHE_DIR or ~/.cache/vibegemm/llm; 'off' disables)">,
    Option<"promptsDir", "prompts-dir", "std::string", /*default=*/"\"\"",
           "Read the prompt templates from this directory instead of the "
           "built-in copies of prompts/">,
    Option<"llmConcurrency", "llm-concurrency", "unsigned", /*default=*/"4",
           "LLM requests of one dispatch in flight at once (a round's "
           "requests go out together)">,
    Option<"tuneDispatches", "tune-dispatches", "unsigned", /*default=*/"8",
           "Dispatches tuned at once (so at most tune-dispatches x "
           "llm-concurrency requests are in flight)">,
    Option<"jobs", "jobs", "unsigned", /*default=*/"0",
           "Candidates compiled at once (0: one per core, at most one per "
           "2 GiB of available memory)">,
    Option<"devices", "devices", "std::string", /*default=*/"\"\"",
           "GPUs that measure candidates, as indices among those visible "
           "(CUDA_VISIBLE_DEVICES applies), e.g. 0,1; empty: all of them">,
    Option<"tokenBudget", "token-budget", "int64_t", /*default=*/"0",
           "Prompt plus completion tokens one dispatch's LLM rounds may use; "
           "no further round starts once they are spent (0: no limit)">,
    Option<"shard", "shard", "std::string", /*default=*/"\"\"",
           "I/N: tune only the dispatches whose signature hashes to shard I "
           "of N (a Slurm array task of N), and compile the others with the "
           "built-in schedule, untuned and unrecorded; empty: all">,
  ];
}

#endif // VIBEGEMM_TUNER_PASSES
