"""tolproof.check (python/tolproof) against `build/tolproof check` on the
same tensors: every op, a violation, the overrides, and every error path.
The command and the C API share one code path (cli/tp_check_tensors.c);
these tests hold the Python side to that."""
import json
import os

import numpy as np
import pytest

import tolproof
from conftest import ROOT, fixture_contracts, plan_op, registry_ops

# The entries that say where the tensors came from: files for the command,
# memory for arrays given to the API; everything else must be identical.
SOURCE_IDS = {"inputs.from_files", "outputs.from_files", "outputs.initial_from_file", "nonclaim.other_files",
              "inputs.from_memory", "outputs.from_memory", "outputs.initial_from_memory", "nonclaim.other_tensors"}
MEMORY_ID = {"inputs.from_files": "inputs.from_memory", "outputs.from_files": "outputs.from_memory",
             "outputs.initial_from_file": "outputs.initial_from_memory", "nonclaim.other_files": "nonclaim.other_tensors"}


def args_of(fx, contract):
    """{kind: {name: file}} of the fixture's valid check."""
    words = open(os.path.join(fx, contract, "check.args")).read().split()
    given = {"input": {}, "output": {}, "initial": {}}
    for opt, val in zip(words[::2], words[1::2]):
        name, path = val.split("=", 1)
        given[opt[2:]][name] = path
    return given


def cli_args(given):
    out = []
    for kind, group in given.items():
        for name, path in group.items():
            out += ["--" + kind, "%s=%s" % (name, path)]
    return out


def loaded(fx, contract, group):
    return {k: np.load(os.path.join(fx, contract, v)) for k, v in group.items()}


def without_sources(res):
    """The result less what names where each tensor came from."""
    r = json.loads(res)
    r.pop("inputs", None)
    for o in r.get("outputs", {}).values():
        for k in ("file", "array", "initial_from"):
            o.pop(k, None)
    for lst in ("evidence", "non_claims"):
        r[lst] = [s for s in r[lst] if s["id"] not in SOURCE_IDS]
    return r


def test_every_op_has_a_fixture():
    ops = {plan_op(c) for c in fixture_contracts()}
    assert set(registry_ops()) <= ops, set(registry_ops()) - ops


@pytest.mark.parametrize("contract", fixture_contracts())
def test_paths_give_the_command_json_byte_for_byte(fixtures, cli, contract, monkeypatch):
    given = args_of(fixtures, contract)
    monkeypatch.chdir(os.path.join(fixtures, contract))
    rc, cli_json, stdout, _ = cli.check(os.getcwd(), contract, *cli_args(given))
    r = tolproof.check(contract, inputs=given["input"], outputs=given["output"], initial=given["initial"])
    assert r.to_json() == cli_json
    assert r.status == rc
    assert str(r) + "\n" == stdout  # the command's summary, word for word


@pytest.mark.parametrize("contract", fixture_contracts())
def test_arrays_give_the_command_result(fixtures, cli, contract):
    """Arrays in memory: the same verdicts, numbers, worst elements, claim
    audit, Evidence and Non-claims as the command on the saved files; only
    the entries naming the tensors' source differ, and say memory."""
    given = args_of(fixtures, contract)
    rc, cli_json, _, _ = cli.check(os.path.join(fixtures, contract), contract, *cli_args(given))
    ins, outs = loaded(fixtures, contract, given["input"]), loaded(fixtures, contract, given["output"])
    r = tolproof.check(contract, inputs=ins, outputs=outs)
    assert r.status == rc and r.verdict == ("pass" if rc == 0 else "fail")
    assert without_sources(r.to_json()) == without_sources(cli_json)
    c = json.loads(cli_json)
    # the same ids in the same places, files -> memory
    assert [s["id"] for s in r.raw["evidence"]] == [MEMORY_ID.get(s["id"], s["id"]) for s in c["evidence"]]
    assert [s["id"] for s in r.raw["non_claims"]] == [MEMORY_ID.get(s["id"], s["id"]) for s in c["non_claims"]]
    # an array's fingerprint is that of the file np.save writes for it
    for name, meta in c["inputs"].items():
        assert r.raw["inputs"][name] == {"array": "numpy.ndarray", "sha256": meta["sha256"],
                                         **({"converted": meta["converted"]} if "converted" in meta else {})}
    for name, o in r.outputs.items():
        co = c["outputs"][name]
        assert (o.verdict, o.elements, o.violations) == (co["verdict"], co["elements"], co["violations"])
        assert o.raw["array"] == "numpy.ndarray"


