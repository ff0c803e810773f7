"""A list that starts empty, whose items numba learns only through another name.

``returns = []`` before a loop that rebuilds it (``joined = [G]``, the old items appended,
``returns = joined``: a list prepended to, a running list of states) gives numba a list of no item
type: it types ``[]`` from the appends made to that very name, and refuses ("Cannot infer the type
of variable 'returns', have imprecise type: list(undefined)") where none is.  Where every item the
name's lists receive (appended, inserted, or in a display the name is given) whose kind is known
from the arguments' (kindflow.py) has one kind, the empty list is written as a one-item list of
that kind sliced to no item (``[0.0][:0]``, ``[np.zeros((1,))][:0]``): the same empty list, typed;
where no item's kind is known, a list of float64 numbers, then (where numba refuses that type for
the name) arrays of one and two axes, float32 ones.  A wrong guess only makes numba refuse (a list
of one type given items of another), never a value; items of several kinds leave the code as it
is (numba refuses it at the user's line).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from . import joins, kindflow, kinds
from .kinds import Kind

IMPRECISE = re.compile(r"Cannot infer the type of variable '([A-Za-z_][A-Za-z_0-9]*)(?:\.\d+)?', "
                       r"have imprecise type: list\(undefined\)")
#: numba's refusals where an empty list's item type was not known yet where it was read (``while
#: len(xs) < 5:`` before the first append: the length of a list of no type is undefined, and so is
#: what is computed from it, up to a tuple popped off a stack or the list's own ``append``), naming
#: no list
UNDEFINED = re.compile(r"failed to unpack undefined|Type of variable '[^']*' cannot be determined"
                       r"|Undecided type \$\w*load_method")
_ADDING = {"append": 0, "insert": 1}  # -> the position of the item among the arguments


def ahead(built, made=None, key=None):
    """`built` with the empty lists whose length a ``while`` test reads (``while len(xs) < n:``) typed
    before numba first compiles it, where their items' kind is known: numba would refuse the code as
    written (`UNDEFINED`), and a refusal is not kept in its on-disk cache, so each new process would
    pay for it again before the retry (whose code is kept)."""
    module = ast.parse(built.source)
    read = {n.args[0].id for loop in ast.walk(module) if isinstance(loop, ast.While) for n in ast.walk(loop.test)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1
            and isinstance(n.args[0], ast.Name)}
    return (retried(built, "failed to unpack undefined", made, key, read) if read else None) or built


def retried(built, refusal: str, made=None, key=None, only: set | None = None):
    """`built` (module.py's `NumbaModule`) with the empty list numba's `refusal` names typed by its
    items' kind (`made` and `key`, the variant and its signature, tell the main function's arguments'
    kinds), or, where numba refuses the type given before, the next of `GUESSES`; None when the
    refusal is another or no type is left to try.  `only`: the names of the lists to type, if not all."""
    found, undefined = IMPRECISE.search(refusal), UNDEFINED.search(refusal) is not None
    module = ast.parse(built.source)
    changed = False
    for func in (f for f in module.body if isinstance(f, ast.FunctionDef)):
        for name, assigns in _empties(func).items():
            typed = [a for a in assigns if _typed_kind(a.value) is not None]
            if only is not None and name not in only:
                continue
            if (found and found.group(1) == name or undefined and not found) and len(typed) < len(assigns):
                env = joins.arguments_in(module, func, built.main, made, key)
                # (an undefined value names no list: every list whose items' kind is known is typed)
                kind = _item_kind(func, name, env or {}, guess=not undefined)
            elif typed and (f"'{name}." in refusal or f"'{name}'" in refusal):  # the type given refused
                tried = _typed_kind(typed[0].value)
                kind = GUESSES[GUESSES.index(tried) + 1] if tried in GUESSES[:-1] else None
            else:
                continue
            if kind is None:
                continue
            for assign in assigns:
                one = ast.List([_one(kind)], ast.Load())
                assign.value = ast.copy_location(
                    ast.Subscript(one, ast.Slice(None, ast.Constant(0), None), ast.Load()), assign.value)
            changed = True
    if not changed:
        return None
    source = ast.unparse(module)
    old = [n.lineno for n in ast.walk(ast.parse(built.source)) if isinstance(n, ast.stmt)]
    new = [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt)]
    lines = {b: built.lines[a] for a, b in zip(old, new) if a in built.lines}
    return replace(built, source=source, lines=lines, imports={**built.imports, "np": ("numpy", None)})


#: the item types tried in turn where no item's kind is known (numbers first: the usual items)
GUESSES = [Kind(kinds.SCALAR, "f8"), Kind(1, "f8"), Kind(2, "f8"), Kind(kinds.SCALAR, "f4"), Kind(1, "f4"),
           Kind(2, "f4")]


def _empties(func: ast.FunctionDef) -> dict:
    """name -> its assignments of an empty list (``[]``, or one typed here: ``[0.0][:0]``)."""
    out: dict = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and (
                isinstance(n.value, ast.List) and not n.value.elts or _typed_kind(n.value) is not None):
            out.setdefault(n.targets[0].id, []).append(n)
    return out


def _typed_kind(value: ast.expr) -> Kind | None:
    """The kind of the empty list `value` typed here (``[np.zeros((1,))][:0]``), else None."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.List) and len(value.value.elts) == 1
            and isinstance(value.slice, ast.Slice) and value.slice.lower is None and value.slice.step is None
            and isinstance(value.slice.upper, ast.Constant) and value.slice.upper.value == 0):
        return None
    text = ast.unparse(value.value.elts[0])
    return next((k for k in [*GUESSES, Kind(kinds.SCALAR, "i8")] if ast.unparse(_one(k)) == text), None)


