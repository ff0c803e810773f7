"""The adjoint rule table: what a rule is, how it is checked, and how it is looked up.

A rule says, for one primitive ``ans = f(x, y, ...)``, how the adjoint ``g`` of ``ans``
flows back to each differentiable parameter, as a Python expression template:

    unary(np.sin, x="g * np.cos(x)")

Templates may name ``g``, ``ans``, the rule's parameters, its static (compile-time)
parameters such as ``axis``, and the modules/helpers in `TEMPLATE_GLOBALS`.  They are parsed
and checked when the rule is registered, so a typo fails at import, not in a user's gradient.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.shapes import Shape
from . import runtime
from .lazy_modules import LAZY

#: Names an adjoint template may use besides g, ans and the rule's own parameters.
TEMPLATE_GLOBALS = {"np": np, "math": math, **LAZY, **runtime.HELPERS}

Templates = Mapping[str, str]


@dataclass(frozen=True, eq=False)
class Rule:
    """One primitive's adjoints.

    `templates` maps each differentiable parameter to its adjoint expression; it may instead
    be a function ``(static, shapes) -> mapping`` when the adjoint depends on the static
    arguments or on the operands' shapes (e.g. ``matmul`` on 1-D vs 2-D operands).
    `elementwise` rules broadcast their operands, so each adjoint is summed back to its
    operand's shape.  `shape` computes the result's `Shape` from the operands' shapes.

    `defaults` gives optional parameters (``np.clip``'s bounds) the operand they take when a
    call leaves them out.  A `nograd` rule's value carries no gradient at all (constructors,
    shape queries, comparisons, ``np.sign``): nothing computed from it is active.  A
    `variadic` rule takes its operands as one list (``np.concatenate([x0, x1])``, "list") or
    as the positional arguments after its static ones (``np.einsum("ij,jk", x0, x1)``,
    "args"); `expand` gives the rule for one number of operands, named x0, x1, ...
    `note` documents a convention (non-differentiable points, ties) in the generated docs.

    The rule also holds the facts other stages need about the primitive:

    * `pure` — a call has no effect besides its value (it mutates nothing and draws no random
      numbers), so the optimizer may move or drop it.  Every primitive is, but ``list.append``;
    * `fresh` — its value never shares memory with an operand: a new array, or an immutable
      number or tuple (``np.exp``, ``np.sum``, ``np.zeros``; not ``np.reshape``, a view, nor
      ``np.asarray``, which may return its operand), so it may be updated in place;
    * `float_result` — its value is a Python float whatever numbers it is given (``math.sin``);
    * `array_result` — its value is an ndarray whatever its operands (``np.zeros``,
      ``np.concatenate``; not ``np.exp``, which gives a number for a number), so together
      with `fresh` it is a new array a program may write into by index;
    * `tuple_result` — its value is a tuple or list of arrays (``np.split``), consumed by
      unpacking or indexing;
    * `sympy` — the dotted name of its sympy counterpart, what `srcdiff.check` runs in its
      place on sympy values: for an elementwise rule one element (``"sympy.sin"``, mapped
      over arrays: `sympy_elementwise`), for any other the arrays themselves (NumPy object
      arrays of sympy values), or the function itself where its code is exact on those
      (``"numpy.reshape"``, ``"numpy.add"``); adapters that sympy and NumPy lack are in
      `sympy_forms`.  Only
      `sympy_function` imports it: ``import srcdiff`` loads no sympy.  The one record of
      the counterpart: ``srcdiff.tools.sympy_counterparts`` derives its table from here;
    * `not_symbolic` — why it has no counterpart (then `check` reports such a function "not
      symbolic", and its spec is checked against central differences only).
    """

    func: object
    name: str
    params: tuple[str, ...]
    templates: Templates | Callable[[dict, dict], Templates]
    static: Mapping[str, object] = field(default_factory=dict)
    elementwise: bool = False
    shape: Callable[..., Shape] | None = None
    defaults: Mapping[str, object] = field(default_factory=dict)
    nograd: bool = False
    variadic: str | None = None
    note: str = ""
    pure: bool = True
    draws: bool = False  # draws from np.random's or random's shared stream (driver/lowering.py)
    fresh: bool = False
    float_result: bool = False
    array_result: bool = False
    tuple_result: bool = False
    sympy: str | None = None
    not_symbolic: str = ""
    #: parameters whose adjoint is zero wherever a boolean operand says so: ``np.where``'s
    #: ``{"x": ("condition", True), "y": ("condition", False)}`` (x's adjoint is zero where
    #: condition is False).  The reverse pass keeps that zero exact down x's chain.  The
    #: condition may instead be an elementwise expression over the parameters (``"x > y"``
    #: for ``np.maximum``): then the parameter's own contribution (and tangent) is selected
    #: too, ``np.where(x > y, g, 0.0)``, so a non-finite ``g`` never leaks through a 0 factor
    #: (``g if x > y else 0.0`` for a rule that is not elementwise: builtin ``max`` tests one value).
    selects: Mapping[str, tuple[str, bool]] | Callable[[dict, dict], Mapping] = field(default_factory=dict)
    #: parameters whose adjoint is exactly zero wherever a test over the parameters with the
    #: operand's shape fails (``np.nansum``'s ``{"x": "x == x"}``): that zero is kept down the
    #: operand's chain like ``np.where``'s, so an adjoint there is 0, never 0 * NaN
    keeps: Mapping[str, str] = field(default_factory=dict)
    #: parameters whose contribution to the derivative can be infinite where the value is
    #: finite (``np.sqrt`` at 0, ``np.arcsin`` at 1): forward mode makes a tangent that is
    #: exactly 0 (an operand a clamp or a mask holds still) contribute an exact 0, never 0 * inf
    singular: tuple[str, ...] = ()
    #: parameter -> the parameter whose value 0 makes its contribution exactly 0 whatever ``g``
    #: (``x * y``: {"x": "y", "y": "x"}): selected where ``g`` may be inf (ad/zero_factors.py)
    zero_factors: Mapping[str, str] = field(default_factory=dict)
    shape_only: tuple[str, ...] = ()  # parameters read for their shape only (``unbroadcast(g, like)``'s `like`)
    #: a `nograd` constructor whose values depend on its operands' (``np.arange``'s start and
    #: step): refused, with this hint, when an operand carries a gradient
    refuses_active: str = ""
    #: the reason that refusal gives, when not the constructor's (a function with no rule)
    refusal: str = ""
    #: forward mode (ad/tangent.py): how the result's tangent follows from the operands'.
    #: LINEAR — the primitive applied to the tangents (``np.sum(x_dot, axis=0)``); or, like
    #: `templates`, each differentiable parameter's contribution as a template over ``ans``,
    #: the parameters, the statics and that parameter's own tangent ``x_dot`` (``{"x": "x_dot
    #: @ y", "y": "x @ y_dot"}``); the contributions of the operands that have one are added.
    #: None: derived from the adjoint for an elementwise rule (the Jacobian is diagonal: ``g``
    #: becomes the operand's tangent), refused for any other.
    tangents: str | Templates | Callable[[dict, dict], Templates] | None = None
    #: the adjoint spelled for a gradient srcdiff differentiates again (driver/higher.py), like
    #: `templates`, where those call a helper or a function lowering cannot read back
    #: (``np.split`` at positions known only when run): primitives that have rules.  None:
    #: `templates` serve both.
    derivable: Templates | Callable[[dict, dict], Templates] | None = None
    #: batching (ad/batching_rules.py): how a call runs over a leading batch axis of some
    #: operands — "elementwise" (operands broadcast; derived for elementwise rules), "reduce"
    #: (axis remapped), "matmul", "outer", "transpose", "getitem", "like" (the call as it is),
    #: or a generated-code helper's own kind ("unbroadcast", "index_read", "index_add").
    #: None: no batching rule (a batched compile refuses; jacobian/hessian loop over rows).
    batching: str | None = None
    #: the order the library's signature gives the parameters and statics in, where it is not
    #: the parameters first (``logsumexp(a, axis, b, keepdims)``): a call passing them by
    #: position binds them as the library does.  Empty: parameters, then statics.
    order: tuple[str, ...] = ()
    _parsed: dict = field(default_factory=dict, repr=False)

    @property
    def batching_kind(self) -> str | None:
        """How the primitive is batched (`batching`, derived for elementwise rules)."""
        return self.batching or ("elementwise" if self.elementwise else None)

    @property
    def sympy_elementwise(self) -> bool:
        """Its `sympy` counterpart computes one element (mapped over arrays by its consumer)."""
        return self.batching_kind == "elementwise" and not self.static

    @property
    def signature(self) -> inspect.Signature:
        P = inspect.Parameter
        params = [P(p, P.POSITIONAL_OR_KEYWORD, **({"default": self.defaults[p]} if p in self.defaults else {}))
                  for p in self.params]
        params += [P(k, P.POSITIONAL_OR_KEYWORD, default=v) for k, v in self.static.items()]
        if self.order:
            params.sort(key=lambda p: self.order.index(p.name))
        return inspect.Signature(params)

    def expand(self, count: int) -> Rule:
        """A variadic rule's rule for `count` operands x0..x{count-1} (cached per count)."""
        key = ("expand", count)
        if key not in self._parsed:
            params = tuple(f"x{i}" for i in range(count))
            self._parsed[key] = dataclasses.replace(self, params=params, defaults={}, variadic=None, _parsed={})
        return self._parsed[key]

    def sympy_function(self):
        """The callable `sympy` names (importing its module, sympy say), or None."""
        if self.sympy is None:
            return None
        module, _, name = self.sympy.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def result_shape(self, static: dict, operands: list[Shape]) -> Shape:
        if self.shape is not None:
            return self.shape(static, *operands)
        return shapes.broadcast(*operands) if self.elementwise else shapes.UNKNOWN

    def adjoints(self, static: dict, operand_shapes: Mapping[str, Shape], derivable: bool = False) \
            -> dict[str, ast.expr]:
        """The parsed adjoint template of every parameter, for these static args and shapes
        (with `derivable`, in the form srcdiff differentiates again: `Rule.derivable`)."""
        templates = self.derivable if derivable and self.derivable is not None else self.templates
        texts = templates(static, operand_shapes) if callable(templates) else templates
        return {param: self._parse(param, text) for param, text in texts.items()}

    def _parse(self, param: str, text: str) -> ast.expr:
        key = (param, text)
        if key not in self._parsed:
            self._parsed[key] = _parse_template(self, param, text)
        return self._parsed[key]

    def kept_where(self, param: str) -> ast.expr | None:
        """`param`'s `keeps` test, parsed (None: it has none)."""
        return self._parse(param, self.keeps[param]) if param in self.keeps else None

    def selection(self, param: str, static: dict | None = None,
                  operand_shapes: Mapping[str, Shape] | None = None) -> tuple[ast.expr, bool] | None:
        """`param`'s selecting condition when it is an expression (`selects`, which may be a
        function of the statics and shapes like `templates`), parsed, and the polarity that
        keeps the gradient; None when it is an operand or there is none."""
        selects = self.selects(static or {}, operand_shapes or {}) if callable(self.selects) else self.selects
        if param not in selects or selects[param][0] in self.params:
            return None
        condition, keep = selects[param]
        return self._parse(param, condition), keep

    def tangent_templates(self, static: dict, operand_shapes: Mapping[str, Shape]) -> dict[str, ast.expr] | str | None:
        """The parsed tangent template of every parameter (LINEAR, or None: see `tangents`)."""
        if self.tangents is None or self.tangents == LINEAR:
            return self.tangents
        texts = self.tangents(static, operand_shapes) if callable(self.tangents) else self.tangents
        parsed = {}
        for param, text in texts.items():
            key = ("tangent", param, text)
            if key not in self._parsed:
                self._parsed[key] = _parse_template(self, param, text, tangent=True)
            parsed[param] = self._parsed[key]
        return parsed


#: `Rule.tangents` of a linear primitive: its tangent is the primitive applied to the tangents.
LINEAR = "linear"


def tangent_name(param: str) -> str:
    """The name a tangent template gives the tangent of parameter `param`."""
    return f"{param}_dot"


def _parse_template(rule: Rule, param: str, text: str, tangent: bool = False) -> ast.expr:
    where = f"{'tangent' if tangent else 'adjoint'} rule for {rule.name} (parameter {param!r})"
    try:
        expr = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SrcDiffError(f"{where}: template {text!r} is not a Python expression ({exc.msg})") from None
    if tangent:  # a parameter's contribution reads its own tangent only (the others' may be zero)
        allowed = {"ans", *rule.params, tangent_name(param), *rule.static, *TEMPLATE_GLOBALS}
    else:
        allowed = {"g", "ans", *rule.params, *rule.static, *TEMPLATE_GLOBALS}
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id not in allowed:
            raise SrcDiffError(
                f"{where}: template {text!r} uses unknown name {node.id!r}",
                hint=f"templates may use {tangent_name(param) if tangent else 'g'}, ans, "
                     f"{', '.join(rule.params + tuple(rule.static))}"
                     f" and {', '.join(sorted(TEMPLATE_GLOBALS))}",
            )
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.Await)):
            raise SrcDiffError(f"{where}: template {text!r} must be a plain expression")
    return expr


