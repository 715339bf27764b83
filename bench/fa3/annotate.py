#!/usr/bin/env python3
"""Annotates FlashAttention-3's Hopper forward kernel (Dao-AILab/flash-attention, hopper/) where a
kernel engineer would, for bench/fa3/.

    annotate.py HOPPER_DIR OUT_DIR [--placement=roles|sample]

Copies HOPPER_DIR to OUT_DIR and inserts cutrace annotations, each on lines of its own, at
anchor lines found in order (each anchor is searched from the previous one on), so that
stripping the copy gives back FlashAttention-3's files byte for byte:
  flash_fwd_kernel_sm90.h          the producer warpgroup's row (TRACE_GROUP in its branch of
                                   operator()) and one row per consumer warpgroup (TRACE_GROUPS);
  mainloop_fwd_sm90_tma_gmma_ws.hpp
    load()   per K and V tile: the wait for a free stage (producer_acquire) and the TMA issue;
    mma()    per K/V tile of the steady-state step (fwd_step, intra-warpgroup overlap): the wait
             for K, the QK GEMM (issued with the previous tile's PV GEMM and waited for with
             warpgroup_wait<1>), the online softmax, and the rest of the PV GEMM (warpgroup_wait<0>).
--placement=sample adds TRACE_SAMPLE(blockIdx.x % 8 == 0) before the producer's load() call and
the consumers' mma() call in operator(): the CTAs whose blockIdx.x is a multiple of 8 record
their tiles, the others run the original calls. A sample inside mma()'s k-loop would
sample nothing: the loop's body is a lambda defined before it (fwd_step), whose markers record in
both copies of the loop. Exits 1, writing nothing, when an anchor is missing (another
FlashAttention-3 version).
"""
import shutil
import sys
from pathlib import Path

INCLUDE = '#include <cutrace/trace.h>'
BEFORE = 'before'

SAMPLE = 'TRACE_SAMPLE(blockIdx.x % 8 == 0);'


def kernel(placement):
    sample = placement == 'sample'
    return [
        ('#include "cute/tensor.hpp"', [INCLUDE]),
        ('if (warp_group_idx == 0) {  // Producer', ['TRACE_GROUP("producer", 0);']),
        ('mainloop.load(params.mainloop, pipeline_k, pipeline_v, pipeline_vt, smem_pipe_write,',
         [SAMPLE] if sample else [], BEFORE),
        ('} else {  // Consumer', ['TRACE_GROUPS("consumer", 128, 128);']),
        ('tile_valid = mainloop.mma(', [SAMPLE] if sample else [], BEFORE),
    ]


def mainloop():
    edits = [
        ('#include "cute/tensor.hpp"', [INCLUDE]),
        # load(): K then V, each a wait for a free stage and the TMA issue.
        ('auto load_K = [&] (int const n_block, auto const& smem_pipe_write, auto need_seqlenk_masking_type) {',
         ['auto wait_k_slot = TRACE_RANGE_START("wait_k_slot", "tma");']),
        ('pipeline_k.producer_acquire(smem_pipe_write);',
         ['TRACE_RANGE_END(wait_k_slot);', 'TRACE_RANGE("load_k", "tma");']),
        ('pipeline_v_load.producer_acquire(smem_pipe_write);',
         ['auto wait_v_slot = TRACE_RANGE_START("wait_v_slot", "tma");'], BEFORE),
        ('if constexpr (!PagedKVNonTMA) {', ['TRACE_RANGE_END(wait_v_slot);', 'TRACE_RANGE("load_v", "tma");'],
         BEFORE),
        # mma(), intra-warpgroup overlap, the steady-state step.
        ('if (!UseSchedulerBarrier || warp_group_idx == 0) { consumer_wait(pipeline_k, smem_pipe_read); }',
         ['auto wait_k = TRACE_RANGE_START("wait_k", "mma");'], BEFORE),
        ('if (!UseSchedulerBarrier || warp_group_idx == 0) { consumer_wait(pipeline_k, smem_pipe_read); }',
         ['TRACE_RANGE_END(wait_k);']),
        ('flash::gemm</*zero_init=*/true, /*wg_wait=*/-1>(tiled_mma_qk',
         ['auto qk = TRACE_RANGE_START("qk", "mma");'], BEFORE),
        ('warpgroup_wait<1>();', ['TRACE_RANGE_END(qk);']),
        ('scoremod_premask_fn(tSrS);', ['auto softmax_range = TRACE_RANGE_START("softmax", "mma");'], BEFORE),
        ('softmax.template online_softmax</*Is_first=*/false, Check_inf>(tSrS);',
         ['TRACE_RANGE_END(softmax_range);']),
        ('if constexpr (!HasQv) {', ['TRACE_RANGE("pv", "mma");']),
    ]
    return edits


def apply(text, edits, name):
    lines = text.split('\n')
    at = 0
    for edit in edits:
        anchor, inserted = edit[0], edit[1]
        before = len(edit) > 2 and edit[2] == BEFORE
        first = anchor.split('\n')[0].strip()
        span = anchor.count('\n') + 1
        for i in range(at, len(lines)):
            if lines[i].strip() == first or (span == 1 and first in lines[i]):
                if span > 1 and '\n'.join(l.strip() for l in lines[i:i + span]) != \
                        '\n'.join(l.strip() for l in anchor.split('\n')):
                    continue
                break
        else:
            sys.exit(f'annotate.py: {name}: anchor not found after line {at + 1}: {first}')
        if not inserted:
            at = i
            continue
        if before:
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines[i:i] = [indent + t for t in inserted]
            at = i + len(inserted)
        else:
            nxt = lines[i + span] if i + span < len(lines) else ''
            indent = nxt[:len(nxt) - len(nxt.lstrip())]
            if lines[i + span - 1].rstrip().endswith('{') and len(indent) <= len(lines[i]) - len(lines[i].lstrip()):
                indent += '    '
            lines[i + span:i + span] = [indent + t for t in inserted]
            at = i + span + len(inserted)
    return '\n'.join(lines)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    placement = 'roles'
    for a in sys.argv[1:]:
        if a.startswith('--placement='):
            placement = a.split('=', 1)[1]
        elif a in ('-h', '--help'):
            print(__doc__)
            return
    if len(args) != 2 or placement not in ('roles', 'sample'):
        sys.exit(__doc__)
    src, out = Path(args[0]), Path(args[1])
    files = {'flash_fwd_kernel_sm90.h': kernel(placement),
             'mainloop_fwd_sm90_tma_gmma_ws.hpp': mainloop()}
    texts = {f: apply((src / f).read_text(), e, f) for f, e in files.items()}
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out)
    for f, t in texts.items():
        (out / f).write_text(t)
        print(out / f)


if __name__ == '__main__':
    main()
