//===- Device.cpp - The CUDA session and device memory of a run -----------===//
//
// Opening the device through the dlopen'ed driver, waiting on the stream
// with a deadline, owning device allocations, and loading PTX modules with
// the JIT's error and info logs captured.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "vibegemm/Runtime/PlanRunner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <thread>

using namespace mlir::vibegemm::cuda;

namespace mlir::vibegemm::runtime::detail {

Outcome Session::init() {
  std::string why;
  d = loadDriver(why);
  if (!d)
    return fail(kStatusNoGpu, why);
  if (CUresult r = d->cuInit(0))
    return fail(kStatusNoGpu, "cuInit failed: " + d->describe(r) +
                                  " (no usable GPU on this machine)");
  int count = 0;
  if (d->cuDeviceGetCount(&count) || count == 0)
    return fail(kStatusNoGpu, "the CUDA driver sees no GPU");
  char buf[256] = {0};
  if (CUresult r = d->cuDeviceGet(&device, 0))
    return fail(kStatusNoGpu, "cuDeviceGet: " + d->describe(r));
  d->cuDeviceGetName(buf, sizeof(buf) - 1, device);
  name = buf;
  d->cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  d->cuDeviceGetAttribute(&smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          device);
  d->cuDeviceGetAttribute(&ccMajor,
                          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  d->cuDeviceGetAttribute(&ccMinor,
                          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  d->cuDriverGetVersion(&driverVersion);
  if (CUresult r = d->cuDevicePrimaryCtxRetain(&context, device))
    return fail(kStatusNoGpu, "cannot create a context: " + d->describe(r));
  d->cuCtxSetCurrent(context);
  // A blocking stream: it waits for the synchronous copies and memsets,
  // which the driver may still be running on the legacy stream when they
  // return (device memsets, pageable host-to-device copies).
  if (CUresult r = d->cuStreamCreate(&stream, 0))
    return fail(kStatusNoGpu, "cuStreamCreate: " + d->describe(r));
  return Outcome::ok();
}

Outcome Session::wait(const std::string &what) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    CUresult r = d->cuStreamQuery(stream);
    if (r == CUDA_SUCCESS)
      return Outcome::ok();
    if (r != CUDA_ERROR_NOT_READY)
      return fail(kStatusFault, what + ": " + d->describe(r));
    if (std::chrono::steady_clock::now() > deadline)
      return fail(kStatusTimeout,
                  llvm::formatv("{0} did not finish within {1} s", what,
                                timeoutSeconds));
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

DeviceMemory::~DeviceMemory() {
  if (!abandoned)
    for (CUdeviceptr p : owned)
      s.d->cuMemFree(p);
}

Outcome DeviceMemory::allocate(size_t bytes, CUdeviceptr &out,
                               const std::string &what) {
  if (CUresult r = s.d->cuMemAlloc(&out, std::max<size_t>(bytes, 1)))
    return fail(kStatusLoadError,
                llvm::formatv("cannot allocate {0} bytes for {1}: {2}", bytes,
                              what, s.d->describe(r)));
  owned.push_back(out);
  return Outcome::ok();
}

Outcome ModuleCache::function(const PlanLaunch &launch, CUfunction &out) {
  CUmodule module = nullptr;
  auto it = modules.find(launch.ptxPath);
  if (it != modules.end()) {
    module = it->second;
  } else {
    auto file = llvm::MemoryBuffer::getFile(launch.ptxPath);
    if (!file)
      return fail(kStatusLoadError, "cannot read " + launch.ptxPath);
    std::string ptx = (*file)->getBuffer().str();
    std::vector<char> errorLog(16384, 0), infoLog(16384, 0);
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                     CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {
        errorLog.data(), reinterpret_cast<void *>(errorLog.size() - 1),
        infoLog.data(), reinterpret_cast<void *>(infoLog.size() - 1)};
    if (CUresult r =
            s.d->cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values))
      return fail(kStatusLoadError,
                  "the driver's JIT rejected " + launch.ptxPath + ": " +
                      s.d->describe(r) + "\n" + errorLog.data());
    modules[launch.ptxPath] = module;
    if (infoLog[0])
      jitInfo += infoLog.data();
  }
  if (CUresult r =
          s.d->cuModuleGetFunction(&out, module, launch.kernel.c_str()))
    return fail(kStatusLoadError, "kernel '" + launch.kernel + "' not in " +
                                      launch.ptxPath + ": " + s.d->describe(r));
  if (launch.clustered() && !s.d->cuLaunchKernelEx)
    return fail(kStatusLoadError,
                "kernel '" + launch.kernel +
                    "' runs in clusters, and the CUDA driver has no "
                    "cuLaunchKernelEx (CUDA 12 or later)");
  if (launch.sharedBytes > 48 * 1024)
    if (CUresult r = s.d->cuFuncSetAttribute(
            out, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            launch.sharedBytes))
      return fail(kStatusLoadError,
                  "kernel '" + launch.kernel + "' cannot get " +
                      std::to_string(launch.sharedBytes) +
                      " bytes of shared memory: " + s.d->describe(r));
  return Outcome::ok();
}

} // namespace mlir::vibegemm::runtime::detail
