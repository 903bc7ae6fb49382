//===- GemmTile.cpp - What the tensor-core rewrites share -----------------===//
//
// Bounds and alignment of a block's GEMM tile, and the elementwise epilogue
// chain that runs on accumulator values before their one store.
//
//===----------------------------------------------------------------------===//

#include "GemmTile.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstdlib>
#include <numeric>

using namespace mlir;
using namespace mlir::vibegemm;

bool vibegemm::isBlockLocalAllocation(Value buffer) {
  Operation *def = buffer.getDefiningOp();
  return def && isa<memref::AllocOp, memref::AllocaOp>(def);
}

ViewChain vibegemm::traceViews(Value view) {
  ViewChain chain;
  Value v = view;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CastOp>(def))
      break;
    chain.ops.push_back(def);
    v = def->getOperand(0); // the source of both
  }
  chain.root = v;
  return chain;
}

SmallVector<memref::SubViewOp> ViewChain::subviews() const {
  SmallVector<memref::SubViewOp> subs;
  for (Operation *op : ops)
    if (auto sub = dyn_cast<memref::SubViewOp>(op))
      subs.push_back(sub);
  return subs;
}

bool ViewChain::unitStrides() const {
  return llvm::all_of(subviews(), [](memref::SubViewOp sub) {
    return sub.getSourceType().getRank() == sub.getType().getRank() &&
           llvm::all_of(sub.getMixedStrides(), [](OpFoldResult s) {
             return isConstantIntValue(s, 1);
           });
  });
}

/// True when an index is provably a multiple of `divisor`: a constant, or
/// an affine.apply whose expression has that divisor (block offsets such as
/// `d0 * 128`).
static bool isMultipleOf(OpFoldResult index, int64_t divisor) {
  if (std::optional<int64_t> v = getConstantIntValue(index))
    return *v % divisor == 0;
  auto apply = cast<Value>(index).getDefiningOp<affine::AffineApplyOp>();
  return apply &&
         apply.getAffineMap().getResult(0).getLargestKnownDivisor() %
                 divisor ==
             0;
}

/// True when every row of `view` starts `divisor`-element aligned relative
/// to its allocation: the allocation's rows are, and every subview offset
/// along the innermost dimension keeps them so.
bool vibegemm::rowsAligned(Value view, int64_t divisor) {
  ViewChain chain = traceViews(view);
  for (memref::SubViewOp sub : chain.subviews())
    if (!isMultipleOf(sub.getMixedOffsets().back(), divisor))
      return false;
  auto type = dyn_cast<MemRefType>(chain.root.getType());
  return type && !type.isDynamicDim(type.getRank() - 1) &&
         type.getDimSize(type.getRank() - 1) % divisor == 0;
}

namespace {
/// A view followed through unit-stride subviews (no rank change) and casts
/// to its buffer, with the strides the launch plan gives that buffer.
struct ViewOrigin {
  SmallVector<memref::SubViewOp> subviews;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
};

FailureOr<ViewOrigin> traceUnitStrideView(Value view) {
  auto viewType = dyn_cast<MemRefType>(view.getType());
  if (!viewType)
    return failure();
  ViewChain chain = traceViews(view);
  if (!chain.unitStrides())
    return failure();
  ViewOrigin origin;
  origin.subviews = chain.subviews();
  Value v = chain.root;
  // The buffer's layout, or row-major for a dispatch argument still seen
  // through `bufferization.to_buffer` (plan buffers are row-major).
  auto root = dyn_cast<MemRefType>(v.getType());
  if (!root || !root.hasStaticShape() || root.getRank() != viewType.getRank())
    return failure();
  if (v.getDefiningOp<bufferization::ToBufferOp>()) {
    origin.strides.assign(root.getRank(), 1);
    for (int64_t d = root.getRank() - 2; d >= 0; --d)
      origin.strides[d] = origin.strides[d + 1] * root.getDimSize(d + 1);
    return origin;
  }
  if (failed(root.getStridesAndOffset(origin.strides, origin.offset)) ||
      ShapedType::isDynamic(origin.offset) ||
      llvm::any_of(origin.strides, ShapedType::isDynamic))
    return failure();
  return origin;
}
} // namespace

