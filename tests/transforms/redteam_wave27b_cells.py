"""Two checks of wave 27b beyond the matrix's cells.

``vmap`` (a cell of the matrix, listed in cell_table.py): per-example gradients,
``vmap(grad(f), in_axes=(None, 0, 0))`` of a program ``f(params, x, y)`` differentiated in `params`,
on three examples made by moving the program's own `x` and `y` (labels and other integers kept),
each example's gradient compared with float64 central differences of ``f(params, x_i, y_i)``.

``kink_subgradients``: at a kink (``abs`` at 0, ``clip`` at a bound, a tie of ``maximum``) there is
no derivative to compare with; what every transformation must give is one subgradient, the same
in each.  Each coordinate of `grad`'s answer must lie between f's one-sided partial derivatives
there, and every other transformation must give exactly what `grad` gives.
"""

from __future__ import annotations

import copy

import numpy as np

import srcdiff

from . import leaves, reference, trees_wrapped
from .corpus import Program

EXAMPLES = 3


def _moved(value, i: int):
    """Example `i` of a batch built around `value`: floats moved a little, integers kept."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        rng = np.random.default_rng(100 + i)
        return value + (0.1 * rng.standard_normal(value.shape)).astype(value.dtype) * (i > 0)
    if isinstance(value, float):
        return value + 0.1 * i
    return value


def cell_vmap(ref: reference.Reference):
    p = ref.p
    if p.wrt != 0 or len(p.args) != 3:
        return reference.NA, "per-example gradients of f(params, x, y) only"
    params, x, y = p.args
    xs, ys = [_moved(x, i) for i in range(EXAMPLES)], [_moved(y, i) for i in range(EXAMPLES)]
    X, Y = np.stack([np.asarray(v) for v in xs]), np.stack([np.asarray(v) for v in ys])
    got = srcdiff.vmap(srcdiff.grad(p.func), in_axes=(None, 0, 0))(copy.deepcopy(params), X, Y)
    mapped = leaves.float_leaves(got)
    wanted = leaves.float_leaves(params)
    shapes = [np.shape(leaf) for leaf in mapped]
    if shapes != [(EXAMPLES, *np.shape(leaf)) for leaf in wanted]:
        raise reference.Wrong(f"vmap: shaped {shapes} for parameters {[np.shape(leaf) for leaf in wanted]}")
    checked = 0
    for i in range(EXAMPLES):
        example = Program(p.name, p.func, (params, xs[i], ys[i]), 0, p.origin)
        try:
            with reference.quiet():
                want = reference.Reference(example)
        except Exception:  # noqa: BLE001  no reference at this example (a kink, f fails on one example)
            continue
        flat = np.concatenate([np.ravel(np.asarray(leaf)[i]) for leaf in mapped]).astype(float)
        if not leaves.agree(flat, want.grad):
            raise reference.Wrong(f"vmap: example {i}: max error {leaves.max_error(flat, want.grad):.3g}")
        checked += 1
    if not checked:
        return reference.NA, "no example has a reference"
    return reference.OK, "vmap"



def one_sided(f, args, wrt: int, eps: float = 1e-7):
    """f's one-sided partial derivatives (left, right) along each coordinate of argument `wrt`."""
    x = leaves.vector(args[wrt])
    f0 = float(f(*args))
    left, right = np.empty(x.size), np.empty(x.size)
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        moved = list(copy.deepcopy(args))
        moved[wrt] = leaves.with_vector(args[wrt], x + e)
        right[k] = (float(f(*moved)) - f0) / eps
        moved[wrt] = leaves.with_vector(args[wrt], x - e)
        left[k] = (f0 - float(f(*moved))) / eps
    return left, right


def kink_answers(f, args, wrt: int, numba: bool = False) -> dict:
    """Every transformation's gradient of `f` at `args` (flat float64), by name (``jit="numba"``'s
    too with `numba`; a tree of the argument, float32 and per-example gradients where they apply)."""
    a = lambda: copy.deepcopy(list(args))  # noqa: E731
    x = args[wrt]
    n = leaves.vector(x).size
    out = {"grad": srcdiff.grad(f, wrt=wrt)(*a())}
    out["value_and_grad"] = srcdiff.value_and_grad(f, wrt=wrt)(*a())[1]
    out["vjp"] = srcdiff.vjp(f, *a(), wrt=wrt)[1](1.0)
    out["jacobian"] = srcdiff.jacobian(f, wrt=wrt)(*a())
    tangents = []
    for k in range(n):
        t = [None] * len(args)
        t[wrt] = leaves.with_vector(x, np.eye(n)[k])
        tangents.append(float(srcdiff.jvp(f, tuple(a()), tuple(t))[1]))
    out["jvp"] = np.array(tangents)
    if numba:
        out["numba"] = srcdiff.grad(f, wrt=wrt, jit="numba")(*a())
    if wrt == 0 and len(args) == 1 and isinstance(x, np.ndarray):
        out["vmap"] = srcdiff.vmap(srcdiff.grad(f))(np.stack([x + 0.25, x]))[1]  # the kink in one example
        out["float32"] = srcdiff.grad(f)(x.astype(np.float32))
        wrapper, key = trees_wrapped.wrapper(Program("kink", f, tuple(args), wrt, "kink"))
        out["tree"] = srcdiff.grad(wrapper)({key: x})[key]
    return {k: leaves.vector(v) for k, v in out.items()}
