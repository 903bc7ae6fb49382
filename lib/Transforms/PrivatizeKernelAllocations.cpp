//===- PrivatizeKernelAllocations.cpp - Per-thread allocations as allocas -===//
//
// An allocation inside a gpu.launch runs once per thread: a stack
// allocation means the same and needs no device malloc.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPRIVATIZEKERNELALLOCATIONSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {
/// Larger per-thread buffers would spill to local memory wholesale.
constexpr int64_t kMaxPrivateBytes = 4096;

class PrivatizeKernelAllocationsPass
    : public vibegemm::impl::VibeGemmPrivatizeKernelAllocationsPassBase<
          PrivatizeKernelAllocationsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](gpu::LaunchOp launch) {
      launch.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape()) {
        alloc.emitError("kernel allocates a dynamically sized buffer; the "
                        "schedule must give it a static size");
        return signalPassFailure();
      }
      int64_t bytes = type.getNumElements() *
                      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      if (bytes > kMaxPrivateBytes) {
        alloc.emitError("kernel allocates ")
            << bytes << " bytes per thread (limit " << kMaxPrivateBytes
            << "); stage it in shared memory or tile it smaller";
        return signalPassFailure();
      }
      if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          }))
        continue;
      OpBuilder builder(alloc);
      auto alloca = memref::AllocaOp::create(builder, alloc.getLoc(), type,
                                             alloc.getAlignmentAttr());
      alloc.replaceAllUsesWith(alloca.getResult());
      alloc.erase();
    }
  }
};
} // namespace
