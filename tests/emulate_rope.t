#!/usr/bin/env bash
# The rotary embedding contract (contracts/rope_fwd.toml) end to end
# without a GPU: a CPU emulation of the kernel (tests/tool_emulate.c, the
# host's sinf and cosf) passes the launched cases, positions above 2^24
# are refused before launch as the contract expects, the run re-derives
# under `tolproof replay`, and planted errors are caught: the GPT-J
# pairing, the second half rotated the wrong way, the angle kept in
# binary16.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

plan=build/gen/rope_fwd.plan.json
cases="long_context_64x8x128 quarter_turns_256x4x64 wide_x_128x8x128 special_64x4x64 position_zero_64x8x128 refused_position_2pow24_16x4x64"
args=()
for k in $cases; do args+=(--case "$k"); done
"$emu" "$plan" "$tmp/rope" "${args[@]}" >/dev/null 2>"$tmp/rope.log"
ok $? "rope_fwd: emulated kernel passes or is refused as each case expects ($cases)"
grep -q "refused_position_2pow24_16x4x64: refused: elementwise: input pos holds [0-9]* at element" "$tmp/rope.log"
ok $? "rope_fwd: a position above 2^24 is refused, naming the tensor and the element"
"$tp" replay "$tmp/rope" >"$tmp/rope.replay"
ok $? "rope_fwd: replay re-derives the emulated run"
for m in interleaved sign half_angle; do
    "$emu" "$plan" "$tmp/rope.$m" "${args[@]}" --mutant "$m" >/dev/null 2>"$tmp/rope.$m.log"
    [ $? = 1 ]; ok $? "rope_fwd: planted error '$m' is a violation (harness exit 1)"
done
# the wrong rotation changes every second-half output off the axes: every
# launched case but position 0 (sine 0) and the specials must catch it
nfail=$(grep -c ": fail: " "$tmp/rope.sign.log")
[ "$nfail" -ge 3 ]; ok $? "rope_fwd: the wrong rotation is caught in $nfail launched cases (at least 3)"

tap_end
