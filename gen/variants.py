"""The verdict-quality corpus: kernels/variants/NAME.hip files, each a
variant of a base contract's kernel (correct but different, or wrong on
purpose), described by a header block the generator reads:

    /* variant: gemm_fwd_reversed_k
     * contract: gemm_fwd
     * expect: correct
     * entry: gemm_fwd_reversed_k
     * cases: normal_64 cancel_128x64x512
     * model: accumulation=fp32_faithful        (optional)
     * what: accumulates k from K-1 down to 0
     */

A variant is run through its base contract (op, tensors, launch shape,
claim, requirements): its plan is the base plan with the kernel swapped,
the cases cut down to the listed ones, the model overrides applied and a
"variant" key added. "contract" stays the base contract's name, because it
names the op's identity; the variant's name only goes into output paths.
Errors are one line `FILE:LINE: what; expected what`, as for contracts.
"""
import copy
import hashlib
import json
import os
import re

import registry
from contract import ContractError, Validator, find_global

KEYS = ("variant", "contract", "expect", "entry", "cases", "model", "what")
OPTIONAL = ("model",)
NAME = re.compile(r"[a-z0-9_]+\Z")
EXPECT = ("correct", "wrong")
_LINE = re.compile(r"^\s*(?:/\*|\*)\s*([a-z_]+)\s*:\s*(.*?)\s*$")


class VariantError(Exception):
    def __init__(self, line, what, expected):
        super().__init__(what)
        self.line, self.what, self.expected = line, what, expected

    def format(self, path):
        return f"{path}:{self.line}: {self.what}; expected {self.expected}"


def parse_header(text):
    """{key: (value, line)} from the leading comment block; the keys must
    come one per line, in KEYS order, from line 1 to the closing */."""
    lines = text.split("\n")
    if not lines or not re.match(r"^/\*\s*variant\s*:", lines[0]):
        raise VariantError(1, "the file does not start with the header block",
                           "line 1 to be `/* variant: NAME`")
    got = {}
    order = []
    closed = False
    for n, raw in enumerate(lines, 1):
        body = raw
        end = "*/" in body
        if end:
            body = body[:body.index("*/")]
        if body.strip() in ("", "*"):
            if end:
                closed = True
                break
            if n == 1:
                continue
            raise VariantError(n, "an empty line inside the header block",
                               "one `* key: value` per line, closed by ` */`")
        m = _LINE.match(body)
        if not m:
            raise VariantError(n, f"header line {raw.strip()!r} is not `* key: value`",
                               "keys " + ", ".join(KEYS) + " in this order (a one-line `what`)")
        key, value = m.group(1), m.group(2)
        if key not in KEYS:
            raise VariantError(n, f"unknown header key {key!r}", "one of " + ", ".join(KEYS))
        if key in got:
            raise VariantError(n, f"header key {key!r} given twice", "each key once")
        if order and KEYS.index(key) < KEYS.index(order[-1]):
            raise VariantError(n, f"header key {key!r} after {order[-1]!r}",
                               "the keys in the order " + ", ".join(KEYS))
        got[key] = (value, n)
        order.append(key)
        if end:
            closed = True
            break
    if not closed:
        raise VariantError(len(lines), "the header block is never closed", "` */` after the `what` line")
    last = order[-1] if order else "variant"
    for k in KEYS:
        if k not in got and k not in OPTIONAL:
            raise VariantError(got[last][1] if last in got else 1, f"header has no {k!r} key",
                               "keys " + ", ".join(KEYS) + " (model optional), one per line")
    return got


def _model_value(text):
    # JSON where it parses (numbers, true, quoted strings); a bare word
    # such as fp32_faithful is the string it spells.
    try:
        return json.loads(text)
    except ValueError:
        return text


