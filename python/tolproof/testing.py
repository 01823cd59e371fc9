"""Assertions for test suites.

    from tolproof.testing import assert_contract
    assert_contract("gemm_fwd", A=a, B=b, C=torch.matmul(a, b))

Tensors are passed by their contract names; which are inputs and which
outputs comes from the contract's plan. A failure shows the verdict, the
largest err/bound and the first five violations as a table.
"""
import json
import os

from . import ContractError, check, plans_dir


def _plan(contract, plans):
    c = os.fspath(contract)
    path = c if ("/" in c or c.endswith(".json")) else os.path.join(plans or plans_dir(), c + ".plan.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError:
        return None  # check() says what is wrong, in the command's words


def _fmt(v):
    return "%.9g" % v if isinstance(v, float) else str(v)


def violation_table(result, limit=5):
    """The first `limit` violations of every output, one row each."""
    rows = [("element", "got", "exact", "admitted", "err/bound")]
    for o in result.outputs.values():
        for e in o.first_violations[:limit]:
            rows.append(("%s[%s]" % (o.name, ", ".join(str(i) for i in e.index)), _fmt(e.got), _fmt(e.exact),
                         "[%s, %s]" % (_fmt(e.admitted[0]), _fmt(e.admitted[1])), "%.3g" % e.err_over_bound))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("  " + "  ".join(r[c].ljust(widths[c]) for c in range(len(r))).rstrip() for r in rows)


def failure_message(result):
    # the summary's first line names the contract, op and dims in the plan's order
    head = result.text.splitlines()[0] if result.text else "contract %s (op %s)" % (result.contract, result.op)
    lines = ["tolproof: %s: verdict %s, max err/bound %.3g" % (head, result.verdict, result.max_err_over_bound)]
    for o in result.outputs.values():
        lines.append("  output %s: %d of %d elements outside the bound, max err/bound %.3g, max err %.3g ulp"
                     % (o.name, o.violations, o.elements, o.max_err_over_bound, o.max_ulp_err))
    lines.append("first violations (at most 5 per output):")
    lines.append(violation_table(result))
    return "\n".join(lines)


def assert_contract(contract, model=None, initial=None, dims=None, backend="cuda", plans=None, **tensors):
    """Checks the tensors (by their names in the contract) and raises
    AssertionError unless every output lies within its bound. Returns the
    Result. Bad input raises tolproof.ContractError, as check() does."""
    plan = _plan(contract, plans)
    outputs_named = {t["name"] for t in (plan or {}).get("tensors", []) if t.get("role") == "output"}
    inputs = {k: v for k, v in tensors.items() if k not in outputs_named}
    outputs = {k: v for k, v in tensors.items() if k in outputs_named}
    result = check(contract, inputs=inputs, outputs=outputs, model=model, initial=initial, dims=dims,
                   backend=backend, plans=plans)
    if not result.passed:
        raise AssertionError(failure_message(result))
    return result


__all__ = ["assert_contract", "failure_message", "violation_table", "ContractError"]
