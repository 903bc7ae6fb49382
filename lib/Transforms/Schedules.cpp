//===- Schedules.cpp - Attach and apply dispatch schedules ----------------===//
//
// Parsing schedule text into the schedules module and running it with the
// transform interpreter.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Schedules.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/TuningDB/TuningDB.h"

#include "vibegemm/Analysis/DispatchInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace mlir::vibegemm;

std::string vibegemm::tuningDBPath(StringRef option, bool useEnv) {
  if (!option.empty() || !useEnv)
    return option.str();
  return llvm::sys::Process::GetEnv("VIBEGEMM_DB").value_or("");
}

FailureOr<std::unique_ptr<TuningDB>>
vibegemm::openTuningDB(StringRef path, bool create, Location loc) {
  if (path.empty())
    return std::unique_ptr<TuningDB>();
  TuningDB::OpenOptions options;
  options.create = create;
  llvm::Expected<std::unique_ptr<TuningDB>> opened =
      TuningDB::open(path.str(), options);
  if (!opened)
    return emitError(loc) << llvm::toString(opened.takeError());
  return std::move(*opened);
}

ModuleOp vibegemm::getSchedulesModule(ModuleOp module, bool create) {
  for (auto nested : module.getOps<ModuleOp>())
    if (nested.getSymName() == kSchedulesModuleName)
      return nested;
  if (!create)
    return nullptr;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto schedules = ModuleOp::create(builder, module.getLoc(),
                                    StringRef(kSchedulesModuleName));
  schedules->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     builder.getUnitAttr());
  return schedules;
}

LogicalResult vibegemm::attachSchedule(func::FuncOp dispatch,
                                       StringRef sequenceText) {
  MLIRContext *ctx = dispatch.getContext();
  OwningOpRef<ModuleOp> parsed = parseScript(ctx, sequenceText);
  if (!parsed)
    return failure();
  auto sequences =
      llvm::to_vector(parsed->getOps<transform::NamedSequenceOp>());
  if (sequences.size() != 1)
    return emitError(dispatch.getLoc(), "a schedule must hold exactly one "
                                        "transform.named_sequence, found ")
           << sequences.size();
  attachSchedule(dispatch, sequences.front());
  return success();
}

void vibegemm::attachSchedule(func::FuncOp dispatch,
                              transform::NamedSequenceOp sequence) {
  sequence.setSymName(dispatch.getSymName());
  ModuleOp schedules = getSchedulesModule(dispatch->getParentOfType<ModuleOp>(),
                                          /*create=*/true);
  SymbolTable table(schedules);
  if (Operation *old = table.lookup(dispatch.getSymName()))
    old->erase();
  sequence->moveBefore(schedules.getBody(), schedules.getBody()->end());
  dispatch->setAttr(
      kScheduleAttr,
      FlatSymbolRefAttr::get(dispatch.getContext(), dispatch.getSymName()));
}

void vibegemm::readSizesFromArguments(func::FuncOp dispatch,
                                      ArrayRef<Value> sizes) {
  dispatch.walk([&](tensor::DimOp dim) {
    std::optional<int64_t> at = dim.getConstantIndex();
    auto type = cast<RankedTensorType>(dim.getSource().getType());
    if (!at || !type.isDynamicDim(*at) ||
        static_cast<size_t>(type.getNumDynamicDims()) != sizes.size())
      return;
    unsigned position =
        llvm::count_if(type.getShape().take_front(*at), ShapedType::isDynamic);
    dim.getResult().replaceAllUsesWith(sizes[position]);
    dim.erase();
  });
}

LogicalResult vibegemm::applySchedule(func::FuncOp dispatch,
                                      ModuleOp schedules,
                                      bool expensiveChecks) {
  auto ref = dispatch->getAttrOfType<FlatSymbolRefAttr>(kScheduleAttr);
  if (!ref)
    return emitError(dispatch.getLoc(),
                     "dispatch has no schedule; run "
                     "--vibegemm-builtin-schedule or llm-schedule "
                     "first");
  auto sequence =
      schedules
          ? SymbolTable::lookupNearestSymbolFrom<transform::NamedSequenceOp>(
                schedules, ref)
          : nullptr;
  if (!sequence)
    return emitError(dispatch.getLoc(), "schedule ") << ref << " not found";
  transform::TransformOptions options;
  options.enableExpensiveChecks(expensiveChecks);
  if (failed(transform::applyTransformNamedSequence(dispatch, sequence,
                                                    schedules, options)))
    return failure();
  // Tiling reads loop bounds from whichever operand has them, so a generic
  // dispatch's script may leave `tensor.dim` of an argument in its
  // bufferized body, which a host it is inlined into (the CPU check) cannot
  // bufferize: read the size arguments instead.
  if (dispatch->hasAttr(kMRangeAttr) && isGenericDispatch(dispatch)) {
    SmallVector<Value> sizes;
    for (BlockArgument arg : dispatch.getArguments())
      if (arg.getType().isIndex())
        sizes.push_back(arg);
    readSizesFromArguments(dispatch, sizes);
  }
  return success();
}

std::string vibegemm::printSchedule(func::FuncOp dispatch, ModuleOp schedules) {
  auto ref = dispatch->getAttrOfType<FlatSymbolRefAttr>(kScheduleAttr);
  if (!ref || !schedules)
    return "";
  Operation *sequence = SymbolTable::lookupSymbolIn(schedules, ref);
  if (!sequence)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  sequence->print(os);
  return text;
}

std::string vibegemm::wrapForReplay(StringRef sequenceText,
                                    StringRef sequenceName,
                                    StringRef dispatchName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Schedule for dispatch @" << dispatchName
     << ". Replay on a module holding the dispatch function with\n"
        "//   vibegemm-opt dispatches.mlir "
        "--transform-preload-library=transform-library-paths=THIS_FILE \\\n"
        "//     --transform-interpreter --vibegemm-lower-to-ptx\n"
        "module attributes {transform.with_named_sequence} {\n";
  os << sequenceText << "\n";
  os << llvm::formatv(
      "transform.named_sequence @__transform_main(%module: !transform.any_op "
      "{{transform.readonly}) {{\n"
      "  %func = transform.structured.match ops{{[\"func.func\"]} "
      "attributes{{sym_name = \"{0}\"} in %module : (!transform.any_op) -> "
      "!transform.any_op\n"
      "  transform.include @{1} failures(propagate) (%func) : "
      "(!transform.any_op) -> ()\n"
      "  transform.yield\n}\n}\n",
      dispatchName, sequenceName);
  return text;
}

void vibegemm::markScriptBufferizedBoundary(func::FuncOp dispatch) {
  dispatch.walk([](bufferization::ToTensorOp op) { op.setRestrict(true); });
  dispatch.walk([](bufferization::ToBufferOp op) { op.setReadOnly(true); });
}

SmallVector<func::FuncOp> vibegemm::getDispatches(ModuleOp module) {
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kDispatchAttr))
      dispatches.push_back(func);
  return dispatches;
}
