//===- DeviceQueue.h - Bounded concurrency for the tuner --------*- C++ -*-===//
//
// The tuner runs many candidates at once, but each resource has a bound:
// LLM requests in flight, candidates compiling (cores and memory), and
// timings, which must never overlap on one GPU. A Semaphore bounds the
// first two; a DeviceQueue hands each measurement a GPU of its own.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_DEVICEQUEUE_H
#define VIBEGEMM_TUNER_DEVICEQUEUE_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::vibegemm::tuner {

/// At most `count` holders at once; the rest wait.
class Semaphore {
public:
  explicit Semaphore(size_t count) : available(count ? count : 1) {}
  void acquire();
  void release();

  /// Holds one unit for its lifetime.
  class Hold {
  public:
    explicit Hold(Semaphore &s) : semaphore(s) { semaphore.acquire(); }
    ~Hold() { semaphore.release(); }
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;

  private:
    Semaphore &semaphore;
  };

private:
  std::mutex mutex;
  std::condition_variable freed;
  size_t available;
};

/// A GPU that measures candidates.
struct MeasureDevice {
  /// Its index among the GPUs this run uses (as `devices=` counts them).
  unsigned ordinal = 0;
  /// What a child's CUDA_VISIBLE_DEVICES must hold to see only this GPU:
  /// an entry of the parent's CUDA_VISIBLE_DEVICES, or the CUDA index.
  std::string visibleId;
  /// The driver's name and architecture, e.g. "NVIDIA H200 (sm_90)".
  std::string name;
};

/// One measurement as the queue saw it, for the report.
struct DeviceUse {
  unsigned device = 0;
  std::chrono::steady_clock::time_point start, end;
};

/// Serialises measurements per GPU: `run` waits for a free device and
/// runs the job on it, so no two jobs ever share a device, and every
/// device works while jobs wait.
class DeviceQueue {
public:
  explicit DeviceQueue(std::vector<MeasureDevice> devices);

  /// Runs `job` on the first free device (the lowest ordinal among the
  /// free ones) and returns its result.
  template <typename Result>
  Result run(llvm::function_ref<Result(const MeasureDevice &)> job) {
    unsigned device = take();
    Result result = job(devices[device]);
    give(device);
    return result;
  }

  const std::vector<MeasureDevice> &all() const { return devices; }
  /// Every job run so far, in the order they finished.
  std::vector<DeviceUse> uses() const;

private:
  unsigned take();
  void give(unsigned device);

  std::vector<MeasureDevice> devices;
  mutable std::mutex mutex;
  std::condition_variable freed;
  std::vector<bool> busy;
  std::vector<std::chrono::steady_clock::time_point> started;
  std::vector<DeviceUse> history;
};

/// Runs `body(i)` for i in [0, n) on threads of their own and waits for
/// all. The tuner's tasks mostly wait (on the LLM, a child process, a GPU),
/// so they get a thread each; the semaphores bound the work they do.
void forEachConcurrently(size_t n, llvm::function_ref<void(size_t)> body);

} // namespace mlir::vibegemm::tuner

#endif // VIBEGEMM_TUNER_DEVICEQUEUE_H
