"""Stage 6: the gradient program becomes a Python function's AST.

A pure builder: it reads the program and returns a new `ast.FunctionDef` that shares no
node with the IR, so the optimizer may rewrite it in place and the next variant of the
same function starts from the same IR.  Comments travel as marker calls (render.py turns
them into ``# ...`` lines).  Statement lists are built recursively (`forward_statements`,
`backward_statements`).
"""

from __future__ import annotations

import ast
import copy

from ..ir.nodes import Node
from ..ir.program import AdjointStmt, Assign, Break, Effect, For, GradProgram, If, Run, Scatter, While
from .render import comment


def build(program: GradProgram, tree: ast.FunctionDef, describe_line, *, name: str,
          with_value: bool, tuple_result: bool, info=None, seeded: bool = False,
          narrow: tuple = ()) -> ast.FunctionDef:
    """The gradient function `name`, taking the user's parameters, as a fresh AST.

    `describe_line(line)` gives the ``file:line  code`` text of an adjoint block's comment.
    A callee's program (`program.pullback` set) becomes ``name(params) -> (value, pullback)``;
    `seeded`, ``name(seed, params) -> gradient`` (no closure: code srcdiff reads back).
    `narrow[i]`: the i-th gradient's parameter is a float32 array, so is its gradient.
    """
    body: list[ast.stmt] = []
    if program.forward or program.check_output:
        body.append(comment("forward"))
    body += forward_statements(program.forward)
    if program.check_output:
        out = program.function.output.name
        body.append(ast.Expr(ast.Call(ast.Name("ensure_scalar", ast.Load()),
                                      [ast.Name(out, ast.Load()), ast.Constant(program.check_output)], [])))
    backward: list[ast.stmt] = []
    if program.backward:
        backward.append(comment("backward"))
    backward += backward_statements(program.backward, describe_line)
    grads = [_zero_d_array(g, program, info) for g in program.returns]
    grads = [_in_float32(g) if i < len(narrow) and narrow[i] else g for i, g in enumerate(grads)]
    result = ast.Tuple(grads, ast.Load()) if tuple_result else grads[0]
    output = program.function.output
    value = ast.Name(output.name, ast.Load()) if hasattr(output, "name") else ast.Constant(output.value)
    if program.pullback and not seeded:
        backward.append(ast.Return(result))
        restored = sorted(_assigned(backward) & (_assigned(body) | _param_names(tree.args)))
        if restored:  # values the backward loops restore belong to the forward sweep
            backward.insert(0, ast.Nonlocal(restored))
        inner = _function(f"{name}_pullback", ast.arguments(
            posonlyargs=[], args=[ast.arg(program.pullback)], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=[]), backward)
        body += [inner, ast.Return(ast.Tuple([value, ast.Name(inner.name, ast.Load())], ast.Load()))]
    else:
        if with_value and isinstance(value, ast.Name) and value.id in _assigned(backward):
            # a backward loop restores the output's name to an earlier value: keep the
            # forward sweep's (a reference is enough, the backward sweep only rebinds names)
            kept = _unused_name(f"{value.id}_value", body + backward, tree.args)
            body.append(_assign(kept, value))
            value = ast.Name(kept, ast.Load())
        body += backward
        if with_value:
            result = ast.Tuple([value, result], ast.Load())
        body.append(ast.Return(result))
    # expressions above are the IR's own objects: copied, so rewriting the function later
    # cannot change the IR that the next variant is built from
    arguments = _plain_arguments(tree.args)
    if program.pullback:  # a callee adjoint: called without the arguments the call left to defaults
        arguments.defaults = _literal_defaults(tree.args)
    if seeded:  # the output's adjoint first: the call's own arguments follow as the user wrote them
        arguments.args.insert(0, ast.arg(program.pullback))
    return copy.deepcopy(_function(name, arguments, body))


