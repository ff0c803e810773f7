"""Writes into a dict (or list) built in the function from inside a loop or branch it was not
built in: ``state["p"] = state["p"] - dt * force(state["q"])`` in a ``for`` loop.

Each key of a dict built in the function is a local variable (``state_p``); a write at the
same depth rebinds the key to a fresh variable.  Inside a deeper loop or branch the key must
name the same variable on every path and every iteration, so the write assigns the key's own
variable again: the loop then carries ``state_p`` as it carries any plain variable.  That is
only right when nothing else holds that variable: another dict sharing the leaf (``dict(state)``
before the loop), an argument's leaf, or a key the dict did not have before the loop are refused.
"""

from __future__ import annotations

import ast

from .tree_entries import Const, DictView, Leaf, Method, Node
from .trees import name_part


class StateWrites:
    """A mixin of the statement rewriter: `owned` maps a key's variable to the node it was made for."""

    owned: dict

    def own(self, name: str, node: Node) -> None:
        self.owned[name] = id(node)

    def owning(self, node: Node) -> Node:
        """`node`, a list or dict literal built here: its leaves are variables made for it."""
        for child in node.children.values():
            if isinstance(child, Leaf):
                self.own(child.name, node)
        return node

    def own_leaves(self, children: dict, where) -> dict:
        """`children` of another dict, put into a new one (a copy, a merge): each leaf a new variable
        holding the same value (``q_w = p_w``), so that a write into a key of either (in a loop, too)
        leaves the other as Python leaves it; a tree inside stays shared, as a shallow copy shares it."""
        out = {}
        for key, child in children.items():
            if isinstance(child, Leaf):
                name = self.names.fresh(f"{self.target_base}_{name_part(key)}")
                self.pending.append(self.emit(name, ast.Name(child.name, ast.Load()), where))
                child = Leaf(name)
            out[key] = child
        return out

    def write_deeper(self, target, base: Node, entry, where) -> list:
        """``base[key] = entry`` inside a loop or branch `base` was not built in: the key's own
        variable assigned again (see the module docstring), or a located refusal."""
        key = self.constant(target.slice)
        old = base.children.get(key) if key is not None else None
        reason = None
        if not isinstance(old, Leaf) or self.owned.get(old.name) != id(base):
            reason = ("the key is new here, or holds a tree or a value the dict shares" if key is not None
                      else "the key is not a constant")
        elif not isinstance(entry, (Leaf, Const)):
            reason = "the new value is a tree or a function, not an array or number"
        elif self.shared_elsewhere(old.name, base):
            reason = f"another dict or list also holds {ast.unparse(target)} (a copy made before this loop)"
        if reason is not None:
            raise self.error(where, f"writing into {ast.unparse(target)} inside a branch or loop the dict "
                             f"was not built in is not supported here: {reason}",
                             "give the key a value before the loop, or assign the value to a plain variable")
        return [self.emit(old.name, self.as_ast(entry, where), where)]

    def shared_elsewhere(self, name: str, base: Node) -> bool:
        """Whether a node other than `base`, reachable from a variable, holds the leaf `name`."""
        seen, stack = set(), list(self.env.values())
        while stack:
            entry = stack.pop()
            if isinstance(entry, Method):
                entry = entry.owner
            elif isinstance(entry, DictView):
                entry = entry.node
            if not isinstance(entry, Node) or id(entry) in seen:
                continue
            seen.add(id(entry))
            for child in entry.children.values():
                if isinstance(child, Leaf) and child.name == name and entry is not base:
                    return True
                stack.append(child)
        return False


__all__ = ["StateWrites"]
