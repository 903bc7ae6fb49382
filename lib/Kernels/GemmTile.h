//===- GemmTile.h - What the tensor-core rewrites share ---------*- C++ -*-===//
//
// Facts about a block's bufferized GEMM tile (bounds, alignment, map
// positions) and its elementwise epilogue chain, used by both the mma.sync
// and the wgmma rewrites. Private to lib/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_KERNELS_GEMMTILE_H
#define VIBEGEMM_LIB_KERNELS_GEMMTILE_H

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

#include <optional>
#include <string>
#include <utility>

namespace mlir::vibegemm {

/// The elementwise consumers fused into the registers, in program order.
struct EpilogueChain {
  Value accumulator;                  // the contraction's output buffer
  linalg::FillOp init;                // its fill, if any
  SmallVector<linalg::GenericOp> ops; // generics over register values
  llvm::SetVector<Value> registerBuffers;
};

/// What the GEMM rewrites first establish about their target: a bufferized
/// two-operand contraction with one M, N and K dimension inside a
/// gpu.launch, f16, bf16 or f32 (or, where allowed, FP8) operands and an
/// f32 accumulator. The kernel builders keep these facts as their base.
struct BlockGemm {
  gpu::LaunchOp launch;
  /// The target of the enclosing dispatch (`vibegemm.target`); sm_90a when
  /// the IR names none.
  const TargetInfo *target = nullptr;
  unsigned mDim = 0, nDim = 0, kDim = 0, numLoops = 0;
  SmallVector<unsigned> batchDims;
  Type elementType; // both operands'

};


/// An analysis's refusal: sets `why` to `msg` and fails.
inline LogicalResult refuse(std::string &why, const Twine &msg) {
  why = msg.str();
  return failure();
}

/// Checks `gemm` is such a contraction; `path` names the instruction in
/// the element-type diagnostic ("mma.sync", "wgmma"). `allowF8` also
/// accepts FP8 operands (wgmma only).
FailureOr<BlockGemm> analyseBlockGemm(linalg::LinalgOp gemm, StringRef path,
                                      std::string &why, bool allowF8 = false);

/// f32 operands run on a tensor-core `path` only under an f32_precision it
/// offers (`offered`, e.g. `"tf32" or "3xtf32"`), and an f32_precision
/// needs f32 operands: both change accuracy, so neither is silent.
LogicalResult checkF32Precision(const BlockGemm &facts, bool precisionSet,
                                StringRef path, StringRef offered,
                                std::string &why);

/// The target `op`'s dispatch is scheduled for (`vibegemm.target` on the
/// enclosing function). Where the IR names none (a transform script run on
/// hand-written IR), sm_90a, the most capable: ptxas still refuses what
/// the target compiled for lacks.
const TargetInfo &targetOf(Operation *op);

/// A `stages`-deep ring of `bytes` must fit a block's shared memory on
/// `target`.
LogicalResult checkRingFits(const TargetInfo &target, int64_t stages,
                            int64_t bytes, std::string &why);

/// Every batch dimension of `gemm` (its operands' extents along them) must
/// be 1: the block tile is one GEMM.
LogicalResult checkUnitBatchTiles(linalg::LinalgOp gemm,
                                  ArrayRef<unsigned> batchDims,
                                  std::string &why);

/// The launch must not run threads or use dynamic shared memory yet: the
/// rewrite sets both.
LogicalResult checkLaunchUntouched(gpu::LaunchOp launch, std::string &why);

/// Where a block GEMM's output element (row, col) lives: the output's
/// indexing map over the contraction's loops, and which loops are M and N.
struct OutputMap {
  AffineMap map;
  unsigned numLoops = 0, mDim = 0, nDim = 0;
};

/// Index arithmetic for the kernel builders.
class IndexBuilder {
public:
  IndexBuilder(RewriterBase &b, Location loc) : b(b), loc(loc) {}

protected:
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, c(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, c(y));
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// `x && y`, where a null `x` is true.
  Value both(Value x, Value y) {
    if (!x)
      return y;
    return arith::AndIOp::create(b, loc, x, y);
  }
  /// Indices into a buffer indexed through `map` for loop values `dims`;
  /// loops without a value (batch dimensions tiled to 1) get 0.
  SmallVector<Value> indicesFor(AffineMap map, ArrayRef<Value> dims) {
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(dims[d.getPosition()] ? dims[d.getPosition()]
                                                : c(0));
      else
        indices.push_back(c(cast<AffineConstantExpr>(expr).getValue()));
    }
    return indices;
  }
  /// Whether a tile `tile` long can run past `size` (not statically equal).
  static bool partialTile(Value size, int64_t tile) {
    std::optional<int64_t> v = getConstantIntValue(size);
    return !v || *v != tile;
  }
  /// Whether element (row, col) of the block tile that operands `lhs`
  /// (rows) and `rhs` (columns) span lies inside the problem: `row <
  /// lhs.outerSize && col < rhs.outerSize`, leaving out the tests that
  /// hold statically (the extent is the static `outerTile`); null when both
  /// do. The kernel builders' operands all carry these two fields.
  template <typename Operand>
  Value insideBlockTile(const Operand &lhs, const Operand &rhs, Value row,
                        Value col) {
    Value cond;
    if (partialTile(lhs.outerSize, lhs.outerTile))
      cond = both(cond, lt(row, lhs.outerSize));
    if (partialTile(rhs.outerSize, rhs.outerTile))
      cond = both(cond, lt(col, rhs.outerSize));
    return cond;
  }
  /// Whether that block tile can be partial, so stores need masks.
  template <typename Operand>
  static bool partialBlockTile(const Operand &lhs, const Operand &rhs) {
    return partialTile(lhs.outerSize, lhs.outerTile) ||
           partialTile(rhs.outerSize, rhs.outerTile);
  }
  /// A dimension's size: a constant when static, so masks fold away.
  Value extent(Value buffer, int64_t dim) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.isDynamicDim(dim))
      return c(type.getDimSize(dim));
    return memref::DimOp::create(b, loc, buffer, dim);
  }
  /// Indices of output element (row, col).
  SmallVector<Value> outputIndices(const OutputMap &out, Value row,
                                   Value col) {
    SmallVector<Value> dims(out.numLoops);
    dims[out.mDim] = row;
    dims[out.nDim] = col;
    return indicesFor(out.map, dims);
  }
  /// The f32 `buffer`'s element (row, col), or 0 where `inside` is false
  /// (null: always inside); the load itself stays in bounds.
  Value loadOutputMasked(Value buffer, const OutputMap &out, Value row,
                         Value col, Value inside);
  /// Runs the epilogue chain on `value` at output element (row, col) and
  /// stores it to every buffer outside the block, only where `inside`.
  void storeChainMasked(const EpilogueChain &chain,
                        const OutputMap &out, Value row, Value col,
                        Value inside, Value value);

  RewriterBase &b;
  Location loc;
};

