//===- VibeGemmTransformOps.td - vibegemm's transform ops --*- tablegen -*-===//
//
// Transform ops that make the tensor-core paths reachable from a schedule.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORM_OPS
#define VIBEGEMM_TRANSFORM_OPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def GemmToMmaSyncOp : Op<Transform_Dialect, "vibegemm.gemm_to_mma_sync",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a block's GEMM tile into a pipelined mma.sync kernel";
  let description = [{
    Takes a bufferized `linalg` contraction (matmul, batch_matmul with a
    batch tile of 1, or either with transposed operands through
    `indexing_maps`) that computes one block's output tile inside a
    `gpu.launch`, with f16 or bf16 operands and an f32 accumulator, and
    replaces it with a tensor-core kernel body:

    - `warps = [wm, wn]` warps split the block tile; each warp owns a
      `(BM / wm) x (BN / wn)` tile of `m16n8k16` `mma.sync` accumulators that
      stay in registers across the K loop. The enclosing launch gets
      `32 * wm * wn` threads along x.
    - A and B K-tiles of `block_k` columns go through dynamic shared memory
      with rows padded by 16 bytes (conflict-free `ldmatrix`), loaded with
      16-byte `cp.async` copies in a `stages`-deep ring.
    - Fragments are read with `ldmatrix` (`.trans` for operands whose
      contiguous dimension is not K).
    - Rows, columns and K chunks past the problem edge are zero-filled by
      the copies and masked on store, so ragged M, N and K keep this path.
    - An operand whose rows are not 16-byte aligned (contiguous extent or
      view offset not a multiple of 8 elements, or a K view ending inside a
      chunk) is loaded element by element into registers during the MMAs
      and stored to its ring slot afterwards, instead of by cp.async.
    - The f32 result pairs go out as 2-element vector stores where the
      output's rows allow it.
    - A `linalg.fill` of the accumulator before the GEMM becomes the
      accumulators' initial value; without one the accumulator is loaded.
    - Elementwise `linalg.generic` consumers of the accumulator in the same
      block (bias, activations, scale, residual, truncation, chains of them)
      are applied to the registers before the single store; block-local
      intermediate buffers disappear.
    - f32 operands take this path only with `f32_precision`, because both
      modes change accuracy (`gemm_to_ffma` keeps f32's):
      - `"tf32"`: each operand element is rounded to TF32 (`cvt.rna`, 10-bit
        mantissa) and the MMAs are `m16n8k8` `.tf32`; expect relative
        errors near 1e-3.
      - `"3xtf32"`: each element is split into a TF32 value and a TF32
        remainder, and three MMAs (small x big, big x small, big x big)
        recover about f32 accuracy at a third of TF32's rate.
      f32 fragments are read from shared memory element by element
      (`ldmatrix` moves 16-bit pairs); rows are padded by 16 bytes, or 32
      for tiles stored [k][m] or [k][n], so a warp's reads hit distinct
      banks. The rewrite marks the enclosing function with
      `vibegemm.f32_precision`, and the launch plan carries it, so the
      runtime verifies with TF32's tolerance only where TF32 was asked for.

    #### Return modes

    Consumes the `target` handle and produces a handle to the new K loop
    (`scf.for`). Emits a silenceable failure, leaving the payload unchanged,
    when the target is not such a contraction, is not inside a `gpu.launch`,
    has element types other than f16/bf16 -> f32 (or f32 -> f32 with
    `f32_precision`), `f32_precision` on 16-bit operands, copies that do not split
    evenly over the threads, a ring larger than 227 KiB of shared memory, a
    warp tile needing more than 256 accumulator registers, or a consumer that
    is not an elementwise generic.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "32">:$block_k,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{2, 2}">:$warps,
                   DefaultValuedAttr<I64Attr, "3">:$stages,
                   OptionalAttr<StrAttr>:$f32_precision);
  let results = (outs TransformHandleTypeInterface:$loop);

  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}


def GemmToFfmaOp : Op<Transform_Dialect, "vibegemm.gemm_to_ffma",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a block's f32 GEMM tile into a pipelined FFMA "
                "kernel (CUDA cores, no TF32)";
  let description = [{
    Takes a bufferized `linalg` contraction (matmul, batch_matmul with a
    batch tile of 1, or either with transposed operands through
    `indexing_maps`) that computes one block's output tile inside a
    `gpu.launch`, with f32 operands and an f32 accumulator, and replaces it
    with a CUDA-core kernel body that keeps full f32 accuracy:

    - `thread_tile = [tm, tn]` (multiples of 4): each thread owns tm x tn
      outputs in registers, as float4 groups strided across the block tile
      so a warp's shared-memory loads are consecutive 16-byte words. The
      block tile's rows and columns round up to a power-of-two count of
      threads; the launch gets `(BM / tm) * (BN / tn)` threads along x.
    - A and B K-tiles of `block_k` rows are staged in dynamic shared memory
      as `[k][m]` and `[k][n]` (rows padded by 16 bytes) whatever their
      global layout, through a `stages`-deep ring of `cp.async` copies:
      16 bytes along an M or N whose rows are 16-byte aligned, 4 bytes
      (transposing) for operands stored K-innermost or misaligned.
    - Every k step is one float4 load per four rows or columns of the
      thread tile and tm x tn fused multiply-adds (FFMA); there is no TF32.
    - Rows, columns and K past the problem edge are zero-filled by the
      copies and masked on store, so any M, N and K keep this path.
    - A `linalg.fill` of the accumulator before the GEMM becomes the
      accumulators' initial value; without one the accumulator is loaded.
    - Elementwise `linalg.generic` consumers of the accumulator in the same
      block (bias, activations, scale, residual, truncation) run on the
      registers before the single store, four columns at a time as 16-byte
      stores where the output's rows allow it.

    #### Return modes

    Consumes the `target` handle and produces a handle to the new K loop
    (`scf.for`). Emits a silenceable failure, leaving the payload unchanged,
    when the target is not such a contraction, is not inside a `gpu.launch`
    (or one that already has threads), has element types other than
    f32 -> f32, a batch dimension not tiled to 1, needs fewer than 32 or
    more than 1024 threads, a ring larger than 227 KiB of shared memory, or
    a consumer that is not an elementwise generic.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "16">:$block_k,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{8, 8}">:$thread_tile,
                   DefaultValuedAttr<I64Attr, "3">:$stages);
  let results = (outs TransformHandleTypeInterface:$loop);

  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def GemmToWgmmaOp : Op<Transform_Dialect, "vibegemm.gemm_to_wgmma",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a block's GEMM tile into a warp-specialised "
                "TMA + wgmma kernel (sm_90a)";
  let description = [{
    Takes a bufferized `linalg` contraction computing one block's output
    tile inside a `gpu.launch`, with A stored `[M, K]` or `[K, M]` and B
    `[K, N]` or `[N, K]` (a batch dimension tiled to 1 in front, if any: 3-D
    tensor maps), f16 or bf16 operands and an f32
    accumulator, whose operands are unit-stride views of whole static 2-D
    buffers defined outside the launch, and replaces it with a Hopper
    kernel body built from the `nvgpu` dialect's TMA and mbarrier ops and
    NVVM's wgmma ops:

    - Host side, before the launch, `nvgpu.tma.create.descriptor` makes a
      128-byte-swizzled tensor map of each operand buffer: an operand stored
      K-innermost (A `[M, K]`, B `[N, K]`) in boxes of its tile rows x 64,
      the others in boxes of 64 K-rows x 64 (out-of-bounds reads as zero). Launch plans pass them
      as `tensor_map` arguments, which the runtime encodes with
      `cuTensorMapEncodeTiled`.
    - The launch gets `128 * (1 + consumers)` threads. The last warpgroup
      is the producer: its first thread streams 64-wide K-tiles of A and B
      with `nvgpu.tma.async.load` into a `stages`-deep ring of shared-memory
      slots (aligned at run time to the swizzle's 1024-byte repeat), each
      guarded by a "full" mbarrier (transaction bytes) and an "empty" one
      (released by the consumers).
    - Consumer warpgroup c (threads 128c..) owns rows `c * BM / consumers`
      onwards and runs `nvvm.wgmma.mma_async` m64nBNk16 on the slots (four
      k16 steps per K-tile, one commit, one group left in flight) with f32
      accumulators in registers and its own shared-memory matrix
      descriptors. (`nvgpu.warpgroup.mma` is not used: its lowering reads B
      only as `[K, N]` and commits after every op.) `setmaxnreg` moves
      registers from the producer (40) to the consumers (232, or what the
      register file leaves for three). A one-consumer launch (256 threads)
      is marked `vibegemm.max_registers = 168`, which the lowering makes
      the kernel's `.maxnreg`: without it ptxas ignores `setmaxnreg`, and
      without `setmaxnreg` it serialised the consumer's wgmmas.
    - The accumulators go through a staging tile padded so that neither its
      stores nor its loads conflict on banks; every thread then finishes
      4-column chunks: the fill value (or the output's old contents, without
      a fill) is added, the elementwise `linalg.generic` consumers (bias,
      activations, scale, residual, truncation) run, and results are stored
      as vectors where the output allows it, element by element at ragged
      edges.

    Split-K: the partial GEMM of `transform.structured.split_reduction`
    (the split dimension tiled to 1 and mapped to blocks) is accepted too.
    Its operands view the 2-D buffers through the `memref.expand_shape` that
    splits K into `[split, chunk]`, just outside K. The tensor maps stay
    2-D over the whole buffers, each block's K-tiles start at
    `split index * chunk`, and the f32 partial goes to the block's slice of
    the partial buffer. The chunk must be a multiple of the 64-wide K-tiles.

    The tile sizes come from the block tile: BM rounds up to a multiple of
    `64 * consumers`, BN to a multiple of 64, both at most 256, and each
    consumer may hold at most 128 accumulators per thread, and no more
    than the registers each thread starts with allow beside 26 of its own
    (ptxas compiles the whole kernel within them, `setmaxnreg`
    notwithstanding): three consumers' 512 threads start with 128, so at
    most 64 accumulators. Needs `sm_90a`.

    f32 operands take this path only with `f32_precision = "tf32"` (it
    changes accuracy; `gemm_to_ffma` keeps f32's): the K-tiles are 32 f32
    wide (still one 128-byte swizzle row), the MMAs `m64nNk8` `.tf32`, which
    read each f32 in shared memory as TF32 (its low 13 mantissa bits
    ignored). wgmma reads TF32 only K-major, so both operands must be
    stored with K innermost: A `[M, K]`, B `[N, K]` (`x * W^T`). The rewrite
    marks the enclosing function with `vibegemm.f32_precision` for the
    launch plan. (`"3xtf32"` is refused: it runs on `gemm_to_mma_sync`.)

    FP8 operands (`f8E4M3FN` or `f8E5M2`, both of one format; the accumulator
    f32) run only here: K-tiles of 128 elements (one 128-byte swizzle row,
    loaded by TMA as bytes), MMAs `m64nNk32` `.e4m3` or `.e5m2` accumulating
    in f32 registers. wgmma reads 8-bit operands K-major only, so A must be
    stored `[M, K]` and B `[N, K]` (as FP8 weights are kept); per-tensor
    scales are the epilogue's (a `linalg.generic` reading 0-d tensors).

    Persistent kernel (`persistent_blocks = P`, 0 by default): the launch
    gets `min(P, tiles)` blocks (P is usually the SM count) and each role
    loops over the tiles `block id, block id + P, ...` in the launch's
    order (`transform.vibegemm.group_blocks` applies as before). The
    producer clones the index computations its tile origins come from; the
    consumers run the launch body once per tile, so it may only compute
    views and indices besides the GEMM and its epilogue. Ring slots and
    mbarrier phases count on across tiles, so the producer loads the next
    tile while the consumers finish this one. Each consumer has its own
    staging tile beside the ring (not overlaying it) and finishes its rows
    in two halves of columns; the shared memory is the ring plus the
    consumers' staging. An `math.erf` in the epilogue becomes MLIR's
    branch-free polynomial (error ~2.5e-7) rather than libdevice's erff,
    whose branch between one tile's wgmmas and the next's made ptxas
    serialise every wgmma of the kernel (its warning C7520). The launch
    grid must be constant. The built-in
    scheduler chooses it, with `tma_store`, for whole 128x256 tiles of a
    16-bit output TMA can store when A is stored [M, K], and races it
    against one block per tile elsewhere
    (docs/benchmarks/h200-2026-12-05-mbarrier-tma).

    Clusters (`cluster_rows = 2`, 1 by default): the blocks run in
    clusters of two along grid y (recorded as `vibegemm.cluster =
    array<i64: 1, 2, 1>` on the launch; the lowering launches the kernel
    so, and its PTX says `.reqnctapercluster 1, 2, 1`). The two blocks of a
    cluster compute vertically adjacent tiles of the same columns, so they
    read the same B K-tiles: each block's producer loads one half of the
    B K-tile and multicasts it (`multicast_mask`) into both blocks' slots,
    halving B's traffic from L2 (cuBLAS's 2-CTA clusters). A slot is free
    again only when the consumers of both blocks released it: each consumer
    arrives on its own and its partner's "empty" mbarrier (`mapa`,
    `mbarrier.arrive.release.cluster`). The barriers' initialisation is
    made visible to the cluster (`fence.mbarrier_init`, cluster barrier)
    before any load, and both blocks pass a cluster barrier before they
    exit, so no remote arrive reaches a finished block. B's tile origin
    must not depend on the block's y id, which is checked: run
    `transform.vibegemm.group_blocks` after this op (it keeps cluster pairs
    together). Grid y must be a constant even number; B stored `[K, N]`
    needs a tile of a multiple of 128 columns. With `persistent_blocks`,
    the launch becomes `P / 2` clusters of 2 blocks (grid `P / 2 x 2`),
    each cluster taking pairs of vertically adjacent tiles.

    A persistent kernel owns its tile order: `group_rows = G` (1 by
    default, only with `persistent_blocks`) has its blocks take the tiles
    in groups of G rows, y fastest within a group (what `group_blocks`
    does for other launches; clusters keep their pairs). `group_blocks`
    applied before a persistent rewrite works too, but not with
    `cluster_rows`, whose check it fails.

    TMA store epilogue (`tma_store`, only with `persistent_blocks`): each
    consumer runs the epilogue on its accumulators in registers, writes the
    results in the output's element type to its own staging tile of
    64-row, 128-byte-wide boxes in TMA's 128-byte swizzle (conflict-free
    for the accumulator layout), fences them to the async proxy, and its
    first thread stores the boxes with `cp.async.bulk.tensor`. It does not
    wait for the stores:
    the next tile's epilogue waits until they have read the staging tile,
    and the block waits for them to complete before it exits. The staging
    tile is the widest pass of whole boxes that fits beside the ring (a
    128x256 bf16 tile: 256 columns beside 3 stages, 128 beside 4). The
    epilogue must write one `[M, N]` (or, batched, `[batch, M, N]` with a
    3-D tensor map and a batch box of 1) f32, f16 or bf16 buffer whose rows
    are a multiple of 16 bytes, a view of a whole buffer defined outside
    the launch. TMA clips a box only at the buffer's edges, so each tile
    must be the block's size or a ragged last tile ending at the buffer's
    edge, `min(block, extent - offset)` as tiling makes it (checked with
    value bounds); there the epilogue's loads are clamped inside the tile.
    Split-K's partial GEMMs are refused.

    Ping-pong consumers (`ping_pong`, only with `persistent_blocks` and two
    consumers; CUTLASS's schedule of that name): each
    consumer owns whole block tiles, the block's even tiles the first, its
    odd ones the second, so BM rounds up to 64 (not 128) and a consumer
    holds BM x BN accumulators (a 128x128 tile: 128 a thread). The
    producer fills the ring with one tile after the other as before; each
    slot has one consumer. The consumers take turns at the main loop,
    handing over through named barriers 4 and 5 once their last K-tile is
    issued, so one's epilogue (and its TMA store) runs while the other's
    wgmmas keep the tensor cores busy. The turns also keep a consumer from
    waiting on a slot's "full" mbarrier more than one phase ahead of the
    producer. With `cluster_rows = 2` both blocks of a cluster walk the
    same tile pairs, so the consumers that free a multicast slot in the
    two blocks own the same pair (its "empty" mbarrier counts two).

    Residual loads (`tma_load_residual`, only with `tma_store`): the
    epilogue's one input indexed, shaped and typed as the output (a
    residual `[M, N]` of the output's element type, read by one of the
    epilogue's generics) comes in by TMA rather than element by element:
    the consumer's first thread loads the tile's boxes of it into the
    staging tile (same boxes, same swizzle as the stores) on the consumer's
    own mbarrier, once the last stores have read the tile, and each thread
    reads its values where it then writes its results. The loads are issued
    before the tile's main loop (the residual's view is moved ahead of the
    GEMM when what it is computed from allows), so they arrive under the
    wgmmas. The whole tile must be staged at once (a 128x256 bf16 tile: 3
    stages): a second pass would load and wait while the accumulators of
    its columns are live, and ptxas then serialised every wgmma of the
    kernel (C7520). Its buffer must be one TMA can read as it stores the
    output (a view of a whole row-major buffer defined outside the launch,
    rows a multiple of 16 bytes).

    #### Return modes

    Consumes the `target` handle and produces a handle to the consumers' K
    loop (`scf.for`). Emits a silenceable failure, leaving the payload
    unchanged, when the target is not such a contraction, has a batch
    dimension not tiled to 1 or an operand indexed other than by a
    permutation, splits K into chunks that are not whole K-tiles or not
    just outside K, has other element types, has operands whose
    rows are not a multiple of 16 bytes or that are not views of whole
    buffers, does not span the whole K, when the tile or accumulators are
    too large, when the ring and staging tile exceed 227 KiB of shared
    memory, when a consumer is not an elementwise generic, or, with
    `persistent_blocks`, when the launch grid is not constant or the launch
    body has side effects besides the GEMM and its epilogue, or, with
    `cluster_rows = 2`, when grid y is not a constant even number, B's tile
    origin depends on the block's y id, B's tile cannot be split in halves
    of whole boxes, or the launch already has a cluster shape.
    With `tma_store`, it also fails when the epilogue does not write
    exactly one such output, a tile is neither whole nor ends at the
    buffer's edge, or the staging does not fit; with `tma_load_residual`,
    when the epilogue reads no such input, or more than one, its buffer is
    not one TMA reads, or the tile does not fit in one pass. `group_rows`
    other than 1, or `tma_store`, without `persistent_blocks` is a verifier
    error, and so are `ping_pong` without `persistent_blocks` or with other
    than two consumers, and `tma_load_residual` without
    `tma_store`.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "4">:$stages,
                   DefaultValuedAttr<I64Attr, "1">:$consumers,
                   OptionalAttr<StrAttr>:$f32_precision,
                   DefaultValuedAttr<I64Attr, "0">:$persistent_blocks,
                   DefaultValuedAttr<I64Attr, "1">:$cluster_rows,
                   DefaultValuedAttr<I64Attr, "1">:$group_rows,
                   UnitAttr:$tma_store,
                   UnitAttr:$ping_pong,
                   UnitAttr:$tma_load_residual);
  let results = (outs TransformHandleTypeInterface:$loop);

  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def GemmToBlockReduceOp : Op<Transform_Dialect, "vibegemm.gemm_to_block_reduce",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a block's few-output GEMM tile (a GEMV row) into a "
                "K-split block reduction";
  let description = [{
    Takes a bufferized `linalg` contraction computing one block's output
    tile of at most 16 outputs (for example one row of a matrix-vector
    product, the N dimension left whole) inside a `gpu.launch`, with f16,
    bf16 or f32 operands and an f32 accumulator, and replaces it with a
    memory-bound kernel body that spreads K over the block:
    - The launch gets `threads` threads along x. Thread t reads K chunks
      t, t + threads, ... of every A row and B column of the tile, 16 bytes
      at a time where both operands have unit stride along K and aligned
      rows (element by element otherwise), four chunks in flight, and keeps
      one f32 partial sum per output.
    - The partial sums are reduced by `gpu.shuffle xor` within each warp,
      then through a `warps x outputs` table in dynamic shared memory that
      one thread per output adds up in a fixed order, so results do not
      depend on scheduling.
    - That thread adds the fill value (or the output's old contents,
      without a fill), runs the elementwise `linalg.generic` consumers
      (bias, activations, scale, residual, truncation) and stores; outputs
      past a ragged edge are not stored.
    #### Return modes
    Consumes the `target` handle and produces a handle to the K loop
    (`scf.for`). Emits a silenceable failure, leaving the payload unchanged,
    when the target is not such a contraction, is not inside a `gpu.launch`
    or the launch already has threads, has other element types, has an
    operand indexed other than by a permutation, a batch dimension not tiled
    to 1, a tile of more than 16 outputs or without a static bound, or a
    consumer that is not an elementwise generic.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "256">:$threads);
  let results = (outs TransformHandleTypeInterface:$loop);
  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def SoftmaxToBlockReduceOp : Op<Transform_Dialect,
    "vibegemm.softmax_to_block_reduce",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a block's softmax rows into block-wide reductions";
  let description = [{
    Takes a bufferized `linalg.softmax` over its last dimension that
    computes one block's rows inside a `gpu.launch` (2-D, or N-D with every
    dimension before the rows of size 1, as a batch tiled to 1; f16, bf16 or
    f32 in
    and out, computed in f32), and replaces it with a kernel body in which
    the block's `threads` threads share each row:
    - Pass 1: each thread reads every `threads`-th chunk of the row (16
      bytes at a time where the rows allow it) and keeps a running maximum
      and a sum of exponentials rescaled to it (online softmax).
    - The pairs are combined by `gpu.shuffle xor` within each warp, then
      through a `warps x 2` table in dynamic shared memory that every
      thread combines in the same fixed order.
    - Pass 2: `exp(x - max) / sum`, rounded to the output type, is stored.
      The row is read twice; the second read mostly hits L2.
    Rows of any length work; the block's rows are processed one after the
    other.
    #### Return modes
    Consumes the `target` handle and produces a handle to the row loop
    (`scf.for`). Emits a silenceable failure, leaving the payload unchanged,
    when the target is not a bufferized `linalg.softmax`, is not inside a
    `gpu.launch` or the launch already has threads, is not over its last
    dimension, has leading dimensions not of size 1, has other element
    types, or has no static bound on its row count.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "256">:$threads);
  let results = (outs TransformHandleTypeInterface:$loop);
  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def AlignOperandRowsOp : Op<Transform_Dialect, "vibegemm.align_operand_rows",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Copies GEMM operands with misaligned rows into zero-padded "
                "buffers whose rows are multiples of 16 bytes";
  let description = [{
    Takes a bufferized two-operand `linalg` op (a block's GEMM tile) inside
    a `gpu.launch`. For each input whose underlying static buffer (followed
    through subviews and casts, defined outside the launch) has rows that
    are not a multiple of 16 bytes (K = 5921 in bf16, say), it adds before
    the launch:
    - a `memref.alloc` with the innermost dimension rounded up to 16 bytes,
      marked `vibegemm.zero_padded` with the data's row length;
    - a copy kernel (a `gpu.launch` of one 256-thread block per row) that
      writes the data and zeros after it;
    - a view of the copy with the original shape,
    and rebuilds the GEMM's subviews on that view. The GEMM's results do not
    change; its operands now have aligned rows, so
    `transform.vibegemm.gemm_to_wgmma` can read them with TMA (its K loop may
    run into the zero tail). A buffer read by both operands is copied once.
    Costs one extra read and write of each misaligned operand.

    `operands` (default both: `[0, 1]`) names the inputs to consider. The
    FFMA path (`transform.vibegemm.gemm_to_ffma`) gains only from aligning
    an operand whose rows run along M or N (its copies then move 16 bytes),
    so a schedule there names just that one.

    `row_bytes` (default 16, a power of two from 16 to 1024) is what the
    copy's rows are rounded up to. Which operands are copied does not
    depend on it (only rows that are not a multiple of 16 bytes are), but
    128 starts every row of the copy on a 128-byte line, so each 128-byte
    row piece of a TMA box is one line rather than two.
    #### Return modes
    Only reads the `target` handle (the GEMM stays the same op; a handle to
    it stays valid) and produces nothing. Emits a silenceable failure, leaving the payload unchanged,
    when the target is not a bufferized two-operand linalg op inside a
    `gpu.launch`, or an operand does not view a static buffer defined
    outside it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 1}">:$operands,
                   DefaultValuedAttr<I64Attr, "16">:$row_bytes);
  let assemblyFormat = [{
    $target attr-dict `:` type($target)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def GroupBlocksOp : Op<Transform_Dialect, "vibegemm.group_blocks",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Orders a launch's blocks in groups of rows along grid y, "
                "so the blocks running together share operand panels in L2";
  let description = [{
    Takes a `gpu.launch` whose blocks each compute one output tile, tile
    rows along grid y and columns along x (as the built-in schedules map
    M and N). The GPU starts blocks in linear order, x fastest, so the 132
    blocks resident at one time compute about one row of tiles and read all
    of B. This op renumbers the x and y block ids the body reads (its
    block-id arguments and every `gpu.block_id x`/`y` in it): the linear id
    `x + gx * y` walks groups of `group` rows, y fastest within a group
    (Triton's grouped order, `GROUP_SIZE_M`), so the resident blocks read
    `group` row panels of A and about `132 / group` column panels of B. The
    last group may hold fewer rows. The renumbering is a bijection of the
    grid: every tile is still computed exactly once. z (batch, split) is
    left alone.

    A launch whose blocks run in clusters of rows (`vibegemm.cluster =
    array<i64: 1, c, 1>`, from `gemm_to_wgmma {cluster_rows = c}`) is
    ordered by cluster: the grouped order runs over the `gx x gy / c` grid
    of clusters in groups of `group / c` cluster rows, and block y of a
    cluster becomes `c * y' + (y mod c)`, so the blocks of a cluster keep
    computing vertically adjacent tiles of one column.

    Apply it after `transform.gpu.map_forall_to_blocks` and before or after
    the kernel rewrite (`gemm_to_wgmma` and the others read the tile origins
    from whatever the body computes). A `group` of 1, or a grid of one row,
    leaves the order unchanged. Grid y may be a run-time size (rows of
    tiles over a run-time M, `map_forall_to_grid`): the order then reads it
    from the launch.

    #### Return modes

    Only reads the `target` handle and produces nothing. Emits a
    silenceable failure, leaving the payload unchanged, when the target is
    not a `gpu.launch` or its x grid size is not a constant, or its
    cluster shape is not whole rows along y (`1 x c x 1`, c dividing a
    constant grid y).
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                   DefaultValuedAttr<I64Attr, "8">:$group);
  let assemblyFormat = [{
    $target attr-dict `:` type($target)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
  let hasVerifier = 1;
}

def MapForallToGridOp : Op<Transform_Dialect, "vibegemm.map_forall_to_grid",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Maps a block forall to a gpu.launch whose grid is computed "
                "at run time";
  let description = [{
    `transform.gpu.map_forall_to_blocks generate_gpu_launch` for a forall
    whose trip counts may be dynamic: a GEMM over a run-time M tiles into
    `ceildiv(M, block_m)` rows of blocks. The target is a normalized,
    bufferized `scf.forall` mapped to distinct `#gpu.block<x|y|z>`, outside
    any launch. It becomes a `gpu.launch` whose grid sizes are the forall's
    upper bounds, computed on the host before the launch (1 where no
    dimension is mapped), with block sizes of 1 (the kernel rewrites and
    `map_nested_forall_to_threads` set them), and whose block ids replace
    the induction variables. Static trip counts give the launch upstream's
    op would.

    #### Return modes

    Consumes the target handle and returns the `gpu.launch`. Emits a
    silenceable failure, leaving the payload unchanged, when the target is
    not such a forall.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$launch);
  let assemblyFormat = [{
    $target attr-dict `:` functional-type($target, $launch)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def SplitKOp : Op<Transform_Dialect, "vibegemm.split_k",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformEachOpTrait, TransformOpInterface,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Splits a contraction's K into parallel partial GEMMs and a "
                "combining sum, over static or run-time output sizes";
  let description = [{
    `transform.structured.split_reduction` with the split dimension
    leading (`insert_split_dimension = 0`), for a target whose output may
    have dynamic sizes: a GEMM over a run-time M (a bucket of M). Upstream's
    op builds the partials' `tensor.empty` from static sizes only, which
    leaves a `tensor<2x?xNxf32>` without its size operand; here it takes
    `tensor.dim` of the output for each dynamic size. On static shapes the
    result is upstream's.

    The target must be a linalg op on tensors with one output and one
    reduction dimension, whose size is static and a multiple of
    `split_factor` (at least 2). The partial op computes
    `[split_factor, output dims...]` in the accumulator type, initialized by
    a fill of the combiner's neutral element; the combining op sums over the
    split dimension into the original output.

    #### Return modes

    Consumes the target handle and returns, in order, the partials'
    `tensor.empty`, its fill, the partial op and the combining op. Emits a
    silenceable failure, leaving the payload unchanged, when the target
    does not fit.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                   ConfinedAttr<I64Attr, [IntMinValue<2>]>:$split_factor);
  let results = (outs TransformHandleTypeInterface:$init_or_alloc_op,
                      TransformHandleTypeInterface:$fill_op,
                      TransformHandleTypeInterface:$split_linalg_op,
                      TransformHandleTypeInterface:$combining_linalg_op);
  let assemblyFormat = [{
    $target attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$target, "int64_t":$splitFactor), [{
      ::mlir::Type any =
          ::mlir::transform::AnyOpType::get($_builder.getContext());
      build($_builder, $_state, any, any, any, any, target,
            $_builder.getI64IntegerAttr(splitFactor));
    }]>
  ];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // VIBEGEMM_TRANSFORM_OPS