def test_result_object(fixtures):
    d = os.path.join(fixtures, "gemm_fwd")
    A, B, C = (np.load(os.path.join(d, f)) for f in ("A.npy", "B.npy", "C.npy"))
    r = tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C})
    assert r.passed and r.verdict == "pass" and r.status == 0 and bool(r)
    assert r.contract == "gemm_fwd" and r.op == "gemm" and r.dims == {"K": 64, "M": 48, "N": 40}
    o = r.outputs["C"]
    assert o.elements == C.size and o.violations == 0 and 0 <= o.max_err_over_bound <= 1
    assert o.max_ulp_err >= 0 and o.first_violations == [] and len(o.worst) == 5
    w = o.worst[0]
    assert w.admitted[0] <= w.got <= w.admitted[1] and float(C[w.index]) == w.got
    assert o.claim["verdict"] in ("implied", "too strict", "too loose", "both") and o.claim["atol"] == 0.01
    assert [s.id for s in r.evidence][-1] == "claim.audit"
    assert "nonclaim.model_assumed" in [s.id for s in r.non_claims]
    assert r.max_err_over_bound == o.max_err_over_bound


def test_a_violation(fixtures):
    d = os.path.join(fixtures, "gemm_fwd")
    A, B, C = (np.load(os.path.join(d, f)) for f in ("A.npy", "B.npy", "C_wrong.npy"))
    r = tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C})
    assert not r.passed and r.verdict == "fail" and r.status == 1
    o = r.outputs["C"]
    assert o.violations == 1 and o.max_err_over_bound > 1
    v = o.first_violations[0]
    assert v.index == (3, 5) and v.got == float(C[3, 5])
    assert not (v.admitted[0] <= v.got <= v.admitted[1]) and v.admitted[0] <= v.exact + 1e-3
    assert "violation C[3, 5] = -1.77148438: exact -2.27165296, admitted [-2.27148438, -2.27148438]" in str(r)


class ArrayLike:
    """Not NumPy: only __array__."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None):
        return self.a


class DLPackOnly:
    """Not NumPy: only the DLPack protocol (a host producer)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_array_protocols(fixtures):
    d = os.path.join(fixtures, "gelu_fwd")
    x, y = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "y.npy"))
    base = tolproof.check("gelu_fwd", inputs={"x": x}, outputs={"y": y})
    for wrap in (ArrayLike, DLPackOnly):
        r = tolproof.check("gelu_fwd", inputs={"x": wrap(x)}, outputs={"y": wrap(y)})
        assert without_sources(r.to_json()) == without_sources(base.to_json())
        assert r.raw["inputs"]["x"]["sha256"] == base.raw["inputs"]["x"]["sha256"]
        assert wrap.__name__ in r.raw["inputs"]["x"]["array"]
    # a strided view is checked as the C-order array it holds
    r = tolproof.check("gelu_fwd", inputs={"x": np.stack([x, x])[1]}, outputs={"y": y[::-1][::-1]})
    assert r.passed


