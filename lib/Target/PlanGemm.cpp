//===- PlanGemm.cpp - What a launch plan says about a dispatch's GEMM -----===//
//
// The element type names, the GEMM description cuBLAS checks against, and
// the GEMM's M and FLOP count as plan values (expressions of M over a
// run-time M).
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/LaunchPlan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;

std::string vibegemm::planDtype(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isInteger(64) || type.isIndex())
    return "i64";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(8))
    return "i8";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3fn";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  return "unknown";
}

/// Buffer name of a dispatch argument in launch plans ("arg<i>").
static std::optional<std::string> planArgName(func::FuncOp dispatch, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &dispatch.front())
    return std::nullopt;
  return "arg" + std::to_string(arg.getArgNumber());
}

std::optional<llvm::json::Object> vibegemm::describeGemm(func::FuncOp dispatch,
                                                         const GemmProblem &p,
                                                         bool &plain) {
  plain = false;
  linalg::LinalgOp root = vibegemm::getDispatchRoot(dispatch);
  if (!root || root.getNumDpsInputs() != 2 || dispatch.getNumResults() != 1)
    return std::nullopt;
  std::optional<std::string> a =
      planArgName(dispatch, root.getDpsInputOperand(0)->get());
  std::optional<std::string> b =
      planArgName(dispatch, root.getDpsInputOperand(1)->get());
  auto result = dyn_cast<RankedTensorType>(dispatch.getResultTypes()[0]);
  if (!a || !b || !result)
    return std::nullopt;
  // A dynamic result has M rows whatever M is: only its other sizes count.
  int64_t staticElements = 1;
  for (int64_t size : result.getShape())
    if (!ShapedType::isDynamic(size))
      staticElements *= size;
  if (staticElements * (p.mRange ? p.m : 1) != p.batch * p.m * p.n)
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(dispatch.front().getTerminator());
  auto fill = root.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  plain = p.epilogueOps == 0 && !p.hasSoftmax &&
          ret.getOperand(0) == root->getResult(0) && fill &&
          (matchPattern(fill.value(), m_AnyZeroFloat()) ||
           matchPattern(fill.value(), m_Zero()));
  return llvm::json::Object{{"batch", p.batch},
                            {"m", gemmM(p)},
                            {"n", p.n},
                            {"k", p.k},
                            {"a", *a},
                            {"b", *b},
                            {"c", "res0"},
                            {"transpose_a", p.transposeA},
                            {"transpose_b", p.transposeB}};
}

llvm::json::Value vibegemm::gemmM(const GemmProblem &p) {
  if (p.mRange)
    return kPlanSizeName;
  return p.m;
}

llvm::json::Value vibegemm::planFlops(const GemmProblem &p) {
  if (!p.mRange)
    return p.flops();
  return llvm::formatv("2 * {0} * M * {1} * {2}", p.batch, p.n, p.k).str();
}
