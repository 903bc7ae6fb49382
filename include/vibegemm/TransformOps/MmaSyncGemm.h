//===- MmaSyncGemm.h - A block's GEMM tile as an mma.sync kernel -*- C++ -*-===//
//
// Builds the tensor-core body behind `transform.vibegemm.gemm_to_mma_sync`:
// cp.async staging, ldmatrix fragments, m16n8k16 mma.sync with f32
// accumulators in registers and the elementwise epilogue in registers; for
// f32 operands, on request only, m16n8k8 TF32 or split 3xTF32 MMAs.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_MMASYNCGEMM_H
#define VIBEGEMM_TRANSFORMOPS_MMASYNCGEMM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::vibegemm {

/// How f32 operands reach the tensor cores. Both change accuracy, so
/// neither is ever chosen for the user: f32 GEMMs otherwise take FFMA.
enum class F32Precision {
  /// f16/bf16 operands: no conversion.
  None,
  /// Each operand rounded to TF32 (10-bit mantissa, cvt.rna): one MMA.
  Tf32,
  /// Each operand split into a TF32 value and a TF32 remainder; three MMAs
  /// (small*big, big*small, big*big) recover about f32 accuracy.
  Tf32x3,
};

/// "tf32" and "3xtf32" as written in scripts and plans.
std::optional<F32Precision> parseF32Precision(llvm::StringRef name);
llvm::StringRef f32PrecisionName(F32Precision precision);

/// Marks the function around `gemm` with `vibegemm.f32_precision`, which
/// the launch plan carries so the runtime verifies with TF32's tolerance;
/// TF32 wins over 3xTF32 where one function holds both.
void markF32Precision(OpBuilder &b, Operation *gemm, F32Precision precision);

struct MmaSyncOptions {
  int64_t blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 3;
  F32Precision precision = F32Precision::None;
};

/// Replaces the bufferized contraction `target` (one block's output tile,
/// inside a gpu.launch) and its elementwise consumers with an mma.sync
/// kernel body, and returns its K loop. On failure the IR is untouched and
/// `why` says what did not fit.
FailureOr<scf::ForOp> rewriteGemmAsMmaSync(RewriterBase &rewriter,
                                           Operation *target,
                                           const MmaSyncOptions &options,
                                           std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_MMASYNCGEMM_H
