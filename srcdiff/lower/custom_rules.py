"""The rules of custom_vjp / custom_jvp functions, read from the source of ``fwd``/``bwd``/``jvp``.

`rule_parts` splits a rule function into what lowering writes into the caller (statements,
the value, the residuals); `vjp_rule` turns ``bwd``'s returned cotangents into adjoint
templates over ``g`` and the residuals (its local assignments substituted, shared again by
the reverse pass where they repeat); `jvp_rule` turns the returned tangent into one tangent
template per argument (the terms of its tangent: linear_split.py) and, where each is
elementwise, into adjoint templates (its transpose: the tangent with ``g`` in its place).

Everything that cannot be read this way is refused at the rule's own line.
"""

from __future__ import annotations

import ast
import copy
import math
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np

from ..errors import SrcDiffError
from ..frontend.parse import ParsedFunction, parse_function
from ..ir import memo, shapes
from ..rules.runtime import HELPERS
from ..rules.table import Rule, tangent_name
from .linear_split import NotLinear, is_elementwise, only

_HINT = "write the rule as assignments to names and one final `return`"


@dataclass
class Parts:
    """A rule function (``fwd`` or ``jvp``) split for lowering in the caller."""

    kind: str  # "vjp" or "jvp"
    owner: str  # the decorated function's name, for messages
    statements: list  # lowered in place
    returned: list  # vjp: [value, *residuals]; jvp: [value]
    params: tuple = ()  # fwd's parameters
    primals: tuple = ()  # jvp: the names the primals are unpacked into
    tangent_names: tuple = ()  # jvp: the names the tangents are unpacked into
    residual_tuple: bool = True  # vjp: fwd returns its residuals as a tuple literal
    tangent: ast.expr | None = None  # jvp: the tangent, its tangent-dependent locals substituted
    residual_names: tuple = ()  # jvp: the primal names the tangent reads
    parsed: ParsedFunction | None = field(default=None, repr=False)


def _body(parsed: ParsedFunction, role: str) -> tuple[list, ast.Return]:
    tree = parsed.tree
    a = tree.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise parsed.error(tree, f"{role} {tree.name} must take plain positional parameters without defaults")
    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        raise parsed.error(tree, f"{role} {tree.name} must end with `return`", _HINT)
    for stmt in body[:-1]:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
        if not isinstance(stmt, ast.Assign) or not all(isinstance(n, ast.Name) for n in names):
            raise parsed.error(stmt, f"{role} {tree.name}: srcdiff copies a custom rule into the generated "
                               "code, and reads straight-line code only", _HINT)
        for n in ast.walk(stmt):
            if isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Return, ast.Yield, ast.ListComp,
                              ast.GeneratorExp, ast.DictComp, ast.SetComp)):
                raise parsed.error(n, f"{role} {tree.name}: {type(n).__name__} is not supported in a custom rule",
                                   _HINT)
    return body[:-1], body[-1]


def _pair(parsed: ParsedFunction, ret: ast.Return, role: str, what: str) -> tuple[ast.expr, ast.expr]:
    value = ret.value
    if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
        raise parsed.error(ret, f"{role} {parsed.tree.name} must return a pair {what}",
                           f"write `return {what.strip('()')}`")
    return value.elts[0], value.elts[1]


def rule_parts(parsed: ParsedFunction, obj, count: int) -> Parts:
    """Split ``fwd`` (custom_vjp) or the jvp rule (custom_jvp) of `obj`, whose original
    function takes `count` parameters."""
    owner = obj.fun.__qualname__
    if obj.kind == "vjp":
        statements, ret = _body(parsed, "fwd")
        params = tuple(a.arg for a in parsed.tree.args.args)
        if len(params) != count:
            raise parsed.error(parsed.tree, f"fwd {parsed.tree.name} takes {len(params)} parameters, and "
                               f"{owner} takes {count}", f"give fwd the parameters of {owner}")
        value, residuals = _pair(parsed, ret, "fwd", "(value, residuals)")
        packed = isinstance(residuals, ast.Tuple)
        return Parts("vjp", owner, statements, [value, *(residuals.elts if packed else [residuals])],
                     params=params, residual_tuple=packed, parsed=parsed)
    statements, ret = _body(parsed, "the jvp rule")
    args = [a.arg for a in parsed.tree.args.args]
    if len(args) != 2:
        raise parsed.error(parsed.tree, f"the jvp rule {parsed.tree.name} takes (primals, tangents)")
    primals, tangents, rest = _unpacked(parsed, statements, args)
    if len(primals) != count or len(tangents) != count:
        raise parsed.error(parsed.tree, f"the jvp rule {parsed.tree.name} unpacks {len(primals)} primals "
                           f"and {len(tangents)} tangents, and {owner} takes {count} parameters",
                           "unpack them all: x, y = primals; x_dot, y_dot = tangents")
    value, tangent = _pair(parsed, ret, "the jvp rule", "(value, tangent)")
    primal_statements, tangent = _split_tangent(parsed, rest, tangents, tangent)
    if set(_reads(value)) & set(tangents):
        raise parsed.error(ret, f"the jvp rule {parsed.tree.name}: its value reads a tangent",
                           "compute the value from the primals only")
    residuals = tuple(dict.fromkeys(n for n in _reads(tangent) if n not in tangents and _is_local(n, parsed, rest,
                                                                                                   primals)))
    return Parts("jvp", owner, primal_statements, [value], primals=tuple(primals), tangent_names=tuple(tangents),
                 tangent=tangent, residual_names=residuals, parsed=parsed)