def _item_kind(func: ast.FunctionDef, name: str, env: dict, guess: bool = True) -> Kind | None:
    """The one kind of every item put into `name`'s lists (its own, and those it is given by a rename);
    where no item's kind is known, the first of GUESSES if `guess`, else None."""
    family = {name}
    for _ in range(4):  # renames of renames
        family |= {n.value.id for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and isinstance(n.targets[0], ast.Name) and n.targets[0].id in family
                   and isinstance(n.value, ast.Name)}
    before = _envs(func, {**{a.arg: None for a in func.args.args}, **env})
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in ast.walk(func):
        items = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDING \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in family \
                and len(node.args) == _ADDING[node.func.attr] + 1 and not node.keywords:
            items = [node.args[-1]]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in family and isinstance(node.value, ast.List):
            items = list(node.value.elts)
        for item in items:
            stmt = node
            while stmt is not None and not isinstance(stmt, ast.stmt):
                stmt = parents.get(id(stmt))
            kind = kinds.of(item, before.get(id(stmt), {}))
            found.add(replace(kind, dims=None) if isinstance(kind, Kind) else None)
    known = {k for k in found if isinstance(k, Kind)}
    if not known:  # (no item's kind is known: numbers first, then GUESSES in turn where numba refuses)
        return GUESSES[0] if found and guess else None
    if len(known) != 1:
        return None
    (kind,) = known
    return kind if kind.dtype in ("f8", "f4", "i8") and kind.ndim != 0 else None


def _envs(func: ast.FunctionDef, env: dict) -> dict:
    """The kinds before each statement of `func` (id -> env), loops at their fixed point."""
    before = {}

    def walk(stmts: list, env: dict) -> None:
        for stmt in stmts:
            before[id(stmt)] = env
            if isinstance(stmt, (ast.For, ast.While)):
                inner = dict(env)
                if isinstance(stmt, ast.For):
                    inner.update({n: kinds.NUMBER["i8"] if isinstance(stmt.target, ast.Name) else None
                                  for n in kindflow.bound(stmt.target)})
                walk(stmt.body, kindflow.loop_entry(stmt, inner))
            elif isinstance(stmt, ast.If):
                walk(stmt.body, env)
                walk(stmt.orelse, env)
            env = kindflow.effect(stmt, env)

    walk(func.body, env)
    return before


def _one(kind: Kind) -> ast.expr:
    """One value of `kind` (the item of the list sliced to none)."""
    narrow = [ast.Attribute(ast.Name("np", ast.Load()), "float32", ast.Load())] if kind.dtype == "f4" else []
    if kind.ndim == kinds.SCALAR:
        if kind.dtype == "i8":
            return ast.Constant(0)
        zero = ast.Constant(0.0)
        return ast.Call(narrow[0], [zero], []) if narrow else zero
    shape = ast.Tuple([ast.Constant(1)] * kind.ndim, ast.Load())
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "zeros", ast.Load()), [shape, *narrow], [])


__all__ = ["IMPRECISE", "ahead", "retried"]
