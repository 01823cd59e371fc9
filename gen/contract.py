"""Read and validate a kernel contract (TOML) into a resolved plan.

Every error is a ContractError carrying the line of the offending key, so the
CLI prints exactly one line `FILE:LINE: what; expected what` and exits 2.
"""
import hashlib
import json
import os
import re
import tomllib

import registry

# The ops, dtypes and limits come from the registry (build/gen/registry.json,
# written by the C core); shape expressions, fills and dim and tensor names
# are checked by the C grammar (gen/registry.py).
ROLES = ("input", "output")
# What a case expects of a kernel that meets its contract: a pass, a refusal
# before any launch (a case the contract itself rules out), or a violation
# (a pilot contract whose model the kernel is known not to follow). The
# harness, `ninja run`, `tolproof replay` and `tolproof verdicts` exit 0
# when every case has its expected outcome (harness/tp_expect.h).
EXPECTS = ("pass", "refused", "violated")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
CASE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


class ContractError(Exception):
    def __init__(self, line, what, expected):
        super().__init__(what)
        self.line = line
        self.what = what
        self.expected = expected

    def format(self, path):
        return f"{path}:{self.line}: {self.what}; expected {self.expected}"


# --------------------------------------------------------------------------
# Line locator: finds the line of a key inside its table / array-of-tables
# entry by scanning the source text (tomllib keeps no positions).

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*(\]\]?)\s*(#.*)?$")


def _strip_quotes(k):
    k = k.strip()
    if len(k) >= 2 and k[0] == k[-1] and k[0] in "\"'":
        return k[1:-1]
    return k


class Locator:
    def __init__(self, text):
        self.lines = text.splitlines()
        # sections: (path tuple, aot index or None, header line number, end)
        self.sections = []
        counts = {}
        cur = ((), None, 1)
        starts = []
        in_multiline = None
        for n, raw in enumerate(self.lines, 1):
            s = raw.strip()
            # skip the bodies of multi-line strings
            if in_multiline:
                if in_multiline in raw:
                    in_multiline = None
                continue
            for q in ('"""', "'''"):
                if raw.count(q) % 2 == 1:
                    in_multiline = q
            m = _HEADER.match(raw) if s.startswith("[") else None
            if m and not re.match(r"^\s*[A-Za-z0-9_\"'.-]+\s*=", raw):
                starts.append(cur)
                path = tuple(_strip_quotes(p) for p in m.group(2).split("."))
                if m.group(1) == "[[":
                    idx = counts.get(path, 0)
                    counts[path] = idx + 1
                    cur = (path, idx, n)
                else:
                    cur = (path, None, n)
        starts.append(cur)
        for i, (path, idx, start) in enumerate(starts):
            end = starts[i + 1][2] if i + 1 < len(starts) else len(self.lines) + 1
            self.sections.append((path, idx, start, end))

    def _section(self, path):
        """Best section for a key path like ("case", 3, "fill", "A").
        Returns (section, remaining keys)."""
        best = None
        for sec_path, idx, start, end in self.sections:
            # match sec_path against path, allowing one index after an AoT name
            i = 0
            ok = True
            for j, comp in enumerate(sec_path):
                if i >= len(path) or path[i] != comp:
                    ok = False
                    break
                i += 1
                if j == len(sec_path) - 1 and idx is not None:
                    if i < len(path) and path[i] == idx:
                        i += 1
                    else:
                        ok = False
                elif i < len(path) and isinstance(path[i], int):
                    i += 1  # a nested AoT index we do not track
            if ok and (best is None or i > best[1]):
                best = ((start, end, sec_path == ()), i)
        return best[0], [p for p in path[best[1]:] if isinstance(p, str)]

    def line(self, path):
        (start, end, is_root), rest = self._section(tuple(path))
        if not rest:
            return start
        key = rest[0]
        keypat = r"(?:\"%s\"|'%s'|%s)" % (re.escape(key), re.escape(key), re.escape(key))
        pat = re.compile(r"^\s*" + keypat + r"\s*(?:=|\.)")
        # the root section starts at line 1 and has no header line
        lo = start if is_root else start + 1
        found = None
        for n in range(lo, end):
            if n - 1 < len(self.lines) and pat.match(self.lines[n - 1]):
                found = n
                break
        if found is None:
            return start
        # a key inside an inline table or a multi-line array: look ahead
        for sub in rest[1:]:
            sp = re.compile(r"(?:^|[{,\s])(?:\"%s\"|'%s'|%s)\s*=" % (
                re.escape(sub), re.escape(sub), re.escape(sub)))
            for n in range(found, end):
                text = self.lines[n - 1]
                if n == found and "=" in text:
                    text = text.split("=", 1)[1]
                elif n > found and re.match(r"^\s*(\[|[A-Za-z0-9_\"'-]+\s*=\s*[\[{\"'0-9tf-])", text) \
                        and not text.strip().startswith(("{", "}")):
                    # the next key of the table: stop unless we are inside braces
                    opened = sum(l.count("{") - l.count("}") for l in self.lines[found - 1:n - 1])
                    if opened <= 0:
                        break
                if sp.search(text):
                    found = n
                    break
        return found


# --------------------------------------------------------------------------
# Schema walking

def _tname(v):
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


class Validator:
    def __init__(self, path, root):
        self.path = path
        self.root = root
        self.text = None
        self.loc = None
        self.reg = registry.load()
        self.checks = None

    def load(self):
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise ContractError(1, f"cannot read contract ({e.strerror})", "a readable file")
        self.raw = raw
        try:
            self.text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw[:e.start].count(b"\n") + 1
            raise ContractError(line, "invalid UTF-8", "a UTF-8 TOML file")
        self.loc = Locator(self.text)
        try:
            self.doc = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as e:
            msg = str(e)
            m = re.search(r"\(at line (\d+), column \d+\)", msg)
            line = int(m.group(1)) if m else 1
            if not m and "end of document" in msg:
                line = max(1, len(self.text.splitlines()))
            what = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", msg)
            raise ContractError(line, f"TOML syntax error: {what}", "valid TOML 1.0")

    def err(self, path, what, expected):
        raise ContractError(self.loc.line(path), what, expected)

    def table(self, tbl, path, required, optional=()):
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path) or "top level"
        where = where.replace(".[", "[")
        allowed = list(required) + list(optional)
        for k in tbl:
            if k not in allowed:
                self.err(path + [k], f"unknown key {k!r} in {where}",
                         "one of " + ", ".join(allowed))
        for k in required:
            if k not in tbl:
                self.err(path, f"missing key {k!r} in {where}", f"{k} = ...")

    HIP_METRIC = "ulp_difference_of_max_absolute_error"

    def hip_figure(self, t, path):
        """A documented HIP figure: the shape oracles/common/hip_math_figure.c reads."""
        self.table(t, path, ["figure", "metric", "range", "source", "host_ulp", "host_source"])
        for k in ("figure", "host_ulp"):
            v = t[k]
            if type(v) is not int or not 0 <= v <= 64:
                self.err(path + [k], f"{k} = {v!r}", "an integer ulp count in 0 .. 64")
        if t["metric"] != self.HIP_METRIC:
            self.err(path + ["metric"], f"metric = {t['metric']!r}",
                     f'"{self.HIP_METRIC}" (the only reading of the HIP table the checker turns into a bound)')
        r = t["range"]
        if (type(r) is not list or len(r) != 2 or any(type(x) not in (int, float) or x != x or
                                                       x in (float("inf"), float("-inf")) for x in r)
                or not r[0] < r[1]):
            self.err(path + ["range"], f"range = {r!r}", "[lo, hi], two finite numbers with lo < hi "
                                                          "(the documented test range)")
        for k in ("source", "host_source"):
            if type(t[k]) is not str or not t[k].strip():
                self.err(path + [k], f"{k} is {_tname(t[k]) if type(t[k]) is not str else 'empty'}",
                         "a string naming the document, its version and URL")

    def typed(self, v, path, types, expected):
        if type(v) not in types:
            self.err(path, f"{path[-1]} is {_tname(v)}", expected)
        return v

    def string(self, tbl, path, key):
        return self.typed(tbl[key], path + [key], (str,), f"{key} as a string")

    def str_list(self, tbl, path, key, lo, hi, allow_int=False):
        v = tbl[key]
        if type(v) is not list:
            self.err(path + [key], f"{key} is {_tname(v)}", f"{key} as an array of {lo}..{hi} strings")
        if not lo <= len(v) <= hi:
            self.err(path + [key], f"{key} has {len(v)} entries",
                     f"{lo}..{hi} entries" if lo != hi else f"{lo} entries")
        out = []
        for i, x in enumerate(v):
            if allow_int and type(x) is int:
                x = str(x)
            if type(x) is not str:
                self.err(path + [key], f"{key}[{i}] is {_tname(x)}", "a string")
            out.append(x)
        return out

    def grammar(self, path, what_prefix, item, answer=False):
        """The C side's answer for one item (gen/registry.py); on a refusal
        the error at path, in the C grammar's words. The C rendering, or
        the whole answer (answer=True)."""
        r = self.checks.ask(item)
        if not r["ok"]:
            self.err(path, what_prefix + r["what"], r["expected"])
        return r if answer else r.get("c")

    def elementwise_model(self, model, tensors, op="elementwise", extra=(), dims=()):
        """ops elementwise and rowwise: one expression per output in
        [model.expr], in the C grammar (oracles/generic/ew_prog.h), over the
        inputs (and, for rowwise, the reduced values and the dims), and a
        [model.ulp] entry for every device function an expression uses."""
        exprs = model.get("expr")
        if type(exprs) is not dict:
            self.err(["model", "expr"] if "expr" in model else ["model"], f"op {op} needs [model.expr]",
                     "[model.expr] with one `OUTPUT = \"expression\"` per output tensor")
        inputs = [t["name"] for t in tensors if t["role"] == "input"]
        outputs = [t["name"] for t in tensors if t["role"] != "input"]
        for name in exprs:
            if name not in outputs:
                self.err(["model", "expr", name], f"model.expr.{name} names no output tensor",
                         "one of " + ", ".join(outputs))
        ulps = model.get("ulp", {})
        if type(ulps) is not dict:
            self.err(["model", "ulp"], f"model.ulp is {_tname(ulps)}", "a table: function = { cuda = K, hip = K }")
        texts = []
        for out in outputs:
            if out not in exprs:
                self.err(["model", "expr"], f"[model.expr] has no expression for output {out}",
                         f"{out} = \"expression of {', '.join(inputs + list(extra) + list(dims))}\"")
            texts.append((["model", "expr", out], f"model.expr.{out}", exprs[out], inputs + list(extra) + list(dims)))
        for q, (name, red) in enumerate(model.get("reduce", {}).items()):
            kind = next(k for k in ("sum", "max", "min") if k in red)
            texts.insert(q, (["model", "reduce", name, kind], f"model.reduce.{name}", red[kind],
                             inputs + list(extra[:q]) + list(dims)))
        per_line = self.rowwise_per_line(model, tensors) if op == "rowwise" else {}
        for path, where, text, names in texts:
            if type(text) is not str:
                self.err(path, f"{where} is {_tname(text)}", "an expression string")
            r = self.grammar(path, "bad expression: ", {"kind": "ew_expr", "text": text, "inputs": names, "op": op},
                             answer=True)
            line = per_line.get(path[-1]) if path[1] == "expr" else None
            if line and line[1] in r.get("index_on", []):
                self.err(path, f"{where} has one element per {line[0]} but reads an index({line[1]}), which varies "
                         "along it", f"only reductions, dims, inputs and indices constant along a {line[0]}")
            for fn in r.get("fns", []):
                per = ulps.get(fn)
                if type(per) is not dict or not per or not all(
                        type(v) is int and 0 <= v <= 64 for v in per.values()):
                    self.err(["model", "ulp", fn] if fn in ulps else path,
                             f"{where} uses {fn} without a documented ulp bound",
                             f"[model.ulp] {fn} = {{ cuda = K }} (K in 0..64, the vendor's documented bound, per "
                             f"backend)")

    @staticmethod
    def rowwise_per_line(model, tensors):
        """op rowwise: the outputs with one element per line, as
        oracles/generic/rw_model.c reads their shapes (here by their dims'
        names): {output: ("row", "col")} along rows, the shape of an
        input of rank >= 2 without its last axis (or with it as 1);
        {output: ("column", "row")} along columns, that axis alone."""
        column = model.get("along") == "column"
        lines = []
        for t in tensors:
            sh = t.get("shape")
            if t["role"] == "input" and type(sh) is list and len(sh) >= 2:
                lines += [[sh[-1]]] if column else [sh[:-1], sh[:-1] + [1]]
        return {t["name"]: ("column", "row") if column else ("row", "col")
                for t in tensors if t["role"] != "input" and t.get("shape") in lines}

    def rowwise_model(self, model, tensors, dims):
        """op rowwise: [model.reduce], each NAME = { sum = "term", order =
        "any" } (or max, min), a term over the inputs, the reductions
        declared before it and the dims; then [model.expr] as for
        elementwise, over the inputs, every reduction and the dims."""
        red = model.get("reduce")
        if type(red) is not dict or not 1 <= len(red) <= 4:
            self.err(["model", "reduce"] if "reduce" in model else ["model"],
                     "op rowwise needs [model.reduce] with 1 to 4 reductions",
                     "[model.reduce] NAME = { sum = \"term\", order = \"any\" } (or max, min)")
        names = [t["name"] for t in tensors] + list(dims)
        for name, r in red.items():
            p = ["model", "reduce", name]
            if name in names:
                self.err(p, f"reduction {name} has the name of a tensor or dim",
                         "a name of its own (it is read by that name in the expressions)")
            kinds = [k for k in ("sum", "max", "min") if type(r) is dict and k in r]
            if type(r) is not dict or len(kinds) != 1 or set(r) != {kinds[0], "order"}:
                self.err(p, f"model.reduce.{name} is {json.dumps(r) if type(r) is dict else _tname(r)}",
                         "{ sum = \"term\", order = \"any\" } (or max or min in place of sum), nothing else")
            if r["order"] != "any":
                self.err(p + ["order"], f"order = {json.dumps(r['order'])}",
                         "\"any\" (a declared order is not modelled yet)")
        self.elementwise_model(model, tensors, "rowwise", list(red), dims)

    def contraction_model(self, model, tensors, dims):
        """op contraction: the first two inputs are the operands A and B
        (binary16), the transposes are booleans, and [model.expr] is as for
        elementwise, over acc (the accumulator), the other inputs and the
        dims."""
        inputs = [t for t in tensors if t["role"] == "input"]
        if len(inputs) < 2:
            self.err(["tensor"], f"op contraction has {len(inputs)} input tensor(s)",
                     "the operands A and B as its first two input tensors, in f16")
        for t in inputs[:2]:
            if t["dtype"] != "f16":
                self.err(["tensor", tensors.index(t), "dtype"], f"operand {t['name']} is {t['dtype']}",
                         "f16 (op contraction sums binary16 products exactly; its first two inputs are A and B)")
        for key in ("transpose_a", "transpose_b"):
            if key in model and type(model[key]) is not bool:
                self.err(["model", key], f"model.{key} is {_tname(model[key])}", "true or false")
        for i, t in enumerate(tensors):
            if t["name"] == "acc":
                self.err(["tensor", i, "name"], "a tensor is named acc",
                         "another name (acc is the accumulator in model.expr)")
        if "acc" in dims:
            self.err(["dims"], "a dim is named acc", "another name (acc is the accumulator in model.expr)")
        extra = [t for t in tensors if t not in inputs[:2]]
        self.elementwise_model(model, extra, "contraction", ["acc"], dims)
        names = [t["name"] for t in extra if t["role"] == "input"] + ["acc"] + list(dims)
        for out, text in model["expr"].items():
            r = self.grammar(["model", "expr", out], "bad expression: ",
                             {"kind": "ew_expr", "text": text, "inputs": names}, answer=True)
            if r.get("reads"):
                self.err(["model", "expr", out], f"model.expr.{out} reads an input at an index (INPUT[INDEX] or "
                         "index())", "acc, the inputs and the dims by name (indexed reads are op elementwise's)")

    def expr(self, text, path, dims, boolean=False):
        """An expression's C rendering, as the plan carries it."""
        if type(text) is int and not boolean:
            text = str(text)
        if type(text) is not str:
            self.err(path, f"{path[-1]} is {_tname(text)}", "an expression string")
        return self.grammar(path, "bad expression: ",
                            {"kind": "condition" if boolean else "value", "text": text})

    # ----------------------------------------------------------------------
    def validate(self):
        """The plan. Two walks over the contract (gen/registry.py Checks):
        the first collects what the C grammar checks, the second reports the
        first error in reading order, grammar or not, and builds the plan."""
        self.load()
        self.checks = registry.Checks()
        try:
            self._walk()
        except ContractError:
            pass  # found again, in its place, by the second walk
        dims = self.doc.get("dims")
        self.checks.run([x for x in dims if type(x) is str] if type(dims) is list else [])
        return self._walk()

    def _walk(self):
        d = self.doc
        P = []
        self.table(d, P, ["contract", "summary", "op", "dims", "kernel", "tensor",
                          "model", "claim", "case"], ["require"])
        name = self.string(d, P, "contract")
        stem = os.path.splitext(os.path.basename(self.path))[0]
        if name != stem:
            self.err(["contract"], f"contract name {name!r} differs from the file name",
                     f"contract = {stem!r}")
        summary = self.string(d, P, "summary")
        op = self.string(d, P, "op")
        reg = self.reg
        if op not in reg.ops:
            self.err(["op"], f"unknown op {op!r}", "one of " + ", ".join(reg.ops))
        op_dtypes = reg.ops[op]["dtypes"]
        limits = reg.limits
        dims = self.str_list(d, P, "dims", 1, limits["max_dims"])
        for i, dn in enumerate(dims):
            self.grammar(["dims"], "", {"kind": "dim_name", "text": dn})
            if dn in dims[:i]:
                self.err(["dims"], f"dim {dn!r} listed twice", "distinct dim names")

        # tensors
        # (path, text, what, minimum): every value expression, evaluated
        # for each case once the cases are read
        evals = []
        tensors_raw = d["tensor"]
        if type(tensors_raw) is not list or not tensors_raw or any(type(t) is not dict for t in tensors_raw):
            self.err(["tensor"], "tensor is not an array of tables", "[[tensor]] entries")
        if len(tensors_raw) > limits["max_tensors"]:
            self.err(["tensor", limits["max_tensors"]], f"{len(tensors_raw)} tensors",
                     f"at most {limits['max_tensors']} tensors")
        tensors = []
        names = set()
        for i, t in enumerate(tensors_raw):
            tp = ["tensor", i]
            self.table(t, tp, ["name", "dtype", "shape", "role"], ["init", "values"])
            tn = self.string(t, tp, "name")
            self.grammar(tp + ["name"], "", {"kind": "tensor_name", "text": tn})
            if tn in names:
                self.err(tp + ["name"], f"tensor {tn!r} declared twice", "distinct tensor names")
            if tn in dims:
                self.err(tp + ["name"], f"tensor {tn!r} has the name of a dim",
                         "tensor names distinct from dim names")
            names.add(tn)
            dt = self.string(t, tp, "dtype")
            if dt not in reg.dtypes:
                self.err(tp + ["dtype"], f"unknown dtype {dt!r}", "one of " + ", ".join(reg.dtypes))
            if dt not in op_dtypes:
                self.err(tp + ["dtype"], f"op {op} takes no {dt} tensors",
                         "one of " + ", ".join(op_dtypes) + f" (the dtypes op {op} reads and writes)")
            index = reg.dtypes[dt]["index"]
            role = self.string(t, tp, "role")
            if role not in ROLES:
                self.err(tp + ["role"], f"unknown role {role!r}", "input or output")
            shape = self.str_list(t, tp, "shape", 1, limits["max_rank"], allow_int=True)
            shape_c = [self.expr(s, tp + ["shape"], dims) for s in shape]
            evals += [(tp + ["shape"], x, f"tensor {tn!r} extent {k}", 1) for k, x in enumerate(shape)]
            entry = {"name": tn, "dtype": dt, "shape": shape_c, "role": role}
            if "values" in t:
                if role != "input" or not index:
                    self.err(tp + ["values"], f"values for {role} {dt} tensor {tn!r}",
                             "values = [lo, hi] only on " + "/".join(reg.index_dtypes()) + " inputs (indices)")
                vals = self.str_list(t, tp, "values", 2, 2, allow_int=True)
                entry["values"] = [self.expr(v, tp + ["values"], dims) for v in vals]
                evals += [(tp + ["values"], x, f"tensor {tn!r} values[{k}]", None) for k, x in enumerate(vals)]
            if "init" in t:
                init = t["init"]
                if role != "output":
                    self.err(tp + ["init"], f"init for input tensor {tn!r}",
                             "init only on outputs (inputs take a fill in each case)")
                ok = init in ("poison", "zeros")
                if not ok and dt == "f16" and type(init) is str:  # the runtime fills an init as f16 only
                    ok = self.checks.ask({"kind": "fill", "text": init, "dtype": dt, "rank": len(shape)})["ok"]
                if not ok:
                    self.err(tp + ["init"], f"init = {init!r}",
                             "\"poison\" (all bits set, the default), \"zeros\", or an f16 fill such as \"const(7)\"")
                entry["init"] = init
            tensors.append(entry)
        if not any(t["role"] == "output" for t in tensors):
            self.err(["tensor"], "no output tensor", "at least one tensor with role = \"output\"")

        # kernel
        k = d["kernel"]
        KP = ["kernel"]
        if type(k) is not dict:
            self.err(KP, "kernel is not a table", "a [kernel] table")
        self.table(k, KP, ["source", "entry", "block", "grid", "shared_bytes", "args"])
        src = self.string(k, KP, "source")
        src_path = os.path.join(self.root, src)
        if os.path.isabs(src) or ".." in src.split("/"):
            self.err(KP + ["source"], f"kernel source {src!r} is not inside the repository",
                     "a path relative to the repository root")
        if not os.path.isfile(src_path):
            self.err(KP + ["source"], f"kernel source {src!r} not found",
                     "an existing file relative to the repository root")
        with open(src_path, "rb") as f:
            src_bytes = f.read()
        src_text = src_bytes.decode("utf-8", "replace")
        entry = self.string(k, KP, "entry")
        if not IDENT.match(entry):
            self.err(KP + ["entry"], f"entry {entry!r} is not an identifier", "a C function name")
        params = find_global(src_text, entry)
        if params is None:
            self.err(KP + ["entry"], f"no __global__ function {entry!r} in {src}",
                     f"__global__ void {entry}(...) defined in the kernel source")
        block = self.str_list(k, KP, "block", 1, 3, allow_int=True)
        grid = self.str_list(k, KP, "grid", 1, 3, allow_int=True)
        block_c = [self.expr(e, KP + ["block"], dims) for e in block]
        grid_c = [self.expr(e, KP + ["grid"], dims) for e in grid]
        shm_c = self.expr(k["shared_bytes"], KP + ["shared_bytes"], dims)
        evals += [(KP + ["block"], x, f"block[{i}]", 1) for i, x in enumerate(block)]
        evals += [(KP + ["grid"], x, f"grid[{i}]", 1) for i, x in enumerate(grid)]
        evals.append((KP + ["shared_bytes"], str(k["shared_bytes"]), "shared_bytes", 0))
        args = self.str_list(k, KP, "args", 1, 64)
        by_name = {t["name"]: t for t in tensors}
        for a in args:
            if a not in by_name and a not in dims:
                self.err(KP + ["args"], f"argument {a!r} is neither a tensor nor a dim",
                         "tensor names (" + ", ".join(by_name) + ") or dim names (" + ", ".join(dims) + ")")
        for t in tensors:
            n = args.count(t["name"])
            if n != 1:
                self.err(KP + ["args"], f"tensor {t['name']!r} appears {n} times in args",
                         "every tensor passed to the kernel exactly once")
        if len(params) != len(args):
            self.err(KP + ["args"], f"args has {len(args)} entries but {entry} takes {len(params)} parameters",
                     f"{len(params)} args in kernel parameter order")
        for a, p in zip(args, params):
            is_ptr = "*" in p
            if (a in by_name) != is_ptr:
                self.err(KP + ["args"], f"argument {a!r} is passed to parameter {p.strip()!r}",
                         "tensors for pointer parameters and dims for integer parameters, in order")

        # model (op-specific: passed through; the checker validates it)
        model = d["model"]
        if type(model) is not dict:
            self.err(["model"], "model is not a table", "a [model] table")
        consts = model.get("constants")
        if consts is not None:
            if type(consts) is not dict:
                self.err(["model", "constants"], f"constants is {_tname(consts)}",
                         "a table of name = \"literal as written in the kernel\"")
            for cn, cv in consts.items():
                if type(cv) is not str:
                    self.err(["model", "constants", cn], f"constant {cn} is {_tname(cv)}",
                             "the literal as a string, e.g. \"0.044715f\"")
                if not re.search(r"(?<![0-9A-Za-z_.])" + re.escape(cv) + r"(?![0-9A-Za-z_.])", src_text):
                    self.err(["model", "constants", cn],
                             f"constant {cn} = {cv!r} does not appear verbatim in {src}",
                             "each model constant to be the literal used in the kernel source")
        try:
            json.dumps(model)
        except TypeError:
            self.err(["model"], "model holds a TOML date or time", "strings, numbers, booleans, arrays and tables")
        # keys with a fixed set of values (the registry says which): the
        # checker's check_model judges the whole model when it runs
        for key, v in model.items():
            k = reg.model_key(op, key)
            if not k:
                known = [x["key"] for x in reg.ops[op]["model"]]
                self.err(["model", key], f"unknown key {key!r} in [model] (op {op} does not read it)",
                         "one of " + ", ".join(known) + f" (the model keys of op {op})")
            if k and "values" in k and v not in k["values"]:
                self.err(["model", key], f"model.{key} is {json.dumps(v)}",
                         "one of " + " ".join(json.dumps(x) for x in k["values"]) + f" (op {op})")
        if op == "elementwise":
            self.elementwise_model(model, tensors)
        if op == "rowwise":
            self.rowwise_model(model, tensors, dims)
        if op == "contraction":
            self.contraction_model(model, tensors, dims)
        # a HIP device-math figure ([model.<fn>_ulp.hip]): checked here so
        # that a malformed one is FILE:LINE (the op checks it again)
        for key, v in model.items():
            if type(v) is dict and "hip" in v and type(v["hip"]) is dict:
                self.hip_figure(v["hip"], ["model", key, "hip"])
            elif type(v) is dict and "hip" in v:
                self.err(["model", key, "hip"], f"model.{key}.hip is {_tname(v['hip'])}",
                         "a table {figure, metric, range, source, host_ulp, host_source} "
                         "(README.md#hip-device-math)")
        # claim
        claim = d["claim"]
        if type(claim) is not dict:
            self.err(["claim"], "claim is not a table", "a [claim] table")
        self.table(claim, ["claim"], ["source"], ["atol", "rtol", "row_sum_atol"])
        self.string(claim, ["claim"], "source")
        if "atol" not in claim and "rtol" not in claim:
            self.err(["claim"], "claim has neither atol nor rtol", "atol = ... and/or rtol = ...")
        for key in ("atol", "rtol", "row_sum_atol"):
            if key in claim:
                v = claim[key]
                if type(v) not in (int, float) or not v >= 0 or v == float("inf"):
                    self.err(["claim", key], f"{key} = {v!r}", "a finite number >= 0")

        # requires
        reqs = []
        req_texts = []
        rr = d.get("require", [])
        if type(rr) is not list or any(type(r) is not dict for r in rr):
            self.err(["require"], "require is not an array of tables", "[[require]] entries")
        for i, r in enumerate(rr):
            rp = ["require", i]
            self.table(r, rp, ["expr", "message"])
            cond = self.expr(r["expr"], rp + ["expr"], dims, boolean=True)
            msg = self.string(r, rp, "message")
            reqs.append({"expr": cond, "message": msg})
            req_texts.append((rp + ["expr"], r["expr"]))

        # cases
        cases_raw = d["case"]
        if type(cases_raw) is not list or not cases_raw or any(type(c) is not dict for c in cases_raw):
            self.err(["case"], "case is not an array of tables", "[[case]] entries")
        cases = []
        seen = set()
        for i, c in enumerate(cases_raw):
            cp = ["case", i]
            self.table(c, cp, ["name", "seed", "dims", "fill"], ["note", "expect", "timeout_s"])
            cn = self.string(c, cp, "name")
            if not CASE_NAME.match(cn):
                self.err(cp + ["name"], f"case name {cn!r} is not usable",
                         "letters, digits, '_', '.', '-' (it names a directory)")
            if cn in seen:
                self.err(cp + ["name"], f"duplicate case name {cn!r}", "distinct case names")
            seen.add(cn)
            seed = c["seed"]
            if type(seed) is not int or not 0 <= seed < 2**63:
                self.err(cp + ["seed"], f"seed = {seed!r}", "an integer in 0 .. 2^63-1")
            cd = c["dims"]
            if type(cd) is not dict:
                self.err(cp + ["dims"], f"dims is {_tname(cd)}", "a table { " + ", ".join(f"{x} = ..." for x in dims) + " }")
            for key in cd:
                if key not in dims:
                    self.err(cp + ["dims", key], f"unknown dim {key!r} in case {cn!r}",
                             "only the contract's dims (" + ", ".join(dims) + ")")
            for dn in dims:
                if dn not in cd:
                    self.err(cp + ["dims"], f"case {cn!r} does not give dim {dn!r}",
                             "every dim (" + ", ".join(dims) + ") as a positive integer")
                v = cd[dn]
                if type(v) is not int or v <= 0 or v > 2**31 - 1:
                    self.err(cp + ["dims", dn], f"dim {dn} = {v!r} in case {cn!r}",
                             "a positive integer below 2^31")
            fill = c["fill"]
            if type(fill) is not dict:
                self.err(cp + ["fill"], f"fill is {_tname(fill)}", "a table { TENSOR = \"fill\" }")
            for tn, fx in fill.items():
                if tn not in by_name:
                    self.err(cp + ["fill", tn], f"fill for unknown tensor {tn!r} in case {cn!r}",
                             "fills only for the input tensors (" +
                             ", ".join(t["name"] for t in tensors if t["role"] == "input") + ")")
                if by_name[tn]["role"] != "input":
                    self.err(cp + ["fill", tn], f"fill for output tensor {tn!r} in case {cn!r}",
                             "no fill for outputs (the harness poisons them)")
                if type(fx) is not str:
                    self.err(cp + ["fill", tn], f"bad fill for {tn}: fill is {_tname(fx)}", "a fill expression string")
                self.grammar(cp + ["fill", tn], f"bad fill for {tn}: ",
                             {"kind": "fill", "text": fx, "dtype": by_name[tn]["dtype"],
                              "rank": len(by_name[tn]["shape"])})
            for t in tensors:
                if t["role"] == "input" and t["name"] not in fill:
                    self.err(cp + ["fill"], f"case {cn!r} has no fill for input {t['name']!r}",
                             "a fill for every input tensor")
            note = c.get("note", "")
            if type(note) is not str:
                self.err(cp + ["note"], f"note is {_tname(note)}", "a string")
            expect = c.get("expect", "pass")
            if expect not in EXPECTS:
                self.err(cp + ["expect"], f"expect = {expect!r} in case {cn!r}",
                         "\"pass\" (the default), \"refused\" or \"violated\"")
            # the case's watchdog (harness/tp_supervise.h); only a case that
            # gives one carries the key, so plans without it are unchanged
            limit = c.get("timeout_s")
            if limit is not None and (type(limit) not in (int, float) or not 0 < limit <= 86400):
                self.err(cp + ["timeout_s"], f"timeout_s = {limit!r} in case {cn!r}",
                         "a number of seconds in (0, 86400] (the harness default is 60)")
            cases.append({"name": cn, "seed": seed, "dims": {x: cd[x] for x in dims},
                          "fill": {t["name"]: fill[t["name"]] for t in tensors if t["name"] in fill},
                          "note": note, "expect": expect})
            if limit is not None:
                cases[-1]["timeout_s"] = limit

        self.evaluate(dims, cases, req_texts, evals)

        rel = os.path.relpath(os.path.abspath(self.path), os.path.abspath(self.root))
        return {
            "tolproof_plan": 1,
            "contract": name,
            "contract_file": rel,
            "contract_sha256": hashlib.sha256(self.raw).hexdigest(),
            "summary": summary,
            "op": op,
            "dims": dims,
            "kernel": {"source": src, "entry": entry,
                       "sha256": hashlib.sha256(src_bytes).hexdigest(),
                       "args": args},
            "launch": {"block": block_c, "grid": grid_c, "shared_bytes": shm_c},
            "tensors": tensors,
            "model": model,
            "claim": claim,
            "requires": reqs,
            "cases": cases,
        }


    def evaluate(self, dims, cases, req_texts, evals):
        """Every expression evaluated for every case, by the C evaluator
        the harness runs (gen/registry.py): one that cannot be evaluated
        (division by zero, int64 overflow) is refused; so is an extent,
        launch dimension or shared size below its minimum in a case whose
        requirements hold (a case its requirements refuse never gets that
        far at run time)."""
        for c in cases:
            values = [c["dims"][x] for x in dims]
            where = f"case {c['name']!r} (" + ", ".join(f"{x}={c['dims'][x]}" for x in dims) + ")"
            admitted = True
            for path, text in req_texts:
                r = self.grammar(path, "bad expression: ", {"kind": "condition", "text": text, "values": values},
                                 answer=True)
                if "error" in r:
                    self.err(path, f"bad expression: {text!r} cannot be evaluated for {where}: {r['error']}",
                             "a condition that evaluates within the 64-bit integers for every case")
                admitted = admitted and r.get("value", 1) != 0
            for path, text, what, minimum in evals:
                r = self.grammar(path, "bad expression: ", {"kind": "value", "text": text, "values": values},
                                 answer=True)
                if "error" in r:
                    self.err(path, f"bad expression: {what} {text!r} cannot be evaluated for {where}: {r['error']}",
                             "an expression that evaluates within the 64-bit integers for every case")
                if admitted and minimum is not None and "value" in r and r["value"] < minimum:
                    self.err(path, f"{what} {text!r} is {r['value']} for {where}",
                             f"{what} >= {minimum} for every case whose requirements hold")


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def find_global(src, entry):
    """Parameter list (as strings) of `__global__ ... void entry(...)`, or None."""
    code = _strip_comments(src)
    m = re.search(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+)?void\s+"
                  r"(?:__launch_bounds__\s*\([^)]*\)\s*)?" + re.escape(entry) + r"\s*\(", code)
    if not m:
        return None
    depth = 1
    i = m.end()
    start = i
    while i < len(code) and depth:
        depth += code[i] == "("
        depth -= code[i] == ")"
        i += 1
    body = code[start:i - 1].strip()
    if not body or body == "void":
        return []
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def load_plan(path, root="."):
    return Validator(path, root).validate()


def plan_json(plan):
    return json.dumps(plan, sort_keys=True, indent=2, ensure_ascii=True) + "\n"
