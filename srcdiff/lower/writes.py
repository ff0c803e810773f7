"""Writes by index into an array the function created itself: ``out[i] = v``.

A write is lowered as a functional update, ``out_1 = set_item(out, index, v)`` (a `setitem`
node), so every version of ``out`` keeps its own value for the backward sweep.  That is
only Python's meaning when no other name can see the old array: after ``y = out`` (or
``a = out[1:]``, a view, or ``xs.append(out)``) the write changes ``y`` too, which a
functional update would not.  So lowering tracks, for every value, which *fresh* arrays
(made by a constructor such as ``np.zeros`` or by a copy) it may share memory with, and a
write is accepted only into a name that holds a fresh array no other live name shares.

`Sharing` holds that bookkeeping: `owner` maps a value to the fresh array it *is*; `shares`
maps a value to every fresh array it may share memory with (itself included).  Fresh arrays
are numbered in the order lowering meets their constructors, so a loop can tell the arrays
made before it from those its body makes anew in each iteration.

The same bookkeeping decides ``y += v``.  For an array NumPy updates it in place, so an
alias, a view or a list holding it changes too, and so does the caller's array when ``y``
is a parameter of a helper; lowered as the new value ``y = y + v`` it would not.  For a
number (immutable) ``y += v`` *is* ``y = y + v``.  Which of the two a value is is known only
per argument signature, so lowering marks such an update as an `InPlaceUpdate` node, and
`check_in_place` refuses it once shapes are known unless its target is a number.  To see
every sharing, each parameter and each value a rule computes anew gets a number too (with
no owner: only a fresh array may be written by index).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.nodes import Const, Function, Node, Operand, Var, all_nodes
from ..rules import TABLE, runtime
from ..rules.guard_helpers import measure_guard, point_guard
from ..rules.structural import is_setitem

#: Calls whose value is a new array that nothing else refers to (a program may write into it);
#: and the helpers of srcdiff's own gradients whose value, when it is an array, is a new one
#: (a derivable gradient writes into `zeros_like(x)` and `copy_array(g)` by index; a number,
#: immutable, cannot be written by index anyway)
FRESH = TABLE.functions_where(lambda r: r.fresh and r.array_result) | {runtime.copy_array, runtime.zeros_like}
#: The guards whose value is their first argument itself (lower/point_guards.py, measure_guards.py): the
#: others are what the guard compares (``u`` of ``if u == 1:``), no part of the value
IDENTITIES = {point_guard, measure_guard}


@dataclass
class Sharing:
    """Which fresh arrays each value is, or may share memory with (see the module docstring)."""

    owner: dict[str, int] = field(default_factory=dict)
    shares: dict[str, frozenset[int]] = field(default_factory=dict)
    count: int = 0
    arguments: dict[int, str] = field(default_factory=dict)  # a parameter's number -> its name
    # a branch merge of distinct fresh arrays -> the arrays it may be (a write into it writes into one of them)
    merged: dict[int, frozenset[int]] = field(default_factory=dict)
    # fresh Python lists (``[0.0] * n``): an item read from one is the item, never a view of the list,
    # so a later write into the list (which rebinds a slot) cannot change it
    containers: set[int] = field(default_factory=set)

    def of(self, operand: Operand) -> frozenset[int]:
        return self.shares.get(operand.name, frozenset()) if isinstance(operand, Var) else frozenset()

    def owner_of(self, operand: Operand) -> int | None:
        return self.owner.get(operand.name) if isinstance(operand, Var) else None

    def fresh(self, name: str) -> None:
        self.new(name)
        self.owner[name] = self.count

    def new(self, name: str) -> None:
        """`name` is a new value: it shares memory with nothing yet (but cannot be written)."""
        self.count += 1
        self.owner.pop(name, None)
        self.shares[name] = frozenset({self.count})

    def argument(self, name: str) -> None:
        """`name` is a parameter: an array the caller holds too."""
        self.new(name)
        self.arguments[self.count] = name

    def join(self, out: str, *sources: Operand) -> None:
        """`out` is one of `sources` (a branch merge, a loop-carried value).  When each is a
        fresh array of its own (``g = np.zeros(n)`` on one side, ``g = index_add(g, i, v)``
        on the other), `out` is a fresh array too, numbered anew: a write into it is a write
        into one of them, so `tokens` lists them for the check that nothing else sees them."""
        owners = {self.owner_of(s) for s in sources}
        self.owner.pop(out, None)
        shared = frozenset().union(*(self.of(s) for s in sources))
        if len(owners) == 1 and None not in owners:
            self.owner[out] = owners.pop()
        elif None not in owners:
            self.count += 1
            self.owner[out] = self.count
            self.merged[self.count] = frozenset().union(*(self.tokens(t) for t in owners))
            shared |= {self.count}
        self.shares[out] = shared

    def new_array(self, node: Node) -> None:
        """The value of `node`, a rule's fresh value that may be a number or an array (``x @ y``
        of vectors is a number), is an array its shape shows: a new one, which may be written."""
        out = node.out.name
        if self.shares.get(out) == frozenset({self.count}) and not isinstance(node, InPlaceUpdate) \
                and not _may_not_copy(node):  # (`note` made it a new value just now)
            self.owner[out] = self.count

    def item(self, out: str, container: Operand) -> None:
        """`out` is an item read from `container`; when that is a fresh Python list, `out` does not
        share the list itself (still whatever its items may share)."""
        token = self.owner_of(container)
        if token in self.containers:
            self.shares[out] = self.shares.get(out, frozenset()) - {token}

    def tokens(self, token: int) -> frozenset[int]:
        """The fresh arrays a write into array `token` may write into (itself, or those it merges)."""
        return frozenset({token}) | self.merged.get(token, frozenset())

    def note(self, node: Node) -> None:
        """Record what the value a new node computes may share."""
        rule, out = node.rule, node.out.name
        # an elementwise function's value is a new array (a ufunc never returns an operand),
        # or a number, which a write by index fails on as it does in Python
        if (rule.func in FRESH or (rule.fresh and rule.elementwise)) and not _may_not_copy(node):
            self.fresh(out)
        elif is_setitem(rule):
            self.join(out, node.inputs[0])
        elif isinstance(node, InPlaceUpdate):  # NumPy's result is the target's own array
            self.shares[out] = self.of(node.inputs[0])
            self.owner.pop(out, None)  # (not known to be fresh: `y += 1.0` may be a number)
        elif rule.nograd or (rule.fresh and not _may_not_copy(node)):
            self.new(out)
        else:  # a view, a copy of the name, a list, a user function's value: may be an operand
            operands = node.inputs[:1] if rule.func in IDENTITIES else node.inputs
            shared = frozenset().union(*(self.of(v) for v in operands))
            self.owner.pop(out, None)
            self.shares[out] = self.shares.get(out, frozenset()) | shared


def _may_not_copy(node: Node) -> bool:
    """A call that copies unless told not to: ``np.array(x, copy=False)`` (or ``copy=None``, or
    a positional copy), ``x.astype(float, copy=False)``: its value may be `x` itself."""
    call = node.expr
    if not isinstance(call, ast.Call):
        return False
    positional = call.args[2] if node.rule.func is np.array and len(call.args) > 2 else None
    copy = next((k.value for k in call.keywords if k.arg == "copy"), positional)
    return copy is not None and not (isinstance(copy, ast.Constant) and copy.value is True)


@dataclass(eq=False)
class InPlaceUpdate(Node):
    """``name op= v`` lowered as the new value ``name op v`` although NumPy would update
    `name`'s array in place: right only if that value is a number, or if no one else can see
    the array.  `shared_with` names another value that may share it; `argument` is the
    parameter whose array it may be (the caller's, when the function is a helper)."""

    name: str = ""
    op: str = ""
    shared_with: str | None = None
    argument: str | None = None
    sharers: tuple[str, ...] | None = ()  # the values of every name that may share it (None: not all values)


def check_in_place(function: Function, shape_of: dict[str, shapes.Shape], location, callee: bool,
                   spent: tuple = ()) -> None:
    """Refuse an `InPlaceUpdate` of `function` whose target may be an array that another
    name (or, for a helper, the caller) still sees; shapes are those of one signature.  `spent`:
    a helper's parameters whose arrays its caller reads nowhere else (ad/in_place_args.py)."""
    made_by = {n.out.name: n for n in all_nodes(function)}
    for node in all_nodes(function):
        if not isinstance(node, InPlaceUpdate):
            continue
        target = node.inputs[0]
        if isinstance(target, Const) or _a_number(target, shape_of, made_by):
            continue  # a number: `+=` makes a new one
        shared_with = node.shared_with
        if shared_with is not None and node.sharers and \
                all(_a_number(Var(name), shape_of, made_by) for name in node.sharers):
            # every name said to share it holds a number in this signature (``s = smax`` in a loop
            # that does ``s += p``, smax an element of a vector): no array of theirs can change
            shared_with = None
        if shared_with is not None:
            who = (f"{node.shared_with} shares its memory with {node.name}, and NumPy would "
                   f"change {node.shared_with} too")
        elif callee and node.argument is not None and node.argument not in spent:
            who = (f"{node.argument} is the caller's array, and NumPy would change the caller's "
                   "array too")
        else:
            continue
        hint = f"write `{node.name} = {node.name} {node.op[:-1]} ...` to make a new array"
        if node.shared_with is not None:  # (a view taken with a slice, updated so, is read as its array's part)
            hint = (f"to change {node.shared_with} too, write into it ({node.shared_with}[...] {node.op} ...); "
                    f"else {hint}")
        raise SrcDiffError(f"in-place `{node.op}` on {node.name}, which may be an array: {who}",
                           location(node.line), hint)


def _a_number(value: Var, shape_of: dict, made_by: dict) -> bool:
    """Whether `value` is a number rather than an array: a Python or NumPy number, or a 0-d
    result of arithmetic or of a reduction (NumPy gives those as NumPy numbers)."""
    shape = shape_of.get(value.name, shapes.UNKNOWN)
    if shape.scalar:
        return True
    node = made_by.get(value.name)
    if shape.dims != () or node is None:
        return False
    if isinstance(node, InPlaceUpdate):  # ``s *= y``: a number if s was one (else s's own array)
        return isinstance(node.inputs[0], Var) and _a_number(node.inputs[0], shape_of, made_by)
    return (node.rule.elementwise or node.rule.fresh) and not node.rule.array_result