bool vibegemm::vectorsAlignedAlong(Value view, unsigned dim,
                                   int64_t elements) {
  FailureOr<ViewOrigin> origin = traceUnitStrideView(view);
  if (failed(origin) || origin->offset % elements ||
      origin->strides[dim] != 1)
    return false;
  auto viewType = cast<MemRefType>(view.getType());
  for (auto [i, stride] : llvm::enumerate(origin->strides))
    if (i != dim && viewType.getDimSize(i) != 1 && stride % elements)
      return false;
  // The first element: every subview offset, scaled by its stride, keeps
  // the alignment.
  for (memref::SubViewOp sub : origin->subviews)
    for (auto [index, stride] :
         llvm::zip(sub.getMixedOffsets(), origin->strides)) {
      int64_t needed = elements / std::gcd(std::abs(stride), elements);
      if (needed > 1 && !isMultipleOf(index, needed))
        return false;
    }
  return true;
}

Value vibegemm::withKnownStrides(OpBuilder &b, Location loc, Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (succeeded(type.getStridesAndOffset(strides, offset)) &&
      !llvm::any_of(strides, ShapedType::isDynamic))
    return view;
  FailureOr<ViewOrigin> origin = traceUnitStrideView(view);
  if (failed(origin))
    return view;
  auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                       origin->strides);
  auto castType = MemRefType::get(type.getShape(), type.getElementType(),
                                  layout, type.getMemorySpace());
  if (castType == type)
    return view;
  return memref::CastOp::create(b, loc, castType, view);
}

Value vibegemm::withUnitInnermostStride(OpBuilder &b, Location loc,
                                        Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  strides.back() = 1;
  auto layout =
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides);
  auto castType = MemRefType::get(type.getShape(), type.getElementType(),
                                  layout, type.getMemorySpace());
  if (castType == type)
    return view;
  return memref::CastOp::create(b, loc, castType, view);
}

/// Static upper bound of dimension `dim` of `buffer`.
FailureOr<OperandLayout>
vibegemm::analyseOperandLayout(Value mem, AffineMap map, unsigned outerDim,
                               unsigned kDim, std::string &why) {
  std::optional<unsigned> outerPos = resultPosition(map, outerDim);
  std::optional<unsigned> kPos = resultPosition(map, kDim);
  if (!outerPos || !kPos) {
    why = "operand indexing maps must be permutations";
    return failure();
  }
  auto type = cast<MemRefType>(mem.getType());
  bool kContiguous = *kPos == type.getRank() - 1;
  if (!kContiguous && *outerPos != type.getRank() - 1) {
    why = "an operand's innermost dimension is neither K nor M/N";
    return failure();
  }
  FailureOr<int64_t> bound = upperBound(mem, *outerPos);
  if (failed(bound)) {
    why = "cannot bound the block tile's extent statically";
    return failure();
  }
  return OperandLayout{mem,   map,         outerDim, *outerPos,
                       *kPos, kContiguous, *bound};
}

FailureOr<OutputMap> vibegemm::analyseOutputMap(linalg::LinalgOp gemm,
                                                const BlockGemm &facts,
                                                std::string &why) {
  AffineMap map = gemm.getIndexingMapsArray()[2];
  if (!resultPosition(map, facts.mDim) || !resultPosition(map, facts.nDim)) {
    why = "the accumulator's indexing map must hold M and N";
    return failure();
  }
  return OutputMap{map, facts.numLoops, facts.mDim, facts.nDim};
}

FailureOr<EpilogueChain> vibegemm::analyseEpilogue(linalg::LinalgOp gemm,
                                                   gpu::LaunchOp launch,
                                                   std::string &why) {
  if (failed(checkLaunchUntouched(launch, why)))
    return failure();
  return collectEpilogue(gemm, why);
}

LogicalResult vibegemm::analyseRingAndOutput(linalg::LinalgOp gemm,
                                             const BlockGemm &facts,
                                             int64_t stages, int64_t ringBytes,
                                             OutputMap &output,
                                             EpilogueChain &chain,
                                             std::string &why) {
  if (failed(checkRingFits(*facts.target, stages, ringBytes, why)))
    return failure();
  FailureOr<OutputMap> outputMap = analyseOutputMap(gemm, facts, why);
  if (failed(outputMap))
    return failure();
  output = *outputMap;
  FailureOr<EpilogueChain> epilogue = analyseEpilogue(gemm, facts.launch, why);
  if (failed(epilogue))
    return failure();
  chain = std::move(*epilogue);
  return success();
}

FailureOr<int64_t> vibegemm::upperBound(Value buffer, int64_t dim) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(dim))
    return type.getDimSize(dim);
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(buffer, dim),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
}

std::optional<unsigned> vibegemm::resultPosition(AffineMap map, unsigned loopDim) {
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(expr); d && d.getPosition() == loopDim)
      return i;
  return std::nullopt;
}

