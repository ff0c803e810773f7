"""``numpy.linalg``'s decompositions and the functions built on them: ``pinv``, ``svd``,
``eigh``, ``eigvalsh``, ``qr``, ``matrix_power`` (and the matrix norms, `matrix_norm_templates`).

Every rule takes one matrix or a stack ``(..., M, N)``.  A first-order gradient calls the
helpers of rules/decomposition_helpers.py (one readable line per call); a gradient srcdiff
differentiates again (`derivable`) spells the same formulas in primitives that have rules,
so second derivatives are compositions.  The derivatives are those of real matrices with
distinct eigenvalues / singular values (and, for ``pinv``, ``lstsq`` and the thin SVD, of
constant rank); at a degenerate spectrum they are inf or NaN (docs/guarantees.md).
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from . import table
from .table import nograd


def _t(name: str, ndim=None) -> str:
    """`name` with its last two axes swapped (``name.T`` for one matrix)."""
    return f"{name}.T" if ndim == 2 else f"np.swapaxes({name}, -1, -2)"


def _part(i: int) -> str:
    """A tuple result's i-th part adjoint as an array shaped like the part (derivable form)."""
    return f"(g[{i}] + np.zeros(np.shape(ans[{i}])))"


def _gaps(values: str) -> str:
    """F[..., i, j] = 1 / (v_j - v_i) off the diagonal, 0 on it (derivable form)."""
    eye = f"np.eye(np.shape({values})[-1])"
    return f"(1.0 / (np.expand_dims({values}, -2) - np.expand_dims({values}, -1) + {eye}) - {eye})"


def _fold(s: str, uplo: str) -> str:
    """The adjoint of the symmetric matrix eigh reads from one triangle (derivable form)."""
    tri = "np.tril" if uplo == "L" else "np.triu"
    return f"np.eye(np.shape({s})[-1]) * {s} + {tri}({s} + {_t(s)}, {-1 if uplo == 'L' else 1})"


# ---- pinv: the derivative at constant rank (Golub & Pereyra) ----

def _pinv_templates(static, operand_shapes):
    t = lambda e: _t(e, operand_shapes["x"].ndim)  # noqa: E731
    pt = t("ans")
    inner = (f"-ans @ {t('g')} @ ans + ans @ {pt} @ g - ans @ {pt} @ g @ x @ ans + g @ {pt} @ ans"
             f" - ans @ x @ g @ {pt} @ ans")
    return {"x": t(f"({inner})")}


def _pinv_tangents(static, operand_shapes):
    t = lambda e: _t(e, operand_shapes["x"].ndim)  # noqa: E731
    pt, dt = t("ans"), t("x_dot")
    return {"x": f"-ans @ x_dot @ ans + ans @ {pt} @ {dt} - ans @ {pt} @ {dt} @ x @ ans + {dt} @ {pt} @ ans"
                 f" - ans @ x @ {dt} @ {pt} @ ans"}


def _pinv_shape(static, x):
    if not x.known or x.ndim < 2:
        return shapes.UNKNOWN
    return shapes.Shape(x.dims[:-2] + (x.dims[-1], x.dims[-2]))


# ---- matrix_power: a product of n factors (n an integer known when compiling) ----

def _power_terms(n: int, base: str, seed: str, ndim) -> str:
    """sum over k of (base^T)^k seed (base^T)^(n-1-k): the adjoint of base^n given `seed`."""
    bt = _t(base, ndim)

    def power(k):
        return "" if k == 0 else (f"{bt} @ " if k == 1 else f"np.linalg.matrix_power({bt}, {k}) @ ")

    def after(k):
        return "" if k == 0 else (f" @ {bt}" if k == 1 else f" @ np.linalg.matrix_power({bt}, {k})")
    return " + ".join(f"{power(k)}{seed}{after(n - 1 - k)}" for k in range(n))


def _power(static) -> int:
    n = static["n"]
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise SrcDiffError("numpy.linalg.matrix_power needs an integer power known when the gradient is compiled",
                           hint="pass the power as a constant")
    return int(n)


def _matrix_power_templates(static, operand_shapes):
    n, ndim = _power(static), operand_shapes["x"].ndim
    if n == 0:
        return {"x": "np.zeros(np.shape(x))"}
    if n > 0:
        return {"x": _power_terms(n, "x", "g", ndim)}
    inv = _t("np.linalg.inv(x)", ndim)  # x^n = inv(x)^|n|, and inv's adjoint is -inv^T h inv^T
    return {"x": f"-{inv} @ ({_power_terms(-n, 'np.linalg.inv(x)', 'g', ndim)}) @ {inv}"}


