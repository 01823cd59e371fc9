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

$py $goals bogus >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "a wrong command line exits 2"

tap_end
