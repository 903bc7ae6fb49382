// RUN: vibegemm-opt %s --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

// vibegemm-widen-float8 against the OCP FP8 specification's values, run on
// the CPU: zero, the smallest and largest subnormal, the smallest normal,
// 1, 1.5, the largest finite value, NaN, -0, -1, -448 and NaN for e4m3fn
// (codes 0x00 0x01 0x07 0x08 0x38 0x3c 0x7e 0x7f 0x80 0xb8 0xfe 0xff);
// 1, the smallest subnormal 2^-16, the largest finite 57344, inf, NaN and
// -2 for e5m2 (0x3c 0x01 0x7b 0x7c 0x7e 0xc0); a scalar widened to f16.

// CHECK: ( 0, 0.00195312, 0.0136719, 0.015625, 1, 1.5, 448, nan, -0, -1, -448, {{-?}}nan )
// CHECK-NEXT: ( 1, 1.52588e-05, 57344, inf, nan, -2 )
// CHECK-NEXT: -1.5
func.func @main() {
  %e4m3 = arith.constant dense<[0, 1, 7, 8, 56, 60, 126, 127, -128, -72, -2, -1]> : vector<12xi8>
  %a = arith.bitcast %e4m3 : vector<12xi8> to vector<12xf8E4M3FN>
  %wa = arith.extf %a : vector<12xf8E4M3FN> to vector<12xf32>
  vector.print %wa : vector<12xf32>
  %e5m2 = arith.constant dense<[60, 1, 123, 124, 126, -64]> : vector<6xi8>
  %b = arith.bitcast %e5m2 : vector<6xi8> to vector<6xf8E5M2>
  %wb = arith.extf %b : vector<6xf8E5M2> to vector<6xf32>
  vector.print %wb : vector<6xf32>
  %code = arith.constant -68 : i8
  %s = arith.bitcast %code : i8 to f8E4M3FN
  %h = arith.extf %s : f8E4M3FN to f16
  %f = arith.extf %h : f16 to f32
  vector.print %f : f32
  return
}
