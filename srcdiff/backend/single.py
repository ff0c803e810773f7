"""float32 in, float32 out: the fills of a gradient compiled for float32 arguments.

Arithmetic keeps float32 by itself (NumPy 2 treats a Python float as having no dtype of its
own), but an array made from a Python number does not: the adjoint of ``np.sum`` is
``np.full(shape, 1.0)``, an accumulator starts as ``np.zeros(shape)``, a tangent as
``np.zeros(np.shape(x))`` — all float64, which then makes every value they meet float64.
A variant compiled for float32 arguments (the argument signature tells float32 from float64,
ir/shapes.py) writes its fills with ``dtype=np.float32``.  Only the derivative's own
statements are rewritten (the backward sweep, the pullback, the tangents): the user's forward
computation makes what the user's function makes.  A variant is compiled so only where every
differentiated value stays float32 (ir/dtype_inference.py): a value made float64 inside the
function (a float64 array or NumPy number it meets) has a float64 adjoint.
"""

from __future__ import annotations

import ast

from .render import MARK

_FILLS = ("zeros", "ones", "full", "eye", "zeros_like", "ones_like", "full_like")


def keep_single(func: ast.FunctionDef, derived: set[str] | None = None) -> None:
    """Rewrite the fills of `func` in place.  `derived` names the derivative values to
    rewrite (tangents); None: every statement after the ``# backward`` comment and every
    nested function (a pullback)."""
    body = func.body
    start = 0
    if derived is None:
        start = next((i for i, s in enumerate(body) if _is_comment(s, "backward")), len(body))
    for i, stmt in enumerate(body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.FunctionDef):  # a pullback: all of it is the backward sweep
                for inner in node.body:
                    _rewrite(inner)
        if i >= start and derived is None:
            _rewrite(stmt)
        elif derived is not None and isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in derived for t in stmt.targets):
            _rewrite(stmt)


def _rewrite(stmt: ast.AST) -> None:
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and _is_np(node.func) and node.func.attr == "where" and len(node.args) == 3 \
                and all(_is_number(a) for a in node.args[1:]):
            # a select between two numbers (a cut-off side's 0.0 and a fill's 1.0) is a float64
            # array; with float32 numbers it is float32 (an array operand keeps its own dtype)
            node.args[1:] = [ast.Call(_float32(), [a], []) for a in node.args[1:]]
            continue
        if isinstance(node, ast.Call) and _is_np(node.func) and node.func.attr in _FILLS \
                and not any(k.arg == "dtype" for k in node.keywords):
            positional = {"zeros": 1, "ones": 1, "full": 2, "eye": 4, "zeros_like": 1, "ones_like": 1,
                          "full_like": 2}[node.func.attr]
            if len(node.args) > positional:
                continue
            if node.func.attr.endswith("_like"):
                continue  # keeps its operand's dtype (float32 where the operand is)
            if node.func.attr == "full" and not _is_python_number(node.args[1]):
                continue  # filled with a value, whose dtype it takes
            node.keywords.append(ast.keyword("dtype", _float32()))


def _is_number(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_python_number(node) -> bool:
    """A Python number whatever the arrays' dtypes: numbers, sizes and lengths, and arithmetic
    of them (``-1.0 / x.size``, the adjoint of a mean)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_python_number(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return _is_python_number(node.left) and _is_python_number(node.right)
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
    return _is_number(node) or _is_np_call(node, "size")


def keep_dtypes(func: ast.FunctionDef, casts: list, scalars: list, *, with_value: bool, tuple_result: bool,
                pullback: bool) -> None:
    """Return each gradient in its argument's dtype: ``casts[i]`` names the dtype of the i-th
    gradient ("float32", "float16"; None: as computed), ``scalars[i]`` whether that argument
    is a NumPy number.  The derivative is computed as the function computes (float64 where
    it converts up or meets float64 values) and rounded once, at the end.  `pullback`: the
    gradients are returned by the nested pullback function."""
    if not any(casts):
        return
    if pullback:
        func = next((s for s in reversed(func.body) if isinstance(s, ast.FunctionDef)), func)
    last = func.body[-1] if func.body else None
    if not isinstance(last, ast.Return) or last.value is None:
        raise AssertionError("a gradient function ends with its return")
    outer = last.value.elts if with_value and not pullback and isinstance(last.value, ast.Tuple) else None
    result = outer[1] if outer is not None else last.value
    if tuple_result and isinstance(result, ast.Tuple):
        result.elts = [g if d is None else _cast(g, d, n) for g, d, n in zip(result.elts, casts, scalars)]
        return
    if tuple_result or casts[0] is None:
        raise AssertionError("one gradient, one cast")
    if outer is not None:
        outer[1] = _cast(result, casts[0], scalars[0])
    else:
        last.value = _cast(result, casts[0], scalars[0])


def _cast(expr: ast.expr, dtype: str, scalar: bool) -> ast.expr:
    kind = ast.Attribute(ast.Name("np", ast.Load()), dtype, ast.Load())
    if scalar:
        return ast.Call(kind, [expr], [])
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [expr],
                    [ast.keyword("dtype", kind)])


def _is_comment(stmt, text: str) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
        and stmt.value.func.id == MARK and stmt.value.args and getattr(stmt.value.args[0], "value", None) == text


def _float32() -> ast.expr:
    return ast.Attribute(ast.Name("np", ast.Load()), "float32", ast.Load())


def _is_np(func) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"


def _is_np_call(node, name: str) -> bool:
    return isinstance(node, ast.Call) and _is_np(node.func) and node.func.attr == name
