"""Values the specialisation decides: ``cfg = cfg or {}``, then ``cfg.get("l2", 0.1)``.

A configuration argument that is None (or a bool, a number not differentiated) is a constant
of the variant being lowered (function.py), so ``a or b`` / ``a and b`` whose leading
operands are such constants is decided when the function is lowered, as Python decides it:
the first operand that settles the test is the value.  A dict written with constant keys and
values (the empty dict of a default configuration) is a constant too, `ConstDict`, read with
constant keys (``d.get(k, default)``, ``d[k]``, ``k in d``); a dict argument of numbers is a
parameter tree (frontend/flatten.py), read the same way there.
"""

from __future__ import annotations

import ast
import copy

from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand
from .expressions import ExpressionLowerer
from .facts import ConstDict


def decided_truth(lower: ExpressionLowerer, node: ast.expr):
    """``bool(node)`` if the specialisation decides it (a literal, a name bound to a constant),
    else MISSING.  Lowers nothing."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Name) and isinstance(lower.state.env.get(node.id), Const):
        value = lower.state.env[node.id].value
        if value is None or isinstance(value, (bool, int, float, str, tuple, ConstDict)):
            return bool(value)
    if isinstance(node, ast.Dict) and not node.keys:
        return False
    return MISSING


def simplified(lower: ExpressionLowerer, node: ast.expr) -> ast.expr:
    """`node` with the and/or operands the specialisation decides dropped, as Python would
    evaluate them: ``(use and k) or 0.25`` with ``use`` True is ``k or 0.25``; an operand that
    settles the test is the value (only it runs)."""
    if not isinstance(node, ast.BoolOp):
        return node
    settles = isinstance(node.op, ast.Or)  # `or` stops at a true operand, `and` at a false one
    kept = []
    for value in node.values[:-1]:
        value = simplified(lower, value)
        truth = decided_truth(lower, value)
        if truth is MISSING:
            kept.append(value)
        elif truth is settles and not kept:
            return value
        elif truth is settles:
            kept.append(value)  # decides the test, after operands that are not decided
            break
    else:
        kept.append(simplified(lower, node.values[-1]))
    return kept[0] if len(kept) == 1 else ast.copy_location(ast.BoolOp(node.op, kept), node)


def as_conditional(node: ast.BoolOp) -> ast.expr | None:
    """``a or b`` as ``a if a else b`` and ``a and b`` as ``b if a else a`` (what Python does:
    the test of an array raises as it does in Python), when the operands tested are names
    (evaluating them twice changes nothing); None otherwise."""
    if not all(isinstance(v, (ast.Name, ast.Constant)) for v in node.values[:-1]):
        return None
    found = node.values[-1]
    for value in reversed(node.values[:-1]):
        # bool(a), as Python tests it: a node of this line (an array's ambiguous truth is reported here)
        test = ast.copy_location(ast.Call(ast.Name("bool", ast.Load()), [copy.deepcopy(value)], []), value)
        taken, other = (copy.deepcopy(value), found) if isinstance(node.op, ast.Or) else (found, copy.deepcopy(value))
        found = ast.copy_location(ast.IfExp(test, taken, other), node)
    return found


def lower_dict(lower: ExpressionLowerer, node: ast.Dict, target) -> Operand:
    """A dict of constants (``{}``, ``{"l2": 0.1}``): a constant of the function."""
    if any(k is None for k in node.keys):
        raise lower.state.error(node, "`**` in a dict literal is not supported", "list the keys one by one")
    try:
        items = [(ast.literal_eval(k), ast.literal_eval(v)) for k, v in zip(node.keys, node.values)]
    except ValueError:
        if _returned(lower.state.parsed.tree, node):  # (vmap(f) of ``return loss, {"z": z}``, the aux of has_aux)
            raise lower.state.error(node, "this dict holding values computed in the function is returned: "
                                    "the code srcdiff writes (vmap's batched code too) returns arrays, numbers "
                                    "and tuples of them", "return its values as a tuple (``return loss, "
                                    "(z, r)``) and build the dict from them after the call") from None
        raise lower.state.error(node, "a dict holding values computed in the function is supported only "
                                "as a local tree assigned to a name, or made in a loop or comprehension over "
                                "items known when the gradient is built (range of a constant, a module tuple, "
                                "range(n) of an int argument n)",
                                "assign it first: d = {'W': W, 'b': b}, then read d['W']; over range(n) of a "
                                "number n computed when the function runs (len(x) // 2), pass n as an int argument "
                                "(each n its own gradient), or keep one list per key (Ws = [... for s in range(n)])"
                                ) from None
    if not all(isinstance(k, (str, int)) and _simple(v) for k, v in items):
        raise lower.state.error(node, "a dict of constants holds strings or numbers as keys, and None, "
                                "numbers, strings or tuples of them as values", "read the values one by one")
    return Const(ConstDict(items))


def _returned(tree: ast.FunctionDef, node: ast.Dict) -> bool:
    """Whether the dict display `node` is returned by `tree`: in a `return`'s value, or bound to a name one reads."""
    at = (node.lineno, node.col_offset)
    names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
             and (n.value.lineno, n.value.col_offset) == at for t in n.targets if isinstance(t, ast.Name)}
    for ret in (n for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None):
        if any(isinstance(n, ast.Dict) and (n.lineno, n.col_offset) == at
               or isinstance(n, ast.Name) and n.id in names for n in ast.walk(ret.value)):
            return True
    return False


