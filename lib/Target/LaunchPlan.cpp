//===- LaunchPlan.cpp - Launch plans from lowered IR ----------------------===//
//
// Walks a lowered function in program order: allocations become scratch or
// temp buffers, gpu.launch_func ops become launches, calls to dispatches
// are followed with their arguments renamed. A function over a dynamic M
// gives a version 2 plan: host values become expressions of "M" (or of "B"
// and "S" when a batch is folded into M, M then derived), and the host's
// choice among bucket kernels (scf.if on M) a "when" per launch.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

constexpr llvm::StringLiteral kSizeName = kPlanSizeName;

/// A range of M, both ends included.
struct MRange {
  int64_t lo, hi;
  bool operator==(const MRange &o) const { return lo == o.lo && hi == o.hi; }
  bool empty() const { return lo > hi; }
};

/// `expr` over `operands` (dims, then symbols) in the plan's expression
/// syntax, or nullopt.
std::optional<std::string>
affineText(AffineExpr expr, ArrayRef<std::string> operands, unsigned numDims) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    int64_t v = c.getValue();
    return v < 0 ? "(0 - " + std::to_string(-v) + ")" : std::to_string(v);
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return operands[d.getPosition()];
  if (auto sym = dyn_cast<AffineSymbolExpr>(expr))
    return operands[numDims + sym.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  std::optional<std::string> l = affineText(bin.getLHS(), operands, numDims);
  std::optional<std::string> r = affineText(bin.getRHS(), operands, numDims);
  if (!l || !r)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return "(" + *l + " + " + *r + ")";
  case AffineExprKind::Mul:
    return "(" + *l + " * " + *r + ")";
  case AffineExprKind::FloorDiv:
    return "(" + *l + " / " + *r + ")";
  case AffineExprKind::CeilDiv:
    return "ceildiv(" + *l + ", " + *r + ")";
  case AffineExprKind::Mod:
    return "(" + *l + " % " + *r + ")";
  default:
    return std::nullopt;
  }
}

class PlanBuilder {
public:
  PlanBuilder(StringRef target, const PtxFileNamer &namer)
      : target(target), ptxFileFor(namer) {}

  FailureOr<llvm::json::Object> build(func::FuncOp func) {
    auto numInputsAttr =
        func->getAttrOfType<IntegerAttr>("vibegemm.num_inputs");
    int64_t numInputs =
        numInputsAttr ? numInputsAttr.getInt() : func.getNumArguments();
    if (failed(nameSizes(func)))
      return failure();
    // A bucket dispatch takes M (vibegemm-bucket-dispatches), a generic
    // dispatch each of the plan's sizes, in order.
    size_t numSizeArgs = llvm::count_if(func.getArgumentTypes(),
                                        [](Type t) { return t.isIndex(); });
    size_t nextSize = 0;
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (arg.getType().isIndex() && func->hasAttr(kMRangeAttr)) {
        sizes = dynamicRange(func);
        exprs[arg] = numSizeArgs == sizeNames.size() ? sizeNames[nextSize++]
                                                     : kSizeName.str();
        continue;
      }
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return emitError(func.getLoc(),
                         "launch plans take memref arguments only");
      bool isInput = static_cast<int64_t>(i) < numInputs;
      std::string name = isInput ? "arg" + std::to_string(i)
                                 : "res" + std::to_string(i - numInputs);
      SmallVector<std::string> dims = argumentDims(type);
      llvm::json::Object buffer = shapedBuffer(name, type, dims);
      if (!type.hasStaticShape())
        sizes = dynamicRange(func);
      dimsOf[arg] = allDims(type, dims);
      bufferRanks[name] = type.getRank();
      buffer["kind"] = isInput ? "input" : "output";
      buffer[isInput ? "arg_index" : "result_index"] =
          isInput ? static_cast<int64_t>(i)
                  : static_cast<int64_t>(i) - numInputs;
      if (auto scale = func.getArgAttrOfType<FloatAttr>(i, kVerifyScaleAttr);
          scale && isInput)
        buffer["verify_scale"] = scale.getValueAsDouble();
      buffers.push_back(std::move(buffer));
      names[arg] = name;
    }
    when = sizes.value_or(MRange{1, kMaxDynamicM});
    if (failed(walk(func)))
      return failure();
    llvm::json::Object plan{{"version", sizes ? 2 : 1},
                            {"function", func.getSymName().str()},
                            {"target", target.str()},
                            {"buffers", std::move(buffers)},
                            {"launches", std::move(launches)}};
    if (func->hasAttr("vibegemm.dispatch"))
      plan["dispatch"] = func.getSymName().str();
    if (!f32Precision.empty())
      plan["f32_precision"] = f32Precision;
    if (sizes) {
      llvm::json::Object named;
      for (const std::string &name : sizeNames)
        named[name] =
            llvm::json::Object{{"min", sizes->lo}, {"max", sizes->hi}};
      plan["sizes"] = std::move(named);
    }
    // A batch folded into M: the buckets choose on M = B * S.
    if (!bucketKey.empty() && bucketKey != kSizeName)
      plan["derived"] = llvm::json::Object{{kSizeName, bucketKey}};
    return plan;
  }

