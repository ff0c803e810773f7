"""The intermediate representation: regions of explicit computation DAGs.

Lowering turns every sub-expression of the user's function into a `Node` whose inputs are
`Var`s (values computed by other nodes, or parameters) or `Const`/`Global` operands.  Nodes
live in a `Block`, the region kind straight-line code needs.  Control flow adds two more
region kinds, each holding blocks of its own: a `Branch` (``if``/``else``, conditional
expressions) and a `Loop` (``for``/``while``).  Values stay in SSA form inside every block;
where control flow joins, a branch *merges* the values each side computed into one new
`Var`, and a loop *carries* a `Var` from one iteration to the next.  `all_nodes` walks every
node of every region in program order.
"""

from __future__ import annotations

import ast
import enum
import heapq
import math
import types
from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Var:
    """A value with a name in the generated code (SSA: assigned once)."""

    name: str


@dataclass(frozen=True)
class Const:
    """A literal the user wrote: never differentiated."""

    value: object


@dataclass(frozen=True)
class Global:
    """A module-level or closure value, read when the gradient runs; never differentiated.

    `shape` is the `Shape` of the value lowering saw, where the transform is guarded on its
    signature (frontend/depends.py); None when it may be anything."""

    name: str
    shape: object = field(default=None, compare=False)
    #: it held complex numbers when lowered (a value meeting it is refused: ad/activity.py)
    complex: bool = field(default=False, compare=False)


Operand = Union[Var, Const, Global]


def operand_ast(operand: Operand) -> ast.expr:
    """The expression that reads an operand in generated code."""
    if isinstance(operand, Const):
        if isinstance(operand.value, types.ModuleType) and operand.value.__name__ == "numpy":
            return ast.Name("np", ast.Load())  # an array namespace (``xp``) passed on
        if isinstance(operand.value, enum.Enum):  # a member (static): spelled by its class's name
            member = operand.value
            return ast.Attribute(ast.Name(type(member).__name__, ast.Load()), member.name, ast.Load())
        return ast.Constant(operand.value)
    if isinstance(operand, Global) and "." in operand.name:  # data.X, another module's array (lower/module_arrays.py)
        module, attr = operand.name.rsplit(".", 1)
        return ast.Attribute(ast.Name(module, ast.Load()), attr, ast.Load())
    return ast.Name(operand.name, ast.Load())


@dataclass(eq=False)
class Node:
    """One primitive call: ``out = rule(*inputs, **static)``, from a line of user code.

    `expr` is the forward computation as the user spelled it, over the input names.
    """

    id: int
    rule: object  # the primitive's rules.table.Rule
    inputs: tuple[Operand, ...]
    static: dict
    out: Var
    expr: ast.expr
    line: int
    users: list[Node] = field(default_factory=list)

    @property
    def input_vars(self) -> list[Var]:
        return [v for v in self.inputs if isinstance(v, Var)]


@dataclass(eq=False)
class UserCall(Node):
    """A call to another user function, differentiated through its own transform.

    `callee` is the Python function; `arg_names` gives, per input operand, the parameter
    it binds (positional or keyword, as the user wrote the call).
    """

    callee: object = None
    arg_names: tuple[str, ...] = ()
    keywords: tuple[str | None, ...] = ()  # per input: the keyword it was passed by, or None
    kept: str = ""  # why inlining (ad/inline.py) left it a call, said to whom needs it copied
    spent: tuple[str, ...] = ()  # parameters whose operand no one reads after the call (ad/in_place_args.py)


@dataclass(eq=False)
class ForwardStatement(Node):
    """A statement of the user's run for its effect only, where they wrote it, in the forward
    sweep: ``print(...)``, logging, ``assert``, a guard ``if bad: raise ...``.

    `stmt` is the statement reading the values `inputs` by name.  It has no value (`out` is
    never assigned, `expr` is the constant None), its rule carries no gradient, and the forward sweep
    never leaves it out.
    """

    stmt: ast.stmt | None = None


@dataclass
class Block:
    """Straight-line code: nodes and nested regions in the order they were lowered.

    A block of straight-line code holds only `Node`s; a `Branch` or `Loop` item stands for
    a whole structured statement.
    """

    nodes: list[Node | Branch | Loop] = field(default_factory=list)


@dataclass(frozen=True)
class Merge:
    """After a branch, `out` is `body` if the test held, else `orelse`.

    Each side's block ends up assigning `out` itself (its own node renamed, or a copy), so
    `body`/`orelse` record what the user's code computed, for reading; passes use the nodes.
    """

    out: Var
    body: Operand
    orelse: Operand


@dataclass(eq=False)
class Branch:
    """``if test: body else: orelse``; `merges` join the values the two sides assign."""

    test: Operand
    body: Block
    orelse: Block
    merges: list[Merge]
    line: int


@dataclass(frozen=True)
class Carry:
    """A loop-carried value: `var` holds `init` before the first iteration and `final`
    (computed by the body) at the start of every later one."""

    var: Var
    init: Operand
    final: Operand


@dataclass(eq=False)
class Loop:
    """``for target in range(*bounds)`` (kind "range") or ``while test`` (kind "while").

    `test` (while loops) is the user's condition over the carried values, an expression
    evaluated before every iteration; it carries no gradient.  `stop` is an operand computed
    by the body that, when true, ends the loop after this iteration (``break``/``return``).
    """

    kind: str
    target: Var | None
    bounds: tuple[Operand, ...]
    test: ast.expr | None
    test_inputs: tuple[Var, ...]
    body: Block
    carried: list[Carry]
    stop: Operand | None
    line: int


