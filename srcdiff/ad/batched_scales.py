"""Batched rows that are one batched value scaled elementwise: each chain computed on a row, once.

A Hessian's rows (api/batched_rows.py) run the derivative of a gradient over a batch of seeds.
Past the products by the seeds (``t16_bar = cotangent @ X.T``), a data-fitting loss's code is a
chain of elementwise steps whose other operands have no batch axis: ``t15 = kink(t8, t16_bar,
...)``, ``t13 = t15 * t14``, ``t11 = np.where(t9, t13, 0.0)``, ``t19 = tie(t10, t11, a, d)``, ...
Each step is a pass over n rows of the data (a Huber loss's 20 x 10,000 values), and these
steps are linear in the batched value: every value of such a chain is its first batched value
`B` times a factor without a batch axis.  So the factors are computed on one row
(``t15_scale = kink(t8, 1.0, ...)``, ``t13_scale = t15_scale * t14``, ...) and each value the
rest of the code reads is one product ``t13 = t16_bar * t13_scale``; the steps nothing reads any
more go (driver/batched.py).  Sums of two values of one chain add their factors.

Exact: a step ``s(B)`` is ``B * s(1)`` wherever `B` is finite (an inf or NaN in `B` would
make ``0 * inf`` where a mask gave 0), including the NaN a kink's or a tie's second
derivative puts where it is undefined (``kink_nan``, ``tie_nan``: NaN times B is NaN).  The
share of a tie whose value is 0 (``tie_still_nan``) reads where its direction is 0, which a
factor does not say: folded only where no element is tied.  So the folded statements run under
``if scales_hold(bases, ties):``, and the statements as they were in its ``else`` (rounding
may differ in the last bit: the products are taken in another order).
"""

from __future__ import annotations

import ast
import copy
from collections import Counter

from ..ir.shapes import MANY, ONE, UNKNOWN_DIM

#: steps linear in their operand `value` (its position), with every other operand row-free:
#: the factor is the same call with the factor in its place (rules/kinks.py)
LINEAR_CALLS = {"tie": 1, "kink": 1, "kink_nan": 1, "tie_nan": 2}
#: ``tie_still_nan(c, persist, d, value)``: 0 where nothing is tied (`c` all False)
UNTIED = {"tie_still_nan": 2}


def fold_scales(func: ast.FunctionDef, rows: frozenset, fresh, known) -> bool:
    """Fold the elementwise chains of `func`'s top-level statements (see the module): `rows`
    names the values with a batch axis, `fresh(name)` gives a new name, `known(name)` the dims
    of a row of the value `name` (`Shape.dims`; None where not known), by which
    ``unbroadcast_rows(g, like)`` is found to give `g` as it is (g's row shaped like `like`).
    The guard stands where the most steps fold: after the chains' bases are made (a Hessian's
    products by the seeds), not before the first small chain (the seeds times a gradient).
    Returns whether anything was folded."""
    body = func.body
    stores = Counter(n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in func.args.args}
    defined: dict[str, int] = {p: -1 for p in params}
    for i, stmt in enumerate(body):
        if _target(stmt) is not None:
            defined.setdefault(_target(stmt), i)
    facts = (rows, stores, params, defined, known)
    candidates = [0] + [i + 1 for i, stmt in enumerate(body) if _target(stmt) in rows]
    best, at = 0, None
    for guard in candidates:  # (a dry run each: names are made for the one kept)
        count = len(_scan(body, guard, facts, lambda name: name)[2])
        if count > best:
            best, at = count, guard
    if at is None:
        return False
    folded, bases, steps, ties = _scan(body, at, facts, fresh)
    first = steps[0]
    rest = folded[next(k for k, s in enumerate(folded) if getattr(s, "_scale_first", False)):]
    test = ast.Call(ast.Name("scales_hold", ast.Load()),
                    [ast.Tuple([ast.Name(b, ast.Load()) for b in bases], ast.Load()),
                     ast.Tuple([copy.deepcopy(c) for c in ties], ast.Load())], [])
    tail = [s for s in body[first:] if not isinstance(s, ast.Return)]
    returns = [s for s in body[first:] if isinstance(s, ast.Return)]
    branch = ast.If(test, [s for s in rest if not isinstance(s, ast.Return)], copy.deepcopy(tail))
    body[first:] = [ast.copy_location(branch, body[first])] + returns
    ast.fix_missing_locations(func)
    return True


