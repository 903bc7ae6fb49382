//===- MmaSyncGemm.cpp - A block's GEMM tile as an mma.sync kernel --------===//
//
// The block tile is split over warps; each warp keeps m16n8k16 f32
// accumulators in registers. K-tiles of A and B are staged through a ring of
// padded shared-memory buffers with 16-byte cp.async copies, fragments are
// read with ldmatrix, and the elementwise epilogue runs on the registers
// before the one store of the result. f32 operands (TF32 or 3xTF32, when the
// script asks) take m16n8k8 MMAs on fragments read element by element and
// rounded with cvt.rna.tf32.f32.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "GemmTile.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Bytes per cp.async copy.
constexpr int64_t kChunkBytes = 16;

/// One GEMM operand (A or B) as the kernel stages it (`mem` is cast to a
/// unit innermost stride; kContiguous: the shared tile is [outer][k], else
/// [k][outer]).
struct StagedOperand : OperandLayout {
  unsigned kDim;
  int64_t outerTile; // static upper bound of the outer extent
  Value outerSize;   // the extent at run time
  int64_t rows = 0, cols = 0; // shared tile in memory order, unpadded
  Value smem;        // memref<stages x rows x (cols + pad) x T, workgroup>
  bool aligned = true; // rows allow 16-byte cp.async (else register loads)
  int64_t pad = 0;     // row padding in elements, so fragment reads are
                       // conflict-free
};

/// Emits the kernel body in place of the contraction.
class MmaSyncBuilder : IndexBuilder, BlockGemm {
public:
  MmaSyncBuilder(RewriterBase &rewriter, linalg::LinalgOp gemm,
                 const MmaSyncOptions &options)
      : IndexBuilder(rewriter, gemm.getLoc()), gemm(gemm), opt(options),
        threads(32 * options.warpsM * options.warpsN) {}

  LogicalResult analyse(std::string &why);
  scf::ForOp build();

private:
  /// One 8-element chunk of a K-tile copy: its place in the shared tile
  /// and its outer and K coordinates.
  struct Chunk {
    Value row, col, outer, k;
  };
  Chunk chunkAt(StagedOperand &op, Value kBase, int64_t i);
  /// cp.async copies of K-tile `kTile` into ring slot `slot` (aligned
  /// operands only).
  void issueCopies(StagedOperand &operand, Value kTile, Value slot);
  /// Misaligned operands: element loads of K-tile `kTile` into registers,
  /// then vector stores into shared memory once the slot is free.
  SmallVector<Value> loadUnaligned(StagedOperand &op, Value kTile);
  void storeUnaligned(StagedOperand &op, Value kTile, Value slot,
                      ArrayRef<Value> chunks);
  SmallVector<Value> loadFragments(StagedOperand &operand, Value slot,
                                   int64_t kStep, bool isA);
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bFrag,
                         ArrayRef<Value> acc);
  void emitEpilogue(ArrayRef<Value> acc);
  SmallVector<std::pair<Value, Value>> evaluateChain(ArrayRef<Value> tileIndices,
                                                     Value value) {
    return evaluateEpilogue(b, loc, chain, tileIndices, value);
  }
  /// Row and column of accumulator element `e` of fragment (mi, ni) in the
  /// block tile.
  std::pair<Value, Value> accumulatorPosition(int64_t mi, int64_t ni,
                                              int64_t e);
  /// Bytes of an operand's shared-memory ring.
  int64_t ringBytes(const StagedOperand &op) const {
    return opt.stages * op.rows * (op.cols + op.pad) *
           (elementType.getIntOrFloatBitWidth() / 8);
  }

  int64_t chunksPerThread(const StagedOperand &op) const {
    return op.rows * op.cols / chunk / threads;
  }
  /// TF32 fragments of one k8 step, read element by element (ldmatrix
  /// moves 16-bit pairs): for A, fragsM groups of four registers; for B,
  /// fragsN groups of two. With 3xTF32 the remainders follow in `small`.
  void loadTf32Fragments(StagedOperand &op, Value slot, int64_t kStep,
                         bool isA, SmallVector<Value> &big,
                         SmallVector<Value> &small);

  linalg::LinalgOp gemm;
  MmaSyncOptions opt;
  int64_t threads;
  int64_t chunk = 8;  // elements per 16-byte copy
  int64_t mmaK = 16; // K of one MMA
  OutputMap output; // where output element (row, col) lives
  StagedOperand lhs, rhs;
  Value kSize;
  NVVM::MMATypes ptxType = NVVM::MMATypes::f16;
  int64_t warpM = 0, warpN = 0, fragsM = 0, fragsN = 0;
  EpilogueChain chain;
  // Per-thread values, set while building.
  Value tid, lane, warpRow, warpCol;
};

