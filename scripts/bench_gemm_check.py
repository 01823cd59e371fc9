#!/usr/bin/python3
"""End-to-end benchmark of `tolproof check` on GEMMs (issue 10 items 3-5).

For each size it writes fp16 inputs A (MxK) and B (KxN), normal(0, 1), and
an output C = RN16(fp32 A @ B) computed by NumPy (an fp32 accumulation in
some order: inside the gemm_fwd contract's model, so the check must pass),
then runs

    OMP_NUM_THREADS=T tolproof check --contract gemm_fwd \
        --input A=A.npy --input B=B.npy --output C=C.npy --json R.json

for every thread count T, and reports per run the wall time (the whole
command: reading the .npy files, hashing them, the exact reference, the
element check, the JSON), the CPU time, the peak resident memory of the
process (getrusage of the child: ru_maxrss), the exit status and the
verdict. Per size: the speed-up of the most threads over 1 thread.

With --device (a GPU host) each size also runs `tolproof check --device`
(exact sums on the GPU, most threads) and what users run instead, timed in
this process once the files are read: A and B to the GPU, a float64
matmul there, torch.allclose against C (rtol 1e-2, atol 1e-2), best of
--reps after one warm-up (PyTorch with CUDA needed). The ratio
--device / baseline compares the whole tolproof command with that; with
--timings, "after reads / baseline" compares the check once its files are
read (the last --device run's phase "after the files were read"), as the
baseline is timed. An empty --threads runs no CPU-path check (only
--device and the baseline). --api adds tolproof.check(device=True) from
the Python API on the CUDA tensors, timed like the baseline (in this
process, PyTorch's context made, best of --reps after a warm-up).

Usage (from the repository, after `ninja build/tolproof plans`):
    /usr/bin/python3 scripts/bench_gemm_check.py --out DIR
        [--sizes 1024,4096,8192] [--threads 1,16 | --threads ''] [--reps 1]
        [--work DIR] [--tolproof build/tolproof] [--device] [--timings]
--timings passes --timings to the last run of the most threads (and of
--device) and keeps its phase times (stderr) in the JSON; with --api, one
more API call runs with TOLPROOF_TIMINGS=1 and its phases are kept too.
Sizes are N (an N^3 GEMM) or MxNxK. Writes DIR/bench_gemm_check.json and
DIR/bench_gemm_check.md and prints the table. Inputs are cached in --work
(default DIR/inputs) and reused when present (same size, same seed).
Python 3 and NumPy only (Debian's python3-numpy).
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

from bench_common import TIMING_PREFIX, cpu_name, timed_check


def parse_size(s):
    parts = [int(x) for x in s.lower().split("x")]
    if len(parts) == 1:
        return parts * 3
    if len(parts) == 3:
        return parts
    raise SystemExit(f"--sizes: {s}: expected N or MxNxK")


def make_inputs(work, M, N, K, seed=1):
    d = os.path.join(work, f"gemm_{M}x{N}x{K}_seed{seed}")
    paths = {t: os.path.join(d, f"{t}.npy") for t in "ABC"}
    if all(os.path.exists(p) for p in paths.values()):
        return paths, 0.0
    os.makedirs(d, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32).astype(np.float16)
    B = rng.standard_normal((K, N), dtype=np.float32).astype(np.float16)
    C = (A.astype(np.float32) @ B.astype(np.float32)).astype(np.float16)
    for t, a in zip("ABC", (A, B, C)):
        np.save(paths[t] + ".tmp.npy", a)
        os.replace(paths[t] + ".tmp.npy", paths[t])
    return paths, time.perf_counter() - t0


def run_check(tolproof, paths, threads, json_out, device=False, timings=False):
    cmd = [tolproof, "check", "--contract", "gemm_fwd", "--input", f"A={paths['A']}", "--input",
           f"B={paths['B']}", "--output", f"C={paths['C']}", "--json", json_out] + (["--device"] if device else []) + \
        (["--timings"] if timings else [])
    return timed_check(cmd, threads, json_out)


def baseline(paths, reps):
    """float64 reference on the GPU plus allclose, seconds (best of reps, after a warm-up), files already read."""
    import torch
    A, B, C = (np.load(paths[t]) for t in "ABC")
    best = None
    for r in range(reps + 1):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        a = torch.from_numpy(A).cuda().double()
        b = torch.from_numpy(B).cuda().double()
        c = torch.from_numpy(C).cuda().double()
        ok = bool(torch.allclose(a @ b, c, rtol=1e-2, atol=1e-2))
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        if r > 0 and (best is None or dt < best):
            best = dt
    return {"seconds": best, "allclose": ok, "device": torch.cuda.get_device_name()}


def api_check(paths, reps, timings=False):
    """tolproof.check(..., device=True) from the Python API on CUDA tensors
    (PyTorch's context already made, as the baseline's): seconds, best of
    reps after a warm-up, copies to the host included. With timings, one
    more call runs with TOLPROOF_TIMINGS=1 and its phases (the C library's
    stderr, captured) are kept, with the call's copy of the three tensors
    to the host (tolproof._arrays.host_array: page-locked memory) timed
    alone before it, and the same copy into fresh pageable memory."""
    import tempfile

    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import tolproof
    A, B, C = (torch.from_numpy(np.load(paths[t])).cuda() for t in "ABC")
    best, verdict = None, None
    for r in range(reps + 1):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        res = tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C}, device=True)
        dt = time.perf_counter() - t0
        verdict = res.verdict
        if r > 0 and (best is None or dt < best):
            best = dt
    out = {"seconds": best, "verdict": verdict}
    if timings:
        from tolproof._arrays import host_array
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for x in (A, B, C):
            host_array(x)
        copy = time.perf_counter() - t0
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for x in (A, B, C):
            x.to("cpu")  # into fresh pageable memory, as the call copied them before
        pageable = time.perf_counter() - t0
        # the library writes to file descriptor 2: catch it in a file
        with tempfile.TemporaryFile() as f:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(f.fileno(), 2)
            os.environ["TOLPROOF_TIMINGS"] = "1"
            try:
                t0 = time.perf_counter()
                tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C}, device=True)
                dt = time.perf_counter() - t0
            finally:
                del os.environ["TOLPROOF_TIMINGS"]
                os.dup2(saved, 2)
                os.close(saved)
            f.seek(0)
            lines = f.read().decode(errors="replace").splitlines()
        out["timings"] = ["python: A, B, C to the host as the call copies them (alone, before it): %.4f s" % copy,
                          "python: A, B, C to fresh pageable host memory, x.to('cpu') (alone): %.4f s" % pageable,
                          "python: the call with timings on: %.4f s" % dt] + \
            [x for x in lines if x.startswith(TIMING_PREFIX)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for bench_gemm_check.{json,md}")
    ap.add_argument("--sizes", default="1024,4096,8192")
    ap.add_argument("--threads", default="1,16",
                    help="thread counts of the CPU path; empty: none (with --device, only the GPU path and the baseline)")
    ap.add_argument("--reps", type=int, default=1, help="runs per (size, threads); the best wall time is kept")
    ap.add_argument("--work", help="where the inputs are written (default OUT/inputs)")
    ap.add_argument("--device", action="store_true",
                    help="also `tolproof check --device` and the float64-GPU-plus-allclose baseline")
    ap.add_argument("--timings", action="store_true", help="keep the phase times of the last most-threads run")
    ap.add_argument("--api", action="store_true",
                    help="with --device: also tolproof.check(device=True) from the Python API on CUDA tensors "
                         "(TOLPROOF_LIB names the library; PyTorch needed)")
    ap.add_argument("--tolproof", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                        "tolproof"))
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    threads = [int(t) for t in a.threads.split(",") if t]
    dev_threads = max(threads) if threads else os.cpu_count()
    os.makedirs(a.out, exist_ok=True)
    work = a.work or os.path.join(a.out, "inputs")
    tolproof = os.path.abspath(a.tolproof)
    if not os.access(tolproof, os.X_OK):
        raise SystemExit(f"{tolproof}: not an executable; build it with `ninja build/tolproof plans`")
    rows = []
    for M, N, K in sizes:
        paths, gen_s = make_inputs(work, M, N, K)
        print(f"{M}x{N}x{K}: inputs in {os.path.dirname(paths['A'])}" + (f" (made in {gen_s:.1f} s)" if gen_s else ""),
              file=sys.stderr)
        runs = []
        for t in threads:
            best = None
            for r in range(a.reps):
                res = run_check(tolproof, paths, t, os.path.join(a.out, f"check_{M}x{N}x{K}_t{t}.json"),
                                timings=a.timings and t == max(threads) and r == a.reps - 1)
                for line in res["timings"]:
                    print("    " + line, file=sys.stderr)
                print(f"  {t:3d} threads: {res['wall_s']:.3f} s wall, {res['user_s']:.2f} s user, "
                      f"{res['peak_rss_mib']:.0f} MiB peak, exit {res['exit']} ({res['verdict']})", file=sys.stderr)
                if best is None or res["wall_s"] < best["wall_s"]:
                    best = dict(res, timings=res["timings"] or (best or {}).get("timings", []))
                elif res["timings"]:
                    best["timings"] = res["timings"]
            runs.append(best)
        dev = base = None
        if a.device:
            for r in range(a.reps):
                res = run_check(tolproof, paths, dev_threads, os.path.join(a.out, f"check_{M}x{N}x{K}_device.json"),
                                device=True, timings=a.timings and r == a.reps - 1)
                for line in res["timings"]:
                    print("    " + line, file=sys.stderr)
                print(f"  --device: {res['wall_s']:.3f} s wall, {res['peak_rss_mib']:.0f} MiB peak, exit {res['exit']} "
                      f"({res['verdict']}) {res['stderr'][-200:]}", file=sys.stderr)
                if dev is None or res["wall_s"] < dev["wall_s"]:
                    dev = dict(res, timings=res["timings"] or (dev or {}).get("timings", []))
                elif res["timings"]:
                    dev["timings"] = res["timings"]  # the phases of the last run, whichever run was fastest
            base = baseline(paths, a.reps)
            print(f"  float64 on {base['device']} + allclose: {base['seconds'] * 1e3:.1f} ms", file=sys.stderr)
            # the comparison: the check once the files are read (the
            # last --device run's own phase, printed under --timings)
            after = [float(x.rsplit(": ", 1)[1].split()[0]) for x in dev["timings"]
                     if x.startswith(TIMING_PREFIX + "after the files were read: ")]
            dev["after_reads_s"] = after[-1] if after else None
            if a.api:
                dev["api"] = api_check(paths, a.reps, a.timings)
                print(f"  tolproof.check(device=True) on CUDA tensors: {dev['api']['seconds']:.3f} s "
                      f"({dev['api']['verdict']})", file=sys.stderr)
                for line in dev["api"].get("timings", []):
                    print("    api " + line, file=sys.stderr)
        t1 = next((r for r in runs if r["threads"] == 1), None)
        tmax = max(runs, key=lambda r: r["threads"]) if runs else None
        macs = float(M) * N * K
        rows.append({"M": M, "N": N, "K": K, "macs": macs, "runs": runs,
                     "speedup": (t1["wall_s"] / tmax["wall_s"]) if t1 and tmax is not t1 else None,
                     "speedup_threads": tmax["threads"] if tmax else None,
                     "peak_rss_mib": max(r["peak_rss_mib"] for r in runs + ([dev] if dev else [])), "device_run": dev,
                     "baseline": base,
                     "ok": all(r["exit"] == 0 and r["verdict"] == "pass" for r in runs + ([dev] if dev else [])) and
                     (not dev or "api" not in dev or dev["api"]["verdict"] == "pass")})
    doc = {"bench": "gemm_check", "host": platform.node(), "cpu": cpu_name(), "cores": os.cpu_count(),
           "tolproof": tolproof, "threads": threads, "reps": a.reps, "sizes": rows,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(a.out, "bench_gemm_check.json"), "w") as f:
        json.dump(doc, f, indent=1)
    hdr = ["M x N x K"] + [f"{t}t wall s" for t in threads] + [f"{t}t MAC/s/core" for t in threads] + \
          [f"speed-up {threads[-1]}t/1t" if 1 in threads and len(threads) > 1 else "speed-up", "peak RSS MiB"] + \
          (["--device wall s", "f64 GPU + allclose s", "--device / baseline", "--device after reads s",
            "after reads / baseline"] + (["API device=True s", "API / baseline"] if a.api else []) +
           [f"{dev_threads}t / --device"]
           if a.device else []) + ["pass"]
    lines = [f"`tolproof check` of gemm_fwd on {doc['cpu']} ({doc['cores']} CPUs), {doc['time']}, best of {a.reps}", "",
             "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        walls = [f"{x['wall_s']:.3f}" for x in r["runs"]]
        rates = [f"{r['macs'] / x['wall_s'] / x['threads']:.3g}" for x in r["runs"]]
        sp = f"{r['speedup']:.2f}x" if r["speedup"] else "-"
        dv = []
        if a.device:
            d, b = r["device_run"], r["baseline"]
            tm = max(r["runs"], key=lambda x: x["threads"]) if r["runs"] else None
            ar = d.get("after_reads_s")
            dv = [f"{d['wall_s']:.3f}", f"{b['seconds']:.4f}", f"{d['wall_s'] / b['seconds']:.0f}x",
                  f"{ar:.3f}" if ar else "-", f"{ar / b['seconds']:.1f}x" if ar else "-"]
            if a.api:
                dv += [f"{d['api']['seconds']:.3f}", f"{d['api']['seconds'] / b['seconds']:.1f}x"]
            dv += [f"{tm['wall_s'] / d['wall_s']:.2f}x" if tm else "-"]
        lines.append("| " + " | ".join([f"{r['M']}x{r['N']}x{r['K']}"] + walls + rates +
                                       [sp, f"{r['peak_rss_mib']:.0f}"] + dv + ["yes" if r["ok"] else "**no**"]) + " |")
    md = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "bench_gemm_check.md"), "w") as f:
        f.write(md)
    print(md)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
