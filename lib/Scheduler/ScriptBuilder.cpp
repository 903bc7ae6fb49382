//===- ScriptBuilder.cpp - Build schedule pieces as transform ops ---------===//
//
// The transform ops behind each piece of the built-in schedules, created
// with their ODS builders rather than written as text and parsed.
//
//===----------------------------------------------------------------------===//

#include "ScriptBuilder.h"
#include "vibegemm/Scheduler/Tiling.h"
#include "vibegemm/TransformOps/VibeGemmTransformOps.h"

#include "mlir/Dialect/Bufferization/TransformOps/BufferizationTransformOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"

using namespace mlir;
using namespace mlir::vibegemm;

Type script::anyOpType(MLIRContext *context) {
  return transform::AnyOpType::get(context);
}

transform::NamedSequenceOp script::buildNamedSequence(
    ImplicitLocOpBuilder &b, StringRef name,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
  auto sequence = transform::NamedSequenceOp::create(
      b, name, anyOpType(b.getContext()), TypeRange(),
      [&](OpBuilder &nested, Location loc, BlockArgument func) {
        ImplicitLocOpBuilder inner(loc, nested);
        body(inner, func);
        transform::YieldOp::create(inner);
      });
  // The schedule consumes the function: bufferization replaces it.
  sequence.setArgAttr(0, transform::TransformDialect::kArgConsumedAttrName,
                      b.getUnitAttr());
  return sequence;
}

Value script::buildKnob(ImplicitLocOpBuilder &b, StringRef name, int64_t value,
                        ArrayRef<int64_t> options) {
  SmallVector<Attribute> choices = llvm::map_to_vector(
      options, [&](int64_t v) -> Attribute { return b.getI64IntegerAttr(v); });
  return transform::tune::KnobOp::create(
      b, transform::ParamType::get(b.getContext(), b.getI64Type()),
      b.getStringAttr(name), b.getArrayAttr(choices),
      b.getI64IntegerAttr(value));
}

Value script::buildMatchAttributes(ImplicitLocOpBuilder &b, Value target,
                                   DictionaryAttr attributes) {
  return buildMatchOps(b, target, /*opName=*/"", attributes);
}

Value script::buildMatchRole(ImplicitLocOpBuilder &b, Value target,
                             StringRef role) {
  return buildMatchAttributes(
      b, target,
      b.getDictionaryAttr(b.getNamedAttr(kRoleAttr, b.getStringAttr(role))));
}

llvm::StringMap<Value> script::buildRoleMatches(ImplicitLocOpBuilder &b,
                                                Value target,
                                                ArrayRef<std::string> roles) {
  llvm::StringMap<Value> handles;
  for (const std::string &role : roles)
    handles[role] = buildMatchRole(b, target, role);
  return handles;
}

Value script::buildMatchOps(ImplicitLocOpBuilder &b, Value target,
                            StringRef opName, DictionaryAttr attributes) {
  ArrayAttr ops = opName.empty() ? nullptr : b.getStrArrayAttr({opName});
  return transform::MatchOp::create(b, anyOpType(b.getContext()), target, ops,
                                    /*interface=*/nullptr, attributes,
                                    /*filter_result_type=*/nullptr,
                                    /*filter_operand_types=*/nullptr);
}

/// The `rank` outer dimensions, outermost first: [x], [y, x], [z, y, x].
static SmallVector<gpu::MappingId> outerDims(int64_t rank) {
  const gpu::MappingId dims[] = {gpu::MappingId::DimZ, gpu::MappingId::DimY,
                                 gpu::MappingId::DimX};
  return SmallVector<gpu::MappingId>(ArrayRef(dims).take_back(rank));
}

/// `AttrT` (a block or thread mapping) for the `rank` outer dimensions.
template <typename AttrT>
static ArrayAttr mappingOf(MLIRContext *context, int64_t rank) {
  SmallVector<Attribute> mapping;
  for (gpu::MappingId dim : outerDims(rank))
    mapping.push_back(AttrT::get(context, dim));
  return ArrayAttr::get(context, mapping);
}