LogicalResult MmaSyncBuilder::analyse(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  bool tf32 = opt.precision != F32Precision::None;
  FailureOr<BlockGemm> facts =
      analyseBlockGemm(gemm, "mma.sync", why);
  if (failed(facts))
    return failure();
  if (failed(checkF32Precision(*facts, tf32, "mma.sync",
                               "\"tf32\" or \"3xtf32\"", why)))
    return failure();
  static_cast<BlockGemm &>(*this) = *facts;
  Value a = gemm.getDpsInputs()[0], bv = gemm.getDpsInputs()[1];
  ptxType = tf32                   ? NVVM::MMATypes::tf32
            : elementType.isF16() ? NVVM::MMATypes::f16
                                  : NVVM::MMATypes::bf16;
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  chunk = kChunkBytes / elementBytes;
  mmaK = tf32 ? 8 : 16;

  if (failed(checkUnitBatchTiles(gemm, batchDims, why)))
    return failure();
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();

  auto describe = [&](StagedOperand &op, Value mem, AffineMap map,
                      unsigned outer, int64_t tileRows) -> LogicalResult {
    FailureOr<OperandLayout> layout =
        analyseOperandLayout(mem, map, outer, kDim, why);
    if (failed(layout))
      return failure();
    static_cast<OperandLayout &>(op) = *layout;
    op.kDim = kDim;
    unsigned kPos = layout->kPos;
    // A tile smaller than the warps' fragments (a problem edge) is padded:
    // the copies zero-fill and the stores mask the extra rows.
    op.outerTile = llvm::alignTo(layout->outerBound, tileRows);
    // 16-byte copies need the contiguous rows of the whole tensor aligned;
    // other operands are loaded element by element into registers.
    // Along K a chunk must also end inside the view: a partial chunk would
    // add products from beyond it.
    auto memType = cast<MemRefType>(mem.getType());
    op.aligned = rowsAligned(mem, chunk) &&
                 (!op.kContiguous || (!memType.isDynamicDim(kPos) &&
                                      memType.getDimSize(kPos) % chunk == 0));
    op.rows = op.kContiguous ? op.outerTile : opt.blockK;
    op.cols = op.kContiguous ? opt.blockK : op.outerTile;
    // 16 bytes of padding put the 8 rows of an ldmatrix, or the rows a
    // warp's [outer][k] TF32 reads touch, in distinct banks; TF32 reads of
    // a [k][outer] tile take 32 bytes (four K rows, eight columns apart).
    op.pad = (tf32 && !op.kContiguous ? 32 : 16) / elementBytes;
    if (op.cols % chunk || (op.rows * op.cols / chunk) % threads)
      return fail(llvm::formatv("a {0}x{1} shared tile does not split into "
                                "16-byte copies evenly over {2} threads",
                                op.rows, op.cols, threads)
                      .str());
    return success();
  };
  if (failed(describe(lhs, a, maps[0], mDim, 16 * opt.warpsM)) ||
      failed(describe(rhs, bv, maps[1], nDim, 16 * opt.warpsN)))
    return failure();
  warpM = lhs.outerTile / opt.warpsM;
  warpN = rhs.outerTile / opt.warpsN;
  fragsM = warpM / 16;
  fragsN = warpN / 8;
  if (fragsM * fragsN > 64)
    return fail(llvm::formatv("a {0}x{1} warp tile needs {2} accumulator "
                              "registers per thread (at most 256)",
                              warpM, warpN, fragsM * fragsN * 4)
                    .str());

  return analyseRingAndOutput(gemm, *this, opt.stages,
                              ringBytes(lhs) + ringBytes(rhs), output, chain,
                              why);
}

MmaSyncBuilder::Chunk MmaSyncBuilder::chunkAt(StagedOperand &op, Value kBase,
                                             int64_t i) {
  int64_t chunksPerRow = op.cols / chunk;
  Chunk chunk;
  Value index = add(tid, c(i * threads));
  chunk.row = div(index, chunksPerRow);
  chunk.col = mul(rem(index, chunksPerRow), c(this->chunk));
  chunk.outer = op.kContiguous ? chunk.row : chunk.col;
  chunk.k = add(kBase, op.kContiguous ? chunk.col : chunk.row);
  return chunk;
}