def test_overrides_initial_dims_and_indices(fixtures, cli):
    g = os.path.join(fixtures, "gemm_fwd")
    A, B, T = (np.load(os.path.join(g, f)) for f in ("A.npy", "B.npy", "C_trunc.npy"))
    r = tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": T}, model={"accumulation": "fp32_faithful"})
    assert r.passed and r.raw["model_overrides"] == {"accumulation": "fp32_faithful"}
    rc, cj, _, _ = cli.check(g, "gemm_fwd", "--input", "A=A.npy", "--input", "B=B.npy", "--output", "C=C_trunc.npy",
                             "--model", "accumulation=fp32_faithful")
    assert without_sources(r.to_json()) == without_sources(cj)
    d = os.path.join(fixtures, "gelu_fwd")
    x, y = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "y.npy"))
    r = tolproof.check("gelu_fwd", inputs={"x": x}, outputs={"y": y}, model={"tanhf_ulp": {"cuda": 4}})
    assert r.passed and r.raw["model_overrides"] == {"tanhf_ulp.cuda": 4}
    e = os.path.join(fixtures, "embedding_fwd")
    idx, W, out0, zeros = (np.load(os.path.join(e, f)) for f in ("idx_oor.npy", "W.npy", "out_oor0.npy", "zeros.npy"))
    r = tolproof.check("embedding_fwd", inputs={"idx": idx, "W": W}, outputs={"out": out0}, initial={"out": zeros})
    assert r.passed and "outputs.initial_from_memory" in [s.id for s in r.evidence]
    r = tolproof.check("embedding_fwd", inputs={"idx": idx, "W": W}, outputs={"out": out0})
    assert not r.passed  # the contract's init is not zeros
    idx64 = np.load(os.path.join(e, "idx.npy"))
    assert idx64.dtype == np.int64
    r = tolproof.check("embedding_fwd", inputs={"idx": idx64, "W": W}, outputs={"out": np.load(os.path.join(e, "out.npy"))})
    assert r.passed and r.raw["inputs"]["idx"]["converted"] == "<i8 narrowed to i32 (every value fits)"
    b = os.path.join(fixtures, "embedding_bwd")
    idx, gout, gW = (np.load(os.path.join(b, f)) for f in ("idx.npy", "gout.npy", "gW.npy"))
    assert tolproof.check("embedding_bwd", inputs={"idx": idx, "gout": gout}, outputs={"gW": gW}, dims={"V": 20}).passed
    assert not tolproof.check("embedding_bwd_pilot", inputs={"idx": idx, "gout": gout}, outputs={"gW": gW}).passed
    lf = os.path.join(fixtures, "layernorm_fwd")
    ln = {k: np.load(os.path.join(lf, k + ".npy")) for k in ("x", "gamma", "beta", "y")}
    r = tolproof.check("layernorm_fwd", inputs={k: ln[k] for k in ("x", "gamma", "beta")}, outputs={"y": ln["y"]})
    assert r.passed and r.outputs_not_given == ["mean", "rstd"]
    assert [s.id for s in r.non_claims][-2:] == ["nonclaim.output_not_checked"] * 2


def test_contract_by_plan_path(fixtures):
    d = os.path.join(fixtures, "gelu_fwd")
    x, y = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "y.npy"))
    plan = os.path.join(ROOT, "build", "gen", "gelu_fwd.plan.json")
    assert tolproof.check(plan, inputs={"x": x}, outputs={"y": y}).passed
    assert "gemm_fwd" in tolproof.contracts()
    assert os.path.samefile(tolproof.plans_dir(), os.path.join(ROOT, "build", "gen"))


# Error paths: (contract, fixture dir, --input/--output/... args as files,
# the same as arrays where they are arrays, model, dims, backend). The
# message must be the command's line, with the file's path replaced by
# "numpy.ndarray" where the API was given an array.
ERRORS = [
    ("missing_input", "gemm_fwd", {"input": {"A": "A.npy"}, "output": {"C": "C.npy"}}, {}),
    ("no_output", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}}, {}),
    ("unknown_tensor", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"D": "C.npy"}}, {}),
    ("input_is_output", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy", "C": "C.npy"}, "output": {"C": "C.npy"}}, {}),
    ("output_is_input", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"A": "C.npy"}}, {}),
    ("dtype_f8", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "bad_f8.npy"}}, {}),
    ("big_endian", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "bad_bigendian.npy"}}, {}),
    ("dtype_f32", "gemm_fwd", {"input": {"A": "../layernorm_fwd/mean.npy", "B": "B.npy"}, "output": {"C": "C.npy"}}, {}),
    ("rank", "gemm_fwd", {"input": {"A": "A.npy", "B": "../gelu_fwd/x.npy"}, "output": {"C": "C.npy"}}, {}),
    ("shape", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "bad_shape.npy"}}, {}),
    ("swapped", "gemm_fwd", {"input": {"A": "B.npy", "B": "A.npy"}, "output": {"C": "C.npy"}}, {}),
    ("object", "gemm_fwd", {"input": {"A": "../object.npy", "B": "B.npy"}, "output": {"C": "C.npy"}}, {}),
    ("model_key", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "C.npy"}},
     {"model": {"acumulation": "fp32"}}),
    ("model_value", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "C.npy"}},
     {"model": {"accumulation": "fp64"}}),
    ("model_nested", "gemm_fwd", {"input": {"A": "A.npy", "B": "B.npy"}, "output": {"C": "C.npy"}},
     {"model": {"accumulation": {"x": 1}}}),
    ("requirement", "gemm_bwd_a", {"input": {"gC": "gC33.npy", "B": "B.npy"}, "output": {"gA": "gA33.npy"}}, {}),
    ("i64_too_big", "embedding_fwd", {"input": {"idx": "idx_big.npy", "W": "W.npy"}, "output": {"out": "out.npy"}}, {}),
    ("vocabulary", "embedding_bwd", {"input": {"idx": "idx_vocab.npy", "gout": "gout.npy"}, "output": {"gW": "gW.npy"}}, {}),
    ("dim_conflict", "embedding_bwd", {"input": {"idx": "idx.npy", "gout": "gout.npy"}, "output": {"gW": "gW.npy"}},
     {"dims": {"V": 21}}),
    ("dim_unknown", "embedding_bwd", {"input": {"idx": "idx.npy", "gout": "gout.npy"}, "output": {"gW": "gW.npy"}},
     {"dims": {"Q": 21}}),
    ("dim_syntax", "embedding_bwd", {"input": {"idx": "idx.npy", "gout": "gout.npy"}, "output": {"gW": "gW.npy"}},
     {"dims": {"V": "x"}}),
    ("initial_without_output", "embedding_fwd",
     {"input": {"idx": "idx_oor.npy", "W": "W.npy"}, "output": {}, "initial": {"out": "zeros.npy"}}, {}),
    ("hip_backend", "gelu_fwd", {"input": {"x": "x.npy"}, "output": {"y": "y.npy"}}, {"backend": "hip"}),
    ("unknown_contract", "gemm_fwd", {"input": {"A": "A.npy"}}, {"contract": "no_such_contract"}),
]


