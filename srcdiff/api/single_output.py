"""The refusal of a function that returns a tuple (``return loss, aux``) given to `grad` without has_aux."""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..frontend.parse import parse_function


def check_single_output(func, target) -> None:
    """Refuse a function returning a tuple (``return loss, aux``) at that line: a gradient is of one number."""
    try:
        parsed = parse_function(target)
    except SrcDiffError:
        return  # no source: the transform says so, with its own message
    returns = [n for n in _own_nodes(parsed.tree) if isinstance(n, ast.Return)]
    for node in returns:
        if isinstance(node.value, ast.Tuple) and len(node.value.elts) >= 2:
            raise parsed.error(node, f"{parsed.name} returns a tuple of {len(node.value.elts)} values, and a "
                               "gradient is of one number", "if the first value is the loss and the rest is "
                               "auxiliary data, pass has_aux=True (the gradient comes with the aux); otherwise "
                               "use srcdiff.jacobian or srcdiff.vjp")


def _own_nodes(tree):
    """The nodes of a function's body, not of the functions and lambdas defined in it."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    todo = [n for n in (tree.body if isinstance(tree.body, list) else [tree.body]) if not isinstance(n, nested)]
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]


__all__ = ["check_single_output"]
