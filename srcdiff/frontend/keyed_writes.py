"""A loop that fills a dict built in the function at keys known when the gradient is built:

    d = {}
    for lab, v in zip(LABELS, x):        # LABELS a module tuple of strings, x an array
        d[lab] = np.tanh(v)
    for name, v in zip(("mu", "rho"), theta):
        p[name] = v

Each iteration writes a new key, so the loop is unrolled (flatten_statements.py), the key a constant
in each copy of the body.  Zipped with a sequence srcdiff does not list (an array), the loop's
iterations are not guarded one by one (each would write its key on a path of its own, which the
rewrite refuses): the sequence must reach every key, else the gradient raises SrcDiffError at the
loop's line when it runs (flatten_items.py's `at_least`), as a comprehension zipping a tree does.
"""

from __future__ import annotations

import ast

from .tree_entries import Node


class KeyedWrites:
    """The part of the statement rewriter (a `Rewriter`) that lists the items of a loop filling a dict."""

    def for_items(self, s: ast.For):
        """The entries the ``for`` statement `s` binds, when srcdiff unrolls it; None to keep the loop."""
        if self.fills_a_dict(s):
            return self.items_of(s.iter, True)  # (not loop_items: a shorter sequence is refused, not guarded)
        return self.loop_items(s.iter, force=self.uses_trees(s.body, s) or self.over_views(s.iter))

    def fills_a_dict(self, s: ast.For) -> bool:
        """Whether `s`'s body writes into a dict built in the function at a name its target binds
        (``d[lab] = v`` of ``for lab, v in ...``), at the body's own level; or, anywhere in the body
        (an inner loop, a branch), reads, writes or tests such a dict at it (``dist[node]``, ``nxt in
        dist`` of a graph's nodes and edges: a key computed as it runs could not be read)."""
        bound = {n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)}
        for stmt in s.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
                if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Name) and t.slice.id in bound \
                        and self._local_dict(t.value):
                    return True
        for n in (n for stmt in s.body for n in ast.walk(stmt)):
            if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id in bound \
                    and self._local_dict(n.value):
                return True
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(n.left, ast.Name) and n.left.id in bound and self._local_dict(n.comparators[0]):
                return True
        return False

    def _local_dict(self, node: ast.expr) -> bool:
        base = self.env.get(node.id) if isinstance(node, ast.Name) else None
        return isinstance(base, Node) and base.local and base.struct.kind == "dict"


__all__ = ["KeyedWrites"]
