//===- HostCheck.h - Host-side data, comparison and CPU reference -*- C++ -*-=//
//
// What the runtime does on the CPU: seeded random inputs, element-type
// conversion, comparing an output with its reference under the tolerances
// docs/runtime.md states, guard-byte checks and a float64 GEMM. None of it
// needs a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_HOSTCHECK_H
#define VIBEGEMM_RUNTIME_HOSTCHECK_H

#include "vibegemm/Runtime/Plan.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::vibegemm::runtime {

/// Byte written around every buffer; a kernel that writes out of bounds
/// changes it.
inline constexpr uint8_t kGuardByte = 0xA5;
/// Byte outputs are poisoned with: 0xFFFF.. is NaN in every float type.
inline constexpr uint8_t kPoisonByte = 0xFF;

uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
/// FP8, rounded to nearest even; e4m3fn saturates at +-448 (it has no
/// infinity), e5m2 overflows to infinity as f16 does.
uint8_t floatToF8E4M3FN(float value);
float f8E4M3FNToFloat(uint8_t bits);
uint8_t floatToF8E5M2(float value);
float f8E5M2ToFloat(uint8_t bits);
/// Rounds to TF32 (10 explicit mantissa bits) the way `cvt.rna.tf32.f32`
/// does: to nearest, ties away from zero.
float roundToTf32(float value);

/// Fills `bytes` with `count` seeded random values of `type`, uniform in
/// [-1, -1/8] U [1/8, 1] times `scale` so no element is zero (read them
/// back through ElementSpan).
void fillRandomNonZero(DType type, size_t count, uint64_t seed,
                       std::vector<uint8_t> &bytes, double scale = 1.0);

/// Rounds every element of an f32 buffer to TF32,
/// so a TF32 kernel's operand conversion is exact and verification measures
/// its arithmetic rather than the format's input rounding.
void roundToTf32InPlace(std::vector<uint8_t> &bytes);

struct Comparison {
  double maxAbsError = 0, maxRelError = 0, relL2 = 0, tolerance = 0;
  size_t nonFinite = 0;
  /// First element over tolerance or not finite, if any.
  std::optional<size_t> firstBad;
  bool ok = false;
};

/// Elements of `type` in host memory, read one at a time as doubles, so a
/// billion-element output is compared without a widened copy.
struct ElementSpan {
  DType type = DType::F64;
  const uint8_t *data = nullptr;
  size_t count = 0;

  double operator[](size_t i) const;
  /// A span over doubles.
  static ElementSpan of(const std::vector<double> &values) {
    return {DType::F64, reinterpret_cast<const uint8_t *>(values.data()),
            values.size()};
  }
  /// A span over the whole elements of `type` in `bytes`.
  static ElementSpan of(DType type, const std::vector<uint8_t> &bytes) {
    return {type, bytes.data(), bytes.size() / dtypeBytes(type)};
  }
};

/// Compares `got` with `ref`: every element finite, and both the relative
/// L2 error and max|got - ref| / max|ref| within `tolerance`. Runs over
/// fixed chunks on all cores and sums them in chunk order, so the result
/// does not depend on the thread count.
Comparison compareOutputs(ElementSpan got, ElementSpan ref, double tolerance);
/// How many of `values` are NaN or infinite (in parallel chunks), for
/// outputs with nothing to compare against.
size_t countNonFinite(ElementSpan values);
inline Comparison compareOutputs(const std::vector<double> &got,
                                 const std::vector<double> &ref,
                                 double tolerance) {
  return compareOutputs(ElementSpan::of(got), ElementSpan::of(ref), tolerance);
}

/// Offset of the first byte in [data, data + size) that is not the guard
/// byte.
std::optional<size_t> firstGuardDamage(const uint8_t *data, size_t size);

/// One element of a GEMM in float64, from the operands' stored elements
/// (which must hold the whole batch x M x K and batch x K x N).
double cpuGemmElement(const PlanGemm &gemm, ElementSpan a, ElementSpan b,
                      int64_t batch, int64_t row, int64_t col);

/// Flat output indices to check on the CPU: all of them when the GEMM is
/// small (batch*m*n*k <= fullLimit), otherwise `samples` seeded positions
/// including the four corners of every batch's first and last row.
std::vector<size_t> cpuCheckIndices(const PlanGemm &gemm, uint64_t fullLimit,
                                    size_t samples, uint64_t seed);

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_HOSTCHECK_H
