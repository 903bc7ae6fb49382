//===- HostCheckTest.cpp - Tests of the runtime's host-side checks --------===//

#include "vibegemm/Runtime/HostCheck.h"
#include "vibegemm/Runtime/Plan.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::vibegemm::runtime;

TEST(HostCheck, HalfAndBf16RoundTripAndRoundToNearestEven) {
  for (float v : {0.0f, 1.0f, -2.5f, 0.125f, 65504.0f, 6.1035156e-05f})
    EXPECT_EQ(halfToFloat(floatToHalf(v)), v) << v;
  // 1 + 2^-11 lies halfway between two halves: ties go to the even one.
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 1.0f / 2048)), 1.0f);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  // Subnormal halves survive.
  EXPECT_EQ(halfToFloat(floatToHalf(5.9604645e-08f)), 5.9604645e-08f);
  for (float v : {1.0f, -3.0f, 0.15625f})
    EXPECT_EQ(bf16ToFloat(floatToBf16(v)), v);
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
}

TEST(HostCheck, Fp8DecodesEveryCodeAndRoundsToNearestEven) {
  // Values from the OCP FP8 specification's tables.
  EXPECT_EQ(f8E4M3FNToFloat(0x38), 1.0f);
  EXPECT_EQ(f8E4M3FNToFloat(0x7e), 448.0f);
  EXPECT_EQ(f8E4M3FNToFloat(0x08), 0x1p-6f); // smallest normal
  EXPECT_EQ(f8E4M3FNToFloat(0x01), 0x1p-9f); // smallest subnormal
  EXPECT_EQ(f8E4M3FNToFloat(0xb8), -1.0f);
  EXPECT_TRUE(std::isnan(f8E4M3FNToFloat(0x7f)));
  EXPECT_TRUE(std::isnan(f8E4M3FNToFloat(0xff)));
  EXPECT_EQ(f8E5M2ToFloat(0x3c), 1.0f);
  EXPECT_EQ(f8E5M2ToFloat(0x7b), 57344.0f);
  EXPECT_EQ(f8E5M2ToFloat(0x01), 0x1p-16f);
  EXPECT_TRUE(std::isinf(f8E5M2ToFloat(0x7c)));
  EXPECT_TRUE(std::isnan(f8E5M2ToFloat(0x7e)));
  // Every finite code encodes back to itself (zeros keep their sign).
  for (int code = 0; code < 256; ++code) {
    float e4m3 = f8E4M3FNToFloat(code), e5m2 = f8E5M2ToFloat(code);
    if (!std::isnan(e4m3))
      EXPECT_EQ(floatToF8E4M3FN(e4m3), code) << code;
    if (std::isfinite(e5m2))
      EXPECT_EQ(floatToF8E5M2(e5m2), code) << code;
  }
  // Ties go to the even code; e4m3fn saturates, e5m2 overflows.
  EXPECT_EQ(floatToF8E4M3FN(1.0f + 1.0f / 16), 0x38);
  EXPECT_EQ(floatToF8E4M3FN(1.0f + 3.0f / 16), 0x3a);
  EXPECT_EQ(floatToF8E4M3FN(1e6f), 0x7e);
  EXPECT_EQ(floatToF8E4M3FN(-1e6f), 0xfe);
  EXPECT_EQ(floatToF8E5M2(1.0f + 1.0f / 8), 0x3c);
  EXPECT_EQ(floatToF8E5M2(1.0f + 3.0f / 8), 0x3e);
  EXPECT_TRUE(std::isinf(f8E5M2ToFloat(floatToF8E5M2(1e6f))));
  // Random inputs are FP8 values in [1/8, 1] in magnitude.
  std::vector<uint8_t> bytes;
  fillRandomNonZero(DType::F8E4M3FN, 4096, 3, bytes);
  ElementSpan span = ElementSpan::of(DType::F8E4M3FN, bytes);
  for (size_t i = 0; i < span.count; ++i) {
    EXPECT_GE(std::fabs(span[i]), 0.125);
    EXPECT_LE(std::fabs(span[i]), 1.0);
  }
}