def cli_words(given, extra):
    words = cli_args({k: v for k, v in given.items()})
    for kv in tolproof._model_args(extra.get("model")):  # a nested dict is KEY.SUB=VALUE, as on the command line
        words += ["--model", kv]
    for k, v in extra.get("dims", {}).items():
        words += ["--dim", "%s=%s" % (k, v)]
    if "backend" in extra:
        words += ["--backend", extra["backend"]]
    return words


@pytest.mark.parametrize("case", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_paths(fixtures, cli, case):
    _, contract, given, extra = case
    given = {"input": {}, "output": {}, "initial": {}, **given}
    d = os.path.join(fixtures, contract)
    name = extra.get("contract", contract)
    rc, cli_json, _, stderr = cli.check(d, name, *cli_words(given, extra))
    assert rc == 2, stderr
    line = stderr.strip()
    assert line.startswith("tolproof check: ") and "\n" not in line
    message = line[len("tolproof check: "):]
    kw = dict(model=extra.get("model"), dims=extra.get("dims"), backend=extra.get("backend", "cuda"))
    # as paths: the command's message and refusal JSON, byte for byte
    cwd = os.getcwd()
    os.chdir(d)
    try:
        with pytest.raises(tolproof.ContractError) as e:
            tolproof.check(name, inputs=given["input"], outputs=given["output"], initial=given["initial"], **kw)
    finally:
        os.chdir(cwd)
    assert str(e.value) == message and e.value.json == cli_json
    assert json.loads(e.value.json)["verdict"] == "refused"
    # as arrays: the same message, the array named where the command names the file
    arrays = {k: {n: np.load(os.path.join(d, p), allow_pickle=True) for n, p in g.items()} for k, g in given.items()}
    with pytest.raises(tolproof.ContractError) as e:
        tolproof.check(name, inputs=arrays["input"], outputs=arrays["output"], initial=arrays["initial"], **kw)
    expected = message
    for g in given.values():
        for p in g.values():
            expected = expected.replace(p, "numpy.ndarray")
    assert str(e.value) == expected


def test_errors_of_memory_only(fixtures):
    d = os.path.join(fixtures, "gemm_fwd")
    A, B, C = (np.load(os.path.join(d, f)) for f in ("A.npy", "B.npy", "C.npy"))
    with pytest.raises(tolproof.ContractError, match=r"^output C: numpy.ndarray has 5 dimensions \(at most 4"):
        tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C.reshape(1, 1, 1, 48, 40)})
    with pytest.raises(tolproof.ContractError, match=r"^input A: numpy.ndarray: A\[3, 5\] = inf: op gemm's model"):
        a = A.copy()
        a[3, 5] = np.inf
        tolproof.check("gemm_fwd", inputs={"A": a, "B": B}, outputs={"C": C})
    with pytest.raises(tolproof.ContractError, match="^input A: numpy.ndarray: dtype '<u2' is not supported"):
        tolproof.check("gemm_fwd", inputs={"A": A.view(np.uint16), "B": B}, outputs={"C": C})
    with pytest.raises(tolproof.ContractError, match="^--backend cpu: expected cuda or hip$"):
        tolproof.check("gemm_fwd", inputs={"A": A, "B": B}, outputs={"C": C}, backend="cpu")
    with pytest.raises(TypeError, match="is not an array"):
        tolproof.check("gemm_fwd", inputs={"A": [[1.0]], "B": B}, outputs={"C": C})
    assert issubclass(tolproof.ContractError, ValueError)