def _simple(value) -> bool:
    if isinstance(value, tuple):
        return all(_simple(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def const_dict(lower: ExpressionLowerer, node: ast.expr) -> ConstDict | None:
    """The `ConstDict` a name holds or a dict literal or ``(opts or {})`` is, or None."""
    node = simplified(lower, node)
    if isinstance(node, ast.Dict):
        return lower_dict(lower, node, None).value
    if isinstance(node, ast.Name) and isinstance(lower.state.env.get(node.id), Const) \
            and isinstance(lower.state.env[node.id].value, ConstDict):
        return lower.state.env[node.id].value
    if isinstance(node, ast.Subscript):  # cfg["act"] of a nested dict of constants (a helper's default)
        outer = const_dict(lower, node.value)
        inner = None if outer is None else outer.get(_key(lower, node.slice, node))
        return inner if isinstance(inner, ConstDict) else None
    return None


def dict_fact(lower: ExpressionLowerer, node: ast.expr):
    """``"k" in d`` / ``"k" not in d`` / ``len(d)`` of a `ConstDict`, decided now; else MISSING."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        found = const_dict(lower, node.comparators[0]) if isinstance(node.comparators[0], ast.Name) else None
        if found is not None:
            return (_key(lower, node.left, node) in found) == isinstance(node.ops[0], ast.In)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords and lower.state.parsed.resolve("len") is len:
        found = const_dict(lower, node.args[0]) if isinstance(node.args[0], ast.Name) else None
        if found is not None:
            return len(found)
    return MISSING


def lower_dict_get(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``d.get(key[, default])`` of a `ConstDict` with a constant key: the value or the
    default (lowered as written: it may be a differentiated value); ``len(d)``; None for
    other calls."""
    size = dict_fact(lower, node)
    if size is not MISSING:
        return Const(size)
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "get"):
        return None
    found = const_dict(lower, func.value)
    if found is None:
        return None
    if node.keywords or not 1 <= len(node.args) <= 2:
        raise lower.state.error(node, f"{ast.unparse(node)}: dict.get takes a key and an optional default")
    key = _key(lower, node.args[0], node)
    if key in found:
        return Const(found[key])
    return lower.expr(node.args[1], target) if len(node.args) == 2 else Const(None)


def lower_dict_subscript(lower: ExpressionLowerer, node: ast.Subscript, target) -> Operand | None:
    """``d[key]`` of a `ConstDict`; None for other subscripts."""
    found = const_dict(lower, node.value)
    if found is None:
        return None
    key = _key(lower, node.slice, node)
    if key not in found:
        raise lower.state.error(node, f"{ast.unparse(node.value)} has no key {key!r} here (it holds "
                                f"{list(found)}): Python would raise KeyError", "use .get(key, default)")
    return Const(found[key])


def _key(lower: ExpressionLowerer, node: ast.expr, where: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.Name) and isinstance(lower.state.env.get(node.id), Const):
        return lower.state.env[node.id].value
    raise lower.state.error(where, f"{ast.unparse(where)} reads a dict of constants with a key srcdiff "
                            "cannot tell when it builds the gradient", "use a constant key")


__all__ = ["ConstDict", "const_dict", "decided_truth", "lower_dict", "lower_dict_get", "lower_dict_subscript",
           "as_conditional", "dict_fact", "simplified"]