ArrayAttr script::blockMapping(MLIRContext *context, int64_t rank) {
  return mappingOf<gpu::GPUBlockMappingAttr>(context, rank);
}

ArrayAttr script::threadMapping(MLIRContext *context, int64_t rank) {
  return mappingOf<gpu::GPUThreadMappingAttr>(context, rank);
}

/// `tile_using_forall` with `sizes` read as `Spec`: tile sizes or thread
/// counts.
template <typename Spec, typename Sizes>
static script::TiledOp tileUsingForall(ImplicitLocOpBuilder &b, Value target,
                                       Sizes sizes, ArrayAttr mapping) {
  auto op = transform::TileUsingForallOp::create(b, b.getLoc(), target, sizes,
                                                 Spec(), mapping);
  return {op.getTiledOp(), op.getForallOp()};
}

script::TiledOp script::buildTileSizes(ImplicitLocOpBuilder &b, Value target,
                                       ArrayRef<OpFoldResult> tileSizes,
                                       ArrayAttr mapping) {
  return tileUsingForall<transform::TileSizesSpec>(b, target, tileSizes,
                                                   mapping);
}

script::TiledOp script::buildNumThreads(ImplicitLocOpBuilder &b, Value target,
                                        ArrayRef<int64_t> numThreads,
                                        ArrayAttr mapping) {
  return tileUsingForall<transform::NumThreadsSpec>(b, target, numThreads,
                                                    mapping);
}

SmallVector<Value> script::buildFuseIntoLoop(ImplicitLocOpBuilder &b,
                                             ArrayRef<Value> producers,
                                             Value &loop) {
  SmallVector<Value> fused;
  for (Value producer : producers) {
    auto op =
        transform::FuseIntoContainingOp::create(b, b.getLoc(), producer, loop);
    fused.push_back(op.getFusedOp());
    loop = op.getNewContainingOp();
  }
  return fused;
}

void script::buildApplyPatterns(
    ImplicitLocOpBuilder &b, Value target,
    function_ref<void(OpBuilder &, Location)> patterns, bool cse) {
  auto op = transform::ApplyPatternsOp::create(b, b.getLoc(), target, patterns);
  if (cse)
    op.setApplyCse(true);
}

void script::buildForeach(
    ImplicitLocOpBuilder &b, Value handles,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
  auto foreach = transform::ForeachOp::create(b, b.getLoc(), TypeRange(),
                                              ValueRange{handles},
                                              /*with_zip_shortest=*/false);
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&foreach.getBody(), {},
                               {anyOpType(b.getContext())}, {b.getLoc()});
  body(b, block->getArgument(0));
  transform::YieldOp::create(b);
}

void script::buildVectorize(ImplicitLocOpBuilder &b, Value target,
                            ArrayRef<int64_t> vectorSizes) {
  // As the parser leaves them: no size attributes where none are given.
  DenseI64ArrayAttr sizes;
  DenseBoolArrayAttr scalable;
  if (!vectorSizes.empty()) {
    sizes = b.getDenseI64ArrayAttr(vectorSizes);
    scalable =
        b.getDenseBoolArrayAttr(SmallVector<bool>(vectorSizes.size(), false));
  }
  transform::VectorizeOp::create(b, b.getLoc(), target, ValueRange(), sizes,
                                 /*vectorize_nd_extract=*/nullptr,
                                 /*assume_dynamic_dims_match_vec_sizes=*/
                                 nullptr,
                                 /*create_named_contraction=*/nullptr,
                                 scalable);
}

Value script::buildGetParent(ImplicitLocOpBuilder &b, Value target,
                             StringRef opName) {
  return transform::GetParentOp::create(
      b, b.getLoc(), anyOpType(b.getContext()), target,
      /*isolated_from_above=*/false, /*allow_empty_results=*/false,
      b.getStringAttr(opName));
}

Value script::buildMapToLaunch(ImplicitLocOpBuilder &b, Value target) {
  return transform::MapForallToBlocks::create(
      b, b.getLoc(), anyOpType(b.getContext()), target,
      /*grid_dims=*/DenseI64ArrayAttr(),
      /*generate_gpu_launch=*/b.getUnitAttr());
}

