"""Which calls give a function of the user's a sequence made in the caller (passed_sequences.py reads
them): the tests rewrites.py runs on a function's source before it is rewritten."""

from __future__ import annotations

import ast


def converted(node, resolve) -> bool:
    """``tuple(e)`` / ``list(e)`` (the builtins) of one argument."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 \
        and not node.keywords and not isinstance(node.args[0], ast.Starred) \
        and resolve(node.func.id) in (tuple, list)


def sequence_spelling(node, resolve) -> bool:
    """Whether `node` is written as a sequence made here: a display with an item that is not a
    constant, a list comprehension, or ``tuple()``/``list()`` of one argument."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and not all(isinstance(e, ast.Constant) for e in node.elts) \
            and not any(isinstance(e, ast.Starred) for e in node.elts)
    return isinstance(node, ast.ListComp) or converted(node, resolve)


def passed_names(args: list, resolve) -> list:
    """The names a call's arguments give whole: an argument's, the one ``tuple(ps)`` converts, those a
    display holds, those a comprehension iterates over (``[a * b for a, b in zip(ps[:-1], ps[1:])]``)."""
    out = []
    for a in args:
        if converted(a, resolve):
            a = a.args[0]
        if isinstance(a, ast.Name):
            out.append(a)
        elif isinstance(a, (ast.Tuple, ast.List)):
            out += passed_names(a.elts, resolve)
        elif isinstance(a, ast.ListComp):
            out += [n for g in a.generators for n in ast.walk(g.iter) if isinstance(n, ast.Name)]
    return out


def passes_sequences(tree: ast.AST, resolve, mine) -> bool:
    """Whether `tree` gives a sequence made in it (see `sequence_spelling`) to a function `mine` says is
    the user's, or assigns one to a name it gives whole to such a function."""
    made = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and sequence_spelling(n.value, resolve)
            for t in n.targets if isinstance(t, ast.Name)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and mine(resolve(n.func.id)):
            args = list(n.args) + [k.value for k in n.keywords]
            if any(sequence_spelling(a, resolve) or isinstance(a, ast.Name) and a.id in made for a in args):
                return True
    return False


__all__ = ["converted", "passed_names", "passes_sequences", "sequence_spelling"]
