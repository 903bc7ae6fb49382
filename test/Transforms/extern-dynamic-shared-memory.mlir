// RUN: vibegemm-opt %s --vibegemm-extern-dynamic-shared-memory | FileCheck %s

// Only the zero-length, uninitialised shared array (what
// convert-gpu-to-nvvm makes of gpu.dynamic_shared_memory) becomes extern.
// CHECK: llvm.mlir.global external @dynamic_smem() {{.*}}addr_space = 3{{.*}} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_smem() {{.*}}addr_space = 3{{.*}} : !llvm.array<16 x i8>
// CHECK: llvm.mlir.global internal @global_zero() {{.*}} : !llvm.array<0 x i8>
module {
  llvm.mlir.global internal @dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
  llvm.mlir.global internal @global_zero() {alignment = 16 : i64} : !llvm.array<0 x i8>
}
