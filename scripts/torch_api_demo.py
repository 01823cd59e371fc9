#!/usr/bin/env python3
"""tolproof's Python API on real PyTorch CUDA tensors (issue 13 item 5):
torch.matmul, F.softmax, F.layer_norm, F.gelu(approximate="tanh") and the
backward of F.embedding, each checked against its contract straight from
the CUDA tensors (tolproof.check copies them to the host), plus the time
of tolproof.check against the file-based command (np.save, `tolproof
check --json`, json.load) on the same 1024^3 GEMM.

    scripts/gpu_carry.sh                      # here: build/carry/ (library, plans, command, shared libs)
    TOLPROOF_LIB=build/carry/libtolproof.so PYTHONPATH=python \\
        python3 scripts/torch_api_demo.py --out DIR --tolproof build/carry/tolproof

on the GPU host (Python with NumPy and PyTorch; no Debian packages
needed). Writes DIR/NAME.json (each result, as `tolproof check --json`
writes it), DIR/NAME.txt (the summary) and DIR/summary.json (verdicts,
devices, versions, timings), and prints the summaries.

A check with violations "more accurate than the declared model admits"
is run again with the model values the checker names for them
(admitted_by), and both results are kept: the contract's model says what
the repository's kernels do, not what cuBLAS or PyTorch's kernels do.
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import tolproof  # noqa: E402


def finite_json(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    if isinstance(v, dict):
        return {k: finite_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [finite_json(x) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="torch_api_demo", help="where the results go (default: %(default)s)")
    ap.add_argument("--tolproof", default=None, help="the tolproof command, for the file-based timing")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--device", default="cuda", help="torch device (default %(default)s; cpu for a dry run)")
    a = ap.parse_args()
    dev = torch.device(a.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_api_demo: no CUDA device (torch.cuda.is_available() is False)")
    torch.manual_seed(a.seed)
    os.makedirs(a.out, exist_ok=True)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else platform.processor() or "cpu"
    summary = {"device": name, "torch": torch.__version__, "cuda": torch.version.cuda,
               "numpy": np.__version__, "python": platform.python_version(), "tolproof_lib": tolproof._native.library().path,
               "seed": a.seed, "checks": [], "timing": {}}

    def record(name, contract, inputs, outputs, model=None, dims=None):
        t0 = time.perf_counter()
        r = tolproof.check(contract, inputs=inputs, outputs=outputs, model=model, dims=dims)
        dt = time.perf_counter() - t0
        entry = {"name": name, "contract": contract, "model_overrides": model or {}, "verdict": r.verdict,
                 "seconds": round(dt, 4),
                 "outputs": {k: {"elements": o.elements, "violations": o.violations,
                                 "max_err_over_bound": o.max_err_over_bound, "max_ulp_err": o.max_ulp_err,
                                 "more_accurate": o.more_accurate, "claim": o.claim.get("verdict")}
                             for k, o in r.outputs.items()}}
        summary["checks"].append(entry)
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            f.write(r.to_json())
        with open(os.path.join(a.out, name + ".txt"), "w") as f:
            f.write(str(r) + "\n")
        print("== %s: tolproof.check(%r%s) in %.3f s" % (name, contract, ", model=%r" % model if model else "", dt))
        print(r)
        print()
        # violations more accurate than the model admits: try the model
        # values the checker names for them
        alt = {}
        for o in r.outputs.values():
            if o.violations and o.more_accurate:
                for ab in o.admitted_by:
                    alt[ab["key"]] = ab["value"]
        if alt and not model:
            record(name + "_" + "_".join("%s_%s" % kv for kv in alt.items()), contract, inputs, outputs, alt, dims)
        return r

    half = dict(dtype=torch.float16, device=dev)

    def run(f, *args, **kw):
        """f on the device; a CPU dry run (--device cpu, where PyTorch
        lacks many fp16 kernels) computes in fp32 and rounds to fp16 once,
        which only exercises this script: the results of interest are the
        GPU's."""
        if dev.type != "cpu":
            return f(*args, **kw)
        up = [x.float() if torch.is_tensor(x) and x.dtype == torch.float16 else x for x in args]
        return f(*up, **kw).half()

    # torch.matmul, 1024^3 (cuBLAS)
    A, B = torch.randn(1024, 1024, **half), torch.randn(1024, 1024, **half)
    C = run(torch.matmul, A, B)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    r = record("matmul_1024", "gemm_fwd", {"A": A, "B": B}, {"C": C})
    if not r.passed:  # cuBLAS may accumulate with other than round-to-nearest adds
        record("matmul_1024_fp32_faithful", "gemm_fwd", {"A": A, "B": B}, {"C": C},
               model={"accumulation": "fp32_faithful"})
    A2, B2 = torch.randn(256, 4096, **half), torch.randn(4096, 512, **half)
    record("matmul_256x4096x512", "gemm_fwd", {"A": A2, "B": B2}, {"C": run(torch.matmul, A2, B2)})

    # the same GEMM: the API against the file-based command
    t0 = time.perf_counter()
    tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C})
    t_api = time.perf_counter() - t0
    summary["timing"]["api_seconds_1024_gemm"] = round(t_api, 4)
    if a.tolproof:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            for n, t in (("A", A), ("B", B), ("C", C)):
                np.save(os.path.join(d, n + ".npy"), t.cpu().numpy())
            p = subprocess.run([a.tolproof, "check", "--contract", "gemm_fwd", "--input", "A=" + d + "/A.npy",
                                "--input", "B=" + d + "/B.npy", "--output", "C=" + d + "/C.npy",
                                "--json", d + "/r.json"], capture_output=True, text=True)
            with open(d + "/r.json") as f:
                json.load(f)
            t_cli = time.perf_counter() - t0
        summary["timing"].update(file_based_seconds_1024_gemm=round(t_cli, 4), ratio_file_over_api=round(t_cli / t_api, 3),
                                 file_based_exit=p.returncode)
        print("== 1024^3 GEMM: tolproof.check %.3f s, file-based command %.3f s (np.save x3, tolproof check --json, "
              "json.load): ratio %.2f\n" % (t_api, t_cli, t_cli / t_api))

    # F.softmax over the last dim: a 32000-word row and a 1024 one
    for R, n in ((16, 32000), (256, 1024)):
        x = (torch.randn(R, n, device=dev) * 3).half()
        record("softmax_%dx%d" % (R, n), "softmax_fwd", {"x": x}, {"y": run(F.softmax, x, dim=-1)})

    # F.layer_norm with affine parameters (eps 1e-5, the contract's); mean
    # and rstd through torch.native_layer_norm where it returns them
    rows, cols = 256, 1024
    x = torch.randn(rows, cols, **half)
    gamma, beta = (1 + 0.1 * torch.randn(cols, **half)), 0.1 * torch.randn(cols, **half)
    y = run(F.layer_norm, x, (cols,), gamma, beta, eps=1e-5)
    outs = {"y": y}
    try:
        _, mean, rstd = torch.native_layer_norm(x, (cols,), gamma, beta, 1e-5)
        if mean.dtype == torch.float32 and dev.type != "cpu":
            outs.update(mean=mean.reshape(rows), rstd=rstd.reshape(rows))
    except (RuntimeError, AttributeError):
        pass
    record("layer_norm_%dx%d" % (rows, cols), "layernorm_fwd", {"x": x, "gamma": gamma, "beta": beta}, outs)

    # F.gelu(approximate="tanh") on every finite binary16 value
    bits = np.arange(65536, dtype=np.uint16)
    allx = bits.view(np.float16)
    allx = allx[np.isfinite(allx)]
    x = torch.from_numpy(allx.copy()).to(dev)
    record("gelu_tanh_all_fp16", "gelu_fwd", {"x": x}, {"y": run(F.gelu, x, approximate="tanh")})

    # F.embedding backward: W.grad, the scatter-add of gout rows by index
    V, D, n = 1000, 256, 8192
    W = torch.randn(V, D, **half).requires_grad_()
    idx = torch.randint(0, V, (n,), device=dev)
    idx[: n // 4] = 7  # one row hit 2048 times: where the accumulation order shows
    gout = torch.randn(n, D, **half)
    if dev.type != "cpu":
        F.embedding(idx, W).backward(gout)
        gW = W.grad
    else:  # the dry run, in fp32 (see run)
        Wf = W.detach().float().requires_grad_()
        F.embedding(idx, Wf).backward(gout.float())
        gW = Wf.grad.half()
    for contract in ("embedding_bwd", "embedding_bwd_pilot"):
        record("embedding_backward_" + contract, contract, {"idx": idx, "gout": gout}, {"gW": gW}, dims={"V": V})

    with open(os.path.join(a.out, "summary.json"), "w") as f:
        # Strict JSON, as the checker writes it: a non-finite err/bound is "inf".
        json.dump(finite_json(summary), f, indent=1, allow_nan=False)
    print("wrote %s/*.json, *.txt and summary.json (%d checks)" % (a.out, len(summary["checks"])))


if __name__ == "__main__":
    main()
