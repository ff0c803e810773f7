"""Recursive helpers under numba: each level's adjoint recomputes its forward values.

The adjoint of a helper that is not recursive becomes two module-level functions
(module.py's split): the forward one returns the value and a tuple of what the pullback
reads, the pullback takes that tuple.  A recursive helper's tuple would hold the tuple its
own recursive call saved, and that one the next: a type without end, which numba cannot
have.  So a helper on a cycle of calls saves its arguments only, as they were when it was
called, and its pullback runs the helper's forward statements again from them (the
recursive calls in them return their own arguments, a tuple of fixed type) before the
backward statements.  Each level recomputes what lies below it: a linear recursion of
depth n costs n²/2 forward steps instead of n, for values identical to the saved ones
(the same statements on the same numbers).

numba's on-disk cache cannot hold recursive code: loaded in a new process, a recursive call
jumps to a symbol numba left unresolved, and the process crashed.  A module with a recursive
helper is compiled in each process instead (`NumbaModule.cached`): its first call compiles.

Recomputing is only sound if the forward statements leave the arguments as they found
them: a helper that writes into an argument is refused at that line.
"""

from __future__ import annotations

import ast
import copy


def on_cycles(trees: dict[str, ast.FunctionDef], callees: set[str]) -> dict[str, ast.Call]:
    """The callees that reach themselves through calls, each with a call on its cycle."""
    calls = {name: {n.func.id: n for n in ast.walk(tree) if isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Name) and n.func.id in callees} for name, tree in trees.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                todo += calls.get(name, {}).keys()
        return False

    found = {}
    for name in callees:
        cycle = [call for callee, call in calls.get(name, {}).items() if reaches(callee, name)]
        if cycle:
            found[name] = cycle[0]
    return found


def primals(parts, cycles: dict) -> dict[int, str]:
    """id(user function) -> the name of its recursive adjoint among `parts` (module.py's), whose
    first result is the function's value: a call of the function that no gradient flows
    through (``power(y, 2)`` in the gradient for x) calls it instead (numba compiles
    generated code only, and a recursive function is not copied into its caller)."""
    found = {}
    split = {p.name for p in parts if p.name in cycles and any(isinstance(s, ast.FunctionDef) for s in p.tree.body)}
    for caller in parts:
        program = getattr(caller.variant, "program", None)
        for name, called in getattr(caller.variant, "callees", {}).items():
            spec = getattr(program, "calls", {}).get(name)
            match = next((p.name for p in parts if p.variant is called.variant and p.name in split), None)
            if match is not None and getattr(spec, "func", None) is not None:
                found.setdefault(id(spec.func), match)
    return found


def call_value(tree: ast.FunctionDef, name: str, adjoint: str) -> None:
    """Rewrite, in place, each call ``name(...)`` in `tree` as ``adjoint(...)[0]``."""
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id == name:
                    item.func.id = adjoint
                    made = ast.Subscript(item, ast.Constant(0), ast.Load())
                    if isinstance(value, list):
                        value[i] = made
                    else:
                        setattr(node, field, made)


def parameter_write(forward: list[ast.stmt], params: set[str]) -> ast.AST | None:
    """A statement of `forward` that writes into a parameter's array (``x[0] = v``,
    ``x[i] += v``, ``x.fill(0)``...) before rebinding it, or None."""
    rebound: set[str] = set()
    for statement in forward:
        for node in ast.walk(statement):
            target = None
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    target = _root(t) if isinstance(t, (ast.Subscript, ast.Attribute)) else None
                    if target in params - rebound:
                        return statement
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = _root(node.func.value)
                if target in params - rebound and node.func.attr not in _READS:
                    return statement
        rebound |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return None


#: Methods of an array that only read it.
_READS = {"copy", "sum", "mean", "max", "min", "prod", "reshape", "astype", "dot", "ravel", "flatten", "transpose",
          "any", "all", "std", "var", "cumsum", "item", "tolist", "conj", "squeeze", "swapaxes", "argmax", "argmin",
          "clip", "round", "trace", "diagonal", "nonzero", "argsort", "take", "repeat", "__getitem__"}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def recompute(fwd: ast.FunctionDef, bwd: ast.FunctionDef, forward: list[ast.stmt], saved_name: str) -> None:
    """Make, in place, the split adjoint of a recursive helper save its arguments only
    (`fwd`) and recompute its forward values from them (`bwd`, whose first parameter is
    `saved_name`, the tuple)."""
    params = [a.arg for a in fwd.args.args + fwd.args.kwonlyargs]
    pack = ast.Assign([ast.Name(saved_name, ast.Store())],
                      ast.Tuple([ast.Name(p, ast.Load()) for p in params], ast.Load()), lineno=0)
    ret = fwd.body[-1]
    ret.value.elts[1] = ast.Name(saved_name, ast.Load())
    fwd.body.insert(0, pack)
    unpack = ast.Assign([ast.Tuple([ast.Name(p, ast.Store()) for p in params], ast.Store())],
                        ast.Name(saved_name, ast.Load()), lineno=0)
    body = bwd.body[1:] if _unpacks(bwd.body[0] if bwd.body else None, saved_name) else bwd.body
    pack.origin = unpack.origin = ret.origin
    kept = {id(n.origin): n.origin for s in forward for n in ast.walk(s) if hasattr(n, "origin")}
    bwd.body = [unpack, *copy.deepcopy(forward, kept), *body]  # (each copy keeps its statement's origin)


def _unpacks(statement, saved_name: str) -> bool:
    return isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) \
        and statement.value.id == saved_name
