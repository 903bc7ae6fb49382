//===- MmaSyncGemm.h - A block's GEMM tile as an mma.sync kernel -*- C++ -*-===//
//
// Builds the tensor-core body behind `transform.vibegemm.gemm_to_mma_sync`:
// cp.async staging, ldmatrix fragments, m16n8k16 mma.sync with f32
// accumulators in registers and the elementwise epilogue in registers.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_MMASYNCGEMM_H
#define VIBEGEMM_TRANSFORMOPS_MMASYNCGEMM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

struct MmaSyncOptions {
  int64_t blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 3;
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