def _matrix_power_tangents(static, operand_shapes):
    n = _power(static)

    def chain(base: str, dot: str, m: int) -> str:
        power = lambda k: "" if k == 0 else (f"{base} @ " if k == 1 else f"np.linalg.matrix_power({base}, {k}) @ ")  # noqa: E731
        after = lambda k: "" if k == 0 else (f" @ {base}" if k == 1 else f" @ np.linalg.matrix_power({base}, {k})")  # noqa: E731
        return " + ".join(f"{power(k)}{dot}{after(m - 1 - k)}" for k in range(m))
    if n == 0:
        return {"x": "np.zeros(np.shape(x))"}
    if n > 0:
        return {"x": chain("x", "x_dot", n)}
    return {"x": chain("np.linalg.inv(x)", "(-np.linalg.inv(x) @ x_dot @ np.linalg.inv(x))", -n)}


def _same(static, x):
    return shapes.array(x)


# ---- svd ----

def _svd_checks(static):
    if static.get("hermitian"):
        raise SrcDiffError("numpy.linalg.svd with hermitian=True has no adjoint rule",
                           hint="leave hermitian=False (the default), or use np.linalg.eigh")


def _svd_templates(static, operand_shapes):
    _svd_checks(static)
    if not static["compute_uv"]:
        return {"x": "singular_values_adjoint(g, x)"}
    return {"x": "svd_adjoint(g, ans, full_matrices)"}


def _svd_tangents(static, operand_shapes):
    _svd_checks(static)
    if not static["compute_uv"]:
        return {"x": "singular_values_tangent(x_dot, x)"}
    return {"x": "svd_tangent(x_dot, ans, full_matrices)"}


def _svd_derivable(static, operand_shapes):
    _svd_checks(static)
    if not static["compute_uv"]:
        thin = "np.linalg.svd(x, full_matrices=False)"
        return {"x": f"({thin}[0] * np.expand_dims(g, -2)) @ {thin}[2]"}
    u, s, vt = "ans[0]", "ans[1]", "ans[2]"
    gu, gs, gvt = _part(0), _part(1), _part(2)
    f = _gaps(f"({s} * {s})")
    eye = f"np.eye(np.shape({s})[-1])"
    utgu, vtgv = f"({_t(u)} @ {gu})", f"({vt} @ {_t(gvt)})"
    inner = (f"({f} * ({utgu} - {_t(utgu)})) * np.expand_dims({s}, -2) + {eye} * np.expand_dims({gs}, -1)"
             f" + np.expand_dims({s}, -1) * ({f} * ({vtgv} - {_t(vtgv)}))")
    return {"x": f"{u} @ ({inner}) @ {vt} + (({gu} - {u} @ {utgu}) / np.expand_dims({s}, -2)) @ {vt}"
                 f" + {u} @ (({gvt} - {_t(vtgv)} @ {vt}) / np.expand_dims({s}, -1))"}


# ---- eigh, eigvalsh ----

def _uplo(static) -> str:
    uplo = static["UPLO"]
    if uplo not in ("L", "U"):
        raise SrcDiffError(f"numpy.linalg.eigh with UPLO={uplo!r}: NumPy reads 'L' or 'U'", hint="pass 'L' or 'U'")
    return uplo


def _eigh_templates(static, operand_shapes):
    _uplo(static)
    return {"x": "eigh_adjoint(g, ans, UPLO)"}


def _eigh_tangents(static, operand_shapes):
    _uplo(static)
    return {"x": "eigh_tangent(x_dot, ans, UPLO)"}


def _eigh_inner(w: str, v: str, gw: str, gv: str) -> str:
    """V (diag(gw) + F * (V^T gv)) V^T (derivable form)."""
    eye = f"np.eye(np.shape({w})[-1])"
    return f"({v} @ ({eye} * np.expand_dims({gw}, -2) + {_gaps(w)} * ({_t(v)} @ {gv})) @ {_t(v)})"


def _eigh_derivable(static, operand_shapes):
    return {"x": _fold(_eigh_inner("ans[0]", "ans[1]", _part(0), _part(1)), _uplo(static))}


def _eigvalsh_templates(static, operand_shapes):
    _uplo(static)
    return {"x": "eigvalsh_adjoint(g, x, UPLO)"}


def _eigvalsh_tangents(static, operand_shapes):
    _uplo(static)
    return {"x": "eigvalsh_tangent(x_dot, x, UPLO)"}


def _eigvalsh_derivable(static, operand_shapes):
    v = "np.linalg.eigh(x, UPLO)[1]"
    return {"x": _fold(f"(({v} * np.expand_dims(g, -2)) @ {_t(v)})", _uplo(static))}


def _eigvalsh_shape(static, x):
    if not x.known or x.ndim < 2:
        return shapes.UNKNOWN
    return shapes.Shape(x.dims[:-1])


# ---- qr (reduced, M >= N) ----

