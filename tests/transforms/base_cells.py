"""The matrix's first cells: grad, value_and_grad, hessian, jvp, vjp, jit="numba", check and a tree
of arguments, each a function of a `reference.Reference` that returns nothing or ``(outcome, detail)``
and raises `reference.Wrong` on a disagreement.  cell_table.py lists them with the other modules' cells.
"""

from __future__ import annotations

import copy

import numpy as np

import srcdiff

from . import leaves, trees_wrapped
from .reference import NA, OK, REFUSED, Reference, Wrong, check_value, expect, first_order

HESSIAN_MAX = 50  # larger inputs get a Hessian-vector product instead of the full Hessian
CHECK_SECONDS = 4.0  # per symbolic stage of srcdiff.check; past it check answers numerically


def cell_grad(ref: Reference):
    first_order(ref, srcdiff.grad(ref.p.func, wrt=ref.p.wrt)(*copy.deepcopy(ref.p.args)))


def cell_value_and_grad(ref: Reference):
    value, got = srcdiff.value_and_grad(ref.p.func, wrt=ref.p.wrt)(*copy.deepcopy(ref.p.args))
    check_value(ref, value)
    first_order(ref, got)


def cell_hessian(ref: Reference):
    p, n = ref.p, ref.x.size
    gradient = srcdiff.grad(p.func, wrt=p.wrt)
    g_at = lambda x: gradient(*ref.args_with(x))  # noqa: E731  the already-checked gradient
    if n > HESSIAN_MAX and p.wrt == 0:
        got = srcdiff.hvp(p.func, *ref.args_with(ref.x)[:1], leaves.with_vector(ref.arg, ref.v),
                          *copy.deepcopy(p.args[1:]))
        flat, detail, directions = leaves.vector(got), "hvp", ref.v[:, None]
    else:
        got = srcdiff.hessian(p.func, wrt=p.wrt)(*copy.deepcopy(p.args))
        flat, detail, directions = leaves.square(got, ref.arg), "hessian", np.eye(n)
    g0 = leaves.vector(g_at(ref.x))

    def second(eps, side=0):  # side 0: central; +1 / -1: one-sided differences of the gradient
        cols = []
        for d in directions.T:
            hi = leaves.vector(g_at(ref.x + eps * d)) if side >= 0 else g0
            lo = leaves.vector(g_at(ref.x - eps * d)) if side <= 0 else g0
            cols.append((hi - lo) / (eps * (2 if side == 0 else 1)))
        out = np.stack(cols, axis=-1)
        return out if detail == "hessian" else out[:, 0]
    want = second(1e-5)
    if not leaves.agree(flat, want, 1e-4, 1e-4):
        if not leaves.agree(want, second(1e-4), 1e-3, 1e-4):
            return NA, "second differences unstable here"
        if not leaves.agree(second(1e-5, 1), second(1e-5, -1), 1e-3, 1e-3):
            return NA, "the gradient has a kink here: no second derivative"
        expect(False, flat, want, detail)
    return OK, detail


def cell_jvp(ref: Reference):
    p = ref.p
    tangents = [None] * len(p.args)
    tangents[p.wrt] = leaves.with_vector(ref.arg, ref.v)
    value, tangent = srcdiff.jvp(p.func, tuple(copy.deepcopy(p.args)), tuple(tangents))
    check_value(ref, value)
    want = float(ref.grad @ ref.v)
    if leaves.is_complex(tangent):
        raise Wrong("tangent: complex numbers for a real function")
    expect(leaves.agree(tangent, want), tangent, want, "tangent")


def cell_vjp(ref: Reference):
    value, pullback = srcdiff.vjp(ref.p.func, *copy.deepcopy(ref.p.args), wrt=ref.p.wrt)
    check_value(ref, value)
    for seed in (1.75, -0.5):  # a pullback may be called again: loops' stacks must be refilled
        first_order(ref, pullback(seed if np.ndim(value) == 0 else np.full(np.shape(value), seed)), scale=seed)


def cell_numba(ref: Reference):
    first_order(ref, srcdiff.grad(ref.p.func, wrt=ref.p.wrt, jit="numba")(*copy.deepcopy(ref.p.args)))


def cell_check(ref: Reference):
    report = srcdiff.check(ref.p.func, *copy.deepcopy(ref.p.args), wrt=ref.p.wrt, timeout=CHECK_SECONDS,
                           progress=False)
    status = report.status
    if status == "MISMATCH":
        raise Wrong(f"check reports MISMATCH on a right gradient: {str(report).splitlines()[0]}")
    if status in ("proved", "agrees numerically"):
        return OK, status
    if report.numeric is not None and report:
        return OK, f"{status}, numerically right"
    if report.numeric is not None:
        return OK, f"{status}, central differences agree"
    return REFUSED, f"check {status}"


def cell_tree(ref: Reference):
    wrapper, key = trees_wrapped.wrapper(ref.p)
    args = copy.deepcopy(list(ref.p.args))
    args[ref.p.wrt] = {key: args[ref.p.wrt]}
    got = srcdiff.grad(wrapper, wrt=ref.p.wrt)(*args)
    if not isinstance(got, dict) or list(got) != [key]:
        raise Wrong(f"the gradient of a dict is a {type(got).__name__}, not a dict with key {key!r}")
    first_order(ref, got)

