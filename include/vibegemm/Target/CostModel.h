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
#include <string>
#include <vector>

namespace mlir::vibegemm {

/// Roofline lower bound in milliseconds: FLOPs over peak, or bytes over
/// bandwidth, whichever is larger.
double rooflineMs(const GemmProblem &p, const TargetInfo &t);

/// The most dynamic shared memory any launch of `plan` asks for (ptxas
/// reports only the static part).
int64_t dynamicSharedBytes(const llvm::json::Object &plan);

/// How one launch of a plan fills the GPU, by the occupancy rules the
/// static estimate uses: its blocks and threads, how many blocks fit on an
/// SM at once (threads, registers, shared memory), its shared memory
/// (dynamic plus ptxas's static), and whether ptxas reported spills.
struct LaunchFit {
  std::string kernel;
  int64_t blocks = 0, threads = 0, clusterBlocks = 1, residentPerSm = 1;
  int64_t sharedBytes = 0;
  bool spills = false;
};

/// Each launch of `plan`, with `ks` (ptxas's resources; registers count as
/// 32 a thread where a kernel has none).
std::vector<LaunchFit> launchFits(const llvm::json::Object &plan,
                                  const std::vector<KernelResources> &ks,
                                  const TargetInfo &t);

/// The launches in a line the LLM reads beside each candidate's time:
/// "296 blocks x 128 threads, 3 per SM, 48 KiB shared", joined by " + ".
std::string describeLaunchFits(const std::vector<LaunchFit> &fits);

/// A static estimate for unmeasured candidates, from the plan's launchFits:
/// the roofline, divided by how well each launch fills the GPU (waves of
/// resident blocks, limited by registers, threads and shared memory, and warps
/// per SM), and doubled when ptxas reports spills. Crude: only measurements
/// rank candidates reliably.
double staticEstimateMs(double rooflineMs, const std::vector<LaunchFit> &fits,
                        const TargetInfo &t);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_COSTMODEL_H
