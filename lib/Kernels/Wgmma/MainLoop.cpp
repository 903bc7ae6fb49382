//===- MainLoop.cpp - The wgmma kernel's TMA ring and main loop -----------===//
//
// The tensor maps, the ring's mbarriers, the producer that streams K-tiles
// into the ring with TMA, and the consumers that run wgmma on its slots and
// hand them back.
//
//===----------------------------------------------------------------------===//

#include "WgmmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

void WgmmaEmitter::createDescriptors() {
  // Host side, before the launch: one tensor map per operand buffer.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(plan.launch);
  auto operandMap = [&](const TmaOperand &op) -> Value {
    auto type = cast<MemRefType>(op.root.getType());
    Value unranked = memref::CastOp::create(
        b, loc,
        UnrankedMemRefType::get(plan.elementType, type.getMemorySpace()),
        op.root);
    SmallVector<Value> box = {c(op.boxRows), c(plan.blockK)};
    if (plan.tma3d())
      box.insert(box.begin(), c(1));
    return nvgpu::TmaCreateDescriptorOp::create(
        b, loc, tensorMapType(op.boxRows), unranked, box);
  };
  lhsDescriptor = operandMap(plan.lhs);
  rhsDescriptor = operandMap(plan.rhs);
  if (!opt.tmaStore)
    return;
  // Output boxes: 64 rows of one 128-byte swizzle row each; the residual's
  // are the same.
  auto type = nvgpu::TensorMapDescriptorType::get(
      b.getContext(),
      MemRefType::get(plan.outBox(), plan.outType, AffineMap(), smemSpace()),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  SmallVector<Value> box;
  for (int64_t size : plan.outBox())
    box.push_back(c(size));
  auto outputMap = [&](const TmaOperand &op) -> Value {
    Value unranked = memref::CastOp::create(
        b, loc,
        UnrankedMemRefType::get(
            plan.outType, cast<MemRefType>(op.root.getType()).getMemorySpace()),
        op.root);
    return nvgpu::TmaCreateDescriptorOp::create(b, loc, type, unranked, box);
  };
  outDescriptor = outputMap(plan.out);
  if (plan.residual.root)
    residualDescriptor = outputMap(plan.residual);
}

void WgmmaEmitter::initBarriers() {
  MLIRContext *ctx = b.getContext();
  // Barriers 0..stages-1 say a slot is full, stages..2*stages-1 that it is
  // free again; with tma_load_residual, 2*stages + w that consumer w's
  // residual boxes arrived.
  int64_t residualBarriers = opt.tmaLoadResidual ? opt.consumers : 0;
  barriers = nvgpu::MBarrierCreateOp::create(
      b, loc,
      nvgpu::MBarrierGroupType::get(ctx, smemSpace(),
                                    2 * opt.stages + residualBarriers));
  {
    Value leader = cmp(arith::CmpIPredicate::eq, tid, c(0));
    auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    for (int64_t s = 0; s < opt.stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, loc, barriers, c(1), c(s), Value());
      nvgpu::MBarrierInitOp::create(b, loc, barriers,
                                    c(plan.slotConsumers() * opt.clusterRows),
                                    c(opt.stages + s), Value());
    }
    for (int64_t w = 0; w < residualBarriers; ++w)
      nvgpu::MBarrierInitOp::create(b, loc, barriers, c(1),
                                    c(2 * opt.stages + w), Value());
    // The partner block arrives on these barriers and multicasts into
    // this block's slots.
    if (plan.clustered())
      NVVM::FenceMbarrierInitOp::create(b, loc);
    nvgpu::TmaPrefetchOp::create(b, loc, lhsDescriptor, Value());
    nvgpu::TmaPrefetchOp::create(b, loc, rhsDescriptor, Value());
    if (opt.tmaLoadResidual)
      nvgpu::TmaPrefetchOp::create(b, loc, residualDescriptor, Value());
    // TMA completes transactions on the barriers through the async proxy:
    // the initialised barriers are made visible to it before anyone waits
    // (the CUDA programming guide's fence_proxy_async_shared_cta).
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  }
  if (plan.clustered()) {
    clusterRank = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::y);
    clusterBarrier();
  } else {
    gpu::BarrierOp::create(b, loc);
  }
}