def _is_local(name: str, parsed: ParsedFunction, statements: list, primals) -> bool:
    return name in primals or any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                                  for s in statements for n in ast.walk(s))


def _reads(tree: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _unpacked(parsed: ParsedFunction, statements: list, args: list[str]):
    """``x, y = primals`` and ``x_dot, y_dot = tangents`` (or ``x = primals[0]``): the names,
    and the other statements."""
    found = {args[0]: {}, args[1]: {}}
    rest = []
    for stmt in statements:
        value, target = stmt.value, stmt.targets[0]
        if len(stmt.targets) == 1 and isinstance(value, ast.Name) and value.id in found \
                and isinstance(target, ast.Tuple):
            found[value.id].update({i: n.id for i, n in enumerate(target.elts)})
        elif len(stmt.targets) == 1 and isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id in found and isinstance(value.slice, ast.Constant) \
                and isinstance(target, ast.Name):
            found[value.value.id][value.slice.value] = target.id
        else:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and n.id in found:
                    raise parsed.error(n, f"the jvp rule {parsed.tree.name} reads {n.id} other than by "
                                       "unpacking it", f"unpack it first: x, y = {n.id}")
            rest.append(stmt)
    names = []
    for arg in args:
        by_index = found[arg]
        if sorted(by_index) != list(range(len(by_index))):
            raise parsed.error(parsed.tree, f"the jvp rule {parsed.tree.name} does not unpack every item of {arg}",
                               f"unpack them all: x, y = {arg}")
        names.append([by_index[i] for i in range(len(by_index))])
    counts: dict[str, int] = {}
    for stmt in rest:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                counts[n.id] = counts.get(n.id, 0) + 1
                if counts[n.id] > 1 or n.id in names[0] + names[1]:
                    raise parsed.error(stmt, f"the jvp rule {parsed.tree.name} assigns {n.id} twice",
                                       "give each value its own name")
    return names[0], names[1], rest


def _split_tangent(parsed: ParsedFunction, statements: list, tangents: list[str], tangent: ast.expr):
    """The statements that compute primal values, and the tangent with every
    tangent-dependent local substituted."""
    dependent: dict[str, ast.expr] = {}
    primal = []
    for stmt in statements:
        reads = set(_reads(stmt.value))
        if reads & (set(tangents) | set(dependent)):
            target = stmt.targets[0]
            if len(stmt.targets) != 1 or not isinstance(target, ast.Name):
                raise parsed.error(stmt, f"the jvp rule {parsed.tree.name}: assign a tangent to one name",
                                   "write t = ..., not a, b = ...")
            dependent[target.id] = _substitute(stmt.value, dependent)
        else:
            primal.append(stmt)
    return primal, _substitute(tangent, dependent)


def _substitute(expr: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    class Sub(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name):
            return copy.deepcopy(values[n.id]) if n.id in values and isinstance(n.ctx, ast.Load) else n
    return Sub().visit(copy.deepcopy(expr))


def _globals_to_template(parsed: ParsedFunction, expr: ast.expr, names: dict[str, str], role: str) -> ast.expr:
    """`expr` with its names renamed by `names`; a free name must be NumPy, math or a number."""
    class Rename(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name):
            if n.id in names:
                return ast.copy_location(ast.Name(names[n.id], ast.Load()), n)
            value = parsed.resolve(n.id)
            if value is np:
                return ast.copy_location(ast.Name("np", ast.Load()), n)
            if value is math:
                return ast.copy_location(ast.Name("math", ast.Load()), n)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return ast.copy_location(ast.Constant(value), n)
            if n.id in HELPERS and value is HELPERS[n.id]:
                return n
            raise parsed.error(n, f"{role} {parsed.tree.name} reads {n.id}, which srcdiff cannot write into "
                               "the generated gradient: a custom rule's derivative may use its residuals, "
                               "numpy, math and numbers", f"compute {n.id} in the forward rule and pass it as "
                               "a residual")
    return Rename().visit(copy.deepcopy(expr))


def _unique(base: str, taken: set[str]) -> str:
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}{i}"
    taken.add(name)
    return name


def _names(obj, count: int, residuals: int) -> tuple[list[str], str, list[str]]:
    """The rule's parameter names: the function's own arguments, its value, the residuals."""
    taken = {"g", "ans", *HELPERS, "np", "math"}
    args = [_unique(p, taken) for p in list(obj.__signature__.parameters)[:count]]
    return args, _unique("value", taken), [_unique(f"res{j}", taken) for j in range(residuals)]


_RULES: weakref.WeakKeyDictionary = memo.table(weak=True)  # custom function -> {key: Rule}


def _cached(obj, key, make) -> Rule:
    found = _RULES.setdefault(obj, {})
    if key not in found:
        found[key] = make()
    return found[key]


def vjp_rule(obj, count: int, residuals: int, packed: bool = True) -> Rule:
    """The rule of a custom_vjp call with `count` arguments and `residuals` residuals."""
    return _cached(obj, ("vjp", obj.bwd, count, residuals, packed), lambda: _make_vjp(obj, count, residuals, packed))


def _make_vjp(obj, count: int, residuals: int, packed: bool) -> Rule:
    parsed = parse_function(obj.bwd)
    statements, ret = _body(parsed, "bwd")
    args = [a.arg for a in parsed.tree.args.args]
    if len(args) != 2:
        raise parsed.error(parsed.tree, f"bwd {parsed.tree.name} takes (residuals, g)")
    res_name, g_name = args
    params, value, res = _names(obj, count, residuals)
    names = {g_name: "g"}
    if not packed:
        names[res_name] = res[0]
    locals_: dict[str, ast.expr] = {}
    for stmt in statements:
        target, expr = stmt.targets[0], stmt.value
        if packed and isinstance(expr, ast.Name) and expr.id == res_name and isinstance(target, ast.Tuple):
            if len(target.elts) != residuals:
                raise parsed.error(stmt, f"bwd {parsed.tree.name} unpacks {len(target.elts)} residuals; fwd "
                                   f"returns {residuals}", "unpack what fwd returns")
            names.update({n.id: r for n, r in zip(target.elts, res)})
            continue
        if packed and isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) \
                and expr.value.id == res_name and isinstance(expr.slice, ast.Constant) \
                and isinstance(target, ast.Name) and isinstance(expr.slice.value, int) \
                and 0 <= expr.slice.value < residuals:
            names[target.id] = res[expr.slice.value]
            continue
        _no_bare(parsed, stmt, res_name, packed)
        if len(stmt.targets) != 1 or not isinstance(target, ast.Name):
            raise parsed.error(stmt, f"bwd {parsed.tree.name}: assign each value to one name", _HINT)
        locals_[target.id] = _substitute(expr, locals_)
        names.pop(target.id, None)
    _no_bare(parsed, ret, res_name, packed)
    returned = ret.value
    cotangents = returned.elts if isinstance(returned, ast.Tuple) else None
    if cotangents is None or len(cotangents) != count:
        got = f"{len(cotangents)} cotangents" if cotangents is not None else "one value, not a tuple"
        raise parsed.error(ret, f"bwd {parsed.tree.name} returns {got}; {obj.fun.__qualname__} takes {count} "
                           "arguments", f"return a tuple with one cotangent per argument (None for one without): "
                           f"return ({', '.join(params)}{',' if count == 1 else ''})")
    texts, where = {}, {}
    for param, expr in zip(params, cotangents):
        if isinstance(expr, ast.Constant) and expr.value is None:
            continue
        template = _globals_to_template(parsed, _substitute(expr, locals_), names, "bwd")
        texts[param] = ast.unparse(template)
        where[param] = expr
    checker = _ShapeCheck(parsed, obj, params, value, where)

    def templates(static, operand_shapes):
        checker.check(texts, operand_shapes)
        return texts

    def no_tangent(static, operand_shapes):
        raise SrcDiffError(f"{obj.fun.__qualname__} has a custom_vjp rule, which forward mode (jvp) cannot use",
                           hint="give it a custom_jvp rule instead (JAX refuses jvp of a custom_vjp function too), "
                           "or use reverse mode (srcdiff.grad, srcdiff.vjp)")
    return Rule(obj, f"{obj.fun.__qualname__} (custom_vjp)", (value, *params, *res), templates,
                shape=lambda static, v, *rest: v, shape_only=(value, *res), tangents=no_tangent)


