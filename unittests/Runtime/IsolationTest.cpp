//===- IsolationTest.cpp - The child run gets the parent's options --------===//

#include "vibegemm/Runtime/Isolation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>

using namespace mlir::vibegemm::runtime;

namespace {

bool has(const std::vector<std::string> &args, const std::string &arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

/// The number after `--name=`, or -1 when no argument names it.
double number(const std::vector<std::string> &args, const std::string &name) {
  std::string prefix = "--" + name + "=";
  for (const std::string &arg : args)
    if (arg.rfind(prefix, 0) == 0)
      return std::stod(arg.substr(prefix.size()));
  return -1;
}

TEST(Isolation, ChildArgumentsCarryEveryTimingOption) {
  RunOptions o;
  o.seed = 7;
  o.reference = ReferenceMode::Kernel;
  o.time = false;
  o.compareCublas = true;
  o.timeoutSeconds = 30;
  o.sustainMs = 250;
  std::vector<std::string> args = runOptionsToArgs(o);
  EXPECT_TRUE(has(args, "--seed=7"));
  EXPECT_TRUE(has(args, "--reference=kernel"));
  EXPECT_TRUE(has(args, "--verify-only"));
  EXPECT_TRUE(has(args, "--compare=cublas"));
  EXPECT_EQ(number(args, "timeout"), 30);
  EXPECT_EQ(number(args, "sustain-ms"), 250);
  o.sustainMs = 0;
  EXPECT_EQ(number(runOptionsToArgs(o), "sustain-ms"), 0);
}

} // namespace
