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

#: steps linear in their operand `value` (its position), with every other operand row-free:
#: the factor is the same call with the factor in its place (rules/kinks.py)
LINEAR_CALLS = {"tie": 1, "kink": 1, "kink_nan": 1, "tie_nan": 2}
#: ``tie_still_nan(c, persist, d, value)``: 0 where nothing is tied (`c` all False)
UNTIED = {"tie_still_nan": 2}


def fold_scales(func: ast.FunctionDef, rows: frozenset, fresh, same_rows) -> bool:
    """Fold the elementwise chains of `func`'s top-level statements (see the module): `rows`
    names the values with a batch axis, `fresh(name)` gives a new name, ``same_rows(g, like)``
    tells that ``unbroadcast_rows(g, like)`` gives `g` as it is (their shapes are known equal).
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
    facts = (rows, stores, params, defined, same_rows)
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
    rows, stores, params, defined, same_rows = facts
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
    """A name or a number: a factor whose evaluation is only its value."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    return isinstance(e, ast.Name) or isinstance(e, ast.Constant) and type(e.value) in (int, float)


def _zero(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) in (int, float) and e.value == 0


def _np_call(name: str, args: list) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), args, [])


__all__ = ["fold_scales"]