def test_gemm_sums_on_the_device(fixtures, monkeypatch):
    """device=True: op gemm's exact sums from the GPU exact provider, as
    `tolproof check --device` (here build/tests/libtp_gemm_emulated.so runs
    the GPU's arithmetic on the host, and its element check where its sums
    are): the CPU path's result plus exact_provider for C, C.abs_sum and
    C.element_check; device=False goes back to the CPU
    path; a missing library is DeviceError, and the CPU path stays usable."""
    d = os.path.join(fixtures, "gemm_fwd")
    A, B, C = (np.load(os.path.join(d, f)) for f in ("A.npy", "B.npy", "C.npy"))
    args = dict(inputs={"A": A, "B": B}, outputs={"C": C})
    cpu = tolproof.check("gemm_fwd", **args)
    monkeypatch.setenv("TP_GEMM_CUDA_LIB", os.path.join(ROOT, "build", "tests", "libtp_gemm_emulated.so"))
    dev = tolproof.check("gemm_fwd", device=True, **args)
    raw = dict(dev.raw)
    xp = raw.pop("exact_provider")
    assert sorted(xp) == ["C", "C.abs_sum", "C.element_check"], xp
    for x in xp.values():
        assert x["provider"] == "emulated" and x["elements"] == C.size, x
        assert x["cross_check"]["sampled"] == min(C.size, 1004) and x["cross_check"]["disagreements"] == 0, x
    assert raw == cpu.raw
    assert "exact_provider" not in tolproof.check("gemm_fwd", **args).raw
    monkeypatch.setenv("TP_GEMM_CUDA_LIB", "/nonexistent/libtp_gemm_cuda.so")
    with pytest.raises(tolproof.DeviceError, match="^--device: cannot load the GPU exact provider /nonexistent/"):
        tolproof.check("gemm_fwd", device=True, **args)
    assert "exact_provider" not in tolproof.check("gemm_fwd", **args).raw
    assert issubclass(tolproof.DeviceError, RuntimeError)


def test_library_exports_only_the_api():
    """build/libtolproof.so exports tolproof_* only (api/tolproof.map) and
    needs no shared library beyond these (MPFI and OpenSSL are linked in):
    what a GPU host without Debian's packages must provide."""
    import subprocess

    lib = os.path.join(ROOT, "build", "libtolproof.so")
    syms = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = sorted(line.split()[-1].split("@")[0] for line in syms.splitlines() if line.split()[1] in "TDBR")
    assert names == ["tolproof_api_version", "tolproof_check", "tolproof_free", "tolproof_gpu_exact",
                     "tolproof_plans_dir"], names
    dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
    needed = sorted(line.split("[")[1].rstrip("]") for line in dyn.splitlines() if "(NEEDED)" in line)
    # ld-linux: glibc's dynamic loader (its __tls_get_addr serves the
    # thread-local memo of oracles/generic/ew_admit.c), part of libc itself
    allowed = {"libc.so.6", "libm.so.6", "libmpfr.so.6", "libgmp.so.10", "libjansson.so.4", "libgomp.so.1",
               "ld-linux-x86-64.so.2"}
    assert set(needed) <= allowed, needed


@pytest.mark.parametrize("value", ["1", "0", None])
def test_timings_on_stderr_when_asked(fixtures, value):
    """TOLPROOF_TIMINGS=1 writes the call's phases to stderr (file
    descriptor 2, from C: a child process catches them); 0 or unset, none."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, tolproof\n"
            "d = sys.argv[1]\n"
            "r = tolproof.check('gelu_fwd', inputs={'x': np.load(d + '/x.npy')}, outputs={'y': np.load(d + '/y.npy')})\n"
            "assert r.passed\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("TOLPROOF_TIMINGS", None)
    if value is not None:
        env["TOLPROOF_TIMINGS"] = value
    p = subprocess.run([sys.executable, "-c", code, os.path.join(str(fixtures), "gelu_fwd")], env=env,
                       capture_output=True, text=True, check=True)
    lines = p.stderr.splitlines()
    if value == "1":
        assert any(x.startswith("tolproof: timing: whole tolproof_check call: ") for x in lines), p.stderr
        assert any(x.startswith("tolproof: timing: case built") for x in lines), p.stderr
    else:
        assert not any(x.startswith("tolproof: timing: ") for x in lines), p.stderr
