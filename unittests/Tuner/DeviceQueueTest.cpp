//===- DeviceQueueTest.cpp - Measurements never share a GPU ---------------===//
//
// The tuner's measurement queue with fake devices: jobs from many threads
// never overlap on one device, every device works, and the semaphore
// bounds how many run at once.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Tuner/DeviceQueue.h"

#include "gtest/gtest.h"

#include <atomic>
#include <map>
#include <thread>

using namespace mlir::vibegemm::tuner;
using namespace std::chrono_literals;

namespace {

std::vector<MeasureDevice> fakeDevices(unsigned n) {
  std::vector<MeasureDevice> devices;
  for (unsigned i = 0; i < n; ++i)
    devices.push_back({i, std::to_string(i), "Fake GPU (sm_90)"});
  return devices;
}

TEST(DeviceQueueTest, JobsNeverOverlapOnADevice) {
  DeviceQueue queue(fakeDevices(3));
  std::vector<std::atomic<int>> running(3);
  std::atomic<bool> overlapped{false};
  forEachConcurrently(24, [&](size_t) {
    queue.run<int>([&](const MeasureDevice &d) {
      if (running[d.ordinal].fetch_add(1) != 0)
        overlapped = true;
      std::this_thread::sleep_for(5ms);
      running[d.ordinal].fetch_sub(1);
      return 0;
    });
  });
  EXPECT_FALSE(overlapped);
  std::vector<DeviceUse> uses = queue.uses();
  ASSERT_EQ(uses.size(), 24u);
  // The recorded intervals of one device are disjoint too.
  std::map<unsigned, std::vector<DeviceUse>> byDevice;
  for (const DeviceUse &u : uses)
    byDevice[u.device].push_back(u);
  EXPECT_EQ(byDevice.size(), 3u) << "every device measured";
  for (auto &[device, list] : byDevice) {
    std::sort(list.begin(), list.end(),
              [](const DeviceUse &a, const DeviceUse &b) {
                return a.start < b.start;
              });
    for (size_t i = 1; i < list.size(); ++i)
      EXPECT_LE(list[i - 1].end, list[i].start) << "device " << device;
  }
}

TEST(DeviceQueueTest, DevicesWorkInParallel) {
  // Four 50 ms jobs on four devices take about 50 ms, not 200.
  DeviceQueue queue(fakeDevices(4));
  auto begin = std::chrono::steady_clock::now();
  forEachConcurrently(4, [&](size_t) {
    queue.run<int>([](const MeasureDevice &) {
      std::this_thread::sleep_for(50ms);
      return 0;
    });
  });
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 150ms);
}

TEST(DeviceQueueTest, OneDeviceSerialises) {
  DeviceQueue queue(fakeDevices(1));
  std::atomic<int> running{0}, most{0};
  forEachConcurrently(8, [&](size_t) {
    queue.run<int>([&](const MeasureDevice &d) {
      EXPECT_EQ(d.visibleId, "0");
      int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(2ms);
      --running;
      return 0;
    });
  });
  EXPECT_EQ(most.load(), 1);
}

TEST(DeviceQueueTest, SemaphoreBoundsHolders) {
  Semaphore jobs(2);
  std::atomic<int> running{0}, most{0};
  forEachConcurrently(10, [&](size_t) {
    Semaphore::Hold hold(jobs);
    int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(3ms);
    --running;
  });
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
}

} // namespace
