//===- PrepareLowering.cpp - Check a scheduled module before lowering
//------===//
//
// The first step of vibegemm-lower-to-ptx: refuses what cannot be lowered
// and records what the module-wide bufferization would otherwise lose.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPREPARELOWERINGPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {
class PrepareLoweringPass
    : public vibegemm::impl::VibeGemmPrepareLoweringPassBase<
          PrepareLoweringPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!lookupTargetOrEmitError(target, module.getLoc()))
      return signalPassFailure();
    if (getSchedulesModule(module, /*create=*/false)) {
      emitError(module.getLoc(), "schedules were not applied yet; run "
                                 "--vibegemm-apply-schedules first");
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>())
      func->setAttr("vibegemm.num_inputs",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     func.getNumArguments()));
    for (func::FuncOp dispatch : getDispatches(module))
      markScriptBufferizedBoundary(dispatch);
  }
};
} // namespace
