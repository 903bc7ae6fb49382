//===- PtxSignature.h - Kernel parameters read from PTX text ----*- C++ -*-===//
//
// A plan names each launch's kernel and the arguments it passes; the driver
// takes a raw array of argument pointers and trusts it. Reading the .entry
// declarations from the PTX lets the runtime refuse a plan whose arguments
// do not match its kernels before anything reaches the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_PTXSIGNATURE_H
#define VIBEGEMM_RUNTIME_PTXSIGNATURE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime {

struct PtxParam {
  std::string name;
  /// The element type as written: ".u64", ".f32", ".b8", ...
  std::string type;
  /// Bytes the parameter takes (arrays: element bytes times count).
  unsigned bytes = 0;
  bool isArray = false;
  bool isFloat() const { return llvm::StringRef(type).starts_with(".f"); }
};

struct PtxEntry {
  std::string name;
  std::vector<PtxParam> params;
};

/// The parameters of `.entry kernel` in `ptx`; std::nullopt when there is
/// no such entry. Sets `why` when the declaration cannot be read.
std::optional<PtxEntry> findPtxEntry(llvm::StringRef ptx,
                                     llvm::StringRef kernel, std::string &why);

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_PTXSIGNATURE_H
