#!/usr/bin/env python3
"""Annotates a pinned CUTLASS checkout's Hopper GEMM headers where their pipeline lives.

    annotate.py CUTLASS_DIR OUT_DIR [--no-dag] [--sample=ctas | --placement=roles|top|sample|sample64|sampleall|sampleall64|tiles]

Copies CUTLASS_DIR/include to OUT_DIR/include and inserts cutrace annotations, each on a line of
its own, after anchor lines found in order (each anchor is searched from the previous one on), so
that stripping the copy gives back the original byte for byte. The kernels' operator() declares
the rows (a producer row, one consumer row per warpgroup) and the flow; the collective mainloop's
load() and mma() hold the per-k-tile ranges, with the pipeline's k-tile sequence number
(PipelineState::count()) as payload so that each consume pairs with the load of its tile. In the
cooperative kernel the producer's load() and the consumers' tile from its accumulators on are
sampled by tile (`TRACE_SAMPLE`, `TRACE_SAMPLE_REST`): they record the tiles whose (M, N) index
sum is a multiple of CUTRACE_BENCH_TILE_SAMPLE, a macro the traced builds define (1: every tile,
the condition folds to true; 8: one tile in 8). With
--sample=ctas, the TRACE_SAMPLE stands before the producer's and the consumers' tile loops instead
and keeps the CTAs whose blockIdx.x is a multiple of it.

--placement=P annotates for the sweep (bench/cutlass/sweep.py) instead: the three warp-specialized
kernels (plain, cooperative, ping-pong) and the SS, FP8 and RS mainloops, with the groups
  roles   in each role's branch (a producer row, a row per consumer warpgroup);
  top     together at the top of operator(), before the body's architecture guard;
  sample  as roles, and a TRACE_SAMPLE(blockIdx.x % 8 == 0) before each mma() k-loop's
          CUTLASS_PRAGMA_NO_UNROLL (one CTA in 8 records the loop);
  sample64  the same with blockIdx.x % 64 (one CTA in 64).
  sampleall, sampleall64  as sample and sample64, and the producer's k-loop in load() sampled
          alike, so that a CTA left out records nothing per k-tile.
  tiles   the cooperative kernel only: its rows, a record per tile before the producer's
          load() and a range over the consumers' epilogue; no marker in any k-loop.
Exits 1, writing nothing, when an anchor is missing (another CUTLASS version).
"""
import shutil
import sys
from pathlib import Path

INCLUDE = '#include <cutrace/trace.h>'

