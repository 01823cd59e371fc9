#!/usr/bin/env bash
# The GPU exact reference of op gemm on a GPU host (issue 10 item 2): for a
# few GEMM shapes, `tolproof check` with the CPU path and with --device
# (oracles/gemm/gemm_exact_cuda.cu via libtp_gemm_cuda.so), and the CUDA
# harnesses of gemm_fwd / gemm_bwd_a / gemm_bwd_b with the GPU provider and
# with TP_EXACT_PROVIDER=cpu. It checks that
#   - both paths give the same result, field for field, apart from the
#     "exact_provider" field that only the GPU path adds (which must say:
#     provider cuda, at least 1000 elements cross-checked or all, 0
#     disagreements);
#   - a missing library fails with one line and exit status 2;
# and reports wall times (GPU path vs CPU path, tolproof check end to end,
# .npy reading included) and the cross-check counts.
#
# Usage (on the GPU host, from the folder the carry was unpacked into):
#   scripts/gpu_exact_check.sh [CARRY_DIR] [HARNESS_DIR]
#     CARRY_DIR    tolproof, libtp_gemm_cuda.so and gen/ (scripts/gpu_carry.sh
#                  writes build/carry/); default build/carry
#     HARNESS_DIR  the CUDA harnesses of gemm_fwd, gemm_bwd_a, gemm_bwd_b;
#                  default CARRY_DIR/harnesses, else build/harnesses/cuda
#                  (run from a checkout: the harnesses read kernels/)
#   Needs python3 with NumPy (PyTorch, when importable, produces the outputs
#   with cuBLAS on the GPU; else NumPy float32 matmul on the CPU).
#   Writes to $OUT (default ./gpu_exact_out): summary.txt, summary.json,
#   every result JSON and log. SHAPES="M,N,K ..." overrides the shapes.
#   (Without a GPU, TP_GEMM_CUDA_LIB=build/tests/libtp_gemm_emulated.so
#   EXPECT_PROVIDER=emulated runs the tolproof check part on the host.)
# Exit status: 0 all checks passed, 1 a check failed.
set -uo pipefail
carry=${1:-build/carry}
hdir=${2:-$carry/harnesses}
[ -d "$hdir" ] || hdir=build/harnesses/cuda
OUT=${OUT:-$PWD/gpu_exact_out}
mkdir -p "$OUT/npy" "$OUT/json" "$OUT/runs"
tp="$carry/tolproof"
py=${PYTHON:-python3}
shapes=${SHAPES:-"100,37,250 256,128,4096 1000,1000,20000 32,32,65536 1024,1024,1024 4096,4096,4096"}
fail=0
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

say "# gpu_exact_check $(date -u +%FT%TZ) on $(hostname)"
command -v nvidia-smi >/dev/null && nvidia-smi -L | tee -a "$summary"
say "# tolproof: $tp; OMP_NUM_THREADS=${OMP_NUM_THREADS:-(unset: all cores)}; nproc $(nproc)"
[ -x "$tp" ] || { say "not ok - $tp is not an executable"; exit 1; }

# ---- 1. no library: one line, exit 2 ----------------------------------
"$py" - "$OUT/npy" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(1)
np.save(f"{d}/tiny_A.npy", r.standard_normal((4, 3)).astype(np.float16))
np.save(f"{d}/tiny_B.npy", r.standard_normal((3, 5)).astype(np.float16))
np.save(f"{d}/tiny_C.npy", (np.load(f"{d}/tiny_A.npy").astype(np.float32) @ np.load(f"{d}/tiny_B.npy").astype(np.float32)).astype(np.float16))
EOF
TP_GEMM_CUDA_LIB=/nonexistent/libtp_gemm_cuda.so "$tp" check --contract gemm_fwd --device \
    --input A="$OUT/npy/tiny_A.npy" --input B="$OUT/npy/tiny_B.npy" --output C="$OUT/npy/tiny_C.npy" \
    >"$OUT/nolib.out" 2>"$OUT/nolib.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$OUT/nolib.err")" = 1 ]; then
    say "ok - no library: exit 2, one line: $(cat "$OUT/nolib.err")"
else
    say "not ok - no library: exit $rc, stderr: $(cat "$OUT/nolib.err")"
    fail=1
fi

