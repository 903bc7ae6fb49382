//===- TargetInfo.h - Facts about the GPUs vibegemm targets -----*- C++ -*-===//
//
// A table per target, so schedulers and reports never hard-code hardware
// numbers. Peak rates are datasheet leads; measured ones live in docs/.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TARGET_TARGETINFO_H
#define VIBEGEMM_TARGET_TARGETINFO_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::vibegemm {

struct TargetInfo {
  llvm::StringLiteral name;     ///< What users pass: "sm_90".
  llvm::StringLiteral chip;     ///< What NVPTX and ptxas take: "sm_90a".
  llvm::StringLiteral features; ///< NVPTX features, e.g. "+ptx80".
  int smCount;
  int maxThreadsPerBlock;
  int64_t staticSharedBytesPerBlock; ///< Without the dynamic opt-in.
  int64_t maxSharedBytesPerBlock;    ///< With the dynamic opt-in.
  int registersPerSm;
  double peakFp32Tflops;
  double peakBf16Tflops;
  double dramGBps;
};

/// The table entry for `name`, or null when vibegemm does not know it.
const TargetInfo *lookupTarget(llvm::StringRef name);

/// Comma-separated names of the known targets, for diagnostics.
llvm::StringRef knownTargets();

/// The table entry for `name`; emits "unknown target" at `loc` and returns
/// null when there is none.
const TargetInfo *lookupTargetOrEmitError(llvm::StringRef name, Location loc);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_TARGETINFO_H
