//===- VibeGemmTransformOps.cpp - vibegemm's transform ops ----------------===//
//
// The transform dialect extension: op verification, effects and the
// application of `transform.vibegemm.*` ops. The IR they build lives in
// MmaSyncGemm.cpp, WgmmaGemm.cpp, FfmaGemm.cpp, BlockReduceGemm.cpp,
// BlockSoftmax.cpp, AlignOperandRows.cpp, GroupBlocks.cpp,
// MapForallToGrid.cpp and SplitK.cpp.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TransformOps/VibeGemmTransformOps.h"
#include "vibegemm/Kernels/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

#define GET_OP_CLASSES
#include "vibegemm/TransformOps/VibeGemmTransformOps.cpp.inc"

namespace {
/// A rewrite that does not fit leaves the payload as it was and says why,
/// pointing at the target.
DiagnosedSilenceableFailure refuse(transform::TransformOpInterface op,
                                   Operation *target, const std::string &why) {
  DiagnosedSilenceableFailure diag = op.emitSilenceableError() << why;
  diag.attachNote(target->getLoc()) << "target op";
  return diag;
}

/// The kernel rewrites consume the GEMM's handle and return the new K loop.
DiagnosedSilenceableFailure
finishRewrite(transform::TransformOpInterface op, Operation *target,
              FailureOr<scf::ForOp> loop, const std::string &why,
              transform::ApplyToEachResultList &results) {
  if (failed(loop))
    return refuse(op, target, why);
  results.push_back(*loop);
  return DiagnosedSilenceableFailure::success();
}

/// Ops that rewrite around their target and keep it valid.
void readTargetModifyPayload(
    OpOperand &target, SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(target, effects);
  transform::modifiesPayload(effects);
}

void consumeTargetProduceLoop(
    OpOperand &target, ResultRange results,
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(target, effects);
  transform::producesHandle(results, effects);
  transform::modifiesPayload(effects);
}
} // namespace

/// An `f32_precision` attribute, when present, names a known mode.
static LogicalResult verifyF32Precision(Operation *op,
                                        std::optional<StringRef> precision) {
  if (precision && !vibegemm::parseF32Precision(*precision))
    return op->emitOpError("f32_precision must be \"tf32\" or \"3xtf32\"");
  return success();
}

/// The mode an (already verified) `f32_precision` attribute names.
static vibegemm::F32Precision
f32PrecisionOf(std::optional<StringRef> precision) {
  return precision ? *vibegemm::parseF32Precision(*precision)
                   : vibegemm::F32Precision::None;
}

LogicalResult transform::GemmToMmaSyncOp::verify() {
  if (getWarps().size() != 2 || getWarps()[0] < 1 || getWarps()[1] < 1)
    return emitOpError("warps must be two positive counts [wm, wn]");
  if (getWarps()[0] * getWarps()[1] > 32)
    return emitOpError("at most 32 warps (1024 threads) per block");
  if (getBlockK() < 16 || getBlockK() % 16)
    return emitOpError("block_k must be a positive multiple of 16");
  if (getStages() < 2 || getStages() > 8)
    return emitOpError("stages must be between 2 and 8");
  return verifyF32Precision(*this, getF32Precision());
}

void transform::GemmToMmaSyncOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  consumeTargetProduceLoop(getTargetMutable(), getOperation()->getOpResults(),
                           effects);
}

DiagnosedSilenceableFailure transform::GemmToMmaSyncOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  vibegemm::MmaSyncOptions options;
  options.blockK = getBlockK();
  options.warpsM = getWarps()[0];
  options.warpsN = getWarps()[1];
  options.stages = getStages();
  options.precision = f32PrecisionOf(getF32Precision());
  std::string why;
  FailureOr<scf::ForOp> loop =
      vibegemm::rewriteGemmAsMmaSync(rewriter, target, options, why);
  return finishRewrite(*this, target, loop, why, results);
}