def _qr_mode(static):
    if static["mode"] != "reduced":
        raise SrcDiffError(f"numpy.linalg.qr with mode={static['mode']!r} has no adjoint rule",
                           hint="use mode='reduced' (the default)")


def _qr_templates(static, operand_shapes):
    _qr_mode(static)
    return {"x": "qr_adjoint(g, ans)"}


def _qr_tangents(static, operand_shapes):
    _qr_mode(static)
    return {"x": "qr_tangent(x_dot, ans)"}


def _qr_derivable(static, operand_shapes):
    _qr_mode(static)
    q, r, gq, gr = "ans[0]", "ans[1]", _part(0), _part(1)
    m = f"({r} @ {_t(gr)} - {_t(gq)} @ {q})"
    low = f"np.tril({m}, -1)"
    sym = f"({low} + {_t(low)} + np.eye(np.shape({m})[-1]) * {m})"
    return {"x": f"({gq} + {q} @ {sym}) @ {_t(f'np.linalg.inv({r})')}"}  # inv: its tangent takes any ndim


# ---- lstsq: (solution, residuals, rank, singular values), full rank ----

def _lstsq_derivable(static, operand_shapes):
    """Through the pseudo-inverse: the solution ``pinv(x) @ y`` (pinv's adjoint), the residuals
    ``sum((y - x sol)^2)`` (empty unless x has more rows than columns: their adjoint padded with
    zeros to y's columns) and the singular values (svd's); y of one column or several."""
    p, y = "np.linalg.pinv(x)", "np.reshape(y, (np.shape(y)[0], -1))"
    g0 = f"np.reshape({_part(0)}, (np.shape(x)[1], -1))"
    sol = "np.reshape(ans[0], (np.shape(x)[1], -1))"
    g1 = f"np.reshape(np.concatenate([{_part(1)}, np.zeros(np.shape({y})[1] - np.size(ans[1]))]), (1, -1))"
    r_g1 = f"(({y} - x @ {sol}) * {g1})"
    gp = f"({g0} @ {y}.T)"  # the adjoint of pinv(x)
    inner = (f"-{p} @ {gp}.T @ {p} + {p} @ {p}.T @ {gp} - {p} @ {p}.T @ {gp} @ x @ {p} + {gp} @ {p}.T @ {p}"
             f" - {p} @ x @ {gp} @ {p}.T @ {p}")
    thin = "np.linalg.svd(x, full_matrices=False)"
    return {"x": f"({inner}).T - 2.0 * {r_g1} @ {sol}.T + ({thin}[0] * np.expand_dims({_part(3)}, -2)) @ {thin}[2]",
            "y": f"np.reshape({p}.T @ {g0} + 2.0 * {r_g1}, np.shape(y))"}

# ---- matrix norms (np.linalg.norm's rule, rules/numpy_reductions.py, asks here) ----

MATRIX_ORDERS = ("nuc", 2, -2, 1, -1, np.inf, -np.inf)


def is_matrix_norm(static, operand_shapes) -> bool:
    """``np.linalg.norm(x, ord)`` of a matrix (axis None of a 2-D x, or a pair of axes) with an
    ord other than None/'fro' (those are the elementwise 2-norm)."""
    order, axis, ndim = static.get("ord"), static.get("axis"), operand_shapes["x"].ndim
    pair = isinstance(axis, tuple) and len(axis) == 2
    return order in MATRIX_ORDERS and ((axis is None and ndim == 2) or pair)


def matrix_norm_templates(static, operand_shapes):
    return {"x": "matrix_norm_adjoint(g, x, ord, axis, keepdims)"}


def matrix_norm_tangents(static, operand_shapes):
    return {"x": "matrix_norm_tangent(x_dot, x, ord, axis, keepdims)"}


def matrix_norm_derivable(static, operand_shapes):
    """The matrix norm's adjoint in primitives (a gradient srcdiff differentiates again)."""
    order, axis = static.get("ord"), static.get("axis")
    axes = (-2, -1) if axis is None else tuple(axis)
    y = "x" if axis is None else f"np.moveaxis(x, {axes}, (-2, -1))"
    g = f"np.squeeze(g, axis={axes})" if static.get("keepdims") else "g"
    if order in ("nuc", 2, -2):
        thin = f"np.linalg.svd({y}, full_matrices=False)"
        if order == "nuc":
            direction = f"{thin}[0] @ {thin}[2]"
        else:
            pick = "0:1" if order == 2 else "-1:"
            direction = f"{thin}[0][..., :, {pick}] @ {thin}[2][..., {pick}, :]"
    else:
        rows = order in (np.inf, -np.inf)
        sums = f"np.sum(np.abs({y}), axis={-1 if rows else -2}, keepdims=True)"
        pick = "np.max" if order > 0 else "np.min"
        top = f"({sums} == {pick}({sums}, axis={-2 if rows else -1}, keepdims=True))"
        direction = f"np.sign({y}) * {top} / np.sum({top}, axis={-2 if rows else -1}, keepdims=True)"
    if axis is None:  # one matrix: g is a number (or (1, 1) with keepdims), which keeps x's dtype
        return {"x": f"g * ({direction})"}
    return {"x": f"np.moveaxis(np.expand_dims(np.expand_dims({g}, -1), -1) * ({direction}), (-2, -1), {axes})"}