# (anchor, inserted line or lines[, BEFORE]) in file order; the inserted text goes on the lines
# after the anchor's line, indented as the line after it (or one level deeper when the anchor opens
# a block), or, marked BEFORE, on the lines before it at its indentation. An entry that inserts
# nothing passes over an anchor.
BEFORE = 'before'
TILE_SAMPLED = '(work_tile_info.M_idx + work_tile_info.N_idx) % CUTRACE_BENCH_TILE_SAMPLE == 0'
SAMPLE = f'TRACE_SAMPLE({TILE_SAMPLED});'
SAMPLE_REST = f'TRACE_SAMPLE_REST({TILE_SAMPLED});'
# --sample=ctas: the producer's and the consumers' whole tile loops sampled by CTA instead.
SAMPLE_CTAS = 'TRACE_SAMPLE(blockIdx.x % CUTRACE_BENCH_TILE_SAMPLE == 0);'
KERNEL_COOPERATIVE_CTAS = [
    ('#pragma once', [INCLUDE]),
    ('operator()(Params const& params, char* smem_buf) {', ['TRACE_DAG("load_tile", "consume");']),
    ('if (producer_warp_role == ProducerWarpRole::Mainloop) {', ['TRACE_GROUP("producer", 0);']),
    ('while (work_tile_info.is_valid()) {', [SAMPLE_CTAS], BEFORE),
    ('else if (warp_group_role == WarpGroupRole::Consumer0 || warp_group_role == WarpGroupRole::Consumer1) {',
     ['TRACE_GROUPS("consumer", 128, 128);']),
    ('while (work_tile_info.is_valid()) {', [SAMPLE_CTAS], BEFORE),
    ('if (TileScheduler::compute_epilogue(work_tile_info, params.scheduler)) {',
     ['TRACE_RANGE("epilogue", "epi");']),
]
KERNEL_COOPERATIVE = [
    ('#pragma once', [INCLUDE]),
    ('operator()(Params const& params, char* smem_buf) {', ['TRACE_DAG("load_tile", "consume");']),
    ('if (producer_warp_role == ProducerWarpRole::Mainloop) {', ['TRACE_GROUP("producer", 0);']),
    ('collective_mainloop.load(', [SAMPLE], BEFORE),
    ('else if (warp_group_role == WarpGroupRole::Consumer0 || warp_group_role == WarpGroupRole::Consumer1) {',
     ['TRACE_GROUPS("consumer", 128, 128);']),
    # The consumers' rest of the tile, from the accumulators' declaration on: a TRACE_SAMPLE of
    # the mma() call alone leaves the accumulators live across the two copies, and ptxas then
    # serializes every wgmma of the twin (C7515; bench/results/2026-12-03-cutlass-sampled/).
    ('auto work_k_tile_count = TileScheduler::get_work_k_tile_count(work_tile_info, problem_shape_MNKL, blk_shape);',
     [SAMPLE_REST]),
    ('if (TileScheduler::compute_epilogue(work_tile_info, params.scheduler)) {',
     ['TRACE_RANGE("epilogue", "epi");']),
]
KERNEL_PINGPONG = [
    ('#pragma once', [INCLUDE]),
    ('operator()(Params const& params, char* smem_buf) {', ['TRACE_DAG("load_tile", "consume");']),
    ('if (producer_warp_role == ProducerWarpRole::Mainloop) {', ['TRACE_GROUP("producer", 0);']),
    ('else if (warp_group_role == WarpGroupRole::Consumer0 || warp_group_role == WarpGroupRole::Consumer1) {',
     ['TRACE_GROUPS("consumer", 128, 128);']),
]
MAINLOOP = [
    ('#pragma once', [INCLUDE]),
    ('pipeline.producer_acquire(smem_pipe_write);',
     ['TRACE_RANGE("load_tile", "tma", smem_pipe_write.count());']),
    ('pipeline.consumer_wait(smem_pipe_read, barrier_token);',
     ['TRACE_RANGE("consume", "mma", smem_pipe_read.count());']),
    ('pipeline.consumer_wait(smem_pipe_read, barrier_token);',
     ['TRACE_RANGE("consume", "mma", smem_pipe_read.count());']),
    ('pipeline.consumer_wait(smem_pipe_read, barrier_token);',
     ['TRACE_RANGE("consume", "mma", smem_pipe_read.count());']),
]

MAINLOOP_FP8 = MAINLOOP[:4]  # its prologue is a loop: one wait there, one in the main loop

# The sweep's placements (--placement).
OPERATOR = 'operator()(Params const& params, char* smem_buf) {'
DAG = 'TRACE_DAG("load_tile", "consume");'
PRODUCER = 'TRACE_GROUP("producer", 0);'
CONSUMERS = 'TRACE_GROUPS("consumer", 128, 128);'
CONSUMER_BRANCH = ('else if (warp_group_role == WarpGroupRole::Consumer0 || '
                   'warp_group_role == WarpGroupRole::Consumer1) {')
ROLE_KERNELS = {
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp': [
        ('#pragma once', [INCLUDE]), (OPERATOR, [DAG]),
        ('if (producer_warp_role == ProducerWarpRole::MainloopEpilogue) {', [PRODUCER]),
        ('else if (warp_group_role == WarpGroupRole::Consumer) {', [CONSUMERS])],
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp': [
        ('#pragma once', [INCLUDE]), (OPERATOR, [DAG]),
        ('if (producer_warp_role == ProducerWarpRole::Mainloop) {', [PRODUCER]),
        (CONSUMER_BRANCH, [CONSUMERS])],
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp': KERNEL_PINGPONG,
}
TOP_KERNELS = {rel: [('#pragma once', [INCLUDE]), (OPERATOR, [DAG, PRODUCER, CONSUMERS])]
               for rel in ROLE_KERNELS}
LOAD = ('pipeline.producer_acquire(smem_pipe_write);',
        ['TRACE_RANGE("load_tile", "tma", smem_pipe_write.count());'])
CONSUME = ('pipeline.consumer_wait(smem_pipe_read, barrier_token);',
           ['TRACE_RANGE("consume", "mma", smem_pipe_read.count());'])
def k_loop_sample(n):
    return ('CUTLASS_PRAGMA_NO_UNROLL', [f'TRACE_SAMPLE(blockIdx.x % {n} == 0);'], BEFORE)


