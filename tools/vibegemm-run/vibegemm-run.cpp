//===- vibegemm-run.cpp - Verify and time a launch plan on the GPU --------===//
//
// The user's command for artifacts plans: runs PLAN.json in a child process
// (itself, with --no-isolate), verifies it against an independent reference
// and times it. One line per launch, then a summary; --json prints the
// result object instead.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/Plan.h"
#include "vibegemm/Runtime/Isolation.h"
#include "vibegemm/Runtime/PlanRunner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir::vibegemm::runtime;
namespace cl = llvm::cl;
namespace json = llvm::json;

static cl::OptionCategory category("vibegemm-run options");
static cl::opt<std::string> planPath(cl::Positional, cl::desc("<plan.json>"),
                                     cl::cat(category));
static cl::opt<bool> printJson("json",
                               cl::desc("Print the result as one JSON object"),
                               cl::cat(category));
static cl::opt<std::string>
    compare("compare", cl::desc("Also time a library on the same GEMM "
                                "(only 'cublas')"),
            cl::value_desc("cublas"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(1), cl::cat(category));
static cl::opt<double>
    timeout("timeout",
            cl::desc("Seconds one GPU step may take before the run is a "
                     "timeout"),
            cl::init(60), cl::cat(category));
static cl::opt<double> sustainMs(
    "sustain-ms",
    cl::desc("GPU milliseconds of untimed back-to-back runs before the timed "
             "ones, so each side is timed at its sustained-load clock "
             "(0: time from whatever clock the GPU is at)"),
    cl::init(500), cl::cat(category));
static cl::opt<ReferenceMode> reference(
    "reference", cl::desc("What outputs are checked against"),
    cl::values(clEnumValN(ReferenceMode::Auto, "auto",
                          "cuBLAS for plain GEMMs, else the reference plan"),
               clEnumValN(ReferenceMode::Cublas, "cublas", "cuBLAS"),
               clEnumValN(ReferenceMode::Kernel, "kernel",
                          "the plan's reference_plan of trivial kernels"),
               clEnumValN(ReferenceMode::None, "none",
                          "nothing: only check outputs are finite")),
    cl::init(ReferenceMode::Auto), cl::cat(category));
static cl::opt<bool> verifyOnly("verify-only",
                                cl::desc("Verify without timing"),
                                cl::cat(category));
static cl::opt<bool> validateOnly(
    "validate-only",
    cl::desc("Check the plan (and its reference plan) against its PTX "
             "without a GPU: exit 0 when valid, 2 with the reason if not"),
    cl::cat(category));
static cl::opt<bool> probe("probe",
                           cl::desc("Say whether a GPU is usable (exit 0) or "
                                    "not (exit 3)"),
                           cl::cat(category));
static cl::opt<bool>
    listDevices("list-devices",
                cl::desc("One line per visible GPU, \"NAME (sm_XY)\", in "
                         "CUDA's order (exit 0), or why there is none "
                         "(exit 3)"),
                cl::cat(category));
static cl::opt<bool> noIsolate(
    "no-isolate",
    cl::desc("Run in this process instead of a child (a fault or hang then "
             "takes this process with it)"),
    cl::cat(category));
static cl::list<std::string>
    dims("dim",
         cl::desc("A run-time size of a version 2 plan, as M=37 (repeat for "
                  "each size)"),
         cl::value_desc("NAME=N"), cl::cat(category));
static cl::opt<std::string> sweep(
    "dims",
    cl::desc("Run the plan once for each value of one run-time size, each "
             "verified, as M=1,16,300 (exit: the worst run's)"),
    cl::value_desc("NAME=N,N,..."), cl::cat(category));
static cl::opt<std::string>
    resultFile("result-file",
               cl::desc("Write the result object to this file (child mode)"),
               cl::Hidden, cl::cat(category));

static std::string ms(const json::Value *v) {
  if (!v || !v->getAsNumber())
    return "-";
  return llvm::formatv("{0:f3} ms", *v->getAsNumber()).str();
}

/// One line per launch, then the summary line.
static void printHuman(const json::Object &r) {
  llvm::StringRef status = r.getString("status").value_or("?");
  std::string name = r.getString("dispatch")
                         ? r.getString("dispatch")->str()
                         : r.getString("function").value_or("plan").str();
  if (const json::Array *launches = r.getArray("launches"))
    for (auto [i, l] : llvm::enumerate(*launches)) {
      const json::Object *o = l.getAsObject();
      llvm::outs() << llvm::formatv("  launch {0}  {1,-28} {2}\n", i,
                                    o->getString("kernel").value_or(""),
                                    ms(o->get("median_ms")));
    }
  llvm::outs() << name << ": " << status;
  if (std::optional<double> t = r.getNumber("time_ms")) {
    llvm::outs() << llvm::formatv("  {0:f4} ms", *t);
    if (std::optional<double> tf = r.getNumber("tflops"))
      llvm::outs() << llvm::formatv("  {0:f1} TFLOP/s", *tf);
    if (std::optional<double> gb = r.getNumber("gbps"))
      llvm::outs() << llvm::formatv("  {0:f0} GB/s", *gb);
  }
  if (std::optional<llvm::StringRef> ref = r.getString("reference"))
    llvm::outs() << "  (reference: " << *ref << ")";
  if (const json::Object *c = r.getObject("cublas")) {
    if (std::optional<double> t = c->getNumber("time_ms")) {
      llvm::outs() << llvm::formatv("  cuBLAS {0:f4} ms {1:f1} TFLOP/s", *t,
                                    c->getNumber("tflops").value_or(0));
      if (std::optional<double> mine = r.getNumber("time_ms"))
        llvm::outs() << llvm::formatv(" (vibegemm at {0:f2}x cuBLAS speed)",
                                      *t / *mine);
    } else {
      llvm::outs() << "  cuBLAS: "
                   << c->getString("skipped").value_or("not run");
    }
  }
  llvm::outs() << "\n";
  llvm::StringRef diag = r.getString("diagnostic").value_or("");
  if (!diag.empty())
    llvm::outs() << "  " << diag << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "vibegemm-run: verify and time a vibegemm launch plan on the GPU\n");

  if (probe) {
    std::string description;
    bool ok = probeGpu(description);
    llvm::outs() << description << "\n";
    return ok ? 0 : 3;
  }
  if (listDevices) {
    std::vector<std::string> names;
    std::string whyNot;
    if (!listGpus(names, whyNot)) {
      llvm::outs() << whyNot << "\n";
      return 3;
    }
    for (const std::string &name : names)
      llvm::outs() << name << "\n";
    return 0;
  }
  if (planPath.empty()) {
    llvm::errs() << "vibegemm-run: no plan given (usage: vibegemm-run "
                    "PLAN.json)\n";
    return 2;
  }
  SizeBindings sizes;
  for (const std::string &dim : dims)
    if (llvm::Error err = parseSizeBinding(dim, sizes)) {
      llvm::errs() << "vibegemm-run: --dim: " << llvm::toString(std::move(err))
                   << "\n";
      return 2;
    }
  // One run per value of the swept size; none swept is one run.
  std::vector<SizeBindings> runs;
  if (sweep.empty()) {
    runs.push_back(sizes);
  } else {
    auto [name, list] = llvm::StringRef(sweep).split('=');
    llvm::SmallVector<llvm::StringRef> values;
    list.split(values, ',');
    for (llvm::StringRef value : values) {
      SizeBindings one = sizes;
      if (llvm::Error err = parseSizeBinding((name + "=" + value).str(), one)) {
        llvm::errs() << "vibegemm-run: --dims: "
                     << llvm::toString(std::move(err)) << "\n";
        return 2;
      }
      runs.push_back(std::move(one));
    }
  }
  if (validateOnly) {
    for (const SizeBindings &run : runs) {
      llvm::Expected<Plan> plan = loadPlan(planPath, run);
      if (plan && !plan->referencePlan.empty())
        if (llvm::Expected<Plan> ref = loadPlan(plan->referencePlan, run); !ref)
          plan = llvm::Expected<Plan>(ref.takeError());
      if (!plan) {
        llvm::errs() << "vibegemm-run: " << llvm::toString(plan.takeError())
                     << "\n";
        return 2;
      }
      llvm::outs() << planPath << ": valid";
      const char *separator = " at ";
      for (const auto &[name, value] : run) {
        llvm::outs() << separator << name << "=" << value;
        separator = " ";
      }
      llvm::outs() << " (" << plan->launches.size() << " launches, "
                   << plan->buffers.size() << " buffers)\n";
    }
    return 0;
  }
  if (!compare.empty() && compare != "cublas") {
    llvm::errs() << "vibegemm-run: --compare takes 'cublas', not '" << compare
                 << "'\n";
    return 2;
  }

  RunOptions options;
  options.seed = seed;
  options.reference = reference;
  options.time = !verifyOnly;
  options.compareCublas = compare == "cublas";
  options.timeoutSeconds = timeout;
  options.sustainMs = std::max(0.0, double(sustainMs));

  std::optional<std::string> self;
  if (!noIsolate) {
    self = findRunnerBeside(argv[0], reinterpret_cast<void *>(&printHuman));
    if (!self) {
      llvm::errs() << "vibegemm-run: cannot find its own executable\n";
      return 2;
    }
  }
  auto runOnce = [&](const SizeBindings &run) {
    options.sizes = run;
    // The child's own per-step timeout fires first; this backstop catches
    // a child stuck where it cannot poll (in the driver, say).
    return noIsolate ? runPlanInProcess(planPath, options)
                     : runPlanIsolated(*self, planPath, options,
                                       std::max(3 * timeout, timeout + 120));
  };
  json::Object result;
  int code = 0;
  llvm::StringRef status;
  if (sweep.empty()) {
    result = runOnce(runs.front());
    status = result.getString("status").value_or("fault");
    code = exitCodeForStatus(status);
  } else {
    // A sweep reports each run; its status is the worst run's.
    json::Array all;
    for (const SizeBindings &run : runs) {
      json::Object one = runOnce(run);
      int oneCode =
          exitCodeForStatus(one.getString("status").value_or("fault"));
      if (!printJson)
        printHuman(one);
      if (oneCode > code || all.empty()) {
        code = oneCode;
        result["status"] = one.getString("status").value_or("fault").str();
        result["diagnostic"] = one.getString("diagnostic").value_or("").str();
      }
      all.push_back(std::move(one));
    }
    result["tool"] = "vibegemm-run";
    result["plan"] = planPath;
    result["runs"] = std::move(all);
    status = *result.getString("status");
  }

  if (!resultFile.empty()) {
    if (llvm::Error err =
            llvm::writeToOutput(resultFile, [&](llvm::raw_ostream &os) {
              os << json::Value(json::Object(result));
              return llvm::Error::success();
            })) {
      llvm::errs() << "vibegemm-run: " << llvm::toString(std::move(err))
                   << "\n";
      return 2;
    }
  }
  if (printJson) {
    llvm::outs() << llvm::formatv("{0:2}", json::Value(std::move(result)))
                 << "\n";
  } else if (!sweep.empty()) {
    llvm::outs() << "sweep of " << runs.size() << " sizes: " << status << "\n";
  } else if (status == kStatusNoGpu || status == kStatusPlanError) {
    llvm::errs() << "vibegemm-run: "
                 << result.getString("diagnostic").value_or(status) << "\n";
  } else {
    printHuman(result);
  }
  llvm::outs().flush();
  // After a fault or timeout the context may be unusable; do not let
  // driver teardown hang or crash the exit.
  if (code == 1)
    std::_Exit(code);
  return code;
}