void MmaSyncBuilder::issueCopies(StagedOperand &op, Value kTile, Value slot) {
  if (!op.aligned)
    return;
  Value kBase = mul(kTile, c(opt.blockK));
  // Masks fold away where the shapes say they hold: a full tile's rows are
  // all in bounds, and a K that block_k divides needs one test per K-tile.
  std::optional<int64_t> outerSize = getConstantIntValue(op.outerSize);
  bool fullTile = outerSize && *outerSize == op.outerTile;
  std::optional<int64_t> kStatic = getConstantIntValue(kSize);
  bool wholeKTiles = kStatic && *kStatic % opt.blockK == 0;
  Value kTileValid = wholeKTiles ? lt(kBase, kSize) : Value();
  for (int64_t i = 0, e = chunksPerThread(op); i < e; ++i) {
    Chunk chunk = chunkAt(op, kBase, i);
    Value valid = fullTile ? Value() : lt(chunk.outer, op.outerSize);
    valid = both(valid, wholeKTiles ? kTileValid : lt(chunk.k, kSize));
    Value zero = c(0);
    Value srcElements =
        arith::SelectOp::create(b, loc, valid, c(this->chunk), zero);
    SmallVector<Value> dims(numLoops);
    dims[op.outerDim] = arith::SelectOp::create(b, loc, valid, chunk.outer, zero);
    dims[op.kDim] = arith::SelectOp::create(b, loc, valid, chunk.k, zero);
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), op.smem,
        ValueRange{slot, chunk.row, chunk.col}, op.mem,
        indicesFor(op.map, dims), b.getIndexAttr(this->chunk), srcElements,
        b.getUnitAttr());
  }
}

SmallVector<Value> MmaSyncBuilder::loadUnaligned(StagedOperand &op,
                                                 Value kTile) {
  SmallVector<Value> chunks;
  if (op.aligned)
    return chunks;
  Value kBase = mul(kTile, c(opt.blockK));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  for (int64_t i = 0, e = chunksPerThread(op); i < e; ++i) {
    Chunk chunk = chunkAt(op, kBase, i);
    SmallVector<Value> elements;
    for (int64_t j = 0; j < this->chunk; ++j) {
      // The chunk runs along the contiguous dimension: K or the outer one.
      Value outer = op.kContiguous ? chunk.outer : add(chunk.outer, c(j));
      Value k = op.kContiguous ? add(chunk.k, c(j)) : chunk.k;
      Value valid = both(lt(outer, op.outerSize), lt(k, kSize));
      SmallVector<Value> dims(numLoops);
      dims[op.outerDim] = arith::SelectOp::create(b, loc, valid, outer, c(0));
      dims[op.kDim] = arith::SelectOp::create(b, loc, valid, k, c(0));
      Value v = memref::LoadOp::create(b, loc, op.mem, indicesFor(op.map, dims));
      elements.push_back(arith::SelectOp::create(b, loc, valid, v, zero));
    }
    chunks.push_back(vector::FromElementsOp::create(
        b, loc, VectorType::get({this->chunk}, elementType), elements));
  }
  return chunks;
}

void MmaSyncBuilder::storeUnaligned(StagedOperand &op, Value kTile, Value slot,
                                    ArrayRef<Value> chunks) {
  Value kBase = mul(kTile, c(opt.blockK));
  for (auto [i, value] : llvm::enumerate(chunks)) {
    Chunk chunk = chunkAt(op, kBase, i);
    vector::StoreOp::create(b, loc, value, op.smem,
                            ValueRange{slot, chunk.row, chunk.col},
                            /*nontemporal=*/false, llvm::Align(16));
  }
}