/// Allocations local to the block (temporaries of the chain).
bool isBlockLocalAllocation(Value buffer);

/// The subviews and casts between a view and the buffer it views.
struct ViewChain {
  Value root;                   // the buffer
  SmallVector<Operation *> ops; // subviews and casts, the view's own first
  /// The chain's subviews, the view's own first.
  SmallVector<memref::SubViewOp> subviews() const;
  /// Every subview keeps the rank and has unit strides, as TMA boxes and
  /// static strides need.
  bool unitStrides() const;
};

/// Follows `view` through subviews and casts to the buffer it views: the
/// one view-chain walker of the kernel builders.
ViewChain traceViews(Value view);

/// True when every row of `view` starts `divisor`-element aligned relative
/// to its allocation: the allocation's rows are, and every subview offset
/// along the innermost dimension keeps them so.
bool rowsAligned(Value view, int64_t divisor);

/// True when `view` can be read `elements` at a time along dimension
/// `dim` with aligned vector loads: that dimension has unit stride, every
/// other (non-unit) dimension's stride is a multiple of `elements`, and the
/// view's first element is `elements`-aligned relative to its allocation.
bool vectorsAlignedAlong(Value view, unsigned dim, int64_t elements);

/// `view` cast to a layout with a unit innermost stride (the others and the
/// offset dynamic), as the launch plan's row-major buffers have: vector
/// loads and cp.async need it stated in the type.
Value withUnitInnermostStride(OpBuilder &b, Location loc, Value view);

/// `view` cast to the static strides the launch plan gives its buffer (the
/// offset dynamic), when they are known, so that views taken of it have
/// static strides too. (A cast straight into a vector.load would be folded
/// away by it; a subview keeps it.)
Value withKnownStrides(OpBuilder &b, Location loc, Value view);

/// Static upper bound of dimension `dim` of `buffer`.
FailureOr<int64_t> upperBound(Value buffer, int64_t dim);

/// Position of loop dimension `loopDim` among `map`'s results.
std::optional<unsigned> resultPosition(AffineMap map, unsigned loopDim);

/// Where a GEMM operand's outer (M or N) and K dimensions sit in its
/// buffer, as the kernels that stage it through shared memory read it.
/// Their operand descriptions start from it.
struct OperandLayout {
  Value mem;               // the operand
  AffineMap map;           // the contraction's indexing map for it
  unsigned outerDim;       // the loop dimension besides K: m for A, n for B
  unsigned outerPos, kPos; // positions among the buffer's dimensions
  bool kContiguous;        // rows run along K (else along M or N)
  int64_t outerBound;      // static upper bound of the outer extent
};

/// The layout of operand `mem` (indexing map `map`) for loop dimensions
/// `outerDim` and `kDim`; fails with `why` unless the map places both, one
/// of them is innermost, and the outer extent has a static bound.
FailureOr<OperandLayout> analyseOperandLayout(Value mem, AffineMap map,
                                              unsigned outerDim, unsigned kDim,
                                              std::string &why);

/// Where `gemm`'s output element (row, col) lives; fails with `why` unless
/// the accumulator's indexing map holds M and N.
FailureOr<OutputMap> analyseOutputMap(linalg::LinalgOp gemm,
                                      const BlockGemm &facts, std::string &why);

