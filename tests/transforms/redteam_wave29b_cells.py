"""The matrix's cells of wave 29b: COMPOSED transformations and the API's options, each against
float64 central differences of the composed function (the differences of the already-checked
gradient for a second derivative; of `f` for a first).

Compositions: ``grad(grad(f))`` (f of one number), ``jacobian(grad(f))``, ``jvp(grad(f))``,
``vjp(grad(f))``, ``vjp(jacobian(f))``, ``vmap(hessian(f))``, ``vmap(jacobian(f))``, ``hessian`` with
an argnums tuple (the cross block against differences of the gradient along the other argument),
``hessian`` / ``jvp`` / ``vjp`` of the argument inside a dict, float32 through ``hessian``, and with
``jit="numba"``: ``hessian``, ``jacobian(grad(f))``, ``vmap(grad(f))``.  Options: a negative argnums,
every argument passed by keyword at call time (grad, hessian), vjp with keyword arguments after
the first (jvp takes tuples of primals: by position only, its API).

    row = matrix.run(program, redteam_wave29b_cells.COMPOSED)   # (cell_table.py lists them)
"""

from __future__ import annotations

import copy
import inspect

import numpy as np

import srcdiff

from . import closure_cells, leaves, reference, trees_wrapped

COMPOSED = ("grad_grad", "jac_grad", "jvp_grad", "vjp_grad", "vjp_jac", "vmap_grad", "vmap_jac", "vmap_hess",
            "hess_argnums", "hess_tree", "jvp_tree", "vjp_tree", "hess_f32", "argnums_neg", "kwargs",
            "vjp_kwargs")
NUMBA = ("hess_numba", "jac_grad_numba", "vmap_grad_numba")
POINTS = 2  # examples of a vmap cell


def _gradient_at(ref: reference.Reference):
    gradient = srcdiff.grad(ref.p.func, wrt=ref.p.wrt)
    return lambda x: leaves.vector(gradient(*ref.args_with(x)))


def _second(ref: reference.Reference, got: np.ndarray, directions: np.ndarray, what: str, g_at=None):
    """`got` (n × k) against central differences of the gradient along `directions` (n × k)."""
    g_at = g_at or _gradient_at(ref)

    def diff(eps):
        return np.stack([(g_at(ref.x + eps * d) - g_at(ref.x - eps * d)) / (2 * eps) for d in directions.T], axis=-1)
    want = diff(1e-5)
    if got.shape != want.shape:
        raise reference.Wrong(f"{what}: {got.shape} numbers, want {want.shape}")
    if not leaves.agree(got, want, 1e-4, 1e-4):
        if not leaves.agree(want, diff(1e-4), 1e-3, 1e-4):
            return reference.NA, "second differences unstable here"
        raise reference.Wrong(f"{what}: max error {leaves.max_error(got, want):.3g}")
    return reference.OK, what


def _args(ref):
    return copy.deepcopy(list(ref.p.args))


def cell_grad_grad(ref):
    if not isinstance(ref.arg, float):
        return reference.NA, "grad(grad(f)) of f of one number"
    got = srcdiff.grad(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), wrt=ref.p.wrt)(*_args(ref))
    if not isinstance(got, float):
        raise reference.Wrong(f"grad(grad(f)) of a float is a {type(got).__name__}")
    return _second(ref, np.array([[got]]), np.eye(1), "grad(grad)")


def cell_jac_grad(ref):
    got = srcdiff.jacobian(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), wrt=ref.p.wrt)(*_args(ref))
    return _second(ref, leaves.square(got, ref.arg), np.eye(ref.x.size), "jacobian(grad)")


def _tangents(ref, v):
    tangents = [None] * len(ref.p.args)
    tangents[ref.p.wrt] = leaves.with_vector(ref.arg, v)
    return tuple(tangents)


def cell_jvp_grad(ref):
    _, t = srcdiff.jvp(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), tuple(_args(ref)), _tangents(ref, ref.v))
    return _second(ref, leaves.vector(t)[:, None], ref.v[:, None], "jvp(grad)")


def cell_vjp_grad(ref):
    _, pullback = srcdiff.vjp(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), *_args(ref), wrt=ref.p.wrt)
    got = pullback(leaves.with_vector(ref.arg, ref.v))  # H v: the Hessian is symmetric
    return _second(ref, leaves.vector(got)[:, None], ref.v[:, None], "vjp(grad)")


def cell_vjp_jac(ref):
    _, pullback = srcdiff.vjp(srcdiff.jacobian(ref.p.func, wrt=ref.p.wrt), *_args(ref), wrt=ref.p.wrt)
    got = pullback(leaves.with_vector(ref.arg, ref.v))
    return _second(ref, leaves.vector(got)[:, None], ref.v[:, None], "vjp(jacobian)")


