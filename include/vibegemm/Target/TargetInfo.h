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
#include <string>

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
  double peakFp8Tflops; ///< Dense; 0 where the tensor cores take no FP8.
  double dramGBps;
  int maxRegistersPerThread;
  bool hasTma;      ///< cp.async.bulk.tensor and its mbarrier transactions.
  bool hasClusters; ///< Thread-block clusters and distributed shared memory.
  bool hasWgmma;    ///< wgmma.mma_async and setmaxnreg (sm_90a only).
};

/// The table entry for `name`, or null when vibegemm does not know it.
/// Its fields, not the name, say what a target can do.
const TargetInfo *lookupTarget(llvm::StringRef name);

/// Comma-separated names of the known targets, for diagnostics.
llvm::StringRef knownTargets();

/// The table entry for `name`; emits "unknown target" at `loc` and returns
/// null when there is none.
const TargetInfo *lookupTargetOrEmitError(llvm::StringRef name, Location loc);

/// `target` with the memory bandwidth of the GPU named `device` where the
/// name says it differs from the table's (which holds the H200's for sm_90
/// and the A100 80GB's for sm_80): an H100 SXM has 3.35 TB/s, an H100 NVL
/// 3.9, an H100 PCIe 2.0, an A100 40GB 1.555. So a run measured on one GPU
/// sets its rooflines and estimates by that GPU's memory floor.
TargetInfo forDevice(const TargetInfo &target, llvm::StringRef device);

/// `target=auto`: the target for the GPU a probe found, or for none.
struct TargetChoice {
  /// A known target name; empty when the GPU is older than every target.
  std::string target;
  /// Why, for the report and stderr: "NVIDIA H100 (compute capability
  /// 9.0): wgmma and TMA".
  std::string why;
};

/// Chooses the target for a GPU of compute capability `major`.`minor`
/// named `device`: sm_90a on 9.0, sm_80 on 8.x, portable sm_90 PTX on later
/// GPUs (the driver compiles it), none before 8.0.
TargetChoice chooseTargetForDevice(llvm::StringRef device, int major,
                                   int minor);

/// Chooses the target from `vibegemm-run --probe`'s answer ("NAME (sm_XY)"
/// when `found`, else why no GPU is usable): sm_90 when there is no GPU.
TargetChoice chooseTargetFromProbe(bool found, llvm::StringRef answer);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_TARGETINFO_H
