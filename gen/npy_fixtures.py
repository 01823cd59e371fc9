#!/usr/bin/python3
"""Writes .npy fixtures for tests/check_cmd.t with NumPy (Debian's
python3-numpy), so that `tolproof check` is tested on files written by the
library users write them with, not by tolproof's own writer.

    gen/npy_fixtures.py OUTDIR

For each contract, OUTDIR/CONTRACT/ holds the inputs and outputs as
TENSOR.npy, `check.args` (the arguments of a valid check, one per line,
paths relative to that directory), `expect` (the exit status that check
must give), `out` (the output tensor the bad variants are made from) and
bad_*.npy: that output truncated, as '<f8', big-endian, in Fortran order
(2-D outputs), with one extra column, without a shape in its header, with
trailing bytes; ok_v2.npy and ok_v3.npy are the same output with format
2.0 and 3.0 headers (valid).

The outputs must be ones the contract's model admits. Rounding an exact
(float64) result to fp16 is not that in general, so each output is computed
the way the kernel's model describes it: float32 arithmetic step by step
mirroring the kernel (NumPy float32 operations round to nearest, its sums
are one admitted order), device functions (tanhf, expf, rsqrtf) as the
float64 function rounded to float32, which is within the models' 2 ulp.
"""
import os
import sys

import numpy as np

f16, f32 = np.float16, np.float32
RNG = np.random.default_rng(20240607)


def normal(shape, sigma=1.0, mu=0.0):
    return (mu + sigma * RNG.standard_normal(shape)).astype(f16)


def rn32(x64):
    """A float64 function value rounded to float32: the device function's
    result to within 1 ulp (the models admit 2)."""
    return np.asarray(x64, dtype=np.float64).astype(f32)


def gemm(a16, b16):
    # float32 matmul (BLAS sgemm): an fp32 accumulation in some order,
    # which the contract's order = "any" admits; then one rounding to fp16
    return (a16.astype(f32) @ b16.astype(f32)).astype(f16)


def gemm_truncating(a16, b16):
    """fp32 accumulation whose every add rounds toward zero, as some tensor
    cores do: one of the two fp32 neighbours of the exact sum."""
    a, b = a16.astype(np.float64), b16.astype(np.float64)
    s = np.zeros((a.shape[0], b.shape[1]), dtype=f32)
    for k in range(a.shape[1]):
        exact = s.astype(np.float64) + np.outer(a[:, k], b[k, :])  # exact: few bits
        t = exact.astype(f32)
        over = np.abs(t.astype(np.float64)) > np.abs(exact)
        t[over] = np.nextafter(t[over], f32(0))
        s = t
    return s.astype(f16)


def gelu_parts(x16):
    x = x16.astype(f32)
    c, a = f32(0.7978845608), f32(0.044715)
    x2 = x * x
    x3 = x2 * x
    inner = c * (x + a * x3)
    t = rn32(np.tanh(inner.astype(np.float64)))
    return x, x2, t


def gelu_fwd(x16):
    x, _, t = gelu_parts(x16)
    return (f32(0.5) * x * (f32(1) + t)).astype(f16)


def gelu_bwd(x16, g16):
    x, x2, t = gelu_parts(x16)
    c, k3a = f32(0.7978845608), f32(0.134145)
    dinner = c * (f32(1) + k3a * x2)
    f = f32(0.5) * (f32(1) + t) + f32(0.5) * x * (f32(1) - t * t) * dinner
    return (g16.astype(f32) * f).astype(f16)


def softmax_fwd(x16):
    x = x16.astype(f32)
    m = x.max(axis=1, keepdims=True)
    e = rn32(np.exp((x - m).astype(np.float64)))
    y1 = e.astype(f16)  # the kernel stores e as fp16 and re-reads it
    s = e.sum(axis=1, dtype=f32, keepdims=True)
    inv = f32(1) / s
    return (y1.astype(f32) * inv).astype(f16)


def softmax_correctly_rounded(x16):
    x = x16.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(f16)


def softmax_xent_bwd(s16, g16):
    s, g = s16.astype(f32), g16.astype(f32)
    dot = (g * s).sum(axis=1, dtype=f32, keepdims=True)  # products exact in fp32
    return (s * (g - dot)).astype(f16)


def layernorm_fwd(x16, gamma16, beta16, eps=f32(1e-5)):
    x = x16.astype(f32)
    cols = f32(x.shape[1])
    mu = x.sum(axis=1, dtype=f32, keepdims=True) / cols
    d = x - mu
    var = (d * d).sum(axis=1, dtype=f32, keepdims=True) / cols
    rs = rn32(1.0 / np.sqrt((var + eps).astype(np.float64)))
    y = ((d * rs) * gamma16.astype(f32) + beta16.astype(f32)).astype(f16)
    return y, mu[:, 0].copy(), rs[:, 0].copy()


