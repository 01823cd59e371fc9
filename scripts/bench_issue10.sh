#!/usr/bin/env bash
# Issue 10's benchmark table in one run on the GPU host, as ratios measured
# in that run (docs/bench/README.md, "Issue 10's table in one run"):
#   - `tolproof check` of gemm_fwd end to end at 1024^3, 4096^3 and 8192^3:
#     the GPU path (--device), the CPU path on 16 threads (the host's CPU
#     count), and what users run instead, a float64 matmul on the GPU plus
#     torch.allclose, timed once the files are read; also
#     tolproof.check(device=True) from the Python API on the CUDA tensors;
#   - the CPU path on 16 threads against 1 thread at 1024^3 and 4096^3;
#   - softmax_fwd 64 x 262144 on 1 and 16 threads against float64 softmax on
#     the GPU plus allclose;
#   - the peak host memory (ru_maxrss) of each 8192^3 check;
#   - with a carried bench_gemm: the one-thread exact GEMM reference against
#     plain double accumulation (`ninja bench`'s benchmark).
# It reuses scripts/bench_gemm_check.py and scripts/bench_softmax_check.py
# and writes $OUT/bench_issue10.json (every figure and ratio, with the
# targets the issue sets) and $OUT/bench_issue10.md (the table), plus each
# script's own JSON and Markdown under $OUT/steps/.
#
# Usage, on the GPU host (16 cores, an NVIDIA GPU, Python 3 with NumPy and
# PyTorch with CUDA; no Debian package needed), from a copy of the tree:
#   scripts/bench_issue10.sh [CARRY_DIR]
#     CARRY_DIR  what scripts/gpu_carry.sh writes (default build/carry):
#                tolproof (static), libtp_gemm_cuda.so (`ninja gpu_provider`),
#                gen/ (the plans), libtolproof.so and lib/ (the Python API),
#                bench_gemm (static; optional)
#   Environment: OUT (default ./bench_issue10_out), WORK (the .npy inputs,
#   ~1 GiB at 8192^3; default /tmp/bench_issue10_work, kept for a second
#   run), PYTHON (default python3), THREADS (the CPU path's most threads,
#   default the CPU count), BUDGET_S (default 470: every step gets a time
#   limit out of it, so the whole run ends within 8 minutes), DRY=1 (a run
#   without a GPU: small sizes, no --device, no baseline; checks the script
#   itself).
# Exit status: 0 every step ran and every check passed; 1 otherwise (the
# JSON says which step).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
carry=$(cd "${1:-build/carry}" 2>/dev/null && pwd) || { echo "bench_issue10: no carry folder ${1:-build/carry}" >&2; exit 2; }
OUT=${OUT:-$PWD/bench_issue10_out}
WORK=${WORK:-/tmp/bench_issue10_work}
py=${PYTHON:-python3}
budget=${BUDGET_S:-470}
dry=${DRY:-0}
threads=${THREADS:-$(nproc)}
mkdir -p "$OUT/steps" "$WORK" || exit 2
tp=$carry/tolproof
[ -x "$tp" ] || { echo "bench_issue10: $tp is not an executable (run scripts/gpu_carry.sh)" >&2; exit 2; }
[ -d "$carry/gen" ] || { echo "bench_issue10: $carry/gen is missing (run scripts/gpu_carry.sh)" >&2; exit 2; }
if [ "$dry" != 1 ] && [ ! -f "$carry/libtp_gemm_cuda.so" ]; then
    echo "bench_issue10: $carry/libtp_gemm_cuda.so is missing (ninja gpu_provider, then scripts/gpu_carry.sh)" >&2
    exit 2
fi
export TOLPROOF_LIB=$carry/libtolproof.so PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}

start=$(date +%s)
log=$OUT/bench_issue10.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }
left() { echo $((budget - ($(date +%s) - start))); }

