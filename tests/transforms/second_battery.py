"""Every second-order transformation of one function at one point, against float64 differences.

`assert_second_order(f, args)` differentiates `f` twice with respect to its first parameter
(a float or a float array) every way srcdiff offers: `hessian`, `hvp`, ``jvp(grad(f))``,
``vjp(grad(f))``, ``jacobian(grad(f))``, ``grad(grad(f))`` for a float, float32 arguments, a
call with the parameter wrapped in a dict, and ``hvp`` of a ``jit="numba"`` gradient (which
may refuse, at the user's line).  The reference is second-order central differences of `f`
itself (tests/numeric.py), never srcdiff's own code.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, matrix

RTOL, ATOL = 1e-5, 1e-6


def _close(got, want, what: str, rtol=RTOL, atol=ATOL) -> None:
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=rtol, atol=atol, err_msg=what)


def reference(f, args) -> np.ndarray:
    """Second differences of `f` in its first parameter, shaped ``x.shape + x.shape``."""
    return hessian_difference(f, copy.deepcopy(args))


def assert_second_order(f, args, *, numba: bool = True, float32: bool = True) -> None:
    """Every second-order transformation of `f` at `args` agrees with `reference`."""
    args = tuple(args)
    x = args[0]
    rest = args[1:]
    H = reference(f, args)
    n = int(np.size(x))
    flat = H.reshape(n, n)
    v = np.linspace(0.3, -0.7, n).reshape(np.shape(x)) if np.ndim(x) else 0.6
    u = np.linspace(-0.4, 0.9, n).reshape(np.shape(x)) if np.ndim(x) else -1.3
    Hv = (flat @ np.ravel(v)).reshape(np.shape(x))
    uH = (np.ravel(u) @ flat).reshape(np.shape(x))
    gradient = srcdiff.grad(f)
    _close(gradient(*copy.deepcopy(args)), central_difference(f, copy.deepcopy(args), 0), "grad", 1e-6, 1e-8)
    _close(srcdiff.hessian(f)(*copy.deepcopy(args)), H, "hessian")
    _close(srcdiff.hvp(f, x, v, *copy.deepcopy(rest)), Hv, "hvp")
    _close(srcdiff.jvp(gradient, copy.deepcopy(args), (v,) + (None,) * len(rest))[1], Hv, "jvp(grad)")
    _close(srcdiff.vjp(gradient, *copy.deepcopy(args))[1](u), uH, "vjp(grad)")
    _close(srcdiff.jacobian(gradient)(*copy.deepcopy(args)), H, "jacobian(grad)")
    if np.ndim(x) == 0:
        _close(srcdiff.grad(gradient)(*copy.deepcopy(args)), H, "grad(grad)")

    def wrapped(tree, *more):
        return f(tree["x"], *more)
    got = srcdiff.hessian(wrapped)({"x": x}, *copy.deepcopy(rest))
    assert isinstance(got, dict) and list(got) == ["x"] and list(got["x"]) == ["x"], got
    _close(got["x"]["x"], H, "hessian of a dict")
    if float32 and np.ndim(x):
        low = srcdiff.hessian(f)(np.asarray(x, dtype=np.float32), *copy.deepcopy(rest))
        assert low.dtype == np.float32, low.dtype
        _close(low, H, "float32 hessian", 2e-3, 2e-3 * max(1.0, float(np.max(np.abs(H)))))
    if numba and np.ndim(x):
        try:
            got = srcdiff.hvp(srcdiff.grad(f, jit="numba"), x, v, *copy.deepcopy(rest))
        except srcdiff.SrcDiffError as exc:
            assert matrix.located(exc), str(exc)
        else:
            _close(got, Hv, "hvp of a numba gradient")


def programs(table, prefix: str, seed: int) -> list:
    """The `corpus.Program` of each ``(name, func, make_args(rng))`` row, differentiated in parameter 0."""
    return corpus.from_table([(n, f, m, 0) for n, f, m in table], prefix, "second9_programs", seed)


def name(p) -> str:
    return p.name.partition(":")[2]


def sampled(programs: list) -> list:
    """The first program in the default run, the others under the slow mark (numba compiles, sympy)."""
    return [p if i == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


__all__ = ["ATOL", "RTOL", "assert_second_order", "name", "programs", "reference", "sampled"]
