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
new axes (``v[:, None]``) keep either; shifts add; a shift times a constant written in the
code scales its ``c``; powers with a constant exponent multiply a scale's ``c``.  Every other
use of a changed value, a region (loop, branch) or a call reading one, ends the proof: nothing
is held.  When the output is `Held`, the function's value does not depend on `m`'s at all
(for every `d`, not only to first order), so `m` may be treated as a constant: its rule is
replaced by the same computation with no gradient (`held_rule`).  Its value is computed as
before, so the forward pass (and the overflow it avoids) is unchanged; the gradient differs from
differentiating through `m` only by the rounding of terms that cancel exactly, and second
derivatives (forward over reverse) see the same constant.  Ties of the extremum no longer
matter: their shares summed to that zero.  (Shapes: `d` has `m`'s, or for an `m` of a shape not
known, reduced with keepdims along negative axes, is constant along those.)
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from ..ir import memo
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
    factor ``exp(c d)`` ("scale").  `d` lies on the value's last `rank` axes (None: on all of them,
    however many), constant along the (negative) axes `fixed` among them and along any before."""

    kind: str
    c: Fraction
    fixed: frozenset
    rank: int | None

    def constant(self, axis: int) -> bool:
        """Whether `d` is constant along the negative `axis` of the value."""
        return axis in self.fixed or (self.rank is not None and axis < -self.rank)


HELD = None  # unchanged (not a `Change`)
_HELD = memo.table()  # id of a rule -> (the rule, kept alive; its held copy)


def hold_shifts(function: Function, shape_of: dict) -> Function:
    """`function` with every extremum its output provably does not depend on held constant."""
    held = [node for node in function.body.nodes
            if isinstance(node, Node) and getattr(node.rule, "name", None) in EXTREMA and not node.rule.nograd
            and _cancels(function, node, shape_of)]
    if not held:
        return function
    ids = {node.id for node in held}
    body = dataclasses.replace(function.body, nodes=[
        dataclasses.replace(item, rule=held_rule(item.rule), users=[]) if isinstance(item, Node) and item.id in ids
        else item for item in function.body.nodes])
    link_users(all_nodes(body))
    return dataclasses.replace(function, body=body)


def held_rule(rule):
    """`rule`'s computation with no gradient: a value computed as written and held constant."""
    key = id(rule)
    if key not in _HELD:
        # (it shares the rule's cache of parsed templates, of which it reads none: it has no templates)
        _HELD[key] = (rule, dataclasses.replace(rule, templates={}, nograd=True, tangents=None, derivable=None,
                                                selects={}))
    return _HELD[key][1]


def _cancels(function: Function, m: Node, shape_of: dict) -> bool:
    """Whether the output is unchanged when `m`'s value is moved by any `d` (module docstring)."""
    start = _start(m, shape_of)
    if start is None:
        return False
    changes: dict[str, Change] = {m.out.name: start}
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


def _start(m: Node, shape_of: dict) -> Change | None:
    """``+ d`` on `m`: `d` has `m`'s shape (constant along its axes of length one); of a shape not
    known, one reduced with keepdims along negative axes (constant there)."""
    shape = shape_of.get(m.out.name)
    if shape is not None and shape.known:
        return Change("shift", Fraction(1), frozenset(i - shape.ndim for i, d in enumerate(shape.dims) if d == "1"),
                      shape.ndim)
    axis = m.static.get("axis")
    items = axis if isinstance(axis, tuple) else (axis,)
    if m.static.get("keepdims") and items and all(type(i) is int and i < 0 for i in items):
        return Change("shift", Fraction(1), frozenset(items), None)
    return None


def _made(kind: str, c: Fraction, like: Change) -> Change | None:
    """A change of `kind` by `c`, `d` placed as in `like`; `HELD` for c = 0."""
    return HELD if c == 0 else Change(kind, c, like.fixed, like.rank)


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
            return _made(a.kind, -a.c if a.kind == "shift" else a.c, a)
        wanted = "shift" if name == "numpy.exp" else "scale"
        if a.kind != wanted:
            return False
        factor = {"numpy.exp": 1, "numpy.log": 1, "numpy.sqrt": Fraction(1, 2), "numpy.square": 2}[name]
        return _made("scale" if name != "numpy.log" else "shift", a.c * factor, a)
    if len(moved) == 2 and (name in _ADD | _SUB | _MUL | _DIV | _POW):
        return _binary(name, moved, inputs)
    if name in _KEEPING and len(moved) == 1:
        return _reduced(node, moved[0], shape_of)
    if name == "getitem" and len(moved) == 1:
        return _spread(node, moved[0], shape_of)
    return False


