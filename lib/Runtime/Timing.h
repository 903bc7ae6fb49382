//===- Timing.h - How the runtime times a plan or cuBLAS --------*- C++ -*-===//
//
// Private to the runtime. The timing protocol, the same for a plan and for
// cuBLAS (docs/runtime.md, "Timing"):
//
// - Warm-up: three runs, each waited for; the fastest is the estimate of
//   one run and chooses the method.
// - Short runs (under 15 us): a CUDA graph of many runs, replayed, rotating
//   over buffer sets so that L2 cannot hold them all.
// - Longer runs: untimed back-to-back runs (each after its L2 flush) for
//   `RunOptions::sustainMs` of GPU time, so that every side is timed at the
//   clock it holds under sustained load: the H200 boosts to 1980 MHz from
//   idle and settles near 1450 MHz at its 700 W limit within a few hundred
//   ms (cuBLAS 4096^3: 0.177 ms cold, 0.219 ms loaded;
//   docs/benchmarks/h200-2026-12-04-sustained/power-state.py). Then the
//   timed runs, each after an L2 flush, with events around each run and
//   each launch.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_RUNTIME_TIMING_H
#define VIBEGEMM_LIB_RUNTIME_TIMING_H

#include "Device.h"
#include "vibegemm/Runtime/PlanRunner.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime::detail {

/// The median of `v`; NaN when it is empty.
double median(std::vector<double> v);

/// Timing of one enqueue function, by the protocol above.
struct Timing {
  std::string method, l2, sustained;
  int runs = 0;
  double medianMs = NAN, minMs = NAN, maxMs = NAN;
  std::vector<double> launchMedianMs;
};

/// Times `enqueue` as the protocol above says. `enqueue(set, events)`
/// queues one run on buffer set `set`; `addSets(n)` makes n rotation sets
/// available and returns how many exist.
Outcome
timeRuns(Session &s, DeviceMemory &mem, const RunOptions &opts,
         size_t numLaunches, size_t workingSet,
         const std::function<cuda::CUresult(int, cuda::CUevent *)> &enqueue,
         const std::function<int(int)> &addSets, Timing &out);

} // namespace mlir::vibegemm::runtime::detail

#endif // VIBEGEMM_LIB_RUNTIME_TIMING_H
