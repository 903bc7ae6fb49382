//===- WgmmaGemm.cpp - A block's GEMM tile as a Hopper wgmma kernel -------===//
//
// Warp specialisation: the last warpgroup is the producer, whose first
// thread streams 64-wide K-tiles of A and B into a ring of 128-byte-swizzled
// shared-memory slots with TMA; "full" mbarriers count the bytes in and
// "empty" mbarriers hand slots back. The consumer warpgroups run wgmma on
// the slots with f32 accumulators in registers, keeping one wgmma group in
// flight. The result goes through a staging tile in shared memory to the
// elementwise epilogue (Epilogue.cpp, TmaEpilogue.cpp); persistent kernels
// loop over the tiles (Persistent.cpp).
//
// Analysis.cpp decides whether the GEMM can be such a kernel and returns a
// WgmmaPlan; this file builds the kernel from it, step by step.
//
//===----------------------------------------------------------------------===//

#include "WgmmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

scf::ForOp WgmmaEmitter::build() {
  OpBuilder::InsertionGuard guard(b);
  createDescriptors();
  prefetchResidual = opt.tmaLoadResidual && hoistResidualView();
  shapeKernel();
  if (plan.persistent()) {
    // One block per SM (or per tile); the set-up below runs once, before
    // the tile loops.
    shapePersistentGrid();
    b.setInsertionPointToStart(&plan.launch.getBody().front());
  } else {
    b.setInsertionPoint(plan.gemm);
  }
  emitSetUp();
  scf::ForOp loop = emitRoles();
  if (!plan.persistent()) {
    gpu::BarrierOp::create(b, loc);
    setEpilogueInsertionPoint(b, plan.chain);
    emitEpilogue();
  }
  finishKernel();
  return loop;
}

void WgmmaEmitter::shapeKernel() {
  shapeLaunch(b, plan.launch, plan.threads(), plan.sharedBytes());
  if (opt.consumers == 1)
    b.modifyOpInPlace(plan.launch, [&] {
      plan.launch->setAttr(kMaxRegistersAttr,
                           b.getI32IntegerAttr(kOneConsumerEntryRegisters));
    });
  if (plan.clustered())
    b.modifyOpInPlace(plan.launch, [&] {
      plan.launch->setAttr(kClusterShapeAttr,
                           b.getDenseI64ArrayAttr({1, opt.clusterRows, 1}));
    });
}

void WgmmaEmitter::tileExtents() {
  AffineMap accMap = plan.output.map;
  mSize = extent(plan.chain.accumulator, *resultPosition(accMap, plan.mDim));
  nSize = extent(plan.chain.accumulator, *resultPosition(accMap, plan.nDim));
}

void WgmmaEmitter::emitSetUp() {
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  warpgroup = div(tid, kWarpgroup);
  if (!plan.persistent())
    tileExtents();
  dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      smemSpace()));
  // Swizzled slots must start on a 1024-byte boundary; the dynamic region
  // is only known to be 16-byte aligned, so the first boundary is found at
  // run time (the size has 1024 bytes of slack for it).
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dynamicSmem);
  alignedBase = rem(arith::SubIOp::create(b, loc, c(kSwizzleRepeat),
                                          rem(address, kSwizzleRepeat)),
                    kSwizzleRepeat);
  smemAddress = add(address, alignedBase);
  initBarriers();
}

scf::ForOp WgmmaEmitter::emitRoles() {
  MLIRContext *ctx = b.getContext();
  Value kTiles = c(plan.kTileCount);
  // Consumers are warpgroups 0..consumers-1 (see the staging store).
  Value isProducer = cmp(arith::CmpIPredicate::eq, warpgroup, c(opt.consumers));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  // The producer gives registers back, the consumers take them (CUTLASS's
  // split). With one consumer the registers are not tight, but without
  // setmaxnreg ptxas serialised its wgmmas (C7520).
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(kProducerRegisters),
      NVVM::SetMaxRegisterActionAttr::get(
          ctx, NVVM::SetMaxRegisterAction::decrease));
  if (plan.persistent())
    emitPersistentProducer(kTiles);
  else
    emitProducer(kTiles, Value());
  b.setInsertionPointToStart(&roles.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(plan.consumerRegisters()),
      NVVM::SetMaxRegisterActionAttr::get(
          ctx, NVVM::SetMaxRegisterAction::increase));
  if (plan.persistent())
    return emitPersistentConsumer(kTiles);
  scf::ForOp loop = emitConsumer(kTiles, Value());
  stageAccumulators(loop);
  return loop;
}

void WgmmaEmitter::finishKernel() {
  if (plan.clustered()) {
    // The partner's consumers may still arrive on this block's barriers.
    b.setInsertionPoint(plan.launch.getBody().front().getTerminator());
    clusterBarrier();
  }
  markF32Precision(b, plan.gemm, opt.precision);
  eraseGemmAndEpilogue(b, plan.gemm, plan.chain);
  if (plan.persistent())
    approximateBranchingErf();
}

FailureOr<scf::ForOp> vibegemm::rewriteGemmAsWgmma(RewriterBase &rewriter,
                                                   Operation *target,
                                                   const WgmmaOptions &options,
                                                   std::string &why) {
  auto gemm = dyn_cast<linalg::LinalgOp>(target);
  if (!gemm) {
    why = "the target is not a linalg op";
    return failure();
  }
  FailureOr<WgmmaPlan> plan = analyseWgmma(gemm, options, why);
  if (failed(plan))
    return failure();
  return WgmmaEmitter(rewriter, std::move(*plan)).build();
}