def _spread(node: Node, a: Change, shape_of: dict):
    """``v[:, None]``: whole slices and new axes only, the same elements on more axes (new ones
    inside `d`'s span are axes it is constant along)."""
    shape = shape_of.get(node.inputs[0].name) if isinstance(node.inputs[0], Var) else None
    kinds = [kind for kind, _ in node.static.get("index", ())]
    slices = node.static.get("slices", ())
    if shape is None or not shape.known or set(kinds) - {"slice", "newaxis"} \
            or len(slices) != kinds.count("slice") or any(b != (None, None, None) for b in slices):
        return False
    ndim = shape.ndim
    placed, new, out = [], [], 0  # the output axis of each input axis; the new axes
    for kind in kinds:
        (placed if kind == "slice" else new).append(out)
        out += 1
    if len(placed) > ndim:
        return False
    placed += [out + k for k in range(ndim - len(placed))]
    total = out + ndim - kinds.count("slice")
    rank = ndim if a.rank is None else min(a.rank, ndim)
    start = placed[ndim - rank] if rank else total
    fixed = {placed[p + ndim] - total for p in a.fixed if p >= -ndim} | {k - total for k in new if k >= start}
    return Change(a.kind, a.c, frozenset(fixed), total - start)


def _binary(name: str, moved: list, inputs):
    a, b = moved
    if name in _POW:
        k = _constant(inputs[1])
        if b is not HELD or a.kind != "scale" or k is None:
            return False
        return _made("scale", a.c * k, a)
    if a is not HELD and b is not HELD and (a.fixed, a.rank) != (b.fixed, b.rank):
        return False
    if name in _ADD | _SUB:
        if all(x is HELD or x.kind == "shift" for x in moved):
            ca, cb = (x.c if x is not HELD else 0 for x in moved)
            return _made("shift", ca - cb if name in _SUB else ca + cb, a if a is not HELD else b)
        if a is not HELD and b is not HELD and a.kind == b.kind == "scale" and a.c == b.c:
            return a  # exp(c d) u + exp(c d) w = exp(c d) (u + w)
        return False
    # products and quotients
    if (a is HELD or a.kind == "scale") and (b is HELD or b.kind == "scale"):
        ca = a.c if a is not HELD else 0
        cb = b.c if b is not HELD else 0
        return _made("scale", ca + cb if name in _MUL else ca - cb, a if a is not HELD else b)
    shift, other, k = (a, b, _constant(inputs[1])) if b is HELD else (b, a, _constant(inputs[0]))
    if other is not HELD or k is None or shift.kind != "shift" or (name in _DIV and shift is b) or k == 0:
        return False
    return _made("shift", shift.c * k if name in _MUL else shift.c / k, shift)


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
    if a.kind == "shift" and node.rule.name not in _SHIFT_KEEPING or set(node.static) - {"axis", "keepdims"}:
        return False
    shape = shape_of.get(node.inputs[0].name) if isinstance(node.inputs[0], Var) else None
    ndim, axis = (shape.ndim if shape is not None and shape.known else None), node.static.get("axis")
    if axis is None:
        if ndim is None and a.rank is None:
            return False
        summed = set(range(-(ndim if ndim is not None else a.rank), 0))
    else:
        items = axis if isinstance(axis, tuple) else (axis,)
        if not all(type(i) is int and (i < 0 if ndim is None else -ndim <= i < ndim) for i in items):
            return False
        summed = {i if ndim is None else i % ndim - ndim for i in items}
    if not all(a.constant(r) for r in summed):
        return False
    if node.static.get("keepdims"):
        return a
    fixed = frozenset(p + sum(r > p for r in summed) for p in a.fixed if p not in summed)
    rank = None if a.rank is None else a.rank - sum(r >= -a.rank for r in summed)
    return Change(a.kind, a.c, fixed, rank)