/// Fragments of one k16 step: for A, fragsM groups of four registers; for
/// B, fragsN groups of two. Each ldmatrix.x4 reads four 8x8 matrices; lane
/// l addresses row l % 8 of matrix l / 8.
SmallVector<Value> MmaSyncBuilder::loadFragments(StagedOperand &op, Value slot,
                                                 int64_t kStep, bool isA) {
  Value sub = rem(lane, 8), matrix = div(lane, 8);
  // Matrix j of an A fragment covers rows (j % 2) * 8 and k (j / 2) * 8; of
  // a pair of B fragments, k (j % 2) * 8 and columns (j / 2) * 8.
  Value outerOff = mul(isA ? rem(matrix, 2) : div(matrix, 2), c(8));
  Value kOff = mul(isA ? div(matrix, 2) : rem(matrix, 2), c(8));
  Value warpBase = isA ? warpRow : warpCol;
  int64_t groups = isA ? fragsM : fragsN / 2;
  auto vecType = VectorType::get({4, 2}, elementType);
  auto i32 = b.getI32Type();
  SmallVector<Value> regs;
  for (int64_t g = 0; g < groups; ++g) {
    Value outer = add(add(warpBase, c(g * 16)), outerOff);
    Value k = add(c(kStep * 16), kOff);
    Value r = op.kContiguous ? outer : k, col = op.kContiguous ? k : outer;
    // Lanes address the 8 rows of their matrix in the leading dimension.
    r = add(r, sub);
    Value tile = nvgpu::LdMatrixOp::create(b, loc, vecType, op.smem,
                                           ValueRange{slot, r, col},
                                           /*transpose=*/!op.kContiguous,
                                           /*numTiles=*/4);
    for (int64_t j = 0; j < 4; ++j) {
      Value pair = vector::ExtractOp::create(b, loc, tile, j);
      // NVVM takes f16 pairs as vector<2xf16> and bf16 pairs as i32.
      if (ptxType == NVVM::MMATypes::f16) {
        regs.push_back(pair);
        continue;
      }
      Value asInt = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, i32), pair);
      regs.push_back(vector::ExtractOp::create(b, loc, asInt, 0));
    }
  }
  return regs;
}

void MmaSyncBuilder::loadTf32Fragments(StagedOperand &op, Value slot,
                                       int64_t kStep, bool isA,
                                       SmallVector<Value> &big,
                                       SmallVector<Value> &small) {
  // Lane l holds outer l / 4 (+8: A's a1, a3) and k l % 4 (+4: A's a2, a3;
  // B's b1) of its fragment (PTX ISA, m16n8k8 .tf32 fragments).
  Value group = div(lane, 4), quad = rem(lane, 4);
  Value warpBase = isA ? warpRow : warpCol;
  int64_t frags = isA ? fragsM : fragsN, fragRows = isA ? 16 : 8;
  auto i32 = b.getI32Type();
  auto toTf32 = [&](Value x) -> Value {
    return NVVM::ConvertFloatToTF32Op::create(
        b, loc, i32, x, NVVM::FPRoundingMode::RNA, NVVM::SaturationMode::NONE,
        /*relu=*/false);
  };
  for (int64_t f = 0; f < frags; ++f)
    for (int64_t r = 0; r < (isA ? 4 : 2); ++r) {
      int64_t outerOff = isA ? (r % 2) * 8 : 0;
      int64_t kOff = isA ? (r / 2) * 4 : r * 4;
      Value outer = add(warpBase, add(group, c(f * fragRows + outerOff)));
      Value k = add(quad, c(kStep * 8 + kOff));
      Value x = memref::LoadOp::create(
          b, loc, op.smem,
          ValueRange{slot, op.kContiguous ? outer : k,
                     op.kContiguous ? k : outer});
      Value hi = toTf32(x);
      big.push_back(hi);
      if (opt.precision != F32Precision::Tf32x3)
        continue;
      Value hiF32 = arith::BitcastOp::create(b, loc, b.getF32Type(), hi);
      small.push_back(toTf32(arith::SubFOp::create(b, loc, x, hiF32)));
    }
}

SmallVector<Value> MmaSyncBuilder::mma(ArrayRef<Value> a, ArrayRef<Value> bFrag,
                                       ArrayRef<Value> acc) {
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, f32));
  std::array<NVVM::MMATypes, 2> types = {ptxType, ptxType};
  std::array<NVVM::MMALayout, 2> layouts = {NVVM::MMALayout::row,
                                            NVVM::MMALayout::col};
  Value result = NVVM::MmaOp::create(b, loc, resultType, a, bFrag, acc,
                                     ArrayRef<int64_t>{16, 8, mmaK}, std::nullopt,
                                     std::nullopt, types, layouts);
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return out;
}

std::pair<Value, Value> MmaSyncBuilder::accumulatorPosition(int64_t mi,
                                                            int64_t ni,
                                                            int64_t e) {
  // Element e of an m16n8 f32 fragment: row lane / 4 (+8 for e >= 2),
  // column 2 * (lane % 4) + e % 2.
  Value row = add(warpRow, add(div(lane, 4), c(mi * 16 + (e / 2) * 8)));
  Value col = add(warpCol, add(mul(rem(lane, 4), c(2)), c(ni * 8 + e % 2)));
  return {row, col};
}

