//===- Device.h - The CUDA session and device memory of a run ---*- C++ -*-===//
//
// Private to the runtime. What one run of a plan holds on the device: the
// session (device, primary context, one stream), the memory it allocated,
// buffers with guard bytes on both sides, and the PTX modules it loaded.
// Every step returns an Outcome, a status of PlanRunner.h and its message.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_RUNTIME_DEVICE_H
#define VIBEGEMM_LIB_RUNTIME_DEVICE_H

#include "vibegemm/Runtime/CudaDriver.h"
#include "vibegemm/Runtime/Plan.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime::detail {

/// A status and its message; an empty status means success.
struct Outcome {
  std::string status, diagnostic;
  explicit operator bool() const { return status.empty(); }
  static Outcome ok() { return {}; }
};

inline Outcome fail(const char *status, std::string diagnostic) {
  return Outcome{status, std::move(diagnostic)};
}

/// The device, its primary context and one stream.
struct Session {
  const cuda::Driver *d = nullptr;
  cuda::CUdevice device = 0;
  cuda::CUcontext context = nullptr;
  cuda::CUstream stream = nullptr;
  int l2Bytes = 0, smCount = 0, ccMajor = 0, ccMinor = 0, driverVersion = 0;
  std::string name;
  double timeoutSeconds = 60;

  /// The L2 flush's read kernel, loaded on first use; null where the
  /// driver rejects it. Defined in Timing.cpp, beside its PTX.
  cuda::CUfunction l2ReadKernel();

  Outcome init();

  /// Waits for the stream, polling so a kernel that never ends is reported
  /// as a timeout instead of hanging the runner.
  Outcome wait(const std::string &what);

private:
  cuda::CUfunction l2Read = nullptr;
  bool l2ReadTried = false;
};

/// Device memory freed when the run ends (best effort after a fault).
class DeviceMemory {
public:
  explicit DeviceMemory(Session &s) : s(s) {}
  ~DeviceMemory();
  /// After a fault or a kernel that never ends, freeing could block on the
  /// stuck kernel; the process exit reclaims the memory instead.
  void abandon() { abandoned = true; }
  Outcome allocate(size_t bytes, cuda::CUdeviceptr &out,
                   const std::string &what);

private:
  Session &s;
  std::vector<cuda::CUdeviceptr> owned;
  bool abandoned = false;
};

/// A buffer with `guard` bytes of kGuardByte on both sides of its data.
struct GuardedBuffer {
  const PlanBuffer *spec = nullptr;
  cuda::CUdeviceptr base = 0, data = 0;
  size_t guard = 0;
  size_t total() const { return guard + spec->bytes + guard; }
};

/// One copy of every buffer of a plan, by name.
using BufferSet = std::map<std::string, cuda::CUdeviceptr>;

/// PTX modules by path, loaded once with the JIT's logs captured.
class ModuleCache {
public:
  explicit ModuleCache(Session &s) : s(s) {}
  Outcome function(const PlanLaunch &launch, cuda::CUfunction &out);
  std::string jitInfo;

private:
  Session &s;
  std::map<std::string, cuda::CUmodule> modules;
};

} // namespace mlir::vibegemm::runtime::detail

#endif // VIBEGEMM_LIB_RUNTIME_DEVICE_H
