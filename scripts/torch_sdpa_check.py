#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention through `tolproof check` (issue 12, item 4).

Run on a GPU host with PyTorch, after a harness of an attention contract
wrote its cases' inputs (`HARNESS --out RUN --dump-inputs`):

    scripts/torch_sdpa_check.py --tolproof TOLPROOF --plan PLAN.json --run RUN \
        [--causal] --out DIR

For every case under RUN/outputs/, it runs
torch.nn.functional.scaled_dot_product_attention on the case's fp16 Q, K, V
with the flash backend forced (FlashAttention-2), saves O as
DIR/CASE/O.npy, and checks it with `tolproof check` under the closest
rigorous superset of that kernel's arithmetic the model can state
(docs/attention.md, "PyTorch's kernel"):

    exp = "exp2f_scaled"            exp2f(fma(s, c, -RN32(m c))), subnormals flushed
    final = "reciprocal"            O = acc * (1 / l)
    score_accumulation = "fp32_faithful", pv_accumulation = "fp32_faithful"
                                    tensor-core products, each addition within one ulp
    min_tile_keys = 16

It prints one line per case and writes DIR/summary.json.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

import numpy as np
import torch

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def flash_only():
        return sdpa_kernel(SDPBackend.FLASH_ATTENTION)
except ImportError:  # PyTorch before 2.3
    def flash_only():
        return torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False)

MODEL = [
    "exp=exp2f_scaled",
    "final=reciprocal",
    "score_accumulation=fp32_faithful",
    "pv_accumulation=fp32_faithful",
    "min_tile_keys=16",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tolproof", required=True, help="the tolproof command")
    ap.add_argument("--plan", required=True, help="the contract's plan JSON")
    ap.add_argument("--run", required=True, help="a harness run directory written with --dump-inputs")
    ap.add_argument("--causal", action="store_true", help="is_causal=True (contract attention_fwd_causal)")
    ap.add_argument("--out", required=True, help="where O.npy and the results go")
    a = ap.parse_args()
    cases = sorted(glob.glob(os.path.join(a.run, "outputs", "*", "input_Q.npy")))
    if not cases:
        sys.exit("torch_sdpa_check: no dumped inputs under %s/outputs (run the harness with --dump-inputs)" % a.run)
    summary = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(),
               "backend": "flash", "model": MODEL, "cases": []}
    for q_path in cases:
        case_dir = os.path.dirname(q_path)
        name = os.path.basename(case_dir)
        q, k, v = (torch.from_numpy(np.load(os.path.join(case_dir, "input_%s.npy" % t))).cuda() for t in "QKV")
        with flash_only():
            o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
        out = os.path.join(a.out, name)
        os.makedirs(out, exist_ok=True)
        np.save(os.path.join(out, "O.npy"), o.cpu().numpy())
        cmd = [a.tolproof, "check", "--contract", a.plan, "--output", "O=" + os.path.join(out, "O.npy"),
               "--json", os.path.join(out, "check.json")]
        for t in "QKV":
            cmd += ["--input", "%s=%s" % (t, os.path.join(case_dir, "input_%s.npy" % t))]
        for m in MODEL:
            cmd += ["--model", m]
        r = subprocess.run(cmd, capture_output=True, text=True)
        line = (r.stdout + r.stderr).strip().splitlines()
        verdict = next((x for x in line if x.startswith("output O")), line[-1] if line else "")
        summary["cases"].append({"case": name, "exit": r.returncode, "result": verdict})
        print("%s: exit %d: %s" % (name, r.returncode, verdict), flush=True)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
