"""``scipy.stats`` spellings that have no rule of their own, rewritten right after parsing into
the calls and arithmetic that do:

- a frozen distribution, ``d = stats.gamma(a, scale=s)`` then ``d.logpdf(x)``, ``d.cdf(x)``,
  ``d.mean()``: each method call is the distribution's own with the frozen arguments after the
  method's (``stats.gamma.logpdf(x, d_a, scale=d_scale)``, SciPy's order); the frozen arguments are
  kept in fresh names where ``d`` is assigned, so a name rebound between the two lines is read as it
  was when ``d`` was made, as SciPy froze it.  ``stats.gamma(a, scale=s).logpdf(x)`` likewise.
  Read so when ``d`` is assigned once in the function and every use of it calls a method;
- moments, ``stats.gamma.mean(a, scale=s)``, ``.var``, ``.std`` (also of a frozen law) of ``norm``,
  ``expon``, ``laplace``, ``gamma``, ``chi2``, ``beta``, ``lognorm`` and ``poisson``: their closed forms
  (``loc + a * scale``, ``a * scale ** 2``, ...), differentiated like the user's arithmetic.

Anything else (``d.rvs()``, ``d`` passed on or rebound, another law's moments) is left as written,
and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .naming import inner_blocks

#: a law's moments over its parameters (the shapes, then loc and scale): mean, variance
_MOMENTS = {
    "norm": ("loc", "scale ** 2"),
    "expon": ("loc + scale", "scale ** 2"),
    "laplace": ("loc", "2.0 * scale ** 2"),
    "gamma": ("loc + a * scale", "a * scale ** 2"),
    "chi2": ("loc + df * scale", "2.0 * df * scale ** 2"),
    "beta": ("loc + scale * a / (a + b)", "scale ** 2 * a * b / ((a + b) ** 2 * (a + b + 1.0))"),
    "lognorm": ("loc + scale * np.exp(0.5 * s ** 2)", "scale ** 2 * np.expm1(s ** 2) * np.exp(s ** 2)"),
    "poisson": ("loc + mu", "mu"),
}
_METHODS = {"logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "logpmf", "pmf", "mean", "var", "std"}


def _stats():
    import scipy.stats  # loaded only when a function calls something a scipy.stats law could be
    return scipy.stats


def has_stats_spellings(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether `tree` names something named like a law and calls a law's method."""
    laws = set(_MOMENTS) | {"t", "cauchy", "logistic", "binom", "nbinom", "geom", "stats"}
    named = any(isinstance(n, ast.Name) and n.id in laws or isinstance(n, ast.Attribute) and n.attr in laws
                for n in ast.walk(tree))
    return named and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _METHODS
                         for n in ast.walk(tree))


def _law(names, expr):
    """The scipy.stats law (an rv_continuous / rv_discrete instance) `expr` names, or None."""
    import sys
    if "scipy.stats" not in sys.modules:
        return None
    found = names.resolve(expr)
    return found if isinstance(found, _stats().rv_continuous) or isinstance(found, _stats().rv_discrete) else None


def rewrite_stats(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the spellings above in `tree`'s own statements."""
    frozen = _frozen_names(tree, names)
    _block(tree.body, names, frozen)
    _Calls(names, frozen).visit_body(tree.body)


def _frozen_names(tree, names) -> dict:
    """``{name: (law expression, the frozen call)}`` of names assigned a frozen law once, used only
    for method calls."""
    stores, loads, found = {}, {}, {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            (stores if isinstance(n.ctx, ast.Store) else loads).setdefault(n.id, []).append(n)
    methods = {id(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and isinstance(n.func.value, ast.Name) and n.func.attr in _METHODS}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Call) and _law(names, n.value.func) is not None):
            continue
        name = n.targets[0].id
        if len(stores.get(name, ())) == 1 and all(id(u) in methods for u in loads.get(name, ())) \
                and not any(isinstance(a, ast.Starred) for a in n.value.args) \
                and all(k.arg is not None for k in n.value.keywords):
            found[name] = n
    return found


def _block(body: list, names, frozen: dict) -> None:
    """Each frozen assignment ``d = law(a, scale=s)`` becomes ``d_0 = a; d_scale = s`` (the frozen values)."""
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner, names, frozen)
        if isinstance(stmt, ast.Assign) and any(stmt is a for a in frozen.values()):
            name, call = stmt.targets[0].id, stmt.value
            kept, out = [], []
            for i, arg in enumerate(call.args):
                fresh = names.namer.fresh(f"{name}_{i}")
                out.append(ast.copy_location(ast.Assign([ast.Name(fresh, ast.Store())], arg), stmt))
                kept.append(ast.Name(fresh, ast.Load()))
            keywords = []
            for kw in call.keywords:
                fresh = names.namer.fresh(f"{name}_{kw.arg}")
                out.append(ast.copy_location(ast.Assign([ast.Name(fresh, ast.Store())], kw.value), stmt))
                keywords.append(ast.keyword(kw.arg, ast.Name(fresh, ast.Load())))
            frozen[name] = (call.func, kept, keywords)
            body[k:k + 1] = out or [ast.copy_location(ast.Pass(), stmt)]
            k += len(out) or 1
            continue
        k += 1


