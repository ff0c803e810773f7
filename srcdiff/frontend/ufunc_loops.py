"""``np.maximum.at(a, index, v)``, ``np.minimum.at`` and ``np.multiply.at`` (NumPy's unbuffered
in-place update, where a repeated index is applied again), rewritten (desugar.py, right after
parsing) as the loop NumPy runs, one element written at a time::

    np.maximum.at(mx, seg, scores)        at_index = np.arange(len(mx))[seg]
                                          at_values = scores + np.zeros_like(mx[at_index])
                                          for at_k in range(len(at_index)):
                                              mx[at_index[at_k]] = np.maximum(mx[at_index[at_k]], at_values[at_k])

`v` is broadcast to ``a[index]``'s shape, as NumPy does.  Lowering then differentiates each write
(a tie of ``np.maximum`` splits its adjoint, as everywhere), and refuses the writes where it refuses
``a[i] = v`` (an argument, an array another name holds).  A tuple index (``np.maximum.at(A, (rows,
cols), v)``) is left as written, for lowering to refuse.  ``np.add.at`` / ``np.subtract.at`` have a
rule of their own (lower/ufunc_at.py)."""

from __future__ import annotations

import ast

import numpy as np

from .naming import FreeNames, inner_blocks

_UFUNCS = {np.maximum: "maximum", np.minimum: "minimum", np.multiply: "multiply"}


def has_ufunc_loops(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "at"
               and isinstance(n.func.value, ast.Attribute) and n.func.value.attr in _UFUNCS.values()
               for n in ast.walk(tree))


def rewrite_ufunc_loops(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, each such statement of the function's own blocks."""
    if has_ufunc_loops(tree):
        _block(tree.body, names)


def _block(body: list, names: FreeNames) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner, names)
        written = _loop(stmt, names)
        if written is None:
            k += 1
            continue
        for made in written:
            for node in ast.walk(made):
                if not hasattr(node, "lineno"):  # (the user's own nodes keep their places)
                    ast.copy_location(node, stmt)
        body[k:k + 1] = written
        k += len(written)


def _loop(stmt: ast.stmt, names: FreeNames) -> list | None:
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "at"
            and len(call.args) == 3 and not call.keywords and isinstance(call.args[0], ast.Name)
            and not isinstance(call.args[1], ast.Tuple)
            and not any(isinstance(a, ast.Starred) for a in call.args)):
        return None
    ufunc = names.resolve(call.func.value)
    if ufunc not in _UFUNCS or not isinstance(call.func.value, ast.Attribute):
        return None
    base, index, value = call.args
    namer = names.namer
    held, values, k = namer.fresh("at_index"), namer.fresh("at_values"), namer.fresh("at_k")

    def load(name):
        return ast.Name(name, ast.Load())

    module = call.func.value.value  # np of np.maximum: the name the user's code has for NumPy
    gathered = ast.Subscript(load(base.id), load(held), ast.Load())
    shaped = ast.BinOp(value, ast.Add(), ast.Call(ast.Attribute(module, "zeros_like", ast.Load()), [gathered], []))
    position = ast.Subscript(load(held), load(k), ast.Load())
    old = ast.Subscript(load(base.id), position, ast.Load())
    new = ast.Call(ast.Attribute(module, _UFUNCS[ufunc], ast.Load()),
                   [old, ast.Subscript(load(values), load(k), ast.Load())], [])
    write = ast.Assign([ast.Subscript(load(base.id), position, ast.Store())], new)
    steps = ast.Call(ast.Name("range", ast.Load()), [ast.Call(ast.Name("len", ast.Load()), [load(held)], [])], [])
    # the positions NumPy writes, whatever spells them (negative indices, a boolean mask)
    positions = ast.Subscript(ast.Call(ast.Attribute(module, "arange", ast.Load()),
                                       [ast.Call(ast.Name("len", ast.Load()), [load(base.id)], [])], []),
                              index, ast.Load())
    return [ast.Assign([ast.Name(held, ast.Store())], positions),
            ast.Assign([ast.Name(values, ast.Store())], shaped),
            ast.For(ast.Name(k, ast.Store()), steps, [write], [], None)]


__all__ = ["has_ufunc_loops", "rewrite_ufunc_loops"]