LogicalResult transform::GemmToFfmaOp::verify() {
  ArrayRef<int64_t> tile = getThreadTile();
  if (tile.size() != 2 || tile[0] < 4 || tile[1] < 4 || tile[0] % 4 ||
      tile[1] % 4)
    return emitOpError("thread_tile must be two positive multiples of 4 "
                       "[tm, tn]");
  if (tile[0] * tile[1] > 128)
    return emitOpError("a thread tile of more than 128 accumulators would "
                       "spill");
  if (getBlockK() < 1 || getBlockK() > 64)
    return emitOpError("block_k must be between 1 and 64");
  if (getStages() < 2 || getStages() > 8)
    return emitOpError("stages must be between 2 and 8");
  return success();
}

void transform::GemmToFfmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  consumeTargetProduceLoop(getTargetMutable(), getOperation()->getOpResults(),
                           effects);
}

DiagnosedSilenceableFailure transform::GemmToFfmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  vibegemm::FfmaOptions options;
  options.blockK = getBlockK();
  options.threadM = getThreadTile()[0];
  options.threadN = getThreadTile()[1];
  options.stages = getStages();
  std::string why;
  FailureOr<scf::ForOp> loop =
      vibegemm::rewriteGemmAsFfma(rewriter, target, options, why);
  return finishRewrite(*this, target, loop, why, results);
}

LogicalResult transform::GemmToWgmmaOp::verify() {
  if (getStages() < 2 || getStages() > 8)
    return emitOpError("stages must be between 2 and 8");
  if (getConsumers() < 1 || getConsumers() > 3)
    return emitOpError("consumers must be 1, 2 or 3 warpgroups");
  if (getPersistentBlocksAttr().getInt() < 0)
    return emitOpError("persistent_blocks must not be negative");
  if (getClusterRows() != 1 && getClusterRows() != 2)
    return emitOpError("cluster_rows must be 1 or 2");
  if (getGroupRows() < 1)
    return emitOpError("group_rows must be positive");
  if (getGroupRows() > 1 && getPersistentBlocks() == 0)
    return emitOpError("group_rows orders a persistent kernel's tiles; "
                       "other launches take transform.vibegemm.group_blocks");
  if (getTmaStore() && getPersistentBlocks() == 0)
    return emitOpError("tma_store is the persistent kernel's epilogue; it "
                       "needs persistent_blocks");
  if (getPingPong() && (getPersistentBlocks() == 0 || getConsumers() != 2))
    return emitOpError("ping_pong alternates the tiles of a persistent "
                       "kernel's two consumers; it needs persistent_blocks "
                       "and consumers = 2");
  if (getTmaLoadResidual() && !getTmaStore())
    return emitOpError("tma_load_residual loads into the TMA store's staging "
                       "tile; it needs tma_store");
  return verifyF32Precision(*this, getF32Precision());
}

void transform::GemmToWgmmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  consumeTargetProduceLoop(getTargetMutable(), getOperation()->getOpResults(),
                           effects);
}

DiagnosedSilenceableFailure transform::GemmToWgmmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  vibegemm::WgmmaOptions options;
  options.stages = getStages();
  options.consumers = getConsumers();
  options.precision = f32PrecisionOf(getF32Precision());
  options.persistentBlocks = getPersistentBlocks();
  options.clusterRows = getClusterRows();
  options.groupRows = getGroupRows();
  options.tmaStore = getTmaStore();
  options.pingPong = getPingPong();
  options.tmaLoadResidual = getTmaLoadResidual();
  std::string why;
  FailureOr<scf::ForOp> loop =
      vibegemm::rewriteGemmAsWgmma(rewriter, target, options, why);
  return finishRewrite(*this, target, loop, why, results);
}

/// Block-wide reductions need whole warps.
static LogicalResult verifyThreads(Operation *op, int64_t threads) {
  if (threads < 32 || threads > 1024 || threads % 32)
    return op->emitOpError("threads must be a multiple of 32 between 32 and "
                           "1024");
  return success();
}

LogicalResult transform::GemmToBlockReduceOp::verify() {
  return verifyThreads(*this, getThreads());
}

void transform::GemmToBlockReduceOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  consumeTargetProduceLoop(getTargetMutable(), getOperation()->getOpResults(),
                           effects);
}