def _no_bare(parsed: ParsedFunction, stmt, res_name: str, packed: bool) -> None:
    if not packed:
        return
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and n.id == res_name:
            raise parsed.error(n, f"bwd {parsed.tree.name} reads its residuals {res_name} other than by unpacking",
                               f"unpack them first: a, b = {res_name}")


class _ShapeCheck:
    """Each cotangent `bwd` returns must be shaped like its argument: checked, where the
    shapes are known, by running the templates on small arrays of those shapes."""

    def __init__(self, parsed, obj, params, value, where):
        self.parsed, self.obj, self.params, self.value, self.where = parsed, obj, params, value, where
        self.done: set = set()

    def check(self, texts: dict, operand_shapes: dict) -> None:
        key = tuple(sorted((p, s) for p, s in operand_shapes.items()))
        if key in self.done or not texts:
            return
        self.done.add(key)
        dummies = {}
        rng = np.random.default_rng(0)
        for p, s in operand_shapes.items():
            if not s.known or shapes.UNKNOWN_DIM in s.dims:
                return  # not decided by the signature: nothing to compare
            dummies[p] = 0.3 + 0.4 * rng.random() if s.scalar else 0.3 + 0.4 * rng.random(
                tuple(1 if d == shapes.ONE else 3 for d in s.dims))
        scope = {"np": np, "math": math, **HELPERS, **dummies, "g": dummies[self.value]}
        for param, text in texts.items():
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    got = eval(compile(text, "<custom rule>", "eval"), scope)  # noqa: S307  the user's rule
            except Exception:  # noqa: BLE001  a rule that needs real values: its shape is not checked here
                continue
            if np.shape(got) != np.shape(dummies[param]):
                name, want = self.parsed.tree.name, np.ndim(dummies[param])
                if np.ndim(got) != want:
                    message = (f"bwd {name} returns a cotangent of {_spelled(np.ndim(got))} for {param}, "
                               f"which is {_spelled(want)}")
                else:
                    message = f"bwd {name} returns a cotangent for {param} whose shape is not {param}'s"
                raise self.parsed.error(self.where[param], message, f"return the cotangent shaped like {param} "
                                        "(sum it over the axes its value was broadcast along)")


