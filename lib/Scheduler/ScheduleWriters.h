//===- ScheduleWriters.h - Pieces the schedule builders share ---*- C++ -*-===//
//
// The roles of a dispatch's ops, how a schedule fuses its chain, and the
// builders of the schedule kinds, shared by SimtSchedule.cpp,
// KernelSchedule.cpp and DirectSchedule.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_SCHEDULER_SCHEDULEWRITERS_H
#define VIBEGEMM_LIB_SCHEDULER_SCHEDULEWRITERS_H

#include "vibegemm/Scheduler/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::vibegemm::schedule {

/// Roles of the ops in a dispatch, in program order.
struct DispatchOps {
  bool hasInit = false;
  SmallVector<std::string> epilogues;
  bool hasSoftmax = false;

  /// The roles a schedule matches: the root, the init, each epilogue and
  /// (with `softmax`) the softmax.
  SmallVector<std::string> roles(bool softmax) const;
};

/// The roles of `dispatch`'s ops (`vibegemm.role`).
DispatchOps collectRoles(func::FuncOp dispatch);

/// How a schedule tiles a dispatch's chain: the op the block loop is built
/// around and the producers fused into it, last first, so each finds its
/// consumer inside the loop.
struct FusionPlan {
  bool fused = false;
  std::string anchor;
  SmallVector<std::string> producers;
};

/// How `problem`'s chain of `ops` is tiled and fused.
FusionPlan planFusion(const GemmProblem &problem, const DispatchOps &ops);

/// The handles of a block loop: the tiled anchor, the loop and the fused
/// producers.
struct BlockLoop {
  Value tiled, loop;
  SmallVector<Value> fused;
};

/// Tiles `plan`'s anchor to `blockTile` under `mapping` and fuses its
/// producers into the loop; `roles` holds their handles.
BlockLoop buildBlockLoop(ImplicitLocOpBuilder &b, const FusionPlan &plan,
                         const llvm::StringMap<Value> &roles,
                         ArrayRef<OpFoldResult> blockTile, ArrayAttr mapping);

/// The schedule of a kernel path: block tiles with the fill, GEMM and fused
/// epilogue chain in one loop, bufferized, mapped to blocks, then the GEMM
/// and its epilogue rewritten into the path's kernel body. Unfused
/// epilogues get SIMT kernels of their own.
transform::NamedSequenceOp buildKernelSchedule(ImplicitLocOpBuilder &b,
                                               const GemmProblem &problem,
                                               const KernelTiling &t,
                                               const DispatchOps &ops,
                                               StringRef sequenceName);

/// The direct SIMT schedule: block tiles, a fixed thread grid whose
/// per-thread tiles shrink at ragged edges (so any shape works), operands
/// read from global memory. A softmax consumer gets its own kernel, one row
/// per thread.
transform::NamedSequenceOp
buildDirectSchedule(ImplicitLocOpBuilder &b, const GemmProblem &problem,
                    const SimtTiling &t, const DispatchOps &ops,
                    StringRef sequenceName, bool cpuCheck);

} // namespace mlir::vibegemm::schedule

#endif // VIBEGEMM_LIB_SCHEDULER_SCHEDULEWRITERS_H
