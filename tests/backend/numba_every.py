"""Every transformation of one program under jit="numba", each answer classified (test_numba26.py).

A *cell* is ``grad``, ``value_and_grad``, ``hessian``, ``jvp``, ``vjp``, ``jacobian``, ``tree`` (the
parameter wrapped in a dict) or ``float32`` (float64 arrays made float32), each with ``jit="numba"``.
Each answer is compared with the plain NumPy transformation's and with float64 central differences of
the function (of the plain gradient, for the Hessian): ``ok``; ``refused`` (a `SrcDiffError`; the test
then asks that it names the user's file); ``crash`` (any other exception); ``WRONG``.  The references
never come from the numba code under test.
"""

from __future__ import annotations

import contextlib
import copy
import signal
import warnings

import numpy as np
from transforms import leaves, matrix, trees_wrapped
from transforms.corpus import Program

import srcdiff

CELLS = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "jacobian", "tree", "float32")
HESSIAN_MAX = 12  # larger parameters: a Hessian-vector product


class Wrong(Exception):
    """A numba answer that disagrees with the references."""


class Hang(Exception):
    """No answer within the cell's CPU time: numba's type inference lost (never a right answer)."""


@contextlib.contextmanager
def within(seconds: float):
    """CPU time of this process (every thread), as the matrix limits a cell."""

    def expire(signum, frame):
        raise Hang(f"no answer within {seconds} s of CPU time")

    old = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _args(p: Program, x=None) -> list:
    args = copy.deepcopy(list(p.args))
    if x is not None:
        args[p.wrt] = leaves.with_vector(args[p.wrt], x)
    return args


