#!/usr/bin/python3
"""Which of an oracle's WP goals are still unproved, and how to select them.

proofs/wp.sh runs Frama-C/WP in passes (its comments say why). The first
pass sees every goal; a later pass sees only those left unproved, chosen
with -wp-prop / -wp-fct. This script reads the logs of the passes so far
(the first one first) and prints, one per line:

  goals N             goals of the oracle: the first pass's count, or
                      the sum over the first K passes (--first K) where
                      those passes split the goals between them
  listed N            goals those passes name (N < goals where a goal
                      is counted but not named, or two passes name it)
  proved N            goals named there and proved in at least one pass
  pending GOAL LINE   a goal no pass has proved yet, and its last log line
  lemmas L1,L2        -wp-prop for the pending lemmas
  fcts F1,F2          -wp-fct for functions whose pending goals need all
                      of the function's goals selected
  props F1,F2 P1,P2   -wp-fct / -wp-prop for the others (labels and
                      categories; the product may select more goals than
                      needed, never fewer: extras come from the cache)
  prover NAME         a prover that closed at least one goal

A selection can miss a goal (a name that is not a property name); wp.sh
then checks that every pending goal appeared in the next pass's log and
runs a pass over all goals if one did not (`missed` mode below).

Usage: wp_goals.py status [--first K] LOG [LOG...]
       wp_goals.py missed PENDING_FILE LOG [LOG...]   (exit 1 if a goal of
       PENDING_FILE, one per line, is absent from every LOG)
Exit 2, with one line on stderr, on a file it cannot read or a wrong
command line.
"""

import re
import sys

GOAL = re.compile(r'^\[wp\] \[([^\]]+)\] Goal (\S+)(?: : (\S+))?')
SUMMARY = re.compile(r'^\[wp\] Proved goals: *(\d+) */ *(\d+)')
PREFIX = re.compile(r'^typed_(?:real_)?tolproof_')
# Where a goal name's property kind starts, after the function name.
KIND = re.compile(r'_(assert|ensures|loop_invariant|loop_assigns|loop_variant|'
                  r'assigns|call|exits|terminates|decreases|check|requires)(?:_|$)')


def read(path):
    """(goal -> (status, line)) in log order, and the summary's total."""
    goals, total = {}, None
    with open(path, errors='replace') as f:
        for line in f:
            m = GOAL.match(line)
            if m:
                status = m.group(3) or m.group(1)
                goals[m.group(2)] = (status, line.rstrip('\n'), m.group(1))
                continue
            m = SUMMARY.match(line)
            if m:
                total = int(m.group(2))
    return goals, total


def selector(goal):
    """('lemma', name) or (function, prop or None for the whole function)."""
    m = PREFIX.match(goal)
    if not m:
        return None
    rest = goal[m.end():]
    if rest.startswith('lemma_'):
        return ('lemma', rest[len('lemma_'):])
    k = KIND.search(rest)
    if not k or k.start() == 0:
        return None
    fct, kind, tail = rest[:k.start()], k.group(1), rest[k.end():]
    tail = re.sub(r'_part\d+$', '', tail)
    if kind == 'assert' and tail.startswith('rte_'):
        return (fct, '@assert')
    if kind in ('assert', 'ensures') and tail:
        return (fct, tail)
    if kind == 'loop_invariant':
        label = re.sub(r'_(preserved|established)$', '', tail)
        return (fct, label) if label and label != tail else (fct, None)
    if kind in ('assigns', 'loop_assigns'):
        return (fct, '@assigns')
    if kind == 'loop_variant':
        return (fct, '@variant')
    return (fct, None)


def status(logs, k=1):
    """The first K logs split the goals between them (disjoint -wp-fct /
    -wp-skip-fct / lemma passes); a goal in none of them is no goal."""
    first, total = {}, 0
    for path in logs[:k]:
        goals, n = read(path)
        first.update(goals)
        total += len(goals) if n is None else n
    valid, last, by = set(), {}, {}
    for path in logs:
        goals, _ = read(path)
        for g, (st, line, prover) in goals.items():
            last[g] = line
            if st == 'Valid' and g not in valid:
                valid.add(g)
                by[g] = prover
    pending = [g for g in first if g not in valid]
    print('goals %d' % total)
    print('listed %d' % len(first))
    # Counted from the goals listed, not from the total: a goal the
    # summary counts but no line names is not proved.
    print('proved %d' % (len(first) - len(pending)))
    lemmas, whole, props = [], [], []
    for g in pending:
        print('pending %s %s' % (g, last[g]))
        s = selector(g)
        if s is None:
            continue  # left to the check that every pending goal was seen
        fct, prop = s
        if fct == 'lemma':
            lemmas.append(prop)
        elif prop is None:
            whole.append(fct)
        else:
            props.append((fct, prop))
    uniq = lambda xs: ','.join(dict.fromkeys(xs))
    if lemmas:
        print('lemmas %s' % uniq(lemmas))
    if whole:
        print('fcts %s' % uniq(whole))
    props = [(f, p) for f, p in props if f not in whole]
    if props:
        print('props %s %s' % (uniq(f for f, _ in props), uniq(p for _, p in props)))
    for p in dict.fromkeys(by[g] for g in first if g in by):
        print('prover %s' % p)


def missed(pending_file, logs):
    want = [l.split()[0] for l in open(pending_file) if l.strip()]
    seen = set()
    for path in logs:
        seen.update(read(path)[0])
    gone = [g for g in want if g not in seen]
    for g in gone:
        print(g)
    return 1 if gone else 0


def main(argv):
    try:
        if len(argv) >= 5 and argv[1:3] == ['status', '--first'] \
                and argv[3].isdigit() and int(argv[3]) >= 1:
            status(argv[4:], int(argv[3]))
            return 0
        if len(argv) >= 3 and argv[1] == 'status' and argv[2] != '--first':
            status(argv[2:])
            return 0
        if len(argv) >= 4 and argv[1] == 'missed':
            return missed(argv[2], argv[3:])
    except OSError as e:
        sys.stderr.write('wp_goals.py: %s: %s\n' % (e.filename, e.strerror))
        return 2
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
