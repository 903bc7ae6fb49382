//===- HostCheck.cpp - Host-side data, comparison and CPU reference -------===//
//
// Conversions are written out (round to nearest even) so results do not
// depend on the host compiler's half-precision support.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/HostCheck.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mlir::vibegemm::runtime;

namespace {
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
} // namespace

uint16_t mlir::vibegemm::runtime::floatToBf16(float value) {
  uint32_t u = bitsOf(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

float mlir::vibegemm::runtime::bf16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t mlir::vibegemm::runtime::floatToHalf(float value) {
  uint32_t u = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t absBits = u & 0x7fffffff;
  if (absBits >= 0x7f800000) // inf or NaN
    return sign | 0x7c00 | (absBits > 0x7f800000 ? 0x200 : 0);
  if (absBits >= 0x477ff000) // rounds to beyond the largest half
    return sign | 0x7c00;
  if (absBits < 0x38800000) { // subnormal half or zero
    float scaled = floatOf(absBits) * 16777216.0f; // 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant = absBits & 0x7fffff;
  uint32_t exp = (absBits >> 23) - 127 + 15;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

float mlir::vibegemm::runtime::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  if (exp == 0) {
    float v = static_cast<float>(mant) / 16777216.0f; // mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31)
    return floatOf(sign | 0x7f800000 | (mant << 13));
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint8_t mlir::vibegemm::runtime::floatToF8E4M3FN(float value) {
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value))
    return sign | 0x7f;
  float a = std::fabs(value);
  constexpr float kMinNormal = 0x1p-6f, kMax = 448.0f;
  if (a < kMinNormal) // subnormal: multiples of 2^-9 (8 of them is 0x08)
    return sign | static_cast<uint8_t>(std::nearbyint(a * 0x1p9f));
  int exponent;
  float fraction = std::frexp(a, &exponent); // a = fraction * 2^exponent
  int mantissa = static_cast<int>(std::nearbyint((fraction * 2 - 1) * 8));
  int biased = exponent - 1 + 7;
  if (mantissa == 8) {
    mantissa = 0;
    ++biased;
  }
  if (a >= kMax || biased > 15 || (biased == 15 && mantissa == 7))
    return sign | 0x7e; // 448
  return sign | static_cast<uint8_t>(biased << 3 | mantissa);
}

float mlir::vibegemm::runtime::f8E4M3FNToFloat(uint8_t bits) {
  int exponent = (bits >> 3) & 15, mantissa = bits & 7;
  float magnitude =
      (bits & 0x7f) == 0x7f ? std::numeric_limits<float>::quiet_NaN()
      : exponent == 0       ? std::ldexp(static_cast<float>(mantissa), -9)
                            : std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
  return (bits & 0x80) ? -magnitude : magnitude;
}

uint8_t mlir::vibegemm::runtime::floatToF8E5M2(float value) {
  uint16_t half = floatToHalf(value);
  if ((half & 0x7c00) == 0x7c00 && (half & 0x3ff)) // NaN stays NaN
    return static_cast<uint8_t>(half >> 8) | 0x02;
  // The top byte of the f16, rounded to nearest even on the byte below.
  return static_cast<uint8_t>((half + 0x7f + ((half >> 8) & 1)) >> 8);
}

float mlir::vibegemm::runtime::f8E5M2ToFloat(uint8_t bits) {
  return halfToFloat(static_cast<uint16_t>(bits) << 8);
}

float mlir::vibegemm::runtime::roundToTf32(float value) {
  if (!std::isfinite(value))
    return value;
  // Adding half of the dropped range to the magnitude bits rounds ties away
  // from zero; a carry into the exponent is the correct round-up.
  return floatOf((bitsOf(value) + 0x1000u) & 0xffffe000u);
}

void mlir::vibegemm::runtime::roundToTf32InPlace(std::vector<uint8_t> &bytes) {
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    float f;
    std::memcpy(&f, bytes.data() + i, 4);
    f = roundToTf32(f);
    std::memcpy(bytes.data() + i, &f, 4);
  }
}

namespace {
/// Runs `body(chunk, begin, end)` over [0, count) in fixed chunks of
/// `chunkSize` on all cores. The chunks do not depend on the thread count,
/// so neither do results combined per chunk in chunk order.
template <typename Body>
void forEachChunk(size_t count, size_t chunkSize, Body body) {
  llvm::parallelFor(0, llvm::divideCeil(count, chunkSize), [&](size_t chunk) {
    size_t begin = chunk * chunkSize;
    body(chunk, begin, std::min(count, begin + chunkSize));
  });
}
} // namespace

void mlir::vibegemm::runtime::fillRandomNonZero(DType type, size_t count,
                                          uint64_t seed,
                                          std::vector<uint8_t> &bytes,
                                          double scale) {
  size_t width = dtypeBytes(type);
  bytes.assign(count * width, 0);
  // Fixed chunks, each with its own generator, filled on all cores: the
  // values depend on the seed alone, not on the thread count.
  constexpr size_t kChunk = size_t(1) << 16;
  forEachChunk(count, kChunk, [&](size_t chunk, size_t begin, size_t end) {
    std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ull * (chunk + 1)));
    std::uniform_real_distribution<float> magnitude(0.125f, 1.0f);
    for (size_t i = begin; i < end; ++i) {
      uint64_t r = rng();
      float v = magnitude(rng) * ((r & 1) ? -1.0f : 1.0f) *
                static_cast<float>(scale);
      uint8_t *dst = bytes.data() + i * width;
      switch (type) {
      case DType::F32:
        std::memcpy(dst, &v, 4);
        break;
      case DType::F64: {
        double d = v;
        std::memcpy(dst, &d, 8);
        break;
      }
      case DType::BF16: {
        uint16_t h = floatToBf16(v);
        std::memcpy(dst, &h, 2);
        break;
      }
      case DType::F16: {
        uint16_t h = floatToHalf(v);
        std::memcpy(dst, &h, 2);
        break;
      }
      case DType::F8E4M3FN:
        *dst = floatToF8E4M3FN(v);
        break;
      case DType::F8E5M2:
        *dst = floatToF8E5M2(v);
        break;
      case DType::I64:
      case DType::I32:
      case DType::I8: {
        // Small non-zero integers: -8..-1, 1..8.
        int64_t n = static_cast<int64_t>(r % 8) + 1;
        if (r & 8)
          n = -n;
        std::memcpy(dst, &n, width); // little-endian truncation
        break;
      }
      }
    }
  });
}

