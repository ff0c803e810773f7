"""Extrema whose value the output does not depend on, held constant (a softmax's max shift).

``P = np.exp(S - S.max(axis=1, keepdims=True)); P = P / P.sum(axis=1, keepdims=True)``
subtracts each row's maximum only to keep ``np.exp`` from overflowing: the softmax's value is
the same whatever number is subtracted from a row.  The derivative through the maximum is
therefore zero, and so are all its higher derivatives.  Differentiated as written, it costs a
tie mask, a count of the ties and a full-size product whose row sums cancel (to rounding).

The proof, per extremum `m` (``np.max``/``np.min``/``np.amax``/``np.amin`` with an axis or
over everything): replace `m` by ``m + d`` for an arbitrary array `d` of `m`'s shape and
follow, exactly, how each value computed from it changes.  A value is

* `Held` — unchanged;
* ``Shift(c)`` — changed by ``+ c * d`` (`d` broadcast against it);
* ``Scale(c)`` — multiplied by ``exp(c * d)``.

The rules are identities of real arithmetic: ``exp(v + c d) = exp(v) exp(c d)``;
``log(v exp(c d)) = log(v) + c d``; products and quotients of scales add and subtract their
``c``; a sum, mean, max or min over axes along which `d` is constant (axes where `m` has
length one) keeps a scale, and the mean, max and min keep a shift (``max(v + k) = max(v) + k``);
shifts add; a shift times a constant written in the code scales its ``c``; powers with a
constant exponent multiply a scale's ``c``.  Every other use of a changed value, a region
(loop, branch) or a call reading one, ends the proof: nothing is held.  When the output is
`Held`, the function's value does not depend on `m`'s at all (for every `d`, not only to first
order), so `m` may be treated as a constant: its rule is replaced by the same computation with
no gradient (`Rule.held`).  Its value is computed as before, so the forward pass (and the
overflow it avoids) is unchanged; the gradient differs from differentiating through `m` only by
the rounding of terms that cancel exactly, and second derivatives (forward over reverse) see the
same constant.  Ties of the extremum no longer matter: their shares summed to that zero.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, Var, all_nodes, link_users, region_reads

EXTREMA = frozenset({"numpy.max", "numpy.min", "numpy.amax", "numpy.amin"})
_ADD = frozenset({"operator.add", "numpy.add"})
_SUB = frozenset({"operator.sub", "numpy.subtract"})
_MUL = frozenset({"operator.mul", "numpy.multiply"})
_DIV = frozenset({"operator.truediv", "numpy.divide", "numpy.true_divide"})
_NEG = frozenset({"operator.neg", "numpy.negative"})
_POW = frozenset({"operator.pow", "numpy.power"})
_KEEPING = frozenset({"numpy.sum", "numpy.mean", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin"})
_SHIFT_KEEPING = frozenset({"numpy.mean", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin"})


@dataclasses.dataclass(frozen=True)
class Change:
    """How a value changes when the extremum is moved by `d`: by ``+ c d`` (kind "shift") or by a
    factor ``exp(c d)`` ("scale"); `axes` are the (negative) axes of the value along which `d`
    varies."""

    kind: str
    c: Fraction
    axes: tuple[int, ...]


HELD = None  # unchanged (not a `Change`)


def hold_shifts(function: Function, shape_of: dict) -> Function:
    """`function` with every extremum its output provably does not depend on held constant."""
    held = [node for node in function.body.nodes
            if isinstance(node, Node) and getattr(node.rule, "name", None) in EXTREMA and not node.rule.nograd
            and _cancels(function, node, shape_of)]
    if not held:
        return function
    ids = {node.id for node in held}
    body = dataclasses.replace(function.body, nodes=[
        dataclasses.replace(item, rule=item.rule.held(), users=[]) if isinstance(item, Node) and item.id in ids
        else item for item in function.body.nodes])
    link_users(all_nodes(body))
    return dataclasses.replace(function, body=body)


def _cancels(function: Function, m: Node, shape_of: dict) -> bool:
    """Whether the output is unchanged when `m`'s value is moved by any `d` (module docstring)."""
    shape = shape_of.get(m.out.name)
    if shape is None or not shape.known:
        return False
    changes: dict[str, Change] = {m.out.name: Change("shift", Fraction(1), _varying(shape.dims))}
    started = False
    for item in function.body.nodes:
        if item is m:
            started = True
            continue
        if not started:
            continue
        if isinstance(item, (Branch, Loop)):
            if any(v.name in changes for v in region_reads(_as_block(item))):
                return False
            continue
        moved = [changes.get(v.name, HELD) if isinstance(v, Var) else HELD for v in item.inputs]
        if all(c is HELD for c in moved):
            continue
        change = _through(item, moved, shape_of)
        if change is False:
            return False
        if change is not HELD:
            changes[item.out.name] = change
        else:
            changes.pop(item.out.name, None)
    output = function.output
    return not (isinstance(output, Var) and output.name in changes)


