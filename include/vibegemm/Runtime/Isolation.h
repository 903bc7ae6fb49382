//===- Isolation.h - Run a plan in a child process with a timeout -*- C++ -*-=//
//
// A kernel that faults can poison the CUDA context and one that spins never
// returns, so untrusted kernels run in a child `vibegemm-run` process. The
// caller gets a result object whatever happens to the child: its own, or
// one saying `timeout` or `fault` with what the child left on stderr.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_ISOLATION_H
#define VIBEGEMM_RUNTIME_ISOLATION_H

#include "vibegemm/Runtime/PlanRunner.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime {

/// Command-line flags that make a child vibegemm-run use `options`.
std::vector<std::string> runOptionsToArgs(const RunOptions &options);

/// Runs `planPath` with `runner` (a vibegemm-run executable) in a child
/// process, killed after `killAfterSeconds`. A `visibleDevice` becomes the
/// child's CUDA_VISIBLE_DEVICES, so it sees that GPU only.
llvm::json::Object runPlanIsolated(llvm::StringRef runner,
                                   llvm::StringRef planPath,
                                   const RunOptions &options,
                                   double killAfterSeconds,
                                   llvm::StringRef visibleDevice = "");

/// The executable `tool` (vibegemm-run, vibegemm-opt) installed beside the
/// file that holds `mainAddr` (the tool, or the plugin library, whose tools
/// are in ../bin), else beside the running program (`argv0` as for
/// getMainExecutable).
std::optional<std::string> findToolBeside(llvm::StringRef tool,
                                          const char *argv0, void *mainAddr);
inline std::optional<std::string> findRunnerBeside(const char *argv0,
                                                   void *mainAddr) {
  return findToolBeside("vibegemm-run", argv0, mainAddr);
}

/// Asks a child runner whether a GPU is usable (so the parent never
/// initialises CUDA itself); `description` gets its answer.
bool probeGpuIsolated(llvm::StringRef runner, std::string &description);

/// Asks a child runner which GPUs it sees (`vibegemm-run --list-devices`);
/// false with `whyNot` when none.
bool listGpusIsolated(llvm::StringRef runner, std::vector<std::string> &names,
                      std::string &whyNot);

/// This process's environment with CUDA_VISIBLE_DEVICES set to `device`.
std::vector<std::string> environmentWithDevice(llvm::StringRef device);

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_ISOLATION_H
