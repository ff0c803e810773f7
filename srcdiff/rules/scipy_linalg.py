"""SciPy's linear algebra (``scipy.linalg``): the functions that are thin wrappers of LAPACK
with NumPy counterparts (``svd``, ``inv``, ``det``, ``pinv``), ``solve_triangular`` and
``sqrtm``, ``expm`` and the LU factorisations (``lu``, ``lu_factor``, ``lu_solve``: rules/lu_helpers.py).

This module imports SciPy: the rule table loads it only once a program has imported SciPy
itself (`rules.builtin.LAZY_SECTIONS`).  Templates name SciPy's linear algebra as
``scipy_linalg`` (`lazy_modules`), so a gradient of a gradient finds these rules again.
"""

import scipy.linalg as sl

from ..errors import SrcDiffError
from . import lu_helpers, table
from .numpy_decompositions import PINV_FORMS, SVD_FORMS
from .numpy_linalg import solve_shape

SOLVE_STATIC = {"trans": 0, "lower": False, "unit_diagonal": False, "overwrite_b": False, "check_finite": True}


def rule(func, params, templates, **options):
    return table.rule(func, params, templates, name=f"scipy.linalg.{func.__name__}",
                      not_symbolic="SciPy's linear algebra, checked against central differences only", **options)


def _transposed(static) -> bool:
    trans = static["trans"]
    if trans not in (0, 1, 2, "N", "T", "C"):
        raise SrcDiffError(f"scipy.linalg.solve_triangular with trans={trans!r}", hint="pass 0, 1, 'N' or 'T'")
    return trans not in (0, "N")  # 'C' is 'T' for real matrices


def _triangle(static, expr: str) -> str:
    """`expr` kept on the triangle of `x` solve_triangular reads (without the diagonal when it
    is taken as ones)."""
    unit = bool(static["unit_diagonal"])
    return f"np.tril({expr}, {-1 if unit else 0})" if static["lower"] else f"np.triu({expr}, {1 if unit else 0})"


def _solve(static, rhs: str, transposed: bool) -> str:
    return (f"scipy_linalg.solve_triangular(x, {rhs}, trans={1 if transposed else 0}, lower={bool(static['lower'])}, "
            f"unit_diagonal={bool(static['unit_diagonal'])})")


def _columns(expr: str) -> str:
    """`expr` (a vector or a matrix of right-hand sides) as a matrix of columns."""
    return f"np.reshape({expr}, (np.shape(x)[0], -1))"


def _solve_triangular_templates(static, operand_shapes):
    t = _transposed(static)
    y_bar = _solve(static, "g", not t)
    a, b = (_columns("ans"), _columns(y_bar)) if t else (_columns(y_bar), _columns("ans"))
    return {"x": f"-{_triangle(static, f'{a} @ {b}.T')}", "y": y_bar}


def _solve_triangular_tangents(static, operand_shapes):
    t = _transposed(static)
    moved = _triangle(static, "x_dot")
    return {"x": _solve(static, f"-np.swapaxes({moved}, -1, -2) @ ans" if t else f"-{moved} @ ans", t),
            "y": _solve(static, "y_dot", t)}


def _inverse_t() -> str:
    return "np.swapaxes(ans, -1, -2)"


def _frechet(a: str, e: str) -> str:
    """The Fréchet derivative of expm at `a` in the direction `e`: the top right block of
    ``expm([[a, e], [0, a]])`` (Mathias' block-triangular identity), in primitives that have
    rules, so a gradient of a gradient differentiates it again."""
    top = f"np.concatenate([{a}, {e}], axis=-1)"
    bottom = f"np.concatenate([np.zeros(np.shape({a})), {a}], axis=-1)"
    n = f"np.shape({a})[-1]"
    return f"scipy_linalg.expm(np.concatenate([{top}, {bottom}], axis=-2))[..., :{n}, {n}:]"


#: expm's adjoint is its Fréchet derivative at the transpose, in the direction of the adjoint
EXPM = {"x": _frechet("np.swapaxes(x, -1, -2)", "g")}

def _square(name: str):
    def check(static, operand_shapes):
        x = operand_shapes.get("x")
        if x is not None and x.known and x.ndim != 2:
            raise SrcDiffError(f"scipy.linalg.{name} of a stack of matrices has no adjoint rule",
                               hint="factor one square matrix at a time")
        if static.get("permute_l") or static.get("p_indices"):
            raise SrcDiffError(f"scipy.linalg.{name} with permute_l or p_indices has no adjoint rule",
                               hint="take P, L, U (the default) and multiply P @ L yourself")
        if static.get("trans", 0) not in (0, "N"):
            raise SrcDiffError(f"scipy.linalg.{name} with trans={static['trans']!r} has no adjoint rule",
                               hint="solve with the transposed factorisation: lu_factor(A.T)")
    return check


def _checked(name: str, templates: dict):
    check = _square(name)

    def made(static, operand_shapes):
        check(static, operand_shapes)
        return templates
    return made


# ---- the LU factorisations' adjoints in primitives that have rules, for a gradient differentiated again ----

def _lu_factors(lu: str) -> tuple[str, str]:
    """L (unit lower) and U of the packed factorisation `lu`."""
    return f"(np.tril({lu}, -1) + np.eye(np.shape({lu})[-1]))", f"np.triu({lu})"


def _lu_through(L: str, U: str, L_bar: str, U_bar: str) -> str:
    """``L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T`` (rules/lu_helpers.py)."""
    inner = f"(np.tril({L}.T @ {L_bar}, -1) + np.triu({U_bar} @ {U}.T))"
    left = f"scipy_linalg.solve_triangular({L}, {inner}, trans=1, lower=True, unit_diagonal=True)"
    return f"scipy_linalg.solve_triangular({U}, ({left}).T, trans=0, lower=False).T"