class _Calls(ast.NodeTransformer):
    """``d.logpdf(x)`` of a frozen law and ``law(...).logpdf(x)``: the law's method; moments: their forms."""

    def __init__(self, names, frozen: dict):
        self.names, self.frozen = names, frozen

    def visit_body(self, body: list) -> None:
        for i, stmt in enumerate(body):
            body[i] = self.visit(stmt)

    def visit_FunctionDef(self, node):
        return node  # a scope of its own

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _METHODS):
            return node
        owner = func.value
        if isinstance(owner, ast.Name) and isinstance(self.frozen.get(owner.id), tuple):
            law, args, keywords = self.frozen[owner.id]
        elif isinstance(owner, ast.Call) and _law(self.names, owner.func) is not None \
                and not any(isinstance(a, ast.Starred) for a in owner.args) \
                and all(k.arg is not None for k in owner.keywords):
            law, args, keywords = owner.func, owner.args, owner.keywords
        else:
            return self.moment(node, func.value, node.args, node.keywords) if func.attr in ("mean", "var", "std") \
                else node
        if func.attr in ("mean", "var", "std"):
            if node.args or node.keywords:
                return node
            moment = self.moment(node, law, args, keywords, func.attr)
            return moment
        call = ast.Call(ast.Attribute(copy.deepcopy(law), func.attr, ast.Load()),
                        list(node.args) + [copy.deepcopy(a) for a in args],
                        list(node.keywords) + [copy.deepcopy(k) for k in keywords])
        return ast.copy_location(call, node)

    def moment(self, node, law_expr, args, keywords, which=None):
        """``law.mean(...)`` / ``.var`` / ``.std`` of a law with a closed form: that form over the
        arguments; else the call as written (a frozen law's: the law's own method)."""
        which = which or node.func.attr
        law = _law(self.names, law_expr)
        if law is None:
            return node
        name = getattr(law, "name", None)
        as_call = ast.copy_location(ast.Call(ast.Attribute(copy.deepcopy(law_expr), which, ast.Load()),
                                             [copy.deepcopy(a) for a in args],
                                             [copy.deepcopy(k) for k in keywords]), node)
        if name not in _MOMENTS or (name == "lognorm" and self.names.resolve(ast.Name("np", ast.Load())) is not np):
            return as_call
        shapes = [s.strip() for s in (law.shapes or "").split(",") if s.strip()]
        params = shapes + ["loc"] + ([] if isinstance(law, _stats().rv_discrete) else ["scale"])
        if len(args) > len(params) or any(k.arg not in params for k in keywords):
            return as_call  # SciPy raises: lowering reports the call
        given = dict(zip(params, args))
        given.update({k.arg: k.value for k in keywords})
        if any(s not in given for s in shapes):
            return as_call
        given.setdefault("loc", ast.Constant(0.0))
        given.setdefault("scale", ast.Constant(1.0))
        mean, var = _MOMENTS[name]
        form = {"mean": mean, "var": var, "std": f"({var}) ** 0.5"}[which]
        made = _Put(given).visit(ast.parse(form, mode="eval").body)
        return ast.copy_location(made, node)


class _Put(ast.NodeTransformer):
    def __init__(self, given: dict):
        self.given = given

    def visit_Name(self, node):
        if node.id in self.given:
            return copy.deepcopy(self.given[node.id])
        return node


__all__ = ["has_stats_spellings", "rewrite_stats"]
