"""An object (or other tree) chosen when the function runs, then used: the statements after the
``if`` written into each side.

    dist = Gauss(mu, s) if x.size > 3 else Laplace(mu, b)      if x.size > 3:
    match dist:                                                    dist = Gauss(mu, s)
        case Gauss(mu=m, sigma=s): return ...            ==>       <the match, then the rest>
        case Laplace(mu=m, b=b): return ...                    else:
                                                                   dist = Laplace(mu, b)
                                                                   <the match, then the rest>

The rewrite (flatten_statements.py) reads a tree's structure when it transforms the function: a
name holding a different tree on each side of an ``if`` has none after it.  When such a name is
read by the statements that follow in the same block, those statements are copied into each side
(a side that ends in ``return``, ``raise``, ``break`` or ``continue`` gets none: they never run
after it), where the name's tree is known; ``isinstance`` and ``match`` on it are then decided on
each side.  ``name = A if c else B`` of a class of the user's (or a dict display) is read as that
``if`` first.  At most `LIMIT` copies a function (each doubles the code after it); past that the name is
refused where it is read, as before.
"""

from __future__ import annotations

import ast
import copy

from .tree_entries import Bad

LIMIT = 8
_ENDS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class BranchTails:
    """The part of the statement rewriter (flatten_statements.py) that copies a block's tail into an if's sides."""

    def block(self, stmts: list) -> list:
        """The statements `stmts`, rewritten one by one (stmt), an ``if`` choosing trees given the rest."""
        out = []
        for i, stmt in enumerate(stmts):
            stmt = self.chosen_tree(stmt)  # dist = Gauss(...) if c else Laplace(...): an `if`
            if isinstance(stmt, ast.If) and i + 1 < len(stmts):
                made, whole = self.branch_with_tail(stmt, stmts[i + 1:])
                out += made
                if whole:
                    break  # what follows, written into each side
            else:
                out += self.stmt(stmt)
            if self.__dict__.pop("returned_here", False):
                break  # after a decided `if` whose side returns (operator_objects.decided_if): what follows never runs
        return out

    def chosen_tree(self, s):
        """``name = A if c else B`` where A or B builds a tree: the ``if`` assigning each; else `s`."""
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and isinstance(s.value, ast.IfExp)
                and (self.makes_tree(s.value.body) or self.makes_tree(s.value.orelse))):
            return s
        def side(value):
            return ast.copy_location(ast.Assign([ast.Name(s.targets[0].id, ast.Store())], value), s)
        made = ast.copy_location(ast.If(s.value.test, [side(s.value.body)], [side(s.value.orelse)]), s)
        return ast.fix_missing_locations(made)

    def branch_with_tail(self, s: ast.If, rest: list):
        """(the statements of `s`, whether they hold `rest` too): `rest` is copied into each side of `s`
        when a name the sides give different trees is read in it; else `s` alone, `rest` left."""
        before = (dict(self.env), dict(self.owned))
        out = self.stmt(s)
        mixed = {name for name, v in self.env.items() if isinstance(v, Bad) and before[0].get(name) is not v
                 and "a different tree on each side" in v.reason}
        reads = {n.id for r in rest for n in ast.walk(r) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        copies = self.__dict__.get("_tail_copies", 0)
        if not mixed & reads or copies >= LIMIT:
            return out, False
        self._tail_copies = copies + 1
        self.env, self.owned = before
        self.__dict__.pop("returned_here", None)
        def tail(side):
            return list(side) if side and isinstance(side[-1], _ENDS) else list(side) + copy.deepcopy(rest)
        both = ast.copy_location(ast.If(s.test, tail(s.body) or [ast.Pass()], tail(s.orelse)), s)
        return self.stmt(both), True


__all__ = ["BranchTails", "LIMIT"]
