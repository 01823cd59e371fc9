#!/usr/bin/python3
"""End-to-end benchmark of `tolproof check` on a softmax (issue 10 item 4).

For each size R x n it writes fp16 logits x = RN16(3 * normal(0, 1)) and
an output y, then runs

    OMP_NUM_THREADS=T tolproof check --contract softmax_fwd \\
        --model intermediate=fp32 --input x=x.npy --output y=y.npy --json R.json

for every thread count T, and reports per run the wall time of the whole
command (reading and hashing the files, the exact row sums, the admitted
intervals, the element check, the JSON), the CPU time, the peak resident
memory (ru_maxrss of the child), the exit status and the verdict.

y comes from --producer:
  torch  F.softmax of x on the GPU (PyTorch with CUDA): exp kept in fp32,
         hence --model intermediate=fp32 (the contract's own kernel rounds
         exp to binary16 first);
  numpy  the float64 softmax rounded to binary16 (a dry run without a GPU).
The default is torch where CUDA is available, else numpy.

With --baseline (PyTorch with CUDA) it also times what users run instead,
once the files are read: x and y to the GPU, a float64 softmax there and
torch.allclose (rtol 1e-2, atol 1e-2), best of --reps after a warm-up.
softmax has no GPU exact provider: `tolproof check` computes its exact
row sums on the CPU whether or not a GPU is present.

Usage (from the repository, after `ninja build/tolproof plans`):
    /usr/bin/python3 scripts/bench_softmax_check.py --out DIR
        [--sizes 64x262144] [--threads 1,16] [--reps 1] [--producer torch|numpy]
        [--baseline] [--work DIR] [--tolproof build/tolproof] [--timings]
Writes DIR/bench_softmax_check.json and DIR/bench_softmax_check.md and
prints the table. --timings passes --timings to the most-threads run and
keeps its phase times (stderr) in the JSON.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

from bench_common import cpu_name, timed_check


def parse_size(s):
    parts = [int(x) for x in s.lower().split("x")]
    if len(parts) != 2 or min(parts) < 1:
        raise SystemExit(f"--sizes: {s}: expected RxN, e.g. 64x262144")
    return parts


def have_cuda():
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def make_inputs(work, R, n, producer, seed=1):
    d = os.path.join(work, f"softmax_{R}x{n}_seed{seed}_{producer}")
    paths = {t: os.path.join(d, f"{t}.npy") for t in "xy"}
    if all(os.path.exists(p) for p in paths.values()):
        return paths, 0.0
    os.makedirs(d, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    x = (3.0 * rng.standard_normal((R, n), dtype=np.float32)).astype(np.float16)
    if producer == "torch":
        import torch
        import torch.nn.functional as F
        y = F.softmax(torch.from_numpy(x).cuda(), dim=-1).cpu().numpy()
    else:
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        y = (e / e.sum(axis=1, keepdims=True)).astype(np.float16)
    for t, v in (("x", x), ("y", y)):
        np.save(paths[t] + ".tmp.npy", v)
        os.replace(paths[t] + ".tmp.npy", paths[t])
    return paths, time.perf_counter() - t0


def run_check(tolproof, paths, threads, json_out, timings=False):
    cmd = [tolproof, "check", "--contract", "softmax_fwd", "--model", "intermediate=fp32", "--input",
           f"x={paths['x']}", "--output", f"y={paths['y']}", "--json", json_out] + (["--timings"] if timings else [])
    return timed_check(cmd, threads, json_out)


def baseline(paths, reps):
    """float64 softmax on the GPU plus allclose, seconds (best of reps, after a warm-up), files already read."""
    import torch
    x, y = np.load(paths["x"]), np.load(paths["y"])
    best = ok = None
    for r in range(reps + 1):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        xd = torch.from_numpy(x).cuda().double()
        yd = torch.from_numpy(y).cuda().double()
        ok = bool(torch.allclose(torch.softmax(xd, dim=-1), yd, rtol=1e-2, atol=1e-2))
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        if r > 0 and (best is None or dt < best):
            best = dt
    return {"seconds": best, "allclose": ok, "device": torch.cuda.get_device_name()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for bench_softmax_check.{json,md}")
    ap.add_argument("--sizes", default="64x262144", help="RxN sizes, comma-separated (default %(default)s)")
    ap.add_argument("--threads", default="1,16")
    ap.add_argument("--reps", type=int, default=1, help="runs per (size, threads); the best wall time is kept")
    ap.add_argument("--producer", choices=("torch", "numpy"), help="who computes y (default: torch if CUDA, else numpy)")
    ap.add_argument("--baseline", action="store_true", help="also time float64 softmax on the GPU + allclose")
    ap.add_argument("--timings", action="store_true", help="keep the phase times of the most-threads run")
    ap.add_argument("--work", help="where the inputs are written (default OUT/inputs)")
    ap.add_argument("--tolproof", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                        "tolproof"))
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    threads = [int(t) for t in a.threads.split(",") if t]
    if not threads or min(threads) < 1:
        raise SystemExit(f"--threads {a.threads}: expected positive thread counts, e.g. 1,16")
    producer = a.producer or ("torch" if have_cuda() else "numpy")
    if (producer == "torch" or a.baseline) and not have_cuda():
        raise SystemExit("bench_softmax_check: --producer torch and --baseline need PyTorch with a CUDA device")
    os.makedirs(a.out, exist_ok=True)
    work = a.work or os.path.join(a.out, "inputs")
    tolproof = os.path.abspath(a.tolproof)
    if not os.access(tolproof, os.X_OK):
        raise SystemExit(f"{tolproof}: not an executable; build it with `ninja build/tolproof plans`")
    rows = []
    for R, n in sizes:
        paths, gen_s = make_inputs(work, R, n, producer)
        print(f"{R}x{n}: inputs in {os.path.dirname(paths['x'])}" + (f" (made in {gen_s:.1f} s)" if gen_s else ""),
              file=sys.stderr)
        runs = []
        for t in threads:
            best = None
            for r in range(a.reps):
                res = run_check(tolproof, paths, t, os.path.join(a.out, f"check_{R}x{n}_t{t}.json"),
                                timings=a.timings and t == max(threads) and r == a.reps - 1)
                print(f"  {t:3d} threads: {res['wall_s']:.3f} s wall, {res['user_s']:.2f} s user, "
                      f"{res['peak_rss_mib']:.0f} MiB peak, exit {res['exit']} ({res['verdict']})", file=sys.stderr)
                for line in res.get("timings", []):
                    print("    " + line, file=sys.stderr)
                if best is None or res["wall_s"] < best["wall_s"]:
                    best = dict(res, timings=res.get("timings") or (best or {}).get("timings"))
            runs.append(best)
        base = baseline(paths, a.reps) if a.baseline else None
        if base:
            print(f"  float64 softmax on {base['device']} + allclose: {base['seconds'] * 1e3:.1f} ms", file=sys.stderr)
        t1 = next((r for r in runs if r["threads"] == 1), None)
        tmax = max(runs, key=lambda r: r["threads"])
        rows.append({"R": R, "n": n, "elements": R * n, "producer": producer, "runs": runs,
                     "speedup": (t1["wall_s"] / tmax["wall_s"]) if t1 and tmax is not t1 else None,
                     "speedup_threads": tmax["threads"], "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
                     "baseline": base, "ok": all(r["exit"] == 0 and r["verdict"] == "pass" for r in runs)})
    doc = {"bench": "softmax_check", "host": platform.node(), "cpu": cpu_name(), "cores": os.cpu_count(),
           "tolproof": tolproof, "threads": threads, "reps": a.reps, "sizes": rows,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(a.out, "bench_softmax_check.json"), "w") as f:
        json.dump(doc, f, indent=1)
    hdr = ["R x n", "y from"] + [f"{t}t wall s" for t in threads] + \
          [f"speed-up {threads[-1]}t/1t" if 1 in threads and len(threads) > 1 else "speed-up", "peak RSS MiB"] + \
          (["f64 GPU + allclose s", f"{max(threads)}t / baseline"] if a.baseline else []) + ["pass"]
    lines = [f"`tolproof check` of softmax_fwd (--model intermediate=fp32) on {doc['cpu']} ({doc['cores']} CPUs), "
             f"{doc['time']}, best of {a.reps}", "", "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        walls = [f"{x['wall_s']:.3f}" for x in r["runs"]]
        sp = f"{r['speedup']:.2f}x" if r["speedup"] else "-"
        bv = []
        if r["baseline"]:
            tm = max(r["runs"], key=lambda x: x["threads"])
            bv = [f"{r['baseline']['seconds']:.4f}", f"{tm['wall_s'] / r['baseline']['seconds']:.0f}x"]
        lines.append("| " + " | ".join([f"{r['R']}x{r['n']}", r["producer"]] + walls + [sp, f"{r['peak_rss_mib']:.0f}"] +
                                       bv + ["yes" if r["ok"] else "**no**"]) + " |")
    md = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "bench_softmax_check.md"), "w") as f:
        f.write(md)
    print(md)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