say "# bench_issue10 $(date -u +%FT%TZ) on $(hostname); carry $carry; $threads threads; budget ${budget} s"
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>&1 | tee -a "$log"
"$py" -c 'import numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__)' 2>&1 | tee -a "$log"
[ "$dry" = 1 ] || "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tee -a "$log"

# step NAME SHARE_OF_BUDGET_S COMMAND...: runs COMMAND with a time limit of
# SHARE seconds (less when the budget has less left); its status in
# $OUT/steps/NAME.status ("ok", "failed N" or "timed out after S s").
step() {
    local name=$1 share=$2 rest lim rc t0
    shift 2
    rest=$(left)
    lim=$((share < rest ? share : rest))
    if [ "$lim" -lt 5 ]; then
        say "== $name: skipped, the budget is spent"
        echo "skipped: budget spent" >"$OUT/steps/$name.status"
        return 1
    fi
    say "== $name (limit ${lim} s): $*"
    t0=$(date +%s)
    timeout --kill-after=5 "$lim" "$@" >>"$log" 2>&1
    rc=$?
    case $rc in
        0) echo ok >"$OUT/steps/$name.status" ;;
        124 | 137) echo "timed out after $lim s" >"$OUT/steps/$name.status" ;;
        *) echo "failed $rc" >"$OUT/steps/$name.status" ;;
    esac
    say "   $name: $(cat "$OUT/steps/$name.status") in $(($(date +%s) - t0)) s"
}

gemm=(scripts/bench_gemm_check.py --tolproof "$tp" --work "$WORK" --timings)
softmax=(scripts/bench_softmax_check.py --tolproof "$tp" --work "$WORK" --timings)
if [ "$dry" = 1 ]; then
    step gemm_small 60 "$py" "${gemm[@]}" --out "$OUT/steps/gemm_small" --sizes 128 --threads "1,$threads" --reps 2
    step gemm_mid 60 "$py" "${gemm[@]}" --out "$OUT/steps/gemm_mid" --sizes 256 --threads "1,$threads" --reps 1
    step gemm_big 60 "$py" "${gemm[@]}" --out "$OUT/steps/gemm_big" --sizes 384 --threads "$threads" --reps 1
    step softmax 60 "$py" "${softmax[@]}" --out "$OUT/steps/softmax" --sizes 4x4096 --threads "1,$threads" --reps 1 \
        --producer numpy
else
    dev=(--device --api)
    # 1024^3: a second or two a run; best of 3
    step gemm_small 45 "$py" "${gemm[@]}" "${dev[@]}" --out "$OUT/steps/gemm_small" --sizes 1024 \
        --threads "1,$threads" --reps 3
    # 4096^3: one thread runs 69 G products alone (25 to 50 s)
    step gemm_mid 170 "$py" "${gemm[@]}" "${dev[@]}" --out "$OUT/steps/gemm_mid" --sizes 4096 \
        --threads "1,$threads" --reps 1
    # 8192^3: the CPU path on all threads (20 to 40 s) and the GPU path; peak memory of both
    step gemm_big 150 "$py" "${gemm[@]}" "${dev[@]}" --out "$OUT/steps/gemm_big" --sizes 8192 \
        --threads "$threads" --reps 1
    step softmax 60 "$py" "${softmax[@]}" --out "$OUT/steps/softmax" --sizes 64x262144 --threads "1,$threads" \
        --reps 2 --baseline
fi
if [ -x "$carry/bench_gemm" ]; then
    # ninja bench's GEMM benchmark on one thread: the exact reference against plain double
    step bench_gemm 40 env OMP_NUM_THREADS=1 "$carry/bench_gemm" 512 1024 1024
fi

# The table: every figure from the steps' JSON, every ratio computed here.
"$py" - "$OUT" "$threads" "$dry" "$(($(date +%s) - start))" <<'PY'
import json, os, re, sys

out, threads, dry, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
steps = os.path.join(out, "steps")