def forward_statements(stmts: list) -> list[ast.stmt]:
    """Python statements of the forward sweep."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, Node):
            out.append(_assign(stmt.out.name, stmt.expr))
        else:
            out += _structured(stmt, forward_statements)
    return out


def backward_statements(stmts: list, describe_line, label: str = "adjoint of ") -> list[ast.stmt]:
    """Python statements of the backward sweep, each adjoint block under a comment naming
    the user's line it comes from (``# adjoint of file.py:3  code``; forward mode's blocks
    are labelled by the line alone)."""
    out: list[ast.stmt] = []
    line = None
    for stmt in stmts:
        stmt_line = getattr(stmt, "line", None)
        if stmt_line is not None and stmt_line != line:
            line = stmt_line
            out.append(comment(f"{label}{describe_line(line)}"))
        if isinstance(stmt, (For, While, If)):
            # the block after a nested one names its line again, unless it is the nested
            # one's own line (a loop's adjoint before and after its backward loop)
            line = stmt_line
        if isinstance(stmt, AdjointStmt):
            expr = stmt.expr
            if stmt.accumulate:
                expr = ast.BinOp(ast.Name(stmt.target, ast.Load()), ast.Add(), expr)
            out.append(_assign(stmt.target, expr))
        elif isinstance(stmt, Scatter):
            out.append(_scatter(stmt))
        else:
            out += _structured(stmt, lambda inner: backward_statements(inner, describe_line, label))
    return out


def _structured(stmt, render) -> list[ast.stmt]:
    if isinstance(stmt, Assign):
        targets = [ast.Name(t, ast.Store()) for t in stmt.targets]
        target = targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())
        return [ast.Assign([target], stmt.expr, lineno=0)]
    if isinstance(stmt, Effect):
        return [ast.Expr(stmt.expr)]
    if isinstance(stmt, Run):
        return [stmt.stmt]
    if isinstance(stmt, Break):
        return [ast.Break()]
    if isinstance(stmt, If):
        body, orelse = render(stmt.body), render(stmt.orelse)
        test = stmt.test
        if not body:
            body, orelse, test = orelse, [], ast.UnaryOp(ast.Not(), test)
        return [ast.If(test, body or [ast.Pass()], orelse)] if body else []
    if isinstance(stmt, For):
        return [ast.For(ast.Name(stmt.target_name, ast.Store()), stmt.iter, render(stmt.body) or [ast.Pass()],
                        [], lineno=0)]
    if isinstance(stmt, While):
        return [ast.While(stmt.test, render(stmt.body) or [ast.Pass()], [])]
    raise TypeError(f"cannot generate code for {stmt!r}")


def _scatter(stmt: Scatter) -> ast.stmt:
    target = ast.Name(stmt.target, ast.Load())
    if stmt.mode == "add.at":
        call = ast.parse("np.add.at", mode="eval").body
        return ast.Expr(ast.Call(call, [target, _as_value(stmt.index), stmt.expr], []))
    part = ast.Subscript(ast.Name(stmt.target, ast.Store()), stmt.index, ast.Store())
    if stmt.mode == "add":
        return ast.AugAssign(part, ast.Add(), stmt.expr)
    current = ast.Subscript(target, stmt.index, ast.Load())
    return ast.Assign([part], ast.BinOp(current, ast.Add(), stmt.expr), lineno=0)


def _as_value(index: ast.expr) -> ast.expr:
    """An index as a value that can be passed to a function: ``:`` becomes ``slice(None)``."""
    def value(part: ast.expr) -> ast.expr:
        if isinstance(part, ast.Slice):
            bounds = [b if b is not None else ast.Constant(None) for b in (part.lower, part.upper, part.step)]
            return ast.Call(ast.Name("slice", ast.Load()), bounds, [])
        return part
    if isinstance(index, ast.Tuple):
        return ast.Tuple([value(e) for e in index.elts], ast.Load())
    return value(index)


def _assigned(stmts: list[ast.stmt]) -> set[str]:
    found = set()
    for stmt in stmts:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                found.add(n.id)
    return found


def _zero_d_array(grad: ast.expr, program: GradProgram, info) -> ast.expr:
    """``np.asarray(x_bar)`` where the parameter is a 0-d array and its adjoint may have come
    out a NumPy number (``np.sum`` of one): the gradient has the parameter's type."""
    inner = grad.func.value if isinstance(grad, ast.Call) and isinstance(grad.func, ast.Attribute) \
        and grad.func.attr == "copy" else grad
    if info is None or not isinstance(inner, ast.Name):
        return grad
    primal = {adjoint: name for name, adjoint in program.adjoints.items()}.get(inner.id)
    shape = info.shapes.get(primal) if primal in info.params else None
    if shape is None or shape.dims != () or shape.scalar:
        return grad
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [grad], [])


def _in_float32(grad: ast.expr) -> ast.expr:
    """``np.asarray(x_bar, dtype=np.float32)``: a float32 parameter's gradient is float32 even
    where the function computes in float64 (a float64 constant such as ``np.eye(n)`` or
    ``np.sqrt(d)`` meets the parameter), as JAX and PyTorch keep it (no copy when it is)."""
    np_name = ast.Name("np", ast.Load())
    return ast.Call(ast.Attribute(np_name, "asarray", ast.Load()), [grad],
                    [ast.keyword("dtype", ast.Attribute(ast.Name("np", ast.Load()), "float32", ast.Load()))])


def _unused_name(base: str, stmts: list[ast.stmt], args: ast.arguments) -> str:
    """`base`, or `base_2`, `base_3`... : the first name no statement or parameter uses."""
    used = _param_names(args) | {n.id for stmt in stmts for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    name, count = base, 1
    while name in used:
        count += 1
        name = f"{base}_{count}"
    return name


def _param_names(args: ast.arguments) -> set[str]:
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}


def _function(name: str, args: ast.arguments, body: list[ast.stmt]) -> ast.FunctionDef:
    func = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                           type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    return func


def _assign(target: str, value: ast.expr) -> ast.stmt:
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=0)


def _literal_defaults(args: ast.arguments) -> list[ast.expr]:
    """The user's defaults of the last positional parameters, as far back as they are
    literals (``axis=None``, ``tensor=True``), so that the listing says what a call that
    leaves them out gets (the compiled function has them all, as values)."""
    if args.kwonlyargs:
        return []
    found = []
    for default in reversed(args.defaults):
        try:
            ast.literal_eval(default)
        except ValueError:
            break
        found.insert(0, default)
    return found


def _plain_arguments(args: ast.arguments) -> ast.arguments:
    """The user's parameters in order, all positional: the caller binds defaults and keywords."""
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
