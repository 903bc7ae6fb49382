//===- Schedules.h - Attach and apply dispatch schedules --------*- C++ -*-===//
//
// Schedules live as named sequences in a `@__vibegemm_schedules` module next
// to the payload; a dispatch names its schedule with `vibegemm.schedule`.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMS_SCHEDULES_H
#define VIBEGEMM_TRANSFORMS_SCHEDULES_H

#include "vibegemm/TransformOps/VibeGemmTransformOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::vibegemm {

/// Wraps a generated pass base so that the pass depends on vibegemm's
/// transform ops: a host that loaded only the pass plugin then parses the
/// scripts that use them.
template <typename PassBase>
class WithVibeGemmTransformOps : public PassBase {
public:
  using PassBase::PassBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    PassBase::getDependentDialects(registry);
    registerTransformDialectExtension(registry);
  }
};

class TuningDB;

/// The tuning database path: `option`, else $VIBEGEMM_DB when `useEnv`.
std::string tuningDBPath(StringRef option, bool useEnv);

/// Opens the database at `path` (null when `path` is empty), creating it
/// when `create` is set; a file that cannot be used is an error at `loc`.
FailureOr<std::unique_ptr<TuningDB>> openTuningDB(StringRef path, bool create,
                                                  Location loc);

/// The schedules module of `module`, created when `create` is set.
ModuleOp getSchedulesModule(ModuleOp module, bool create);

/// Parses `sequenceText` (one `transform.named_sequence`) and attaches it to
/// `dispatch`, replacing any previous schedule. Parse errors are reported
/// through the context's diagnostics.
LogicalResult attachSchedule(func::FuncOp dispatch, StringRef sequenceText);

/// Moves `sequence` into the schedules module as `dispatch`'s schedule,
/// replacing any previous one.
void attachSchedule(func::FuncOp dispatch, transform::NamedSequenceOp sequence);

/// Applies the schedule attached to `dispatch` with the transform
/// interpreter, with the dispatch function as the payload. Untrusted
/// scripts need `expensiveChecks`: without them a use of a consumed handle
/// is undefined behaviour.
LogicalResult applySchedule(func::FuncOp dispatch, ModuleOp schedules,
                            bool expensiveChecks = false);

/// The text of the named sequence attached to `dispatch`, or "".
std::string printSchedule(func::FuncOp dispatch, ModuleOp schedules);

/// Wraps a dispatch's named sequence into a file that replays it with
/// `--transform-interpreter` on a module holding the dispatch function.
std::string wrapForReplay(StringRef sequenceText, StringRef sequenceName,
                          StringRef dispatchName);

/// Marks the boundary of a dispatch its script bufferized on its own: the
/// `to_tensor`s `restrict` (the buffers are fresh allocations nothing else
/// aliases) and the `to_buffer`s `read_only` (inputs are only read), so the
/// module-wide bufferization can take over without defensive copies.
void markScriptBufferizedBoundary(func::FuncOp dispatch);

/// Replaces each `tensor.dim` in `dispatch` of a dynamic dimension of a
/// tensor with exactly `sizes.size()` of them by the size at that
/// dimension's position among them: a generic dispatch's tensors carry its
/// run-time sizes in order (vibegemm-bucket-dispatches checks this).
void readSizesFromArguments(func::FuncOp dispatch, ArrayRef<Value> sizes);

/// The dispatch functions of `module`, in order.
SmallVector<func::FuncOp> getDispatches(ModuleOp module);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMS_SCHEDULES_H
