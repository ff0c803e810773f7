"""Vector forward mode: one sweep carrying several tangents of the same values.

A jvp (ad/tangent.py, driver/forward.py) computes each value, then its tangent.  A Hessian
by forward over reverse needs one tangent per differentiated element; run one sweep per
element and every sweep recomputes the same values (the gradient, its loops, its stacks).
`widen` rewrites the jvp's function so that each tangent statement is repeated once per
direction under its own names (``z_dot0 = ...``, ``z_dot1 = ...``): the values are computed
once, the tangents side by side, all floats staying floats (no batch axis, no array of
directions, which for scalar code would cost more than it saves).  What a tangent statement
computes from values alone (``math.cos(x)`` in ``y_dot = x_dot * math.cos(x)``) is computed
once before the copies.

Which statements are tangent statements is found from the code itself: a name is a tangent
if it is a tangent parameter or a statement touching a tangent writes it (``s_dot = []``
then ``s_dot.append(v_dot)``: both are tangent statements).  A value never depends on a
tangent in a jvp, so every simple statement is one or the other; a loop or branch whose test
reads a tangent, a statement writing a value and a tangent at once (the call of a helper's
own tangent function) is refused: the caller then runs one sweep per direction.
"""

from __future__ import annotations

import ast
import copy

from ..errors import SrcDiffError


def widen(func: ast.FunctionDef, tangent_params: list[str], count: int) -> dict[str, list[str]]:
    """Rewrite `func` (``name(*params, *tangents) -> (value, tangent)``) in place into
    ``name(*params, *tangents_0, ..., *tangents_{count-1}) -> (value, (tangent_0, ...))``;
    returns each tangent name's `count` new names.  Raises SrcDiffError where the code does
    not split into values and tangents."""
    body, returned = func.body[:-1], func.body[-1]
    if not (isinstance(returned, ast.Return) and isinstance(returned.value, ast.Tuple)
            and len(returned.value.elts) == 2):
        raise SrcDiffError("vector forward mode: the jvp does not end in ``return value, tangent``")
    tangents = _tangent_names(body, set(tangent_params))
    taken = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
    suffix = _suffix(tangents, taken, count)
    names = {t: [f"{t}{suffix}{j}" for j in range(count)] for t in sorted(tangents)}
    fresh = _Fresh(taken | {n for copies in names.values() for n in copies})
    func.body = _block(body, tangents, names, count, fresh)
    value, tangent = returned.value.elts
    if _reads(value) & tangents:
        raise SrcDiffError("vector forward mode: the value returned reads a tangent")
    copies = [_renamed(tangent, names, j) for j in range(count)]
    func.body.append(ast.Return(ast.Tuple([value, ast.Tuple(copies, ast.Load())], ast.Load())))
    primal = [a for a in func.args.args if a.arg not in set(tangent_params)]
    func.args.args = primal + [ast.arg(names[p][j]) for j in range(count) for p in tangent_params]
    ast.fix_missing_locations(func)
    return names


def _suffix(tangents: set[str], taken: set[str], count: int) -> str:
    """The shortest of "", "_", "_d" ... whose numbered names collide with nothing."""
    for suffix in ("", "_", "_d", "_dir", "_direction"):
        if not any(f"{t}{suffix}{j}" in taken for t in tangents for j in range(count)):
            return suffix
    raise SrcDiffError("vector forward mode: no free names for the tangents' copies")


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _base(target: ast.expr) -> ast.expr:
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return target


