#!/usr/bin/python3
"""Counts the executed lines of the verdict-deciding files from the gcov
data of a --coverage build (scripts/proven_share.sh makes one): per file,
the executable lines gcov counted at least once, and the share of them in
WP-proven files (oracles/*/proven/). Verdict-deciding: every file under
oracles/ (each op's reference, model and bound, the exact sums, the
rounding of ends), harness/tp_check* (the element rule and the tallies),
core/tp_ieee.h and core/tp_format.c (the codec the ends start from).
Usage: proven_share.py BUILT_COPY"""
import collections
import glob
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__ + "\n")
        return 2
    os.chdir(argv[1])
    executed, lines = collections.defaultdict(set), collections.defaultdict(set)
    gcdas = glob.glob("build/obj/**/*.gcda", recursive=True)
    if not gcdas:
        sys.stderr.write("proven_share.py: no .gcda file under %s/build/obj: nothing ran with --coverage\n" % argv[1])
        return 1
    for gcda in gcdas:
        out = subprocess.run(["gcov", "-j", "-t", "-o", os.path.dirname(gcda), gcda[:-5] + ".o"],
                             capture_output=True, text=True).stdout
        for text in out.splitlines():
            try:
                doc = json.loads(text)
            except ValueError:
                continue
            for f in doc.get("files", []):
                name = os.path.normpath(f["file"])
                for ln in f["lines"]:
                    lines[name].add(ln["line_number"])
                    if ln["count"] > 0:
                        executed[name].add(ln["line_number"])
    scope = lambda n: n.startswith(("oracles/", "harness/tp_check")) or n in ("core/tp_ieee.h", "core/tp_format.c")
    rows = [(n, len(executed[n]), len(lines[n]), "/proven/" in n) for n in sorted(lines) if scope(n) and executed[n]]
    proven = sum(r[1] for r in rows if r[3])
    other = sum(r[1] for r in rows if not r[3])
    print("executed lines of the verdict-deciding files: %d proven, %d not proven: %.1f%% proven"
          % (proven, other, 100.0 * proven / max(proven + other, 1)))
    for n, run, total, prov in sorted(rows, key=lambda r: (not r[3], -r[1])):
        print("%-52s %5d of %5d executable lines run%s" % (n, run, total, "  (proven)" if prov else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
