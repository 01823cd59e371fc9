#!/usr/bin/env bash
# The exact provider of op gemm (oracles/gemm/gemm_exact_provider.h)
# without a GPU: `tolproof check --device` fails with one line and exit 2
# when the library is missing, is not the provider, or finds no GPU; the
# GPU's fixed-point arithmetic run on the host as a provider
# (tests/tool_emulate --exact-provider emulated) gives results equal to
# the CPU path's apart from the "exact_provider" field (provider, sample
# of min(n, 1000) + 4 corners, seed, 0 disagreements), for gemm_fwd and
# both transposed backward contracts, and the run replays; a provider
# wrong in one element is an error naming it, not a verdict. The stand-in
# keeps its sums and checks the output where they are, as the GPU library
# does; its element check gives the CPU's result bit for bit, and one
# wrong in a sampled element is an error naming it.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh
py=/usr/bin/python3

"$tp" check --help | grep -q -- "--device"; ok $? "tolproof check --help describes --device"

# tensors for op gemm (no NumPy needed: written by the emulated harness's --dump-inputs)
"$emu" build/gen/gemm_fwd.plan.json "$tmp/dump" --case ragged_100x37x250 --dump-inputs >/dev/null 2>&1
ok $? "an emulated run writes a GEMM case's inputs and outputs"
d=$tmp/dump/outputs/ragged_100x37x250
args=(--contract gemm_fwd --input "A=$d/input_A.npy" --input "B=$d/input_B.npy" --output "C=$d/C.npy")
"$tp" check "${args[@]}" --json "$tmp/cpu.json" >/dev/null 2>&1 &&
    $py -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]=="pass" and "exact_provider" not in r' "$tmp/cpu.json"
ok $? "without --device: the CPU path, no exact_provider field"

TP_GEMM_CUDA_LIB=$tmp/none.so "$tp" check "${args[@]}" --device --json "$tmp/none.json" >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/none.err")" = 1 ] && grep -q "^tolproof check: --device: cannot load the GPU exact provider $tmp/none.so" "$tmp/none.err" &&
    $py -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]=="refused" and "--device" in r["reason"]' "$tmp/none.json"
ok $? "--device without the library: exit 2 ($rc), one line: $(cat "$tmp/none.err")"

TP_GEMM_CUDA_LIB=$PWD/build/libtolproof.so "$tp" check "${args[@]}" --device >"$tmp/other.out" 2>"$tmp/other.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/other.err")" = 1 ] && grep -q "has no tp_gemm_exact_cuda_open" "$tmp/other.err"
ok $? "--device with a library that is not the provider: exit 2 ($rc), one line: $(cat "$tmp/other.err")"

if [ -f build/libtp_gemm_cuda.so ] && [ ! -e /dev/nvidia0 ]; then
    "$tp" check "${args[@]}" --device >"$tmp/nogpu.out" 2>"$tmp/nogpu.err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/nogpu.err")" = 1 ] && grep -q "^tolproof check: --device: no GPU: " "$tmp/nogpu.err"
    ok $? "--device with build/libtp_gemm_cuda.so (nvcc) on a machine without a GPU: exit 2 ($rc), one line: $(cat "$tmp/nogpu.err")"
else
    ok 0 "# SKIP --device without a GPU: no build/libtp_gemm_cuda.so here (no nvcc), or a GPU is present"
fi

# --device through a stand-in library with the GPU's arithmetic on the host
emu_lib=$PWD/build/tests/libtp_gemm_emulated.so
TP_CROSS_CHECK_SEED=12345 TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${args[@]}" --device --json "$tmp/dev.json" >"$tmp/dev.out" 2>&1
rc=$?
$py -c 'import json,sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
xp = b.pop("exact_provider")
assert a == b, "results differ"
assert sorted(xp) == ["C", "C.abs_sum", "C.element_check"], sorted(xp)
for x in xp.values():
    assert x["provider"] == "emulated" and x["elements"] == 3700 and x["cross_check"]["sampled"] == 1004, x
    assert x["cross_check"]["seed"] == "0x%016x" % 12345 and x["cross_check"]["disagreements"] == 0, x' "$tmp/cpu.json" "$tmp/dev.json" &&
    [ $rc = 0 ] && grep -q "^exact sums of C: emulated on host emulation in .* s; 1004 of 3700 elements (seed 0x0000000000003039) cross-checked against the CPU exact path: 0 disagreements$" "$tmp/dev.out" &&
    grep -q "^element check of C: emulated on host emulation in .* s; 1004 of 3700 elements (seed 0x0000000000003039) cross-checked against the CPU element check: 0 disagreements$" "$tmp/dev.out"