def read_variant(path, root="."):
    """The checks of a variant's header that need neither its base contract
    nor the C core (./configure makes them before anything is built):
    {"h": header, "name", "contract", "expect", "entry", "params", "what",
    "text", "raw"}, or VariantError."""
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "replace")
    h = parse_header(text)
    name, ln = h["variant"]
    stem = os.path.splitext(os.path.basename(path))[0]
    if not NAME.match(name):
        raise VariantError(ln, f"variant name {name!r} is not usable", "lowercase letters, digits and '_'")
    if name != stem:
        raise VariantError(ln, f"variant name {name!r} differs from the file name {stem!r}",
                           f"variant: {stem}")
    cname, ln = h["contract"]
    cpath = os.path.join(root, "contracts", cname + ".toml")
    if not NAME.match(cname) or not os.path.isfile(cpath):
        raise VariantError(ln, f"contract {cname!r} not found", f"a base contract contracts/{cname}.toml")
    if not name.startswith(cname + "_"):
        raise VariantError(h["variant"][1], f"variant name {name!r} does not start with {cname + '_'!r}",
                           "the base contract's name as the prefix")
    expect, ln = h["expect"]
    if expect not in EXPECT:
        raise VariantError(ln, f"expect {expect!r}", "correct or wrong")
    entry, ln = h["entry"]
    params = find_global(text, entry) if re.match(r"[A-Za-z_][A-Za-z0-9_]*\Z", entry) else None
    if params is None:
        raise VariantError(ln, f"no __global__ function {entry!r} in {path}",
                           f"__global__ void {entry}(...) defined in the file")
    what, ln = h["what"]
    if not what:
        raise VariantError(ln, "an empty what", "one line saying what the variant changes")
    return {"h": h, "name": name, "contract": cname, "cpath": cpath, "expect": expect, "entry": entry,
            "params": params, "what": what, "text": text, "raw": raw}


def load_variant(path, root="."):
    """The variant's plan (a dict), or VariantError / ContractError."""
    v = read_variant(path, root)
    h, name, cname, cpath, expect, entry, params, what, text, raw = (
        v[k] for k in ("h", "name", "contract", "cpath", "expect", "entry", "params", "what", "text", "raw"))
    ln = h["contract"][1]
    try:
        base = Validator(cpath, root).validate()
    except ContractError as e:
        raise VariantError(ln, f"base contract {cname} is invalid ({e.format(cpath)})", "a valid contract")
    ln = h["entry"][1]
    args = base["kernel"]["args"]
    tensors = {t["name"] for t in base["tensors"]}
    if len(params) != len(args):
        raise VariantError(ln, f"{entry} takes {len(params)} parameters, the contract passes {len(args)}",
                           f"the parameter list of {base['kernel']['entry']} ({', '.join(args)})")
    for a, p in zip(args, params):
        if (a in tensors) != ("*" in p):
            raise VariantError(ln, f"contract argument {a!r} is passed to parameter {p.strip()!r}",
                               f"the parameter list of {base['kernel']['entry']} ({', '.join(args)})")
    cases_txt, ln = h["cases"]
    wanted = cases_txt.split()
    known = [c["name"] for c in base["cases"]]
    if not wanted:
        raise VariantError(ln, "no cases listed", "case names of contract " + cname)
    for c in wanted:
        if c not in known:
            raise VariantError(ln, f"case {c!r} is not a case of contract {cname}", "one of " + " ".join(known))
        if wanted.count(c) > 1:
            raise VariantError(ln, f"case {c!r} listed twice", "distinct case names")
    model = copy.deepcopy(base["model"])
    overrides = {}
    if "model" in h:
        mtxt, ln = h["model"]
        if expect == "wrong":
            raise VariantError(ln, "a wrong variant declares model overrides",
                               "no model line: a wrong variant is judged by its contract's own model")
        if not mtxt:
            raise VariantError(ln, "an empty model line", "KEY=VALUE pairs, or no model line")
        for pair in mtxt.split():
            if "=" not in pair or pair.startswith("="):
                raise VariantError(ln, f"model override {pair!r} is not KEY=VALUE",
                                   "KEY=VALUE pairs separated by spaces (KEY may be dotted: expf_ulp.cuda)")
            key, val = pair.split("=", 1)
            node = model
            parts = key.split(".")
            for i, p in enumerate(parts):
                if not isinstance(node, dict) or p not in node:
                    raise VariantError(ln, f"model key {key!r} is not in contract {cname}'s [model]",
                                       "a key of the [model] table: " + ", ".join(sorted(base["model"])))
                if i < len(parts) - 1:
                    node = node[p]
            if key in overrides:
                raise VariantError(ln, f"model key {key!r} overridden twice", "each key once")
            node[parts[-1]] = overrides[key] = _model_value(val)
        # a key with a fixed set of values (the registry says which) gets one of them
        reg = registry.load()
        for key, v in overrides.items():
            k = reg.model_key(base["op"], key)
            if k and "values" in k and v not in k["values"]:
                raise VariantError(ln, f"model override {key}={json.dumps(v)}",
                                   "one of " + " ".join(json.dumps(x) for x in k["values"]) + f" (op {base['op']})")
    # A correct variant must be described by the model it is judged by: the
    # fp32 literals the model names must be the ones this kernel uses. (A
    # wrong variant may differ: a wrong constant is such a bug.)
    consts = model.get("constants")
    if expect == "correct" and isinstance(consts, dict):
        for cn, cv in consts.items():
            if isinstance(cv, str) and not re.search(
                    r"(?<![0-9A-Za-z_.])" + re.escape(cv) + r"(?![0-9A-Za-z_.])", text):
                raise VariantError(h["expect"][1], f"model constant {cn} = {cv!r} does not appear verbatim in {path}",
                                   "a correct variant to use the literals its model names (or a model override)")
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    plan = copy.deepcopy(base)
    plan["kernel"]["source"] = rel
    plan["kernel"]["entry"] = entry
    plan["kernel"]["sha256"] = hashlib.sha256(raw).hexdigest()
    plan["cases"] = [c for c in base["cases"] if c["name"] in wanted]
    plan["model"] = model
    plan["variant"] = {"name": name, "expect": expect, "what": what, "contract": cname}
    if overrides:
        plan["variant"]["model_overrides"] = overrides
    return plan