void WgmmaEmitter::emitProducer(Value kTiles, Value kStart) {
  Value leader =
      cmp(arith::CmpIPredicate::eq, tid, c(kWarpgroup * opt.consumers));
  auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  Value mOrigin = origin(plan.lhs, plan.lhs.rowPos);
  Value nOrigin = origin(plan.rhs, plan.rhs.rowPos);
  // Split-K: this block's chunk of K starts at split index * chunk.
  Value kBase = plan.splitK
                    ? mul(origin(plan.lhs, *plan.lhs.batchPos), c(plan.kChunk))
                    : c(0);
  // Batched operands are 3-D tensor maps with a batch box of 1, addressed
  // by the batch index last (coordinates run innermost first).
  auto coords = [&](TmaOperand &op, Value x, Value y) {
    SmallVector<Value> xy = {x, y};
    if (plan.tma3d())
      xy.push_back(origin(op, *op.batchPos));
    return xy;
  };
  auto box = [&](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> dims(shape);
    if (plan.tma3d())
      dims.insert(dims.begin(), 1);
    return dims;
  };
  auto loop = scf::ForOp::create(b, loc, c(0), kTiles, c(1));
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value ring = ringIndex(kStart, kt);
  Value slot = rem(ring, opt.stages);
  // From the second round on, wait until the consumers freed the slot.
  Value reuse = cmp(arith::CmpIPredicate::uge, ring, c(opt.stages));
  auto ifReuse = scf::IfOp::create(b, loc, reuse, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifReuse.getThenRegion().front());
    Value round = arith::SubIOp::create(b, loc, div(ring, opt.stages), c(1));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity(round),
                                           c(kWaitTicks),
                                           add(slot, c(opt.stages)));
  }
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers,
                                          c(plan.stageBytes()), slot, Value());
  Value k = add(kBase, mul(kt, c(plan.blockK)));
  Value slotBase = mul(slot, c(plan.stageBytes()));
  // TMA coordinates run innermost first. Operands stored K-major take one
  // box of tile rows x 64; the others boxes of 64 K-rows x 64 columns,
  // 8 KiB apart.
  if (plan.lhsKMajor)
    nvgpu::TmaAsyncLoadOp::create(
        b, loc,
        sharedView(slotBase, box({plan.blockM, plan.blockK}), plan.elementType),
        barriers, lhsDescriptor, coords(plan.lhs, k, mOrigin), slot, Value(),
        Value());
  else
    for (int64_t j = 0; j < plan.blockM / kBoxN; ++j)
      nvgpu::TmaAsyncLoadOp::create(
          b, loc,
          sharedView(
              add(slotBase, c(j * plan.blockK * kBoxN * plan.elementBytes)),
              box({plan.blockK, kBoxN}), plan.elementType),
          barriers, lhsDescriptor,
          coords(plan.lhs, add(mOrigin, c(j * kBoxN)), k), slot, Value(),
          Value());
  Value bBase = add(slotBase, c(plan.blockM * plan.blockK * plan.elementBytes));
  // In a cluster, this block loads its part of B's K-tile (rows, or
  // 64-column boxes, in rank order) into the same slot of every block.
  Value multicast, firstRow = c(0);
  int64_t rows = plan.blockN / opt.clusterRows;
  if (plan.clustered()) {
    multicast =
        arith::ConstantIntOp::create(b, loc, (1 << opt.clusterRows) - 1, 16);
    firstRow = mul(clusterRank, c(rows));
  }
  if (plan.rhsKMajor) {
    nvgpu::TmaAsyncLoadOp::create(
        b, loc,
        sharedView(
            add(bBase, mul(firstRow, c(plan.blockK * plan.elementBytes))),
            box({rows, plan.blockK}), plan.elementType),
        barriers, rhsDescriptor, coords(plan.rhs, k, add(nOrigin, firstRow)),
        slot, multicast, Value());
    return;
  }
  for (int64_t j = 0; j < rows / kBoxN; ++j) {
    Value column = add(firstRow, c(j * kBoxN));
    Value offset = add(bBase, mul(column, c(plan.blockK * plan.elementBytes)));
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, sharedView(offset, box({plan.blockK, kBoxN}), plan.elementType),
        barriers, rhsDescriptor, coords(plan.rhs, add(nOrigin, column), k),
        slot, multicast, Value());
  }
}

Value WgmmaEmitter::matrixDescriptor(Value byteOffset, int64_t leadingBytes) {
  // 14-bit fields in 16-byte units: start address, leading and stride byte
  // offsets (eight 128-byte rows); bits 62-63 = 1 select the 128-byte
  // swizzle. The constant fields are folded into one mask.
  uint64_t fixed = (uint64_t(leadingBytes >> 4) << 16) |
                   (uint64_t(kSwizzleRepeat >> 4) << 32) | (uint64_t(1) << 62);
  Value address = add(smemAddress, byteOffset);
  Value field = rem(div(address, 16), 1 << 14);
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), field);
  return arith::OrIOp::create(
      b, loc, i64,
      arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(fixed), 64));
}