#: the forms of the SVD's and pinv's rules, for SciPy's functions of the same meaning (rules/scipy_linalg.py)
SVD_FORMS = {"templates": _svd_templates, "tangents": _svd_tangents, "derivable": _svd_derivable}
PINV_FORMS = {"templates": _pinv_templates, "tangents": _pinv_tangents}

#: the fields of NumPy's named result tuples (``np.linalg.eigh(x).eigenvalues``), by rule
NAMED_FIELDS = {"numpy.linalg.eigh": ("eigenvalues", "eigenvectors"),
                "numpy.linalg.eig": ("eigenvalues", "eigenvectors"),
                "numpy.linalg.svd": ("U", "S", "Vh"), "numpy.linalg.qr": ("Q", "R"),
                "numpy.linalg.slogdet": ("sign", "logabsdet")}

EIG_HINT = ("np.linalg.eig's eigenvectors of a general real matrix are complex, and srcdiff differentiates "
            "real functions only: for a symmetric matrix use np.linalg.eigh (or eigvalsh)")


def rule(func, params, templates, **options):
    """A rule of this module: no sympy counterpart (sympy factorises symbols, not numbers)."""
    return table.rule(func, params, templates, not_symbolic=FACTORISATION, **options)


#: Why the factorisations here have no sympy counterpart.
FACTORISATION = "an iterative factorisation of numbers: checked against central differences"


RULES = [
    rule(np.linalg.pinv, ("x",), _pinv_templates, static={"rcond": None, "hermitian": False},
         shape=_pinv_shape, fresh=True, array_result=True, tangents=_pinv_tangents, batching="stacked",
         note="the derivative at constant rank: where the rank changes pinv is not continuous"),
    rule(np.linalg.matrix_power, ("x",), _matrix_power_templates, static={"n": 1}, shape=_same, fresh=True,
         tangents=_matrix_power_tangents, batching="stacked",
         note="an integer power known when compiling; negative powers use inv(x)"),
    rule(np.linalg.svd, ("x",), _svd_templates, static={"full_matrices": True, "compute_uv": True,
                                                       "hermitian": False},
         fresh=True, tuple_result=True, tangents=_svd_tangents, derivable=_svd_derivable, batching="stacked",
         note="(u, s, vt), or s with compute_uv=False; full_matrices=True only of square matrices; "
              "distinct nonzero singular values"),
    rule(np.linalg.eigh, ("x",), _eigh_templates, static={"UPLO": "L"}, fresh=True, tuple_result=True,
         tangents=_eigh_tangents, derivable=_eigh_derivable, batching="stacked",
         note="(w, v); reads the UPLO triangle of x only; distinct eigenvalues"),
    rule(np.linalg.eigvalsh, ("x",), _eigvalsh_templates, static={"UPLO": "L"}, shape=_eigvalsh_shape,
         fresh=True, array_result=True, tangents=_eigvalsh_tangents, derivable=_eigvalsh_derivable, batching="stacked",
         note="reads the UPLO triangle of x only"),
    rule(np.linalg.qr, ("x",), _qr_templates, static={"mode": "reduced"}, fresh=True, tuple_result=True,
         tangents=_qr_tangents, derivable=_qr_derivable, batching="stacked",
         note="(q, r), mode='reduced', of matrices with at least as many rows as columns, of full rank"),
    rule(np.linalg.lstsq, ("x", "y"),
         {"x": "lstsq_adjoint_x(g, x, y, ans)", "y": "lstsq_adjoint_y(g, x, y, ans)"},
         static={"rcond": None}, fresh=True, tuple_result=True, derivable=_lstsq_derivable,
         tangents={"x": "lstsq_tangent(x_dot, 0.0, x, y, ans)", "y": "lstsq_tangent(0.0, y_dot, x, y, ans)"},
         note="(solution, residuals, rank, singular values) of a matrix of full rank; the rank carries no gradient"),
    nograd(np.linalg.eig, tuple_result=True, refuses_active=EIG_HINT,
           refusal="numpy.linalg.eig of a general matrix has no real derivative", not_symbolic=FACTORISATION),
    nograd(np.linalg.eigvals, refuses_active=EIG_HINT,
           refusal="numpy.linalg.eigvals of a general matrix has no real derivative", not_symbolic=FACTORISATION),
]