#: Where the sympy counterparts that sympy and NumPy lack are (``sympy=FORMS + "log1p"``).
FORMS = "srcdiff.rules.sympy_forms."

#: A dotted name: ``sympy.sin``, ``operator.add``.
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def validate_facts(rule: Rule) -> None:
    """Check the facts a rule declares (cheaply: `sympy` is not imported)."""
    for fact in ("pure", "fresh", "float_result", "array_result", "tuple_result"):
        if not isinstance(getattr(rule, fact), bool):
            raise SrcDiffError(f"adjoint rule for {rule.name}: {fact} must be True or False, "
                               f"not {getattr(rule, fact)!r}")
    if rule.sympy is not None and rule.not_symbolic:
        raise SrcDiffError(f"adjoint rule for {rule.name}: a rule has a sympy counterpart or says why not, not both")
    if rule.sympy is not None and not (isinstance(rule.sympy, str) and _DOTTED.fullmatch(rule.sympy)):
        raise SrcDiffError(f"adjoint rule for {rule.name}: sympy must be a dotted name such as "
                           f"'sympy.sin', not {rule.sympy!r}")
    if rule.float_result and (rule.elementwise or rule.tuple_result or rule.array_result or rule.variadic):
        raise SrcDiffError(f"adjoint rule for {rule.name}: a float result is one number: it cannot "
                           "be elementwise, an array, a tuple or variadic")
    if rule.array_result and rule.tuple_result:
        raise SrcDiffError(f"adjoint rule for {rule.name}: a result is an array or a tuple, not both")
    if rule.float_result and rule.shape is not None and \
            rule.shape({}, *[shapes.UNKNOWN] * len(rule.params)) != shapes.SCALAR:
        raise SrcDiffError(f"adjoint rule for {rule.name}: a float result must have a scalar shape")


