"""Helpers inlined into their caller before any transform.

A call of another user function can go through that function's own adjoint (a ``vjp``
returning a pullback closure): a Python call, a closure and a tuple per call, shapes the
caller cannot see through, and code that forward mode, higher derivatives and numba cannot
take.  Instead, a helper is spliced into the caller's IR — its straight-line code, branches
(early returns included: lowering made them merges), loops, the lists it builds, the
helpers it calls in turn: its regions are copied with fresh names (inline_copy.py), its
parameters bound to the call's operands (defaults as constants), its result renamed to the
call's.  The caller's transform is then one function, optimised as a whole, with the
helper's shapes known at the call site.  A helper returning a tuple hands its elements to
the caller's unpacking directly.

What cannot be copied keeps the call, never a refusal here: a recursive helper (unless its
static arguments end the recursion), one that reads a module's names the caller's code
would read differently, a closure, a helper over the size caps.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import re

from ..frontend.function_arguments import functions_in_caller
from ..frontend.naming import Namer
from ..frontend.parse import read_function
from ..ir.nodes import (
    Block,
    Branch,
    Const,
    Function,
    Global,
    Loop,
    Node,
    Specialised,
    UserCall,
    Var,
    all_nodes,
    link_users,
    operand_ast,
    region_defines,
)
from ..rules.structural import COPY, LIST_AWARE, SUM_LIST, SUM_ROWS
from .in_place_args import read_by_one_call
from .inline_copy import Copier, defined_names, expressions, operands

MAX_NODES = 5000  # a helper larger than this keeps its own adjoint
MAX_TOTAL = 40000  # nor is the caller grown past this many nodes by inlining
MAX_DEPTH = 24  # helpers within helpers, this deep

_TEMP = re.compile(r"t\d+$")
_CONSTANT_DEFAULTS = (int, float, complex, bool, str, type(None))


class _Abandon(Exception):
    """The expansion of call `key` (None: the outermost one) cannot be finished."""

    def __init__(self, key):
        super().__init__(key)
        self.key = key


def inline_calls(function: Function, namer: Namer, lower_callee, caller, parsed=None) -> Function:
    """`function` with its calls of user helpers inlined (those that can be).

    `lower_callee(callee, passed)` gives the helper's lowered `Function` for a call passing
    the parameters `passed` (`callee`: a function or `Specialised`), or None: keep the call;
    `caller` is the user's Python function whose generated code will run the copies; `parsed` its
    `ParsedFunction`, whose closure the generated code reads (a helper given functions is copied with
    them read from there; without it such a helper stays a call)."""
    kept: set[int] = set()  # calls whose copy hands the caller a list it cannot take
    while True:
        inlining = _Inlining(function, namer, lower_callee, caller, kept)
        inlining.parsed = parsed
        body = inlining.block(function.body, ())
        if not inlining.changed:
            return function
        misused = inlining.misused_lists(body)
        if not misused:
            break
        kept |= misused
    link_users(all_nodes(body))
    return Function(function.name, function.params, body, function.output, function.return_line,
                    frozenset(inlining.lists))


def _called_names(callee: Function) -> set[str]:
    """The names the helper's code calls its own helpers by (``rk4_step_with_rhs(y, dt)``)."""
    return {n.expr.func.id for n in all_nodes(callee) if isinstance(n, UserCall) and isinstance(n.expr, ast.Call)
            and isinstance(n.expr.func, ast.Name)}


def _resolves(func, name: str) -> bool:
    """Whether `name` means something in the code of `func` (a global, a builtin, a closure
    variable): lowering binds a helper given functions in its caller's closure only."""
    code = getattr(func, "__code__", None)
    return name in getattr(func, "__globals__", {}) or hasattr(builtins, name) or \
        (code is not None and name in code.co_freevars)


def callee_key(callee) -> tuple:
    """What identifies a helper's code: the function, and the static values it is lowered with."""
    if isinstance(callee, Specialised):
        return (callee.func, callee.key)
    return (callee, None)