def _batch(ref):
    """POINTS points near the program's (the argument stacked), and in_axes mapping it alone."""
    arg = np.float64(ref.arg) if isinstance(ref.arg, float) else ref.arg
    if not isinstance(arg, (np.ndarray, np.floating)) or np.result_type(arg) != np.float64:
        return None, None, None
    points = [ref.x + 0.05 * k * ref.v for k in range(POINTS)]
    args = _args(ref)
    args[ref.p.wrt] = np.stack([np.reshape(p, np.shape(arg)) for p in points])
    return points, args, tuple(0 if i == ref.p.wrt else None for i in range(len(args)))


def _rows(ref, got, points, check):
    for k, point in enumerate(points):
        moved = copy.copy(ref)
        moved.x = point
        outcome = check(moved, np.asarray(got)[k], k)
        if outcome and outcome[0] != reference.OK:
            return outcome
    return reference.OK, ""


def cell_vmap_jac(ref):
    points, args, axes = _batch(ref)
    if points is None:
        return reference.NA, "no float64 array to map over"
    got = srcdiff.vmap(srcdiff.jacobian(ref.p.func, wrt=ref.p.wrt), in_axes=axes)(*args)

    def check(moved, row, k):
        want = moved.difference(moved.f_at, 1e-6)[0]
        if not leaves.agree(np.ravel(row), want):
            raise reference.Wrong(f"vmap(jacobian) row {k}: max error {leaves.max_error(np.ravel(row), want):.3g}")
    return _rows(ref, got, points, check)


def cell_vmap_hess(ref):
    points, args, axes = _batch(ref)
    if points is None:
        return reference.NA, "no float64 array to map over"
    got = srcdiff.vmap(srcdiff.hessian(ref.p.func, wrt=ref.p.wrt), in_axes=axes)(*args)
    n = ref.x.size
    return _rows(ref, got, points, lambda moved, row, k: _second(moved, np.reshape(row, (n, n)), np.eye(n),
                                                                 f"vmap(hessian) row {k}"))


def _other(ref):
    """Another parameter holding a float or a float64 array (not a tree), or None."""
    for j, a in enumerate(ref.p.args):
        if j != ref.p.wrt and (isinstance(a, float) or isinstance(a, np.ndarray) and a.dtype == np.float64):
            return j
    return None


def cell_hess_argnums(ref):
    j, w = _other(ref), ref.p.wrt
    if j is None or not isinstance(ref.arg, (float, np.ndarray)):
        return reference.NA, "no second float argument"
    got = srcdiff.hessian(ref.p.func, argnums=(w, j))(*_args(ref))
    n, m = ref.x.size, int(np.size(ref.p.args[j]))
    found = _second(ref, np.reshape(np.asarray(got[0][0], dtype=float), (n, n)), np.eye(n), "hessian argnums [0][0]")
    if found[0] != reference.OK:
        return found
    gradient = srcdiff.grad(ref.p.func, wrt=w)
    y0 = leaves.vector(ref.p.args[j])

    def g_along(y):  # the gradient in x, as a function of the other argument
        args = ref.args_with(ref.x)
        args[j] = leaves.with_vector(args[j], y)
        return leaves.vector(gradient(*args))
    other = copy.copy(ref)
    other.x = y0
    return _second(other, np.reshape(np.asarray(got[0][1], dtype=float), (n, m)), np.eye(m),
                   "hessian argnums [0][1]", g_at=g_along)


def _in_a_dict(ref):
    wrapper, key = trees_wrapped.wrapper(ref.p)
    args = _args(ref)
    args[ref.p.wrt] = {key: args[ref.p.wrt]}
    return wrapper, key, args


def cell_hess_tree(ref):
    wrapper, key, args = _in_a_dict(ref)
    got = srcdiff.hessian(wrapper, wrt=ref.p.wrt)(*args)
    if not isinstance(got, dict) or list(got) != [key]:
        raise reference.Wrong(f"the Hessian of a dict is not a dict of dicts: {type(got).__name__}")
    return _second(ref, leaves.square(got, args[ref.p.wrt]), np.eye(ref.x.size), "hessian of a dict")


def cell_jvp_tree(ref):
    wrapper, key, args = _in_a_dict(ref)
    tangents = [None] * len(args)
    tangents[ref.p.wrt] = {key: leaves.with_vector(ref.arg, ref.v)}
    _, t = srcdiff.jvp(wrapper, tuple(args), tuple(tangents))
    want = float(ref.grad @ ref.v)
    if not leaves.agree(t, want):
        raise reference.Wrong(f"jvp of a dict: max error {leaves.max_error(t, want):.3g}")
    return reference.OK, ""