# ---- 2. tolproof check: CPU path vs --device ---------------------------
# compare.py A B: the two results equal apart from exact_provider, which B
# must have with 0 disagreements and enough samples; prints one line.
cat >"$OUT/compare.py" <<'EOF'
import json, os, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
xp = b.pop("exact_provider", None)
a.pop("exact_provider", None)
msgs = []
if a != b:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    msgs.append("results differ at " + ", ".join(keys))
if not xp:
    msgs.append("no exact_provider field in the GPU run")
else:
    for out, x in xp.items():
        cc = x["cross_check"]
        want = min(x["elements"], 1000)
        if x["provider"] != os.environ.get("EXPECT_PROVIDER", "cuda") or cc["disagreements"] != 0 or cc["sampled"] < want:
            msgs.append(f"{out}: {x}")
        print(f"# {out}: {x['provider']} on {x['device']}, {x['elements']} elements, GPU sums {x['seconds']:.3f} s, "
              f"cross-check {cc['sampled']} sampled (seed {cc['seed']}), {cc['disagreements']} disagreements")
print("ok" if not msgs else "not ok: " + "; ".join(msgs))
EOF
rows=()
for s in $shapes; do
    IFS=, read -r M N K <<<"$s"
    for contract in gemm_fwd gemm_bwd_a gemm_bwd_b; do
        # the big shapes once (gemm_fwd); the transposed contracts on the
        # smaller ones whose dims are multiples of 16 (their kernels' requirement)
        if [ "$contract" != gemm_fwd ] && { [ $((M * N * K)) -gt $((1024 * 1024 * 1024)) ] ||
            [ $((M % 16 + N % 16 + K % 16)) != 0 ]; }; then continue; fi
        tag="${contract}_${M}x${N}x${K}"
        t0=$(now)
        if ! "$py" - "$OUT/npy" "$contract" "$M" "$N" "$K" >"$OUT/gen_$tag.log" 2>&1 <<'EOF'; then
import sys, numpy as np
d, contract, M, N, K = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
r = np.random.default_rng(M * 7 + N * 11 + K)
h = lambda *sh: r.standard_normal(sh).astype(np.float16)
# op(A) is M x K, op(B) K x N: the contract's tensors and the product
if contract == "gemm_fwd":
    ins = {"A": h(M, K), "B": h(K, N)}; x, y, out = ins["A"], ins["B"], "C"
elif contract == "gemm_bwd_a":   # gA (M x K) = gC (M x N) @ B^T, B K x N: sum over N
    ins = {"gC": h(M, K), "B": h(N, K)}; x, y, out = ins["gC"], ins["B"].T, "gA"
else:                            # gB (K x N) = A^T @ gC, A M x K, gC M x N: sum over M
    ins = {"A": h(K, M), "gC": h(K, N)}; x, y, out = ins["A"].T, ins["gC"], "gB"
try:
    import torch
    assert torch.cuda.is_available()
    z = (torch.from_numpy(np.ascontiguousarray(x)).cuda() @ torch.from_numpy(np.ascontiguousarray(y)).cuda()).cpu().numpy()
    how = "torch.matmul fp16 on " + torch.cuda.get_device_name()
except Exception as e:
    z = (x.astype(np.float32) @ y.astype(np.float32)).astype(np.float16)
    how = f"numpy float32 matmul, rounded to fp16 (no torch GPU: {e!r})"
tag = f"{contract}_{M}x{N}x{K}"
for n, v in ins.items():
    np.save(f"{d}/{tag}_{n}.npy", v)