def layernorm_bwd_input(x16, dy16, gamma16, mean16, rstd16):
    x, dy, gamma = x16.astype(f32), dy16.astype(f32), gamma16.astype(f32)
    m, s = mean16.astype(f32)[:, None], rstd16.astype(f32)[:, None]
    xh = (x - m) * s
    dxh = dy * gamma
    sum1 = dxh.sum(axis=1, dtype=f32, keepdims=True)
    sum2 = (dxh * xh).sum(axis=1, dtype=f32, keepdims=True)
    n = f32(x.shape[1])
    k = s / n
    return (k * ((n * dxh - sum1) - xh * sum2)).astype(f16)


def layernorm_bwd_params(x16, dy16, mean32, rstd32):
    x, dy = x16.astype(f32), dy16.astype(f32)
    xh = (x - mean32[:, None]) * rstd32[:, None]
    return (xh * dy).sum(axis=0, dtype=f32), dy.sum(axis=0, dtype=f32)


def swiglu_fwd(a16, b16):
    """silu(a) * b in fp32, with exp rounded once to fp32 (within the
    contract's 2-ulp expf)."""
    a, b = a16.astype(f32), b16.astype(f32)
    e = np.exp(-a.astype(np.float64)).astype(f32)
    return (a / (f32(1) + e) * b).astype(f16)


def rmsnorm_fwd(x16, w16, eps=f32(1e-6)):
    """y = x * rstd * w in fp32, rstd = rsqrtf(sum(x^2) / cols + eps) with
    the root rounded once to fp32 (within the contract's 2-ulp rsqrtf)."""
    x = x16.astype(f32)
    ss = (x * x).sum(axis=1, dtype=f32, keepdims=True)
    rs = rn32(1.0 / np.sqrt((ss / f32(x.shape[1]) + eps).astype(np.float64)))
    return ((x * rs) * w16.astype(f32)).astype(f16), rs[:, 0].copy()


def gemm_bias_gelu(a16, b16, bias16):
    """gelu_tanh(A @ B + bias) per batch entry: the fp32 matmul (an order the
    contract's order = "any" admits), then the kernel's epilogue in fp32
    steps with tanh rounded once to fp32 (within the contract's 2-ulp
    tanhf)."""
    x = (a16.astype(f32) @ b16.astype(f32)) + bias16.astype(f32)
    inner = f32(0.7978845608) * (x + f32(0.044715) * (x * x * x))
    t = rn32(np.tanh(inner.astype(np.float64)))
    return (f32(0.5) * x * (f32(1) + t)).astype(f16)


def attention_fwd(q16, k16, v16):
    """softmax(Q K^T / sqrt(d)) V and log-sum-exp in float64, rounded once to
    fp16 and fp32: closer to the exact result than the kernel's model needs."""
    q, k, v = (t.astype(np.float64) for t in (q16, k16, v16))
    s = (q @ np.swapaxes(k, -1, -2)) * float(f32(1) / np.sqrt(f32(q.shape[-1])))
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    lse = (m[..., 0] + np.log(e.sum(axis=-1))).astype(f32)
    return ((e / e.sum(axis=-1, keepdims=True)) @ v).astype(f16), lse


