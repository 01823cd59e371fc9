#!/usr/bin/env bash
# Migration 0011 (recorded/MIGRATIONS.md): the Evidence statements of the
# generic ops say that the vendor-ulp widening of device functions is now
# proven. Rewrites the text of
#   elementwise.bound.binary32_model, rowwise.bound.binary32_model,
#   contraction.bound.epilogue  (oracles/common/vendor_ulp.h calls the
#       proven ends of oracles/common/proven/tp_vendor_ulp.c, T3)
# in every recorded results.json that holds them. Nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0011-vendor-ulp-proven.sh [RUN_DIR...]
# (RUN_DIRs: only those runs; default every recorded run)
# The texts below go to recorded/migrations/rewrite-statements.sh, which
# rewrites with `tolproof replay --rewrite-statements` and checks that only
# those texts changed and that every recorded run replays. Exit 0 when all
# of that holds, 1 otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
/usr/bin/python3 - >"$texts" <<'PY'
import json

TEXTS = {  # old text -> new text, as the op says it
    # oracles/generic/op_elementwise.c
    "admitted values: the hull of every binary32 evaluation of the expression "
    "(oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not as model.fma says, device functions "
    "within their declared vendor ulps of the correctly rounded result (oracles/common/vendor_ulp.h, not "
    "proven), then rounded outward to the output's format by the proven ends":
    "admitted values: the hull of every binary32 evaluation of the expression "
    "(oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not as model.fma says, device functions "
    "within their declared vendor ulps of the correctly rounded result (oracles/common/vendor_ulp.h, the "
    "ends proven in oracles/common/proven/tp_vendor_ulp.c, T3), then rounded outward to the output's "
    "format by the proven ends",
    # oracles/generic/op_contraction.c
    "admitted values: the hull of every binary32 evaluation of the epilogue with acc anywhere in its "
    "interval (oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not as model.fma says, device functions "
    "within their declared vendor ulps of the correctly rounded result (oracles/common/vendor_ulp.h, not "
    "proven), then rounded outward to the output's format by the proven ends":
    "admitted values: the hull of every binary32 evaluation of the epilogue with acc anywhere in its "
    "interval (oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval primitives "
    "(oracles/common/proven/tp_ival*.c, T3), x*y + z fused or not as model.fma says, device functions "
    "within their declared vendor ulps of the correctly rounded result (oracles/common/vendor_ulp.h, the "
    "ends proven in oracles/common/proven/tp_vendor_ulp.c, T3), then rounded outward to the output's "
    "format by the proven ends",
    # oracles/generic/op_rowwise.c
    "admitted values: the hull of every binary32 evaluation of the expression with the row's reduced "
    "values as intervals (oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval "
    "primitives (oracles/common/proven/tp_ival*.c, T3), device functions within their declared vendor "
    "ulps of the correctly rounded result (oracles/common/vendor_ulp.h, not proven), then rounded "
    "outward to the output's format by the proven ends":
    "admitted values: the hull of every binary32 evaluation of the expression with the row's reduced "
    "values as intervals (oracles/generic/ew_admit.c): + - * / fmaf sqrtf through the proven interval "
    "primitives (oracles/common/proven/tp_ival*.c, T3), device functions within their declared vendor "
    "ulps of the correctly rounded result (oracles/common/vendor_ulp.h, the ends proven in "
    "oracles/common/proven/tp_vendor_ulp.c, T3), then rounded outward to the output's format by the "
    "proven ends",
}
print(json.dumps(TEXTS))
PY
"$(dirname "$0")/rewrite-statements.sh" "$texts" "$@"
