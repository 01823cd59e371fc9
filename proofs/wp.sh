#!/bin/bash
# proofs/wp.sh ORACLE.c OUT_DIR
# Prove one oracle with Frama-C/WP through tolproof's own Why3 configuration.
# Writes OUT_DIR/<oracle>.log (full Frama-C output of every pass, each pass
# also in OUT_DIR/<oracle>.passes/N.log) and OUT_DIR/<oracle>.json
# ({"oracle","goals","proved","provers","seconds","tiers"}); exits non-zero
# unless every goal is proved and the goal count matches
# the expected status beside the oracle, ORACLE.expected.json.
# Environment: TP_WP_CACHE_DIR (default build/wp-cache), TP_WP_SEED_DIR
# (prover answers copied into that cache first, default proofs/wp-cache;
# empty: none, every goal goes to the provers), TP_BUILD_DIR
# (default build), TP_WP_TIMEOUT (seconds per goal in the first pass,
# default: the oracle's own timeout= below, else 5), TP_WP_RETRY_TIMEOUTS
# (the limits of the passes that retry the goals left unproved, default
# "60 240"), TP_WP_PROVERS and TP_WP_ALONE (override the oracle's
# provers= and alone=, below; TP_WP_ALONE= runs no function alone).
set -u

die() { echo "wp.sh: $*" >&2; exit 2; }

[ $# -eq 2 ] || die "usage: proofs/wp.sh ORACLE.c OUT_DIR"
src=$1
out=$2
[ -f "$src" ] || die "no such oracle source: $src"

command -v frama-c >/dev/null || die "frama-c not found: apt-get install frama-c-base"
command -v why3 >/dev/null || die "why3 not found: apt-get install why3"
command -v z3 >/dev/null || die "z3 not found: apt-get install z3"
command -v cvc4 >/dev/null || die "cvc4 not found: apt-get install cvc4"
command -v gappa >/dev/null || die "gappa not found: apt-get install gappa"
command -v prlimit >/dev/null || die "prlimit not found: apt-get install util-linux"

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TP_BUILD_DIR:-$root/build}
cache=${TP_WP_CACHE_DIR:-$build/wp-cache}
timeout=${TP_WP_TIMEOUT:-}
retry_timeouts=${TP_WP_RETRY_TIMEOUTS:-60 240}
for t in $timeout $retry_timeouts; do
    [[ $t =~ ^[1-9][0-9]*$ ]] || die "TP_WP_TIMEOUT / TP_WP_RETRY_TIMEOUTS: '$t' is not a whole number of seconds (expected e.g. TP_WP_TIMEOUT=5 TP_WP_RETRY_TIMEOUTS=\"60 240\")"
done
name=$(basename "$src" .c)

# Which memory model proves which tiers. T2 oracles are proven with floats
# read as reals (their exactness is argued in the source); T3 oracles keep
# the IEEE float model and the one standard-model axiom per format.
# Each oracle says which in one line of its source:
#   /* wp: model=typed+real tiers=T1,T2 */
# and may name its provers, in the order to try them (see below):
#   /* wp: model=typed tiers=T1,T3 provers=cvc4nofp,z3nofp,gappatp */
# and functions to prove first with other provers than the rest (below):
#   /* wp: model=typed tiers=T1,T2 alone=cvc4nofp:tp_gemm_exact */
# and the time limit of its first pass, in seconds (below; TP_WP_TIMEOUT
# overrides it):
#   /* wp: model=typed tiers=T1,T2 timeout=10 */
marker=$(grep -a -m1 -oE '/\* wp: model=[a-z+]+ tiers=[T0-9,]+( provers=[a-z0-9,/]+)?( alone=[a-z0-9,]+:[A-Za-z0-9_,]+)?( timeout=[1-9][0-9]*)? \*/' "$src")
[ -n "$marker" ] || die "$src has no '/* wp: model=... tiers=... */' line saying how to prove it"
model=$(echo "$marker" | sed -E 's|.*model=([a-z+]+).*|\1|')
tiers=$(echo "$marker" | sed -E 's|.*tiers=([T0-9,]+).*|\1|; s|,| |g')
own_provers=$(echo "$marker" | sed -nE 's|.*provers=([a-z0-9,/]+).*|\1|p')
own_alone=$(echo "$marker" | sed -nE 's|.*alone=([a-z0-9,]+:[A-Za-z0-9_,]+).*|\1|p')
own_timeout=$(echo "$marker" | sed -nE 's|.*timeout=([0-9]+).*|\1|p')
timeout=${timeout:-${own_timeout:-5}}

# The Why3 configuration and drivers, generated from proofs/why3/ into the
# build tree: no dependence on ~/.why3.conf.
w3dir=$build/why3
mkdir -p "$w3dir" "$out" "$cache" || die "cannot create $w3dir, $out or $cache"

# The seed: the prover answers of the last cold run of every oracle,
# committed in proofs/wp-cache (proofs/refresh-cache.sh remakes it). WP
# names an answer by the MD5 digest of the prover's name and the Why3 task
# as that prover's driver prints it, so an answer is read back only for a
# byte-identical task: a changed oracle, lemma, driver or prover version
# sends other tasks, and those go to the provers. Copied without overwriting what the cache
# already holds. TP_WP_SEED_DIR= (empty) proves cold: every goal goes to
# the provers (about 40 minutes on 2 cores instead of about 16).
seed=${TP_WP_SEED_DIR-$root/proofs/wp-cache}
if [ -n "$seed" ]; then
    [ -d "$seed" ] || die "TP_WP_SEED_DIR: no such directory: $seed (TP_WP_SEED_DIR= proves without a seed)"
    find "$seed" -maxdepth 1 -name '*.json' -exec cp -n -t "$cache" {} + ||
        die "cannot copy the seed $seed into $cache"
fi
w3data=$(why3 --print-datadir) || die "why3 --print-datadir failed"
w3lib=$(why3 --print-libdir) || die "why3 --print-libdir failed"
for drv in cvc4_nofp z3_nofp; do
    sed -e "s|@WHY3DRIVERS@|$w3data/drivers|g" "$root/proofs/why3/$drv.drv" > "$w3dir/$drv.drv.tmp.$$" &&
        mv "$w3dir/$drv.drv.tmp.$$" "$w3dir/$drv.drv" || die "cannot write $w3dir/$drv.drv"
done
sed -e "s|@WHY3DATA@|$w3data|g; s|@WHY3LIB@|$w3lib|g; s|@WHY3DRIVERS@|$w3data/drivers|g" \
    -e "s|@TPDRIVERS@|$w3dir|g; s|@Z3@|$(command -v z3)|g; s|@CVC4@|$(command -v cvc4)|g" \
    -e "s|@GAPPA@|$(command -v gappa)|g; s|@PRLIMIT@|$(command -v prlimit)|g; s|@TPWHY3LIB@|$root/proofs/why3|g" \
    "$root/proofs/why3/why3.conf.in" > "$w3dir/why3.conf.tmp.$$" &&
    mv "$w3dir/why3.conf.tmp.$$" "$w3dir/why3.conf" || die "cannot write $w3dir/why3.conf"
export WHY3CONFIG=$w3dir/why3.conf

# Provers by model: the IEEE model needs z3 without the SMT-LIB float theory
# (z3 runs out of memory on it); the real model has no float goal and keeps
# the stock z3 driver its proofs were made with. Gappa in both: it proves
# the number-format lemmas of oracles/common/proven/grid.acsl, which every
# file that includes it proves again.
# Order matters: WP starts a goal's provers in this order and keeps the
# first that proves it; with -wp-par 2 the first two run at once and the
# next starts when one of them ends, so a prover that runs into the time
# limit on a goal holds a slot for all of it, and every prover started
# costs WP its own work on the goal (the driver's transformations, the
# cache). Groups ("/", below) keep a prover out of the race.
# In the IEEE model Gappa first: it answers in milliseconds, valid on the
# number-format and rounding goals of the exact sums and unknown on
# everything else; with it last, each of those goals waited for z3 and CVC4
# to fail (the IEEE-model LayerNorm oracle: 625 s cold, 140 s with Gappa
# first; alone on 2026-11-24: layernorm.c 47 s with Gappa first, 139 s
# last). CVC4 before z3 (z3 without the float theory fails
# most float goals, after seconds). In the real model, where Gappa proves
# almost nothing, z3 first and Gappa last (cold, one oracle at a time on
# the 2-core machine: gelu_fwd.c 58 -> 16 s, gelu_bwd.c 47 -> 16 s,
# embedding.c 45 -> 22 s, softmax.c 7 -> 5 s).
case $model in
    typed+real) provers=z3tp,cvc4nofp,gappatp ;;
    *) provers=gappatp,cvc4nofp,z3nofp ;;
esac
# An oracle that names its provers gets them. Gappa last for the interval
# and bound oracles, whose goals are mostly real arithmetic (cold:
# dot_fp32.c 67 -> 34 s, tp_sum_bound.c 69 -> 44 s, tp_ival_mul.c 24 ->
# 22 s), and for oracles/common/proven/tp_f16_round.c, whose goals about
# bit patterns and ghost loops Gappa cannot prove and whose Why3 tasks the
# Gappa driver's transformations take minutes and gigabytes on (measured:
# frama-c did not finish in 8 min with Gappa first; 28 s warm, Gappa last,
# where Gappa gets only grid.acsl's four format lemmas); that oracle runs
# CVC4 alone first (provers=cvc4nofp/z3nofp,gappatp, see the passes).
[ -n "$own_provers" ] && provers=$own_provers
provers=${TP_WP_PROVERS:-$provers}
alone=${TP_WP_ALONE-$own_alone}
[ -z "$alone" ] || [[ $alone =~ ^[a-z0-9,]+:[A-Za-z0-9_,]+$ ]] ||
    die "TP_WP_ALONE: '$alone' is not PROVERS:FUNCTIONS (expected e.g. cvc4nofp:tp_gemm_exact)"

log=$out/$name.log
passes=$out/$name.passes
# Only this script's own files go: a pass log N.log and the list pending.
mkdir -p "$passes" && rm -f "$passes"/[0-9]*.log "$passes/pending" || die "cannot create $passes"
goals_py="$root/proofs/wp_goals.py"
start=$(date +%s.%N)
npass=0
# pass LIMIT PROVERS [SELECTION...]: one run of WP, per-goal limit LIMIT s,
# over the goals SELECTION picks (default: all), log in $passes/N.log.
# The cache keeps every result with the limit it had: a goal that timed
# out under a limit is tried again under a longer one, a proved goal never
# is, and a prover's failure is not run again until a retry (below), which
# runs with cache_mode=rebuild.
cache_mode=update
pass() {
    local limit=$1 list=$2
    shift 2
    npass=$((npass + 1))
    echo "### wp.sh pass $npass: -wp-timeout $limit -wp-prover $list $*" > "$passes/$npass.log"
    frama-c -wp -wp-rte -warn-special-float none -wp-model "$model" \
        -wp-driver "$root/proofs/why3/tolproof.driver" \
        -wp-prover "$list" -wp-par 2 -wp-timeout "$limit" \
        -wp-cache "$cache_mode" -wp-cache-dir "$cache" \
        "$@" "$src" >> "$passes/$npass.log" 2>&1
}
# every_goal LIMIT PROVERS [SELECTION...]: a pass that must run, over all
# goals unless SELECTION is one of the passes that split them (below).
every_goal() { pass "$@" || { cat $(pass_logs) > "$log"; fail_frama "pass $npass"; }; }
fail_frama() {
    echo "wp.sh: frama-c failed on $src ($1), see $log" >&2
    grep -aE 'User Error|\[kernel\].*[Ee]rror' "$log" | head -5 >&2
    exit 1
}
# pass_logs [FIRST]: the logs of passes FIRST (default 1) to the last.
pass_logs() { seq "${1:-1}" $npass | sed "s|^|$passes/|; s|\$|.log|"; }
# The first $split passes split the goals between them (1, or 3 with alone=).
split=1
goal_status() { /usr/bin/python3 "$goals_py" status --first $split $(pass_logs); }
# again LIMIT PROVERS: a pass over the goals no pass has proved yet, chosen
# by name (lemmas, labels) and function; where the choice misses one (a
# goal whose name is not a property name, or a name WP refuses), a pass
# over all goals.
again() {
    local limit=$1 list=$2 st first
    st=$(goal_status) || die "proofs/wp_goals.py failed"
    grep -q '^pending ' <<<"$st" || return 0
    grep '^pending ' <<<"$st" | cut -d' ' -f2 > "$passes/pending"
    first=$((npass + 1))
    local lemmas fcts props
    lemmas=$(sed -n 's/^lemmas //p' <<<"$st")
    fcts=$(sed -n 's/^fcts //p' <<<"$st")
    props=$(sed -n 's/^props //p' <<<"$st")
    [ -n "$lemmas" ] && { pass "$limit" "$list" -wp-prop "$lemmas" || true; }
    [ -n "$fcts" ] && { pass "$limit" "$list" -wp-fct "$fcts" || true; }
    [ -n "$props" ] && { pass "$limit" "$list" -wp-fct "${props% *}" -wp-prop "${props#* }" || true; }
    if [ $npass -lt $first ] ||
        ! /usr/bin/python3 "$goals_py" missed "$passes/pending" $(pass_logs $first) >/dev/null; then
        every_goal "$limit" "$list"
    fi
}
# Passes. WP starts all of a goal's provers at once and keeps the first
# that proves it; with two slots (-wp-par 2) the first two provers of the
# list race on every goal. Where they complement each other that pays
# (tp_div_box.c: 5 s racing CVC4 and z3, 15 s with CVC4 first and z3 on
# what it left); where the first would win almost every goal, the second
# takes a core for nothing. An oracle of that kind splits its provers into
# groups with "/" (provers=cvc4nofp/z3nofp,gappatp): the first pass gives
# every goal to the first group, and each later pass the goals still
# unproved to one more group (the earlier provers answer from the cache).
# tp_f16_round.c, cold and alone: CVC4, z3 and Gappa racing 80 s; CVC4
# alone, then z3 and Gappa on the five goals it leaves, ~50 s. WP does
# its own work again for each goal it is given (1 to 37 s an oracle for
# all goals), so the later passes select only the unproved ones. Gappa
# alone first is no shortcut: its driver's transformations on the large
# goals then take minutes (exact_row.c: 114 s for Gappa's pass alone).
IFS=/ read -r -a groups <<<"$provers"
provers=${provers//\//,}
list=${groups[0]}
# alone=PROVERS:FUNCTIONS splits the first pass in three: the functions
# named, with PROVERS alone; every other function, with the first group;
# the lemmas, with the first group (-wp-skip-fct drops them, -wp-fct too).
# The goal count is the sum of the three, and must still match the
# expected status; what the functions' pass left goes to the first group
# next. For functions whose goals one prover proves alone, racing a
# second one costs a core for nothing. Cold, alone, on the 2-core machine
# (2026-11-25; racing -> split): exact_row.c 70.7 -> 44.4 s,
# embedding_scatter.c 78.1 -> 48.5 s, gemm_rows.c 54.2 -> 35.8 s,
# layernorm.c 45.7 -> 37.0 s.
if [ -n "$alone" ]; then
    split=3
    every_goal "$timeout" "${alone%%:*}" -wp-fct "${alone#*:}"
    every_goal "$timeout" "$list" -wp-skip-fct "${alone#*:}"
    every_goal "$timeout" "$list" -wp-prop @lemma
    again "$timeout" "$list"
else
    every_goal "$timeout" "$list"
fi
for g in "${groups[@]:1}"; do
    list=$list,$g
    again "$timeout" "$list"
done
# Goals that miss the limit on a loaded machine get a pass with a longer
# limit, and what is still left one with a longer one again (60 s, then
# 240 s by default); a goal no prover can prove still fails. An oracle
# whose slowest goals need a little more than the default names a longer
# first limit (timeout=10 in exact_row.c and tp_ival_div.c: cold 173 -> 72
# s and 43 -> 31 s, no retry pass). Gappa's own time is capped at 5 s of
# CPU in why3.conf.in: where it proves a goal it takes milliseconds.
# A prover's "failed" (it crashed, or printed nothing Why3 understands) is
# cached like an answer, whatever the limit, and a retry in update mode
# would only read it back. Seen on 2026-11-25: a fresh clone's gelu_fwd.c
# left three goals whose z3 and Gappa runs had "Failed" under load in the
# first pass, read back from the cache in both retries; alone, z3 proves
# each in 2 to 3 s. So the retries run with -wp-cache rebuild: every goal
# they select goes to the provers again (the selection may hold goals
# already proved, which costs prover time on this rare path) and its new
# answer replaces the cached one. No cache entry is deleted: the cache
# directory may be the user's (TP_WP_CACHE_DIR).
# WP reads a cached "valid" back under a limit only if it took no longer
# (a goal proved in 7 s reads as a timeout under 5 s), and a task a later
# pass selects may print differently from the first pass's, so each retry
# first reads back in update mode what an earlier run proved under that
# limit (the seed holds the retries of the run that made it: without this,
# every goal a cold run proved only on retry went to the provers again:
# the seeded ew_eval.c's 60 s pass took 68 s in rebuild mode, 29 s read
# back), and only the goals still left go to the provers in rebuild mode.
for limit in $retry_timeouts; do
    grep -q '^pending ' <<<"$(goal_status)" || break
    echo "wp.sh: $name: goals left unproved; trying them again with ${limit} s" >&2
    cache_mode=update
    again "$limit" "$provers"
    grep -q '^pending ' <<<"$(goal_status)" || break
    cache_mode=rebuild
    again "$limit" "$provers"
done
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
cat $(pass_logs) > "$log"

st=$(goal_status) || die "proofs/wp_goals.py failed"
goals=$(sed -n 's/^goals //p' <<<"$st")
listed=$(sed -n 's/^listed //p' <<<"$st")
proved=$(sed -n 's/^proved //p' <<<"$st")
[ -n "$goals" ] && [ "$goals" -gt 0 ] || fail_frama "no goal in the first pass"
# Provers that closed at least one goal, as Frama-C names them.
provers=$(sed -n 's/^prover //p' <<<"$st" |
    awk 'BEGIN { ORS = "" } { printf "%s\"%s\"", (NR > 1 ? ", " : ""), $0 }')

printf '{"oracle": "%s", "goals": %d, "proved": %d, "provers": [%s], "seconds": %s, "tiers": "%s"}\n' \
    "$name" "$goals" "$proved" "$provers" "$secs" "$tiers" > "$out/$name.json"

status=0
if [ "$proved" != "$goals" ]; then
    echo "wp.sh: $name: $proved/$goals goals proved; unproved:" >&2
    sed -n 's/^pending [^ ]* /  /p' <<<"$st" >&2
    [ "$listed" = "$goals" ] ||
        echo "  $((goals - listed)) goals counted but not named in the first $split pass logs, or named twice" >&2
    status=1
fi
expected=${src%.c}.expected.json
if [ -f "$expected" ]; then
    want=$(sed -nE 's|.*"goals": *([0-9]+).*|\1|p' "$expected")
    if [ "$want" != "$goals" ]; then
        echo "wp.sh: $name: $goals goals, $expected says $want (update it in review)" >&2
        status=1
    fi
else
    echo "wp.sh: $name: no $expected" >&2
    status=1
fi
[ $status -eq 0 ] && echo "wp.sh: $name: $proved/$goals goals proved ($tiers) in ${secs}s"
exit $status
