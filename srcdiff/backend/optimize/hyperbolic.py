"""A hyperbolic sine over the cosine of the same value: its tangent.

The adjoint of ``np.log(np.cosh(x))`` is the log's ``g / c`` (``c = np.cosh(x)``) times the cosh's
``np.sinh(x)``: ``g / c * np.sinh(x)``, a cosine kept from the forward pass, a sine, a quotient and
a product over the array where a hand writes ``g * np.tanh(x)``.  This pass writes the tangent
for ``A / C * np.sinh(x)``, ``A * np.sinh(x) / C`` and ``np.sinh(x) / C``, where `C` is
``np.cosh(x)`` or a name bound once to it (and `x`'s names are bound once, so both read one `x`);
the same for ``math``'s functions.  The cosine's pass goes with it where nothing else reads it.

Not bitwise: ``np.tanh`` rounds once where the quotient rounded three times (within an ulp or two),
and past ``|x| = 710``, where sinh and cosh overflow and the quotient is ``inf / inf = NaN``, the
tangent gives the derivative, ±1.  Not in code srcdiff differentiates again (its Hessian keeps the
rules' own second derivative).
"""

from __future__ import annotations

import ast

from .liveness import bound_once

_MODULES = ("np", "math")


def tangents(func: ast.FunctionDef) -> bool:
    """Rewrite every sinh over cosh of one value in `func` as its tanh (see the module)."""
    rewriter = _Tangents(bound_once(func))
    for place, stmt in enumerate(func.body):
        rewriter.place = place
        rewriter.visit(stmt)
    return rewriter.changed


class _Tangents(ast.NodeTransformer):
    def __init__(self, bound: dict[str, tuple[int, ast.expr]]):
        self.bound, self.place, self.changed = bound, 0, False

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right = node.left, node.right
        if isinstance(node.op, ast.Div):
            found = self._over_cosh(left, right)
            if found is not None:  # sinh(x) / C
                return self._done(found)
            if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mult):  # A * sinh(x) / C
                found = self._over_cosh(left.right, right)
                if found is not None:
                    return self._done(ast.BinOp(left.left, ast.Mult(), found))
        if isinstance(node.op, ast.Mult) and isinstance(left, ast.BinOp) and isinstance(left.op, ast.Div):
            found = self._over_cosh(right, left.right)  # A / C * sinh(x)
            if found is not None:
                return self._done(ast.BinOp(left.left, ast.Mult(), found))
        return node

    def _done(self, node: ast.expr) -> ast.expr:
        self.changed = True
        return node

    def _over_cosh(self, sine: ast.expr, cosine: ast.expr) -> ast.Call | None:
        """``module.tanh(x)`` when `sine` is ``module.sinh(x)`` and `cosine` is ``module.cosh(x)``
        (or a name bound once to it), `x`'s names bound once before this statement."""
        module = _called(sine, "sinh")
        if module is None:
            return None
        if isinstance(cosine, ast.Name):
            found = self.bound.get(cosine.id)
            if found is None or found[0] >= self.place:
                return None
            cosine = found[1]
        x = sine.args[0]
        if _called(cosine, "cosh") != module or ast.dump(cosine.args[0]) != ast.dump(x):
            return None
        names = {n.id for n in ast.walk(x) if isinstance(n, ast.Name)}
        if not all(n in self.bound and self.bound[n][0] < self.place for n in names):
            return None
        return ast.Call(ast.Attribute(ast.Name(module, ast.Load()), "tanh", ast.Load()), [x], [])


def _called(node: ast.expr, name: str) -> str | None:
    """The module of ``module.name(x)`` (np or math), with one positional argument."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
            and isinstance(node.func.value, ast.Name) and node.func.value.id in _MODULES \
            and len(node.args) == 1 and not node.keywords:
        return node.func.value.id
    return None
