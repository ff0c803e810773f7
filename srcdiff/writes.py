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
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from .ir import Node, Operand, Var
from .rules import numpy_linalg, numpy_reductions
from .structural import is_setitem

#: Calls whose value is a new array that nothing else refers to.
FRESH = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like,
         np.full_like, np.copy, np.array}

#: Rules whose value never shares memory with an operand (new arrays, or numbers).
_NEW_VALUE = {r.func for r in numpy_reductions.RULES} | \
    {r.func for r in numpy_linalg.RULES if r.func not in (np.diag, np.einsum)} | {operator.matmul}
_MAY_RETURN_OPERAND = {operator.pos, np.positive}


@dataclass
class Sharing:
    """Which fresh arrays each value is, or may share memory with (see the module docstring)."""

    owner: dict[str, int] = field(default_factory=dict)
    shares: dict[str, frozenset[int]] = field(default_factory=dict)
    count: int = 0

    def of(self, operand: Operand) -> frozenset[int]:
        return self.shares.get(operand.name, frozenset()) if isinstance(operand, Var) else frozenset()

    def owner_of(self, operand: Operand) -> int | None:
        return self.owner.get(operand.name) if isinstance(operand, Var) else None

    def fresh(self, name: str) -> None:
        self.count += 1
        self.owner[name] = self.count
        self.shares[name] = frozenset({self.count})

    def join(self, out: str, *sources: Operand) -> None:
        """`out` is one of `sources` (a branch merge, a loop-carried value)."""
        owners = {self.owner_of(s) for s in sources}
        self.owner.pop(out, None)
        if len(owners) == 1 and None not in owners:
            self.owner[out] = owners.pop()
        self.shares[out] = frozenset().union(*(self.of(s) for s in sources))

    def note(self, node: Node) -> None:
        """Record what the value a new node computes may share."""
        rule, out = node.rule, node.out.name
        if rule.func in FRESH:
            self.fresh(out)
        elif is_setitem(rule):
            self.join(out, node.inputs[0])
        elif rule.nograd or rule.func in _NEW_VALUE or (rule.elementwise and rule.func not in _MAY_RETURN_OPERAND):
            pass  # a new value
        else:  # a view, a copy of the name, a list, a user function's value: may be an operand
            shared = frozenset().union(*(self.of(v) for v in node.inputs))
            self.owner.pop(out, None)
            self.shares[out] = self.shares.get(out, frozenset()) | shared
