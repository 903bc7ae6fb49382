//===- ScheduleWriters.h - Pieces the schedule writers share ----*- C++ -*-===//
//
// The roles of a dispatch's ops, how a schedule fuses its chain, and the
// writers of the schedule kinds, shared by SimtSchedule.cpp,
// KernelSchedule.cpp and DirectSchedule.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_SCHEDULER_SCHEDULEWRITERS_H
#define VIBEGEMM_LIB_SCHEDULER_SCHEDULEWRITERS_H

#include "vibegemm/Scheduler/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/raw_ostream.h"

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
/// consumer inside the loop; plus the batch prefix of tile sizes and the
/// block mapping.
struct FusionPlan {
  bool fused = false;
  std::string anchor;
  SmallVector<std::string> producers;
  std::string lead, blockMap;
};

/// How `problem`'s chain of `ops` is tiled and fused.
FusionPlan planFusion(const GemmProblem &problem, const DispatchOps &ops);

/// Fuses each producer, in order, into the loop `loop` and then into the
/// loop each fusion returns: `%<p><from>` becomes `%<p><to>` and the loops
/// are `%<prefix>0`, `%<prefix>1`, ...
void writeFusions(llvm::raw_ostream &os, ArrayRef<std::string> producers,
                  StringRef from, StringRef to, std::string loop,
                  StringRef prefix);

/// `%<role> = transform.structured.match attributes{vibegemm.role = ...}`
/// for the root, the init, each epilogue and (with `softmax`) the softmax.
void writeRoleMatches(llvm::raw_ostream &os, const DispatchOps &ops,
                      bool softmax);

/// The block mapping of a softmax kernel: rows along x, batches along y.
StringRef softmaxBlockMap(const GemmProblem &p);

/// Tiles the softmax (handle `%softmax`) to one row per block.
void writeSoftmaxRowTiling(llvm::raw_ostream &os, const GemmProblem &p);

/// After bufferization (`%{buffers}`): the softmax's row loop becomes a
/// launch and `softmax_to_block_reduce` its body, which computes in f32.
void writeSoftmaxRowKernel(llvm::raw_ostream &os, const GemmProblem &p,
                           StringRef buffers);

/// The schedule of a kernel path: block tiles with the fill, GEMM and fused
/// epilogue chain in one loop, bufferized, mapped to blocks, then the GEMM
/// and its epilogue rewritten into the path's kernel body. Unfused
/// epilogues get SIMT kernels of their own.
std::string writeKernelSchedule(const GemmProblem &problem,
                                const KernelTiling &t, const DispatchOps &ops,
                                StringRef sequenceName, StringRef comment);

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
