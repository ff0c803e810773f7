"""Calls of ``scipy.stats.norm``'s methods spelled as numba functions (stats_laws.py):
``norm.cdf(x, loc, scale)`` becomes ``stats_norm_cdf(x, loc, scale)``, however the method
was reached (``scipy.stats.norm.cdf``, ``from scipy.stats import norm``, ``Phi = norm.cdf``);
so do ``scipy.stats.t``'s (``stats_t_logpdf(x, df, loc, scale)``),
``multivariate_normal.logpdf``/``pdf``'s (stats_t_mvn.py) and the closed forms of ``laplace``,
``logistic``, ``cauchy`` and ``expon`` (stats_location_laws.py) and ``poisson.logpmf``/``pmf``
(stats_counts.py).

numba compiles no SciPy; the normal law's functions are SciPy's special functions of
``z = (x - loc) / scale`` (``ndtr``, ``log_ndtr``, ``ndtri``: special.py), so they compile.
A call with other keywords, or of another law, is left as it is: numba refuses it at the
user's line.  This module imports no SciPy: it reads what the code's names are.
"""

from __future__ import annotations

import ast
import sys

from .scipy_calls import scope_of, value_of

MODULE = "srcdiff.backend.numba.stats_laws"
MORE = "srcdiff.backend.numba.stats_t_mvn"
#: the methods stats_laws.py has, with their parameters (SciPy's names and defaults)
METHODS = {name: (("x", None), ("loc", 0.0), ("scale", 1.0))
           for name in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")}
METHODS_OF_X = dict(METHODS)  # (a law without ppf)
METHODS["ppf"] = (("q", None), ("loc", 0.0), ("scale", 1.0))
LOCATION = "srcdiff.backend.numba.stats_location_laws"
#: each law: its methods with their parameters, and the module of their numba functions
LAWS = {"norm": (METHODS, MODULE),
        "t": ({name: (("x", None), ("df", None), ("loc", 0.0), ("scale", 1.0))
               for name in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")}, MORE),
        "multivariate_normal": ({name: (("x", None), ("mean", 0.0), ("cov", 1.0)) for name in ("pdf", "logpdf")},
                                MORE),
        **{law: (METHODS_OF_X, LOCATION) for law in ("laplace", "logistic", "cauchy", "expon")},
        "poisson": ({name: (("k", None), ("mu", None), ("loc", 0.0)) for name in ("logpmf", "pmf")},
                    "srcdiff.backend.numba.stats_counts")}


def module_of(helper: str) -> str:
    """The module of the numba function `helper` (``stats_t_cdf``...) that `spell` named."""
    return next(home for law, (_, home) in LAWS.items() if helper.startswith(f"stats_{law}_"))


def spell(tree: ast.FunctionDef, function) -> set[str]:
    """Rewrite, in place, the calls in `tree` (the source of the generated `function`) of
    ``scipy.stats.norm``'s methods; the numba functions the new calls name."""
    stats = sys.modules.get("scipy.stats")
    if stats is None:  # nothing in the program reached scipy.stats
        return set()
    scope = scope_of(function)
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    used = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        found = next(((name, m) for name, (methods, _) in LAWS.items()
                      if (m := _method(node.func, scope, local, getattr(stats, name), methods))), None)
        if found is None:
            continue
        name, method = found
        args = _bound(node, LAWS[name][0][method])
        if args is not None:
            helper = f"stats_{name}_{method}"
            node.func, node.args, node.keywords = ast.Name(helper, ast.Load()), args, []
            used.add(helper)
    covariances = _Covariances()
    covariances.visit(tree)
    return used | covariances.used


class _Covariances(ast.NodeTransformer):
    """The multivariate normal's gradient reads its covariance as ``cov if np.ndim(cov) == 2
    else np.diag(d)`` (rules/scipy_stats.py, a cov whose ndim it did not know): numba types
    both sides, and a diagonal's side is no matrix where cov is one.  It becomes
    ``stats_multivariate_normal_covariance(cov, d)``, compiled for cov's type."""

    def __init__(self):
        self.used = set()

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        if not _covariance_test(node.test, node.body) or not _diagonal(node.orelse):
            return node
        return self._call(node.body, node.orelse.args[0])

    def visit_If(self, node: ast.If):
        """The same as statements (forward mode's): ``if ndim_of(cov) == 2: t = cov`` / ``else: ...;
        t = np.diag(d)``: the other side's statements before the last run either way (they make
        ``d`` from cov and the points' shape: values of cov's shape, no error where cov is a
        matrix), then ``t = stats_multivariate_normal_covariance(cov, d)``."""
        self.generic_visit(node)
        body, other = node.body, node.orelse
        if not (len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1
                and isinstance(body[0].targets[0], ast.Name) and other and isinstance(other[-1], ast.Assign)
                and ast.unparse(other[-1].targets) == ast.unparse(body[0].targets)
                and _covariance_test(node.test, body[0].value) and _diagonal(other[-1].value)):
            return node
        made = ast.Assign(body[0].targets, self._call(body[0].value, other[-1].value.args[0]))
        return [*other[:-1], ast.copy_location(made, node)]

    def _call(self, cov: ast.expr, diagonal: ast.expr) -> ast.Call:
        helper = "stats_multivariate_normal_covariance"
        self.used.add(helper)
        return ast.Call(ast.Name(helper, ast.Load()), [cov, diagonal], [])


def _covariance_test(test: ast.expr, value: ast.expr) -> bool:
    """``np.ndim(cov) == 2`` (or ``ndim_of(cov) == 2``) with `value` the name ``cov``."""
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Call) and len(test.left.args) == 1
            and ast.unparse(test.left.func) in ("np.ndim", "ndim_of") and isinstance(value, ast.Name)
            and ast.unparse(test.left.args[0]) == value.id and ast.unparse(test.comparators[0]) == "2")


def _diagonal(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) == "np.diag" and len(node.args) == 1


def _method(func: ast.expr, scope: dict, local: set, law, methods: dict) -> str | None:
    """The method of `law` that `func` names (``norm.cdf``, or a name bound to it), or None."""
    if isinstance(func, ast.Attribute) and func.attr in methods:
        owner = func.value.id if isinstance(func.value, ast.Name) and func.value.id not in local else None
        value = scope.get(owner) if owner is not None else value_of(func.value, scope, local)
        return func.attr if value is law else None
    value = value_of(func, scope, local)
    if value is None:
        return None
    return next((name for name in methods if _same(value, getattr(law, name))), None)


def _same(value, method) -> bool:
    try:
        return bool(value == method)
    except Exception:  # noqa: BLE001  an array, or an object whose == raises: not the method
        return False


def _bound(node: ast.Call, params: tuple) -> list | None:
    """The call's arguments by position, defaults where left out; None if they do not bind."""
    names = [p for p, _ in params]
    given = dict(zip(names, node.args))
    for k in node.keywords:
        if k.arg is None or k.arg not in names or k.arg in given:
            return None
        given[k.arg] = k.value
    if len(node.args) > len(names) or names[0] not in given:
        return None
    return [given.get(p, ast.Constant(default)) for p, default in params]
