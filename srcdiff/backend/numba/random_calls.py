"""``np.random.default_rng(seed)`` made inside the function, under numba: NumPy's draws.

numba has no ``np.random.Generator``.  The draws of a generator the function seeds itself
are constants of the function (the same numbers on every call), so they are made by NumPy
itself, through numba's object mode, in the order the code makes them:

    rng = np.random.default_rng(0)              rng = random_open(0)
    m = rng.random((n, k)) > rate        ->     m = random_draw(rng, "random", (n, k), ()) > rate
    e = rng.normal(0.0, s, size=x.shape)        e = random_draw(rng, "normal", x.shape, (0.0, s))

`rng` is then a number, the key of the generator in this process's table
(random_draws.py), and every draw is NumPy's, bit for bit.  The methods of `DRAWS` with
their parameters given by position or by name (``size`` among them; ``choice``'s ``replace`` and ``p``
after it, passed among the parameters) are spelled so; any
other use of the generator (another method, ``dtype=``, passing it on) is left as written
and numba refuses it at its line.  This module reads the code only (no numba).
"""

from __future__ import annotations

import ast

#: Generator methods -> their parameters before ``size``, in NumPy's order
DRAWS = {"random": (), "standard_normal": (), "standard_exponential": (), "standard_cauchy": (),
         "normal": ("loc", "scale"), "uniform": ("low", "high"), "integers": ("low", "high"),
         "exponential": ("scale",), "laplace": ("loc", "scale"), "logistic": ("loc", "scale"),
         "lognormal": ("mean", "sigma"), "gumbel": ("loc", "scale"), "beta": ("a", "b"),
         "gamma": ("shape", "scale"), "standard_gamma": ("shape",), "chisquare": ("df",),
         "rayleigh": ("scale",), "poisson": ("lam",), "binomial": ("n", "p"), "choice": ("a",)}
#: the methods whose draws are integers
INTEGER_DRAWS = {"integers", "poisson", "binomial"}
#: ``choice``'s parameters after ``size``, with NumPy's defaults: passed among the parameters
CHOICE_AFTER = (("replace", True), ("p", None))


def _is_default_rng(node: ast.expr) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "default_rng" and isinstance(func.value, ast.Attribute) \
        and func.value.attr == "random" and isinstance(func.value.value, ast.Name) and func.value.value.id == "np" \
        and len(node.args) <= 1 and not node.keywords


def rewrite(func: ast.FunctionDef) -> bool:
    """Spell `func`'s generators and their draws, in place; whether there was one."""
    names = {n.targets[0].id for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and _is_default_rng(n.value)}
    found = False
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DRAWS \
                and (isinstance(node.func.value, ast.Name) and node.func.value.id in names
                     or _is_default_rng(node.func.value)):
            found = _draw(node) or found
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _is_default_rng(node):
            node.func = ast.Name("random_open", ast.Load())
            node.args = node.args or [ast.Constant(None)]
            found = True
    return found


def _draw(node: ast.Call) -> bool:
    """``rng.method(...)`` as ``random_draw(rng, "method", size, (params...))``, in place, if its
    arguments are of the forms NumPy's parameters take; whether it was."""
    method = node.func.attr
    after = CHOICE_AFTER if method == "choice" else ()
    params = (*DRAWS[method], "size", *(name for name, _ in after))
    if len(node.args) > len(params) or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    given = dict(zip(params, node.args))
    for keyword in node.keywords:
        if keyword.arg not in params or keyword.arg in given:
            return False
        given[keyword.arg] = keyword.value
    size = given.pop("size", ast.Constant(None))
    later = [given.pop(name, ast.Constant(default)) for name, default in after]  # (choice's replace, p)
    values = [given[p] for p in DRAWS[method] if p in given]
    if len(values) != len(given) or [p for p in DRAWS[method] if p in given] != list(DRAWS[method][:len(values)]):
        return False  # a later parameter without an earlier one (``normal(scale=2.0)``): not by position
    if after and len(values) != len(DRAWS[method]):
        return False
    node.args = [node.func.value, ast.Constant(method), size, ast.Tuple(values + later, ast.Load())]
    node.keywords = []
    node.func = ast.Name("random_draw", ast.Load())
    return True


__all__ = ["CHOICE_AFTER", "DRAWS", "INTEGER_DRAWS", "rewrite"]