ok $? "--device (stand-in library, sums kept and the output checked where they are): exit 0 ($rc), the CPU path's result plus exact_provider for C, C.abs_sum and C.element_check (1004 of 3700 sampled each, seed 12345, 0 disagreements), said in the summary"
TP_EMULATED_NO_KEPT=1 TP_CROSS_CHECK_SEED=12345 TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${args[@]}" --device --timings --json "$tmp/devnk.json" >/dev/null 2>"$tmp/devnk.err"
rc=$?
$py -c 'import json,sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
xp = b.pop("exact_provider")
assert a == b, "results differ"
assert sorted(xp) == ["C", "C.abs_sum"], sorted(xp)' "$tmp/cpu.json" "$tmp/devnk.json" && [ $rc = 0 ] &&
    grep -qF "gemm C: exact sums and abs sums by provider emulated (transfers included)" "$tmp/devnk.err" &&
    ! grep -qF "by provider emulated, kept" "$tmp/devnk.err"
ok $? "--device, a provider without kept sums: the sums come back whole and the CPU checks; the same result, exact_provider for C and C.abs_sum only (exit $rc)"
# --timings: the phases on stderr, the result unchanged
TP_CROSS_CHECK_SEED=12345 TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${args[@]}" --device --timings --json "$tmp/devt.json" >"$tmp/devt.out" 2>"$tmp/devt.err"
rc=$?
missing=
for phase in "input A read and converted" "waited for the files' SHA-256 (computed in the background)" \
    "GPU exact provider loaded and the GPU probed (while the files are read)" "waited for the GPU exact provider" "gemm C: exact sums and abs sums by provider emulated, kept on the device" \
    "gemm C: 1004 elements cross-checked on the CPU (both sums)" "element check of C by provider emulated" \
    "1004 elements of the element check cross-checked on the CPU" \
    "reference of C prepared (3700 elements, computed by the element check)" \
    "element check of C, references computed by ranges" "JSON written" "whole check after argument parsing"; do
    grep -qF "tolproof: timing: $phase: " "$tmp/devt.err" || missing="$missing [$phase]"
done
[ $rc = 0 ] && [ -z "$missing" ] && ! grep -v '^tolproof: timing: .*: [0-9]*\.[0-9][0-9][0-9] s$' "$tmp/devt.err" &&
    diff <(sed 's/ in [0-9.e-]* s;/ in S s;/' "$tmp/dev.out") <(sed 's/ in [0-9.e-]* s;/ in S s;/' "$tmp/devt.out") >/dev/null &&
    $py -c 'import json,sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for r in (a, b):
    for x in r["exact_provider"].values():
        del x["seconds"]
assert a == b' "$tmp/dev.json" "$tmp/devt.json"
ok $? "--timings: every phase on stderr as 'tolproof: timing: WHAT: S s' (missing:${missing:- none}), stdout and the JSON unchanged (exit $rc)"
"$tp" check "${args[@]}" --json "$tmp/cput.json" --timings >/dev/null 2>"$tmp/cput.err"
grep -q "tolproof: timing: reference of C (3700 elements): " "$tmp/cput.err" && ! grep -q "GPU\|provider" "$tmp/cput.err" &&
    "$tp" check "${args[@]}" >/dev/null 2>"$tmp/quiet.err" && [ ! -s "$tmp/quiet.err" ]
ok $? "--timings without --device: the CPU reference's phases, no provider phase; without --timings stderr stays empty"
TP_EMULATED_WRONG_AT=3699 TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${args[@]}" --device >"$tmp/devbad.out" 2>"$tmp/devbad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/devbad.err")" = 1 ] && grep -q "disagrees with the CPU exact path at C\[99, 36\]" "$tmp/devbad.err"
ok $? "--device, the provider wrong by 2^-48 in C[99, 36] (a corner): exit 2 ($rc), one line naming it: $(cut -c1-160 "$tmp/devbad.err")"
TP_EMULATED_CHECK_WRONG_AT=36 TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${args[@]}" --device >"$tmp/chkbad.out" 2>"$tmp/chkbad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/chkbad.err")" = 1 ] && grep -q "its element check disagrees with the CPU's at C\[0, 36\]" "$tmp/chkbad.err"
ok $? "--device, the provider's element check reading C[0, 36] (a corner) with its last bit flipped, its sums right: exit 2 ($rc), one line naming it: $(cut -c1-160 "$tmp/chkbad.err")"

# 65536 elements (4 chunks of the element check, 256 runs of the
# provider's), 4 of them moved 16 binary16 steps: the provider's check
# gives the CPU's violations, worst and first elements, bit for bit
"$emu" build/gen/gemm_fwd.plan.json "$tmp/dump" --case wide_256 --dump-inputs >/dev/null 2>&1
w=$tmp/dump/outputs/wide_256
$py -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
off = len(b) - 2 * 65536
for i in (5, 20000, 40000, 65535):
    v = b[off + 2 * i] | b[off + 2 * i + 1] << 8
    v = (v + 16) & 0xffff
    b[off + 2 * i], b[off + 2 * i + 1] = v & 0xff, v >> 8