def _lu_derivable(static, operand_shapes):
    _square("lu")(static, operand_shapes)
    L_bar, U_bar = "(g[1] + np.zeros(np.shape(ans[1])))", "(g[2] + np.zeros(np.shape(ans[2])))"
    return {"x": f"ans[0] @ {_lu_through('ans[1]', 'ans[2]', L_bar, U_bar)}"}


def _lu_factor_derivable(static, operand_shapes):
    _square("lu_factor")(static, operand_shapes)
    L, U = _lu_factors("ans[0]")
    G = "(g[0] + np.zeros(np.shape(ans[0])))"
    return {"x": f"({_lu_through(L, U, f'np.tril({G}, -1)', f'np.triu({G})')})[np.argsort(lu_rows(ans[1]))]"}


def _lu_solve_derivable(static, operand_shapes):
    _square("lu_solve")(static, operand_shapes)
    L, U = _lu_factors("factors[0]")
    rows = "lu_rows(factors[1])"
    # b's adjoint A^-T g: U^T L^T P^T z = g
    w = f"scipy_linalg.solve_triangular({U}, g, trans=1, lower=False)"
    z = f"scipy_linalg.solve_triangular({L}, {w}, trans=1, lower=True, unit_diagonal=True)[np.argsort({rows})]"
    n = "np.shape(factors[0])[-1]"
    A_bar = f"(-np.reshape({z}, ({n}, -1)) @ np.reshape(ans, ({n}, -1)).T)"
    B = f"{A_bar}[{rows}]"
    return {"b": z, "factors": f"(np.tril({B} @ {U}.T, -1) + np.triu({L}.T @ {B}), np.zeros(np.shape(factors[1])))"}


LU_STATIC = {"permute_l": False, "overwrite_a": False, "check_finite": True, "p_indices": False}
LU_NOTE = "a square matrix; the row swaps carry no gradient (piecewise constant)"

RULES = [
    rule(sl.lu, ("x",), _checked("lu", {"x": "lu_adjoint(g, ans)"}), static=LU_STATIC, fresh=True,
         tuple_result=True, tangents=_checked("lu", {"x": "lu_tangent(x_dot, ans)"}), derivable=_lu_derivable,
         note=LU_NOTE),
    rule(sl.lu_factor, ("x",), _checked("lu_factor", {"x": "lu_factor_adjoint(g, ans)"}),
         static={"overwrite_a": False, "check_finite": True}, fresh=True, tuple_result=True,
         tangents=_checked("lu_factor", {"x": "lu_factor_tangent(x_dot, ans)"}), derivable=_lu_factor_derivable,
         note=LU_NOTE),
    rule(sl.lu_solve, ("factors", "b"),
         _checked("lu_solve", {"factors": "lu_solve_adjoint(g, factors, ans)",
                               "b": "scipy_linalg.lu_solve(factors, g, trans=1)"}),
         static={"trans": 0, "overwrite_b": False, "check_finite": True}, fresh=True, array_result=True,
         tangents=_checked("lu_solve", {"factors": "lu_solve_tangent(factors_dot, factors, ans)",
                                        "b": "scipy_linalg.lu_solve(factors, b_dot)"}),
         derivable=_lu_solve_derivable, note="of lu_factor's pair (lu, piv); trans=0"),
    table.nograd(lu_helpers.lu_rows, ("piv",), not_symbolic="the row order of LAPACK's swaps: whole numbers"),
    rule(sl.expm, ("x",), EXPM, fresh=True, array_result=True, shape=lambda static, x: x,
         tangents={"x": _frechet("x", "x_dot")},
         note="the Fréchet derivative, from the exponential of a block-triangular matrix of twice the size"),
    rule(sl.solve_triangular, ("x", "y"), _solve_triangular_templates, static=SOLVE_STATIC, fresh=True,
         array_result=True, shape=solve_shape, tangents=_solve_triangular_tangents,
         note="reads the `lower` triangle of x (its diagonal taken as ones with unit_diagonal)"),
    rule(sl.sqrtm, ("x",), {"x": "sqrtm_adjoint(g, ans)"}, static={"disp": True}, fresh=True, array_result=True,
         tangents={"x": "sqrtm_tangent(x_dot, ans)"},
         note="the principal square root, real only (a Sylvester equation; no second derivative)"),
    rule(sl.svd, ("x",), SVD_FORMS["templates"], static={"full_matrices": True, "compute_uv": True,
                                                         "overwrite_a": False, "check_finite": True,
                                                         "lapack_driver": "gesdd"},
         fresh=True, tuple_result=True, tangents=SVD_FORMS["tangents"], derivable=SVD_FORMS["derivable"],
         note="as numpy.linalg.svd"),
    rule(sl.pinv, ("x",), PINV_FORMS["templates"], static={"atol": None, "rtol": None, "return_rank": False,
                                                           "check_finite": True},
         fresh=True, array_result=True, tangents=PINV_FORMS["tangents"], note="as numpy.linalg.pinv"),
    rule(sl.inv, ("x",), {"x": f"-{_inverse_t()} @ g @ {_inverse_t()}"}, static={"overwrite_a": False,
                                                                                "check_finite": True},
         fresh=True, array_result=True, tangents={"x": "-ans @ x_dot @ ans"}),
    # the cofactor matrix, as numpy.linalg.det's: exact at a singular matrix too
    rule(sl.det, ("x",), {"x": "np.asarray(g * np.ones_like(ans))[..., None, None] * cofactor(x)"},
         static={"overwrite_a": False, "check_finite": True}, fresh=True,
         tangents={"x": "np.sum(cofactor(x) * x_dot, axis=(-2, -1))"}, note="as numpy.linalg.det"),
]
