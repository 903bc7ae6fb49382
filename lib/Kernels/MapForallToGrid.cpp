//===- MapForallToGrid.cpp - a block forall as a launch sized at run time -===//
//
// Upstream's map_forall_to_blocks needs static trip counts. A forall over
// a dynamic M (ceildiv(M, block_m) tiles) maps the same way here, with the
// grid computed on the host from the forall's bounds.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

/// The grid dimension a `#gpu.block<...>` mapping names, if it is one.
static std::optional<gpu::Dimension> blockDimension(Attribute mapping) {
  auto block = dyn_cast<gpu::GPUBlockMappingAttr>(mapping);
  if (!block)
    return std::nullopt;
  switch (block.getBlock()) {
  case gpu::MappingId::DimX:
    return gpu::Dimension::x;
  case gpu::MappingId::DimY:
    return gpu::Dimension::y;
  case gpu::MappingId::DimZ:
    return gpu::Dimension::z;
  default:
    return std::nullopt;
  }
}

FailureOr<gpu::LaunchOp> vibegemm::mapForallToGrid(RewriterBase &rewriter,
                                                   scf::ForallOp forall,
                                                   std::string &why) {
  if (!forall.isNormalized()) {
    why = "the forall must start at 0 with step 1 (normalized)";
    return failure();
  }
  if (!forall.getOutputs().empty()) {
    why = "the forall must be bufferized (no shared outputs)";
    return failure();
  }
  if (forall->getParentOfType<gpu::LaunchOp>()) {
    why = "the forall is already inside a gpu.launch";
    return failure();
  }
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || static_cast<int64_t>(mapping->size()) != forall.getRank()) {
    why = "the forall needs one #gpu.block mapping per dimension";
    return failure();
  }
  SmallVector<gpu::Dimension> dims;
  for (Attribute attr : *mapping) {
    std::optional<gpu::Dimension> dim = blockDimension(attr);
    if (!dim || llvm::is_contained(dims, *dim)) {
      why = "the forall's mapping must name distinct #gpu.block<x|y|z>";
      return failure();
    }
    dims.push_back(*dim);
  }

  Location loc = forall.getLoc();
  rewriter.setInsertionPoint(forall);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value grid[3] = {one, one, one};
  SmallVector<Value> bounds = getValueOrCreateConstantIndexOp(
      rewriter, loc, forall.getMixedUpperBound());
  for (auto [dim, bound] : llvm::zip(dims, bounds))
    grid[static_cast<unsigned>(dim)] = bound;
  auto launch = gpu::LaunchOp::create(rewriter, loc, grid[0], grid[1], grid[2],
                                      one, one, one);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPoint(terminator);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  SmallVector<Value> ids;
  for (gpu::Dimension dim : dims)
    ids.push_back(dim == gpu::Dimension::x   ? blockIds.x
                  : dim == gpu::Dimension::y ? blockIds.y
                                             : blockIds.z);

  Block *forallBody = forall.getBody();
  rewriter.eraseOp(forallBody->getTerminator());
  rewriter.inlineBlockBefore(forallBody, terminator, ids);
  rewriter.eraseOp(forall);
  return launch;
}
