"""PyTorch tensors, on the CPU and, where a CUDA device is, on it (copied
to page-locked host memory by the call; scripts/torch_api_demo.py runs
the ops on a GPU host). Skipped where torch is not installed (Debian's
python3-torch provides it)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tolproof
from conftest import ROOT


def test_torch_is_imported_only_for_torch_tensors(fixtures):
    code = ("import sys, numpy as np, tolproof\n"
            "d = sys.argv[1]\n"
            "r = tolproof.check('gelu_fwd', inputs={'x': np.load(d + '/x.npy')}, outputs={'y': np.load(d + '/y.npy')})\n"
            "assert r.passed and 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([sys.executable, "-c", code, os.path.join(str(fixtures), "gelu_fwd")], env=env, check=True)


@pytest.mark.parametrize("dev", ["cpu", "cuda"])
def test_torch_tensors(fixtures, dev):
    torch = pytest.importorskip("torch")
    if dev == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    name = "torch.Tensor (%s)" % ("cuda:0" if dev == "cuda" else "cpu")
    d = os.path.join(fixtures, "gemm_fwd")
    A, B, C = (np.load(os.path.join(d, f)) for f in ("A.npy", "B.npy", "C_wrong.npy"))
    base = tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C})
    tA, tB = torch.from_numpy(A).requires_grad_(False).to(dev), torch.from_numpy(B).to(dev)
    tC = torch.from_numpy(C.T.copy()).to(dev).t()  # not contiguous
    r = tolproof.check("gemm_fwd", inputs={"A": tA, "B": tB}, outputs={"C": tC})
    assert r.raw["outputs"]["C"]["array"] == name
    strip = lambda s: s.replace(name, "numpy.ndarray")  # noqa: E731
    assert strip(r.to_json()) == base.to_json() and strip(str(r)) == str(base)
    e = os.path.join(fixtures, "embedding_fwd")
    idx = torch.from_numpy(np.load(os.path.join(e, "idx.npy"))).to(dev)  # int64, as PyTorch indexes
    assert idx.dtype == torch.int64
    W = torch.from_numpy(np.load(os.path.join(e, "W.npy"))).to(dev).requires_grad_()
    out = torch.nn.functional.embedding(idx, W)
    assert tolproof.check("embedding_fwd", inputs={"idx": idx, "W": W}, outputs={"out": out}).passed
    # bfloat16 travels as its bit patterns ('<V2'), and is judged as bf16
    with pytest.raises(tolproof.ContractError, match=r"^input A: %s holds <V2 \(bf16\); the "
                       r"contract's tensor A is <f2 \(f16\)$" % re.escape(name)):
        tolproof.check("gemm_fwd", inputs={"A": tA.to(torch.bfloat16), "B": tB}, outputs={"C": tC})
