// RUN: vibegemm-opt %s --split-input-file --vibegemm-widen-float8 | FileCheck %s

// e5m2 is the top byte of an f16: shifted into place and widened.
// CHECK-LABEL: func.func @e5m2
//       CHECK:   %[[BITS:.*]] = arith.bitcast %{{.*}} : f8E5M2 to i8
//       CHECK:   %[[WIDE:.*]] = arith.extui %[[BITS]] : i8 to i16
//       CHECK:   %[[TOP:.*]] = arith.shli %[[WIDE]], %{{.*}} : i16
//       CHECK:   %[[HALF:.*]] = arith.bitcast %[[TOP]] : i16 to f16
//       CHECK:   %[[F:.*]] = arith.extf %[[HALF]] : f16 to f32
//       CHECK:   return %[[F]]
//   CHECK-NOT:   f8E5M2 to f32
func.func @e5m2(%x: f8E5M2) -> f32 {
  %y = arith.extf %x : f8E5M2 to f32
  return %y : f32
}

// -----

// e4m3fn: the f16 holds the value times 2^-8 (scaled back by 256) and the
// two NaN codes are selected; a vector widens the same way.
// CHECK-LABEL: func.func @e4m3fn_vector
//       CHECK:   arith.bitcast %{{.*}} : vector<4xf8E4M3FN> to vector<4xi8>
//       CHECK:   arith.bitcast %{{.*}} : vector<4xi16> to vector<4xf16>
//       CHECK:   %[[SCALED:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
//       CHECK:   %[[NAN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : vector<4xi16>
//       CHECK:   arith.select %[[NAN]], %{{.*}}, %[[SCALED]] : vector<4xi1>, vector<4xf32>
func.func @e4m3fn_vector(%x: vector<4xf8E4M3FN>) -> vector<4xf32> {
  %y = arith.extf %x : vector<4xf8E4M3FN> to vector<4xf32>
  return %y : vector<4xf32>
}

// -----

// Other conversions are left alone.
// CHECK-LABEL: func.func @not_fp8
//       CHECK:   arith.extf %{{.*}} : bf16 to f32
//   CHECK-NOT:   arith.bitcast
func.func @not_fp8(%x: bf16) -> f32 {
  %y = arith.extf %x : bf16 to f32
  return %y : f32
}