def _scan(body: list, guard: int, facts, fresh):
    """(the statements with every step at or after `guard` folded, the bases, the steps'
    positions, the tie conditions the guard reads)."""
    rows, stores, params, defined, known = facts
    dims: dict[str, tuple | None] = {}  # a row's dims of each value assigned so far

    def look(name: str):
        found = known(name)
        return found if found is not None else dims.get(name)

    def same_rows(g: str, like: str) -> bool:
        a, b = look(g), look(like)
        return a is not None and a == b and UNKNOWN_DIM not in a and (not a or a[0] != "shape")
    scale: dict[str, tuple[str, ast.expr]] = {}  # batched name -> (its base, its factor's name)
    bases: list[str] = []
    ties: list[ast.expr] = []
    steps: list[int] = []
    folded: list = []

    def operand(e: ast.expr):
        """(base, factor) of a batched operand, None where it cannot be one."""
        if not isinstance(e, ast.Name) or e.id not in rows:
            return None
        if e.id in scale:
            return scale[e.id]
        settled = e.id in params and stores[e.id] == 0 or stores[e.id] == 1 and defined.get(e.id, guard) < guard
        return (e.id, ast.Constant(1.0)) if settled else None  # (a base is made before the guard, which reads it)

    def early(c: ast.expr) -> bool:  # (the guard reads it)
        return all(_early(n, defined, guard, stores, params) for n in _names(c))

    for i, stmt in enumerate(body):
        target = _target(stmt)
        if target is not None:
            dims[target] = _result_dims(stmt.value, look)
        found = None
        if i >= guard and target in rows and stores[target] == 1:
            found = _step(stmt.value, operand, rows, same_rows, early)
        if found is None:
            folded.append(stmt)
            continue
        base, factor, untied = found
        if base not in bases:
            bases.append(base)
        ties += untied
        name = fresh(f"{target}_scale")
        scale[target] = (base, ast.Name(name, ast.Load()))
        assign = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], factor), stmt)
        if not steps:
            assign._scale_first = True  # (where the folded branch starts)
        steps.append(i)
        folded.append(assign)
        product = ast.BinOp(ast.Name(base, ast.Load()), ast.Mult(), ast.Name(name, ast.Load()))
        folded.append(ast.copy_location(ast.Assign([ast.Name(target, ast.Store())], product), stmt))
    return folded, bases, steps, ties


