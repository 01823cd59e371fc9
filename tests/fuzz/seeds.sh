#!/usr/bin/env bash
# tests/fuzz/seeds.sh OUT: the seed corpora of the fuzz targets, made from
# the repository's own files (nothing binary is kept in git):
#   OUT/npy       small recorded outputs, as .npy (recorded/*/*/outputs/**.tpr
#                 of two runs, unpacked by build/tolproof unpack)
#   OUT/tpr       small recorded outputs as recorded (.tpr)
#   OUT/expr      every shape expression, requirement and launch expression
#                 of contracts/*.toml, and their C renderings in the plans
#   OUT/fill      every fill of contracts/*.toml, after the byte that picks
#                 the dtype and rank (tests/fuzz/fuzz_fill.c)
#   OUT/plan      the plans of build/gen/ and recorded/
#   OUT/results   recorded/*/*/results.json, and a one-case GEMM run's
#   OUT/manifest  the manifest of a bundle of one small recorded run, and of
#                 build/bundle when `ninja bundle` made one, and a minimal one
#   OUT/run       the run directory fuzz_results replays (TP_FUZZ_RUN):
#                 recorded gemm_fwd reduced to its case tiny_1x1x1
set -eu
cd "$(dirname "$0")/../.."
out=$1
rm -rf "$out"
mkdir -p "$out"/{npy,tpr,expr,fill,plan,results,manifest,run}
shopt -s nullglob globstar
# recorded outputs are .tpr (recorded/MIGRATIONS.md 0004): two runs whose
# references are quick (a copy, and LayerNorm with its binary32 outputs)
# unpacked for the .npy seeds
mkdir -p "$out/unpacked"
for r in embedding_fwd layernorm_fwd; do
    [ -d "recorded/nvidia-h200/$r" ] || continue
    cp -r "recorded/nvidia-h200/$r" "$out/unpacked/"
    build/tolproof unpack "$out/unpacked/$r" >/dev/null
done
i=0
for f in "$out"/unpacked/**/outputs/**/*.npy; do
    [ "$(stat -c %s "$f")" -le 16384 ] || continue
    cp "$f" "$out/npy/$i.npy"
    i=$((i + 1))
    [ $i -lt 48 ] || break
done
rm -rf "$out/unpacked"
i=0
for f in recorded/**/outputs/**/*.tpr; do
    [ "$(stat -c %s "$f")" -le 16384 ] || continue
    cp "$f" "$out/tpr/$i.tpr"
    i=$((i + 1))
    [ $i -lt 48 ] || break
done
i=0
for f in build/gen/*.plan.json recorded/*/*/plan.json; do
    cp "$f" "$out/plan/$i.json"
    i=$((i + 1))
done
i=0
for f in recorded/*/*/results.json; do
    cp "$f" "$out/results/$i.json"
    i=$((i + 1))
done
# manifests: as written (first byte even: the self-hash is checked as it
# is) and without their self_sha256 (odd: the target appends a correct one)
manifest_seed() { # MANIFEST NAME
    { printf '\0'; cat "$1"; } >"$out/manifest/$2"
    { printf '\001'; sed -n '/^ "self_sha256": /q;p' "$1" | sed '$ s/,$//' | head -c -1; } >"$out/manifest/$2.body"
}
[ -f build/bundle/manifest.json ] && manifest_seed build/bundle/manifest.json bundle
if [ -x build/tolproof ] && [ -d recorded/nvidia-h200/layernorm_bwd_params ] &&
    build/tolproof bundle --out "$out/bundle" recorded/nvidia-h200/layernorm_bwd_params >/dev/null 2>&1; then
    manifest_seed "$out/bundle/manifest.json" small
fi
rm -rf "$out/bundle" "$out/bundle.tar.gz"
printf '\001{\n "files": {},\n "runs": [],\n "tolproof_bundle": 1' >"$out/manifest/minimal"
/usr/bin/python3 - "$out" <<'EOF'
import glob, json, os, sys, tomllib
out = sys.argv[1]
exprs, fills = set(), set()
dtypes = ["f16", "f32", "i32", "i64", "bf16"]  # core/tp_dtype.h's order
for path in sorted(glob.glob("contracts/*.toml")):
    with open(path, "rb") as f:
        c = tomllib.load(f)
    for t in c.get("tensor", []):
        exprs.update(str(x) for x in t.get("shape", []) + t.get("values", []))
    k = c.get("kernel", {})
    exprs.update(str(x) for x in k.get("block", []) + k.get("grid", []) + [k.get("shared_bytes", "0")])
    exprs.update(r["expr"] for r in c.get("require", []))
    shapes = {t["name"]: (t["dtype"], len(t["shape"])) for t in c.get("tensor", [])}
    for case in c.get("case", []):
        for name, fill in case.get("fill", {}).items():
            dt, rank = shapes[name]
            fills.add(bytes([dtypes.index(dt) + len(dtypes) * (rank - 1)]) + fill.encode())
for path in sorted(glob.glob("build/gen/*.plan.json")):
    with open(path) as f:
        p = json.load(f)
    for t in p["tensors"]:
        exprs.update(t["shape"] + t.get("values", []))
    exprs.update(r["expr"] for r in p.get("requires", []))
for i, e in enumerate(sorted(exprs)):
    with open(os.path.join(out, "expr", str(i)), "w") as f:
        f.write(e)
for i, x in enumerate(sorted(fills)):
    with open(os.path.join(out, "fill", str(i)), "wb") as f:
        f.write(x)
# the run fuzz_results replays: one tiny case, so that a replay is quick
src = "recorded/nvidia-h200/gemm_fwd"
run = os.path.join(out, "run")
with open(os.path.join(src, "plan.json")) as f:
    plan = json.load(f)
plan["cases"] = [c for c in plan["cases"] if c["name"] == "tiny_1x1x1"]
with open(os.path.join(run, "plan.json"), "w") as f:
    json.dump(plan, f, indent=1)
os.makedirs(os.path.join(run, "outputs", "tiny_1x1x1"))
with open(os.path.join(src, "outputs", "tiny_1x1x1", "C.tpr"), "rb") as f, \
        open(os.path.join(run, "outputs", "tiny_1x1x1", "C.tpr"), "wb") as g:
    g.write(f.read())
with open(os.path.join(src, "results.json")) as f:
    res = json.load(f)
res["cases"] = [c for c in res["cases"] if c["case"] == "tiny_1x1x1"]
with open(os.path.join(out, "results", "tiny.json"), "w") as f:
    json.dump(res, f, indent=1)
EOF