TEST(HostCheck, Tf32RoundsToNearestTiesAwayFromZero) {
  // TF32 keeps 10 mantissa bits: 1 + 2^-10 is exact, 1 + 2^-11 a tie.
  EXPECT_EQ(roundToTf32(1.0f + 1.0f / 1024), 1.0f + 1.0f / 1024);
  EXPECT_EQ(roundToTf32(1.0f + 1.0f / 2048), 1.0f + 1.0f / 1024);
  EXPECT_EQ(roundToTf32(-(1.0f + 1.0f / 2048)), -(1.0f + 1.0f / 1024));
  EXPECT_EQ(roundToTf32(1.0f + 1.0f / 4096), 1.0f);
  // The carry reaches the exponent.
  EXPECT_EQ(roundToTf32(2.0f - 1.0f / 4096), 2.0f);
  EXPECT_TRUE(std::isnan(roundToTf32(NAN)));
  std::vector<uint8_t> bytes, before;
  fillRandomNonZero(DType::F32, 64, 7, bytes);
  before = bytes;
  roundToTf32InPlace(bytes);
  for (size_t i = 0; i < 64; ++i) {
    float f, was;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    std::memcpy(&was, before.data() + 4 * i, 4);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    EXPECT_EQ(u & 0x1fffu, 0u) << i;
    EXPECT_EQ(f, roundToTf32(was)) << i;
  }
}

TEST(HostCheck, PoisonIsNaNInEveryFloatType) {
  uint8_t poison[4] = {kPoisonByte, kPoisonByte, kPoisonByte, kPoisonByte};
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    EXPECT_TRUE(std::isnan((ElementSpan{t, poison, 1}[0])));
}

TEST(HostCheck, RandomInputsAreSeededAndNonZero) {
  std::vector<uint8_t> a, b;
  fillRandomNonZero(DType::BF16, 4096, 7, a);
  fillRandomNonZero(DType::BF16, 4096, 7, b);
  EXPECT_EQ(a, b);
  fillRandomNonZero(DType::BF16, 4096, 8, b);
  EXPECT_NE(a, b);
  ElementSpan values{DType::BF16, a.data(), 4096};
  for (size_t i = 0; i < values.count; ++i) {
    EXPECT_GE(std::fabs(values[i]), 0.12);
    EXPECT_LE(std::fabs(values[i]), 1.0);
  }
}

TEST(HostCheck, RandomInputsTakeAVerifyScale) {
  std::vector<uint8_t> a;
  fillRandomNonZero(DType::BF16, 4096, 7, a, 0.125);
  ElementSpan values{DType::BF16, a.data(), 4096};
  for (size_t i = 0; i < values.count; ++i) {
    EXPECT_NE(values[i], 0.0);
    EXPECT_LE(std::fabs(values[i]), 0.125);
  }
}

TEST(HostCheck, CompareCatchesNaNAndErrorsButAcceptsRounding) {
  std::vector<double> ref = {1.0, -2.0, 4.0, 0.5};
  std::vector<double> got = ref;
  got[2] += 4.0 * 1e-5;
  Comparison ok = compareOutputs(got, ref, 1e-4);
  EXPECT_TRUE(ok.ok);
  got[1] = std::numeric_limits<double>::quiet_NaN();
  Comparison nan = compareOutputs(got, ref, 1e-4);
  EXPECT_FALSE(nan.ok);
  EXPECT_EQ(nan.nonFinite, 1u);
  EXPECT_EQ(*nan.firstBad, 1u);
  got = ref;
  got[3] = 0.6;
  Comparison off = compareOutputs(got, ref, 1e-4);
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(*off.firstBad, 3u);
  EXPECT_NEAR(off.maxRelError, 0.1 / 4.0, 1e-12);
  // A size mismatch is never a pass.
  EXPECT_FALSE(compareOutputs({1.0}, ref, 1.0).ok);
}

TEST(HostCheck, CountsNonFiniteAcrossChunks) {
  // Past one parallel chunk (2^20 elements), with a NaN and an infinity
  // in different chunks and poison-like NaN bits in raw bf16.
  std::vector<double> values((size_t(1) << 20) + 5, 1.5);
  EXPECT_EQ(countNonFinite(ElementSpan::of(values)), 0u);
  values[3] = std::numeric_limits<double>::quiet_NaN();
  values.back() = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(countNonFinite(ElementSpan::of(values)), 2u);
  std::vector<uint8_t> bf16 = {0x80, 0x3f, 0xc0, 0x7f, 0x80, 0x7f};
  EXPECT_EQ(countNonFinite(ElementSpan::of(DType::BF16, bf16)), 2u);
}

TEST(HostCheck, Bf16ToleranceIsTwoUlpsOfTheLargestOutput) {
  // Largest output 1.0, where a bf16 ulp is 2^-7: two ulps off pass,
  // three fail.
  double tol = dtypeTolerance(DType::BF16);
  std::vector<double> ref = {1.0, 0.5, 0.25};
  std::vector<double> got = ref;
  got[0] += 2 * std::ldexp(1.0, -7);
  EXPECT_TRUE(compareOutputs(got, ref, tol).ok);
  got[0] = ref[0] + 3 * std::ldexp(1.0, -7);
  EXPECT_FALSE(compareOutputs(got, ref, tol).ok);
}