def cell_vjp_tree(ref):
    wrapper, key, args = _in_a_dict(ref)
    _, pullback = srcdiff.vjp(wrapper, *args, wrt=ref.p.wrt)
    got = pullback(2.0)
    if not isinstance(got, dict) or list(got) != [key]:
        raise reference.Wrong(f"the pullback of a dict gave a {type(got).__name__}")
    reference.first_order(ref, got, "vjp of a dict", scale=2.0)


def cell_hess_f32(ref):
    args = [closure_cells._narrowed(a) for a in _args(ref)]  # noqa: SLF001  the float32 cell's narrowing
    if not any(leaf.dtype == np.float32 for leaf in leaves.float_leaves(args[ref.p.wrt])
               if isinstance(leaf, np.ndarray)):
        return reference.NA, "no float32 array to differentiate"
    got = srcdiff.hessian(ref.p.func, wrt=ref.p.wrt)(*args)
    narrow = all(isinstance(leaf, np.ndarray) for leaf in leaves.float_leaves(args[ref.p.wrt]))
    if narrow and any(np.result_type(leaf) != np.float32 for leaf in leaves.float_leaves(got)):
        raise reference.Wrong("hessian of a float32 argument is not float32")
    n = ref.x.size
    flat = leaves.square(got, ref.arg)
    g = _gradient_at(ref)
    want = np.stack([(g(ref.x + 1e-5 * d) - g(ref.x - 1e-5 * d)) / 2e-5 for d in np.eye(n)], axis=-1)
    scale = max(1.0, float(np.max(np.abs(want))))
    if not np.all(np.abs(flat - want) <= 1e-2 * scale):
        if np.all(np.isfinite(want)) and not leaves.agree(want, _second_rough(g, ref, n), 1e-3, 1e-4):
            return reference.NA, "second differences unstable here"
        raise reference.Wrong(f"hessian float32: max error {leaves.max_error(flat, want):.3g} (scale {scale:.3g})")
    return reference.OK, ""


def _second_rough(g, ref, n):
    return np.stack([(g(ref.x + 1e-4 * d) - g(ref.x - 1e-4 * d)) / 2e-4 for d in np.eye(n)], axis=-1)


def cell_argnums_neg(ref):
    got = srcdiff.grad(ref.p.func, argnums=ref.p.wrt - len(_params(ref)))(*_args(ref))
    reference.first_order(ref, got, "grad(argnums=negative)")


def _params(ref):
    return list(inspect.signature(ref.p.func).parameters.values())


def cell_kwargs(ref):
    params = _params(ref)
    if any(q.kind not in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY) for q in params[:len(ref.p.args)]):
        return reference.NA, "positional-only or starred parameters"
    by_name = dict(zip([q.name for q in params], _args(ref)))
    name = params[ref.p.wrt].name
    reference.first_order(ref, srcdiff.grad(ref.p.func, wrt=name)(**copy.deepcopy(by_name)), "grad by keyword")
    got = srcdiff.hessian(ref.p.func, wrt=name)(**copy.deepcopy(by_name))
    return _second(ref, leaves.square(got, ref.arg), np.eye(ref.x.size), "hessian by keyword")


def cell_vjp_kwargs(ref):
    """vjp with the arguments after the first passed by keyword (the differentiated one by position)."""
    params = _params(ref)
    if ref.p.wrt != 0 or any(q.kind != q.POSITIONAL_OR_KEYWORD for q in params[:len(ref.p.args)]):
        return reference.NA, "the differentiated argument first, the others by keyword"
    args = _args(ref)
    _, pullback = srcdiff.vjp(ref.p.func, args[0], **{q.name: a for q, a in zip(params[1:], args[1:])})
    reference.first_order(ref, pullback(1.0), "vjp by keyword")


def cell_hess_numba(ref):
    got = srcdiff.hessian(ref.p.func, wrt=ref.p.wrt, jit="numba")(*_args(ref))
    return _second(ref, leaves.square(got, ref.arg), np.eye(ref.x.size), "hessian numba")


def cell_jac_grad_numba(ref):
    got = srcdiff.jacobian(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), wrt=ref.p.wrt, jit="numba")(*_args(ref))
    return _second(ref, leaves.square(got, ref.arg), np.eye(ref.x.size), "jacobian(grad) numba")


def cell_vmap_grad_numba(ref):
    points, args, axes = _batch(ref)
    if points is None:
        return reference.NA, "no float64 array to map over"
    got = srcdiff.vmap(srcdiff.grad(ref.p.func, wrt=ref.p.wrt), in_axes=axes, jit="numba")(*args)

    def check(moved, row, k):
        want = moved.difference(moved.f_at, 1e-6)[0]
        if not leaves.agree(np.ravel(row), want):
            raise reference.Wrong(f"vmap(grad) numba row {k}: max error {leaves.max_error(np.ravel(row), want):.3g}")
    return _rows(ref, got, points, check)