double ElementSpan::operator[](size_t i) const {
  const uint8_t *src = data + i * dtypeBytes(type);
  switch (type) {
  case DType::F32: {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  case DType::F64: {
    double d;
    std::memcpy(&d, src, 8);
    return d;
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return bf16ToFloat(h);
  }
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return halfToFloat(h);
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, src, 8);
    return static_cast<double>(v);
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, src, 4);
    return v;
  }
  case DType::I8:
    return static_cast<int8_t>(*src);
  case DType::F8E4M3FN:
    return f8E4M3FNToFloat(*src);
  case DType::F8E5M2:
    return f8E5M2ToFloat(*src);
  }
  return 0;
}

namespace {
/// Elements per chunk of the parallel comparison.
constexpr size_t kCompareChunk = size_t(1) << 20;

/// What one chunk of a comparison found.
struct ChunkErrors {
  double maxAbs = 0, errSq = 0, refSq = 0;
  size_t nonFinite = 0;
  std::optional<size_t> firstBad;
};
} // namespace

size_t mlir::vibegemm::runtime::countNonFinite(ElementSpan values) {
  std::vector<size_t> perChunk(llvm::divideCeil(values.count, kCompareChunk));
  forEachChunk(values.count, kCompareChunk, [&](size_t chunk, size_t begin,
                                                size_t end) {
    for (size_t i = begin; i < end; ++i)
      perChunk[chunk] += !std::isfinite(values[i]);
  });
  size_t total = 0;
  for (size_t n : perChunk)
    total += n;
  return total;
}

