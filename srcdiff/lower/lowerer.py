"""Stage 2: the user's AST becomes the IR, one node per primitive call (A-normal form).

Each statement is lowered by a `stmt_*` method (lower_stmt.py: assignments and control
flow) and each expression by an `expr_*` method (here: operators and calls with rules;
lower_expr.py: subscripts, comparisons, lists, comprehensions, lambdas, user functions); a
construct with no method is refused with a `SrcDiffError` naming it.  Names get SSA
versions: reassigning ``x`` makes a new `Var` (``x_1``), so every value keeps its own name
for the backward sweep to read.
"""

from __future__ import annotations

import ast
import operator
from collections import Counter

from .. import rules
from ..errors import SrcDiffError
from ..frontend.naming import Namer, assigned_names, names_in
from ..frontend.parse import _MISSING, ParsedFunction
from ..ir.nodes import Block, Const, Function, Global, Node, Operand, Var, operand_ast
from ..rules.table import Rule, RuleTable
from . import library_calls
from .expressions import ExpressionMixin
from .statements import RETURN, StatementMixin

BINARY_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
}
UNARY_OPERATORS = {ast.USub: operator.neg, ast.UAdd: operator.pos}

REFUSED = {  # constructs with a known reason; anything else is reported by its AST name
    "Try": "`try` blocks", "TryStar": "`try` blocks", "With": "`with` blocks",
    "AsyncWith": "`async with` blocks", "AsyncFor": "`async for` loops",
    "Global": "`global` declarations", "Nonlocal": "`nonlocal` declarations",
    "ClassDef": "class definitions", "FunctionDef": "nested function definitions",
    "AsyncFunctionDef": "nested function definitions", "Yield": "`yield`",
    "YieldFrom": "`yield from`", "Await": "`await`", "Delete": "`del` statements",
    "Raise": "`raise` statements", "Assert": "`assert` statements", "Import": "imports",
    "ImportFrom": "imports", "Match": "`match` statements", "NamedExpr": "`:=` expressions",
    "SetComp": "set comprehensions", "DictComp": "dict comprehensions", "Dict": "dicts",
    "Set": "sets", "JoinedStr": "f-strings",
}


