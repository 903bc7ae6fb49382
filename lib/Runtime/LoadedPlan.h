//===- LoadedPlan.h - A launch plan ready to run on the device --*- C++ -*-===//
//
// Private to the runtime. A plan whose kernels are resolved and whose
// buffers are allocated: it encodes the plan's TMA descriptors for each
// buffer set, packs the launch arguments and queues the launches, in
// clusters where the plan says so.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_RUNTIME_LOADEDPLAN_H
#define VIBEGEMM_LIB_RUNTIME_LOADEDPLAN_H

#include "Device.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <tuple>
#include <vector>

namespace mlir::vibegemm::runtime::detail {

/// A plan ready to launch: kernels resolved, buffers allocated.
struct LoadedPlan {
  const Plan *plan = nullptr;
  std::vector<cuda::CUfunction> functions;
  std::map<std::string, GuardedBuffer> buffers;

  BufferSet set() const {
    BufferSet s;
    for (auto &[name, b] : buffers)
      s[name] = b.data;
    return s;
  }

  /// Device copies of the plan's TMA descriptors, by launch, argument and
  /// the address of the buffer they describe (one per buffer set).
  std::map<std::tuple<size_t, size_t, cuda::CUdeviceptr>, cuda::CUdeviceptr>
      tensorMaps;

  /// Encodes the tensor maps of `set`'s buffers into device memory; done
  /// before anything is timed or captured.
  Outcome encodeTensorMaps(Session &s, DeviceMemory &mem, const BufferSet &set);

  /// How many of launch `i`'s clusters the GPU holds at once (null where
  /// it does not run in clusters or the driver cannot say): a cluster's
  /// blocks share a GPC, so fewer blocks than SMs may be resident.
  llvm::json::Value maxActiveClusters(Session &s, size_t i) const;

  /// Queues the plan's launches; `events` (launches + 1, or null) brackets
  /// each launch for per-kernel times. A plan with programmatic launches
  /// takes two events, around the whole plan: an event between two
  /// launches would keep the second from overlapping the first.
  cuda::CUresult enqueue(Session &s, const BufferSet &set,
                         cuda::CUevent *events) const;

  /// Whether any launch overlaps the one before it (plan "programmatic").
  bool overlapsLaunches() const;
};

} // namespace mlir::vibegemm::runtime::detail

#endif // VIBEGEMM_LIB_RUNTIME_LOADEDPLAN_H
