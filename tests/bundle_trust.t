#!/usr/bin/env bash
# What an audit shows, and what a signature adds (README, "Trust model").
# Forgeries of a violated recorded run, re-bundled or re-hashed by the
# forger, fail the audit: its failing cases deleted, its failing cases
# rewritten as errors, manifest.schema.json replaced by {}. Rewritten as
# faults (an error by "fault": the GPU's word, which nothing re-derives)
# they pass, but the contract is "not met" in the audit, summary.md and
# summary, and the audit counts the verdicts resting on the GPU's word. Edits the audit
# cannot re-derive (git commit, tool versions, timing.json, with their
# self-hashes recomputed) pass an unsigned audit, which says plainly that
# an unsigned bundle does not show who made it; signed with --sign and
# audited with --key, they fail. Round trip: a signed bundle and its
# archive pass `audit --key`, and OpenSSL alone verifies signature.json; a
# bundle re-signed by another key, one whose signature.json was deleted,
# and a non-Ed25519 key are caught. A bundle needs proof reports unless
# --no-proofs, and then says it shows none; cases run on supplied inputs
# are named in summary.md. The keys are made here, in the temporary
# directory: no private key is in the repository.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh
pilot=recorded/nvidia-h200/embedding_bwd_pilot

mkdir -p "$tmp/prove" "$tmp/noproofs"
printf '{"oracle": "embedding", "goals": 2, "proved": 2, "provers": ["Qed"], "tiers": "T1 T2"}\n' >"$tmp/prove/embedding.json"
bundle() { "$tp" bundle --out "$tmp/$1" --proofs "$tmp/prove" "${@:2}" >/dev/null; }
# audit_says NAME STATUS PATTERN [ARGS...]: audit of $tmp/NAME exits STATUS and prints PATTERN
audit_says() {
    local name=$1 want=$2 pattern=$3
    shift 3
    "$tp" audit --quiet "$@" "$tmp/$name" >"$tmp/$name.log" 2>&1
    local rc=$?
    [ $rc = "$want" ] && grep -q -- "$pattern" "$tmp/$name.log"
    ok $? "$name: audit exits $rc: $(grep -o -- "$pattern.*" "$tmp/$name.log" | head -1 | cut -c1-90)"
}
# selfhash FILE: what a forger does after editing manifest.json or timing.json
selfhash() {
    local at self
    at=$(grep -bo '"self_sha256": "' "$1" | tail -n 1 | cut -d: -f1)
    self=$(head -c "$at" "$1" | sha256sum | cut -d' ' -f1)
    sed -i "s|\"self_sha256\": \"[0-9a-f]*\"|\"self_sha256\": \"$self\"|" "$1"
}
# rehash DIR: every file's hash in manifest.json, then its self-hash
rehash() {
    local f sha
    for f in $(cd "$1" && find . -type f ! -name manifest.json ! -name timing.json ! -name signature.json | sed 's|^\./||'); do
        sha=$(sha256sum "$1/$f" | cut -d' ' -f1)
        sed -i "s|\"$f\": \"[0-9a-f]*\"|\"$f\": \"$sha\"|" "$1/manifest.json"
    done
    selfhash "$1/manifest.json"
}

bundle pilot "$pilot"
ok $? "a bundle of the recorded pilot run (9 failing cases)"
audit_says pilot 0 "# unsigned: who produced this bundle is not shown"
grep -q "^# not shown by any bundle: that a GPU really ran the kernel" "$tmp/pilot.log"
ok $? "the audit says what no bundle shows"

# ---- forgeries the audit re-derives
forge() { # forge NAME PYTHON: a copy of the pilot run edited by PYTHON (r: results.json, d: the run)
    rm -rf "$tmp/$1.run" && cp -r "$pilot" "$tmp/$1.run" && /usr/bin/python3 -c "import json, shutil, sys
d = sys.argv[1]
r = json.load(open(d + '/results.json'))
$2
json.dump(r, open(d + '/results.json', 'w'), indent=2)" "$tmp/$1.run"
}
forge deleted "
for c in r['cases']:
    if c['verdict'] == 'fail':
        shutil.rmtree(d + '/outputs/' + c['case'])
