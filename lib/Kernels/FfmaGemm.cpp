//===- FfmaGemm.cpp - A block's f32 GEMM tile as a pipelined FFMA kernel --===//
//
// Each thread owns a threadM x threadN register tile of the block's output,
// split into float4 groups spread over the block tile (so a warp's shared
// loads are consecutive 16-byte words). K-tiles of A and B are staged in
// shared memory as [k][m] and [k][n], whatever the global layout, by a ring
// of cp.async copies: 16 bytes along an aligned M or N, 4 bytes otherwise.
// Every k step is two sets of float4 loads and threadM x threadN FFMAs.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "GemmTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// f32 elements per 16-byte access.
constexpr int64_t kVec = 4;
/// Row padding of the shared tiles, in elements: keeps rows 16-byte aligned
/// and spreads the transposing 4-byte copies over the banks.
constexpr int64_t kPad = 4;

/// One GEMM operand (A or B) as the kernel stages it: always [k][outer] in
/// shared memory (`mem` is cast to a unit innermost stride).
struct FfmaOperand : OperandLayout {
  int64_t threadTile; // outputs per thread along the outer dimension
  int64_t outerTile;  // static extent of the shared tile's rows
  int64_t threadsAlong; // threads across the outer dimension
  Value outerSize;    // the extent at run time
  int64_t copyVec = 1; // elements per cp.async
  Value smem;         // memref<stages x blockK x (outerTile + pad) x f32>

  int64_t groups() const { return threadTile / kVec; }
};

class FfmaBuilder : IndexBuilder, BlockGemm {
public:
  FfmaBuilder(RewriterBase &rewriter, linalg::LinalgOp gemm,
              const FfmaOptions &options)
      : IndexBuilder(rewriter, gemm.getLoc()), gemm(gemm), opt(options) {}

  LogicalResult analyse(std::string &why);
  scf::ForOp build();

private:
  /// cp.async copies of K-tile `kTile` of `op` into ring slot `slot`.
  void issueCopies(FfmaOperand &op, Value kTile, Value slot);
  /// Position along the outer dimension of a thread's element `e` (of its
  /// threadTile): float4 groups strided by threadsAlong * 4.
  Value outerPosition(const FfmaOperand &op, Value threadIndex, int64_t e) {
    int64_t group = e / kVec, lane = e % kVec;
    return add(mul(threadIndex, c(kVec)),
               c(group * op.threadsAlong * kVec + lane));
  }
  /// The thread's float4 groups of row `kk` of slot `slot`.
  SmallVector<Value> loadFragment(FfmaOperand &op, Value slot, int64_t kk,
                                  Value threadIndex);
  void emitEpilogue(ArrayRef<Value> acc);
  int64_t ringBytes(const FfmaOperand &op) const {
    return opt.stages * opt.blockK * (op.outerTile + kPad) * 4;
  }
  int64_t threads() const { return lhs.threadsAlong * rhs.threadsAlong; }

  linalg::LinalgOp gemm;
  FfmaOptions opt;
  OutputMap output; // where output element (row, col) lives
  FfmaOperand lhs, rhs;
  Value kSize;
  EpilogueChain chain;
  // Per-thread values, set while building.
  Value tid, threadRow, threadCol;
};

LogicalResult FfmaBuilder::analyse(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  FailureOr<BlockGemm> facts =
      analyseBlockGemm(gemm, "ffma", why);
  if (failed(facts))
    return failure();
  if (!facts->elementType.isF32())
    return fail("ffma takes f32 operands; f16 and bf16 belong on the "
                "tensor cores (gemm_to_mma_sync, gemm_to_wgmma)");
  static_cast<BlockGemm &>(*this) = *facts;

  if (failed(checkUnitBatchTiles(gemm, batchDims, why)))
    return failure();
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();

  auto describe = [&](FfmaOperand &op, Value mem, AffineMap map, unsigned outer,
                      int64_t threadTile) -> LogicalResult {
    FailureOr<OperandLayout> layout =
        analyseOperandLayout(mem, map, outer, kDim, why);
    if (failed(layout))
      return failure();
    static_cast<OperandLayout &>(op) = *layout;
    op.threadTile = threadTile;
    // Threads across the tile come in powers of two; a tile edge smaller
    // than that is zero-filled by the copies and masked on store.
    op.threadsAlong =
        llvm::PowerOf2Ceil(llvm::divideCeil(layout->outerBound, threadTile));
    op.outerTile = op.threadsAlong * threadTile;
    // 16-byte copies along an M or N whose rows start 16-byte aligned;
    // 4-byte copies (which also transpose a K-contiguous operand) else.
    op.copyVec = !op.kContiguous && rowsAligned(mem, kVec) ? kVec : 1;
    return success();
  };
  Value a = gemm.getDpsInputs()[0], bv = gemm.getDpsInputs()[1];
  if (failed(describe(lhs, a, maps[0], mDim, opt.threadM)) ||
      failed(describe(rhs, bv, maps[1], nDim, opt.threadN)))
    return failure();
  if (threads() > 1024 || threads() < 32)
    return fail(llvm::formatv("a {0}x{1} block tile with {2}x{3} outputs per "
                              "thread needs {4} threads (32 to 1024)",
                              lhs.outerTile, rhs.outerTile, opt.threadM,
                              opt.threadN, threads())
                    .str());
  return analyseRingAndOutput(gemm, *this, opt.stages,
                              ringBytes(lhs) + ringBytes(rhs), output, chain,
                              why);
}

