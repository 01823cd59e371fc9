#!/usr/bin/python3
"""tolproof generator: contract (TOML) -> plan (JSON), harness (.hip), ninja.

  tpgen.py check CONTRACT.toml...                      validate only
  tpgen.py plan CONTRACT.toml -o build/gen/NAME.plan.json
  tpgen.py harness CONTRACT.toml --backend cuda|hip -o build/gen/cuda/NAME.hip
  tpgen.py ninja CONTRACT.toml... -o build/harnesses.ninja [--backends cuda,hip]
  tpgen.py variants kernels/variants/*.hip -o build/variants.ninja [--backends cuda,hip] [--gpu]
  tpgen.py variants --check kernels/variants/*.hip      validate the variant headers only
  tpgen.py variant-plan VARIANT.hip -o build/gen/variants/NAME.plan.json
  tpgen.py variant-harness VARIANT.hip --backend cuda -o build/gen/variants/cuda/NAME.hip

Build steps (run by build.ninja):
  tpgen.py cc --backend B -o OUT -- COMPILER ARGS...    compile with fingerprints
  tpgen.py run-harness EXE --contract C --backend B --status S.json [--out DIR] [--junit FILE]
  tpgen.py summary harnesses|runs|prove -o OUT.json [--backends ..] FILES...
  tpgen.py replay -o OUT.json [--tolproof build/tolproof]
  tpgen.py verdicts-step [--tolproof build/tolproof]   `ninja verdicts` (README: Verdict quality)

Run with the system interpreter (/usr/bin/python3, Debian 12: tomllib and
python3-jinja2). Every contract error is one line
`FILE:LINE: what; expected what` and exit status 2.

Validating a contract needs the registry and the C grammar, which ninja
builds (build/gen/registry.json, build/tp_registry: gen/registry.py). So
./configure, which runs before anything is compiled, only lists what to
build: `ninja` and `variants` read each file's name and kernel source and
leave the validation to the plan edges, which report a broken contract.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from contract import ContractError, Validator, plan_json  # noqa: E402
from registry import RegistryError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _root():
    # Contracts name kernel sources relative to the repository root: the
    # working directory when run by ninja / configure, else this checkout.
    return "." if os.path.isdir("gen") and os.path.isdir("contracts") else ROOT


def load(path):
    try:
        return Validator(path, _root()).validate()
    except ContractError as e:
        print(e.format(path), file=sys.stderr)
    except RegistryError as e:
        print(f"tpgen.py: {e}", file=sys.stderr)
    sys.exit(2)


def peek(path):
    """What ./configure needs of a contract before anything is built: its
    name (the file's, which validation enforces) and, when the file reads
    as TOML naming an existing kernel source, that source (a dependency of
    its edges). Validation is the plan edge's job."""
    import tomllib
    src = None
    try:
        with open(path, "rb") as f:
            k = tomllib.load(f).get("kernel")
        s = k.get("source") if isinstance(k, dict) else None
        if isinstance(s, str) and os.path.isfile(os.path.join(_root(), s)):
            src = s
    except (OSError, ValueError):
        pass
    return {"contract": os.path.splitext(os.path.basename(path))[0], "kernel": {"source": src}}


def write_if_changed(out, text):
    """Write atomically; leave the file alone when unchanged (no needless
    rebuilds downstream)."""
    d = os.path.dirname(out)
    if d:
        os.makedirs(d, exist_ok=True)
    try:
        with open(out, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)


def load_variant(path, header_only=False):
    """The variant's plan; header_only: what read_variant checks, shaped
    as the plan parts render_variants_ninja reads (./configure)."""
    from variants import VariantError, load_variant as lv, read_variant
    try:
        if header_only:
            v = read_variant(path, _root())
            return {"kernel": {"entry": v["entry"]},
                    "variant": {"name": v["name"], "expect": v["expect"], "contract": v["contract"]}}
        return lv(path, _root())
    except VariantError as e:
        print(e.format(path), file=sys.stderr)
    except OSError as e:
        print(f"{path}:1: cannot read ({e.strerror}); expected a readable variant file", file=sys.stderr)
    except RegistryError as e:
        print(f"tpgen.py: {e}", file=sys.stderr)
    return None


def variants_cmd(a):
    import variants
    if a.cmd == "variant-plan":
        plan = load_variant(a.variant)
        if plan is None:
            return 2
        write_if_changed(a.output, plan_json(plan))
        return 0
    if a.cmd == "variant-harness":
        from emit import render_harness
        plan = load_variant(a.variant)
        if plan is None:
            return 2
        write_if_changed(a.output, render_harness(plan, a.backend))
        return 0
    # every file is validated, so one run reports every broken header;
    # writing the ninja file (./configure) checks the headers only
    paths = sorted(set(a.variants))
    plans = [load_variant(p, header_only=not a.check) for p in paths]
    bad = sum(p is None for p in plans)
    seen = {}
    for path, pl in zip(paths, plans):
        if pl is None:
            continue
        e = pl["kernel"]["entry"]
        if e in seen:
            print(f"{path}:1: entry {e!r} also used by {seen[e]}; expected a unique entry (the variant name)",
                  file=sys.stderr)
            bad += 1
        seen[e] = path
    if a.check:
        if not bad:
            print(f"{len(paths)} variant(s): headers valid")
        return 2 if bad else 0
    if not a.output:
        print("tpgen.py variants: -o OUT.ninja (or --check) is required", file=sys.stderr)
        return 2
    if not paths:
        write_if_changed(a.output, variants.empty_ninja())
        return 0
    if bad:
        write_if_changed(a.output, variants.invalid_ninja(paths, a.gpu))
        print(f"{bad} of {len(paths)} variant file(s) invalid: `ninja variants` fails until they are fixed",
              file=sys.stderr)
        return 2
    backends = [b for b in a.backends.split(",") if b]
    write_if_changed(a.output, variants.render_variants_ninja(paths, plans, "cuda" in backends, a.gpu))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tpgen.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check")
    p.add_argument("contracts", nargs="+")
    p = sub.add_parser("plan")
    p.add_argument("contract")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("harness")
    p.add_argument("contract")
    p.add_argument("--backend", choices=("cuda", "hip"), required=True)
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("ninja")
    p.add_argument("contracts", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--backends", default="cuda,hip")
    p = sub.add_parser("variants")
    p.add_argument("variants", nargs="*")
    p.add_argument("-o", "--output")
    p.add_argument("--backends", default="cuda,hip")
    p.add_argument("--gpu", action="store_true", help="a GPU was found: `ninja verdicts` builds the variants")
    p.add_argument("--check", action="store_true", help="validate only")
    p = sub.add_parser("variant-plan")
    p.add_argument("variant")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("variant-harness")
    p.add_argument("variant")
    p.add_argument("--backend", choices=("cuda",), required=True)
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("verdicts-step")
    p.add_argument("--tolproof", default="build/tolproof")
    p = sub.add_parser("cc")
    p.add_argument("--backend", choices=("cuda", "hip"), required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("command", nargs=argparse.REMAINDER)
    p = sub.add_parser("run-harness")
    p.add_argument("exe")
    p.add_argument("--contract", required=True)
    p.add_argument("--backend", required=True)
    p.add_argument("--status", required=True)
    p.add_argument("--out", help="run directory (default build/runs/BACKEND/CONTRACT)")
    p.add_argument("--junit", help="the harness's --junit FILE: the run as JUnit XML")
    p = sub.add_parser("summary")
    p.add_argument("kind", choices=("harnesses", "runs", "prove"))
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--backends", default="")
    p.add_argument("files", nargs="*")
    p = sub.add_parser("replay")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--tolproof", default="")
    a = ap.parse_args(argv)

    if a.cmd == "check":
        for c in a.contracts:
            load(c)
        return 0
    if a.cmd == "plan":
        write_if_changed(a.output, plan_json(load(a.contract)))
        return 0
    if a.cmd == "harness":
        from emit import render_harness
        write_if_changed(a.output, render_harness(load(a.contract), a.backend))
        return 0
    if a.cmd == "ninja":
        from emit import render_ninja
        contracts = sorted(set(a.contracts))
        plans = [peek(c) for c in contracts]
        seen = {}
        for c, pl in zip(contracts, plans):
            if pl["contract"] in seen:
                print(f"{c}:1: contract {pl['contract']!r} also defined by {seen[pl['contract']]}; "
                      "expected one file per contract", file=sys.stderr)
                return 2
            seen[pl["contract"]] = c
        backends = [b for b in a.backends.split(",") if b]
        write_if_changed(a.output, render_ninja(contracts, plans, backends))
        return 0

    if a.cmd in ("variants", "variant-plan", "variant-harness"):
        return variants_cmd(a)

    import steps
    if a.cmd == "cc":
        cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
        return steps.cc(a.backend, a.output, cmd)
    if a.cmd == "run-harness":
        return steps.run_harness(a.exe, a.contract, a.backend, a.status, a.out, a.junit)
    if a.cmd == "summary":
        if a.kind == "harnesses":
            return steps.summary_harnesses(a.output, a.files, a.backends.split())
        if a.kind == "runs":
            return steps.summary_runs(a.output, a.files)
        return steps.summary_prove(a.output, a.files)
    if a.cmd == "replay":
        return steps.replay(a.output, a.tolproof)
    if a.cmd == "verdicts-step":
        return steps.verdicts(a.tolproof)
    return 2


if __name__ == "__main__":
    sys.exit(main())