np.save(f"{d}/{tag}_{out}.npy", z)
print(how, " ".join(ins), out)
EOF
            say "not ok - $tag: cannot generate inputs: $(tail -1 "$OUT/gen_$tag.log")"
            fail=1
            continue
        fi
        read -r -a names <<<"$(tail -1 "$OUT/gen_$tag.log" | awk '{print $(NF-2), $(NF-1), $NF}')"
        args=(--contract "$contract" --input "${names[0]}=$OUT/npy/${tag}_${names[0]}.npy"
            --input "${names[1]}=$OUT/npy/${tag}_${names[1]}.npy" --output "${names[2]}=$OUT/npy/${tag}_${names[2]}.npy")
        t1=$(now)
        "$tp" check "${args[@]}" --json "$OUT/json/cpu_$tag.json" >"$OUT/cpu_$tag.out" 2>&1
        rc_cpu=$?
        t2=$(now)
        "$tp" check "${args[@]}" --device --json "$OUT/json/gpu_$tag.json" >"$OUT/gpu_$tag.out" 2>&1
        rc_gpu=$?
        t3=$(now)
        cmp_line=$("$py" "$OUT/compare.py" "$OUT/json/cpu_$tag.json" "$OUT/json/gpu_$tag.json" 2>&1)
        status=$(echo "$cmp_line" | tail -1)
        tcpu=$(elapsed "$t1" "$t2") tgpu=$(elapsed "$t2" "$t3")
        if [ "$rc_cpu" = "$rc_gpu" ] && [ "$rc_cpu" != 2 ] && [ "$status" = ok ]; then
            say "ok - tolproof check $tag ($(head -1 "$OUT/gen_$tag.log" | cut -c1-60)): exit $rc_cpu both; CPU path ${tcpu} s, --device ${tgpu} s"
        else
            say "not ok - tolproof check $tag: exit CPU $rc_cpu, GPU $rc_gpu: $status; $(tail -2 "$OUT/gpu_$tag.out")"
            fail=1
        fi
        echo "$cmp_line" | grep '^#' | tee -a "$summary"
        rows+=("{\"what\": \"tolproof check\", \"contract\": \"$contract\", \"M\": $M, \"N\": $N, \"K\": $K, \"cpu_s\": $tcpu, \"gpu_s\": $tgpu, \"gen_s\": $(elapsed "$t0" "$t1"), \"exit_cpu\": $rc_cpu, \"exit_gpu\": $rc_gpu, \"status\": \"${status//\"/\'}\"}")
    done
done

# ---- 3. the harnesses: GPU provider (default) vs TP_EXACT_PROVIDER=cpu ----
for contract in gemm_fwd gemm_bwd_a gemm_bwd_b; do
    h="$hdir/$contract"
    if [ ! -x "$h" ]; then
        say "not ok - harness $h missing"
        fail=1
        continue
    fi
    t1=$(now)
    TP_EXACT_PROVIDER=cpu "$h" --out "$OUT/runs/cpu_$contract" >"$OUT/runs/cpu_$contract.log" 2>&1
    rc_cpu=$?
    t2=$(now)
    "$h" --out "$OUT/runs/gpu_$contract" >"$OUT/runs/gpu_$contract.log" 2>&1
    rc_gpu=$?
    t3=$(now)
    st=$("$py" - "$OUT/runs/cpu_$contract/results.json" "$OUT/runs/gpu_$contract/results.json" <<'EOF'
import json, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except OSError as e:
    print(f"no results: {e}")
    sys.exit(0)
msgs, n, sampled = [], 0, 0
for ca, cb in zip(a["cases"], b["cases"]):
    xp = cb.pop("exact_provider", None)
    if ca != cb:
        msgs.append(f"{ca.get('case')}: differs at " + ",".join(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)))
    if ca.get("verdict") in ("pass", "fail"):
        if not xp:
            msgs.append(f"{ca.get('case')}: no exact_provider")
            continue
        for out, x in xp.items():
            n += 1
            sampled += x["cross_check"]["sampled"]
            if x["cross_check"]["disagreements"] or x["cross_check"]["sampled"] < min(1000, x["elements"]):
                msgs.append(f"{ca.get('case')}/{out}: {x['cross_check']}")
print(f"{n} outputs from the GPU provider, {sampled} elements cross-checked in all: " + ("ok" if not msgs else "not ok: " + "; ".join(msgs)))
EOF
)
    tcpu=$(elapsed "$t1" "$t2") tgpu=$(elapsed "$t2" "$t3")
    if [ "$rc_cpu" = "$rc_gpu" ] && [ "${st##*: }" = ok ]; then
        say "ok - harness $contract: exit $rc_cpu both; $st; CPU path ${tcpu} s, GPU provider ${tgpu} s (whole harness run)"
    else
        say "not ok - harness $contract: exit CPU $rc_cpu, GPU $rc_gpu; $st"
        fail=1
    fi
    rows+=("{\"what\": \"harness\", \"contract\": \"$contract\", \"cpu_s\": $tcpu, \"gpu_s\": $tgpu, \"exit_cpu\": $rc_cpu, \"exit_gpu\": $rc_gpu, \"status\": \"${st//\"/\'}\"}")
done

{
    printf '{"device": "%s", "rows": [' "$(nvidia-smi -L 2>/dev/null | head -1 | sed 's/"//g')"
    (IFS=,; printf '%s' "${rows[*]}")
    printf '], "fail": %d}\n' "$fail"
} >"$OUT/summary.json"
say "# $([ $fail = 0 ] && echo 'all checks passed' || echo 'SOME CHECKS FAILED'); $OUT/summary.txt, $OUT/summary.json"
exit $fail
