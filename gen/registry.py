"""What the C core knows, for the generator: the registry and the grammar.

The generator keeps no list of ops, dtypes or limits and no parser of its
own. It reads build/gen/registry.json, which build/tp_registry (built from
oracles/registry_tool.c by ninja) writes from the op table, the dtype
table and core/tp_tensor.h's array sizes; and it checks a contract's shape
expressions, fills and names with the C grammar (core/tp_expr.c,
core/tp_rng.c), by sending all of them to one `build/tp_registry check`
process per contract.

Both are build outputs: `ninja` builds them before any plan (the plan and
harness edges depend on them). ./configure does not need them: it only
lists the contracts and variants (tpgen.py ninja / variants).
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGISTRY = "build/gen/registry.json"
TOOL = "build/tp_registry"


class RegistryError(Exception):
    """The registry or the tool is missing or broken: a build problem, not
    a contract's."""


class Registry:
    def __init__(self, doc):
        self.doc = doc
        self.ops = {o["name"]: o for o in doc["ops"]}
        self.dtypes = {d["name"]: d for d in doc["dtypes"]}
        self.limits = doc["limits"]
        self.functions = {f["name"]: f for f in doc["expression_functions"]}
        self.fill_forms = doc["fill_forms"]

    def index_dtypes(self):
        return [n for n, d in self.dtypes.items() if d["index"]]

    def model_key(self, op, key):
        """The registry's entry for [model] key `key` of op `op`, or None."""
        for k in self.ops.get(op, {}).get("model", []):
            if k["key"] == key:
                return k
        return None


_loaded = None


def load():
    global _loaded
    if _loaded is None:
        path = os.path.join(ROOT, REGISTRY)
        try:
            with open(path, encoding="utf-8") as f:
                _loaded = Registry(json.load(f))
        except OSError:
            raise RegistryError(f"{REGISTRY} not found: `ninja {REGISTRY}` writes it (run ./configure first)")
        except (ValueError, KeyError) as e:
            raise RegistryError(f"{REGISTRY} is not a registry ({e}): rebuild it with `ninja {REGISTRY}`")
    return _loaded


def check(dims, items):
    """One `tp_registry check` process for every item: a list of answers,
    each {"ok": True, "c": ...} or {"ok": False, "what": ..., "expected": ...}."""
    if not items:
        return []
    tool = os.path.join(ROOT, TOOL)
    if not os.access(tool, os.X_OK):
        raise RegistryError(f"{TOOL} not found: `ninja {TOOL}` builds it (run ./configure first)")
    request = json.dumps({"dims": list(dims), "items": items})
    p = subprocess.run([tool, "check"], input=request, capture_output=True, text=True)
    if p.returncode != 0:
        raise RegistryError(f"{TOOL} check failed: {p.stderr.strip() or 'exit status %d' % p.returncode}")
    results = json.loads(p.stdout)["results"]
    if len(results) != len(items):
        raise RegistryError(f"{TOOL} check answered {len(results)} of {len(items)} items")
    return results


class Checks:
    """The C-side checks of one contract, in two passes over it: the first
    collects every item (each answered as valid), one process answers them
    all, and the second walk looks the answers up, so the first error in
    the order the validator reads the contract is the one reported."""

    def __init__(self):
        self.items = []
        self.keys = {}
        self.answers = None
        self.dims = []

    def ask(self, item):
        key = json.dumps(item, sort_keys=True)
        if self.answers is None:
            if key not in self.keys:
                self.keys[key] = len(self.items)
                self.items.append(item)
            return {"ok": True, "c": item.get("text", "")}
        if key not in self.keys:  # the second walk went elsewhere: cannot happen, but answer right
            return check(self.dims, [item])[0]
        return self.answers[self.keys[key]]

    def run(self, dims):
        self.dims = list(dims)
        self.answers = check(self.dims, self.items)