def _spelled(ndim: int) -> str:
    return "a scalar" if ndim == 0 else f"{ndim} dimension(s)"


def jvp_rule(obj, parts: Parts, count: int, residual_names: list[str]) -> Rule:
    """The rule of a custom_jvp call (tangents per argument; adjoints where elementwise)."""
    return _cached(obj, ("jvp", obj.jvp, count, tuple(residual_names)), lambda: _make_jvp(obj, parts, count))


def _make_jvp(obj, parts: Parts, count: int) -> Rule:
    parsed = parts.parsed
    params, value, res = _names(obj, count, len(parts.residual_names))
    names = {t: tangent_name(p) for t, p in zip(parts.tangent_names, params)}
    names.update(zip(parts.residual_names, res))
    tangent = _globals_to_template(parsed, parts.tangent, names, "the jvp rule")
    tangents, adjoints, refused = {}, {}, {}
    where = next((n for n in ast.walk(parsed.tree) if isinstance(n, ast.Return)), parsed.tree)
    for param in params:
        dot = tangent_name(param)
        try:
            term = only(tangent, dot, set(names.values()) - set(res))
        except NotLinear as exc:
            raise parsed.error(exc.node if hasattr(exc.node, "lineno") else where,
                               f"the jvp rule {parsed.tree.name}: its tangent is not linear in the tangents "
                               f"({exc.reason})", "a tangent is linear in the tangents: sums of products "
                               "of primal values with one tangent") from None
        if term is None:
            continue
        tangents[param] = ast.unparse(term)
        reason = is_elementwise(term, dot)
        if reason is None:
            adjoints[param] = ast.unparse(_substitute(term, {dot: ast.Name("g", ast.Load())}))
        else:
            refused[param] = reason
    owner = obj.fun.__qualname__

    def templates(static, operand_shapes):
        if refused:
            param, reason = next(iter(refused.items()))
            raise SrcDiffError(f"reverse mode (grad) of {owner} needs the transpose of its custom_jvp rule, and "
                               f"the rule's tangent for {param} is not elementwise ({reason}; the rule is at "
                               f"{parsed.location(where).short})",
                               hint=f"give {owner} a custom_vjp rule for reverse mode, or write the tangent "
                               "elementwise (products, sums, quotients and np.where of the tangents)")
        return adjoints
    return Rule(obj, f"{owner} (custom_jvp)", (value, *params, *res), templates, elementwise=True,
                shape=lambda static, v, *rest: v, shape_only=(value, *res), tangents=tangents)


__all__ = ["Parts", "jvp_rule", "rule_parts", "vjp_rule"]
