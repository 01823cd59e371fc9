"""tolproof.testing.assert_contract and the pytest plugin
(tolproof.pytest_plugin), run as a user's suite would run them: a pytest
process with `-p tolproof.pytest_plugin` and --junitxml."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import ROOT
from tolproof.testing import assert_contract


def gemm(fixtures, out="C.npy"):
    d = os.path.join(fixtures, "gemm_fwd")
    return {k: np.load(os.path.join(d, f)) for k, f in (("A", "A.npy"), ("B", "B.npy"), ("C", out))}


def test_assert_contract_passes(fixtures):
    r = assert_contract("gemm_fwd", **gemm(fixtures))
    assert r.passed


def test_assert_contract_failure_message(fixtures):
    t = gemm(fixtures, "C.npy")
    C = t["C"].copy()
    for k, (i, j) in enumerate([(0, 0), (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]):
        C[i, j] = C[i, j] + np.float16(1 + k)  # seven wrong elements
    t["C"] = C
    with pytest.raises(AssertionError) as e:
        assert_contract("gemm_fwd", **t)
    msg = str(e.value)
    lines = msg.splitlines()
    assert lines[0].startswith("tolproof: contract gemm_fwd (op gemm), M=48 N=40 K=64: verdict fail, max err/bound ")
    assert "output C: 7 of 1920 elements outside the bound" in msg
    header = [l for l in lines if l.split()[:5] == ["element", "got", "exact", "admitted", "err/bound"]]
    assert len(header) == 1
    rows = lines[lines.index(header[0]) + 1:]
    assert [r.split()[0] for r in rows] == ["C[0,", "C[1,", "C[3,", "C[5,", "C[7,"]  # the first five, in order
    assert rows[0].split()[2] == "%.9g" % float(C[0, 0])


def test_assert_contract_bad_input(fixtures):
    import tolproof

    t = gemm(fixtures)
    del t["B"]
    with pytest.raises(tolproof.ContractError, match="missing --input B=FILE.npy"):
        assert_contract("gemm_fwd", **t)


SUITE = '''
import os
import numpy as np
import pytest
import tolproof
from tolproof.testing import assert_contract

D = os.environ["FX"]
A, B, C, W = (np.load(os.path.join(D, f)) for f in ("A.npy", "B.npy", "C.npy", "C_wrong.npy"))

@pytest.mark.tolproof("gemm_fwd")
def test_good():
    assert_contract("gemm_fwd", A=A, B=B, C=C)

def test_wrong_kernel():
    assert_contract("gemm_fwd", A=A, B=B, C=W)

def test_fixture(tolproof_check):
    assert tolproof_check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C}).passed
'''


def test_pytest_plugin(fixtures, tmp_path):
    (tmp_path / "test_user.py").write_text(SUITE)
    env = dict(os.environ, FX=os.path.join(str(fixtures), "gemm_fwd"),
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTEST_ADDOPTS", None)
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "tolproof.pytest_plugin", "-p", "no:cacheprovider",
                        "--junitxml", str(tmp_path / "junit.xml"), "test_user.py"],
                       cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr  # test_wrong_kernel fails
    out = p.stdout
    # the failure shows the verdict, largest err/bound and the violations' table
    assert "AssertionError: tolproof: contract gemm_fwd (op gemm), M=48 N=40 K=64: verdict fail, max err/bound 2.97e+03" in out
    assert "C[3, 5]  -1.77148438  -2.27165296  [-2.27148438, -2.27148438]" in out
    # and the JSON result as a report section
    assert "- tolproof gemm_fwd -" in out and '"verdict": "fail"' in out
    cases = {c.get("name"): c for c in ET.parse(str(tmp_path / "junit.xml")).getroot().iter("testcase")}
    assert set(cases) == {"test_good", "test_wrong_kernel", "test_fixture"}
    for name, verdict in (("test_good", "pass"), ("test_wrong_kernel", "fail"), ("test_fixture", "pass")):
        props = [(q.get("name"), q.get("value")) for q in cases[name].iter("property")]
        results = [v for k, v in props if k == "tolproof"]
        assert len(results) == 1 and '"verdict": "%s"' % verdict in results[0], props
    assert ("tolproof_contract", "gemm_fwd") in [(q.get("name"), q.get("value")) for q in cases["test_good"].iter("property")]
