"""Draws from a random generator the function makes itself::

    rng = np.random.default_rng(0)
    z = rng.standard_normal(3)          # a constant of the function: the same numbers at each call
    return np.sum(np.sin(x * z))

A generator seeded in the function is made anew, from the same seed, each time the function
runs, so its draws are the same numbers at every run: each draw is a constant of the function
(no gradient), computed as written and in the order written (a draw is an effect: the next one
depends on it, so none is dropped or moved).  A transformation that runs the code more than once
a call (a Jacobian's rows, a Hessian, vmap) makes the generator again each time and draws the
same numbers, as a Python loop over examples calling the function does.  A generator made without
a seed (``np.random.default_rng()``) draws other numbers at each run: only the transformations
that run the code once a call take it (driver/lowering.py refuses the others at its line).

A draw whose arguments carry a gradient (``rng.normal(loc=x)``) is refused where it is
differentiated: its value moves with ``x`` in a way the draw's code does not say.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Var, all_nodes
from ..rules.draws import GENERATORS
from . import library_calls
from .expressions import ExpressionLowerer
from .static_values import static_value

#: what makes a generator (a `np.random.Generator` or a legacy `RandomState`)
CONSTRUCTORS = GENERATORS

#: the methods of a generator (those an array has too are not among them: none is)
METHODS = frozenset(
    n for cls in (np.random.Generator, np.random.RandomState) for n in dir(cls) if not n.startswith("_")
) - frozenset(n for n in dir(np.ndarray) if not n.startswith("_"))

#: methods that change their argument in place
_IN_PLACE = frozenset({"shuffle"})


def unseeded(func, node: ast.Call) -> bool:
    """Whether `node` makes a generator without a seed (its numbers differ at each run)."""
    return (
        any(func is c for c in CONSTRUCTORS)
        and not node.args
        and not any(k.arg in ("seed", "bit_generator") for k in node.keywords)
    )


def lower_draw(lower: ExpressionLowerer, node: ast.Call, target):
    """``rng.normal(size=3)`` of a generator the function made: a constant, else None (not such a call)."""
    callee = node.func
    if not isinstance(callee, ast.Attribute) or callee.attr not in METHODS:
        return None
    owner = _generator(lower, callee.value)
    if owner is None:
        return None
    state = lower.state
    spelled = ast.unparse(callee)
    if callee.attr in _IN_PLACE:
        raise state.error(
            node,
            f"{spelled}() changes its argument in place, which srcdiff does not follow",
            f"draw a new order instead: x = x[{ast.unparse(callee.value)}.permutation(len(x))]",
        )
    method = getattr(np.random.Generator, callee.attr, None) or getattr(np.random.RandomState, callee.attr)
    refusal = state.error(
        node,
        f"{spelled}() draws from a distribution whose parameters carry a gradient: "
        "the draw's derivative is not the derivative of its code",
        "draw standard values and transform them (loc + scale * rng.standard_normal(size)), "
        "or pass srcdiff.stop_gradient(...) of the parameters",
    )
    return library_calls.constant_call(lower, node, method, refusal, target, owner=owner)


def _generator(lower: ExpressionLowerer, owner: ast.expr) -> Var | None:
    """The variable holding the generator `owner` names or makes here, else None."""
    state = lower.state
    if isinstance(owner, ast.Call):
        made = static_value(state, owner.func, record=False)
        if not any(made is c for c in CONSTRUCTORS):
            return None
        found = lower.expr(owner)
        return found if isinstance(found, Var) else None
    if not isinstance(owner, ast.Name) or not isinstance(state.env.get(owner.id), Var):
        return None
    var = state.env[owner.id]
    root = state.root_block or state.block
    nodes = all_nodes(root) + ([] if state.block is root else all_nodes(state.block))
    maker = next((n for n in nodes if n.out == var), None)
    func = getattr(getattr(maker, "rule", None), "func", None)
    return var if any(func is c for c in CONSTRUCTORS) else None


__all__ = ["CONSTRUCTORS", "METHODS", "lower_draw", "unseeded"]