def contracts():
    """name -> (tensors in order, args of the valid check, expected status, output for the bad variants)"""
    out = {}

    A, B = normal((48, 64)), normal((64, 40))
    C = gemm(A, B)
    wrong = C.copy()
    wrong[3, 5] = f16(float(wrong[3, 5]) + 0.5)  # far beyond an fp16 rounding of a K=64 dot
    out["gemm_fwd"] = ({"A": A, "B": B, "C": C, "C_wrong": wrong, "C_trunc": gemm_truncating(A, B)},
                       ["--input", "A=A.npy", "--input", "B=B.npy", "--output", "C=C_wrong.npy"], 1, "C")

    gC, Bk = normal((32, 40)), normal((48, 40))
    gC33 = normal((33, 40))  # M = 33: the kernel needs multiples of 16
    out["gemm_bwd_a"] = ({"gC": gC, "B": Bk, "gA": gemm(gC, Bk.T), "gC33": gC33, "gA33": gemm(gC33, Bk.T)},
                         ["--input", "gC=gC.npy", "--input", "B=B.npy", "--output", "gA=gA.npy"], 0, "gA")

    x = normal((1000,), 2.0)
    out["gelu_fwd"] = ({"x": x, "y": gelu_fwd(x)}, ["--input", "x=x.npy", "--output", "y=y.npy"], 0, "y")

    ga, gb = normal((16, 64), 2.0), normal((16, 64))
    out["swiglu_fwd"] = ({"a": ga, "b": gb, "y": swiglu_fwd(ga, gb)},
                         ["--input", "a=a.npy", "--input", "b=b.npy", "--output", "y=y.npy"], 0, "y")

    xb, g = normal((1000,), 2.0), normal((1000,))
    out["gelu_bwd"] = ({"x": xb, "g": g, "gi": gelu_bwd(xb, g)},
                       ["--input", "x=x.npy", "--input", "g=g.npy", "--output", "gi=gi.npy"], 0, "gi")

    xs = normal((8, 100), 3.0)
    # wide logits, and their softmax computed in float64 and rounded once to
    # fp16: more accurate than the contract's double rounding (e stored as
    # fp16, then scaled) admits on the tiniest probabilities
    xw = normal((8, 256), 8.0)
    out["softmax_fwd"] = ({"x": xs, "y": softmax_fwd(xs), "x_wide": xw, "y_wide_cr": softmax_correctly_rounded(xw)},
                          ["--input", "x=x.npy", "--output", "y=y.npy"], 0, "y")

    p = softmax_fwd(normal((8, 100), 2.0))
    gg = normal((8, 100))
    out["softmax_xent_bwd"] = ({"s": p, "g": gg, "gi": softmax_xent_bwd(p, gg)},
                               ["--input", "s=s.npy", "--input", "g=g.npy", "--output", "gi=gi.npy"], 0, "gi")

    V, D, n = 50, 16, 30
    W = normal((V, D))
    idx = RNG.integers(0, V, n)  # int64, NumPy's default: narrowed by tolproof
    idx_oor = idx.copy()
    idx_oor[2] = V + 5
    out_oor = W[np.clip(idx_oor, 0, V - 1)].copy()
    out_oor[2] = f16(7)  # the row the kernel leaves alone keeps the contract's init const(7)
    out_oor0 = out_oor.copy()
    out_oor0[2] = f16(0)
    # W with a NaN (payload 0x101) and a -0, in the rows out[0] and out[1] copy: a copy compares bit patterns
    W_bits = W.copy().view(np.uint16)
    W_bits[idx[0], 1] = 0x7f01
    W_bits[idx[1], 2] = 0x8000
    W_special = W_bits.view(f16)
    out_special = W_special[idx]  # fancy indexing copies the patterns
    out_payload = out_special.copy()
    out_payload.view(np.uint16)[0, 1] = 0x7e00  # the NaN's payload changed
    out_plus0 = out_special.copy()
    out_plus0.view(np.uint16)[1, 2] = 0x0000  # -0 written as +0
    out["embedding_fwd"] = ({"idx": idx, "idx_i4": idx.astype(np.int32), "idx_big": np.where(
        np.arange(n) == 4, np.int64(1) << 33, idx), "idx_oor": idx_oor, "W": W, "out": W[idx],
        "out_oor": out_oor, "out_oor0": out_oor0, "zeros": np.zeros((n, D), dtype=f16),
        "W_special": W_special, "out_special": out_special, "out_payload": out_payload, "out_plus0": out_plus0},
        ["--input", "idx=idx.npy", "--input", "W=W.npy", "--output", "out=out.npy"], 0, "out")

    Vb, Db, nb = 20, 8, 60
    idxb = RNG.integers(0, Vb, nb).astype(np.int32)
    gout = normal((nb, Db))
    gW = np.zeros((Vb, Db), dtype=f16)
    np.add.at(gW, idxb, gout)  # float16 adds: RN16(RN32(a + b)), one order: the kernel's model
    idx_vocab = idxb.copy()
    idx_vocab[7] = Vb
    out["embedding_bwd"] = ({"idx": idxb, "idx_vocab": idx_vocab, "gout": gout, "gW": gW},
                            ["--input", "idx=idx.npy", "--input", "gout=gout.npy", "--output", "gW=gW.npy"], 0, "gW")

    xl, gamma, beta = normal((16, 64), 2.0, 1.0), normal((64,)), normal((64,), 0.5)
    y, mu, rs = layernorm_fwd(xl, gamma, beta)
    out["layernorm_fwd"] = ({"x": xl, "gamma": gamma, "beta": beta, "y": y, "mean": mu, "rstd": rs},
                            ["--input", "x=x.npy", "--input", "gamma=gamma.npy", "--input", "beta=beta.npy",
                             "--output", "y=y.npy", "--output", "mean=mean.npy", "--output", "rstd=rstd.npy"], 0, "y")

    dy = normal((16, 64))
    mean16, rstd16 = mu.astype(f16), rs.astype(f16)
    out["layernorm_bwd_input"] = (
        {"x": xl, "dy": dy, "gamma": gamma, "mean": mean16, "rstd": rstd16,
         "dx": layernorm_bwd_input(xl, dy, gamma, mean16, rstd16)},
        ["--input", "x=x.npy", "--input", "dy=dy.npy", "--input", "gamma=gamma.npy", "--input", "mean=mean.npy",
         "--input", "rstd=rstd.npy", "--output", "dx=dx.npy"], 0, "dx")

    # the forward pass's fp32 statistics, as the pilot passes them
    dgamma, dbeta = layernorm_bwd_params(xl, dy, mu, rs)
    out["layernorm_bwd_params"] = (
        {"x": xl, "dy": dy, "mean": mu, "rstd": rs, "dgamma": dgamma, "dbeta": dbeta},
        ["--input", "x=x.npy", "--input", "dy=dy.npy", "--input", "mean=mean.npy", "--input", "rstd=rstd.npy",
         "--output", "dgamma=dgamma.npy", "--output", "dbeta=dbeta.npy"], 0, "dgamma")
    # last: draws after every older fixture's, which keep their values
    xr, wr = normal((16, 96), 2.0), normal((96,), 0.25, 1.0)
    yr, rsr = rmsnorm_fwd(xr, wr)
    out["rmsnorm_fwd"] = ({"x": xr, "w": wr, "y": yr, "rstd": rsr},
                          ["--input", "x=x.npy", "--input", "w=w.npy", "--output", "y=y.npy", "--output",
                           "rstd=rstd.npy"], 0, "y")
    # after rmsnorm_fwd's draws, which keep their values
    Ag, Bg, bg = normal((2, 8, 32)), normal((32, 24), 0.2), normal((24,), 0.5)
    out["gemm_bias_gelu"] = ({"A": Ag, "B": Bg, "bias": bg, "C": gemm_bias_gelu(Ag, Bg, bg)},
                             ["--input", "A=A.npy", "--input", "B=B.npy", "--input", "bias=bias.npy", "--output",
                              "C=C.npy"], 0, "C")

    # after gemm_bias_gelu's draws, which keep their values
    Qa, Ka, Va = normal((1, 2, 16, 64)), normal((1, 2, 24, 64)), normal((1, 2, 24, 64))
    Oa, lsea = attention_fwd(Qa, Ka, Va)
    out["attention_fwd"] = ({"Q": Qa, "K": Ka, "V": Va, "O": Oa, "lse": lsea},
                            ["--input", "Q=Q.npy", "--input", "K=K.npy", "--input", "V=V.npy", "--output", "O=O.npy",
                             "--output", "lse=lse.npy"], 0, "O")

    return out