class _Inlining:
    def __init__(self, function: Function, namer, lower_callee, caller, kept: set[int]):
        self.namer, self.lower_callee, self.caller, self.kept = namer, lower_callee, caller, kept
        self.parsed = None  # (the caller's ParsedFunction, where one is given: `inline_calls`)
        nodes = all_nodes(function)
        self.last_id = max((n.id for n in nodes), default=0)
        self.total = len(nodes)
        #: names with a meaning of their own in the caller's code: a helper reading a
        #: global of the same name cannot be copied there
        self.local = region_defines(function.body) | {p.name for p in function.params}
        self.lists: set[str] = set(function.lists)
        self.tuples: dict[str, tuple] = {}  # a call's value -> the elements of the tuple it returns
        #: a list a copied helper hands the caller (whose code took it for any value) -> the
        #: id of the call in the caller's own code that brought it
        self.handed: dict[str, int] = {}
        self.handed_lists: dict[str, bool] = {}  # ... and whether its items may be lists
        self.outermost: int | None = None  # the id of that call, while its copy is made
        self.changed = False
        #: parameters read by one call only, outside loops: the helper's in-place update of it is
        #: seen by no one after (tree-wrapped calls, in_place_args.py)
        self.spent = read_by_one_call(function)

    def next_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def block(self, b: Block, chain: tuple) -> Block:
        items = []
        for item in b.nodes:
            if isinstance(item, Branch):
                item = Branch(item.test, self.block(item.body, chain), self.block(item.orelse, chain),
                              item.merges, item.line)
            elif isinstance(item, Loop):
                item = _with_body(item, self.block(item.body, chain))
            elif isinstance(item, UserCall):
                expanded = self.expand(item, chain)
                if not isinstance(expanded, str):
                    items += expanded
                    self.changed = True
                    continue
                if expanded != item.kept:
                    item = dataclasses.replace(item, kept=expanded, users=[])
                    self.changed = True
            elif isinstance(item, Node):
                item = self.forwarded(item)
            items.append(item)
        return Block(items)

    def expand(self, call: UserCall, chain: tuple) -> list | str:
        """The regions replacing `call`, or why it stays a call."""
        key = callee_key(call.callee)
        name = getattr(key[0], "__qualname__", "the function")
        if key in chain:
            raise _Abandon(key)  # recursion: the outer call of this helper stays a call
        if len(chain) >= MAX_DEPTH:
            raise _Abandon(None)
        if not chain:
            if call.id in self.kept:
                return f"{name} returns a list its caller uses as another kind of value"
            self.outermost = call.id
        try:
            spliced = self.splice(call)
            if isinstance(spliced, str):
                return spliced
            return self.block(Block(spliced), chain + (key,)).nodes
        except _Abandon as stop:
            if stop.key == key:
                return f"{name} calls itself, and a recursive function cannot be copied into its caller"
            if stop.key is None and not chain:
                return f"{name} calls helpers more than {MAX_DEPTH} deep"
            raise

    def splice(self, call: UserCall) -> list | str:
        """The helper's regions renamed into the caller, or why the call must stay."""
        func = call.callee.func if isinstance(call.callee, Specialised) else call.callee
        name = getattr(func, "__qualname__", "the function")
        callee = self.lower_callee(call.callee, call.arg_names)
        if callee is None:
            return f"srcdiff cannot differentiate {name} on its own (its own adjoint says why)"
        passed = {}
        if getattr(read_function(func), "__closure__", None):  # (an import in its body is a cell too)
            passed = None if self.parsed is None else functions_in_caller(read_function(func), self.parsed)
            if passed is None:  # (a helper given functions: read by names of the caller's closure)
                return f"{name} is a closure, whose variables its caller's code cannot read"
        size = len(all_nodes(callee))
        if size > MAX_NODES or self.total + size > MAX_TOTAL:
            return f"{name} is too large to be copied into its caller ({size} operations)"
        binding = _bind(call, func, callee)
        defined = defined_names(callee.body)
        if binding is None or set(defined) & set(binding):
            return f"srcdiff cannot bind the arguments of this call to {name}'s parameters"
        if not self._reads_agree(func, callee, set(defined) | set(binding) | set(passed), set(passed)):
            return f"{name} reads names of its module that mean something else in its caller"
        output, value = callee.output, None
        returns_list = isinstance(output, Var) and output.name in callee.lists
        if returns_list and _holds_lists(callee) and _returned_tuple(callee) is None:
            return f"{name} returns lists in a list"  # which the caller would take apart as any value
        rename = {}
        if isinstance(output, Var) and output.name in defined:
            rename[output.name] = call.out
        else:  # returns a parameter, a constant or a global as it is: a copy
            value = binding.get(output.name, output) if isinstance(output, Var) else output
            if isinstance(value, Var) and value.name in self.lists:
                return f"{name} returns the list it was given"
        for own in defined:
            if own not in rename:
                rename[own] = Var(self.namer.temp() if _TEMP.match(own) else self.namer.fresh(own))
        self.local |= {v.name for v in rename.values()}
        line_of = (lambda line: line) if _same_file(func, self.caller) else (lambda line: call.line)
        for own, held in passed.items():
            self.namer.claim(held)
            rename.setdefault(own, Var(held))
        copier = Copier({**binding, **rename}, self.next_id, line_of,
                        frozenset(n for n, owner in self.spent.items() if owner == call.id))
        body = copier.block(callee.body, fold=frozenset({getattr(output, "name", "")})).nodes
        if value is not None:
            body.append(Node(self.next_id(), COPY, (value,), {}, call.out, operand_ast(value), call.line))
        self.lists |= {rename[n].name for n in callee.lists if n in rename}
        self.total += size
        if returns_list:
            self.lists.add(call.out.name)
            self.handed[call.out.name] = self.outermost
            self.handed_lists[call.out.name] = _holds_lists(callee)
            returned = _returned_tuple(callee)
            if returned is not None:  # ``return a, b``: the caller's ``x = call[0]`` reads `a` itself
                self.tuples[call.out.name] = tuple(map(copier.operand, returned.inputs))
        return body

    def _reads_agree(self, func, callee: Function, values: set[str], passed: set[str]) -> bool:
        """The names the helper's code reads that are not its values (np, math, a global,
        another helper) mean in the caller's generated code what they mean in the helper."""
        free = {n.id for e in expressions(callee.body) for n in ast.walk(e) if isinstance(n, ast.Name)} - values
        read = [o for o in operands(callee.body) if isinstance(o, Global)]
        free |= {g.name for g in read}
        if free & self.local:
            return False
        if any(not _resolves(self.caller, name) for name in _called_names(callee) - passed):
            return False  # a helper bound to the functions a call passes, named in the helper's closure only
        own, theirs = getattr(func, "__globals__", None), getattr(self.caller, "__globals__", None)
        if own is not theirs:  # another module: only names that are the same object in both
            if read or any(isinstance(n, UserCall) for n in all_nodes(callee)):
                return False
            missing = object()
            for name in free:
                mine = own.get(name, getattr(builtins, name, missing))
                if mine is missing or mine is not theirs.get(name, getattr(builtins, name, missing)):
                    return False
        for name in sorted(free):
            self.namer.claim(name)
        return True

    def forwarded(self, node: Node) -> Node:
        """``x = t[i]`` of a tuple a helper returned: ``x = element``."""
        if node.rule.name != "getitem" or len(node.inputs) != 1 or not isinstance(node.inputs[0], Var):
            return node
        elements = self.tuples.get(node.inputs[0].name)
        index = node.expr.slice if isinstance(node.expr, ast.Subscript) else None
        if elements is None or not isinstance(index, ast.Constant) or type(index.value) is not int \
                or not -len(elements) <= index.value < len(elements):
            return node
        value = elements[index.value]
        if isinstance(value, Var) and value.name in self.lists:  # a list returned in a tuple
            self.lists.add(node.out.name)
            self.handed[node.out.name] = self.handed[node.inputs[0].name]
        return Node(node.id, COPY, (value,), {}, node.out, operand_ast(value), node.line)

    def misused_lists(self, body: Block) -> set[int]:
        """The calls (ids) whose copies hand the caller a list where its code, lowered for
        any value, uses it as something else; ``sum(xs)`` is made the sum of a list."""
        misused = set()
        for block in _blocks(body):
            for i, node in enumerate(block.nodes):
                handed = [v.name for v in getattr(node, "input_vars", ()) if v.name in self.handed]
                if not handed or isinstance(node, UserCall) or node.rule.name == "list":
                    continue
                if node.rule.name == "getitem":
                    if any(self.handed_lists.get(name) for name in handed):  # an item that may be a list
                        misused |= {self.handed[name] for name in handed}
                elif node.rule is SUM_ROWS:
                    block.nodes[i] = Node(node.id, SUM_LIST, node.inputs, node.static, node.out, node.expr, node.line)
                elif node.rule not in LIST_AWARE:
                    misused |= {self.handed[name] for name in handed}
        return misused