def _as_block(region) -> Block:
    """A block holding `region` alone, so `region_reads` lists what it reads."""
    return Block([region])


def _varying(dims) -> tuple[int, ...]:
    """The negative axes of an array of `dims` that may have a length other than one."""
    return tuple(i - len(dims) for i, d in enumerate(dims) if d != "1")


def _made(kind: str, c: Fraction, axes) -> Change | None:
    return HELD if c == 0 else Change(kind, c, axes)


def _through(node: Node, moved: list, shape_of: dict):
    """The `Change` of `node`'s value from its operands' (`moved`); False: not known."""
    name, inputs = getattr(node.rule, "name", None), node.inputs
    if name == "copy":
        return moved[0]
    if name in ("numpy.exp", "numpy.log", "numpy.sqrt", "numpy.square") or name in _NEG:
        (a,) = moved if len(moved) == 1 else (False,)
        if a is False:
            return False
        if name in _NEG:
            return _made(a.kind, -a.c if a.kind == "shift" else a.c, a.axes)
        wanted = "shift" if name == "numpy.exp" else "scale"
        if a.kind != wanted:
            return False
        factor = {"numpy.exp": 1, "numpy.log": 1, "numpy.sqrt": Fraction(1, 2), "numpy.square": 2}[name]
        return _made("scale" if name != "numpy.log" else "shift", a.c * factor, a.axes)
    if len(moved) == 2 and (name in _ADD | _SUB | _MUL | _DIV | _POW):
        return _binary(name, moved, inputs)
    if name in _KEEPING and len(moved) == 1:
        return _reduced(node, moved[0], shape_of)
    return False


def _binary(name: str, moved: list, inputs):
    a, b = moved
    if name in _POW:
        k = _constant(inputs[1])
        if b is not HELD or a.kind != "scale" or k is None:
            return False
        return _made("scale", a.c * k, a.axes)
    if a is not HELD and b is not HELD and a.axes != b.axes:
        return False
    if name in _ADD | _SUB:
        if all(x is HELD or x.kind == "shift" for x in moved):
            ca, cb = (x.c if x is not HELD else 0 for x in moved)
            return _made("shift", ca - cb if name in _SUB else ca + cb, (a if a is not HELD else b).axes)
        if a is not HELD and b is not HELD and a.kind == b.kind == "scale" and a.c == b.c:
            return a  # exp(c d) u + exp(c d) w = exp(c d) (u + w)
        return False
    # products and quotients
    if (a is HELD or a.kind == "scale") and (b is HELD or b.kind == "scale"):
        ca = a.c if a is not HELD else 0
        cb = b.c if b is not HELD else 0
        return _made("scale", ca + cb if name in _MUL else ca - cb, (a if a is not HELD else b).axes)
    shift, other, k = (a, b, _constant(inputs[1])) if b is HELD else (b, a, _constant(inputs[0]))
    if other is not HELD or k is None or shift.kind != "shift" or (name in _DIV and shift is b) or k == 0:
        return False
    return _made("shift", shift.c * k if name in _MUL else shift.c / k, shift.axes)


def _constant(operand) -> Fraction | None:
    """The number a constant written in the code stands for (exactly), else None."""
    if isinstance(operand, Const) and type(operand.value) in (int, float):
        try:
            return Fraction(operand.value)
        except (OverflowError, ValueError):  # inf, nan
            return None
    return None


def _reduced(node: Node, a: Change, shape_of: dict):
    """A sum, mean, max or min of a changed value over axes along which `d` is constant."""
    shape = shape_of.get(node.inputs[0].name) if isinstance(node.inputs[0], Var) else None
    if shape is None or not shape.known or (a.kind == "shift" and node.rule.name not in _SHIFT_KEEPING):
        return False
    if set(node.static) - {"axis", "keepdims"}:
        return False
    ndim, axis = shape.ndim, node.static.get("axis")
    if axis is None:
        summed = set(range(-ndim, 0))
    else:
        items = axis if isinstance(axis, tuple) else (axis,)
        if not all(type(i) is int and -ndim <= i < ndim for i in items):
            return False
        summed = {i % ndim - ndim for i in items}
    if summed & set(a.axes):
        return False
    if node.static.get("keepdims"):
        return a
    return Change(a.kind, a.c, tuple(p + sum(r > p for r in summed) for p in a.axes))