/// The last checks of a GEMM builder's analysis: the launch is untouched
/// (checkLaunchUntouched) and the epilogue can run on registers
/// (collectEpilogue), whose chain it returns.
FailureOr<EpilogueChain>
analyseEpilogue(linalg::LinalgOp gemm, gpu::LaunchOp launch, std::string &why);

/// The analysis tail of the kernels that stage A and B through one
/// `stages`-deep cp.async ring of `ringBytes` (ffma, mma.sync), checked in
/// this order so that the same refusal comes first: the ring fits
/// (checkRingFits), then `output` (analyseOutputMap), then the epilogue
/// `chain` (analyseEpilogue).
LogicalResult analyseRingAndOutput(linalg::LinalgOp gemm,
                                   const BlockGemm &facts, int64_t stages,
                                   int64_t ringBytes, OutputMap &output,
                                   EpilogueChain &chain, std::string &why);

/// Collects the fill and the elementwise chain around `gemm`, or says why
/// a consumer cannot run on registers.
FailureOr<EpilogueChain> collectEpilogue(linalg::LinalgOp gemm,
                                         std::string &why);

/// Runs the epilogue chain on one accumulator value at `tileIndices` (loop
/// values of the chain's generics); returns each chain buffer with its
/// value there, the accumulator first. Inputs in `preloaded` (if given)
/// take the value given there rather than a load.
SmallVector<std::pair<Value, Value>>
evaluateEpilogue(OpBuilder &b, Location loc, const EpilogueChain &chain,
                 ArrayRef<Value> tileIndices, Value value,
                 const DenseMap<Value, Value> *preloaded = nullptr);

/// A pair (or more) of adjacent columns can be stored as one vector when
/// the buffer's rows are contiguous along dimension `nPos`, every row
/// starts aligned to `elements`, and the vector is a power-of-two number of
/// whole bytes.
bool canStoreVectors(Value buffer, unsigned nPos, int64_t elements);

/// Gives `launch` `threads` threads along x and `sharedBytes` of dynamic
/// shared memory (set before it, so the launch's other operands stay).
void shapeLaunch(RewriterBase &b, gpu::LaunchOp launch, int64_t threads,
                 int64_t sharedBytes);

/// The value of `value` in the lane `offset` away (xor) in the warp.
Value shuffleXor(OpBuilder &b, Location loc, Value value, int64_t offset);

/// A `rows x cols` f32 table over the launch's dynamic shared memory.
Value sharedTable(OpBuilder &b, Location loc, int64_t rows, int64_t cols);

/// Puts `b` where the epilogue is emitted: before the chain's last op,
/// since its other operands (bias, residual views) may be defined between
/// the GEMM and it; where the GEMM is, without a chain.
void setEpilogueInsertionPoint(OpBuilder &b, const EpilogueChain &chain);

/// Erases the GEMM, its fill, the chain and the block-local buffers the
/// chain ran through, once their values are stored.
void eraseGemmAndEpilogue(RewriterBase &b, Operation *gemm,
                          const EpilogueChain &chain);

/// Emits one K-tile's copies into ring slot `slot`; returns what must run
/// after the tile being computed (stores of register-staged loads), or
/// null.
using IssueKTile = llvm::function_ref<std::function<void()>(Value kTile,
                                                            Value slot)>;
/// Computes on the K-tile in ring slot `slot`, updating the accumulators.
using ComputeKTile = llvm::function_ref<SmallVector<Value>(
    Value slot, SmallVector<Value> accumulators)>;

/// The K loop of a `stages`-deep cp.async ring over `kTiles` K-tiles: the
/// first stages - 1 tiles are issued before it; iteration kt waits for tile
/// kt, syncs the block (tile kt landed for all, the slot computed last
/// iteration free), issues tile kt + stages - 1 into that slot, computes on
/// tile kt, then runs what the issue left to do. Ends with every copy
/// landed. Returns the loop, whose results are the accumulators.
scf::ForOp buildCpAsyncRing(RewriterBase &b, Location loc, int64_t stages,
                            Value kTiles, ValueRange init, IssueKTile issue,
                            ComputeKTile compute);

/// Runs a kernel builder (constructed from the rewriter, the op and the
/// options; `analyse(why)`, then `build()`) on `target`, which must be an
/// `OpTy` (else refused with `notTarget`): the shared entry of the kernel
/// rewrites.
template <typename Builder, typename OpTy = linalg::LinalgOp, typename Options>
FailureOr<scf::ForOp>
rewriteWithBuilder(RewriterBase &rewriter, Operation *target,
                   const Options &options, std::string &why,
                   StringRef notTarget = "the target is not a linalg op") {
  auto op = dyn_cast<OpTy>(target);
  if (!op) {
    why = notTarget.str();
    return failure();
  }
  Builder builder(rewriter, op, options);
  if (failed(builder.analyse(why)))
    return failure();
  return builder.build();
}

} // namespace mlir::vibegemm

#endif // VIBEGEMM_LIB_KERNELS_GEMMTILE_H