TEST(HostCheck, CompareReadsRawElementsAcrossChunks) {
  // Three chunks and a bit of a bf16 output against an f32 reference,
  // read in place: errors in the second and third chunks, a NaN in the
  // third; the first bad element is the earliest, whatever thread finds it.
  size_t n = 3 * (size_t(1) << 20) + 5;
  std::vector<float> want(n);
  std::vector<uint16_t> have(n);
  for (size_t i = 0; i < n; ++i) {
    want[i] = 1.0f + static_cast<float>(i % 7) / 8; // exact in bf16
    have[i] = floatToBf16(want[i]);
  }
  auto span = [](auto &v, DType t) {
    return ElementSpan{t, reinterpret_cast<const uint8_t *>(v.data()),
                       v.size()};
  };
  Comparison same =
      compareOutputs(span(have, DType::BF16), span(want, DType::F32), 1e-6);
  EXPECT_TRUE(same.ok);
  EXPECT_EQ(same.maxAbsError, 0);
  size_t early = (size_t(1) << 20) + 3, late = 3 * (size_t(1) << 20) + 1;
  have[late] = floatToBf16(want[late] + 0.5f);
  have[early] = floatToBf16(want[early] + 0.25f);
  have[late - 9] = floatToBf16(NAN);
  Comparison bad =
      compareOutputs(span(have, DType::BF16), span(want, DType::F32), 1e-2);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(*bad.firstBad, early);
  EXPECT_EQ(bad.nonFinite, 1u);
  EXPECT_EQ(bad.maxAbsError, 0.5);
  EXPECT_DOUBLE_EQ(bad.maxRelError, 0.5 / 1.75);
}

TEST(HostCheck, GuardDamageIsLocated) {
  std::vector<uint8_t> guard(64, kGuardByte);
  EXPECT_FALSE(firstGuardDamage(guard.data(), guard.size()));
  guard[17] = 0;
  EXPECT_EQ(*firstGuardDamage(guard.data(), guard.size()), 17u);
}

TEST(HostCheck, CpuGemmHonoursTransposesAndBatches) {
  PlanGemm g;
  g.batch = 2;
  g.m = 2;
  g.n = 3;
  g.k = 2;
  // A[b][m][k], B[b][k][n].
  std::vector<double> a = {1, 2, 3, 4, /*batch 1*/ 5, 6, 7, 8};
  std::vector<double> b = {1, 0, 2, 0, 1, 3, /*batch 1*/ 1, 1, 1, 1, 1, 1};
  auto of = [](const std::vector<double> &v) { return ElementSpan::of(v); };
  EXPECT_EQ(cpuGemmElement(g, of(a), of(b), 0, 1, 2), 3 * 2 + 4 * 3);
  EXPECT_EQ(cpuGemmElement(g, of(a), of(b), 1, 0, 0), 5 + 6);
  // The same A stored transposed ([k][m]).
  g.transposeA = true;
  std::vector<double> at = {1, 3, 2, 4, 5, 7, 6, 8};
  EXPECT_EQ(cpuGemmElement(g, of(at), of(b), 0, 1, 2), 3 * 2 + 4 * 3);
  // Raw bf16 elements read in place give the same sum.
  std::vector<uint16_t> atBf16;
  for (double v : at)
    atBf16.push_back(floatToBf16(static_cast<float>(v)));
  ElementSpan atSpan{DType::BF16,
                     reinterpret_cast<const uint8_t *>(atBf16.data()),
                     atBf16.size()};
  EXPECT_EQ(cpuGemmElement(g, atSpan, of(b), 0, 1, 2), 3 * 2 + 4 * 3);
}

TEST(HostCheck, CheckIndicesAreAllOrSampledWithCorners) {
  PlanGemm g;
  g.m = g.n = 8;
  g.k = 4;
  EXPECT_EQ(cpuCheckIndices(g, 1 << 20, 16, 1).size(), 64u);
  g.m = g.n = 1000;
  g.k = 1000;
  std::vector<size_t> sampled = cpuCheckIndices(g, 1 << 20, 100, 1);
  EXPECT_LE(sampled.size(), 104u);
  EXPECT_GE(sampled.size(), 90u);
  EXPECT_EQ(sampled.front(), 0u);
  EXPECT_EQ(sampled.back(), 999999u);
}
