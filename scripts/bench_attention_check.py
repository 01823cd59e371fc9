#!/usr/bin/env python3
"""Inputs for timing `tolproof check` of a large attention (issue 12: 8x16x4096x128).

On a GPU host with PyTorch:

    scripts/bench_attention_check.py DIR B H L D
    time TOLPROOF check --contract PLAN --input Q=DIR/Q.npy --input K=DIR/K.npy \
        --input V=DIR/V.npy --output O=DIR/O.npy --timings

writes random normal fp16 Q, K, V (seed 12345) and PyTorch's
scaled_dot_product_attention O as .npy files, and prints, as the baseline,
the time of SDPA and of what users run instead of a rigorous check: a
float64 SDPA on the GPU plus torch.allclose(atol=1e-2).
"""
import sys
import time

import numpy as np
import torch

out = sys.argv[1]
B, H, L, D = (int(x) for x in sys.argv[2:6])
g = torch.Generator(device="cuda").manual_seed(12345)
q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
torch.cuda.synchronize()
t = time.time()
o = torch.nn.functional.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
print("sdpa %.4f s" % (time.time() - t))
t = time.time()
o64 = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double())
ok = torch.allclose(o.double(), o64, atol=1e-2, rtol=0)
torch.cuda.synchronize()
print("float64 reference + allclose %.4f s (allclose %s)" % (time.time() - t, ok))
for n, x in (("Q", q), ("K", k), ("V", v), ("O", o)):
    np.save("%s/%s.npy" % (out, n), x.cpu().numpy())
print(torch.__version__, torch.version.cuda)
