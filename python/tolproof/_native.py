"""The C API (api/tolproof.h) through ctypes: build/libtolproof.so, the
objects of `tolproof check` behind six exported functions. Nothing of the
checker is in Python; this module only finds the library and declares its
signatures."""
import ctypes
import os
import threading

API_VERSION = 1  # api/tolproof.h's TOLPROOF_API_VERSION this binding speaks


class Tensor(ctypes.Structure):
    """tolproof_tensor"""
    _fields_ = [
        ("kind", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("dtype", ctypes.c_char_p),
        ("rank", ctypes.c_int),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("data", ctypes.c_void_p),
        ("origin", ctypes.c_char_p),
    ]


def _candidates():
    """Where the library may be, in this order: $TOLPROOF_LIB; the copy a
    `pip install` put in the package (tolproof/_lib/, with the plans in
    tolproof/_lib/gen/); build/ of the repository this package sits in
    (python/tolproof -> build/libtolproof.so)."""
    env = os.environ.get("TOLPROOF_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "_lib", "libtolproof.so")
    yield os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libtolproof.so")


_lib = None
_lock = threading.Lock()  # one check at a time: ctypes releases the GIL during the call


def library():
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            lib = ctypes.CDLL(path)
            break
        tried.append(path)
    else:
        raise ImportError("tolproof: libtolproof.so not found (tried %s); build it with `ninja lib` in the "
                          "repository, or set TOLPROOF_LIB to its path" % ", ".join(tried))
    lib.tolproof_api_version.restype = ctypes.c_int
    lib.tolproof_api_version.argtypes = []
    got = lib.tolproof_api_version()
    if got != API_VERSION:
        raise ImportError("tolproof: %s speaks C API version %d, this package version %d; rebuild one of them"
                          % (path, got, API_VERSION))
    lib.tolproof_plans_dir.restype = ctypes.c_char_p
    lib.tolproof_plans_dir.argtypes = []
    lib.tolproof_free.restype = None
    lib.tolproof_free.argtypes = [ctypes.c_void_p]
    lib.tolproof_gpu_exact.restype = ctypes.c_int
    lib.tolproof_gpu_exact.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.tolproof_check.restype = ctypes.c_int
    lib.tolproof_check.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
        ctypes.POINTER(Tensor), ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
        ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
    ]
    lib.path = path
    _lib = lib
    return lib


def _strings(items):
    arr = (ctypes.c_char_p * max(len(items), 1))(*[s.encode() for s in items])
    return arr, len(items)


class DeviceUnavailable(Exception):
    """tolproof_gpu_exact refused: its one-line reason."""


def check(contract, plans_dir, backend, tensors, model, dims, device=False):
    """tolproof_check: (status, json text, summary text). tensors is a list
    of Tensor structures whose memory the caller keeps alive. device: op
    gemm's exact sums on the GPU (tolproof_gpu_exact), set for this call
    under the same lock; DeviceUnavailable when that is refused."""
    lib = library()
    arr = (Tensor * max(len(tensors), 1))(*tensors)
    m, nm = _strings(model)
    d, nd = _strings(dims)
    js, tx = ctypes.c_void_p(), ctypes.c_void_p()
    with _lock:
        why = ctypes.c_void_p()
        if lib.tolproof_gpu_exact(1 if device else 0, None, ctypes.byref(why)) != 0:
            reason = ctypes.string_at(why.value).decode() if why.value else "tolproof_gpu_exact failed"
            lib.tolproof_free(why)
            raise DeviceUnavailable(reason)
        rc = lib.tolproof_check(contract.encode(), plans_dir.encode() if plans_dir else None,
                                backend.encode() if backend else None, arr, len(tensors), m, nm, d, nd,
                                ctypes.byref(js), ctypes.byref(tx))
    try:
        json_text = ctypes.string_at(js.value).decode() if js.value else None
        text = ctypes.string_at(tx.value).decode() if tx.value else None
    finally:
        lib.tolproof_free(js)
        lib.tolproof_free(tx)
    if rc < 0:
        raise MemoryError("tolproof_check: out of memory")
    return rc, json_text, text


def plans_dir():
    return library().tolproof_plans_dir().decode()
