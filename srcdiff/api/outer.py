"""A derivative of a srcdiff derivative called with trees, methods or partials.

``jacobian(grad(f))``, ``vjp(grad(f), ...)`` and ``grad(grad(f))`` differentiate the code
the inner gradient runs (driver/higher.py).  For a call with trees (a dict of settings, a
NamedTuple, a dataclass), a method or a partial, that code is a function of the call's
leaves (api/flatcall.py): here the outer `wrt` (the user's parameters, or paths into them)
becomes that function's leaves, and the plan that builds the outer results back into the
structure of those parameters (a Jacobian with respect to a dict is a dict).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..errors import SrcDiffError
from ..frontend.parse import parse_function
from .binding import normalize_wrt
from .flatcall import FlatCall, plan_targets


class TreeGradientError(SrcDiffError):
    """A derivative of `gradient`, a plain gradient whose value is a tree: a block of the Hessian of
    its function (`plain_tree_gradient`), which srcdiff.hessian and forward mode over the gradient take."""

    def __init__(self, message: str, location, hint: str, gradient):
        super().__init__(message, location, hint)
        self.gradient = gradient


def plain_tree_gradient(gradient, wrt) -> tuple | None:
    """For plain `gradient` (of f, with respect to one parameter A, no path into it), and an outer
    derivative with respect to `wrt` (B, one parameter or a tuple): (the name of A, the targets of B,
    whether B is A), the outer derivative being the Hessian's block H[B][A]; None for anything else."""
    front = gradient.front
    if front.has_aux or gradient.options.with_value or gradient.options.jit or gradient.options.debug \
            or front.tuple_result or len(front.targets) != 1 or front.targets[0][1]:
        return None
    try:
        found = normalize_wrt(wrt, None, list(front.names), front.target.hidden, gradient.__qualname__)
    except SrcDiffError:
        return None
    return front.targets[0][0], found, found == (front.targets, front.tuple_result)


def leaf_code(derivative, positional: tuple):
    """The code a call of `derivative` (a srcdiff gradient, or a gradient of one) with bound
    `positional` arguments runs, as a function srcdiff differentiates again; the inner
    `FlatCall` whose leaves that function takes (None: it takes `positional` as they are);
    and the argument that function's value is the derivative with respect to (its shape)."""
    if not hasattr(derivative, "derivable"):  # a Derivative: its own outer gradient's code
        return derivative.leaf_code(positional)
    gradient = derivative
    if len(gradient.wrt) > 1 or gradient.tuple_result:
        return gradient.generated_for(positional), None, None  # (refused there: one gradient at a time)
    func, call, _ = gradient.derivable(positional, pick=0)
    if call.flat is None:
        return func, None, positional[gradient.names.index(gradient.wrt[0])]
    (sub, chosen), = call.plan
    if len(chosen) > 1 or (sub is not None and sub.is_container):
        name = gradient.wrt[0]
        parsed = parse_function(gradient.front.target.func)  # at the def line: no line of the user's is at fault
        refusal = parsed.error(parsed.tree, f"{gradient.__qualname__}: its gradient with respect to {name} is a tree "
                               f"({len(chosen)} leaves), and a derivative of a gradient takes one array",
                               "differentiate one leaf at a time (a path: wrt=\"params['W']\"), or use "
                               "srcdiff.hessian(f), which takes trees")
        raise TreeGradientError(refusal.reason, refusal.location, refusal.hint, gradient)
    return func, call, call.args[call.names.index(chosen[0])]


def outer_call(derivative, positional: tuple, wrt, what: str) -> tuple[FlatCall, FlatCall | None, Any]:
    """The plain call an outer derivative of `derivative` with respect to `wrt` differentiates
    (the inner code, its arguments: leaves for a call with trees, the leaves differentiated,
    and the plan that builds per-leaf results back into the `wrt` targets' structure), the
    inner call of trees (None: none), and the argument the inner code's value is shaped like."""
    plain, inner, value = leaf_code(derivative, positional)
    if inner is None:
        names = list(inspect.signature(plain).parameters)
        targets, several = normalize_wrt(wrt, None, names, (), what)
        if any(path for _, path in targets):
            raise SrcDiffError(f"wrt={wrt!r}: no argument of this call is a tree", hint="name a parameter")
        chosen = tuple(root for root, _ in targets)
        return FlatCall(plain, tuple(positional), names, chosen, [(None, [n]) for n in chosen], several), None, value
    targets, several = normalize_wrt(wrt, None, list(inner.user_names), inner_hidden(inner), what)
    leaves, plan = plan_targets(targets, inner.flat.params)
    # (no `flat`: its arguments are leaves already, which a Jacobian's batched rows take)
    return FlatCall(plain, inner.args, list(inner.names), tuple(leaves), plan, several), inner, value


_FIXES = {
    "value_and_grad": "differentiate srcdiff.grad(f); srcdiff.value_and_grad(srcdiff.grad(f)) gives the "
                      "gradient with its derivative",
    "has_aux": "differentiate the loss alone: def loss(...): return f(...)[0], then "
               "srcdiff.grad(srcdiff.grad(loss)); the aux is what f returns",
    "jit": "differentiate srcdiff.grad(f) (srcdiff.hvp takes srcdiff.grad(f, jit=\"numba\"))",
    "debug": "differentiate srcdiff.grad(f) without debug=True",
}


#: the same, for a gradient given to srcdiff.vmap
_BATCHING_FIXES = {
    "value_and_grad": "batch the value and the gradient apart: srcdiff.vmap(f) and srcdiff.vmap(srcdiff.grad(f))",
    "has_aux": "batch the loss's gradient (srcdiff.vmap(srcdiff.grad(loss)), loss returning f(...)[0]) and "
               "srcdiff.vmap(f) for the aux",
    "jit": "give jit to vmap: srcdiff.vmap(srcdiff.grad(f), jit=\"numba\") compiles the batched gradient",
    "debug": "batch srcdiff.grad(f) without debug=True",
}


def refuse_composite(gradient, batching: bool = False) -> None:
    """Refuse, at the def line of the user's function, differentiating again (or, `batching`,
    batching with srcdiff.vmap) a gradient that is not plain (value_and_grad, has_aux, jit or
    debug), saying what to write instead."""
    if hasattr(gradient, "derivable"):
        options = gradient.options
        kind = next(k for on, k in ((options.with_value, "value_and_grad"), (gradient.front.has_aux, "has_aux"),
                                    (options.jit, "jit"), (True, "debug")) if on)
    else:  # value_and_grad of a gradient
        kind = "value_and_grad"
    done, fixes = ("batched (srcdiff.vmap)", _BATCHING_FIXES) if batching else ("differentiated again", _FIXES)
    message = f"{gradient.__qualname__}: only a plain gradient (not {kind}) can be {done}"
    user = gradient
    while not hasattr(user, "derivable"):  # a gradient of a gradient: the user's function is the innermost's
        user = user.inner
    try:
        parsed = parse_function(user.front.target.func)
    except SrcDiffError:
        raise SrcDiffError(message, hint=fixes[kind]) from None
    raise parsed.error(parsed.tree, message, fixes[kind])


def inner_hidden(call: FlatCall) -> tuple:
    """The parameters of the flattened function that the user's callable does not show (``self``)."""
    shown = set(call.user_names)
    return tuple(name for name, _, _ in call.flat.params if name not in shown) if call.flat is not None else ()


__all__ = ["TreeGradientError", "plain_tree_gradient", "inner_hidden", "leaf_code", "outer_call", "refuse_composite"]