def write_bad(d, a):
    """The bad variants of one output array a, and two valid re-encodings."""
    path = os.path.join(d, "ok.npy")
    np.save(path, a)
    raw = open(path, "rb").read()
    with open(os.path.join(d, "bad_truncated.npy"), "wb") as f:
        f.write(raw[:-10])
    with open(os.path.join(d, "bad_trailing.npy"), "wb") as f:
        f.write(raw + b"\0\0\0\0")
    # the header with its 'shape' key renamed (same length, so still aligned):
    # a key NumPy does not write, and no shape
    with open(os.path.join(d, "bad_noshape.npy"), "wb") as f:
        f.write(raw.replace(b"'shape'", b"'shapf'", 1))
    np.save(os.path.join(d, "bad_f8.npy"), a.astype(np.float64))
    np.save(os.path.join(d, "bad_bigendian.npy"), a.astype(a.dtype.newbyteorder(">")))
    if a.ndim == 2:
        np.save(os.path.join(d, "bad_fortran.npy"), np.asfortranarray(a))
    # one extra column: the last extent of every output here is also an
    # input's, so the dims conflict
    np.save(os.path.join(d, "bad_shape.npy"), np.concatenate([a, a[..., :1]], axis=-1))
    for v in (2, 3):
        with open(os.path.join(d, "ok_v%d.npy" % v), "wb") as f:
            np.lib.format.write_array(f, a, version=(v, 0))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen/npy_fixtures.py OUTDIR")
    root = sys.argv[1]
    for name, (tensors, args, expect, bad_from) in contracts().items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for t, a in tensors.items():
            np.save(os.path.join(d, t + ".npy"), a)
        with open(os.path.join(d, "check.args"), "w") as f:
            f.write("\n".join(args) + "\n")
        with open(os.path.join(d, "expect"), "w") as f:
            f.write("%d\n" % expect)
        with open(os.path.join(d, "out"), "w") as f:
            f.write(bad_from + "\n")
        write_bad(d, tensors[bad_from])
    # an object array (np.save pickles it)
    np.save(os.path.join(root, "object.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)


if __name__ == "__main__":
    main()
