#!/bin/bash
# proofs/coq.sh OUT_DIR
# Compile the Coq + Flocq proofs of the standard-model axioms (binary32, binary64); exit non-zero on
# failure. Writes OUT_DIR/coq.log (coqc output, including the axioms the
# theorem rests on: only the Coq standard library's classical reals).
set -u
die() { echo "coq.sh: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: proofs/coq.sh OUT_DIR"
command -v coqc >/dev/null || die "coqc not found: apt-get install coq libcoq-flocq"
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$out/coq" || die "cannot create $out/coq"
cp "$root/proofs/coq/StandardModel.v" "$out/coq/" || die "cannot copy StandardModel.v"
if (cd "$out/coq" && coqc StandardModel.v) > "$out/coq.log" 2>&1; then
    echo "coq.sh: StandardModel.v compiled (std_model_binary32 and std_model_binary64 proved)"
else
    echo "coq.sh: coqc failed on proofs/coq/StandardModel.v, see $out/coq.log" >&2
    grep -q "Cannot find a physical path bound to logical path.*Flocq" "$out/coq.log" &&
        echo "coq.sh: Flocq not found: apt-get install libcoq-flocq" >&2
    exit 1
fi
