//===- ApplyTunedSchedules.cpp - Attach stored winners to dispatches ------===//
//
// Looks each dispatch's signature up in a tuning spec file or the tuning
// database and attaches the stored schedule, after the same allowlist check
// an LLM's script gets: a spec file checked into a repository is input too.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"
#include "vibegemm/TuningDB/TuningDB.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMAPPLYTUNEDSCHEDULESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

constexpr llvm::StringLiteral kSourceAttr = "vibegemm.schedule_source";

class ApplyTunedSchedulesPass
    : public WithVibeGemmTransformOps<
          vibegemm::impl::VibeGemmApplyTunedSchedulesPassBase<
              ApplyTunedSchedulesPass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::StringSet<> allowlist = parseAllowlist(builtinAllowlistText());

    // Schedules by signature, from the spec file.
    std::map<std::string, std::string> fromSpecs;
    OwningOpRef<ModuleOp> specModule;
    if (!specs.empty()) {
      specModule = parseSourceFile<ModuleOp>(specs, ctx);
      if (!specModule) {
        emitError(module.getLoc(), "cannot read tuning spec file ") << specs;
        return signalPassFailure();
      }
      for (auto seq : specModule->getOps<transform::NamedSequenceOp>()) {
        auto sig = seq->getAttrOfType<StringAttr>("vibegemm.signature");
        auto tgt = seq->getAttrOfType<StringAttr>("vibegemm.target");
        if (!sig || (tgt && tgt.getValue() != target))
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        seq->print(os);
        fromSpecs[sig.str()] = text;
      }
    }
    // The environment's database only when no spec file was named.
    FailureOr<std::unique_ptr<TuningDB>> tuningDB =
        openTuningDB(tuningDBPath(db, /*useEnv=*/specs.empty()),
                     /*create=*/false, module.getLoc());
    if (failed(tuningDB))
      return signalPassFailure();

    for (func::FuncOp dispatch : getDispatches(module)) {
      auto signature = dispatch->getAttrOfType<StringAttr>(kSignatureAttr);
      if (!signature)
        continue;
      std::string script, source;
      if (auto it = fromSpecs.find(signature.str()); it != fromSpecs.end()) {
        script = it->second;
        source = "specs";
      } else if (*tuningDB) {
        if (std::optional<StoredWinner> w = (*tuningDB)->winner(
                signature.str(), target, LLVM_VERSION_STRING)) {
          script = w->script;
          source = "db";
        }
      }
      if (script.empty())
        continue;
      ScriptCheck check = checkScript(ctx, script, allowlist);
      if (check.status != "ok") {
        emitError(dispatch.getLoc(), "the stored schedule for ")
            << signature << " (from " << source
            << ") is refused: " << check.status << ": " << check.diagnostic;
        return signalPassFailure();
      }
      if (failed(attachSchedule(dispatch, script)))
        return signalPassFailure();
      dispatch->setAttr(kSourceAttr, StringAttr::get(ctx, source));
    }
  }
};

} // namespace
