"""``super().method(...)`` in a method of a user class whose object srcdiff reads as a tree.

A method called on an object tree (passed, built in the function, or a module-level object) is
read with ``self`` standing for that tree (flatten.py).  ``super().penalty(w)`` (or
``super(Cls, self).penalty(w)``) in it is the method found on the classes after the one
defining the method, in the order of the object's class (its ``__mro__``), called with the same
tree as ``self``, exactly as Python looks it up::

    class L1L2(Loss):
        def penalty(self, w):
            return super().penalty(w) + self.l1 * np.sum(np.abs(w))   # Loss.penalty(self, w)

Anything else ``super()`` names (an attribute that is not a plain method, ``super()`` outside a
method of an object tree) is refused at its line.
"""

from __future__ import annotations

import ast
import types

from .tree_entries import Method, Node


class SuperCalls:
    """A mixin of ExprRewriter: reads of ``super().attr`` in a method of an object tree."""

    def super_call(self, node) -> bool:
        """Whether `node` is ``super()`` or ``super(Cls, self)``."""
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" \
            and node.func.id not in self.env and self.parsed.resolve("super") is super and not node.keywords \
            and len(node.args) in (0, 2)

    def super_attribute(self, node: ast.Attribute):
        """The entry of ``super().attr``: a `Method` of the next class, bound to self's tree."""
        call, tree = node.value, self.parsed.tree
        if call.args:
            owner, me = self.parsed.resolve(getattr(call.args[0], "id", "")), call.args[1]
        else:
            cell = self.parsed.closure.get("__class__")
            owner = cell.cell_contents if cell is not None else None
            me = ast.Name(tree.args.args[0].arg, ast.Load()) if tree.args.args else None
        base = self.entry(me) if isinstance(me, ast.Name) else None
        if not isinstance(owner, type) or not isinstance(base, Node) or base.struct.kind not in \
                ("namedtuple", "dataclass", "object") or owner not in getattr(base.struct.cls, "__mro__", ()):
            raise self.error(node, f"{ast.unparse(node)}: srcdiff reads super() only in a method of an object "
                             "it reads as a tree (passed to the function, built in it, or a module-level object)",
                             "call the base class's method directly: Base.method(self, ...)")
        mro = base.struct.cls.__mro__
        for klass in mro[mro.index(owner) + 1:]:
            if node.attr in vars(klass):
                found = vars(klass)[node.attr]
                if isinstance(found, types.FunctionType):
                    return Method(found, base, node.attr)
                break
        raise self.error(node, f"{ast.unparse(node)} is not a plain method of a base class of "
                         f"{base.struct.cls.__name__}: srcdiff follows super() to methods only",
                         "call the base class's method directly: Base.method(self, ...)")


__all__ = ["SuperCalls"]
