//===- Prepare.cpp - Frontend linalg to the form dispatches are made of ---===//
//
// The `vibegemm-prepare` pipeline, built from the preparation passes, and
// the helpers they share.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Prepare.h"
#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPREPAREPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

LogicalResult
vibegemm::applyToPreparedFunctions(ModuleOp module,
                                   const FrozenRewritePatternSet &patterns) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!isPreparedFunction(func))
      continue;
    // Not converging is no error: what is left is refused later, located.
    (void)applyPatternsGreedily(func, patterns);
  }
  return success();
}

bool vibegemm::isPreparedFunction(func::FuncOp func) {
  return !func.isExternal() && !func->hasAttr(kIgnoreAttr) &&
         !func->hasAttr(kDispatchAttr);
}

bool vibegemm::isDataMovementGeneric(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  Block *body = op.getBody();
  if (body->getOperations().size() != 1)
    return false;
  auto yielded = dyn_cast<BlockArgument>(body->getTerminator()->getOperand(0));
  return yielded && yielded.getOwner() == body &&
         yielded.getArgNumber() < op.getNumDpsInputs();
}

bool vibegemm::isContractionCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2)
    return false;
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return true;
  return isa<linalg::GenericOp>(op) && op.getNumReductionLoops() >= 1 &&
         linalg::isaContractionOpInterface(op);
}

Value vibegemm::emptyLike(OpBuilder &builder, Location loc, Value like,
                          Type elementType) {
  return tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, like), elementType);
}

bool vibegemm::isUnsupportedDynamicShape(Type type, bool atBoundary) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && (!shaped.hasRank() || shaped.getNumDynamicDims() > 2 ||
                    (atBoundary && shaped.getRank() > 0 &&
                     shaped.isDynamicDim(shaped.getRank() - 1)));
}

InFlightDiagnostic vibegemm::emitUnsupportedDynamicShapeError(Location loc,
                                                              Type type) {
  auto shaped = cast<ShapedType>(type);
  InFlightDiagnostic diag =
      emitError(loc, "dynamic shapes are supported in leading dimensions "
                     "only (a batch and the token count M); ")
      << type;
  if (!shaped.hasRank())
    return std::move(diag << " is unranked");
  if (shaped.getRank() > 0 && shaped.isDynamicDim(shaped.getRank() - 1))
    return std::move(diag << " has a dynamic innermost dimension");
  return std::move(diag << " has " << shaped.getNumDynamicDims()
                        << " dynamic dimensions (at most two)");
}

FailureOr<linalg::GenericOp> vibegemm::asGeneric(RewriterBase &rewriter,
                                                 linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  return linalg::generalizeNamedOp(rewriter, op);
}

namespace {

class PreparePass
    : public vibegemm::impl::VibeGemmPreparePassBase<PreparePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Up to two leading dimensions (a batch and the token count, which
    // normalization folds into one M where the weight is shared) may be
    // dynamic: the rest is refused here, at the value;
    // vibegemm-bucket-dispatches checks that each GEMM's dynamic size is M.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!isPreparedFunction(func))
        continue;
      for (BlockArgument arg : func.getArguments())
        if (isUnsupportedDynamicShape(arg.getType())) {
          emitUnsupportedDynamicShapeError(arg.getLoc(), arg.getType());
          return signalPassFailure();
        }
      WalkResult dynamic = func.walk([&](Operation *op) {
        bool atBoundary = isa<func::ReturnOp>(op);
        for (Type type : atBoundary ? TypeRange(op->getOperandTypes())
                                    : TypeRange(op->getResultTypes()))
          if (isUnsupportedDynamicShape(type, atBoundary)) {
            emitUnsupportedDynamicShapeError(op->getLoc(), type);
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (dynamic.wasInterrupted())
        return signalPassFailure();
      // A fresh tensor.empty holds no values: an op that accumulates onto
      // one computes garbage on the GPU as anywhere else. Say so; the IR is
      // still compiled as written.
      func.walk([&](linalg::LinalgOp op) {
        for (OpOperand &init : op.getDpsInitsMutable())
          if (init.get().getDefiningOp<tensor::EmptyOp>() &&
              op.payloadUsesValueFromOperand(&init))
            op->emitWarning("reads its init, a tensor.empty whose values are "
                            "undefined, as a starting value (an accumulator "
                            "that was never filled?); the result is "
                            "undefined");
      });
    }
    OpPassManager pm(ModuleOp::getOperationName());
    bool hasTosa = module
                       .walk([](Operation *op) {
                         return op->getName().getDialectNamespace() == "tosa"
                                    ? WalkResult::interrupt()
                                    : WalkResult::advance();
                       })
                       .wasInterrupted();
    if (hasTosa)
      tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions{});
    auto cleanUp = [&] {
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    };
    pm.addPass(createVibeGemmConvertFrontendOpsPass());
    cleanUp();
    pm.addPass(createVibeGemmFuseProducersPass());
    pm.addPass(createVibeGemmNormalizeContractionsPass());
    cleanUp();
    pm.addPass(createVibeGemmFuseProducersPass());
    // A batch folded into M leaves tensor.dims of its reshapes, uses that
    // would keep epilogues out of the GEMM's dispatch; they fold to the
    // sizes the reshapes were built from.
    pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
    cleanUp();
    // Last: CSE would merge the empties and fills it gives each op.
    pm.addPass(createVibeGemmUntieEpiloguesPass());
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace
