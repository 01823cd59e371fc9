#!/usr/bin/env bash
# proofs/wp_goals.py, which tells proofs/wp.sh what its passes left
# unproved and how to select it: on logs written here in Frama-C/WP's
# format, a goal counts as proved once some pass proves it, the count of
# goals is the first pass's, and every unproved goal is either selected
# (lemma, label, category, function) or caught by `missed`.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh
py=/usr/bin/python3
goals=proofs/wp_goals.py

cat >"$tmp/1.log" <<'EOF'
[wp] [Qed] Goal typed_tolproof_f_assert_rte_mem_access : Valid
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_lemma_Grid48_Add : Timeout (5s)
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_f_loop_invariant_done_acc_preserved : Unknown
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_g_call_h_requires_valid_x : Timeout (5s)
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_g_loop_assigns_part3 : Timeout (5s)
[wp] [CVC4 1.8 (noFP)] Goal typed_real_tolproof_k_ensures_sound : Valid (1.2s)
[wp] [CVC4 1.8 (noFP)] Goal weird_goal_name : Timeout (5s)
[wp] Proved goals:    2 / 7
EOF
cat >"$tmp/2.log" <<'EOF'
[wp] [Gappa 1.4.1 (tolproof)] Goal typed_tolproof_lemma_Grid48_Add : Valid
[wp] [Z3 4.8.12 (noFP)] Goal typed_tolproof_g_loop_assigns_part3 : Valid (30ms)
[wp] [Z3 4.8.12 (noFP)] Goal typed_real_tolproof_k_ensures_sound : Timeout (5s)
[wp] [Failed] Goal typed_tolproof_f_loop_invariant_done_acc_preserved
[wp] Proved goals:    2 / 4
EOF

# has LINE TEXT: the status output holds LINE, a whole line.
has() { grep -qx "$1" <<<"$st"; ok $? "$2"; }

st=$($py $goals status "$tmp/1.log")
ok $? "status reads one log"
has 'goals 7' "the goal count is the first pass's summary"
has 'proved 2' "two goals proved after the first pass"
has 'lemmas Grid48_Add' "a lemma is selected by its name"
has 'fcts g' "a call's precondition selects its whole function"
! grep -q '^props .*\bg\b' <<<"$st"
ok $? "a function selected whole is not selected again by label"
has 'props f done_acc' "a loop invariant is selected by its label (underscores kept)"
[ "$(grep -c '^pending ' <<<"$st")" = 5 ]
ok $? "five goals pending, the unparseable one included"
has 'pending weird_goal_name \[wp\] \[CVC4 1.8 (noFP)\] Goal weird_goal_name : Timeout (5s)' "a pending goal comes with its last log line"

st=$($py $goals status "$tmp/1.log" "$tmp/2.log")
has 'proved 4' "a goal proved in a later pass counts as proved"
! grep -q '^pending typed_real_tolproof_k_ensures_sound' <<<"$st"
ok $? "a goal proved once stays proved when a later pass times out on it"
has 'pending typed_tolproof_f_loop_invariant_done_acc_preserved \[wp\] \[Failed\] Goal typed_tolproof_f_loop_invariant_done_acc_preserved' "the last line of a goal still unproved is the latest pass's"
has 'prover Gappa 1.4.1 (tolproof)' "a prover that closed a goal in a later pass is listed"
! grep -q '^prover Failed' <<<"$st"
ok $? "a failure is not a prover"

grep '^pending ' <<<"$($py $goals status "$tmp/1.log")" | cut -d' ' -f2 >"$tmp/pending"
$py $goals missed "$tmp/pending" "$tmp/2.log" >"$tmp/missed"
[ $? -eq 1 ]
ok $? "missed fails when a pending goal is in no later log"
grep -qx weird_goal_name "$tmp/missed" && grep -qx typed_tolproof_g_call_h_requires_valid_x "$tmp/missed"
ok $? "missed names the goals the selection did not reach"
$py $goals missed "$tmp/pending" "$tmp/1.log" >/dev/null
ok $? "missed passes when every pending goal was tried"

# A first pass split in three (alone=): the goal count is the sum.
cat >"$tmp/a.log" <<'EOF2'
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_big_assert_t_grid : Valid (1s)
[wp] [CVC4 1.8 (noFP)] Goal typed_tolproof_big_loop_invariant_exact_preserved : Timeout (5s)
[wp] Proved goals:    1 / 2
EOF2
cat >"$tmp/b.log" <<'EOF2'
[wp] [Qed] Goal typed_tolproof_small_assert_rte_mem_access : Valid
[wp] Proved goals:    1 / 1
EOF2
cat >"$tmp/c.log" <<'EOF2'
[wp] [Gappa 1.4.1 (tolproof)] Goal typed_tolproof_lemma_Grid48_Add : Valid
[wp] Proved goals:    1 / 1
EOF2
st=$($py $goals status --first 3 "$tmp/a.log" "$tmp/b.log" "$tmp/c.log")
has 'goals 4' "split passes: the goal count is the sum of the first three"
has 'proved 3' "split passes: goals proved in any of them count"
has 'props big exact' "split passes: what the first left is selected"
st=$($py $goals status "$tmp/a.log" "$tmp/b.log" "$tmp/c.log")
has 'goals 2' "without --first only the first log counts the goals"
# The same goal in two of the splitting passes, or a goal counted and not
# named: fewer goals listed than counted, never more proved.
st=$($py $goals status --first 2 "$tmp/a.log" "$tmp/a.log")
has 'goals 4' "a goal named by two splitting passes is counted twice"
has 'listed 2' "... and listed once"
has 'proved 1' "... and proved once, so the oracle fails"
printf '[wp] [Qed] Goal typed_tolproof_small_assert_rte_mem_access : Valid\n[wp] Proved goals:    2 / 2\n' >"$tmp/d.log"
st=$($py $goals status "$tmp/d.log")
has 'proved 1' "a goal the summary counts and no line names is not proved"
$py $goals status --first 0 "$tmp/a.log" >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--first 0 is a wrong command line"

$py $goals bogus >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "a wrong command line exits 2"

tap_end
