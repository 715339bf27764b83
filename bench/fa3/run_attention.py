#!/usr/bin/env python3
"""FlashAttention-3's forward pass on one shape, checked against PyTorch's math attention, then
run N times: the workload bench/fa3/gpu_run.sh records and times.

    run_attention.py HOPPER_DIR [--batch 4] [--seqlen 4096] [--heads 16] [--causal] [--iters 30]

HOPPER_DIR is the built hopper/ folder (flash_attn_3/_C*.so in it). Prints `Passed` when the
output matches the reference (max abs error under 2e-2 in bf16), `Failed` and exits 1 otherwise.
"""
import argparse
import sys

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('hopper')
    ap.add_argument('--batch', type=int, default=4)
    ap.add_argument('--seqlen', type=int, default=4096)
    ap.add_argument('--heads', type=int, default=16)
    ap.add_argument('--causal', action='store_true')
    ap.add_argument('--iters', type=int, default=30)
    a = ap.parse_args()
    sys.path.insert(0, a.hopper)
    from flash_attn_interface import flash_attn_func

    torch.manual_seed(0)
    shape = (a.batch, a.seqlen, a.heads, 128)
    q, k, v = (torch.randn(shape, device='cuda', dtype=torch.bfloat16) for _ in range(3))
    out = flash_attn_func(q, k, v, causal=a.causal)
    ref = torch.nn.functional.scaled_dot_product_attention(
        q.transpose(1, 2).float(), k.transpose(1, 2).float(), v.transpose(1, 2).float(),
        is_causal=a.causal).transpose(1, 2)
    err = (out.float() - ref).abs().max().item()
    for _ in range(a.iters):
        flash_attn_func(q, k, v, causal=a.causal)
    torch.cuda.synchronize()
    ok = err < 2e-2
    print(f'{"Passed" if ok else "Failed"}: {a.batch}x{a.seqlen}x{a.heads}x128 bf16'
          f'{" causal" if a.causal else ""}, max abs error {err:.2e}, {a.iters} more launches')
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