Value script::buildMapToThreads(ImplicitLocOpBuilder &b, Value launch,
                                ArrayRef<int64_t> blockDims) {
  return transform::MapNestedForallToThreads::create(
      b, b.getLoc(), anyOpType(b.getContext()), launch,
      b.getDenseI64ArrayAttr(blockDims));
}

script::LaunchedOp script::buildLaunchAround(
    ImplicitLocOpBuilder &b, Value buffers,
    function_ref<Value(ImplicitLocOpBuilder &, Value)> match) {
  Value launch =
      buildMapToLaunch(b, buildGetParent(b, match(b, buffers), "scf.forall"));
  return {launch, match(b, launch)};
}

void script::buildCanonicalize(ImplicitLocOpBuilder &b, Value target,
                               bool cse) {
  buildApplyPatterns(
      b, target,
      [](OpBuilder &nested, Location loc) {
        transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
      },
      cse);
}

Value script::buildBufferize(ImplicitLocOpBuilder &b, Value func) {
  auto op = transform::OneShotBufferizeOp::create(
      b, b.getLoc(), anyOpType(b.getContext()), func,
      /*function_boundary_type_conversion=*/nullptr);
  op.setMemcpyOp("linalg.copy");
  return op.getTransformed();
}

Value script::buildPromoteAccumulator(ImplicitLocOpBuilder &b, Value gemm) {
  return transform::PromoteOp::create(
      b, b.getLoc(), anyOpType(b.getContext()), gemm,
      /*operands_to_promote=*/b.getI64ArrayAttr({2}),
      /*use_full_tile_buffers=*/b.getArrayAttr({}),
      /*use_full_tiles_by_default=*/true,
      /*use_original_subview_size=*/false, /*use_alloca=*/true,
      /*memory_space=*/nullptr, /*mapping=*/nullptr,
      /*alignment=*/nullptr);
}

void script::buildMapBlockLoops(ImplicitLocOpBuilder &b, Value buffers,
                                ArrayAttr mapping,
                                ArrayRef<int64_t> blockDims) {
  Value loops =
      buildMatchOps(b, buffers, "scf.forall",
                    b.getDictionaryAttr(b.getNamedAttr("mapping", mapping)));
  buildForeach(b, loops, [&](ImplicitLocOpBuilder &inner, Value loop) {
    buildMapToThreads(inner, buildMapToLaunch(inner, loop), blockDims);
  });
}

void script::buildForallsToParallel(ImplicitLocOpBuilder &b, Value buffers) {
  Value foralls = buildMatchOps(b, buffers, "scf.forall");
  buildForeach(b, foralls, [&](ImplicitLocOpBuilder &inner, Value forall) {
    transform::ForallToParallelOp::create(
        inner, inner.getLoc(), TypeRange{anyOpType(inner.getContext())},
        forall);
  });
}

ArrayAttr script::softmaxBlockMapping(MLIRContext *context,
                                      const GemmProblem &p) {
  return blockMapping(context, p.batched ? 2 : 1);
}

script::TiledOp script::buildSoftmaxRowTiling(ImplicitLocOpBuilder &b,
                                              Value softmax,
                                              const GemmProblem &p) {
  SmallVector<OpFoldResult> rows(p.batched ? 2 : 1, b.getI64IntegerAttr(1));
  return buildTileSizes(b, softmax, rows,
                        softmaxBlockMapping(b.getContext(), p));
}

void script::buildSoftmaxRowKernel(ImplicitLocOpBuilder &b, Value buffers,
                                   const GemmProblem &p) {
  LaunchedOp rows =
      buildLaunchAround(b, buffers, [](ImplicitLocOpBuilder &b, Value target) {
        return buildMatchOps(b, target, "linalg.softmax");
      });
  transform::SoftmaxToBlockReduceOp::create(b, anyOpType(b.getContext()),
                                            rows.op, softmaxThreadsFor(p));
}