open(sys.argv[2], "wb").write(bytes(b))' "$w/C.npy" "$tmp/C_bad.npy"
wargs=(--contract gemm_fwd --input "A=$w/input_A.npy" --input "B=$w/input_B.npy")
"$tp" check "${wargs[@]}" --output "C=$w/C.npy" --json "$tmp/w_cpu.json" >/dev/null 2>&1
rc1=$?
TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${wargs[@]}" --output "C=$w/C.npy" --device --json "$tmp/w_dev.json" >/dev/null 2>&1
rc2=$?
"$tp" check "${wargs[@]}" --output "C=$tmp/C_bad.npy" --json "$tmp/wb_cpu.json" >/dev/null 2>&1
rc3=$?
TP_GEMM_CUDA_LIB=$emu_lib "$tp" check "${wargs[@]}" --output "C=$tmp/C_bad.npy" --device --json "$tmp/wb_dev.json" >/dev/null 2>&1
rc4=$?
$py -c 'import json,sys
for cpu, dev, verdict, nviol in ((sys.argv[1], sys.argv[2], "pass", 0), (sys.argv[3], sys.argv[4], "fail", 4)):
    a, b = json.load(open(cpu)), json.load(open(dev))
    xp = b.pop("exact_provider")
    assert a == b, "results differ"
    assert "C.element_check" in xp, sorted(xp)
    c = a["outputs"]["C"]
    assert a["verdict"] == verdict and c["violations"] == nviol, (a["verdict"], c["violations"])
    assert [e["index"] for e in c["first_violations"]] == ([[0, 5], [78, 32], [156, 64], [255, 255]] if nviol else []), c["first_violations"]' \
    "$tmp/w_cpu.json" "$tmp/w_dev.json" "$tmp/wb_cpu.json" "$tmp/wb_dev.json" &&
    [ "$rc1$rc2$rc3$rc4" = 0011 ]
ok $? "65536 elements, 4 chunks: the provider's element check equals the CPU's, passing and with 4 violations in 3 chunks (exits $rc1 $rc2 $rc3 $rc4)"

# compare.py CPU GPU SEED: equal apart from exact_provider, which the GPU
# run has for every judged case, with the sample's size and seed
cat >"$tmp/compare.py" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
seed = "0x%016x" % int(sys.argv[3], 0)
bad = []
if len(a["cases"]) != len(b["cases"]):
    bad.append("case counts differ")
for ca, cb in zip(a["cases"], b["cases"]):
    xp = cb.pop("exact_provider", None)
    if ca != cb:
        bad.append(ca["case"] + ": differs")
    for out, x in (xp or {}).items():
        cc = x["cross_check"]
        want = x["elements"] if x["elements"] <= 1000 else 1004
        if (x["provider"], cc["sampled"], cc["seed"], cc["disagreements"]) != ("emulated", want, seed, 0):
            bad.append(f"{ca['case']}/{out}: {x}")
    if not xp and ca["verdict"] in ("pass", "fail"):
        bad.append(ca["case"] + ": no exact_provider")
print("; ".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY
for c in gemm_fwd gemm_bwd_a gemm_bwd_b; do
    cases=$($py -c 'import json,sys; print(" ".join("--case " + c["name"] for c in json.load(open(sys.argv[1]))["cases"] if c["dims"].get("M", 0) * c["dims"].get("N", 0) * c["dims"].get("K", 0) <= 2**24))' "build/gen/$c.plan.json")
    "$emu" "build/gen/$c.plan.json" "$tmp/cpu_$c" $cases >/dev/null 2>&1
    rc_cpu=$?
    TP_CROSS_CHECK_SEED=0x5eed "$emu" "build/gen/$c.plan.json" "$tmp/fx_$c" $cases --exact-provider emulated >/dev/null 2>&1
    rc_fx=$?
    msg=$($py "$tmp/compare.py" "$tmp/cpu_$c/results.json" "$tmp/fx_$c/results.json" 0x5eed 2>&1)
    [ $rc_cpu = 0 ] && [ $rc_fx = 0 ] && [ "$msg" = ok ]
    ok $? "$c: the fixed-point provider's run equals the CPU path's but for exact_provider (seed 0x5eed, 0 disagreements): $msg"
    "$tp" replay "$tmp/fx_$c" >"$tmp/replay_$c.log"
    ok $? "$c: the provider's run replays on the CPU path ($(tail -1 "$tmp/replay_$c.log"))"
done

"$emu" build/gen/gemm_fwd.plan.json "$tmp/wrong" --case normal_64 --case tiny_1x1x1 --exact-provider wrong=0 >/dev/null 2>&1
rc=$?
$py -c 'import json,sys
r = json.load(open(sys.argv[1]))
assert len(r["cases"]) == 2
for c in r["cases"]:
    assert c["verdict"] == "error" and c["by"] == "checker", c
    assert "exact provider emulated disagrees with the CPU exact path at C[0, 0]" in c["reason"], c' "$tmp/wrong/results.json"
[ $? = 0 ] && [ $rc = 2 ]; ok $? "a provider wrong by 2^-48 in C[0, 0]: each case an error by the checker naming C[0, 0], exit 2 ($rc)"

tap_end