private:
  /// The Ms a function over a dynamic M serves: a bucket dispatch's range,
  /// or every M for a host function choosing among buckets.
  static MRange dynamicRange(func::FuncOp func) {
    if (auto range = func->getAttrOfType<DenseI64ArrayAttr>(kMRangeAttr))
      if (range.size() == 2)
        return {range[0], range[1]};
    return {1, kMaxDynamicM};
  }

  /// Names the run-time sizes of the function's buffers: every dynamic
  /// buffer has as many, in the same order ([1, S, 64] and [1, S, 1] alike);
  /// one is "M", two (a batch folded into M by prepare) "B" and "S", M then
  /// being derived from them.
  LogicalResult nameSizes(func::FuncOp func) {
    std::optional<size_t> perBuffer;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      size_t count = type.getNumDynamicDims();
      if (perBuffer && *perBuffer != count)
        return emitError(arg.getLoc(),
                         "launch plans need every buffer with run-time sizes "
                         "to have as many of them");
      perBuffer = count;
    }
    if (!perBuffer || *perBuffer == 1)
      sizeNames = {kSizeName.str()};
    else if (*perBuffer == 2)
      sizeNames = {"B", "S"};
    else
      return emitError(func.getLoc(), "launch plans name at most two "
                                      "run-time sizes");
    return success();
  }

  /// The names of a function argument's dynamic sizes (see nameSizes).
  SmallVector<std::string> argumentDims(MemRefType type) const {
    size_t count = std::min<size_t>(sizeNames.size(), type.getNumDynamicDims());
    return SmallVector<std::string>(sizeNames.begin(),
                                    sizeNames.begin() + count);
  }

  /// Every dimension of `type` as an expression: constants, and the
  /// dynamic ones from `dynamicSizes` in order.
  static SmallVector<std::string> allDims(MemRefType type,
                                          ArrayRef<std::string> dynamicSizes) {
    SmallVector<std::string> dims;
    unsigned next = 0;
    for (int64_t size : type.getShape())
      dims.push_back(ShapedType::isDynamic(size)
                         ? (next < dynamicSizes.size() ? dynamicSizes[next++]
                                                       : kSizeName.str())
                         : std::to_string(size));
    return dims;
  }

  /// `to` holds the sizes `from` holds. Copied before inserting, which
  /// may move the map's entries.
  void copyDims(Value to, Value from) {
    auto it = dimsOf.find(from);
    if (it == dimsOf.end())
      return;
    SmallVector<std::string> dims = it->second;
    dimsOf[to] = std::move(dims);
  }

  /// `to` is `from`'s plan buffer seen through another value (a cast, a
  /// reshape, a dispatch's argument), with its sizes unless asked not to.
  void alias(Value to, Value from, bool withDims = true) {
    std::string name = names.lookup(from);
    names[to] = std::move(name);
    if (withDims)
      copyDims(to, from);
  }

  /// The expressions of a reshape's dimensions, from its source's.
  void addReshapeDims(Operation *op) {
    Value source = op->getOperand(0), result = op->getResult(0);
    auto it = dimsOf.find(source);
    if (it == dimsOf.end())
      return;
    SmallVector<std::string> from = it->second;
    SmallVector<std::string> dims;
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
      // Unit dimensions drop out: [1, M, 64] collapses to [M, 64].
      for (const ReassociationIndices &group :
           collapse.getReassociationIndices()) {
        SmallVector<std::string> factors;
        for (int64_t d : group)
          if (from[d] != "1")
            factors.push_back(from[d]);
        std::string product = llvm::join(factors, " * ");
        dims.push_back(factors.empty()       ? "1"
                       : factors.size() == 1 ? product
                                             : "(" + product + ")");
      }
    } else {
      auto expand = cast<memref::ExpandShapeOp>(op);
      for (OpFoldResult size : expand.getMixedOutputShape()) {
        std::optional<int64_t> c = getConstantIntValue(size);
        std::optional<std::string> e =
            c ? std::optional<std::string>(std::to_string(*c))
              : hostExpr(cast<Value>(size));
        if (!e)
          return;
        dims.push_back(*e);
      }
    }
    if (dims.size() ==
        static_cast<size_t>(cast<MemRefType>(result.getType()).getRank()))
      dimsOf[result] = dims;
  }

  /// A shape whose dynamic sizes are "M" (or `dynamicSizes`' expressions).
  static llvm::json::Array shapeOf(MemRefType type,
                                   ArrayRef<std::string> dynamicSizes = {}) {
    llvm::json::Array shape;
    unsigned next = 0;
    for (int64_t size : type.getShape()) {
      if (!ShapedType::isDynamic(size))
        shape.push_back(size);
      else if (next < dynamicSizes.size())
        shape.push_back(dynamicSizes[next++]);
      else
        shape.push_back(kSizeName);
    }
    return shape;
  }

  static llvm::json::Object
  shapedBuffer(StringRef name, MemRefType type,
               ArrayRef<std::string> dynamicSizes = {}) {
    return llvm::json::Object{{"name", name.str()},
                              {"shape", shapeOf(type, dynamicSizes)},
                              {"dtype", planDtype(type.getElementType())}};
  }

  /// A host value as a plan expression of M: constants, M read from a plan
  /// buffer, and integer arithmetic on them. nullopt for anything else.
  std::optional<std::string> hostExpr(Value v) {
    if (auto it = exprs.find(v); it != exprs.end())
      return it->second;
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return std::to_string(c.getSExtValue());
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto type = dyn_cast<MemRefType>(dim.getSource().getType());
      if (!index || !type || *index >= type.getRank())
        return std::nullopt;
      if (!type.isDynamicDim(*index))
        return std::to_string(type.getDimSize(*index));
      auto it = dimsOf.find(dim.getSource());
      // Every buffer value's dimensions are recorded, one per dimension.
      if (it == dimsOf.end())
        return std::nullopt;
      return it->second[*index];
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return hostExpr(op->getOperand(0));
    auto binary = [&](StringRef infix,
                      StringRef call) -> std::optional<std::string> {
      std::optional<std::string> l = hostExpr(op->getOperand(0));
      std::optional<std::string> r = hostExpr(op->getOperand(1));
      if (!l || !r)
        return std::nullopt;
      if (!call.empty())
        return (call + "(" + *l + ", " + *r + ")").str();
      return "(" + *l + " " + infix.str() + " " + *r + ")";
    };
    if (isa<arith::AddIOp>(op))
      return binary("+", "");
    if (isa<arith::SubIOp>(op))
      return binary("-", "");
    if (isa<arith::MulIOp>(op))
      return binary("*", "");
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(op))
      return binary("/", "");
    if (isa<arith::RemUIOp, arith::RemSIOp>(op))
      return binary("%", "");
    if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(op))
      return binary("", "ceildiv");
    if (isa<arith::MinUIOp, arith::MinSIOp>(op))
      return binary("", "min");
    if (isa<arith::MaxUIOp, arith::MaxSIOp>(op))
      return binary("", "max");
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      SmallVector<std::string> operands;
      for (Value operand : apply.getMapOperands()) {
        std::optional<std::string> e = hostExpr(operand);
        if (!e)
          return std::nullopt;
        operands.push_back(*e);
      }
      AffineMap map = apply.getAffineMap();
      return affineText(map.getResult(0), operands, map.getNumDims());
    }
    return std::nullopt;
  }

  /// The Ms for which each branch of a host `scf.if` on M runs, within the
  /// current range; nullopt when the condition is not `M <op> constant`.
  std::optional<std::pair<MRange, MRange>> branchRanges(scf::IfOp ifOp) {
    auto cmp = ifOp.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      return std::nullopt;
    APInt bound;
    std::optional<std::string> lhs = hostExpr(cmp.getLhs());
    if (!lhs || !matchPattern(cmp.getRhs(), m_ConstantInt(&bound)))
      return std::nullopt;
    // M itself, or, with a batch folded into it, its one expression of the
    // plan's sizes (B * S), which the plan then derives M from.
    bool named = llvm::is_contained(sizeNames, *lhs);
    if ((named && *lhs != kSizeName) ||
        (!bucketKey.empty() && *lhs != bucketKey) ||
        (!named && sizeNames.size() < 2))
      return std::nullopt;
    bucketKey = *lhs;
    // The then-branch runs for M <= t (thenBelow) or for M > t.
    int64_t c = bound.getSExtValue(), t;
    bool thenBelow;
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::ule:
    case P::sle:
      t = c, thenBelow = true;
      break;
    case P::ult:
    case P::slt:
      t = c - 1, thenBelow = true;
      break;
    case P::ugt:
    case P::sgt:
      t = c, thenBelow = false;
      break;
    case P::uge:
    case P::sge:
      t = c - 1, thenBelow = false;
      break;
    default:
      return std::nullopt;
    }
    MRange below{when.lo, std::min(when.hi, t)};
    MRange above{std::max(when.lo, t + 1), when.hi};
    return thenBelow ? std::make_pair(below, above)
                     : std::make_pair(above, below);
  }

  /// Follows both branches of a host choice among bucket kernels, each
  /// with its range of M; a result must be one buffer whichever runs.
  LogicalResult addIf(scf::IfOp ifOp) {
    std::optional<std::pair<MRange, MRange>> ranges =
        sizes ? branchRanges(ifOp) : std::nullopt;
    if (!ranges)
      return emitError(ifOp.getLoc(),
                       "a launch plan follows host 'scf.if' only on the "
                       "dynamic M against a constant");
    MRange outer = when;
    SmallVector<std::optional<std::string>> yielded(ifOp.getNumResults());
    for (auto [region, range] :
         {std::make_pair(&ifOp.getThenRegion(), ranges->first),
          std::make_pair(&ifOp.getElseRegion(), ranges->second)}) {
      if (region->empty() || range.empty())
        continue;
      when = range;
      if (failed(walk(region->front())))
        return failure();
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
        auto it = names.find(value);
        std::optional<std::string> name =
            it == names.end() ? std::nullopt
                              : std::optional<std::string>(it->second);
        if (!name || (yielded[i] && *yielded[i] != *name))
          return emitError(ifOp.getLoc(),
                           "the branches of a host 'scf.if' must yield the "
                           "same plan buffer");
        yielded[i] = name;
      }
    }
    when = outer;
    for (auto [result, name] : llvm::zip(ifOp.getResults(), yielded))
      if (name)
        names[result] = *name;
    // Whichever branch runs, a result's sizes are the first's.
    for (auto [result, value] :
         llvm::zip(ifOp.getResults(), ifOp.thenYield().getOperands()))
      copyDims(result, value);
    return success();
  }

  LogicalResult walk(func::FuncOp func) {
    // TF32 is the loosest: it wins over 3xTF32 where dispatches differ.
    if (auto precision = func->getAttrOfType<StringAttr>(kF32PrecisionAttr))
      if (f32Precision.empty() || precision.getValue() == "tf32")
        f32Precision = precision.getValue().str();
    return walk(func.getBody().front());
  }

  LogicalResult walk(Block &block) {
    for (Operation &op : block) {
      // A cast between static and dynamic shapes of one buffer.
      if (auto cast = dyn_cast<memref::CastOp>(op)) {
        if (names.count(cast.getSource())) {
          alias(cast.getResult(), cast.getSource());
          continue;
        }
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        if (failed(addIf(ifOp)))
          return failure();
        continue;
      }
      // A reshape of a whole row-major buffer (split-K views K as
      // [split, K / split]) is the same buffer to a kernel taking pointers.
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op)) {
        auto type = cast<MemRefType>(op.getResult(0).getType());
        if (names.count(op.getOperand(0)) && type.getLayout().isIdentity()) {
          alias(op.getResult(0), op.getOperand(0), /*withDims=*/false);
          addReshapeDims(&op);
          continue;
        }
      }
      // Tensor maps are encoded by the runtime when a launch passes them.
      if (isa<nvgpu::TmaCreateDescriptorOp>(op))
        continue;
      // Side-effect-free host ops (constants, poison) launch nothing.
      if (isa<func::ReturnOp, scf::YieldOp, memref::DeallocOp>(op) ||
          isMemoryEffectFree(&op))
        continue;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        bool inDispatch =
            alloc->getParentOfType<func::FuncOp>()->hasAttr(kDispatchAttr);
        if (failed(addAllocation(alloc, inDispatch)))
          return failure();
        continue;
      }
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (failed(addLaunch(launch)))
          return failure();
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return emitError(call.getLoc(),
                           "launch plan cannot follow this call");
        for (auto [operand, arg] :
             llvm::zip(call.getOperands(), callee.getArguments())) {
          if (operand.getType().isIndex()) {
            std::optional<std::string> e = hostExpr(operand);
            if (!e)
              return emitError(call.getLoc(), "a size passed to a dispatch "
                                              "must be a constant or M");
            exprs[arg] = *e;
            continue;
          }
          if (!names.count(operand))
            return emitError(call.getLoc(),
                             "call operand is not a known buffer");
          alias(arg, operand);
        }
        if (failed(walk(callee)))
          return failure();
        continue;
      }
      return emitError(op.getLoc(), "a launch plan cannot express '")
             << op.getName() << "' in host code";
    }
    return success();
  }

  LogicalResult addAllocation(memref::AllocOp alloc, bool inDispatch) {
    MemRefType type = alloc.getType();
    SmallVector<std::string> dynamicSizes;
    for (Value size : alloc.getDynamicSizes()) {
      std::optional<std::string> e = sizes ? hostExpr(size) : std::nullopt;
      if (!e)
        return emitError(alloc.getLoc(), "launch plans need allocations "
                                         "sized by constants or by M");
      dynamicSizes.push_back(*e);
    }
    std::string name;
    llvm::json::Object buffer;
    if (inDispatch) {
      name = "ws" + std::to_string(numScratch++);
      int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      // The shape lets the runtime encode tensor maps over it.
      buffer = shapedBuffer(name, type, dynamicSizes);
      buffer["kind"] = "scratch";
      if (type.hasStaticShape()) {
        buffer["bytes"] = type.getNumElements() * bytes;
      } else {
        std::string product = std::to_string(bytes);
        for (const llvm::json::Value &size : *buffer.getArray("shape"))
          product += " * " + (size.getAsString()
                                  ? "(" + size.getAsString()->str() + ")"
                                  : std::to_string(*size.getAsInteger()));
        buffer["bytes"] = product;
      }
      buffer["zero_init"] = false;
    } else {
      name = "t" + std::to_string(numTemps++);
      buffer = shapedBuffer(name, type, dynamicSizes);
      buffer["kind"] = "temp";
    }
    buffers.push_back(std::move(buffer));
    names[alloc.getResult()] = name;
    dimsOf[alloc.getResult()] = allDims(type, dynamicSizes);
    bufferRanks[name] = type.getRank();
    return success();
  }

  LogicalResult addLaunch(gpu::LaunchFuncOp launch) {
    auto constant = [&](Value v, int64_t &out) {
      APInt value;
      if (!matchPattern(v, m_ConstantInt(&value)))
        return false;
      out = value.getSExtValue();
      return true;
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    int64_t b[3];
    if (!constant(block.x, b[0]) || !constant(block.y, b[1]) ||
        !constant(block.z, b[2]))
      return emitError(launch.getLoc(), "launch plans need constant block "
                                        "sizes");
    // The grid may follow M (a version 2 plan).
    llvm::json::Array gridSizes;
    for (Value size : {grid.x, grid.y, grid.z}) {
      int64_t value;
      std::optional<std::string> e;
      if (constant(size, value))
        gridSizes.push_back(value);
      else if (sizes && (e = hostExpr(size)))
        gridSizes.push_back(*e);
      else
        return emitError(launch.getLoc(), "launch plans need grid sizes that "
                                          "are constants or follow M");
    }
    int64_t cluster[3] = {1, 1, 1};
    if (launch.hasClusterSize()) {
      gpu::KernelDim3 clusterSizes = launch.getClusterSizeOperandValues();
      if (!constant(clusterSizes.x, cluster[0]) ||
          !constant(clusterSizes.y, cluster[1]) ||
          !constant(clusterSizes.z, cluster[2]))
        return emitError(launch.getLoc(),
                         "launch plans need constant cluster sizes");
    }
    int64_t shared = 0;
    if (Value dyn = launch.getDynamicSharedMemorySize())
      if (!constant(dyn, shared))
        return emitError(launch.getLoc(), "dynamic shared memory size must be "
                                          "constant");
    llvm::json::Array args;
    for (Value operand : launch.getKernelOperands()) {
      if (isa<MemRefType>(operand.getType())) {
        auto it = names.find(operand);
        if (it == names.end())
          return emitError(launch.getLoc(),
                           "kernel operand is not a whole buffer "
                           "(a view?); launch plans pass buffers");
        args.push_back(llvm::json::Object{{"buffer", it->second}});
        continue;
      }
      if (auto tensorMap = tensorMapSource(operand)) {
        FailureOr<llvm::json::Object> arg = tensorMapArg(launch, tensorMap);
        if (failed(arg))
          return failure();
        args.push_back(std::move(*arg));
        continue;
      }
      Attribute attr;
      if (!matchPattern(operand, m_Constant(&attr))) {
        // A size read at run time (vibegemm-pass-dynamic-sizes-as-scalars).
        std::optional<std::string> e = sizes && operand.getType().isIntOrIndex()
                                           ? hostExpr(operand)
                                           : std::nullopt;
        if (!e)
          return emitError(launch.getLoc(), "scalar kernel operand is "
                                            "neither a constant nor M");
        bool is32 = operand.getType().isInteger(32);
        args.push_back(llvm::json::Object{{is32 ? "i32" : "i64", *e}});
        continue;
      }
      if (auto i = dyn_cast<IntegerAttr>(attr)) {
        bool is32 = i.getType().isInteger(32);
        args.push_back(llvm::json::Object{{is32 ? "i32" : "i64", i.getInt()}});
      } else if (auto f = dyn_cast<FloatAttr>(attr)) {
        args.push_back(
            llvm::json::Object{{"f32", f.getValue().convertToDouble()}});
      } else {
        return emitError(launch.getLoc(), "unsupported scalar kernel operand");
      }
    }
    llvm::json::Object entry{
        {"ptx", ptxFileFor(launch.getKernelModuleName().getValue())},
        {"kernel", launch.getKernelName().str()},
        {"grid", std::move(gridSizes)},
        {"block", llvm::json::Array{b[0], b[1], b[2]}},
        {"shared_bytes", shared},
        {"args", std::move(args)}};
    if (cluster[0] * cluster[1] * cluster[2] > 1)
      entry["cluster"] = llvm::json::Array{cluster[0], cluster[1], cluster[2]};
    if (launch->hasAttr("vibegemm.programmatic"))
      entry["programmatic"] = true;
    if (sizes && !(when == *sizes))
      entry["when"] = llvm::json::Object{
          {kSizeName, llvm::json::Object{{"min", when.lo}, {"max", when.hi}}}};
    launches.push_back(std::move(entry));
    return success();
  }

  /// The descriptor op behind a kernel's tensor-map pointer (outlining
  /// passes it through a cast to `!llvm.ptr`).
  static nvgpu::TmaCreateDescriptorOp tensorMapSource(Value operand) {
    if (auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>())
      if (cast->getNumOperands() == 1)
        operand = cast->getOperand(0);
    return operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  }

  /// A tensor map over a whole plan buffer: the runtime encodes it with
  /// cuTensorMapEncodeTiled for the buffer's address and passes a pointer
  /// to it. Box sizes are outermost first, like the buffer's shape.
  FailureOr<llvm::json::Object>
  tensorMapArg(gpu::LaunchFuncOp launch, nvgpu::TmaCreateDescriptorOp op) {
    Value source = op.getTensor();
    if (auto cast = source.getDefiningOp<memref::CastOp>())
      source = cast.getSource();
    auto it = names.find(source);
    auto type = dyn_cast<MemRefType>(source.getType());
    if (it == names.end() || !type || !type.getLayout().isIdentity())
      return emitError(launch.getLoc(), "a TMA descriptor must cover a "
                                        "whole row-major plan buffer");
    llvm::json::Array box;
    for (Value size : op.getBoxDimensions()) {
      APInt value;
      if (!matchPattern(size, m_ConstantInt(&value)))
        return emitError(op.getLoc(), "TMA box sizes must be constants");
      box.push_back(value.getSExtValue());
    }
    nvgpu::TensorMapDescriptorType desc = op.getTensorMap().getType();
    // A reshaped view (a batch folded into M: [B * S, K] of [B, S, K])
    // gives the runtime its own shape to encode.
    llvm::json::Array viewShape;
    if (type.getRank() != bufferRanks.lookup(it->second)) {
      auto dims = dimsOf.find(source);
      if (dims == dimsOf.end())
        return emitError(launch.getLoc(), "a TMA descriptor covers a view "
                                          "whose sizes the plan cannot name");
      for (const std::string &dim : dims->second) {
        int64_t value;
        if (llvm::to_integer(dim, value))
          viewShape.push_back(value);
        else
          viewShape.push_back(dim);
      }
    }
    llvm::json::Object map{
        {"buffer", it->second},
        {"box", std::move(box)},
        {"swizzle",
         nvgpu::stringifyTensorMapSwizzleKind(desc.getSwizzle()).str()},
        {"l2promo",
         nvgpu::stringifyTensorMapL2PromoKind(desc.getL2promo()).str()},
        {"oob", nvgpu::stringifyTensorMapOOBKind(desc.getOob()).str()},
        {"interleave",
         nvgpu::stringifyTensorMapInterleaveKind(desc.getInterleave()).str()}};
    if (!viewShape.empty())
      map["shape"] = std::move(viewShape);
    return llvm::json::Object{{"tensor_map", std::move(map)}};
  }

  StringRef target;
  const PtxFileNamer &ptxFileFor;
  /// The Ms the plan serves (version 2), and those of the launches being
  /// walked (narrower inside a host choice among buckets).
  std::optional<MRange> sizes;
  MRange when{1, kMaxDynamicM};
  llvm::DenseMap<Value, std::string> names;
  llvm::StringMap<int64_t> bufferRanks;
  /// Each buffer value's dimensions as plan expressions.
  llvm::DenseMap<Value, SmallVector<std::string>> dimsOf;
  /// The plan's named sizes, and the expression the host's choice among
  /// buckets compares (M, or B * S).
  SmallVector<std::string> sizeNames;
  std::string bucketKey;
  /// Host integers (a dispatch's M argument) as plan expressions.
  llvm::DenseMap<Value, std::string> exprs;
  llvm::json::Array buffers, launches;
  int numScratch = 0, numTemps = 0;
  std::string f32Precision; // "", "tf32" or "3xtf32"
};

} // namespace

FailureOr<llvm::json::Object>
vibegemm::buildLaunchPlan(func::FuncOp func, StringRef target,
                          const PtxFileNamer &ptxFileFor) {
  return PlanBuilder(target, ptxFileFor).build(func);
}
