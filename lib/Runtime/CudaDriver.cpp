//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Resolves driver entry points with dlsym, preferring the versioned names
// cuda.h maps the plain ones to (cuMemAlloc_v2, ...).
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace mlir::vibegemm::cuda;

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(": ") + text;
  return s;
}

namespace {

template <typename Fn>
bool resolve(void *lib, Fn &fn, std::initializer_list<const char *> names,
             std::string &missing) {
  for (const char *name : names)
    if (void *sym = dlsym(lib, name)) {
      fn = reinterpret_cast<Fn>(sym);
      return true;
    }
  missing = *names.begin();
  return false;
}

Driver driver;
const Driver *loaded = nullptr;
std::string loadError;

void loadOnce() {
  const char *override = std::getenv("VIBEGEMM_LIBCUDA");
  const char *path = override ? override : "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    loadError = std::string("no CUDA driver on this machine (cannot open ") +
                path + (err ? std::string(": ") + err : "") + ")";
    return;
  }
  std::string missing;
  Driver &d = driver;
  bool ok =
      resolve(lib, d.cuInit, {"cuInit"}, missing) &&
      resolve(lib, d.cuDriverGetVersion, {"cuDriverGetVersion"}, missing) &&
      resolve(lib, d.cuDeviceGetCount, {"cuDeviceGetCount"}, missing) &&
      resolve(lib, d.cuDeviceGet, {"cuDeviceGet"}, missing) &&
      resolve(lib, d.cuDeviceGetName, {"cuDeviceGetName"}, missing) &&
      resolve(lib, d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"},
              missing) &&
      resolve(lib, d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"},
              missing) &&
      resolve(lib, d.cuCtxSetCurrent, {"cuCtxSetCurrent"}, missing) &&
      resolve(lib, d.cuCtxSynchronize, {"cuCtxSynchronize"}, missing) &&
      resolve(lib, d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}, missing) &&
      resolve(lib, d.cuModuleGetFunction, {"cuModuleGetFunction"}, missing) &&
      resolve(lib, d.cuFuncSetAttribute, {"cuFuncSetAttribute"}, missing) &&
      resolve(lib, d.cuMemAlloc, {"cuMemAlloc_v2"}, missing) &&
      resolve(lib, d.cuMemFree, {"cuMemFree_v2"}, missing) &&
      resolve(lib, d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing) &&
      resolve(lib, d.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, missing) &&
      resolve(lib, d.cuMemsetD8, {"cuMemsetD8_v2"}, missing) &&
      resolve(lib, d.cuMemsetD8Async, {"cuMemsetD8Async"}, missing) &&
      resolve(lib, d.cuLaunchKernel, {"cuLaunchKernel"}, missing) &&
      resolve(lib, d.cuStreamCreate, {"cuStreamCreate"}, missing) &&
      resolve(lib, d.cuStreamSynchronize, {"cuStreamSynchronize"}, missing) &&
      resolve(lib, d.cuStreamQuery, {"cuStreamQuery"}, missing) &&
      resolve(lib, d.cuEventCreate, {"cuEventCreate"}, missing) &&
      resolve(lib, d.cuEventRecord, {"cuEventRecord"}, missing) &&
      resolve(lib, d.cuEventSynchronize, {"cuEventSynchronize"}, missing) &&
      resolve(lib, d.cuEventElapsedTime,
              {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing) &&
      resolve(lib, d.cuStreamBeginCapture,
              {"cuStreamBeginCapture_v2", "cuStreamBeginCapture"}, missing) &&
      resolve(lib, d.cuStreamEndCapture, {"cuStreamEndCapture"}, missing) &&
      resolve(lib, d.cuGraphInstantiateWithFlags,
              {"cuGraphInstantiateWithFlags"}, missing) &&
      resolve(lib, d.cuGraphLaunch, {"cuGraphLaunch"}, missing) &&
      resolve(lib, d.cuGraphExecDestroy, {"cuGraphExecDestroy"}, missing) &&
      resolve(lib, d.cuGraphDestroy, {"cuGraphDestroy"}, missing) &&
      resolve(lib, d.cuGetErrorName, {"cuGetErrorName"}, missing) &&
      resolve(lib, d.cuGetErrorString, {"cuGetErrorString"}, missing);
  std::string optional;
  resolve(lib, d.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"}, optional);
  resolve(lib, d.cuLaunchKernelEx, {"cuLaunchKernelEx"}, optional);
  resolve(lib, d.cuOccupancyMaxActiveClusters,
          {"cuOccupancyMaxActiveClusters"}, optional);
  if (!ok) {
    loadError = std::string(path) + " lacks " + missing +
                "; the driver is too old for this runtime";
    return;
  }
  loaded = &driver;
}

} // namespace

const Driver *mlir::vibegemm::cuda::loadDriver(std::string &whyNot) {
  static std::once_flag once;
  std::call_once(once, loadOnce);
  if (!loaded)
    whyNot = loadError;
  return loaded;
}