def _returned_tuple(callee: Function) -> Node | None:
    """The node of a helper ending ``return a, b`` that builds the tuple, or None."""
    last = callee.body.nodes[-1] if callee.body.nodes else None
    if isinstance(last, Node) and not isinstance(last, UserCall) and isinstance(callee.output, Var) \
            and last.out == callee.output and last.rule.name == "list" and isinstance(last.expr, ast.Tuple) \
            and len(last.expr.elts) == len(last.inputs) and not any(isinstance(e, ast.Starred) for e in last.expr.elts):
        return last
    return None


def _holds_lists(callee: Function) -> bool:
    """Whether a list of `callee` may hold another list."""
    return any(n.rule.name == "list" and any(v.name in callee.lists for v in n.input_vars)
               for n in all_nodes(callee))


def _blocks(block: Block):
    """`block` and every block nested in it."""
    yield block
    for item in block.nodes:
        if isinstance(item, Branch):
            yield from _blocks(item.body)
            yield from _blocks(item.orelse)
        elif isinstance(item, Loop):
            yield from _blocks(item.body)


def _with_body(loop: Loop, body: Block) -> Loop:
    return Loop(loop.kind, loop.target, loop.bounds, loop.test, loop.test_inputs, body, loop.carried, loop.stop,
                loop.line)


def _same_file(func, caller) -> bool:
    """The helper's lines are lines of the caller's file (its comments and errors name them)."""
    return getattr(getattr(func, "__code__", None), "co_filename", None) \
        == getattr(getattr(caller, "__code__", None), "co_filename", "")


def _bind(call: UserCall, func, callee: Function) -> dict | None:
    """Callee parameter -> the operand the call gives it (a default: a constant)."""
    given = dict(zip(call.arg_names, call.inputs))
    binding = {}
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if len(parameters) != len(callee.params):
        return None
    for p, param in zip(parameters, callee.params):
        if p.name in given:
            binding[param.name] = given[p.name]
        elif p.default is not inspect.Parameter.empty and _constant(p.default):
            binding[param.name] = Const(p.default)
        else:
            return None
    return binding


def _constant(value) -> bool:
    """A default the copy can hold as a literal."""
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return type(value) in _CONSTANT_DEFAULTS


__all__ = ["MAX_DEPTH", "MAX_NODES", "MAX_TOTAL", "callee_key", "inline_calls"]