def load(name, file):
    try:
        with open(os.path.join(steps, name, file)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def status(name):
    try:
        return open(os.path.join(steps, name + ".status")).read().strip()
    except OSError:
        return "not run"


def ratio(a, b):
    return a / b if a is not None and b else None


def run_of(size, t):
    return next((r for r in size["runs"] if r["threads"] == t), None)


doc = {"bench": "issue10", "dry_run": dry, "threads": threads, "seconds": seconds, "steps": {}, "gemm": [],
       "softmax": None, "bench_gemm": None,
       "targets": {"gemm_4096_device_s": 0.5, "after_reads_over_baseline": 10.0, "speedup_4096_16t_over_1t": 10.0,
                   "one_thread_reference_over_plain_double": 0.5}}
for name in ("gemm_small", "gemm_mid", "gemm_big", "softmax", "bench_gemm"):
    doc["steps"][name] = status(name)
for name in ("gemm_small", "gemm_mid", "gemm_big"):
    g = load(name, "bench_gemm_check.json")
    if not g:
        continue
    doc.setdefault("cpu", g.get("cpu"))
    doc.setdefault("cores", g.get("cores"))
    for s in g["sizes"]:
        t1, tn = run_of(s, 1), run_of(s, threads)
        d, b = s.get("device_run"), s.get("baseline")
        bs = b["seconds"] if b else None
        row = {"M": s["M"], "N": s["N"], "K": s["K"], "pass": s["ok"],
               "cpu_1t_s": t1["wall_s"] if t1 else None, "cpu_nt_s": tn["wall_s"] if tn else None,
               "cpu_nt_peak_rss_mib": tn["peak_rss_mib"] if tn else None,
               "device_s": d["wall_s"] if d else None, "device_after_reads_s": d.get("after_reads_s") if d else None,
               "device_peak_rss_mib": d["peak_rss_mib"] if d else None,
               "api_s": d["api"]["seconds"] if d and "api" in d else None,
               "baseline_s": bs, "baseline_allclose": b["allclose"] if b else None,
               "gpu": b["device"] if b else None}
        row["speedup_nt_over_1t"] = ratio(row["cpu_1t_s"], row["cpu_nt_s"])
        row["cpu_nt_over_device"] = ratio(row["cpu_nt_s"], row["device_s"])
        row["device_over_baseline"] = ratio(row["device_s"], bs)
        row["after_reads_over_baseline"] = ratio(row["device_after_reads_s"], bs)
        row["api_over_baseline"] = ratio(row["api_s"], bs)
        row["cpu_nt_over_baseline"] = ratio(row["cpu_nt_s"], bs)
        row["cpu_1t_macs_per_s"] = ratio(float(s["macs"]), row["cpu_1t_s"])
        row["timings_device"] = d.get("timings") if d else None
        row["timings_cpu_nt"] = tn.get("timings") if tn else None
        doc["gemm"].append(row)
sm = load("softmax", "bench_softmax_check.json")
if sm and sm["sizes"]:
    s = sm["sizes"][0]
    t1, tn = run_of(s, 1), run_of(s, threads)
    bs = s["baseline"]["seconds"] if s.get("baseline") else None
    doc["softmax"] = {"R": s["R"], "n": s["n"], "pass": s["ok"], "producer": s["producer"],
                      "cpu_1t_s": t1["wall_s"] if t1 else None, "cpu_nt_s": tn["wall_s"] if tn else None,
                      "peak_rss_mib": s["peak_rss_mib"], "baseline_s": bs,
                      "speedup_nt_over_1t": ratio(t1["wall_s"] if t1 else None, tn["wall_s"] if tn else None),
                      "cpu_nt_over_baseline": ratio(tn["wall_s"] if tn else None, bs),
                      "timings_cpu_nt": tn.get("timings") if tn else None}
try:
    for line in open(os.path.join(out, "bench_issue10.log")):
        if line.startswith('{"bench":"gemm_exact"'):
            doc["bench_gemm"] = json.loads(line)
except OSError:
    pass

ok = all(v == "ok" for k, v in doc["steps"].items() if k != "bench_gemm" or v != "not run") and \
    all(r["pass"] for r in doc["gemm"]) and (doc["softmax"] is None or doc["softmax"]["pass"]) and \
    len(doc["gemm"]) == 3 and doc["softmax"] is not None
doc["ok"] = ok
with open(os.path.join(out, "bench_issue10.json"), "w") as f:
    json.dump(doc, f, indent=1)


def fmt(x, spec=".3f", suffix=""):
    return "-" if x is None else format(x, spec) + suffix


gpu = next((r["gpu"] for r in doc["gemm"] if r["gpu"]), "no GPU")
lines = [f"Issue 10's table: {gpu}, {doc.get('cpu')} ({doc.get('cores')} CPUs), CPU path on {threads} threads; "
         f"{'DRY RUN, ' if dry else ''}{seconds} s in all; steps: " +
         ", ".join(f"{k} {v}" for k, v in doc["steps"].items()), "",
         "| M x N x K | 1t s | %dt s | %dt / 1t | --device s | after reads s | API s | f64 GPU + allclose s | "
         "--device / baseline | after reads / baseline | API / baseline | %dt / --device | peak MiB %dt, --device | pass |"
         % (threads, threads, threads, threads),
         "|" + "---|" * 14]
for r in doc["gemm"]:
    lines.append("| %dx%dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s | %s |" % (
        r["M"], r["N"], r["K"], fmt(r["cpu_1t_s"]), fmt(r["cpu_nt_s"]), fmt(r["speedup_nt_over_1t"], ".1f", "x"),
        fmt(r["device_s"]), fmt(r["device_after_reads_s"]), fmt(r["api_s"]), fmt(r["baseline_s"], ".4f"),
        fmt(r["device_over_baseline"], ".1f", "x"), fmt(r["after_reads_over_baseline"], ".1f", "x"),
        fmt(r["api_over_baseline"], ".1f", "x"), fmt(r["cpu_nt_over_device"], ".1f", "x"),
        fmt(r["cpu_nt_peak_rss_mib"], ".0f"), fmt(r["device_peak_rss_mib"], ".0f"), "yes" if r["pass"] else "**no**"))
s = doc["softmax"]
if s:
    lines += ["", "| softmax R x n | y from | 1t s | %dt s | %dt / 1t | f64 GPU + allclose s | %dt / baseline | "
              "peak MiB | pass |" % (threads, threads, threads), "|" + "---|" * 9,
              "| %dx%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                  s["R"], s["n"], s["producer"], fmt(s["cpu_1t_s"]), fmt(s["cpu_nt_s"]),
                  fmt(s["speedup_nt_over_1t"], ".1f", "x"), fmt(s["baseline_s"], ".4f"),
                  fmt(s["cpu_nt_over_baseline"], ".0f", "x"), fmt(s["peak_rss_mib"], ".0f"),
                  "yes" if s["pass"] else "**no**")]
bg = doc["bench_gemm"]
if bg:
    lines += ["", "One thread, %dx%dx%d (bench_gemm): plain double %.3g MAC/s; one-pass tile kernel %.3g (%.2fx); "
              "op gemm's whole reference %.3g (%.2fx, target 0.5x)" % (
                  bg["M"], bg["N"], bg["K"], bg["double_macs"], bg["tile_macs"], bg["tile_ratio"],
                  bg["reference_macs"], bg["reference_ratio"])]
md = "\n".join(lines) + "\n"
with open(os.path.join(out, "bench_issue10.md"), "w") as f:
    f.write(md)
print(md)
sys.exit(0 if ok else 1)
PY
rc=$?
say "bench_issue10: $(($(date +%s) - start)) s; wrote $OUT/bench_issue10.json and .md (exit $rc)"
exit $rc