Region = Union[Branch, Loop]


@dataclass
class Function:
    """A lowered user function: parameters, body, and the operand it returns."""

    name: str
    params: list[Var]
    body: Block
    output: Operand
    return_line: int
    lists: frozenset[str] = frozenset()  # names of values that are Python lists


def all_nodes(function_or_block) -> list[Node]:
    """Every node of every region, in program order (a loop's body once)."""
    block = function_or_block.body if isinstance(function_or_block, Function) else function_or_block
    found = []
    for item in block.nodes:
        if isinstance(item, Node):
            found.append(item)
        elif isinstance(item, Branch):
            found += all_nodes(item.body) + all_nodes(item.orelse)
        else:
            found += all_nodes(item.body)
    return found


def while_lines(function_or_block) -> list[int]:
    """The user's line of every ``while`` loop, in program order (a loop's body once)."""
    block = function_or_block.body if isinstance(function_or_block, Function) else function_or_block
    found = []
    for item in block.nodes:
        if isinstance(item, Branch):
            found += while_lines(item.body) + while_lines(item.orelse)
        elif isinstance(item, Loop):
            found += ([item.line] if item.kind == "while" else []) + while_lines(item.body)
    return found


def is_straight_line(function: Function) -> bool:
    """True when the function's body has no branch or loop."""
    return all(isinstance(item, Node) for item in function.body.nodes)


def region_reads(block: Block) -> list[Var]:
    """Every `Var` the regions and nodes of `block` read, in order, with repeats."""
    reads: list[Var] = []
    for item in block.nodes:
        if isinstance(item, Node):
            reads += item.input_vars
        elif isinstance(item, Branch):
            reads += [v for v in (item.test,) if isinstance(v, Var)]
            reads += region_reads(item.body) + region_reads(item.orelse)
        else:
            reads += [v for v in item.bounds if isinstance(v, Var)] + list(item.test_inputs)
            reads += [v for c in item.carried for v in (c.init, c.final) if isinstance(v, Var)]
            reads += region_reads(item.body)
            if isinstance(item.stop, Var):
                reads.append(item.stop)
    return reads


def region_defines(block: Block) -> set[str]:
    """The names of every value `block` (and the regions in it) assigns."""
    names: set[str] = set()
    for item in block.nodes:
        if isinstance(item, Node):
            names.add(item.out.name)
        elif isinstance(item, Branch):
            names |= region_defines(item.body) | region_defines(item.orelse)
            names |= {m.out.name for m in item.merges}
        else:
            names |= region_defines(item.body) | {c.var.name for c in item.carried}
            if item.target is not None:
                names.add(item.target.name)
    return names


def _producers(nodes: list[Node]) -> dict[int, list[Node]]:
    """For each node (by id), the distinct nodes computing its inputs, in input order.

    `nodes` are in program order.  A name is SSA except for a list that ``xs.append(v)``
    grows in place (the append node reads and writes `xs`): an input is the latest value of
    its name computed before the reading node, so appends chain instead of forming a cycle.
    """
    last = {}
    for n in nodes:
        last[n.out] = n
    current: dict[Var, Node] = {}
    found: dict[int, list[Node]] = {}
    for n in nodes:
        inputs = {}
        for v in n.input_vars:
            producer = current.get(v) or last.get(v)
            if producer is not None and producer is not n:
                inputs[producer.id] = producer
        found[n.id] = list(inputs.values())
        current[n.out] = n
    return found


def link_users(nodes: list[Node]) -> None:
    """Fill each node's `users` (the nodes reading its output), for the backward walk."""
    producers = _producers(nodes)
    for n in nodes:
        n.users.clear()
    for n in nodes:
        for p in producers[n.id]:
            p.users.append(n)


def topological_order(nodes: list[Node]) -> list[Node]:
    """Kahn's algorithm; among ready nodes the smallest id goes first, so order is stable."""
    producers = _producers(nodes)
    waiting = {n.id: len(producers[n.id]) for n in nodes}
    consumers: dict[int, list[Node]] = {n.id: [] for n in nodes}
    for n in nodes:
        for p in producers[n.id]:
            consumers[p.id].append(n)
    ready = [(n.id, n) for n in nodes if waiting[n.id] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for user in consumers[node.id]:
            waiting[user.id] -= 1
            if waiting[user.id] == 0:
                heapq.heappush(ready, (user.id, user))
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle")  # lowering never builds one
    return order


def typed(value) -> object:
    """`value` with the type of every part attached: equal only to a value of the same types."""
    if isinstance(value, tuple):
        return (tuple, tuple(typed(v) for v in value))
    if type(value) is float and value == 0.0:  # (-0.0 == 0.0, but arctan2(-0.0, -1), 1 / -0.0 differ: its sign too)
        return float, value, math.copysign(1.0, value)
    return (type(value), value)


@dataclass(frozen=True)
class Specialised:
    """User function `func` with its static parameters fixed: ``(("axis", -1),)``."""

    func: object
    statics: tuple = field(compare=False)
    key: tuple = field(init=False, repr=False)  # the values with their types: axis=1 is not axis=True

    def __post_init__(self):
        object.__setattr__(self, "key", typed(self.statics))
        object.__setattr__(self, "__name__", self.func.__name__)  # named like the function
        object.__setattr__(self, "__qualname__", self.func.__qualname__)
