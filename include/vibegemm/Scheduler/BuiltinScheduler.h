//===- BuiltinScheduler.h - The scheduler that needs no LLM -----*- C++ -*-===//
//
// Writes the tiling the policy (Tiling.h) chose for a GEMM dispatch as a
// transform-dialect script. The scheduler speaks only in scripts: it never
// rewrites IR itself.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_SCHEDULER_BUILTINSCHEDULER_H
#define VIBEGEMM_SCHEDULER_BUILTINSCHEDULER_H

#include "vibegemm/Scheduler/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"

#include <string>

namespace mlir::vibegemm {

/// Builds the script for `dispatch` at `builder`'s insertion point, as
/// `transform.named_sequence @<sequenceName>(%func)`; the sequence expects
/// the dispatch function as its argument and leaves it holding `gpu.launch`
/// ops on memrefs. With `cpuCheck`, the same schedule runs its foralls as
/// sequential loops in ordinary memory instead, so mlir-runner can check its
/// math on a CPU.
FailureOr<transform::NamedSequenceOp>
buildSimtSchedule(OpBuilder &builder, func::FuncOp dispatch,
                  const GemmProblem &problem, const SimtTiling &tiling,
                  llvm::StringRef sequenceName, bool cpuCheck = false);

/// The same script, printed.
FailureOr<std::string> writeSimtSchedule(func::FuncOp dispatch,
                                         const GemmProblem &problem,
                                         const SimtTiling &tiling,
                                         llvm::StringRef sequenceName,
                                         bool cpuCheck = false);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_SCHEDULER_BUILTINSCHEDULER_H