def _writes(stmt: ast.stmt) -> set[str]:
    """The names a simple statement binds or mutates (``x[i] = v``, ``x += v``, ``x.append(v)``)."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    elif isinstance(stmt, ast.Delete):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and isinstance(stmt.value.func, ast.Attribute):
        targets = [stmt.value.func.value]  # a method call may change its receiver
    out = set()
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                out.add(node.id)
        base = _base(target)
        if isinstance(base, ast.Name):
            out.add(base.id)
    return out


def _simple(stmts: list[ast.stmt]):
    """Every simple statement, in loops and branches too."""
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.While, ast.If)):
            yield from _simple(stmt.body)
            yield from _simple(stmt.orelse)
        else:  # (codegen's comment markers read and write nothing: values' statements)
            yield stmt


def _tangent_names(body: list[ast.stmt], params: set[str]) -> set[str]:
    """The tangent parameters and every name a statement touching a tangent writes (to a fixed
    point: loops carry tangents around)."""
    tangents = set(params)
    while True:
        before = len(tangents)
        for stmt in _simple(body):
            if isinstance(stmt, ast.Delete):
                continue
            writes = _writes(stmt)
            if (_reads(stmt) | writes) & tangents:
                tangents |= writes
        if len(tangents) == before:
            return tangents


def _renamed(node, names: dict[str, list[str]], j: int):
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id][j]
    return node


class _Fresh:
    """Names for values the directions share: ``common0``, ``common1``, ... none taken."""

    def __init__(self, taken: set[str]):
        self.taken, self.next = taken, 0

    def __call__(self) -> str:
        while f"common{self.next}" in self.taken:
            self.next += 1
        self.taken.add(f"common{self.next}")
        return f"common{self.next}"


def _shared(stmt: ast.stmt, tangents: set[str], fresh: _Fresh) -> list[ast.stmt]:
    """A tangent statement's calls of math functions of values alone (``math.cos(x)`` in
    ``y_dot = x_dot * math.cos(x)``), computed once for all directions: the statements that
    compute them, each call replaced by its name in `stmt`."""
    out: list[ast.stmt] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp,
                             ast.DictComp)):
            return  # evaluated only on some paths (a guard before math.log): left where it is
        for field, child in ast.iter_fields(node):
            if isinstance(node, (ast.BinOp, ast.UnaryOp)) and isinstance(child, ast.Call) \
                    and isinstance(child.func, ast.Attribute) and isinstance(child.func.value, ast.Name) \
                    and child.func.value.id in ("math", "np") and not _reads(child) & tangents:
                name = fresh()  # (not looked into: computed whole, as written)
                out.append(ast.Assign([ast.Name(name, ast.Store())], child))
                setattr(node, field, ast.Name(name, ast.Load()))
            elif isinstance(child, ast.AST):
                visit(child)
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, ast.AST):
                        visit(item)
    visit(stmt)
    return out


def _block(stmts: list[ast.stmt], tangents: set[str], names: dict, count: int, fresh: _Fresh) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.While, ast.If)):
            head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            bound = _writes(ast.Assign([stmt.target], ast.Constant(0))) if isinstance(stmt, ast.For) else set()
            if (_reads(head) | bound) & tangents:
                raise SrcDiffError("vector forward mode: a loop or branch depends on a tangent")
            stmt.body = _block(stmt.body, tangents, names, count, fresh)
            stmt.orelse = _block(stmt.orelse, tangents, names, count, fresh)
            out.append(stmt)
        elif isinstance(stmt, ast.Delete):
            keep = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in tangents)]
            gone = [ast.Name(names[t.id][j], ast.Del()) for j in range(count)
                    for t in stmt.targets if isinstance(t, ast.Name) and t.id in tangents]
            if keep + gone:
                out.append(ast.Delete(keep + gone))
        elif isinstance(stmt, (ast.Raise, ast.Assert)) and not _reads(stmt) & tangents:
            out.append(stmt)  # a check of values (shapes that do not match: f raises too), as written
        elif not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Pass, ast.Break, ast.Continue)):
            raise SrcDiffError(f"vector forward mode: a {type(stmt).__name__} statement in the jvp")
        else:
            writes = _writes(stmt)
            if not (_reads(stmt) | writes) & tangents:
                out.append(stmt)  # a value's statement: computed once for every direction
            elif writes - tangents:
                raise SrcDiffError("vector forward mode: a statement writes a value and a tangent at once")
            else:
                out += _shared(stmt, tangents, fresh) if count > 1 else []
                out += [_renamed(stmt, names, j) for j in range(count)]
    return out


__all__ = ["widen"]
