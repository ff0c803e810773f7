"""A program's float64 reference and the comparisons every cell of the matrix makes.

`Reference` holds f's value and its central-difference gradient at the program's point (or raises
ValueError where there is none: a kink, a tie, unstable differences); a cell compares a
transformation's answer with it (`first_order`, `check_value`) and raises `Wrong` when they disagree.
The cells themselves are in base_cells.py and the modules cell_table.py lists.
"""

from __future__ import annotations

import contextlib
import copy
import warnings

import numpy as np

from . import leaves
from .corpus import Program

OK, REFUSED, CRASH, WRONG, NA = "ok", "refused", "crash", "WRONG", "n/a"


class Wrong(Exception):
    """A transformation's answer disagrees with the reference."""


@contextlib.contextmanager
def quiet():
    """No warnings and no floating-point error reports (a cell judges answers, not warnings)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class Reference:
    """f's value and central-difference gradient at the program's point."""

    def __init__(self, p: Program):
        self.p = p
        self.arg = p.args[p.wrt]
        self.x = leaves.vector(self.arg)
        if not self.x.size:
            raise ValueError("the parameter holds no number to differentiate")
        self.value = self.f_at(self.x)
        # what f itself returns (computed in float32 for float32 arguments): the values are compared with it
        self.own_value = p.func(*copy.deepcopy(p.args))
        if not (np.ndim(self.value) == 0 and np.isfinite(float(self.value))):
            raise ValueError("f's value is not a finite number here")
        self.grad = self.difference(self.f_at, 1e-6)[0]
        rough = self.difference(self.f_at, 1e-5)[0]
        if not np.all(np.isfinite(self.grad)) or not leaves.agree(self.grad, rough, 1e-4, 1e-5):
            raise ValueError("central differences are unstable here (a kink or a switch of branch nearby)")
        if not self.smooth(1e-5):
            raise ValueError("one-sided differences disagree here (a kink or a tie: no derivative to compare with)")
        self.v = np.random.default_rng(len(self.x)).normal(size=self.x.shape)

    def args_with(self, x: np.ndarray) -> list:
        # float64 copies of float32 arguments: the differences must not vanish in rounding
        args = [leaves.widened(a) for a in copy.deepcopy(list(self.p.args))]
        args[self.p.wrt] = leaves.with_vector(args[self.p.wrt], x)
        return args

    def f_at(self, x):
        return self.p.func(*self.args_with(x))

    def smooth(self, eps: float) -> bool:
        """Whether f's one-sided differences agree along every coordinate (no kink, no tie)."""
        f0 = float(self.value)
        scale = max(1.0, float(np.max(np.abs(self.grad))) if self.grad.size else 1.0)
        for k in range(self.x.size):
            e = np.zeros_like(self.x)
            e[k] = eps
            bend = abs(float(self.f_at(self.x + e)) + float(self.f_at(self.x - e)) - 2 * f0) / eps
            if not bend <= 1e-2 * scale:  # eps * f'' at a smooth point; O(1) at a kink
                return False
        return True

    def difference(self, fn, eps: float) -> np.ndarray:
        """Central differences of `fn` (of the flat argument, into a flat result) along each
        coordinate: the m×n Jacobian (m = 1 for f itself)."""
        cols = []
        for k in range(self.x.size):
            e = np.zeros_like(self.x)
            e[k] = eps
            cols.append((leaves.vector(fn(self.x + e)) - leaves.vector(fn(self.x - e))) / (2 * eps))
        return np.stack(cols, axis=-1) if cols else np.zeros((1, 0))


def expect(ok: bool, got, want, what: str) -> None:
    """Raise `Wrong` (naming `what` and the largest error) unless `ok`."""
    if not ok:
        raise Wrong(f"{what}: max error {leaves.max_error(got, want):.3g}")


def first_order(ref: Reference, got, what="gradient", scale=1.0) -> None:
    """`got` is `scale` times the reference gradient, shaped as the argument, in real numbers."""
    if leaves.is_complex(got):
        raise Wrong(f"{what}: complex numbers for a real argument")
    shapes = [np.shape(leaf) for leaf in leaves.float_leaves(got)]
    wanted = [np.shape(leaf) for leaf in leaves.float_leaves(ref.arg)]
    if shapes != wanted:
        raise Wrong(f"{what}: shaped {shapes}, the argument {wanted}")
    flat = leaves.vector(got)
    expect(leaves.agree(flat, scale * ref.grad), flat, scale * ref.grad, what)


def check_value(ref: Reference, got) -> None:
    """`got` is f's own value (to a few ulps of float32 for a float32 program)."""
    if leaves.is_complex(got):
        raise Wrong("value: complex numbers for a real function")
    # (float32's value to a few of its ulps: a sum taken in another order, as einsum's, rounds differently)
    single = np.result_type(ref.own_value) == np.float32
    expect(leaves.agree(got, ref.own_value, 5e-7 if single else 1e-9, 1e-12), got, ref.own_value, "value")
