//===- Ptxas.h - Check PTX with ptxas and read its resources ----*- C++ -*-===//
//
// Runs NVIDIA's ptxas on emitted PTX (no GPU needed) and parses the
// registers, spills, stack and shared memory it reports per kernel.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TARGET_PTXAS_H
#define VIBEGEMM_TARGET_PTXAS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm {

/// Resources ptxas reported for one kernel.
struct KernelResources {
  std::string kernel;
  int registers = 0;
  int64_t spillStoreBytes = 0, spillLoadBytes = 0;
  int64_t stackBytes = 0, sharedBytes = 0;
};

struct PtxasResult {
  bool accepted = false;
  std::string log; ///< ptxas' own output, for diagnostics.
  std::vector<KernelResources> kernels;
};

/// Finds ptxas: `hint` if given, else $CUDA_HOME/bin, /usr/local/cuda/bin,
/// then PATH.
std::optional<std::string> findPtxas(llvm::StringRef hint);

/// Assembles `ptx` for `arch` (e.g. "sm_90") with `-v` and parses the log.
PtxasResult runPtxas(llvm::StringRef ptxasPath, llvm::StringRef ptx,
                     llvm::StringRef arch);

/// Parses a `ptxas -v` log; exposed for unit tests.
std::vector<KernelResources> parsePtxasLog(llvm::StringRef log);

/// {"registers", "spill_bytes", "stack_bytes", "shared_bytes"} summed or
/// maxed over kernels, plus a per-kernel list.
llvm::json::Object resourcesToJson(const std::vector<KernelResources> &ks);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_PTXAS_H