/// Collects the fill and the elementwise chain around `gemm`, or says why
/// a consumer cannot run on registers.
FailureOr<EpilogueChain>
vibegemm::collectEpilogue(linalg::LinalgOp gemm, std::string &why) {
  EpilogueChain chain;
  chain.accumulator = gemm.getDpsInits()[0];
  chain.registerBuffers.insert(chain.accumulator);
  Block *block = gemm->getBlock();
  for (Operation *user : chain.accumulator.getUsers()) {
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (fill && fill->getBlock() == block && fill->isBeforeInBlock(gemm) &&
        fill.getDpsInits()[0] == chain.accumulator)
      chain.init = fill;
  }
  auto readsRegisters = [&](Operation *op) {
    return llvm::any_of(op->getOperands(), [&](Value v) {
      return chain.registerBuffers.contains(v);
    });
  };
  for (Operation *op = gemm->getNextNode(); op; op = op->getNextNode()) {
    if (!readsRegisters(op))
      continue;
    if (isa<memref::DeallocOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumDpsInits() != 1 ||
        generic.getNumLoops() != generic.getNumParallelLoops()) {
      why = llvm::formatv("'{0}' reads the accumulator and is not an "
                          "elementwise linalg.generic",
                          op->getName().getStringRef())
                .str();
      return failure();
    }
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      bool onRegisters = chain.registerBuffers.contains(operand.get()) &&
                         generic.isDpsInput(&operand);
      if ((onRegisters || generic.isDpsInit(&operand)) && !map.isIdentity()) {
        why = "an epilogue reads or writes the accumulator tile through a "
              "non-identity map";
        return failure();
      }
      if (generic.isDpsInit(&operand) &&
          chain.registerBuffers.contains(operand.get())) {
        why = "an epilogue writes into the accumulator in place";
        return failure();
      }
      for (AffineExpr expr : map.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(expr)) {
          why = "an epilogue operand is indexed by a non-trivial expression";
          return failure();
        }
    }
    chain.ops.push_back(generic);
    chain.registerBuffers.insert(generic.getDpsInits()[0]);
  }
  // Block-local buffers of the chain must have no readers besides it.
  for (Value buffer : chain.registerBuffers) {
    if (!isBlockLocalAllocation(buffer))
      continue;
    for (Operation *user : buffer.getUsers())
      if (user != gemm.getOperation() && user != chain.init.getOperation() &&
          !isa<memref::DeallocOp>(user) &&
          !llvm::is_contained(chain.ops, user)) {
        why = llvm::formatv("the accumulator tile is also used by '{0}'",
                            user->getName().getStringRef())
                  .str();
        return failure();
      }
  }
  return chain;
}

SmallVector<std::pair<Value, Value>>
vibegemm::evaluateEpilogue(OpBuilder &b, Location loc,
                           const EpilogueChain &chain,
                           ArrayRef<Value> tileIndices, Value value,
                           const DenseMap<Value, Value> *preloaded) {
  // Buffers in the order their values are produced; block-local ones stay
  // in registers.
  SmallVector<std::pair<Value, Value>> results;
  DenseMap<Value, Value> registers;
  registers[chain.accumulator] = value;
  results.push_back({chain.accumulator, value});
  for (linalg::GenericOp op : chain.ops) {
    IRMapping mapping;
    Block *body = op.getBody();
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body->getArgument(operand.getOperandNumber());
      if (op.isDpsInput(&operand) && registers.count(operand.get())) {
        mapping.map(arg, registers[operand.get()]);
        continue;
      }
      if (op.isDpsInit(&operand) && arg.use_empty())
        continue;
      Value given = preloaded ? preloaded->lookup(operand.get()) : Value();
      if (given) {
        mapping.map(arg, given);
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
        indices.push_back(
            isa<AffineDimExpr>(expr)
                ? tileIndices[cast<AffineDimExpr>(expr).getPosition()]
                : arith::ConstantIndexOp::create(
                      b, loc, cast<AffineConstantExpr>(expr).getValue())
                      .getResult());
      mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(), indices));
    }
    for (Operation &inner : body->without_terminator())
      b.clone(inner, mapping);
    Value result =
        mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
    registers[op.getDpsInits()[0]] = result;
    results.push_back({op.getDpsInits()[0], result});
  }
  return results;
}

bool vibegemm::canStoreVectors(Value buffer, unsigned nPos, int64_t elements) {
  auto type = cast<MemRefType>(buffer.getType());
  if (nPos != type.getRank() - 1)
    return false;
  // The vector's alignment is its size in bytes: whole bytes, a power of
  // two (an i1 or i24 output is stored element by element).
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 || !llvm::isPowerOf2_64(bits / 8 * elements))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return false;
  return rowsAligned(buffer, elements);
}

