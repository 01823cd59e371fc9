"""tolproof: check a kernel's outputs against a formal contract, from Python.

    import torch, tolproof
    a, b = torch.randn(1024, 1024, dtype=torch.half, device="cuda"), torch.randn(...)
    print(tolproof.check("gemm_fwd", inputs={"A": a, "B": b}, outputs={"C": torch.matmul(a, b)}))

check() runs the C checker of `tolproof check` (build/libtolproof.so,
api/tolproof.h) on tensors in memory: NumPy arrays, PyTorch tensors on any
device (copied to the host in the call), anything with __array__ or
__dlpack__, or paths of .npy files. No temporary files are written.
"""
import json
import os

from . import _native
from ._arrays import Tensors
from ._result import Element, Output, Result, Statement

__version__ = "0.1.0"
__all__ = ["check", "ContractError", "DeviceError", "Result", "Output", "Element", "Statement", "contracts", "plans_dir"]


class ContractError(ValueError):
    """The check was refused before any element was judged: a tensor of the
    wrong dtype or shape, a missing tensor, an unknown model key or value,
    an unknown contract. str(e) is the line `tolproof check` prints after
    "tolproof check: "; e.json is what its --json file holds for it."""

    def __init__(self, message, json_text=None):
        super().__init__(message)
        self.message = message
        self.json = json_text


class DeviceError(RuntimeError):
    """check(..., device=True) cannot use the GPU exact provider: the
    library libtp_gemm_cuda.so is missing (it is built by nvcc: `ninja
    gpu_provider`) or is not the provider, or there is no GPU. str(e) is
    the line `tolproof check --device` prints."""


# Callables told the JSON text of every check, refusals included (the
# pytest plugin, tolproof.pytest_plugin, attaches them to the test report).
observers = []


def _tell(json_text):
    for f in list(observers):
        f(json_text)


def _model_value(v):
    """VALUE of --model KEY=VALUE: the C side reads it as JSON, else as a
    string; a str stays the bare word the command line would carry, unless
    that word would read as another JSON type ("2", "true")."""
    if isinstance(v, str):
        try:
            json.loads(v)
        except ValueError:
            return v
        return json.dumps(v)
    return json.dumps(v)


def _model_args(model, prefix=""):
    out = []
    for k, v in (model or {}).items():
        if isinstance(v, dict):  # a nested key: KEY.SUB=VALUE, as on the command line
            out += _model_args(v, prefix + k + ".")
        else:
            out.append("%s%s=%s" % (prefix, k, _model_value(v)))
    return out


def plans_dir():
    """Where contract names are looked up: gen/ beside the library
    (build/gen in a repository where `ninja` has run)."""
    return _native.plans_dir()


def contracts(directory=None):
    """The contract names whose built plans are in plans_dir()."""
    d = directory or plans_dir()
    try:
        names = os.listdir(d)
    except OSError:
        return []
    return sorted(n[: -len(".plan.json")] for n in names if n.endswith(".plan.json"))


def check(contract, inputs=None, outputs=None, model=None, initial=None, dims=None, backend="cuda", plans=None,
          device=False):
    """Checks outputs against a contract's operation and numeric model,
    element by element, as `tolproof check` does.

    contract  a contract name (its built plan in plans_dir(), e.g. "gemm_fwd")
              or the path of a plan JSON
    inputs    {name: tensor} every input of the contract
    outputs   {name: tensor} at least one output; outputs not given are skipped
    model     {key: value} overrides of the contract's [model] (a dict value
              sets nested keys: {"tanhf_ulp": {"cuda": 4}})
    initial   {name: tensor} an output's content before the producer ran
    dims      {name: int} a dim that no given tensor's shape fixes
    backend   "cuda" or "hip": whose documented device-function ulp bounds apply
    plans     where contract names are looked up (default plans_dir())
    device    True: the exact sums of GEMMs (op gemm) and their element check
              on the GPU, as `tolproof check --device` (libtp_gemm_cuda.so
              beside the library, or $TP_GEMM_CUDA_LIB); a seeded sample of
              both is cross-checked against the CPU path, and the result
              gains exact_provider. Other ops compute on the CPU. Raises
              DeviceError without the library or a GPU.

    Returns a Result (verdict, per output the counts, largest err/bound and
    ulp error, worst elements and first violations, the claim audit,
    Evidence and Non-claims). Raises ContractError for bad input.
    """
    t = Tensors()
    for kind, group in (("input", inputs), ("output", outputs), ("initial", initial)):
        for name, value in (group or {}).items():
            t.add(kind, name, value)
    dim_args = ["%s=%s" % (k, v) for k, v in (dims or {}).items()]
    try:
        status, json_text, text = _native.check(os.fspath(contract), os.fspath(plans) if plans else None, backend,
                                                t.structs, _model_args(model), dim_args, device=device)
    except _native.DeviceUnavailable as e:
        raise DeviceError(str(e)) from None
    _tell(json_text)
    if status == 2:
        raise ContractError(text, json_text)
    return Result(status, json_text, text)