SS = 'cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp'
FP8 = 'cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp'
RS = 'cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized.hpp'


def mainloops(sampled, producer=False):
    """Each mainloop's anchors in file order: its load's k-loop (sampled too when `producer`: a
    TRACE_SAMPLE before its pragma, the first of the file) and acquire, the waits of its
    prologue, the k-loop (sampled, one CTA in N: a TRACE_SAMPLE before its pragma) and the
    k-loop's wait."""
    k_loop = [k_loop_sample(sampled)] if sampled else []
    head = [('#pragma once', [INCLUDE])] + (k_loop if producer else []) + [LOAD]
    return {SS: head + [CONSUME, CONSUME] + k_loop + [CONSUME],
            FP8: head + [CONSUME] + k_loop + [CONSUME],
            RS: head + [CONSUME, CONSUME] + k_loop + [CONSUME]}


# `tiles`: the cooperative kernel's rows with one record per tile on each side (the producer's
# before its load(), a range over the consumers' epilogue) and nothing in any k-loop: what the
# twin costs where no marker stands inside a loop with wgmma.
TILE_KERNELS = {
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp': [
        ('#pragma once', [INCLUDE]),
        ('if (producer_warp_role == ProducerWarpRole::Mainloop) {', [PRODUCER]),
        ('collective_mainloop.load(', ['TRACE_RECORD("tile_load");'], BEFORE),
        (CONSUMER_BRANCH, [CONSUMERS]),
        ('if (TileScheduler::compute_epilogue(work_tile_info, params.scheduler)) {',
         ['TRACE_RANGE("epilogue", "epi");'])],
}

PLACEMENTS = {
    'roles': {**ROLE_KERNELS, **mainloops(0)},
    'top': {**TOP_KERNELS, **mainloops(0)},
    'sample': {**ROLE_KERNELS, **mainloops(8)},
    'sample64': {**ROLE_KERNELS, **mainloops(64)},
    'sampleall': {**ROLE_KERNELS, **mainloops(8, producer=True)},
    'sampleall64': {**ROLE_KERNELS, **mainloops(64, producer=True)},
    'tiles': TILE_KERNELS,
}

FILES = {
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp': KERNEL_COOPERATIVE,
    'cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp': KERNEL_PINGPONG,
    'cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp': MAINLOOP,
    'cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp': MAINLOOP_FP8,
}


def indent_of(line):
    return line[:len(line) - len(line.lstrip(' '))]


def annotate(text, edits, with_dag):
    lines = text.split('\n')
    at = 0
    for anchor, inserted, *where in edits:
        found = next((i for i in range(at, len(lines)) if lines[i].strip() == anchor), None)
        if found is None:
            raise LookupError(anchor)
        at = found + 1
        if not with_dag:
            inserted = [t for t in inserted if not t.startswith('TRACE_DAG')]
        if where == [BEFORE]:
            lines[found:found] = [indent_of(lines[found]) + t for t in inserted]
            at += len(inserted)
            continue
        if anchor.endswith('{'):
            pad = indent_of(lines[found]) + '  '
        else:
            pad = indent_of(lines[found])
        lines[at:at] = [pad + t for t in inserted]
        at += len(inserted)
    return '\n'.join(lines)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    if len(args) != 2:
        print(__doc__.strip().split('\n')[2].strip(), file=sys.stderr)
        return 2
    src, out = Path(args[0]) / 'include', Path(args[1]) / 'include'
    with_dag = '--no-dag' not in argv
    files = dict(FILES)
    placement = next((a.split('=', 1)[1] for a in argv if a.startswith('--placement=')), None)
    if placement is not None:
        if placement not in PLACEMENTS:
            print(f'unknown placement {placement}: one of {", ".join(PLACEMENTS)}', file=sys.stderr)
            return 2
        files = dict(PLACEMENTS[placement])
    if '--sample=ctas' in argv:
        files['cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp'] = \
            KERNEL_COOPERATIVE_CTAS
    annotated = {}
    for rel, edits in files.items():
        try:
            annotated[rel] = annotate((src / rel).read_text(), edits, with_dag)
        except LookupError as missing:
            print(f'{src / rel}: anchor not found: {missing}', file=sys.stderr)
            return 1
    tmp = out.with_name(out.name + '.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    for rel, text in annotated.items():
        (tmp / rel).write_text(text)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    for rel in files:
        print(out / rel)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
