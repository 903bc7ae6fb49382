//===- VibeGemm.h - vibegemm's C++ API for other compilers ------*- C++ -*-===//
//
// What a compiler that embeds vibegemm needs: register its passes and the
// dialects they use, and add the deterministic compile (linalg GEMMs to
// gpu.binary PTX, with tuned schedules) to a pass manager. Installed with
// find_package(VibeGemm CONFIG); link VibeGemm::VibeGemmAPI. See
// docs/integration.md.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_VIBEGEMM_H
#define VIBEGEMM_VIBEGEMM_H

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace vibegemm {

/// Registers the deterministic vibegemm passes (`vibegemm-compile`,
/// `vibegemm-form-dispatches`, ...; not the tuner's `llm-schedule`, which
/// needs the LLM client and the GPU runtime and lives in VibeGemmTuner) and
/// the upstream passes their pipelines use, so that textual pipelines
/// (`parsePassPipeline`, `--pass-pipeline`) can name them. Safe to call more
/// than once and next to `mlir::registerAllPasses()`.
void registerPasses();

/// Adds the dialects vibegemm parses and produces, their interface models,
/// the transform-dialect extensions schedules use and the LLVM IR
/// translations that serialise kernels to PTX. Safe next to
/// `mlir::registerAllDialects()` and `mlir::registerAllExtensions()`.
void registerDialects(mlir::DialectRegistry &registry);

/// Options of the compile pipeline; the same as `vibegemm-compile`'s.
struct CompileOptions {
  /// GPU architecture to schedule for and emit PTX for: sm_80, sm_90, sm_90a.
  std::string target = "sm_90";
  /// Tuning database to take each dispatch's best schedule from (empty:
  /// $VIBEGEMM_DB, else none).
  std::string db;
  /// Tuning spec file (from `vibegemm-db export`) to take schedules from;
  /// wins over `db`.
  std::string specs;
  /// LLVM optimisation level for device code.
  unsigned optLevel = 3;
};

/// Adds the vibegemm compile to `pm`, which must run on `builtin.module`:
/// every GEMM and its fusable epilogue becomes a dispatch, gets its tuned
/// schedule (the built-in one where none is stored) and is lowered to a
/// `gpu.binary` holding PTX. Needs no LLM and no GPU; the same input and
/// schedules give the same output.
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options = {});

} // namespace vibegemm

#endif // VIBEGEMM_VIBEGEMM_H