scf::ForOp WgmmaEmitter::emitConsumer(Value kTiles, Value kStart) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // One m64nBNk16 accumulator (BN / 2 f32 per thread) per 64 rows owned.
  int64_t groups = plan.rowsPerConsumer / 64;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(plan.blockN / 2, f32));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value zeros = LLVM::PoisonOp::create(b, loc, accType);
  for (int64_t e = 0; e < plan.blockN / 2; ++e)
    zeros = LLVM::InsertValueOp::create(b, loc, zeros, zero, e);
  Value signals = cmp(arith::CmpIPredicate::eq, rem(tid, kWarpgroup), c(0));
  auto loop = scf::ForOp::create(b, loc, c(0), kTiles, c(1),
                                 SmallVector<Value>(groups, zeros));
  auto wgmmaType = plan.elementType.isF32()    ? NVVM::WGMMATypes::tf32
                   : plan.elementType.isF16()  ? NVVM::WGMMATypes::f16
                   : plan.elementType.isBF16() ? NVVM::WGMMATypes::bf16
                   : isa<Float8E4M3FNType>(plan.elementType)
                       ? NVVM::WGMMATypes::e4m3
                       : NVVM::WGMMATypes::e5m2;
  auto typeAttr = NVVM::WGMMATypesAttr::get(ctx, wgmmaType);
  auto layout = [&](NVVM::MMALayout l) {
    return NVVM::MMALayoutAttr::get(ctx, l);
  };
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value ring = ringIndex(kStart, kt);
    Value slot = rem(ring, opt.stages);
    nvgpu::MBarrierTryWaitParityOp::create(
        b, loc, barriers, parity(div(ring, opt.stages)), c(kWaitTicks), slot);
    Value slotBase = mul(slot, c(plan.stageBytes()));
    Value aBase = add(
        slotBase, mul(consumerFirstRow(), c(plan.blockK * plan.elementBytes)));
    Value bBase =
        add(slotBase, c(plan.blockM * plan.blockK * plan.elementBytes));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    // K-major tiles step 32 bytes along the swizzled row; tiles stored
    // with K outermost step 16 rows, and their 64-column boxes are 8 KiB
    // apart. 64 rows of a K-major A and one box of an MN-major A are both
    // 8 KiB.
    auto operandDescriptor = [&](Value base, bool kMajor, int64_t step) {
      return kMajor ? matrixDescriptor(add(base, c(step * 32)), 16)
                    : matrixDescriptor(add(base, c(step * 16 * 128)),
                                       plan.blockK * kBoxN * plan.elementBytes);
    };
    for (int64_t step = 0; step < plan.blockK / plan.mmaK; ++step) {
      Value bDesc = operandDescriptor(bBase, plan.rhsKMajor, step);
      for (int64_t g = 0; g < groups; ++g) {
        Value aDesc = operandDescriptor(
            add(aBase, c(g * plan.blockK * kBoxN * plan.elementBytes)),
            plan.lhsKMajor, step);
        acc[g] = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accType, acc[g], aDesc, bDesc,
            NVVM::MMAShapeAttr::get(ctx, 64, plan.blockN, plan.mmaK), typeAttr,
            typeAttr, NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            // Layouts as BLAS names them: A [M, K] row-major (column-major
            // when stored [K, M]); B [K, N] row-major, or column-major when
            // stored [N, K].
            layout(plan.lhsKMajor ? NVVM::MMALayout::row
                                  : NVVM::MMALayout::col),
            layout(plan.rhsKMajor ? NVVM::MMALayout::col
                                  : NVVM::MMALayout::row),
            NVVM::MMAIntOverflowAttr());
      }
    }
    // One group stays in flight: once this K-tile's group is issued, the
    // previous one is done and its slot goes back to the producer.
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
    Value release = both(signals, cmp(arith::CmpIPredicate::ugt, kt, c(0)));
    auto ifRelease = scf::IfOp::create(b, loc, release, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
      releaseSlot(rem(arith::SubIOp::create(b, loc, ring, c(1)), opt.stages));
    }
    scf::YieldOp::create(b, loc, acc);
  }
  loop->setAttr("k_loop", b.getUnitAttr());
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  if (kStart) {
    // The producer refills the tile's last slot with the next tile's.
    auto ifRelease = scf::IfOp::create(b, loc, signals, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
    releaseSlot(rem(add(kStart, c(plan.kTileCount - 1)), opt.stages));
  }
  return loop;
}

void WgmmaEmitter::releaseSlot(Value slot) {
  Value empty = add(slot, c(opt.stages));
  if (!plan.clustered()) {
    nvgpu::MBarrierArriveOp::create(b, loc, barriers, empty);
    return;
  }
  // The partner's producer multicasts into this block's slot too, so it
  // waits for both blocks' consumers. The arrive keeps PTX's default
  // release.cta, as CUTLASS's ClusterBarrier::arrive(cta_id): the slot's
  // only readers are this warpgroup's wgmma, complete after its
  // wait_group. release.cluster compiled to MEMBAR.ALL.GPU + ERRBAR before
  // each arrive (SASS of ptxas 13.0), an L2 round trip per K-step that made
  // the clustered kernels 1.4-1.6x slower (h200-2026-12-05-mbarrier-tma).
  MLIRContext *ctx = b.getContext();
  Value address =
      nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), barriers, empty);
  Value local = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*shared=*/3), address);
  auto clusterPointer = LLVM::LLVMPointerType::get(ctx, /*shared::cluster=*/7);
  for (int64_t rank = 0; rank < opt.clusterRows; ++rank) {
    Value remote =
        NVVM::MapaOp::create(b, loc, clusterPointer, local,
                             arith::ConstantIntOp::create(b, loc, rank, 32));
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), remote, Value(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
  }
}

void WgmmaEmitter::clusterBarrier() {
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

void WgmmaEmitter::namedBarrier(Value id, int64_t count) {
  NVVM::BarrierOp::create(b, loc, Type(), id,
                          arith::ConstantIntOp::create(b, loc, count, 32),
                          NVVM::BarrierReductionAttr(), Value());
}