class Lowerer(StatementMixin, ExpressionMixin):
    """Lowers one function; holds the environment from user names to operands.

    Nodes go into `block`, the block being lowered (regions swap it while they lower
    theirs).  `env` maps each user name to its current operand; besides user names it holds
    the control-flow state of lower_stmt.py (the value returned so far, break flags).
    """

    def __init__(self, parsed: ParsedFunction, table: RuleTable, statics=None):
        self.parsed = parsed
        self.table = table
        #: the values of the parameters used as static arguments, for this variant (`lower`)
        self.statics = statics
        self.params: list[Var] = []
        locals_ = assigned_names(parsed.tree)
        self.locals = locals_
        # Names the generated code needs for itself (np, math, helpers) are never given to a
        # user's local: a local `np` becomes `np_1`, so `np.cos` in an adjoint stays NumPy's.
        reserved = set(rules.TEMPLATE_GLOBALS)
        self.namer = Namer((names_in(parsed.tree) - locals_) | reserved, locals_ - reserved)
        self.block = Block()
        self.env: dict[str, Operand] = {}
        self.lists: set[str] = set()  # names of values that are Python lists
        self.lambdas: dict[str, ast.Lambda] = {}  # user names bound to a local lambda
        self.line = parsed.tree.lineno
        self.terminated = False  # the current path has returned, broken or continued
        self.loops: list[dict] = []  # per enclosing loop: what its body appends and reads
        self.frozen_lists: set[str] = set()  # lists read already: no more appends
        self.temp_names: dict[str, str] = {}  # display names of internal env keys
        self.loads = Counter(n.id for n in ast.walk(parsed.tree)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        self.return_line = self.line

    @property
    def nodes(self) -> list[Node]:
        """The nodes of the block being lowered."""
        return self.block.nodes

    # ---- entry point ----

    def function(self) -> Function:
        args = self.parsed.tree.args
        if args.vararg or args.kwarg:
            raise self.parsed.error(self.parsed.tree, "*args and **kwargs parameters are not supported",
                                    "name every parameter")
        params = [Var(self.namer.claim(a.arg)) for a in args.posonlyargs + args.args + args.kwonlyargs]
        self.params = params
        self.env = {p.name: p for p in params}
        body = self.parsed.tree.body
        self.statements(body)
        if RETURN not in self.env:
            raise self.error(body[-1], f"{self.parsed.name} has no `return` statement",
                             "return the scalar value to differentiate")
        if not self.terminated:
            raise self.error(body[-1], f"{self.parsed.name} can end without a `return`",
                             "return a value on every path")
        return Function(self.parsed.name, params, self.block, self.env[RETURN], self.return_line,
                        frozenset(self.lists))

    # ---- expressions ----

    def expr(self, node: ast.expr, target: str | None = None) -> Operand:
        """Lower `node`; a node it creates is named `target` (a user name) if given."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node)
        return method(node, target)

    def expr_Constant(self, node: ast.Constant, target) -> Operand:
        return Const(node.value)

    def expr_Name(self, node: ast.Name, target) -> Operand:
        if node.id in self.env:
            return self.env[node.id]
        if node.id in self.lambdas:
            raise self.error(node, f"the local lambda {node.id!r} can only be called",
                             "call it where it is used, or define a function at module level")
        if node.id in self.locals:
            raise self.error(node, f"{node.id!r} is used before it is assigned (or is assigned "
                             "only on some paths, or only by an earlier loop iteration)",
                             f"assign {node.id} before this line on every path")
        value = self.parsed.resolve(node.id)
        if value is _MISSING:
            raise self.error(node, f"name {node.id!r} is not defined")
        if callable(value) or isinstance(value, type(ast)):
            raise self.error(node, f"{node.id!r} is a function or module, not a value")
        return Global(node.id)

    def expr_BinOp(self, node: ast.BinOp, target) -> Operand:
        func = BINARY_OPERATORS.get(type(node.op))
        if func is None:
            raise self.error(node, f"the operator {type(node.op).__name__} is not differentiable",
                             "rewrite it with + - * / ** or @")
        x, y = self.expr(node.left), self.expr(node.right)
        expr = ast.BinOp(operand_ast(x), node.op, operand_ast(y))
        return self.emit(func, (x, y), {}, expr, target)

    def expr_UnaryOp(self, node: ast.UnaryOp, target) -> Operand:
        func = UNARY_OPERATORS.get(type(node.op))
        if func is None:
            raise self.unsupported(node)
        x = self.expr(node.operand)
        if isinstance(x, Const):
            return Const(func(x.value))
        return self.emit(func, (x,), {}, ast.UnaryOp(node.op, operand_ast(x)), target)

    def expr_Attribute(self, node: ast.Attribute, target) -> Operand:
        value = self.static_value(node)
        if value is not _MISSING:
            if isinstance(value, (int, float, complex)):
                return Const(value)  # np.pi, math.e
            raise self.error(node, f"{ast.unparse(node)} is not a number")
        if node.attr in SHAPE_ATTRIBUTES:
            return self.shape_query(node, target)
        func = rules.ATTRIBUTES.get(node.attr)
        if func is None:
            raise self.error(node, f"the attribute .{node.attr} is not supported",
                             "use the equivalent NumPy function")
        x = self.expr(node.value)
        return self.emit(func, (x,), {}, ast.Attribute(operand_ast(x), node.attr, ast.Load()), target)

    def expr_Call(self, node: ast.Call, target) -> Operand:
        listed = self.list_consumer(node, target)  # np.stack(xs) of a list built by append
        if listed is not None:
            return listed
        lowered = library_calls.lower_call(self, node, target)  # namespaces, conversions, nograd, lists
        if lowered is not None:
            return lowered
        callee = node.func
        if isinstance(callee, ast.Attribute) and self.static_value(callee.value, record=False) is _MISSING:
            return self.method_call(node, target)
        if isinstance(callee, ast.Name) and callee.id in self.lambdas:
            return self.call_lambda(node, self.lambdas[callee.id], target)
        func = self.static_value(callee)
        if func is _MISSING:
            raise self.error(node, f"cannot tell which function {ast.unparse(callee)} is",
                             "call a function by a name defined at module level")
        special = self.special_call(node, func, target)
        if special is not None:
            return special
        rule = self.table.lookup(func)
        if rule is None:
            if is_user_function(func):
                return self.user_call(node, func, target)
            raise self.no_rule(node, func, ast.unparse(callee))
        operands, static, args, keywords = self.bind(node, rule, node.args)
        expr = ast.Call(callee, args, keywords)
        return self.emit(func, operands, static, expr, target)

    def method_call(self, node: ast.Call, target) -> Operand:
        name = node.func.attr
        func = rules.METHODS.get(name)
        if func is None:
            raise self.error(node, f"the array method .{name}() has no adjoint rule",
                             "use the equivalent NumPy function, or register a rule with "
                             "srcdiff.register_adjoint")
        rule = self.table.lookup(func)
        obj = node.func.value
        operands, static, args, keywords = self.bind(node, rule, [obj] + node.args)
        expr = ast.Call(ast.Attribute(args[0], name, ast.Load()), args[1:], keywords)
        return self.emit(func, operands, static, expr, target)

    def bind(self, node: ast.Call, rule, args: list[ast.expr]):
        """Match a call's arguments to the rule: operands get lowered, static ones evaluated."""
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            raise self.error(node, "*args and **kwargs in a call are not supported")
        try:
            bound = rule.signature.bind(*args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.error(node, f"unsupported arguments for {rule.name}: {exc}",
                             f"srcdiff's rule for {rule.name} takes ({', '.join(rule.signature.parameters)})") from None
        lowered = {p: Const(v) for p, v in rule.defaults.items()}  # optional operands left out
        for name, arg in bound.arguments.items():
            lowered[name] = self.expr(arg) if name in rule.params else arg
        operands = tuple(lowered[p] for p in rule.params)
        static = dict(rule.static)
        for name in rule.static:
            if name in bound.arguments:
                static[name] = self.constant(bound.arguments[name])
        names = list(rule.signature.parameters)
        new_args = [operand_ast(lowered[names[i]]) if names[i] in rule.params else self.as_written(a)
                    for i, a in enumerate(args)]
        new_kw = [ast.keyword(k.arg, operand_ast(lowered[k.arg]) if k.arg in rule.params
                              else self.as_written(k.value)) for k in node.keywords]
        return operands, static, new_args, new_kw

    # ---- helpers ----

    def emit(self, func, inputs: tuple, static: dict, expr: ast.expr, target: str | None) -> Var:
        return self.emit_rule(self.table.lookup(func), inputs, static, expr, target)

    def emit_rule(self, rule: Rule, inputs: tuple, static: dict, expr: ast.expr | None,
                  target: str | None, out: Var | None = None, kind=Node, expr_of=None, **extra) -> Var:
        """Append ``out = rule(*inputs)`` to the current block; `out` named after `target`.

        Without `expr`, the forward expression is the call `expr_of` over the inputs.
        """
        self.check_list_use(rule, inputs)
        if expr is None:
            expr = ast.Call(expr_of.func, [operand_ast(v) for v in inputs], [])
        out = out or Var(self.namer.version(target) if target else self.namer.temp())
        self.nodes.append(kind(self.new_id(), rule, tuple(inputs), static, out, expr, self.line, **extra))
        self.note_sharing(self.nodes[-1])  # which fresh arrays `out` may share memory with
        return out

    def new_id(self) -> int:
        self._ids = getattr(self, "_ids", -1) + 1
        return self._ids

    def static_value(self, node: ast.expr, record: bool = True):
        """The object a Name/Attribute chain names without running user code, or _MISSING.

        The transform then depends on the chain's root name keeping its value (it is
        recorded, srcdiff/depends.py); `record=False` for a probe whose answer changes
        nothing but whether the expression is kept as written."""
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return _MISSING
            value = self.parsed.resolve(node.id)
            if record:
                self.parsed.depend(node.id, value)
            return value
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value, record)
            if base is not _MISSING and isinstance(base, type(ast)):
                return getattr(base, node.attr, _MISSING)
        return _MISSING

    def constant(self, node: ast.expr):
        """A static argument's value (axis=0, keepdims=True), known at transform time.

        A parameter of the function (``axis=axis``) takes its value for this variant."""
        parameter = self.static_parameter(node)
        if parameter is not None:
            if self.statics is None or parameter not in self.statics:
                raise StaticParameter(parameter, node, self.error(
                    node, f"{parameter} must be a constant here",
                    f"pass a constant, or differentiate through srcdiff.grad, which specialises "
                    f"the gradient on the value of {parameter}"))
            return self.statics[parameter]
        try:
            return ast.literal_eval(node)
        except ValueError:
            value = self.static_value(node)
            if value is _MISSING or callable(value):
                raise self.error(node, f"{ast.unparse(node)} must be a constant here") from None
            return value

    def static_parameter(self, node: ast.expr) -> str | None:
        """The parameter `node` names, unchanged since the call, or None."""
        if isinstance(node, ast.Name) and any(self.env.get(node.id) is p for p in self.params):
            return node.id
        return None

    def as_written(self, node: ast.expr) -> ast.expr:
        """A static argument in the forward code: a parameter spelled as its value."""
        parameter = self.static_parameter(node)
        if parameter is None or self.statics is None or parameter not in self.statics:
            return node
        value = self.statics[parameter]
        try:
            literal = ast.parse(repr(value), mode="eval").body
            same = ast.literal_eval(literal) == value
        except (SyntaxError, ValueError):
            same = False
        return literal if same else node  # inf and nan stay spelled as the parameter

    def error(self, node, message: str, hint: str = "") -> SrcDiffError:
        return self.parsed.error(node, message, hint)

    def unsupported(self, node: ast.AST) -> SrcDiffError:
        kind = type(node).__name__
        what = REFUSED.get(kind, f"{kind} {'statements' if isinstance(node, ast.stmt) else 'expressions'}")
        return self.error(node, f"{what} are not supported by srcdiff yet",
                          "see docs/supported-python.md for what is supported")

    def no_rule(self, node: ast.Call, func, spelled: str) -> SrcDiffError:
        from ..rules.table import qualified_name

        name = qualified_name(func) if hasattr(func, "__name__") else spelled
        return self.error(
            node, f"no adjoint rule for {name} (called as {spelled})",
            f"register one with srcdiff.register_adjoint({spelled}, x='g * ...'), "
            "or rewrite the call with supported functions (docs/supported-numpy.md)",
        )


SHAPE_ATTRIBUTES = ("shape", "ndim", "size", "dtype")


def is_user_function(func) -> bool:
    """A plain Python function srcdiff can read (not a builtin, NumPy, or srcdiff itself)."""
    import types

    module = getattr(func, "__module__", "") or ""
    return isinstance(func, types.FunctionType) and module.split(".")[0] not in ("numpy", "srcdiff", "math")


class StaticParameter(SrcDiffError):
    """A parameter is used as a static argument (``axis=axis``) and lowering lacks its value."""

    def __init__(self, name: str, node: ast.expr, error: SrcDiffError):
        super().__init__(error.reason, error.location, error.hint)
        self.name, self.node = name, node


def lower(parsed: ParsedFunction, table: RuleTable, statics=None) -> tuple[Function, Namer]:
    """Lower a parsed function into IR; returns it with the `Namer` holding its names.

    `statics` maps the parameters used as static arguments to their values for this
    variant; a parameter used so without one raises `StaticParameter`."""
    lowerer = Lowerer(parsed, table, statics)
    return lowerer.function(), lowerer.namer


def lower_specialised(parsed: ParsedFunction, table: RuleTable, value_of) -> tuple[Function, Namer, dict]:
    """`lower`, each parameter used as a static argument taking ``value_of(name, node)``.

    Also returns those parameters' values.  `value_of` raises to refuse (the node is the
    parameter's first static use).  Which parameters lowering asks for does not depend on
    their values, so the result is right for any call whose values of them are equal."""
    statics: dict[str, object] = {}
    while True:
        try:
            function, namer = lower(parsed, table, statics)
            return function, namer, statics
        except StaticParameter as exc:
            if exc.name in statics:
                raise
            statics[exc.name] = value_of(exc.name, exc.node)
