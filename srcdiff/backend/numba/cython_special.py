"""SciPy's special functions numba calls in SciPy's own compiled code: the Bessel functions,
the incomplete gamma functions and their inverses, ``erfinv``/``erfcinv``.

``scipy.special.cython_special`` exports each as a C function of doubles (with one trailing
``int`` flag Cython adds, passed 0); numba calls it as an external function.  The function's
address is given to LLVM under a name of srcdiff's own (``srcdiff_scipy_j0``) when its kernel
is made, so the compiled code refers to the name, not the address: numba's on-disk cache
stays valid in a new process, which registers the name again before loading the code
(special.prepare).  The values are SciPy's own,
bit for bit; special.py applies them to every element, as it does its other kernels.

A function this SciPy does not export is left out (its calls are then refused at the user's
line, as before).

A kernel is made when a gradient that calls it is typed, or loaded from numba's cache
(`kernel`), not when this module is imported: a program that calls none imports no
``scipy.special``.
"""

from __future__ import annotations

import functools

import llvmlite.binding as llvm
from numba import types
from numba.extending import get_cython_function_address

from .naming import compiled

#: SciPy's name -> (the name cython_special exports the double version under, arity)
EXPORTS = {
    "i0": ("i0", 1), "i0e": ("i0e", 1), "i1": ("i1", 1), "i1e": ("i1e", 1),
    "j0": ("j0", 1), "j1": ("j1", 1), "y0": ("y0", 1), "y1": ("y1", 1),
    "k0": ("k0", 1), "k0e": ("k0e", 1), "k1": ("k1", 1), "k1e": ("k1e", 1),
    "erfinv": ("__pyx_fuse_0erfinv", 1), "erfcinv": ("erfcinv", 1), "erfcx": ("__pyx_fuse_1erfcx", 1),
    "gammainc": ("gammainc", 2), "gammaincc": ("gammaincc", 2),
    "gammaincinv": ("gammaincinv", 2), "gammainccinv": ("gammainccinv", 2),
    "iv": ("__pyx_fuse_1iv", 2), "ive": ("__pyx_fuse_1ive", 2), "jv": ("__pyx_fuse_1jv", 2),
    "jve": ("__pyx_fuse_1jve", 2), "yv": ("__pyx_fuse_1yv", 2), "yve": ("__pyx_fuse_1yve", 2),
    "kv": ("__pyx_fuse_1kv", 2), "kve": ("__pyx_fuse_1kve", 2), "yn": ("__pyx_fuse_0yn", 2),
    "stdtr": ("__pyx_fuse_0stdtr", 2),
}


def _external(name: str, exported: str, arity: int):
    """numba's external function for cython_special's `exported`, or None if SciPy lacks it."""
    try:
        address = get_cython_function_address("scipy.special.cython_special", exported)
    except (ValueError, ImportError, AttributeError):
        return None
    symbol = f"srcdiff_scipy_{name}"
    llvm.add_symbol(symbol, address)
    return types.ExternalFunction(symbol, types.float64(*([types.float64] * arity), types.intc))


def _unary(external):
    def kernel(x):  # (not cached on its own: the gradient's module that calls it is)
        return external(x, 0)
    return compiled(kernel)  # one name per SciPy function (naming.py)


def _binary(external):
    def kernel(x, y):
        return external(x, y, 0)
    return compiled(kernel)


@functools.cache  # (once a process: the name is registered once)
def kernel(name: str):
    """The kernel numba compiles for SciPy's `name` (a key of `EXPORTS`), or None if this
    SciPy lacks it.  Made once a process: its address is then registered under srcdiff's
    name, which compiled code loaded from numba's cache refers to."""
    exported, arity = EXPORTS[name]
    external = _external(name, exported, arity)
    return None if external is None else (_unary if arity == 1 else _binary)(external)
