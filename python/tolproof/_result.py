"""The result of tolproof.check: the JSON `tolproof check --json` writes,
kept as the C side wrote it (to_json) and read into small objects."""
import json
import math


def _num(v):
    """The result's numbers: JSON numbers, or "inf", "-inf", "nan"."""
    if isinstance(v, str):
        return float(v)
    return v


class Statement:
    """One Evidence or Non-claims entry: a registered id and its text
    (docs/evidence.md lists the ids)."""

    def __init__(self, d):
        self.id, self.text = d["id"], d["text"]

    def __repr__(self):
        return "Statement(%r, %r)" % (self.id, self.text)


class Element:
    """One output element: index, the value given (got), the exact value,
    the admitted interval [lo, hi] and err/bound; for bit-compared ops the
    bit patterns where the values cannot show the difference."""

    def __init__(self, d):
        self.index = tuple(d["index"])
        self.got = _num(d["got"])
        self.exact = _num(d["exact"])
        self.admitted = tuple(_num(v) for v in d["allowed"])
        self.err = _num(d.get("err", math.nan))
        self.bound = _num(d.get("bound", math.nan))
        self.err_over_bound = _num(d.get("err_over_bound", math.nan))
        self.more_accurate = bool(d.get("more_accurate", False))
        self.got_bits = d.get("got_bits")
        self.admitted_bits = d.get("admitted_bits")

    def __repr__(self):
        return "Element(index=%r, got=%r, exact=%r, admitted=%r)" % (self.index, self.got, self.exact, self.admitted)


class Output:
    """One checked output tensor."""

    def __init__(self, name, d):
        self.name = name
        self.verdict = d["verdict"]
        self.elements = d["elements"]
        self.violations = d["violations"]
        self.max_err_over_bound = _num(d["max_err_over_bound"])
        self.max_abs_err = _num(d["max_abs_err"])
        self.max_ulp_err = _num(d["max_ulp_err"])
        self.worst = [Element(e) for e in d.get("worst", [])]
        self.first_violations = [Element(e) for e in d.get("first_violations", [])]
        self.claim = d.get("claim", {})  # the audit of |y - exact| <= atol + rtol |exact|
        self.more_accurate = d.get("more_accurate", 0)
        self.admitted_by = d.get("admitted_by", [])
        self.sha256 = d.get("sha256")
        self.raw = d

    def __repr__(self):
        return "Output(%r: %s, %d of %d elements outside the bound, max err/bound %.3g, max err %.3g ulp)" % (
            self.name, self.verdict, self.violations, self.elements, self.max_err_over_bound, self.max_ulp_err)


class Result:
    """verdict ("pass" or "fail"), outputs {name: Output}, evidence and
    non_claims [Statement], the parsed JSON (raw) and the command's text
    summary (str(result)). to_json() is the exact text `tolproof check
    --json` writes for the same tensors."""

    def __init__(self, status, json_text, text):
        self._json_text = json_text
        self.raw = json.loads(json_text)
        self.text = text
        self.status = status  # the command's exit status: 0 pass, 1 a violation
        self.verdict = self.raw["verdict"]
        self.contract = self.raw["contract"]
        self.op = self.raw["op"]
        self.dims = self.raw["dims"]
        self.model = self.raw["model"]
        self.outputs = {k: Output(k, v) for k, v in self.raw["outputs"].items()}
        self.outputs_not_given = self.raw.get("outputs_not_given", [])
        self.evidence = [Statement(s) for s in self.raw["evidence"]]
        self.non_claims = [Statement(s) for s in self.raw["non_claims"]]

    @property
    def passed(self):
        return self.verdict == "pass"

    def __bool__(self):
        return self.passed

    @property
    def max_err_over_bound(self):
        return max((o.max_err_over_bound for o in self.outputs.values()), default=0.0)

    def to_json(self):
        return self._json_text

    def __str__(self):
        return self.text.rstrip("\n")

    def __repr__(self):
        return "<tolproof.Result %s %s: %s>" % (self.contract, self.verdict, ", ".join(
            "%s %d/%d violations, max err/bound %.3g" % (o.name, o.violations, o.elements, o.max_err_over_bound)
            for o in self.outputs.values()))