void FfmaBuilder::issueCopies(FfmaOperand &op, Value kTile, Value slot) {
  Value kBase = mul(kTile, c(opt.blockK));
  // The copies' fast index runs along the global rows, so a warp reads
  // whole sectors: along K (extent block_k) or along M/N (in copyVec
  // chunks).
  int64_t fastExtent =
      op.kContiguous ? opt.blockK : op.outerTile / op.copyVec;
  int64_t chunks = opt.blockK * op.outerTile / op.copyVec;
  int64_t perThread = llvm::divideCeil(chunks, threads());
  std::optional<int64_t> outerStatic = getConstantIntValue(op.outerSize);
  bool fullTile = outerStatic && *outerStatic == op.outerTile;
  Value zero = c(0);
  for (int64_t i = 0; i < perThread; ++i) {
    Value index = add(tid, c(i * threads()));
    Value fast = rem(index, fastExtent), slow = div(index, fastExtent);
    Value outer = op.kContiguous ? slow : mul(fast, c(op.copyVec));
    Value k = add(kBase, op.kContiguous ? fast : slow);
    // Validity: the chunk exists (a last, partial round of chunks), its K
    // row is inside the problem, and its first element is inside the tile.
    Value valid = chunks % threads() ? lt(index, c(chunks)) : Value();
    valid = both(valid, lt(k, kSize));
    if (!fullTile)
      valid = both(valid, lt(outer, op.outerSize));
    // A chunk that starts inside the tile but runs past it reads what is
    // left and zero-fills the rest.
    Value count = c(op.copyVec);
    if (!fullTile && op.copyVec > 1)
      count = arith::MinUIOp::create(
          b, loc, count,
          arith::SubIOp::create(
              b, loc, op.outerSize,
              arith::SelectOp::create(b, loc, valid, outer, zero)));
    Value srcElements = arith::SelectOp::create(b, loc, valid, count, zero);
    SmallVector<Value> dims(numLoops);
    dims[op.outerDim] = arith::SelectOp::create(b, loc, valid, outer, zero);
    dims[kDim] = arith::SelectOp::create(b, loc, valid, k, zero);
    Value smemK = op.kContiguous ? fast : slow;
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), op.smem,
        ValueRange{slot, smemK, outer}, op.mem, indicesFor(op.map, dims),
        b.getIndexAttr(op.copyVec), srcElements,
        // Only 16-byte copies may bypass L1.
        op.copyVec == kVec ? b.getUnitAttr() : UnitAttr());
  }
}

SmallVector<Value> FfmaBuilder::loadFragment(FfmaOperand &op, Value slot,
                                             int64_t kk, Value threadIndex) {
  auto vecType = VectorType::get({kVec}, b.getF32Type());
  SmallVector<Value> groups;
  for (int64_t g = 0; g < op.groups(); ++g)
    groups.push_back(vector::LoadOp::create(
        b, loc, vecType, op.smem,
        ValueRange{slot, c(kk), outerPosition(op, threadIndex, g * kVec)}));
  return groups;
}

void FfmaBuilder::emitEpilogue(ArrayRef<Value> acc) {
  unsigned nPos = *resultPosition(output.map, nDim);
  int64_t groupsN = rhs.groups();
  for (int64_t i = 0; i < opt.threadM; ++i)
    for (int64_t g = 0; g < groupsN; ++g) {
      Value row = outerPosition(lhs, threadRow, i);
      Value col = outerPosition(rhs, threadCol, g * kVec);
      Value quad = acc[i * groupsN + g];
      SmallVector<Value> elements;
      for (int64_t e = 0; e < kVec; ++e)
        elements.push_back(vector::ExtractOp::create(b, loc, quad, e));
      if (!partialBlockTile(lhs, rhs)) {
        // Four adjacent columns of one row: one 16-byte store per buffer
        // where its rows allow it.
        SmallVector<SmallVector<Value>> indices;
        SmallVector<SmallVector<std::pair<Value, Value>>> values;
        for (int64_t e = 0; e < kVec; ++e) {
          indices.push_back(
              outputIndices(output, row, e ? add(col, c(e)) : col));
          values.push_back(
              evaluateEpilogue(b, loc, chain, indices.back(), elements[e]));
        }
        for (size_t v = 0; v < values[0].size(); ++v) {
          Value buffer = values[0][v].first;
          if (isBlockLocalAllocation(buffer))
            continue;
          Type type = values[0][v].second.getType();
          if (canStoreVectors(buffer, nPos, kVec)) {
            SmallVector<Value> lanes;
            for (int64_t e = 0; e < kVec; ++e)
              lanes.push_back(values[e][v].second);
            Value vec = vector::FromElementsOp::create(
                b, loc, VectorType::get({kVec}, type), lanes);
            vector::StoreOp::create(
                b, loc, vec, buffer, indices[0], /*nontemporal=*/false,
                llvm::Align(kVec * type.getIntOrFloatBitWidth() / 8));
            continue;
          }
          for (int64_t e = 0; e < kVec; ++e)
            memref::StoreOp::create(b, loc, values[e][v].second, buffer,
                                    indices[e]);
        }
        continue;
      }
      // At a ragged edge each element is masked on its own.
      for (int64_t e = 0; e < kVec; ++e) {
        Value cl = add(col, c(e));
        storeChainMasked(chain, output, row, cl,
                         insideBlockTile(lhs, rhs, row, cl), elements[e]);
      }
    }
}

