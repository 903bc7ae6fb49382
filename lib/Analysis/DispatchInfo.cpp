//===- DispatchInfo.cpp - What a GEMM dispatch computes -------------------===//
//
// Reads a dispatch's GEMM problem and computes its signature key.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AsmState.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::vibegemm;

std::string vibegemm::typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string GemmProblem::dtypeString() const {
  return typeName(lhsType) + "x" + typeName(rhsType) + "->" + typeName(accType);
}

int64_t vibegemm::representativeM(int64_t lo, int64_t hi) {
  return std::max(lo, std::min<int64_t>(hi, 4096));
}

bool vibegemm::isGemmRoot(linalg::LinalgOp op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return true;
  return isa<linalg::GenericOp>(op) && op.getNumReductionLoops() == 1 &&
         linalg::isaContractionOpInterface(op);
}

bool vibegemm::isGenericDispatch(func::FuncOp dispatch) {
  return dispatch->hasAttr(kGenericDispatchAttr);
}

linalg::LinalgOp vibegemm::getOpWithRole(func::FuncOp dispatch,
                                         StringRef role) {
  linalg::LinalgOp found;
  dispatch.walk([&](linalg::LinalgOp op) {
    auto attr = op->getAttrOfType<StringAttr>(kRoleAttr);
    if (attr && attr.getValue() == role)
      found = op;
  });
  return found;
}

linalg::LinalgOp vibegemm::getDispatchRoot(func::FuncOp dispatch) {
  return getOpWithRole(dispatch, "root");
}

FailureOr<GemmProblem> vibegemm::getGemmProblem(func::FuncOp dispatch) {
  linalg::LinalgOp root = getDispatchRoot(dispatch);
  if (!root)
    return emitError(dispatch.getLoc(),
                     "dispatch has no op marked vibegemm.role = "
                     "\"root\"");
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(root);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return emitError(root->getLoc(),
                     "GEMM root must have one M, N and K dimension "
                     "and at most one batch dimension");
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  GemmProblem p;
  p.m = ranges[dims->m[0]];
  if (ShapedType::isDynamic(p.m)) {
    // Before vibegemm-bucket-dispatches gives it a bucket: every M.
    p.mRange = {1, std::numeric_limits<int64_t>::max()};
    if (auto range = dispatch->getAttrOfType<DenseI64ArrayAttr>(kMRangeAttr)) {
      ArrayRef<int64_t> bounds = range.asArrayRef();
      if (bounds.size() == 2)
        p.mRange = {bounds[0], bounds[1]};
    }
    p.m = representativeM(p.mRange->first, p.mRange->second);
  }
  p.n = ranges[dims->n[0]];
  p.k = ranges[dims->k[0]];
  if (!dims->batch.empty()) {
    p.batch = ranges[dims->batch[0]];
    p.batched = true;
  }
  p.lhsType = getElementTypeOrSelf(root.getDpsInputs()[0].getType());
  p.rhsType = getElementTypeOrSelf(root.getDpsInputs()[1].getType());
  p.accType = getElementTypeOrSelf(root.getDpsInits()[0].getType());
  p.resultType = getElementTypeOrSelf(dispatch.getFunctionType().getResult(0));
  // Operand layout: transposed when K is not the innermost dim of A, or when
  // K is the innermost dim of B (B stored [N, K]).
  AffineMap mapA = root.getIndexingMapsArray()[0];
  AffineMap mapB = root.getIndexingMapsArray()[1];
  p.transposeA = mapA.getDimPosition(mapA.getNumResults() - 1) != dims->k[0];
  p.transposeB = mapB.getDimPosition(mapB.getNumResults() - 1) == dims->k[0];
  if (auto fuse = dispatch->getAttrOfType<BoolAttr>(kFuseEpiloguesAttr))
    p.fuseEpilogues = fuse.getValue();
  if (auto precision = dispatch->getAttrOfType<StringAttr>(kF32PrecisionAttr))
    p.f32Precision = precision.str();
  llvm::SmallPtrSet<Value, 4> residuals;
  dispatch.walk([&](Operation *op) {
    auto role = op->getAttrOfType<StringAttr>(kRoleAttr);
    if (!role)
      return;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && role.getValue().starts_with("epilogue") &&
        generic.getNumDpsInits() == 1) {
      AffineMap outMap =
          generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
      // Values the chain computes come in registers; the dispatch's own
      // arguments are read from memory.
      for (OpOperand *input : generic.getDpsInputOperands())
        if (isa<BlockArgument>(input->get()) &&
            getElementTypeOrSelf(input->get().getType()) == p.resultType &&
            generic.getMatchingIndexingMap(input) == outMap)
          residuals.insert(input->get());
    }
    if (role.getValue().starts_with("epilogue") || role.getValue() == "softmax")
      ++p.epilogueOps;
    if (role.getValue() == "softmax")
      p.hasSoftmax = true;
    if (role.getValue().starts_with("epilogue"))
      op->walk([&](Operation *inner) {
        if (inner->getDialect() &&
            inner->getDialect()->getNamespace() == "math" &&
            !isa<math::AbsFOp, math::CopySignOp, math::FmaOp, math::CeilOp,
                 math::FloorOp, math::RoundOp, math::RoundEvenOp,
                 math::TruncOp>(inner))
          ++p.transcendentalOps;
      });
  });
  p.residualInputs = residuals.size();
  return p;
}

std::string vibegemm::computeSignature(func::FuncOp dispatch) {
  std::string key;
  llvm::raw_string_ostream os(key);
  if (isGenericDispatch(dispatch)) {
    os << "generic";
    for (Type type : dispatch.getFunctionType().getResults())
      if (auto shaped = dyn_cast<ShapedType>(type)) {
        os << "_";
        // A run-time size is `?` ("generic_?x1f32").
        llvm::interleave(
            shaped.getShape(), os,
            [&](int64_t size) {
              if (ShapedType::isDynamic(size))
                os << "?";
              else
                os << size;
            },
            "x");
        os << typeName(shaped.getElementType());
      }
  } else if (FailureOr<GemmProblem> p = getGemmProblem(dispatch);
             succeeded(p)) {
    os << (p->batch > 1 ? "bmm" : "mm");
    if (p->batch > 1)
      os << p->batch << "x";
    if (p->mRange)
      os << "M" << p->mRange->first << "-" << p->mRange->second;
    else
      os << p->m;
    os << "x" << p->n << "x" << p->k << "_" << typeName(p->lhsType) << "_"
       << typeName(p->accType) << "_" << (p->transposeA ? "T" : "N")
       << (p->transposeB ? "T" : "N") << "_e" << p->epilogueOps;
    if (!p->f32Precision.empty())
      os << "_" << p->f32Precision;
  }
  // The hash covers the body in generic form, independent of names and
  // locations, so identical dispatches in different models share a key.
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(dispatch->clone());
  copy->setSymName("dispatch");
  (*copy)->removeAttr(kSignatureAttr);
  std::string text;
  llvm::raw_string_ostream body(text);
  copy->print(body, OpPrintingFlags().printGenericOpForm());
  os << "_" << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return key;
}

bool vibegemm::isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}
