"""`vmap` of a forward-mode derivative: ``vmap(srcdiff.jvp_function(f), in_axes=((0, None), (0, None)))``
maps ``(primals, tangents)`` as JAX's ``vmap(lambda x, t: jvp(f, (x,), (t,)))`` does, and
``vmap(srcdiff.jvp_function(srcdiff.grad(f)))`` gives per-example Hessian-vector products
(forward over reverse).  The forward sweep srcdiff generates for one example is read back
(driver/higher.py) and batched like any function (api/vmap.py), so the whole batch is one call
whose source `.source` prints; where it cannot be batched (a tree, a gradient of several
parameters, a construct with no batching rule) the call runs one example at a time (the caller's
loop over the examples, with the reason)."""

from __future__ import annotations

import functools

import numpy as np

from ..driver.higher import generated_function
from ..errors import SrcDiffError
from .forward import JvpFunction
from .gradients import GradFunction
from .hvp import hvp
from .vmap_examples import example_of, is_tree


def forward_axes(axes) -> tuple | None:
    """(the primals' axes, the tangents' axes) of a JvpFunction's in_axes, each a tuple or one int or None;
    None where they are not given so (a tree of axes deeper than that: one example at a time)."""
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        return None
    if not all(a is None or type(a) is int or isinstance(a, (tuple, list)) and all(b is None or type(b) is int
                                                                                 for b in a) for a in axes):
        return None
    return tuple(axes)


def flat_forward(jvp: JvpFunction, args: tuple, axes: tuple):
    """(the function of one example's forward sweep, its arguments, their in_axes) for a batched call of `jvp`
    with ``args = (primals, tangents)``: the sweep srcdiff compiled for the first example, read back as a
    function of the primals and of the tangents of the parameters it differentiates; or a `SrcDiffError`
    saying why this call is not batched so (the caller then runs it one example at a time)."""
    primals, tangents = args
    if not (isinstance(primals, tuple) and isinstance(tangents, tuple) and len(primals) == len(tangents)):
        raise SrcDiffError("srcdiff.vmap of a jvp takes (primals, tangents), two tuples of one length")
    count = len(primals)
    primal_axes, tangent_axes = (tuple(a) if isinstance(a, (tuple, list)) else (a,) * count for a in axes)
    if len(primal_axes) != count or len(tangent_axes) != count:
        raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} gives another number of axes than the {count} primals")
    if any(is_tree(v) for v in primals + tangents) or jvp.jit:
        raise SrcDiffError("a jvp of trees (or with jit) is mapped one example at a time")
    gradient = jvp.func if isinstance(jvp.func, GradFunction) else None
    if gradient is not None and (gradient.tuple_result or len(gradient.wrt) != 1):
        raise SrcDiffError("a jvp of a gradient of several parameters is mapped one example at a time")
    first = (tuple(example_of(v, a, 0) for v, a in zip(primals, primal_axes)),
             tuple(example_of(v, a, 0) for v, a in zip(tangents, tangent_axes)))
    jvp(*first)  # (compiles the sweep for this signature: the code every example runs)
    made, found = jvp.last_compiled()
    if made is None or found is None or len(found.params) != count:
        raise SrcDiffError("this jvp's sweep takes other arguments than its primals (a method, a partial)")
    if any(tangents[i] is None for i in made.positions):
        raise SrcDiffError("a tangent of None for a float primal")
    func = generated_function(made, location=found.parsed.location)
    flat = list(primals) + [_float_tangent(tangents[i]) for i in made.positions]
    flat_axes = list(primal_axes) + [tangent_axes[i] for i in made.positions]
    return func, flat, flat_axes


def hvp_of(f):
    """The function whose Hessian-vector products ``vmap(partial(srcdiff.hvp, g))`` maps (`g`), else None:
    mapped as ``vmap(jvp_function(grad(g)))``, batched in one call (`hvp_arguments`)."""
    if isinstance(f, functools.partial) and f.func is hvp and len(f.args) == 1 and not f.keywords \
            and not isinstance(f.args[0], GradFunction) and callable(f.args[0]):
        return f.args[0]
    return None


def hvp_arguments(args: tuple, axes: list) -> tuple:
    """(the primals and tangents, their in_axes) of ``jvp_function(grad(g))`` for a call ``hvp(g, x, v, *rest)``
    mapped over `args` = ``(x, v, *rest)``: the other arguments' tangents zeros (None for what is not a float)."""
    if len(args) < 2:
        raise SrcDiffError("srcdiff.hvp takes x and v", hint="vmap(partial(srcdiff.hvp, f))(X, V, *args)")
    rest, rest_axes = args[2:], list(axes[2:])
    zeros = tuple(np.zeros_like(a) if np.asarray(a).dtype.kind == "f" else None for a in rest)
    tangent_axes = tuple(a if z is not None else None for a, z in zip(rest_axes, zeros))
    return ((args[0], *rest), (args[1], *zeros)), ((axes[0], *rest_axes), (axes[1], *tangent_axes))


def _float_tangent(value):
    """A tangent as the sweep takes it: a list of numbers as its array."""
    return np.asarray(value, dtype=float) if isinstance(value, list) else value


__all__ = ["flat_forward", "forward_axes", "hvp_arguments", "hvp_of"]