def validate(rule: Rule) -> Rule:
    """Check a rule before it enters a table: parameters, templates and their names, facts."""
    validate_facts(rule)
    if rule.variadic not in (None, "list", "args"):
        raise SrcDiffError(f"adjoint rule for {rule.name}: variadic must be 'list' or 'args'")
    if rule.variadic:
        validate(rule.expand(2))
        return rule
    if rule.order and sorted(rule.order) != sorted([*rule.params, *rule.static]):
        raise SrcDiffError(f"rule for {rule.name}: order must name every parameter and static argument once")
    if set(rule.defaults) - set(rule.params):
        raise SrcDiffError(f"adjoint rule for {rule.name} has defaults for unknown parameters "
                           f"{sorted(set(rule.defaults) - set(rule.params))}")
    if rule.nograd and not callable(rule.templates) and rule.templates:
        raise SrcDiffError(f"adjoint rule for {rule.name} carries no gradient but has templates")
    if not rule.params:
        raise SrcDiffError(f"adjoint rule for {rule.name} has no parameters")
    if len(set(rule.params) | set(rule.static)) != len(rule.params) + len(rule.static):
        raise SrcDiffError(f"adjoint rule for {rule.name} repeats a parameter name")
    reserved = {"g", "ans"} & (set(rule.params) | set(rule.static))
    if reserved:
        raise SrcDiffError(f"adjoint rule for {rule.name}: {sorted(reserved)} are reserved names")
    for param, (condition, _) in ({} if callable(rule.selects) else rule.selects).items():
        if param not in rule.params:
            raise SrcDiffError(f"adjoint rule for {rule.name}: selects names unknown parameters "
                               f"{param!r}, {condition!r}")
        if condition not in rule.params:  # an expression over the parameters
            rule.selection(param)
    if set(rule.shape_only) - set(rule.params):
        raise SrcDiffError(f"adjoint rule for {rule.name}: shape_only names unknown parameters "
                           f"{sorted(set(rule.shape_only) - set(rule.params))}")
    unknown = {p: shapes.UNKNOWN for p in rule.params}
    templates = rule.adjoints(dict(rule.static), unknown)
    if rule.derivable is not None and set(rule.adjoints(dict(rule.static), unknown, derivable=True)) != set(templates):
        raise SrcDiffError(f"adjoint rule for {rule.name}: its derivable templates must cover the same "
                           "parameters as its templates")
    extra = set(templates) - set(rule.params) | set(templates) & set(rule.shape_only)
    if extra:
        raise SrcDiffError(f"adjoint rule for {rule.name} has templates for unknown parameters {sorted(extra)}")
    if isinstance(rule.tangents, str) and rule.tangents != LINEAR:
        raise SrcDiffError(f"tangent rule for {rule.name}: tangents must be {LINEAR!r}, templates or None")
    try:
        tangents = rule.tangents(dict(rule.static), unknown) if callable(rule.tangents) else rule.tangents
    except SrcDiffError:  # a tangent that needs known shapes: checked when it is used
        tangents = None
    if isinstance(tangents, Mapping):
        for param, text in tangents.items():
            _parse_template(rule, param, text, tangent=True)
    if isinstance(tangents, Mapping) and set(tangents) - set(templates):
        raise SrcDiffError(f"tangent rule for {rule.name} has templates for parameters without an adjoint "
                           f"{sorted(set(tangents) - set(templates))}")
    return rule


