#!/usr/bin/env bash
# TAP: every fuzz target (tests/fuzz/, built by `ninja fuzz`) runs for a
# short while (TP_FUZZ_SECONDS, default 10 s each, two at a time) on the
# repository's own files as seeds, with no crash, leak, sanitizer report or
# timeout. Skipped when ./configure found no clang with libFuzzer.
exec "$(dirname "$0")/fuzz/smoke.sh"
