"""Stage 2: the user's AST becomes the IR, one node per primitive call (A-normal form).

Each statement is lowered by a `stmt_*` method and each expression by an `expr_*` method;
a construct with no method is refused with a `SrcDiffError` naming it.  Names get SSA
versions: reassigning ``x`` makes a new `Var` (``x_1``), so every value keeps its own name
for the backward sweep to read.
"""

from __future__ import annotations

import ast
import operator

from . import rules
from .errors import SrcDiffError
from .ir import Block, Const, Function, Global, Node, Operand, Var, operand_ast
from .naming import Namer, assigned_names, names_in
from .parse import _MISSING, ParsedFunction
from .rules.table import RuleTable

BINARY_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
}
UNARY_OPERATORS = {ast.USub: operator.neg, ast.UAdd: operator.pos}

REFUSED = {  # constructs with a known reason; anything else is reported by its AST name
    "For": "`for` loops", "While": "`while` loops", "If": "`if` statements",
    "Try": "`try` blocks", "With": "`with` blocks", "Global": "`global` declarations",
    "Nonlocal": "`nonlocal` declarations", "ClassDef": "class definitions",
    "FunctionDef": "nested function definitions", "Yield": "`yield`", "Await": "`await`",
}


class Lowerer:
    """Lowers one function; holds the environment from user names to operands."""

    def __init__(self, parsed: ParsedFunction, table: RuleTable):
        self.parsed = parsed
        self.table = table
        locals_ = assigned_names(parsed.tree)
        self.namer = Namer(names_in(parsed.tree) - locals_, locals_)
        self.nodes: list[Node] = []
        self.env: dict[str, Operand] = {}
        self.line = parsed.tree.lineno
        self.output: Operand | None = None
        self.return_line = self.line

    # ---- entry point ----

    def function(self) -> Function:
        args = self.parsed.tree.args
        if args.vararg or args.kwarg:
            raise self.parsed.error(self.parsed.tree, "*args and **kwargs parameters are not supported",
                                    "name every parameter")
        params = [Var(self.namer.claim(a.arg)) for a in args.posonlyargs + args.args + args.kwonlyargs]
        self.env = {p.name: p for p in params}
        body = self.parsed.tree.body
        for stmt in body:
            self.line = stmt.lineno
            if self.output is not None:
                raise self.error(stmt, "code after `return` is never run")
            self.statement(stmt)
        if self.output is None:
            raise self.error(body[-1], f"{self.parsed.name} has no `return` statement",
                             "return the scalar value to differentiate")
        return Function(self.parsed.name, params, Block(self.nodes), self.output, self.return_line)

    # ---- statements ----

    def statement(self, stmt: ast.stmt) -> None:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            raise self.unsupported(stmt)
        method(stmt)

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        for target in stmt.targets:
            self.assign(target, stmt.value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, stmt.value)

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        if not isinstance(stmt.target, ast.Name):
            raise self.error(stmt, "augmented assignment to anything but a name is not supported",
                             "write `x = x + ...` into a new local variable")
        load = ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt.target)
        value = ast.copy_location(ast.BinOp(load, stmt.op, stmt.value), stmt)
        self.assign(stmt.target, value)

    def stmt_Return(self, stmt: ast.Return) -> None:
        if stmt.value is None:
            raise self.error(stmt, "`return` without a value", "return the scalar to differentiate")
        self.return_line = stmt.lineno
        self.output = self.expr(stmt.value, target=self.parsed.name)

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return  # a docstring
        raise self.error(stmt, "an expression statement has no effect on the gradient",
                         "remove it, or assign its value to a name")

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = self.expr(value, target=target.id)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            if len(target.elts) != len(value.elts):
                raise self.error(target, "cannot unpack: the two sides have different lengths")
            operands = [self.expr(v) for v in value.elts]  # all right-hand sides first
            for t, operand in zip(target.elts, operands):
                if not isinstance(t, ast.Name):
                    raise self.unsupported(t)
                self.env[t.id] = operand
        else:
            raise self.error(target, f"assignment to {ast.unparse(target)} is not supported",
                             "assign to a plain local name")

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
        func = rules.ATTRIBUTES.get(node.attr)
        if func is None:
            raise self.error(node, f"the attribute .{node.attr} is not supported",
                             "use the equivalent NumPy function")
        x = self.expr(node.value)
        return self.emit(func, (x,), {}, ast.Attribute(operand_ast(x), node.attr, ast.Load()), target)

    def expr_Call(self, node: ast.Call, target) -> Operand:
        callee = node.func
        if isinstance(callee, ast.Attribute) and self.static_value(callee.value) is _MISSING:
            return self.method_call(node, target)
        func = self.static_value(callee)
        if func is _MISSING:
            raise self.error(node, f"cannot tell which function {ast.unparse(callee)} is",
                             "call a function by a name defined at module level")
        rule = self.table.lookup(func)
        if rule is None:
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
        lowered = {}
        for name, arg in bound.arguments.items():
            lowered[name] = self.expr(arg) if name in rule.params else arg
        operands = tuple(lowered[p] for p in rule.params)
        static = dict(rule.static)
        for name in rule.static:
            if name in bound.arguments:
                static[name] = self.constant(bound.arguments[name])
        names = list(rule.signature.parameters)
        new_args = [operand_ast(lowered[names[i]]) if names[i] in rule.params else a
                    for i, a in enumerate(args)]
        new_kw = [ast.keyword(k.arg, operand_ast(lowered[k.arg]) if k.arg in rule.params else k.value)
                  for k in node.keywords]
        return operands, static, new_args, new_kw

    # ---- helpers ----

    def emit(self, func, inputs: tuple, static: dict, expr: ast.expr, target: str | None) -> Var:
        rule = self.table.lookup(func)
        out = Var(self.namer.version(target) if target else self.namer.temp())
        self.nodes.append(Node(len(self.nodes), rule, tuple(inputs), static, out, expr, self.line))
        return out

    def static_value(self, node: ast.expr):
        """The object a Name/Attribute chain names without running user code, or _MISSING."""
        if isinstance(node, ast.Name):
            return _MISSING if node.id in self.env else self.parsed.resolve(node.id)
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            if base is not _MISSING and isinstance(base, type(ast)):
                return getattr(base, node.attr, _MISSING)
        return _MISSING

    def constant(self, node: ast.expr):
        """A static argument's value (axis=0, keepdims=True), known at transform time."""
        try:
            return ast.literal_eval(node)
        except ValueError:
            value = self.static_value(node)
            if value is _MISSING or callable(value):
                raise self.error(node, f"{ast.unparse(node)} must be a constant here") from None
            return value

    def error(self, node, message: str, hint: str = "") -> SrcDiffError:
        return self.parsed.error(node, message, hint)

    def unsupported(self, node: ast.AST) -> SrcDiffError:
        kind = type(node).__name__
        what = REFUSED.get(kind, f"{kind} {'statements' if isinstance(node, ast.stmt) else 'expressions'}")
        return self.error(node, f"{what} are not supported by srcdiff yet",
                          "see docs/supported-python.md for what is supported")

    def no_rule(self, node: ast.Call, func, spelled: str) -> SrcDiffError:
        from .rules.table import qualified_name

        name = qualified_name(func) if hasattr(func, "__name__") else spelled
        return self.error(
            node, f"no adjoint rule for {name} (called as {spelled})",
            f"register one with srcdiff.register_adjoint({spelled}, x='g * ...'), "
            "or rewrite the call with supported functions (docs/supported-numpy.md)",
        )


def lower(parsed: ParsedFunction, table: RuleTable) -> tuple[Function, Namer]:
    """Lower a parsed function into IR; returns it with the `Namer` holding its names."""
    lowerer = Lowerer(parsed, table)
    return lowerer.function(), lowerer.namer