def qualified_name(func) -> str:
    if isinstance(getattr(func, "__self__", None), np.ufunc):  # a ufunc's method: np.maximum.accumulate
        return f"{qualified_name(func.__self__)}.{func.__name__}"
    module = getattr(func, "__module__", None) or ("numpy" if isinstance(func, np.ufunc) else "")
    module = {"_operator": "operator", "numpy.linalg._linalg": "numpy.linalg"}.get(module, module)
    if module.startswith("numpy.") and getattr(np, func.__name__, None) is func:
        module = "numpy"
    special = sys.modules.get("scipy.special")  # SciPy's ufuncs say "numpy"; never imported to ask
    if module == "numpy" and special is not None and getattr(np, func.__name__, None) is not func \
            and getattr(special, func.__name__, None) is func:
        module = "scipy.special"
    return f"{module}.{func.__name__}" if module else func.__name__


#: The reason a rule checked against central differences only gives for having no sympy counterpart.
NUMERIC_ONLY = "not run on sympy values (checked against central differences)"


def numerically_checked(make):
    """`make` (`rule`, `nograd`, `unary`...) for a module whose rules have no sympy counterpart
    unless they name one: each made without `sympy=` says why (`NUMERIC_ONLY`)."""
    def made(*args, **options):
        if options.get("sympy") is None:
            options = {"not_symbolic": NUMERIC_ONLY, **options}
        return make(*args, **options)

    made.__name__ = make.__name__
    return made


def rule(func, params, templates, *, name=None, **options) -> Rule:
    """A rule with explicit parameters: ``rule(np.dot, ("x", "y"), _dot_templates)``."""
    return validate(Rule(func, name or qualified_name(func), tuple(params), templates, **options))


def nograd(func, params=("x",), **options) -> Rule:
    """A function whose value carries no gradient: ``nograd(np.zeros_like)``."""
    return rule(func, params, {}, nograd=True, **options)


def unary(func, x: str, **options) -> Rule:
    """An elementwise function of one argument: ``unary(np.exp, x="g * ans")``.

    Its value is fresh (a new array, or a number) unless the options say otherwise."""
    return rule(func, ("x",), {"x": x}, elementwise=True, **{"fresh": True, **options})


def binary(func, x: str | None, y: str | None, **options) -> Rule:
    """An elementwise function of two arguments; None marks a parameter with no gradient.

    Its value is fresh (a new array, or a number) unless the options say otherwise."""
    templates = {p: t for p, t in (("x", x), ("y", y)) if t is not None}
    return rule(func, ("x", "y"), templates, elementwise=True, **{"fresh": True, **options})