r['cases'] = [c for c in r['cases'] if c['verdict'] != 'fail']
r['device']['name'] = 'NVIDIA H100 80GB HBM3'"
bundle deleted "$tmp/deleted.run"
audit_says deleted 1 "case uniform_4096x256 of the plan has no record"
# as_errors NAME BY: the pilot run with its failing cases rewritten as errors by BY
as_errors() {
    forge "$1" "
for i, c in enumerate(r['cases']):
    if c['verdict'] == 'fail':
        shutil.rmtree(d + '/outputs/' + c['case'])
        r['cases'][i] = {'case': c['case'], 'verdict': 'error', 'by': '$2', 'reason': 'an illegal memory access was encountered'}"
}
as_errors errors harness
bundle errors "$tmp/errors.run"
audit_says errors 1 "recorded error by harness (an illegal memory access was encountered)"
grep -q '| \*\*not shown\*\*: 9 case(s) without a re-derivable verdict |' "$tmp/errors/summary.md"
ok $? "and its summary.md does not call the contract met"
# failing cases rewritten as faults: an error by "fault" is the GPU's word,
# which the audit cannot re-derive and accepts as such; so the bundle
# audits, but neither the audit, summary.md nor summary calls the contract
# met, and the audit counts the verdicts that rest on the GPU's word
as_errors faults fault
bundle faults "$tmp/faults.run"
audit_says faults 0 "# on the GPU's word alone: 9 verdict(s), errors by device, fault or timeout"
grep -q "^# on the GPU's word alone: 0 verdict(s)" "$tmp/pilot.log"
ok $? "the audit says how many verdicts rest on the GPU's word (9; none in the real run)"
"$tp" audit "$tmp/faults" >"$tmp/faults.full.log" 2>&1
grep -q "^ok - runs/embedding_bwd_pilot/results.json: 2 case(s) re-derived from the seeds and the stored outputs, 9 error(s) by device, fault or timeout on the GPU's word; contract: \*\*not met\*\*: 9 case(s) in error (device, fault or timeout: the GPU's word)$" "$tmp/faults.full.log" &&
    ! grep -q 'contract: met' "$tmp/faults.full.log" &&
    grep -q "| \*\*not met\*\*: 9 case(s) in error (device, fault or timeout: the GPU's word) |" "$tmp/faults/summary.md" &&
    "$tp" summary "$tmp/faults.run" | grep -q "| \*\*not met\*\*: 9 case(s) in error (device, fault or timeout: the GPU's word) |"
ok $? "neither the audit, summary.md nor summary calls the contract met"
rm -rf "$tmp/schema" && cp -r "$tmp/pilot" "$tmp/schema" && echo '{}' >"$tmp/schema/manifest.schema.json" && rehash "$tmp/schema"
audit_says schema 1 "manifest.schema.json: differs from the schema this tolproof ships"

# ---- edits nothing re-derives: unsigned, the audit says so; signed, they fail
for what in git tools timing; do
    rm -rf "$tmp/$what" && cp -r "$tmp/pilot" "$tmp/$what"
    case $what in
    git) sed -i 's|"commit": "[0-9a-f]*"|"commit": "0000000000000000000000000000000000000000"|' "$tmp/$what/manifest.json" ;;
    tools) sed -i 's|"z3": "[^"]*"|"z3": "Z3 version 9.9.9"|' "$tmp/$what/manifest.json" ;;
    timing) sed -i 's|"bundle_seconds": [0-9.e+-]*|"bundle_seconds": 0.001|' "$tmp/$what/timing.json" ;;
    esac
    f=manifest.json && [ $what = timing ] && f=timing.json
    selfhash "$tmp/$what/$f"
    ! cmp -s "$tmp/$what/$f" "$tmp/pilot/$f"
    ok $? "$what: edited, self-hash recomputed"
    audit_says "$what" 0 "# unsigned: who produced this bundle is not shown.*Anyone can rewrite"
done

openssl genpkey -algorithm ed25519 -out "$tmp/author.pem" 2>/dev/null &&
    openssl pkey -in "$tmp/author.pem" -pubout -out "$tmp/author.pub" &&
    openssl genpkey -algorithm ed25519 -out "$tmp/forger.pem" 2>/dev/null
ok $? "throwaway Ed25519 keys"
"$tp" bundle --out "$tmp/signed" --proofs "$tmp/prove" --sign "$tmp/author.pem" "$pilot" >"$tmp/signed.out"
ok $? "bundle --sign"
grep -q ", signed)$" "$tmp/signed.out" && [ -f "$tmp/signed/signature.json" ]
ok $? "the bundle holds signature.json"
fpr=$(openssl pkey -pubin -in "$tmp/author.pub" -outform DER | tail -c 32 | sha256sum | cut -c1-16)
audit_says signed 0 "# signed: by key SHA256:$fpr, the key given with --key" --key "$tmp/author.pub"
"$tp" audit --quiet --key "$tmp/author.pub" "$tmp/signed.tar.gz" >"$tmp/signed_tgz.log"
ok $? "so does its .tar.gz"
/usr/bin/python3 -c "import json, sys
s = json.load(open(sys.argv[1] + '/signature.json'))
open(sys.argv[1] + '.msg', 'w').write(s['message'])
open(sys.argv[1] + '.sig', 'wb').write(bytes.fromhex(s['signature']))" "$tmp/signed"
printf 'tolproof bundle signature 1\nmanifest.json %s\ntiming.json %s\n' "$(sha256sum "$tmp/signed/manifest.json" | cut -c1-64)" \
    "$(sha256sum "$tmp/signed/timing.json" | cut -c1-64)" | cmp -s - "$tmp/signed.msg" &&
    openssl pkeyutl -verify -pubin -inkey "$tmp/author.pub" -rawin -in "$tmp/signed.msg" -sigfile "$tmp/signed.sig" |
    grep -q "Signature Verified Successfully"