def _differences(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((leaves.vector(fn(x + e)) - leaves.vector(fn(x - e))) / (2 * eps))
    return np.stack(cols, axis=-1)


def _same(got, numpy_value, numerical, what: str, rtol=1e-6) -> None:
    flat = leaves.vector(got)
    if not leaves.agree(flat, leaves.vector(numpy_value), 1e-9, 1e-11):
        raise Wrong(f"{what}: {leaves.max_error(flat, leaves.vector(numpy_value)):.3g} from NumPy's")
    if numerical is not None and not leaves.agree(flat, numerical, rtol, 1e-6):
        raise Wrong(f"{what}: {leaves.max_error(flat, numerical):.3g} from central differences")


class Case:
    """One program's references: the plain gradient (checked against central differences)."""

    def __init__(self, p: Program):
        self.p = p
        self.arg = p.args[p.wrt]
        self.x = leaves.vector(self.arg)
        self.f_at = lambda x: p.func(*_args(p, x))
        self.grad = srcdiff.grad(p.func, wrt=p.wrt)(*_args(p))
        self.numerical = _differences(self.f_at, self.x)[0]
        if not leaves.agree(leaves.vector(self.grad), self.numerical, 1e-5, 1e-6):
            raise AssertionError(f"{p.name}: the NumPy gradient disagrees with central differences")
        self.v = np.linspace(-0.8, 0.6, self.x.size)

    def tangents(self, v) -> tuple:
        return tuple(leaves.with_vector(self.arg, v) if k == self.p.wrt else None for k in range(len(self.p.args)))


def cell_grad(c: Case):
    _same(srcdiff.grad(c.p.func, wrt=c.p.wrt, jit="numba")(*_args(c.p)), c.grad, c.numerical, "grad")


def cell_value_and_grad(c: Case):
    value, got = srcdiff.value_and_grad(c.p.func, wrt=c.p.wrt, jit="numba")(*_args(c.p))
    if not np.isclose(value, c.p.func(*_args(c.p)), rtol=1e-12, atol=1e-14):
        raise Wrong(f"value {value}, f gives {c.p.func(*_args(c.p))}")
    _same(got, c.grad, c.numerical, "value_and_grad")


def cell_hessian(c: Case):
    plain = srcdiff.grad(c.p.func, wrt=c.p.wrt)
    g_at = lambda x: plain(*_args(c.p, x))  # noqa: E731  the gradient checked in Case
    if c.x.size > HESSIAN_MAX and c.p.wrt == 0:
        got = srcdiff.hvp(
            srcdiff.grad(c.p.func, jit="numba"), *_args(c.p)[:1], leaves.with_vector(c.arg, c.v), *_args(c.p)[1:]
        )
        want = srcdiff.hvp(c.p.func, *_args(c.p)[:1], leaves.with_vector(c.arg, c.v), *_args(c.p)[1:])
        numerical = _differences(g_at, c.x, 1e-5) @ c.v
        _same(got, want, numerical, "hvp", 1e-4)
        return
    got = srcdiff.hessian(c.p.func, wrt=c.p.wrt, jit="numba")(*_args(c.p))
    want = srcdiff.hessian(c.p.func, wrt=c.p.wrt)(*_args(c.p))
    square = lambda h: leaves.square(h, c.arg) if isinstance(c.arg, dict) else np.reshape(h, (c.x.size,) * 2)  # noqa: E731
    _same(square(got), square(want), _differences(g_at, c.x, 1e-5).ravel(), "hessian", 1e-4)


def cell_jvp(c: Case):
    value, tangent = srcdiff.jvp(c.p.func, tuple(_args(c.p)), c.tangents(c.v), jit="numba")
    _, want = srcdiff.jvp(c.p.func, tuple(_args(c.p)), c.tangents(c.v))
    _same(tangent, want, np.array([c.numerical @ c.v]), "jvp")
    if not np.isclose(value, c.p.func(*_args(c.p)), rtol=1e-12, atol=1e-14):
        raise Wrong("jvp's value")


def cell_vjp(c: Case):
    value, pullback = srcdiff.vjp(c.p.func, *_args(c.p), wrt=c.p.wrt, jit="numba")
    for seed in (1.5, -0.5):  # called again: the stacks refilled
        _same(pullback(seed), leaves.with_vector(c.arg, seed * leaves.vector(c.grad)), seed * c.numerical, "vjp")


def cell_jacobian(c: Case):
    got = srcdiff.jacobian(c.p.func, wrt=c.p.wrt, jit="numba")(*_args(c.p))
    _same(got, c.grad, c.numerical, "jacobian")


def cell_tree(c: Case):
    wrapper, key = trees_wrapped.wrapper(c.p)
    args = _args(c.p)
    args[c.p.wrt] = {key: args[c.p.wrt]}
    got = srcdiff.grad(wrapper, wrt=c.p.wrt, jit="numba")(*args)
    if not isinstance(got, dict) or list(got) != [key]:
        raise Wrong(f"the gradient of a dict is {type(got).__name__}")
    _same(got[key], c.grad, c.numerical, "tree")


def cell_float32(c: Case):
    small = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in _args(c.p)]
    if all(a is b for a, b in zip(small, c.p.args)) or not isinstance(small[c.p.wrt], np.ndarray):
        return matrix.NA
    got = srcdiff.grad(c.p.func, wrt=c.p.wrt, jit="numba")(*copy.deepcopy(small))
    want = srcdiff.grad(c.p.func, wrt=c.p.wrt)(*copy.deepcopy(small))
    if got.dtype != want.dtype:
        raise Wrong(f"float32: numba gives {got.dtype}, NumPy {want.dtype}")
    scale = max(1.0, float(np.max(np.abs(c.numerical))))
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5 * scale):
        raise Wrong(f"float32: {leaves.max_error(got, want):.3g} from NumPy's")
    if not np.allclose(leaves.vector(got), c.numerical, rtol=2e-3, atol=2e-3 * scale):
        raise Wrong(f"float32: {leaves.max_error(leaves.vector(got), c.numerical):.3g} from central differences")


FUNCTIONS = {
    "grad": cell_grad,
    "value_and_grad": cell_value_and_grad,
    "hessian": cell_hessian,
    "jvp": cell_jvp,
    "vjp": cell_vjp,
    "jacobian": cell_jacobian,
    "tree": cell_tree,
    "float32": cell_float32,
}


def run_cell(name: str, c: Case, seconds: float = 120) -> matrix.Cell:
    """One cell: ok, n/a, refused (with whether it names the user's file), crash or WRONG."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), within(seconds):
            warnings.simplefilter("ignore")
            found = FUNCTIONS[name](c)
    except Wrong as exc:
        return matrix.Cell(matrix.WRONG, str(exc), str(exc))
    except Hang as exc:
        return matrix.Cell(matrix.CRASH, "hang", str(exc))
    except trees_wrapped.NotWrapped as exc:
        return matrix.Cell(matrix.NA, str(exc))
    except srcdiff.SrcDiffError as exc:
        return matrix.Cell(matrix.REFUSED, matrix.reason_class(str(exc)), str(exc).splitlines()[0], matrix.located(exc))
    except Exception as exc:  # noqa: BLE001  every other exception is a crash
        return matrix.Cell(matrix.CRASH, f"{type(exc).__name__}", f"{type(exc).__name__}: {str(exc)[:300]}")
    return matrix.Cell(found or matrix.OK)


def run(p: Program, cells=CELLS, seconds: float = 120) -> dict:
    """Every cell of `cells` on `p`: name -> matrix.Cell."""
    c = Case(p)
    return {name: run_cell(name, c, seconds) for name in cells}