scf::ForOp FfmaBuilder::build() {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto vecType = VectorType::get({kVec}, f32);

  auto smemSpace =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  int64_t lhsBytes = ringBytes(lhs);
  shapeLaunch(b, launch, threads(), lhsBytes + ringBytes(rhs));

  b.setInsertionPoint(gemm);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  threadCol = rem(tid, rhs.threadsAlong);
  threadRow = div(tid, rhs.threadsAlong);

  auto dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      smemSpace));
  auto view = [&](FfmaOperand &op, int64_t offset) {
    auto type = MemRefType::get({opt.stages, opt.blockK, op.outerTile + kPad},
                                f32, AffineMap(), smemSpace);
    op.smem = memref::ViewOp::create(b, loc, type, dynamicSmem, c(offset),
                                     ValueRange{});
  };
  view(lhs, 0);
  view(rhs, lhsBytes);
  auto unitInnerStride = [&](FfmaOperand &op) {
    op.outerSize = extent(op.mem, *resultPosition(op.map, op.outerDim));
    op.mem = withUnitInnermostStride(b, loc, op.mem);
  };
  unitInnerStride(lhs);
  unitInnerStride(rhs);
  kSize = extent(gemm.getDpsInputs()[0], *resultPosition(lhs.map, kDim));
  Value kTiles = arith::CeilDivUIOp::create(b, loc, kSize, c(opt.blockK));

  // Initial accumulators: the fill's value, or the buffer's contents.
  int64_t groupsN = rhs.groups();
  SmallVector<Value> init;
  Value fillValue = chain.init ? chain.init.getInputs()[0] : Value();
  for (int64_t i = 0; i < opt.threadM; ++i)
    for (int64_t g = 0; g < groupsN; ++g) {
      if (fillValue) {
        init.push_back(vector::BroadcastOp::create(b, loc, vecType, fillValue));
        continue;
      }
      Value row = outerPosition(lhs, threadRow, i);
      SmallVector<Value> lanes;
      for (int64_t e = 0; e < kVec; ++e) {
        Value col = outerPosition(rhs, threadCol, g * kVec + e);
        lanes.push_back(loadOutputMasked(chain.accumulator, output, row, col,
                                         insideBlockTile(lhs, rhs, row, col)));
      }
      init.push_back(vector::FromElementsOp::create(b, loc, vecType, lanes));
    }

  auto issue = [&](Value kTile, Value slot) -> std::function<void()> {
    issueCopies(lhs, kTile, slot);
    issueCopies(rhs, kTile, slot);
    return nullptr;
  };
  auto compute = [&](Value slot, SmallVector<Value> acc) {
    for (int64_t kk = 0; kk < opt.blockK; ++kk) {
      SmallVector<Value> aGroups = loadFragment(lhs, slot, kk, threadRow);
      SmallVector<Value> bGroups = loadFragment(rhs, slot, kk, threadCol);
      for (int64_t i = 0; i < opt.threadM; ++i) {
        Value a = vector::ExtractOp::create(b, loc, aGroups[i / kVec],
                                            i % kVec);
        Value aRow = vector::BroadcastOp::create(b, loc, vecType, a);
        for (int64_t g = 0; g < groupsN; ++g)
          acc[i * groupsN + g] = vector::FMAOp::create(
              b, loc, aRow, bGroups[g], acc[i * groupsN + g]);
      }
    }
    return acc;
  };
  scf::ForOp loop =
      buildCpAsyncRing(b, loc, opt.stages, kTiles, init, issue, compute);
  setEpilogueInsertionPoint(b, chain);
  emitEpilogue(SmallVector<Value>(loop.getResults()));
  eraseGemmAndEpilogue(b, gemm, chain);
  return loop;
}

} // namespace

FailureOr<scf::ForOp> vibegemm::rewriteGemmAsFfma(RewriterBase &rewriter,
                                                  Operation *target,
                                                  const FfmaOptions &options,
                                                  std::string &why) {
  return rewriteWithBuilder<FfmaBuilder>(rewriter, target, options, why);
}