DiagnosedSilenceableFailure transform::GemmToBlockReduceOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  vibegemm::BlockReduceOptions options;
  options.threads = getThreads();
  std::string why;
  FailureOr<scf::ForOp> loop =
      vibegemm::rewriteGemmAsBlockReduce(rewriter, target, options, why);
  return finishRewrite(*this, target, loop, why, results);
}

LogicalResult transform::SoftmaxToBlockReduceOp::verify() {
  return verifyThreads(*this, getThreads());
}

void transform::SoftmaxToBlockReduceOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  consumeTargetProduceLoop(getTargetMutable(), getOperation()->getOpResults(),
                           effects);
}

DiagnosedSilenceableFailure transform::SoftmaxToBlockReduceOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  vibegemm::BlockSoftmaxOptions options;
  options.threads = getThreads();
  std::string why;
  FailureOr<scf::ForOp> loop =
      vibegemm::rewriteSoftmaxAsBlockReduce(rewriter, target, options, why);
  return finishRewrite(*this, target, loop, why, results);
}

void transform::AlignOperandRowsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  readTargetModifyPayload(getTargetMutable(), effects);
}

LogicalResult transform::AlignOperandRowsOp::verify() {
  ArrayRef<int64_t> operands = getOperands();
  if (operands.empty())
    return emitOpError("operands must name at least one input");
  for (auto [i, operand] : llvm::enumerate(operands))
    if (operand < 0 || operand > 1 ||
        llvm::is_contained(operands.take_front(i), operand))
      return emitOpError("operands must be distinct input indices, 0 or 1");
  int64_t rowBytes = getRowBytes();
  if (rowBytes < 16 || rowBytes > 1024 || !llvm::isPowerOf2_64(rowBytes))
    return emitOpError("row_bytes must be a power of two from 16 to 1024");
  return success();
}

DiagnosedSilenceableFailure transform::AlignOperandRowsOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  FailureOr<SmallVector<gpu::LaunchOp>> copies =
      vibegemm::alignOperandRows(rewriter, target, getOperands(),
                                  getRowBytes(), why);
  if (failed(copies))
    return refuse(*this, target, why);
  return DiagnosedSilenceableFailure::success();
}

LogicalResult transform::GroupBlocksOp::verify() {
  if (getGroupAttr().getInt() < 1)
    return emitOpError("group must be at least 1");
  return success();
}

void transform::GroupBlocksOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  readTargetModifyPayload(getTargetMutable(), effects);
}

DiagnosedSilenceableFailure transform::GroupBlocksOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why = "the target is not a gpu.launch";
  auto launch = dyn_cast<gpu::LaunchOp>(target);
  if (!launch ||
      failed(vibegemm::groupBlocks(rewriter, launch, getGroup(), why)))
    return refuse(*this, target, why);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::MapForallToGridOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why = "the target is not an scf.forall";
  auto forall = dyn_cast<scf::ForallOp>(target);
  FailureOr<gpu::LaunchOp> launch =
      forall ? vibegemm::mapForallToGrid(rewriter, forall, why)
             : FailureOr<gpu::LaunchOp>(failure());
  if (failed(launch))
    return refuse(*this, target, why);
  results.push_back(*launch);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
transform::SplitKOp::applyToOne(transform::TransformRewriter &rewriter,
                                Operation *target,
                                transform::ApplyToEachResultList &results,
                                transform::TransformState &state) {
  std::string why = "the target is not a linalg op";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  FailureOr<linalg::SplitReductionResult> split =
      linalgOp ? vibegemm::splitK(rewriter, linalgOp, getSplitFactor(), why)
               : FailureOr<linalg::SplitReductionResult>(failure());
  if (failed(split))
    return refuse(*this, target, why);
  results.push_back(split->initOrAlloc);
  results.push_back(split->fillOp);
  results.push_back(split->splitLinalgOp);
  results.push_back(split->resultCombiningLinalgOp);
  return DiagnosedSilenceableFailure::success();
}

namespace {
class VibeGemmTransformExtension
    : public transform::TransformDialectExtension<VibeGemmTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VibeGemmTransformExtension)

  VibeGemmTransformExtension() {
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<gpu::GPUDialect>();
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<math::MathDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "vibegemm/TransformOps/VibeGemmTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::vibegemm::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<VibeGemmTransformExtension>();
}
