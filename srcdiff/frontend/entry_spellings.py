"""How the user writes a tree's entry that the rewrite made a variable of (``d_a`` holds ``d['a']``): error
messages say the user's spelling (errors.spelled), never the variable's name.  A mixin of the tree rewriter
(flatten_statements.py): a dict or list display's entries, spelled from the name it is assigned to."""

from __future__ import annotations

import ast

from .tree_entries import Leaf
from .trees import name_part


class EntrySpellings:
    """The entries of displays assigned to a name (``d = {"a": x, "l": {"w": y}}``: ``d['a']``, ``d['l']['w']``)."""

    def spell_entries_of(self, targets: list) -> None:
        """The entries built for an assignment to `targets` are spelled from it (one name, item or attribute)."""
        self.key_path = ()
        one = targets[0] if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Subscript, ast.Attribute)) \
            else None
        self.spelled_base = (self.target_base, ast.unparse(one) if one is not None else None)

    def element(self, value, key, where, index=None):
        """The entry of a display's item `value` under `key` (`index`: its place in a list display): a
        tree it builds, or a new variable holding it."""
        path = getattr(self, "key_path", ())
        self.key_path = path + (key if index is None else index,)  # (a dict's inside a dict's: d['a']['w'])
        try:
            inner = self.tree_value(value, where)
        finally:
            self.key_path = path
        if inner is not None:
            return inner
        name = self.names.fresh(f"{self.target_base}_{name_part(key)}",
                                self.spelled(path + (key if index is None else index,)))
        self.pending.append(self.emit(name, self.expr(value), where))
        return Leaf(name)

    def spelled(self, path: tuple) -> str | None:
        """How the user writes the entry at `path` of the tree being assigned (``d['a']``), if known."""
        base, spelling = getattr(self, "spelled_base", (None, None))
        if spelling is None or base != self.target_base:  # (a tree built elsewhere than a plain assignment)
            return None
        return spelling + "".join(f"[{k!r}]" for k in path)