void MmaSyncBuilder::emitEpilogue(ArrayRef<Value> acc) {
  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  unsigned nPos = *resultPosition(accMap, nDim);
  // Elements (0, 1) and (2, 3) of a fragment are adjacent columns of one
  // row: with no edge to mask they go out as one vector store per buffer.
  for (int64_t mi = 0; mi < fragsM; ++mi)
    for (int64_t ni = 0; ni < fragsN; ++ni)
      for (int64_t half = 0; half < 2; ++half) {
        auto [row, col] = accumulatorPosition(mi, ni, 2 * half);
        SmallVector<Value> tileIndices = outputIndices(output, row, col);
        Value first = acc[(mi * fragsN + ni) * 4 + 2 * half];
        Value second = acc[(mi * fragsN + ni) * 4 + 2 * half + 1];
        if (!partialBlockTile(lhs, rhs)) {
          SmallVector<Value> nextIndices(tileIndices);
          nextIndices[nPos] = add(col, c(1));
          auto lo = evaluateChain(tileIndices, first);
          auto hi = evaluateChain(nextIndices, second);
          for (auto [l, h] : llvm::zip(lo, hi)) {
            Value buffer = l.first;
            if (isBlockLocalAllocation(buffer))
              continue;
            if (canStoreVectors(buffer, nPos, 2)) {
              auto vecType = VectorType::get({2}, l.second.getType());
              Value pair = vector::FromElementsOp::create(
                  b, loc, vecType, ValueRange{l.second, h.second});
              int64_t bytes = 2 * l.second.getType().getIntOrFloatBitWidth() / 8;
              vector::StoreOp::create(b, loc, pair, buffer, tileIndices,
                                      /*nontemporal=*/false, llvm::Align(bytes));
            } else {
              memref::StoreOp::create(b, loc, l.second, buffer, tileIndices);
              memref::StoreOp::create(b, loc, h.second, buffer, nextIndices);
            }
          }
          continue;
        }
        // At a ragged edge each element is masked on its own.
        for (int64_t e = 0; e < 2; ++e) {
          auto [r, cl] = accumulatorPosition(mi, ni, 2 * half + e);
          storeChainMasked(chain, output, r, cl,
                           insideBlockTile(lhs, rhs, r, cl),
                           e ? second : first);
        }
      }
}

