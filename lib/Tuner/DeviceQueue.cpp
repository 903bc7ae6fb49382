//===- DeviceQueue.cpp - Bounded concurrency for the tuner ----------------===//

#include "vibegemm/Tuner/DeviceQueue.h"

#include <cassert>
#include <thread>

using namespace mlir::vibegemm::tuner;

void Semaphore::acquire() {
  std::unique_lock<std::mutex> lock(mutex);
  freed.wait(lock, [&] { return available > 0; });
  --available;
}

void Semaphore::release() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++available;
  }
  freed.notify_one();
}

DeviceQueue::DeviceQueue(std::vector<MeasureDevice> devices)
    : devices(std::move(devices)), busy(this->devices.size(), false),
      started(this->devices.size()) {
  assert(!this->devices.empty() && "a queue needs a device");
}

unsigned DeviceQueue::take() {
  std::unique_lock<std::mutex> lock(mutex);
  unsigned device = 0;
  freed.wait(lock, [&] {
    for (unsigned i = 0; i < busy.size(); ++i)
      if (!busy[i]) {
        device = i;
        return true;
      }
    return false;
  });
  busy[device] = true;
  started[device] = std::chrono::steady_clock::now();
  return device;
}

void DeviceQueue::give(unsigned device) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    busy[device] = false;
    history.push_back(
        {device, started[device], std::chrono::steady_clock::now()});
  }
  freed.notify_one();
}

std::vector<DeviceUse> DeviceQueue::uses() const {
  std::lock_guard<std::mutex> lock(mutex);
  return history;
}

void mlir::vibegemm::tuner::forEachConcurrently(
    size_t n, llvm::function_ref<void(size_t)> body) {
  if (n == 1) {
    body(0);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i)
    threads.emplace_back([&body, i] { body(i); });
  for (std::thread &t : threads)
    t.join();
}