ok $? "OpenSSL alone verifies signature.json's message (the two files' SHA-256) and signature"

for what in git tools timing; do
    rm -rf "$tmp/s_$what" && cp -r "$tmp/signed" "$tmp/s_$what"
    case $what in
    git) sed -i 's|"commit": "[0-9a-f]*"|"commit": "0000000000000000000000000000000000000000"|' "$tmp/s_$what/manifest.json" ;;
    tools) sed -i 's|"z3": "[^"]*"|"z3": "Z3 version 9.9.9"|' "$tmp/s_$what/manifest.json" ;;
    timing) sed -i 's|"bundle_seconds": [0-9.e+-]*|"bundle_seconds": 0.001|' "$tmp/s_$what/timing.json" ;;
    esac
    f=manifest.json && [ $what = timing ] && f=timing.json
    selfhash "$tmp/s_$what/$f"
    audit_says "s_$what" 1 "signature.json: it signs other bytes" --key "$tmp/author.pub"
done
"$tp" bundle --out "$tmp/resigned" --proofs "$tmp/prove" --sign "$tmp/forger.pem" "$tmp/deleted.run" >/dev/null
audit_says resigned 1 "signature.json: signed by key SHA256:[0-9a-f]*, not by the key given with --key (SHA256:$fpr)" \
    --key "$tmp/author.pub"
rm -rf "$tmp/resigned_ok" && "$tp" bundle --out "$tmp/resigned_ok" --proofs "$tmp/prove" --sign "$tmp/forger.pem" "$pilot" >/dev/null
audit_says resigned_ok 0 "which no --key named: the bytes are as that key's holder signed them"
rm -rf "$tmp/unsigned" && cp -r "$tmp/signed" "$tmp/unsigned" && rm "$tmp/unsigned/signature.json"
audit_says unsigned 1 "signature.json: no signature.json: the bundle is unsigned; --key asks" --key "$tmp/author.pub"
rm -rf "$tmp/garbled" && cp -r "$tmp/signed" "$tmp/garbled" && /usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
# one hex digit of the signature changed (whichever it was)
s["signature"] = ("1" if s["signature"][0] == "0" else "0") + s["signature"][1:]
json.dump(s, open(sys.argv[1], "w"), indent=2)' "$tmp/garbled/signature.json"
audit_says garbled 1 "signature.json: the Ed25519 signature does not verify"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/ec.pem" 2>/dev/null
"$tp" bundle --out "$tmp/ec" --proofs "$tmp/prove" --sign "$tmp/ec.pem" "$pilot" 2>"$tmp/ec.err"
[ $? = 2 ] && grep -q "its key type is EC; tolproof signs with Ed25519" "$tmp/ec.err" &&
    [ ! -e "$tmp/ec" ]
ok $? "a P-256 key is refused before anything is written"
"$tp" audit --key "$tmp/author.pem" "$tmp/signed" >/dev/null
ok $? "--key also takes the private key file (its public half)"

# ---- proofs and supplied inputs
"$tp" bundle --out "$tmp/np" --proofs "$tmp/noproofs" "$pilot" 2>"$tmp/np.err"
[ $? = 2 ] && grep -q "no proof reports" "$tmp/np.err" && [ ! -e "$tmp/np" ]
ok $? "a bundle without proof reports is refused"
"$tp" bundle --out "$tmp/np" --no-proofs "$pilot" >/dev/null && grep -q "No proof reports: this bundle does not show that any oracle is proven" "$tmp/np/summary.md"
ok $? "with --no-proofs it is written, and summary.md says it shows no proof"
audit_says np 0 "# not shown: that any oracle is proven"
"$emu" build/gen/gemm_fwd.plan.json "$tmp/seeded" --case normal_64 --dump-inputs >/dev/null 2>&1 &&
    "$emu" build/gen/gemm_fwd.plan.json "$tmp/fed" --case normal_64 --input A="$tmp/seeded/outputs/normal_64/input_A.npy" \
        >/dev/null 2>&1 && bundle fedb "$tmp/fed"
ok $? "a bundle of a run on a supplied input"
grep -q "1 case(s) ran on supplied inputs" "$tmp/fedb/summary.md" && grep -q "^| normal_64 | [0-9]*; from files: A |" "$tmp/fedb/summary.md" &&
    grep -q "| met on the selected cases, 1 case(s) on supplied inputs |" "$tmp/fedb/summary.md"
ok $? "its summary.md names the case and the input that came from a file"
tap_end
