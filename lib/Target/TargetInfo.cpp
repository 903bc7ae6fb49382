//===- TargetInfo.cpp - Facts about the GPUs vibegemm targets -------------===//
//
// The per-target table. Sources: NVIDIA's H100/H200 and A100 datasheets and
// the CUDA programming guide's compute-capability tables.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/TargetInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::vibegemm;

static const TargetInfo kTargets[] = {
    // H200 SXM: 132 SMs, 227 KiB opt-in shared memory, 4.8 TB/s HBM3e.
    // Portable sm_90 PTX has TMA and clusters; wgmma needs sm_90a.
    {"sm_90", "sm_90", "+ptx80", 132, 1024, 48 * 1024, 227 * 1024, 65536, 67.0,
     989.0, 1979.0, 4800.0, 255, /*hasTma=*/true, /*hasClusters=*/true,
     /*hasWgmma=*/false},
    {"sm_90a", "sm_90a", "+ptx80", 132, 1024, 48 * 1024, 227 * 1024, 65536,
     67.0, 989.0, 1979.0, 4800.0, 255, /*hasTma=*/true, /*hasClusters=*/true,
     /*hasWgmma=*/true},
    // A100 SXM 80GB: 108 SMs, 163 KiB opt-in shared memory, no FP8.
    {"sm_80", "sm_80", "+ptx80", 108, 1024, 48 * 1024, 163 * 1024, 65536, 19.5,
     312.0, 0.0, 2039.0, 255, /*hasTma=*/false, /*hasClusters=*/false,
     /*hasWgmma=*/false},
};

const TargetInfo *mlir::vibegemm::lookupTarget(llvm::StringRef name) {
  const auto *it = llvm::find_if(
      kTargets, [&](const TargetInfo &t) { return t.name == name; });
  return it == std::end(kTargets) ? nullptr : it;
}

llvm::StringRef mlir::vibegemm::knownTargets() {
  return "sm_80, sm_90, sm_90a";
}

const TargetInfo *mlir::vibegemm::lookupTargetOrEmitError(llvm::StringRef name,
                                                          Location loc) {
  const TargetInfo *info = lookupTarget(name);
  if (!info)
    emitError(loc, "unknown target '")
        << name << "'; known: " << knownTargets();
  return info;
}

TargetInfo mlir::vibegemm::forDevice(const TargetInfo &target,
                                     llvm::StringRef device) {
  TargetInfo out = target;
  if (device.contains("H100"))
    out.dramGBps = device.contains("PCIe")  ? 2000.0
                   : device.contains("NVL") ? 3900.0
                                            : 3350.0;
  else if (device.contains("A100") && device.contains("40GB"))
    out.dramGBps = 1555.0;
  return out;
}

TargetChoice mlir::vibegemm::chooseTargetForDevice(llvm::StringRef device,
                                                   int major, int minor) {
  std::string gpu = (device + " (compute capability " + llvm::Twine(major) +
                     "." + llvm::Twine(minor) + ")")
                        .str();
  if (major == 9 && minor == 0)
    return {"sm_90a", gpu + ": wgmma and TMA"};
  if (major == 8)
    return {"sm_80", gpu + ": mma.sync and cp.async"};
  if (major > 9)
    return {"sm_90", gpu + ": portable sm_90 PTX, which the driver compiles "
                           "for this GPU (no wgmma)"};
  return {"", gpu + " is older than every target vibegemm knows (" +
                  knownTargets().str() + ")"};
}

TargetChoice mlir::vibegemm::chooseTargetFromProbe(bool found,
                                                   llvm::StringRef answer) {
  // vibegemm-run --probe prints "NAME (sm_<major><minor>)".
  size_t open = answer.rfind("(sm_");
  unsigned digits = 0;
  if (found && open != llvm::StringRef::npos &&
      !answer.substr(open + 4).take_until([](char c) { return c == ')'; })
           .getAsInteger(10, digits) &&
      digits >= 10)
    return chooseTargetForDevice(answer.take_front(open).rtrim(), digits / 10,
                                 digits % 10);
  return {"sm_90", "no GPU here (" + answer.str() +
                       "): portable sm_90 PTX, mma.sync"};
}
