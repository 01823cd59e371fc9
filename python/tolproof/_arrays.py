"""What tolproof.check accepts as a tensor, made into the C API's
tolproof_tensor: a .npy path (read by the C side, as the command reads
it), a NumPy array, a PyTorch tensor on any device (copied to the host in
the call; torch is imported only when such a tensor is given), anything
with __array__, or a host DLPack capsule owner (__dlpack__). The dtype is
passed as NumPy's dtype string and judged by the C side, so a wrong one is
refused with the command's words."""
import ctypes
import os
import sys

import numpy as np

from . import _native


def _is_torch_tensor(x):
    mod = type(x).__module__ or ""
    if mod.split(".")[0] != "torch" or "torch" not in sys.modules:
        return False
    import torch

    return isinstance(x, torch.Tensor)


def _from_torch(x):
    """A host copy of a torch tensor, and what the result calls it.
    bfloat16 has no NumPy dtype: its bit patterns travel as '<V2', the
    dtype tolproof's .npy files use for it. A CUDA tensor is copied into
    page-locked memory from PyTorch's caching host allocator: into fresh
    pageable memory the copy took 0.091 s for a 4096^3 GEMM's three
    tensors on an H100 host, most of a 0.203 s check (the C call: 0.113 s;
    scripts/bench_gemm_check.py --api --timings)."""
    import torch

    t = x.detach()
    origin = "torch.Tensor (%s)" % t.device
    if t.is_cuda:
        host = torch.empty(t.shape, dtype=t.dtype, pin_memory=True)
        host.copy_(t)  # synchronous: the data is on the host when it returns
    else:
        host = t.to("cpu").contiguous()
    if host.dtype == torch.bfloat16:
        return host.view(torch.int16).numpy().view("V2"), origin
    return host.numpy(), origin


def host_array(x):
    """(numpy array in C order, origin) for anything check accepts but a path."""
    if isinstance(x, np.ndarray):
        arr, origin = x, "numpy.ndarray"
    elif _is_torch_tensor(x):
        arr, origin = _from_torch(x)
    elif hasattr(x, "__array__"):
        arr, origin = np.asarray(x), "%s.%s" % (type(x).__module__, type(x).__qualname__)
    elif hasattr(x, "__dlpack__"):
        try:
            arr = np.from_dlpack(x)
        except (RuntimeError, TypeError, BufferError) as e:
            raise TypeError("%s.%s: NumPy cannot take it through DLPack (%s); pass a host array"
                            % (type(x).__module__, type(x).__qualname__, e)) from None
        origin = "%s.%s (DLPack)" % (type(x).__module__, type(x).__qualname__)
    else:
        raise TypeError("%r is not an array: expected a NumPy array, a PyTorch tensor, an object with "
                        "__array__ or __dlpack__, or the path of a .npy file" % type(x).__name__)
    # C order is a copy away for an array in memory (a .npy file in Fortran
    # order is refused instead: the file is what is wrong there)
    return np.ascontiguousarray(arr), origin


class Tensors:
    """The tolproof_tensor list of one call, keeping every buffer it points
    to alive until the call returns."""

    def __init__(self):
        self.structs = []
        self._keep = []

    def add(self, kind, name, value):
        if not isinstance(name, str):
            raise TypeError("%s tensor names are strings, got %r" % (kind, name))
        t = _native.Tensor()
        t.kind, t.name = kind.encode(), name.encode()
        if isinstance(value, (str, os.PathLike)):
            t.path = os.fsencode(value)
        else:
            arr, origin = host_array(value)
            shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
            t.dtype = arr.dtype.str.encode()
            t.rank = arr.ndim
            t.shape = shape
            t.data = arr.ctypes.data if arr.size else None  # an object array is refused by its dtype before any read
            t.origin = origin.encode()
            self._keep += [arr, shape]
        self.structs.append(t)
