//===- SizeExprTest.cpp - Tests of plan size expressions ------------------===//

#include "vibegemm/Runtime/SizeExpr.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm::runtime;

namespace {

int64_t eval(llvm::StringRef text, const SizeBindings &sizes = {{"M", 37}}) {
  llvm::Expected<int64_t> v = evaluateSizeExpr(text, sizes);
  EXPECT_TRUE(static_cast<bool>(v)) << text.str();
  if (!v) {
    llvm::consumeError(v.takeError());
    return -1;
  }
  return *v;
}

std::string errorOf(llvm::StringRef text,
                    const SizeBindings &sizes = {{"M", 37}}) {
  llvm::Expected<int64_t> v = evaluateSizeExpr(text, sizes);
  EXPECT_FALSE(static_cast<bool>(v)) << "accepted: " << text.str();
  return v ? "" : llvm::toString(v.takeError());
}

} // namespace

TEST(SizeExprTest, EvaluatesArithmeticOverSizes) {
  EXPECT_EQ(eval("4096"), 4096);
  EXPECT_EQ(eval("M"), 37);
  EXPECT_EQ(eval("M * 4096 + 1"), 37 * 4096 + 1);
  EXPECT_EQ(eval("1 + M * 2"), 75); // precedence
  EXPECT_EQ(eval("(1 + M) * 2"), 76);
  EXPECT_EQ(eval("M / 8"), 4);
  EXPECT_EQ(eval("M % 8"), 5);
  EXPECT_EQ(eval("ceildiv(M, 8)"), 5);
  EXPECT_EQ(eval("ceildiv(M, 37)"), 1);
  EXPECT_EQ(eval("min(M, 16) + max(M, 64)"), 16 + 64);
  EXPECT_EQ(eval("M - 40"), -3);
  EXPECT_EQ(eval("-M + 40"), 3);
  EXPECT_EQ(eval("ceildiv(B * M, 128)", {{"B", 4}, {"M", 300}}), 10);
}

TEST(SizeExprTest, RefusesWithTheReasonAndColumn) {
  EXPECT_EQ(errorOf("M * N"), "in 'M * N' at column 5: unknown size 'N'");
  EXPECT_EQ(errorOf("M / 0"), "in 'M / 0' at column 6: division by zero");
  EXPECT_NE(errorOf("ceildiv(M, 0)").find("division by zero"),
            std::string::npos);
  EXPECT_NE(errorOf("(M - 40) / 2").find("needs non-negative operands"),
            std::string::npos);
  EXPECT_NE(errorOf("M +").find("expected a number, a size or '('"),
            std::string::npos);
  EXPECT_NE(errorOf("(M").find("expected ')'"), std::string::npos);
  EXPECT_NE(errorOf("M M").find("unexpected 'M'"), std::string::npos);
  EXPECT_NE(errorOf("min(M)").find("takes two arguments"), std::string::npos);
  EXPECT_NE(errorOf("99999999999999999999").find("overflows"),
            std::string::npos);
  EXPECT_NE(errorOf("M * 4611686018427387904").find("overflows 64 bits"),
            std::string::npos);
  EXPECT_NE(errorOf("").find("expected a number"), std::string::npos);
}

TEST(SizeExprTest, ParsesBindings) {
  SizeBindings sizes;
  EXPECT_FALSE(static_cast<bool>(parseSizeBinding("M=37", sizes)));
  EXPECT_FALSE(static_cast<bool>(parseSizeBinding("batch_2=4", sizes)));
  EXPECT_EQ(sizes.at("M"), 37);
  EXPECT_EQ(sizes.at("batch_2"), 4);
  for (const char *bad : {"M", "=3", "M=", "M=x", "3M=1", "M-1=2"}) {
    llvm::Error err = parseSizeBinding(bad, sizes);
    EXPECT_TRUE(static_cast<bool>(err)) << bad;
    llvm::consumeError(std::move(err));
  }
}