void vibegemm::shapeLaunch(RewriterBase &b, gpu::LaunchOp launch,
                           int64_t threads, int64_t sharedBytes) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = launch.getLoc();
  b.setInsertionPoint(launch);
  Value threadCount = arith::ConstantIndexOp::create(b, loc, threads);
  Value bytes = arith::ConstantIntOp::create(b, loc, sharedBytes, 32);
  b.modifyOpInPlace(launch, [&] {
    launch.getBlockSizeXMutable().assign(threadCount);
    launch.getDynamicSharedMemorySizeMutable().assign(bytes);
  });
}

Value vibegemm::shuffleXor(OpBuilder &b, Location loc, Value value,
                           int64_t offset) {
  Value warpWidth = arith::ConstantIntOp::create(b, loc, 32, 32);
  Value shift = arith::ConstantIntOp::create(b, loc, offset, 32);
  return gpu::ShuffleOp::create(b, loc, value, shift, warpWidth,
                                gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

Value vibegemm::sharedTable(OpBuilder &b, Location loc, int64_t rows,
                            int64_t cols) {
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  Value bytes = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      space));
  return memref::ViewOp::create(
      b, loc,
      MemRefType::get({rows, cols}, b.getF32Type(), AffineMap(), space),
      bytes, arith::ConstantIndexOp::create(b, loc, 0), ValueRange{});
}

void vibegemm::setEpilogueInsertionPoint(OpBuilder &b,
                                         const EpilogueChain &chain) {
  if (!chain.ops.empty())
    b.setInsertionPoint(chain.ops.back());
}

void vibegemm::eraseGemmAndEpilogue(RewriterBase &b, Operation *gemm,
                                    const EpilogueChain &chain) {
  SmallVector<Operation *> dead(chain.ops.rbegin(), chain.ops.rend());
  dead.push_back(gemm);
  if (chain.init)
    dead.push_back(chain.init);
  for (Operation *op : dead)
    b.eraseOp(op);
  for (Value buffer : chain.registerBuffers) {
    if (!isBlockLocalAllocation(buffer))
      continue;
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      if (isa<memref::DeallocOp>(user))
        b.eraseOp(user);
    if (buffer.use_empty())
      b.eraseOp(buffer.getDefiningOp());
  }
}

LogicalResult vibegemm::checkF32Precision(const BlockGemm &facts,
                                          bool precisionSet, StringRef path,
                                          StringRef offered,
                                          std::string &why) {
  if (facts.elementType.isF32() == precisionSet)
    return success();
  why = precisionSet
            ? "f32_precision applies to f32 operands only"
            : ("f32 operands take " + path + " only with f32_precision = " +
               offered +
               " (which changes accuracy; gemm_to_ffma keeps f32 accuracy)")
                  .str();
  return failure();
}

FailureOr<BlockGemm> vibegemm::analyseBlockGemm(linalg::LinalgOp gemm,
                                                StringRef path,
                                                std::string &why,
                                                bool allowF8) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  BlockGemm g;
  if (!gemm.hasPureBufferSemantics())
    return fail("the GEMM must be bufferized first (it works on tensors)");
  g.launch = gemm->getParentOfType<gpu::LaunchOp>();
  if (!g.launch)
    return fail("the GEMM is not inside a gpu.launch; map the block loop "
                "with gpu.map_forall_to_blocks first");
  g.target = &targetOf(gemm);
  if (gemm.getNumDpsInputs() != 2 || gemm.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(gemm))
    return fail("the target is not a two-operand contraction");
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(gemm);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return fail("the contraction must have exactly one M, N and K dimension");
  g.mDim = dims->m[0];
  g.nDim = dims->n[0];
  g.kDim = dims->k[0];
  g.batchDims.assign(dims->batch.begin(), dims->batch.end());
  g.numLoops = gemm.getNumLoops();
  Value a = gemm.getDpsInputs()[0], b = gemm.getDpsInputs()[1];
  g.elementType = getElementTypeOrSelf(a.getType());
  Type rhsElementType = getElementTypeOrSelf(b.getType());
  if (isFloat8(g.elementType) && !allowF8)
    return fail("FP8 operands run on gemm_to_wgmma only (sm_90a)");
  if (isFloat8(g.elementType) && isFloat8(rhsElementType) &&
      g.elementType != rhsElementType)
    return fail("FP8 operands must share one format (both f8E4M3FN or both "
                "f8E5M2)");
  if (g.elementType != rhsElementType ||
      !(g.elementType.isF16() || g.elementType.isBF16() ||
        g.elementType.isF32() || (allowF8 && isFloat8(g.elementType))) ||
      !getElementTypeOrSelf(gemm.getDpsInits()[0].getType()).isF32())
    return fail(path + (allowF8 ? " needs f16, bf16, f32 or FP8 (f8E4M3FN, "
                                  "f8E5M2) operands and an f32 accumulator"
                                : " needs f16, bf16 or f32 operands and an "
                                  "f32 accumulator"));
  return g;
}

