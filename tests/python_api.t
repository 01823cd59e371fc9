#!/usr/bin/env bash
# The Python package (python/tolproof) with Debian's python3-numpy and
# python3-pytest: python/tests/ run by pytest with the package's plugin,
# each pytest test one TAP line (from pytest's JUnit XML). They check
# tolproof.check on every op against `build/tolproof check` on the same
# files (byte for byte where the API is given the files, field for field
# where it is given arrays), a violation, every error path, assert_contract
# and the pytest plugin. Needs build/libtolproof.so, build/tolproof and the
# plans (`ninja test` builds them).
set -u
cd "$(dirname "$0")/.."
py=/usr/bin/python3
if ! $py -c 'import numpy, pytest' 2>/dev/null; then
    echo "1..0 # SKIP python3-numpy or python3-pytest not installed (./configure --install-deps installs them)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PYTHONPATH=$PWD/python PYTHONDONTWRITEBYTECODE=1 $py -m pytest -p tolproof.pytest_plugin -p no:cacheprovider \
    --basetemp "$tmp/pytest" --junitxml "$tmp/junit.xml" -q python/tests >"$tmp/log" 2>&1
status=$?
sed 's/^/# /' "$tmp/log"
$py - "$tmp/junit.xml" "$status" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
except (OSError, ET.ParseError) as e:
    print("1..1\nnot ok 1 - pytest wrote no JUnit XML (%s; exit status %s)" % (e, sys.argv[2]))
    sys.exit(1)
print("1..%d" % (len(cases) + 1))
bad = 0
for n, c in enumerate(cases, 1):
    failed = c.find("failure") is not None or c.find("error") is not None
    skipped = c.find("skipped") is not None
    bad += failed
    print("%s %d - %s::%s%s" % ("not ok" if failed else "ok", n, c.get("classname"), c.get("name"),
                               " # SKIP" if skipped else ""))
ok = sys.argv[2] == "0" and len(cases) > 0
print("%s %d - pytest exits 0 with %d tests" % ("ok" if ok else "not ok", len(cases) + 1, len(cases)))
sys.exit(1 if bad or not ok else 0)
PY
