#!/usr/bin/env bash
# Every edit of proofs/mutants.t still applies to the oracles as they are
# (no prover runs; `ninja proof_mutants` proves the mutants and expects WP
# to fail on each). A mutant whose target line moved would otherwise prove
# nothing, and only the 15-minute `ninja proof_mutants` would say so.
cd "$(dirname "$0")/.."
TP_MUTANTS_EDITS_ONLY=1 exec proofs/mutants.t
