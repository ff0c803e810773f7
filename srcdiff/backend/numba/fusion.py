"""Fusion of elementwise chains for ``jit="numba"``: one loop over the elements, no temporaries.

A generated gradient in NumPy's style makes an array for every operation:
``t4 = t1 - t2 * t2`` writes two.  Compiled by numba, each still walks memory once.  This
pass rewrites the main function of the numba module (module.py) so that a maximal run of
consecutive elementwise statements over arrays of one shape becomes one loop::

    n = x.shape[0] - 1
    for i in range(n):
        t2_i = x[i]
        t4_i = x[i + 1] - t2_i * t2_i
        x_bar[i] += 200.0 * t4_i * -2 * t2_i

* inside the loop a value is a number (``t4_i``); an array is written only for the values
  the code reads after the run (or in the next iteration of a loop around it);
* a slice with constant bounds (``x[1:]``, ``x[:-1]``) is the array read at an offset;
  stores into such slices (``x_bar[1:] += ...``) are written in the loop when the order of
  the writes cannot change a result (writes to one element in the run's order);
* ``np.sum`` / ``np.mean`` / ``.sum()`` of an elementwise value, and the dot product of two
  (``a @ b`` of vectors), are summed in the loop that makes the operand;
* numbers the run computes, allocations, and operands that are not elementwise (``X @ w``
  in ``X @ w + b``) are computed before the loop;
* arrays of more than one axis are walked through their flattened elements.

Where the shapes are not known to be equal (kinds.py), the loop runs behind a check of the
shapes made when it runs, with the statements as they were as the other branch (NumPy then
broadcasts, or raises as it would have).  Only the gradient's own function is rewritten;
its NumPy source (``df.source`` before the first call, and the Python gradient) is not.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from . import kindflow, kinds
from .chains import Chain, loads


def fused(built, made, key):
    """The numba module `built` (module.py's `NumbaModule`) of the Variant `made`, compiled for
    the signature `key` (driver's cache key: one entry per parameter), with its gradient
    function fused."""
    if not isinstance(key, tuple):
        return built
    tree = ast.parse(made.source).body[0]
    names = [a.arg for a in tree.args.args]
    if len(names) != len(key) or tree.args.vararg or tree.args.kwonlyargs:
        return built
    params = {name: kinds.of_signature(name, part) for name, part in zip(names, key)}
    source, lines = fuse_module(built.source, built.lines, built.main, params)
    if source == built.source:
        return built
    imports = {**built.imports, "np": ("numpy", None)}  # the loops allocate with np.empty
    return replace(built, source=source, lines=lines, imports=imports)


def fuse_module(source: str, lines: dict[int, tuple], main: str, params: dict) -> tuple[str, dict]:
    """The module `source` with the function `main` fused; `lines` maps the module's lines
    to their origins (module.py), and is returned for the new text.  `params` gives the
    kinds of `main`'s parameters (kinds.of_signature); the others are not known."""
    module = ast.parse(source)
    for node in ast.walk(module):
        if isinstance(node, ast.stmt) and node.lineno in lines:
            node.origin = lines[node.lineno]
    func = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == main), None)
    if func is None:
        return source, lines
    if any(isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id == "np" for n in ast.walk(func)) \
            or "np" in {a.arg for a in func.args.args}:
        return source, lines  # (np is not NumPy here)
    env = {a.arg: params.get(a.arg) for a in func.args.args}
    fuser = _Fuser(func)
    func.body = fuser.block(func.body, env, in_loop=False)
    if not fuser.fused:
        return source, lines
    text = ast.unparse(ast.fix_missing_locations(module))
    return text, line_map(module, text)


def line_map(module: ast.Module, source: str) -> dict[int, tuple]:
    """The user's origin of each line of `source`, the text of the rewritten `module`."""
    found = {}
    for old, new in zip(ast.walk(module), ast.walk(ast.parse(source))):
        origin = getattr(old, "origin", None)
        if isinstance(new, ast.stmt) and origin is not None:
            found.setdefault(new.lineno, origin)
    return found


class _Fuser:
    """Walks the function's blocks, statement by statement, with the kinds of the names."""

    def __init__(self, func: ast.FunctionDef):
        self.func = func
        self.taken = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
        self.loads = loads([func])
        self.fresh_arrays = self._fresh_arrays()
        self.fused = 0
        self.index = self.name("i")
        self.size = self.name("n")

    def name(self, wanted: str) -> str:
        while wanted in self.taken:
            wanted += "_"
        self.taken.add(wanted)
        return wanted

    def _fresh_arrays(self) -> set[str]:
        """Arrays the function allocates and reads only to write into them, or to return them:
        no other name shares their memory, so a loop may write them in place."""
        made, other = set(), set()
        for node in ast.walk(self.func):
            if isinstance(node, ast.Assign):
                fresh = isinstance(node.value, ast.Call) and kinds.numpy_name(node.value.func) in kinds.ALLOCATIONS
                for target in node.targets:
                    for name in kindflow.bound(target) if not isinstance(target, ast.Subscript) else ():
                        (made if fresh and isinstance(target, ast.Name) else other).add(name)
            elif isinstance(node, (ast.AugAssign, ast.For)) and not isinstance(node.target, ast.Subscript):
                other.update(kindflow.bound(node.target))
        allowed = set()
        for node in ast.walk(self.func):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                allowed.add(id(node.value))
            elif isinstance(node, ast.Return) and node.value is not None:
                allowed.update(id(n) for n in ast.walk(node.value) if isinstance(n, ast.Name))
        for node in ast.walk(self.func):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in allowed:
                other.add(node.id)
        return made - other

    def block(self, stmts: list, env: dict, in_loop: bool) -> list:
        out: list = []
        run = Chain(self, in_loop)
        for stmt in stmts:
            if isinstance(stmt, (ast.For, ast.While, ast.If)):
                out += run.close()
                run = Chain(self, in_loop)
                if isinstance(stmt, ast.If):
                    stmt.body = self.block(stmt.body, env, in_loop)
                    stmt.orelse = self.block(stmt.orelse, env, in_loop)
                else:
                    inner = dict(env)
                    if isinstance(stmt, ast.For):
                        for name in kindflow.bound(stmt.target):
                            inner[name] = kinds.NUMBER["i8"] if isinstance(stmt.target, ast.Name) else None
                    entry = kindflow.loop_entry(stmt, inner)
                    after = kindflow.effect(stmt, env)
                    stmt.body = self.block(stmt.body, entry, in_loop=True)
                    out.append(stmt)
                    env = after
                    continue
                out.append(stmt)
            elif not run.add(stmt, env):
                out += run.close()
                run = Chain(self, in_loop)
                if not run.add(stmt, env):
                    out.append(stmt)
                    run = Chain(self, in_loop)
            env = kindflow.effect(stmt, env)
        return out + run.close()


__all__ = ["fuse_module", "fused", "line_map"]
