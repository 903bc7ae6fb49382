//===- CostModel.h - Static time estimates for kernels ----------*- C++ -*-===//
//
// What a candidate kernel should take when no GPU can time it: the roofline
// of its GEMM, and that roofline scaled by how well each launch of its plan
// fills the target. Crude by design; only measurements rank reliably.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TARGET_COSTMODEL_H
#define VIBEGEMM_TARGET_COSTMODEL_H

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Target/Ptxas.h"
#include "vibegemm/Target/TargetInfo.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <vector>

namespace mlir::vibegemm {

/// Roofline lower bound in milliseconds: FLOPs over peak, or bytes over
/// bandwidth, whichever is larger.
double rooflineMs(const GemmProblem &p, const TargetInfo &t);

/// The most dynamic shared memory any launch of `plan` asks for (ptxas
/// reports only the static part).
int64_t dynamicSharedBytes(const llvm::json::Object &plan);

/// A static estimate for unmeasured candidates: the roofline, divided by
/// how well each launch fills the GPU (waves of resident blocks, limited by
/// registers, threads and shared memory, and warps per SM), and doubled
/// when ptxas reports spills. Crude: only measurements rank candidates
/// reliably.
double staticEstimateMs(double rooflineMs, const llvm::json::Object &plan,
                        const std::vector<KernelResources> &ks,
                        const TargetInfo &t);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_COSTMODEL_H