def render_variants_ninja(paths, plans, have_nvcc, gpu_at_configure):
    """Build statements for every variant (cuda only: the corpus is run on
    one GPU kind, and WMMA variants have no HIP path)."""
    gen_deps = ("gen/tpgen.py gen/contract.py gen/variants.py gen/emit.py gen/steps.py gen/registry.py "
                "build/gen/registry.json build/tp_registry")
    lines = ["# Generated by gen/tpgen.py variants from kernels/variants/*.hip; do not edit.",
             "# Re-generated by ./configure. CUDA only: no hip build for variants.", ""]
    exes = []
    for path, plan in zip(paths, plans):
        name = plan["variant"]["name"]
        contract = f"contracts/{plan['variant']['contract']}.toml"
        p = f"build/gen/variants/{name}.plan.json"
        src = f"build/gen/variants/cuda/{name}.hip"
        exe = f"build/variants/cuda/{name}"
        lines += [
            f"# ---- {name} ({plan['variant']['expect']}, contract {plan['variant']['contract']})",
            f"build {p}: tp_variant_plan {path} | {contract} {gen_deps}",
            f"build {src}: tp_variant_src {path} | {contract} {gen_deps} gen/templates/harness.hip.j2",
        ]
        if have_nvcc:
            lines += [
                f"build {exe}: tp_nvcc {src} | $lib_a harness/tp_hip.h harness/tp_gpu.h harness/tp_device.h "
                f"harness/tp_harness.h core/tp_plan.h core/tp_tensor.h core/tp_value.h core/tp_op.h core/tp_dtype.h "
                f"oracles/gemm/gemm_exact_cuda.cu oracles/gemm/gemm_fixed.h oracles/gemm/gemm_split.h oracles/gemm/gemm_exact_provider.h "
                f"{path} gen/tpgen.py gen/steps.py",
                f"  contract = {name}",
            ]
            exes.append(exe)
        lines.append("")
    lines.append("build variant_plans: phony " + " ".join(f"build/gen/variants/{p['variant']['name']}.plan.json"
                                                          for p in plans))
    if have_nvcc:
        lines.append("build variants: phony variant_plans " + " ".join(exes))
    else:
        lines += ["build variants: tp_skip | variant_plans",
                  "  msg = nvcc not found: variant harnesses not built (plans in build/gen/variants)"]
    lines += verdicts_lines(have_nvcc and gpu_at_configure)
    return "\n".join(lines) + "\n"


def verdicts_lines(build_first):
    # The GPU is looked for when ./configure runs: only then does `ninja
    # verdicts` build the variants (50 nvcc runs) before running them.
    # plans: the current contracts' expectations, for runs recorded before plans carried them
    dep = "variants build/tolproof plans" if build_first else "build/tolproof plans"
    return ["", "# `ninja verdicts`: " + ("GPU found by ./configure: build, run, tabulate"
                                          if build_first else "no GPU at configure time: replay recorded/variants"),
            f"build verdicts: tp_verdicts | {dep} gen/tpgen.py gen/steps.py recorded/record-variants.sh"]


def invalid_ninja(paths, gpu_at_configure):
    """When a header does not validate, ./configure still succeeds (other
    targets do not need the corpus) and `ninja variants` re-runs the
    validation, so the error is printed where the corpus is wanted."""
    return ("# Generated by gen/tpgen.py variants: a variant header is invalid; ninja variants reports it.\n"
            "build variant_plans: phony variants\n"
            "build variants: tp_variants_check " + " ".join(paths)
            + " | gen/tpgen.py gen/variants.py gen/registry.py build/gen/registry.json build/tp_registry\n"
            + "\n".join(verdicts_lines(gpu_at_configure)) + "\n")


def empty_ninja():
    return ("# Generated by ./configure: kernels/variants/ has no .hip files.\n"
            "build variant_plans: phony\nbuild variants: phony\n" + "\n".join(verdicts_lines(False)) + "\n")
