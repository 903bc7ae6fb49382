//===- LoadedPlan.cpp - A launch plan ready to run on the device ----------===//
//
// Tensor-map encoding (one device copy per launch, argument and buffer
// set), argument packing (each argument in an 8-byte slot, in the plan's
// order), and launches: plain, or through cuLaunchKernelEx in clusters or
// with programmatic stream serialization.
//
//===----------------------------------------------------------------------===//

#include "LoadedPlan.h"
#include "vibegemm/Runtime/PlanRunner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir::vibegemm::cuda;
namespace json = llvm::json;

namespace mlir::vibegemm::runtime::detail {

namespace {

/// cuLaunchKernelEx's configuration of `launch` over `attrs`: its cluster
/// shape where it runs in clusters, programmatic stream serialization
/// where `programmatic`.
CUlaunchConfig launchConfig(Session &s, const PlanLaunch &launch,
                            bool programmatic, CUlaunchAttribute (&attrs)[2]) {
  unsigned count = 0;
  if (launch.clustered()) {
    attrs[count] = CUlaunchAttribute{};
    attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[count++].value.clusterDim = {launch.cluster[0], launch.cluster[1],
                                       launch.cluster[2]};
  }
  if (programmatic) {
    attrs[count] = CUlaunchAttribute{};
    attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  return CUlaunchConfig{launch.grid[0],
                        launch.grid[1],
                        launch.grid[2],
                        launch.block[0],
                        launch.block[1],
                        launch.block[2],
                        launch.sharedBytes,
                        s.stream,
                        attrs,
                        count};
}

/// One kernel launch, in clusters where the plan says so (its PTX asks
/// for the same shape with .reqnctapercluster, as Triton's num_ctas
/// kernels do, which Triton launches the same way), and with programmatic
/// stream serialization where its kernel waits for the grid before it and
/// `mayOverlap` (not the plan's first launch; a driver without
/// cuLaunchKernelEx launches it plainly: the wait then does nothing).
CUresult launchOne(Session &s, CUfunction function, const PlanLaunch &launch,
                   void **params, bool mayOverlap) {
  bool programmatic =
      mayOverlap && launch.programmatic && s.d->cuLaunchKernelEx;
  if (!launch.clustered() && !programmatic)
    return s.d->cuLaunchKernel(function, launch.grid[0], launch.grid[1],
                               launch.grid[2], launch.block[0], launch.block[1],
                               launch.block[2], launch.sharedBytes, s.stream,
                               params, nullptr);
  CUlaunchAttribute attrs[2];
  CUlaunchConfig config = launchConfig(s, launch, programmatic, attrs);
  return s.d->cuLaunchKernelEx(&config, function, params, nullptr);
}

} // namespace

Outcome LoadedPlan::encodeTensorMaps(Session &s, DeviceMemory &mem,
                                     const BufferSet &set) {
  for (auto [i, launch] : llvm::enumerate(plan->launches))
    for (auto [j, arg] : llvm::enumerate(launch.args)) {
      if (arg.kind != PlanArg::Kind::TensorMap)
        continue;
      CUdeviceptr base = set.at(arg.buffer);
      auto key = std::make_tuple(i, j, base);
      if (tensorMaps.count(key))
        continue;
      if (!s.d->cuTensorMapEncodeTiled)
        return fail(kStatusLoadError,
                    "the CUDA driver has no cuTensorMapEncodeTiled (CUDA "
                    "12 or newer is needed for TMA kernels)");
      const PlanBuffer &buffer = *plan->find(arg.buffer);
      static const std::map<DType, int> kDataType = {
          {DType::I8, 0},   {DType::I32, 3},      {DType::I64, 5},
          {DType::F16, 6},  {DType::F32, 7},      {DType::F64, 8},
          {DType::BF16, 9}, {DType::F8E4M3FN, 0}, {DType::F8E5M2, 0}};
      // The driver takes dimensions innermost first, and the byte
      // strides of all but the innermost.
      const std::vector<int64_t> &shape =
          arg.tensorMap.shape.empty() ? buffer.shape : arg.tensorMap.shape;
      size_t rank = shape.size();
      std::vector<unsigned long long> dims, strides;
      std::vector<unsigned> box, elementStrides(rank, 1);
      unsigned long long stride = dtypeBytes(buffer.dtype);
      for (size_t d = 0; d < rank; ++d) {
        size_t dim = rank - 1 - d;
        dims.push_back(shape[dim]);
        box.push_back(static_cast<unsigned>(arg.tensorMap.box[dim]));
        if (d > 0)
          strides.push_back(stride);
        stride *= shape[dim];
      }
      cuda::CUtensorMap map;
      const PlanTensorMap &t = arg.tensorMap;
      if (CUresult r = s.d->cuTensorMapEncodeTiled(
              &map, kDataType.at(buffer.dtype), rank,
              reinterpret_cast<void *>(base), dims.data(), strides.data(),
              box.data(), elementStrides.data(), t.interleave, t.swizzle,
              t.l2Promotion, t.oobFill))
        return fail(kStatusLoadError,
                    llvm::formatv("cuTensorMapEncodeTiled refused the "
                                  "descriptor of {0} for kernel '{1}': {2}",
                                  arg.buffer, launch.kernel, s.d->describe(r)));
      CUdeviceptr device = 0;
      if (Outcome o = mem.allocate(sizeof(map), device, "a TMA descriptor"); !o)
        return o;
      if (CUresult r = s.d->cuMemcpyHtoD(device, &map, sizeof(map)))
        return fail(kStatusLoadError,
                    "copying a TMA descriptor: " + s.d->describe(r));
      tensorMaps[key] = device;
    }
  return Outcome::ok();
}

json::Value LoadedPlan::maxActiveClusters(Session &s, size_t i) const {
  const PlanLaunch &launch = plan->launches[i];
  if (!launch.clustered() || !s.d->cuOccupancyMaxActiveClusters)
    return nullptr;
  CUlaunchAttribute attrs[2];
  CUlaunchConfig config =
      launchConfig(s, launch, /*programmatic=*/false, attrs);
  int count = 0;
  if (s.d->cuOccupancyMaxActiveClusters(&count, functions[i], &config))
    return nullptr;
  return count;
}

bool LoadedPlan::overlapsLaunches() const {
  return llvm::any_of(plan->launches,
                      [](const PlanLaunch &l) { return l.programmatic; });
}

CUresult LoadedPlan::enqueue(Session &s, const BufferSet &set,
                             CUevent *events) const {
  bool overlaps = overlapsLaunches();
  for (const PlanBuffer &b : plan->buffers)
    if (b.kind == PlanBuffer::Kind::Scratch && b.zeroInit)
      if (CUresult r =
              s.d->cuMemsetD8Async(set.at(b.name), 0, b.bytes, s.stream))
        return r;
  for (auto [i, launch] : llvm::enumerate(plan->launches)) {
    std::vector<uint64_t> slots(launch.args.size());
    std::vector<void *> params(launch.args.size());
    for (auto [j, arg] : llvm::enumerate(launch.args)) {
      switch (arg.kind) {
      case PlanArg::Kind::Buffer:
        slots[j] = set.at(arg.buffer);
        break;
      case PlanArg::Kind::I64:
        slots[j] = static_cast<uint64_t>(arg.intValue);
        break;
      case PlanArg::Kind::I32: {
        int32_t v = static_cast<int32_t>(arg.intValue);
        std::memcpy(&slots[j], &v, 4);
        break;
      }
      case PlanArg::Kind::F32: {
        float v = static_cast<float>(arg.floatValue);
        std::memcpy(&slots[j], &v, 4);
        break;
      }
      case PlanArg::Kind::TensorMap: {
        auto it = tensorMaps.find(std::make_tuple(i, j, set.at(arg.buffer)));
        if (it == tensorMaps.end())
          return CUDA_ERROR_INVALID_VALUE;
        slots[j] = it->second;
        break;
      }
      }
      params[j] = &slots[j];
    }
    if (events && (i == 0 || !overlaps))
      s.d->cuEventRecord(events[i], s.stream);
    // The plan's first launch follows work outside the plan (an L2 flush,
    // the previous run in a CUDA graph): it never overlaps it, so a
    // plan's time stays its own.
    if (CUresult r = launchOne(s, functions[i], launch, params.data(),
                               /*mayOverlap=*/i > 0))
      return r;
  }
  if (events)
    s.d->cuEventRecord(events[overlaps ? 1 : plan->launches.size()], s.stream);
  return CUDA_SUCCESS;
}

} // namespace mlir::vibegemm::runtime::detail