scf::ForOp MmaSyncBuilder::build() {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();

  // Launch shape: the warps along x, and the staged ring in dynamic shared
  // memory.
  auto smemSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  int64_t lhsBytes = ringBytes(lhs), totalBytes = lhsBytes + ringBytes(rhs);
  shapeLaunch(b, launch, threads, totalBytes);

  b.setInsertionPoint(gemm);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(tid, 32);
  Value warp = div(tid, 32);
  warpRow = mul(div(warp, opt.warpsN), c(warpM));
  warpCol = mul(rem(warp, opt.warpsN), c(warpN));

  auto dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      smemSpace));
  auto view = [&](StagedOperand &op, int64_t offset) {
    auto type = MemRefType::get({opt.stages, op.rows, op.cols + op.pad},
                                elementType, AffineMap(), smemSpace);
    op.smem = memref::ViewOp::create(b, loc, type, dynamicSmem, c(offset),
                                     ValueRange{});
  };
  view(lhs, 0);
  view(rhs, lhsBytes);

  // Unit innermost stride is what the launch plan's row-major buffers have;
  // the cast states it so cp.async may use the tile.
  auto unitInnerStride = [&](StagedOperand &op, unsigned outerPos) {
    op.outerSize = extent(op.mem, outerPos);
    op.mem = withUnitInnermostStride(b, loc, op.mem);
  };
  unitInnerStride(lhs, *resultPosition(lhs.map, mDim));
  unitInnerStride(rhs, *resultPosition(rhs.map, nDim));
  kSize = extent(gemm.getDpsInputs()[0], *resultPosition(lhs.map, kDim));
  Value kTiles = arith::CeilDivUIOp::create(b, loc, kSize, c(opt.blockK));

  // Initial accumulators: the fill's value, or the buffer's contents.
  SmallVector<Value> init;
  Value fillValue = chain.init ? chain.init.getInputs()[0] : Value();
  for (int64_t mi = 0; mi < fragsM; ++mi)
    for (int64_t ni = 0; ni < fragsN; ++ni)
      for (int64_t e = 0; e < 4; ++e) {
        if (fillValue) {
          init.push_back(fillValue);
          continue;
        }
        auto [row, col] = accumulatorPosition(mi, ni, e);
        init.push_back(loadOutputMasked(chain.accumulator, output, row, col,
                                        insideBlockTile(lhs, rhs, row, col)));
      }

  auto issue = [&](Value kTile, Value slot) -> std::function<void()> {
    issueCopies(lhs, kTile, slot);
    issueCopies(rhs, kTile, slot);
    // Register loads of misaligned operands are in flight during the MMAs
    // and land in their slot afterwards; the next barrier publishes them.
    SmallVector<Value> lhsChunks = loadUnaligned(lhs, kTile);
    SmallVector<Value> rhsChunks = loadUnaligned(rhs, kTile);
    if (lhsChunks.empty() && rhsChunks.empty())
      return nullptr;
    return [this, kTile, slot, lhsChunks, rhsChunks] {
      storeUnaligned(lhs, kTile, slot, lhsChunks);
      storeUnaligned(rhs, kTile, slot, rhsChunks);
    };
  };
  auto compute = [&](Value slot, SmallVector<Value> acc) {
    // acc += a * b over the warp's fragments; B registers come in pairs per
    // fragment ((b0, b1) of fragment ni at 2 * ni).
    auto mmaAll = [&](ArrayRef<Value> aRegs, ArrayRef<Value> bRegs) {
      for (int64_t mi = 0; mi < fragsM; ++mi)
        for (int64_t ni = 0; ni < fragsN; ++ni) {
          int64_t base = (mi * fragsN + ni) * 4;
          SmallVector<Value> updated =
              mma(aRegs.slice(mi * 4, 4), bRegs.slice(ni * 2, 2),
                  ArrayRef<Value>(acc).slice(base, 4));
          for (int64_t e = 0; e < 4; ++e)
            acc[base + e] = updated[e];
        }
    };
    for (int64_t step = 0; step < opt.blockK / mmaK; ++step) {
      if (opt.precision == F32Precision::None) {
        SmallVector<Value> aRegs = loadFragments(lhs, slot, step, true);
        SmallVector<Value> bRegs = loadFragments(rhs, slot, step, false);
        mmaAll(aRegs, bRegs);
        continue;
      }
      SmallVector<Value> aBig, aSmall, bBig, bSmall;
      loadTf32Fragments(lhs, slot, step, true, aBig, aSmall);
      loadTf32Fragments(rhs, slot, step, false, bBig, bSmall);
      // 3xTF32: the small cross terms first, so the big product lands on
      // an accumulator that already holds them (CUTLASS's order).
      if (opt.precision == F32Precision::Tf32x3) {
        mmaAll(aSmall, bBig);
        mmaAll(aBig, bSmall);
      }
      mmaAll(aBig, bBig);
    }
    return acc;
  };
  scf::ForOp loop =
      buildCpAsyncRing(b, loc, opt.stages, kTiles, init, issue, compute);
  setEpilogueInsertionPoint(b, chain);
  emitEpilogue(SmallVector<Value>(loop.getResults()));

  markF32Precision(b, gemm, opt.precision);

  // The chain and the block-local buffers it ran through are gone.
  eraseGemmAndEpilogue(b, gemm, chain);
  return loop;
}

} // namespace

std::optional<F32Precision> vibegemm::parseF32Precision(StringRef name) {
  return llvm::StringSwitch<std::optional<F32Precision>>(name)
      .Case("tf32", F32Precision::Tf32)
      .Case("3xtf32", F32Precision::Tf32x3)
      .Default(std::nullopt);
}

void vibegemm::markF32Precision(OpBuilder &b, Operation *gemm,
                                F32Precision precision) {
  if (precision == F32Precision::None)
    return;
  if (auto func = gemm->getParentOfType<FunctionOpInterface>()) {
    auto marked = func->getAttrOfType<StringAttr>(kF32PrecisionAttr);
    if (!marked || precision == F32Precision::Tf32)
      func->setAttr(kF32PrecisionAttr,
                    b.getStringAttr(f32PrecisionName(precision)));
  }
}

StringRef vibegemm::f32PrecisionName(F32Precision precision) {
  switch (precision) {
  case F32Precision::Tf32:
    return "tf32";
  case F32Precision::Tf32x3:
    return "3xtf32";
  case F32Precision::None:
    break;
  }
  return "";
}

FailureOr<scf::ForOp> vibegemm::rewriteGemmAsMmaSync(RewriterBase &rewriter,
                                                  Operation *target,
                                                  const MmaSyncOptions &options,
                                                  std::string &why) {
  return rewriteWithBuilder<MmaSyncBuilder>(rewriter, target, options, why);
}