def _target(stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _names(e: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]


def _early(name: str, defined: dict, guard: int, stores: Counter, params: set) -> bool:
    """Whether row-free `name` is one value, made before the guard."""
    if name in ("np", "math"):
        return True
    if name in params:
        return stores[name] == 0
    if stores[name] != 1 or name not in defined:
        return False
    return defined[name] < guard


def _broadcast(*parts):
    """The dims of operands broadcast together (None where one is not known)."""
    if any(p is None or p and p[0] == "shape" for p in parts):
        return None
    out = []
    for k in range(1, max((len(p) for p in parts), default=0) + 1):
        axis = {p[-k] for p in parts if len(p) >= k}
        out.append(UNKNOWN_DIM if UNKNOWN_DIM in axis else MANY if MANY in axis else ONE)
    return tuple(reversed(out))


#: NumPy's functions of one array whose value has its operand's shape
UNARY = frozenset({"abs", "sign", "exp", "log", "tanh", "cosh", "sinh", "sqrt", "negative", "logical_not", "square",
                   "sin", "cos", "log1p", "expm1", "isfinite", "isnan"})
#: NumPy's functions of several arrays broadcast together
BROADCAST = frozenset({"maximum", "minimum", "clip", "logical_and", "logical_or", "equal", "not_equal", "add",
                       "multiply", "subtract"})


def _result_dims(value: ast.expr, look):
    """The dims of a row of `value` (`Shape.dims`) where the statements say them; None
    elsewhere.  ``x.shape`` is ``("shape", dims)``, so that ``np.full(t6, v)`` reads x's."""
    if isinstance(value, ast.Name):
        return look(value.id)
    if isinstance(value, ast.Constant):
        return () if type(value.value) in (int, float, bool) else None
    if isinstance(value, ast.UnaryOp):
        return () if isinstance(value.op, ast.Not) else _result_dims(value.operand, look)
    if isinstance(value, ast.Compare) and len(value.comparators) == 1:
        return _broadcast(_result_dims(value.left, look), _result_dims(value.comparators[0], look))
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.MatMult):
        return _matmul(_result_dims(value.left, look), _result_dims(value.right, look))
    if isinstance(value, ast.BinOp) and not isinstance(value.op, (ast.Pow, ast.Mod, ast.FloorDiv, ast.LShift,
                                                                    ast.RShift)):
        return _broadcast(_result_dims(value.left, look), _result_dims(value.right, look))
    if isinstance(value, ast.Attribute) and value.attr in ("size", "ndim"):
        return ()
    if isinstance(value, ast.Attribute) and value.attr in ("shape", "T"):
        inner = _result_dims(value.value, look)
        if inner is None or inner and inner[0] == "shape":
            return None
        return ("shape", inner) if value.attr == "shape" else tuple(reversed(inner))
    if not isinstance(value, ast.Call) or value.keywords and not _is_select(value):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) and getattr(func.value, "id", None) == "np" \
        else func.id if isinstance(func, ast.Name) else None
    args = value.args
    parts = [_result_dims(a, look) for a in args]
    if any(p is not None and p and p[0] == "shape" for p in parts) and name != "full":
        return None
    if name in UNARY and len(args) == 1 and isinstance(func, ast.Attribute):
        return parts[0]
    if name in BROADCAST and isinstance(func, ast.Attribute) or name == "where" and len(args) == 3:
        return _broadcast(*parts)
    if name == "full" and len(args) == 2 and parts[0] is not None and parts[0] and parts[0][0] == "shape" \
            and parts[1] == ():
        return parts[0][1]
    if name == "len" and len(args) == 1:
        return ()
    if name in ("tie", "kink") and len(args) >= 2 and (len(args) < 5 or name == "tie" or _no_axis(args[4])):
        return _broadcast(*parts[:2])
    if name == "kink_nan" and len(args) >= 2 and (len(args) < 3 or _no_axis(args[2])):
        return _broadcast(*parts[:2])
    if name in ("tie_nan", "tie_still_nan") and len(args) == 4:
        return _broadcast(*parts)
    if name == "select_rows" and len(args) == 5:
        return parts[1]
    if name == "unbroadcast_rows" and len(args) == 2:
        return parts[1]
    return None


def _matmul(a, b):
    """The dims of ``a @ b`` of vectors and matrices."""
    if a is None or b is None or not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
        return None
    return a[:-1] + b[1:] if len(b) == 2 else a[:-1]


def _no_axis(e: ast.expr) -> bool:
    """``()``: a kink of each element alone."""
    return isinstance(e, ast.Tuple) and not e.elts or isinstance(e, ast.Constant) and e.value == ()


def _row_free(e: ast.expr, rows: frozenset) -> bool:
    return not any(isinstance(n, ast.Name) and n.id in rows for n in ast.walk(e))


