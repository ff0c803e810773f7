"""Writes into a dict (or list, or object) built in the function, and copies of a dict; a write
from inside a loop or branch it was not built in: ``state["p"] = state["p"] - dt * force(state["q"])``
in a ``for`` loop, ``self.vx -= dt * k * self.vx`` of a method written out there (local_defs.py).

Each key of a dict built in the function is a local variable (``state_p``); a write at the
same depth rebinds the key to a fresh variable.  Inside a deeper loop or branch the key must
name the same variable on every path and every iteration, so the write assigns the key's own
variable again: the loop then carries ``state_p`` as it carries any plain variable.  That is
only right when nothing else holds that variable: another dict sharing the leaf (``dict(state)``
before the loop), an argument's leaf, or a key the dict did not have before the loop are refused.
"""

from __future__ import annotations

import ast
import copy
import inspect

from .tree_entries import Const, DictView, Leaf, Method, Node
from .trees import Struct, name_part


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
                name = self.names.fresh(f"{self.target_base}_{name_part(key)}", self.spelled((key,)))
                self.pending.append(self.emit(name, ast.Name(child.name, ast.Load()), where))
                child = Leaf(name)
            out[key] = child
        return out

    def copied_dict(self, value, where) -> Node | None:
        """``dict(p)``, ``p.copy()``, ``copy.copy(p)`` of a dict: a new dict of p's items (`own_leaves`)."""
        if not isinstance(value, ast.Call) or value.keywords or len(value.args) > 1:
            return None
        func = value.func
        if len(value.args) == 1 and isinstance(func, (ast.Name, ast.Attribute)) \
                and (isinstance(func, ast.Name) and func.id not in self.env and self.parsed.resolve(func.id) is dict
                     or self.static_callee(func) is copy.copy):
            source = self.entry(value.args[0])
        elif not value.args and isinstance(func, ast.Attribute) and func.attr == "copy":
            source = self.entry(func.value)
        else:
            return None
        if not isinstance(source, Node) or source.struct.kind != "dict":
            return None
        return self.owning(Node(source.struct, self.own_leaves(source.children, where), local=True, depth=self.depth))

    def static_callee(self, func: ast.expr):
        """The object a call's name (or module attribute) refers to, not a local name; else None."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in self.env:
            return None
        found = self.parsed.resolve(root.id)
        for attr in ast.unparse(func).split(".")[1:]:
            found = getattr(found, attr, None)
        return found

    def written_key(self, target):
        """The key ``d["k"] = v`` writes (a constant, or None), or the attribute ``obj.k = v`` does."""
        return target.attr if isinstance(target, ast.Attribute) else self.constant(target.slice)

    def write(self, target, base: Node, entry, where, fresh: bool = True) -> list:
        """``base[key] = entry`` (or ``base.key = entry`` of an object built here): the key a new
        variable, at the depth `base` was built at (else `write_deeper`)."""
        if not base.local:
            raise self.error(where, f"writing into {ast.unparse(target)} changes an argument (a parameter "
                             "tree), which srcdiff does not support",
                             "build a new dict: q = dict(p); q['W'] = ...")
        if base.depth != self.depth:
            return self.write_deeper(target, base, entry, where)
        key = self.written_key(target)
        if key is None:
            raise self.error(where, "a dict built in the differentiated function is written with constant keys only")
        self.plain_attribute(target, base, where)
        if base.struct.kind in ("list", "tuple") and key not in base.children:
            raise self.error(where, f"index {key} is out of range")
        out = []
        if isinstance(entry, (Leaf, Const)) and fresh:
            name = self.names.fresh(f"{base_name(target)}_{name_part(key)}", ast.unparse(target))
            out.append(self.emit(name, self.as_ast(entry, where), where))
            entry = Leaf(name)
        if isinstance(entry, Leaf):  # a fresh variable, made for this key
            self.own(entry.name, base)
        base.children[key] = entry
        if key not in base.struct.keys:
            base.struct = Struct(base.struct.kind, base.struct.keys + (key,), (), base.struct.cls)
        return out

    def plain_attribute(self, target, base: Node, where) -> None:
        """Refuse ``obj.k = v`` where Python would not store `v` as the attribute: a property's setter
        (or any descriptor's ``__set__``) runs instead."""
        found = inspect.getattr_static(base.struct.cls, target.attr, None) if isinstance(target, ast.Attribute) \
            and isinstance(base.struct.cls, type) else None
        if found is not None and hasattr(type(found), "__set__"):
            raise self.error(where, f"assigning {ast.unparse(target)} calls the setter of "
                             f"{base.struct.cls.__name__}.{target.attr}, which srcdiff does not follow",
                             "compute the value the setter stores and assign that to a plain variable")

    def write_deeper(self, target, base: Node, entry, where) -> list:
        """``base[key] = entry`` inside a loop or branch `base` was not built in: the key's own
        variable assigned again (see the module docstring), or a located refusal."""
        key = self.written_key(target)
        old = base.children.get(key) if key is not None else None
        self.plain_attribute(target, base, where)
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


def base_name(target) -> str:
    """The name a written target starts from (``state`` of ``state["p"]``), for new variables' names."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else "v"


__all__ = ["StateWrites", "base_name"]

def bound_names(target) -> list[str]:
    """The names an assignment to `target` rebinds or changes: ``a`` of ``a = ...`` and of ``a[i] = ...``
    (the array written), not ``i`` or ``seq`` that an index reads (``x[seq[t]] = 1.0`` changes x only)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in bound_names(element)]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return [target.id] if isinstance(target, ast.Name) else []