Comparison mlir::vibegemm::runtime::compareOutputs(ElementSpan got,
                                                   ElementSpan ref,
                                                   double tolerance) {
  Comparison c;
  c.tolerance = tolerance;
  if (got.count != ref.count) {
    c.firstBad = 0;
    return c;
  }
  size_t chunks = llvm::divideCeil(got.count, kCompareChunk);
  std::vector<double> chunkRefMax(chunks, 0);
  forEachChunk(got.count, kCompareChunk, [&](size_t chunk, size_t begin,
                                             size_t end) {
    double m = 0;
    for (size_t i = begin; i < end; ++i)
      m = std::max(m, std::fabs(ref[i]));
    chunkRefMax[chunk] = m;
  });
  double refMax = 0;
  for (double m : chunkRefMax)
    refMax = std::max(refMax, m);
  // An all-zero reference compares absolutely.
  double scale = refMax > 0 ? refMax : 1.0;
  std::vector<ChunkErrors> found(chunks);
  forEachChunk(got.count, kCompareChunk, [&](size_t chunk, size_t begin,
                                             size_t end) {
    ChunkErrors &e = found[chunk];
    for (size_t i = begin; i < end; ++i) {
      double g = got[i], r = ref[i];
      if (!std::isfinite(g)) {
        ++e.nonFinite;
        if (!e.firstBad)
          e.firstBad = i;
        continue;
      }
      double err = std::fabs(g - r);
      e.maxAbs = std::max(e.maxAbs, err);
      e.errSq += err * err;
      e.refSq += r * r;
      if (!e.firstBad && err / scale > tolerance)
        e.firstBad = i;
    }
  });
  double errSq = 0, refSq = 0;
  for (const ChunkErrors &e : found) {
    c.maxAbsError = std::max(c.maxAbsError, e.maxAbs);
    errSq += e.errSq;
    refSq += e.refSq;
    c.nonFinite += e.nonFinite;
    if (!c.firstBad)
      c.firstBad = e.firstBad;
  }
  c.maxRelError = c.maxAbsError / scale;
  c.relL2 = refSq > 0 ? std::sqrt(errSq / refSq) : std::sqrt(errSq);
  c.ok = c.nonFinite == 0 && c.maxRelError <= tolerance &&
         c.relL2 <= tolerance;
  if (c.ok)
    c.firstBad.reset();
  return c;
}

std::optional<size_t> mlir::vibegemm::runtime::firstGuardDamage(const uint8_t *data,
                                                          size_t size) {
  for (size_t i = 0; i < size; ++i)
    if (data[i] != kGuardByte)
      return i;
  return std::nullopt;
}

double mlir::vibegemm::runtime::cpuGemmElement(const PlanGemm &g,
                                               ElementSpan a, ElementSpan b,
                                               int64_t batch, int64_t row,
                                               int64_t col) {
  size_t aBase = batch * g.m * g.k, bBase = batch * g.k * g.n;
  double sum = 0;
  for (int64_t kk = 0; kk < g.k; ++kk) {
    double av = a[aBase + (g.transposeA ? kk * g.m + row : row * g.k + kk)];
    double bv = b[bBase + (g.transposeB ? col * g.k + kk : kk * g.n + col)];
    sum += av * bv;
  }
  return sum;
}

std::vector<size_t> mlir::vibegemm::runtime::cpuCheckIndices(const PlanGemm &g,
                                                       uint64_t fullLimit,
                                                       size_t samples,
                                                       uint64_t seed) {
  size_t total = static_cast<size_t>(g.batch * g.m * g.n);
  std::vector<size_t> indices;
  if (static_cast<double>(total) * g.k <= static_cast<double>(fullLimit)) {
    indices.resize(total);
    for (size_t i = 0; i < total; ++i)
      indices[i] = i;
    return indices;
  }
  for (int64_t bt = 0; bt < g.batch; bt += std::max<int64_t>(1, g.batch - 1))
    for (int64_t r : {int64_t(0), g.m - 1})
      for (int64_t c : {int64_t(0), g.n - 1})
        indices.push_back(static_cast<size_t>((bt * g.m + r) * g.n + c));
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  for (size_t i = 0; i < samples; ++i)
    indices.push_back(static_cast<size_t>(rng() % total));
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}
