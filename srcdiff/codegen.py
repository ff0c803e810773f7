"""Stage 6: the gradient program becomes Python source text.

The function is built as a Python AST and rendered by astor.  Comments have no place in an
AST, so they travel as calls to a marker function and become ``# ...`` lines in the text.
"""

from __future__ import annotations

import ast
import re

import astor

from .reverse import GradProgram

_MARK = "__srcdiff_comment__"
_MARK_LINE = re.compile(rf"^(\s*){_MARK}\((.*)\)$", re.MULTILINE)


def comment(text: str) -> ast.stmt:
    """A statement that renders as ``# text``."""
    return ast.Expr(ast.Call(ast.Name(_MARK, ast.Load()), [ast.Constant(text)], []))


def generate(program: GradProgram, tree: ast.FunctionDef, describe_line, *, name: str,
             with_value: bool, tuple_result: bool) -> str:
    """Source text of the gradient function `name`, taking the user's parameters.

    `describe_line(line)` gives the ``file:line  code`` text of an adjoint block's comment.
    """
    body: list[ast.stmt] = []
    if program.forward or program.check_output:
        body.append(comment("forward"))
    for node in program.forward:
        body.append(_assign(node.out.name, node.expr))
    if program.check_output:
        out = program.function.output.name
        body.append(ast.Expr(ast.Call(ast.Name("ensure_scalar", ast.Load()),
                                      [ast.Name(out, ast.Load()), ast.Constant(program.check_output)], [])))
    if program.backward:
        body.append(comment("backward"))
    line = None
    for stmt in program.backward:
        if stmt.line is not None and stmt.line != line:
            line = stmt.line
            body.append(comment(f"adjoint of {describe_line(line)}"))
        expr = stmt.expr
        if stmt.accumulate:
            expr = ast.BinOp(ast.Name(stmt.target, ast.Load()), ast.Add(), expr)
        body.append(_assign(stmt.target, expr))
    grads = program.returns
    result = ast.Tuple(grads, ast.Load()) if tuple_result else grads[0]
    if with_value:
        value = ast.Name(program.function.output.name, ast.Load()) \
            if hasattr(program.function.output, "name") else ast.Constant(program.function.output.value)
        result = ast.Tuple([value, result], ast.Load())
    body.append(ast.Return(result))
    func = ast.FunctionDef(name=name, args=_plain_arguments(tree.args), body=body,
                           decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    text = astor.to_source(module, pretty_source=''.join)  # no line wrapping
    return _MARK_LINE.sub(lambda m: f"{m.group(1)}# {ast.literal_eval(m.group(2))}", text)


def _assign(target: str, value: ast.expr) -> ast.stmt:
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=0)


def _plain_arguments(args: ast.arguments) -> ast.arguments:
    """The user's parameters in order, all positional: the caller binds defaults and keywords."""
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