scf::ForOp vibegemm::buildCpAsyncRing(RewriterBase &b, Location loc,
                                      int64_t stages, Value kTiles,
                                      ValueRange init, IssueKTile issue,
                                      ComputeKTile compute) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Prologue: the first stages - 1 K-tiles in flight.
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (std::function<void()> after = issue(index(s), index(s)))
      after();
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  auto loop = scf::ForOp::create(b, loc, index(0), kTiles, index(1), init);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value next = arith::AddIOp::create(b, loc, kt, index(stages - 1));
    Value nextSlot = arith::RemUIOp::create(b, loc, next, index(stages));
    std::function<void()> after = issue(next, nextSlot);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    Value slot = arith::RemUIOp::create(b, loc, kt, index(stages));
    SmallVector<Value> acc =
        compute(slot, SmallVector<Value>(loop.getRegionIterArgs()));
    if (after)
      after();
    scf::YieldOp::create(b, loc, acc);
  }
  b.setInsertionPointAfter(loop);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  return loop;
}

Value IndexBuilder::loadOutputMasked(Value buffer, const OutputMap &out,
                                     Value row, Value col, Value inside) {
  if (!inside)
    return memref::LoadOp::create(b, loc, buffer,
                                  outputIndices(out, row, col));
  Value zero = c(0);
  Value v = memref::LoadOp::create(
      b, loc, buffer,
      outputIndices(out, arith::SelectOp::create(b, loc, inside, row, zero),
                    arith::SelectOp::create(b, loc, inside, col, zero)));
  return arith::SelectOp::create(
      b, loc, inside, v,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0)));
}

void IndexBuilder::storeChainMasked(const EpilogueChain &chain,
                                    const OutputMap &out, Value row,
                                    Value col, Value inside, Value value) {
  OpBuilder::InsertionGuard guard(b);
  if (inside) {
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  SmallVector<Value> indices = outputIndices(out, row, col);
  for (auto [buffer, result] : evaluateEpilogue(b, loc, chain, indices, value))
    if (!isBlockLocalAllocation(buffer))
      memref::StoreOp::create(b, loc, result, buffer, indices);
}

const TargetInfo &vibegemm::targetOf(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto name = func ? func->getAttrOfType<StringAttr>(kTargetAttr) : nullptr;
  if (const TargetInfo *target = name ? lookupTarget(name.getValue()) : nullptr)
    return *target;
  return *lookupTarget("sm_90a");
}

LogicalResult vibegemm::checkRingFits(const TargetInfo &target,
                                      int64_t stages, int64_t bytes,
                                      std::string &why) {
  if (bytes <= target.maxSharedBytesPerBlock)
    return success();
  why = llvm::formatv("the {0}-stage ring needs {1} bytes of shared memory "
                      "(at most {2} on {3})",
                      stages, bytes, target.maxSharedBytesPerBlock,
                      target.name)
            .str();
  return failure();
}

LogicalResult vibegemm::checkUnitBatchTiles(linalg::LinalgOp gemm,
                                            ArrayRef<unsigned> batchDims,
                                            std::string &why) {
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();
  for (unsigned batch : batchDims)
    for (auto [operand, map] : llvm::zip(gemm->getOperands(), maps))
      if (std::optional<unsigned> pos = resultPosition(map, batch))
        if (cast<MemRefType>(operand.getType()).getDimSize(*pos) != 1) {
          why = "batch dimensions must be tiled to 1 first";
          return failure();
        }
  return success();
}

LogicalResult vibegemm::checkLaunchUntouched(gpu::LaunchOp launch,
                                             std::string &why) {
  for (Value size : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()}) {
    std::optional<int64_t> v = getConstantIntValue(size);
    if (!v || *v != 1) {
      why = "the enclosing gpu.launch already has threads; apply this "
            "before mapping anything to threads";
      return failure();
    }
  }
  if (launch.getDynamicSharedMemorySize()) {
    why = "the enclosing gpu.launch already uses dynamic shared memory";
    return failure();
  }
  return success();
}