def _step(value: ast.expr, operand, rows: frozenset, same_rows, early):
    """(base, the factor's expression, conditions that must not hold) of a linear step
    `value`, None where it is not one."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        a = operand(value.operand)
        return a and (a[0], ast.UnaryOp(ast.USub(), a[1]), [])
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Div)):
        a = operand(value.left)
        if a is not None and _row_free(value.right, rows) and _simple(value.right):
            return a[0], ast.BinOp(a[1], value.op, value.right), []
        b = operand(value.right)
        if b is not None and isinstance(value.op, ast.Mult) and _row_free(value.left, rows) and _simple(value.left):
            return b[0], ast.BinOp(value.left, ast.Mult(), b[1]), []
        return None
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
        a, b = operand(value.left), operand(value.right)
        if a is None or b is None or a[0] != b[0]:
            return None
        return a[0], ast.BinOp(a[1], value.op, b[1]), []
    if not isinstance(value, ast.Call) or value.keywords and not _is_select(value):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np" \
            and func.attr == "where" and len(value.args) == 3 and not value.keywords:
        c, x, y = value.args
        if not _row_free(c, rows):
            return None
        picked = [operand(x) if not _zero(x) else "zero", operand(y) if not _zero(y) else "zero"]
        if None in picked or picked == ["zero", "zero"]:
            return None
        base = next(p[0] for p in picked if p != "zero")
        if any(p != "zero" and p[0] != base for p in picked):
            return None
        parts = [ast.Constant(0.0) if p == "zero" else p[1] for p in picked]
        return base, _np_call("where", [c, *parts]), []
    if not isinstance(func, ast.Name):
        return None
    if func.id == "unbroadcast_rows" and len(value.args) == 2:
        g, like = value.args
        a = operand(g)
        if a is None or not isinstance(like, ast.Name) or like.id in rows or not same_rows(g.id, like.id):
            return None
        return a[0], a[1], []
    if func.id == "select_rows" and _is_select(value):
        c, v, c_rows, v_rows = value.args[:4]
        a = operand(v)
        if a is None or not (isinstance(c_rows, ast.Constant) and c_rows.value is False) \
                or not (isinstance(v_rows, ast.Constant) and v_rows.value is True) \
                or not _row_free(c, rows):
            return None
        whole = value.keywords[0].value if value.keywords else ast.Constant(False)
        return a[0], ast.Call(ast.Name("select_scale", ast.Load()), [c, a[1], ast.Name(a[0], ast.Load()), whole],
                              []), []
    at = LINEAR_CALLS.get(func.id, UNTIED.get(func.id))
    if at is None or len(value.args) <= at:
        return None
    a = operand(value.args[at])
    others = [e for k, e in enumerate(value.args) if k != at]
    if a is None or not all(_row_free(e, rows) for e in others):
        return None
    if func.id in UNTIED and not early(value.args[0]):  # (the guard reads it)
        return None
    args = list(value.args)
    args[at] = a[1]
    untied = [value.args[0]] if func.id in UNTIED else []
    return a[0], ast.Call(ast.Name(func.id, ast.Load()), args, []), untied


def _is_select(call: ast.Call) -> bool:
    """``select_rows(c, v, c_rows, v_rows, size[, whole=...])``: its only keyword is `whole`."""
    return isinstance(call.func, ast.Name) and call.func.id == "select_rows" and len(call.args) == 5 \
        and all(k.arg == "whole" for k in call.keywords) and len(call.keywords) <= 1


def _simple(e: ast.expr) -> bool:
    """Names and numbers in arithmetic: a factor whose evaluation is only its value (the
    products of row-free factors ad/batched_products.py joins, ``t6_bar * (t5 * t3_bar)``)."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _simple(e.operand)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Add, ast.Sub, ast.Div)):
        return _simple(e.left) and _simple(e.right)
    return isinstance(e, ast.Name) or isinstance(e, ast.Constant) and type(e.value) in (int, float)


def _zero(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) in (int, float) and e.value == 0


def _np_call(name: str, args: list) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), args, [])


__all__ = ["fold_scales"]
