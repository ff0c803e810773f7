"""What one lowering works on: the function, the IR built so far, and the user's names.

`LoweringState` is shared by the statement lowerer and the expression lowerer; each reads
and updates it explicitly.  Apart from the cache of callee_facts.py, nothing else in
lower/ keeps state between calls.
"""

from __future__ import annotations

import ast
import types
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .. import rules
from ..errors import SrcDiffError
from ..frontend.depends import Dependency
from ..frontend.naming import Namer, assigned_names, names_in
from ..frontend.parse import ParsedFunction
from ..ir.nodes import Block, Const, Node, Operand, Var
from ..rules.rule_table import RuleTable
from .facts import ParamFacts
from .writes import InPlaceUpdate, Sharing

# Control flow is lowered without jumps, so where a path has returned or broken out is
# data: values kept in `env` beside the user's names, under keys no identifier can spell.
# They stay there (rather than in fields of their own) because the IR treats them exactly
# as variables: a branch merges them like any name whose sides differ, a loop carries
# them, and the alias checks count them among the names holding a value.  Their place in
# `env`'s order decides the order of those merges, which the generated source shows.
RETURN = "<return>"  # the value returned so far
BREAK = "<break>"  # whether the innermost loop stops after this iteration
DONE = "<done>"  # whether a loop body has returned (the code after the loop is skipped)
FLOW_DEFAULTS = {RETURN: Const(None), BREAK: Const(False), DONE: Const(False)}
FLOW_NAMES = {BREAK: "stop", DONE: "done"}  # names of their values in the generated code

REFUSED = {  # constructs with a known reason; anything else is reported by its AST name
    "Try": "`try` blocks", "TryStar": "`try` blocks",
    "With": "`with` blocks (other than np.errstate and warnings.catch_warnings)",
    "AsyncWith": "`async with` blocks", "AsyncFor": "`async for` loops",
    "Global": "`global` declarations", "Nonlocal": "`nonlocal` declarations",
    "ClassDef": "class definitions",
    "AsyncFunctionDef": "nested function definitions", "Yield": "`yield`",
    "YieldFrom": "`yield from`", "Await": "`await`", "Delete": "`del` statements",
    "Import": "imports",
    "ImportFrom": "imports", "Match": "`match` statements", "NamedExpr": "`:=` expressions",
    "SetComp": "set comprehensions", "Dict": "dicts",
    "DictComp": "dict comprehensions over items known only when the function runs",
    "Set": "sets",
}


@dataclass(frozen=True)
class CalleeFacts:
    """What lowering a called user function tells the caller's lowering."""

    depends: tuple[Dependency, ...]  # free names its transform (callees included) read statically
    static_parameters: tuple[str, ...]  # its parameters used as static arguments (``axis=axis``)
    nograd_items: tuple[int, ...] = ()  # items of the tuple it returns that carry no gradient (a mask)
    fresh_items: tuple[int, ...] = ()  # items of the tuple it returns that are new arrays
    fresh_value: bool = False  # what it returns (not a tuple) is a new array (``return np.zeros(...)``)
    returned: tuple | None = None  # ("list" or "tuple", its length): the display it returns on every path
    error: SrcDiffError | None = None  # why lowering it failed (then nothing above is known)


#: Lowers a called user function (or recalls having done so): callee_facts.py.  Passed in
#: rather than imported because it runs this very lowering on the callee.
CalleeFactsOf = Callable[[types.FunctionType, RuleTable, tuple, tuple, tuple], CalleeFacts]


@dataclass
class LoopRecord:
    """What the body of one enclosing loop does, checked when the loop is finished."""

    appended: set[str] = field(default_factory=set)  # lists the body appends to
    read: set[str] = field(default_factory=set)  # lists the body reads (a list may not be both)
    written: set[int] = field(default_factory=set)  # fresh arrays (`Sharing` numbers) written by index
    in_place: list[InPlaceUpdate] = field(default_factory=list)  # ``y op= v`` updates in the body
    created: set[str] = field(default_factory=set)  # lists the body makes anew in each iteration


@dataclass
class LoweringState:
    """Everything lowering one function reads and writes.

    Nodes go into `block`, the block being lowered (a branch or loop swaps in its own while
    it lowers its body).  `env` maps each user name to its current operand: reassigning
    ``x`` makes a new `Var` (``x_1``), so every value keeps its own name for the backward
    sweep.  Besides user names `env` holds the control-flow values (`RETURN`, `BREAK`,
    `DONE`) and the values of expressions lowered as regions (their display names in
    `temp_names`).  A region replaces `block`, `env` and `terminated` rather than changing
    them, so code that lowers anything reads them again afterwards instead of keeping them.
    """

    parsed: ParsedFunction  # the function: its AST, how its free names resolve, error locations
    table: RuleTable  # the rules: which calls are primitives
    statics: dict[str, object] | None  # this variant's values of parameters used as static arguments
    callee_facts: CalleeFactsOf  # how to learn what a called user function reads and needs
    namer: Namer  # hands out every name of the generated function
    locals: set[str]  # names the function assigns: one read before assignment is an error, not a global
    loads: Counter[str]  # how often the whole function reads each name (a loop carries names read after it)
    sharing: Sharing  # which fresh arrays each value may share memory with (writes.py)
    line: int  # the line being lowered; new nodes carry it
    return_line: int  # the line of the `return` lowered last
    facts: ParamFacts = field(default_factory=ParamFacts)  # what the arguments decide (facts.py)
    params: list[Var] = field(default_factory=list)  # the parameters, in order
    block: Block = field(default_factory=Block)  # where new nodes go
    root_block: Block | None = None  # the function's own block (not a branch's or loop's)
    env: dict[str, Operand] = field(default_factory=dict)  # user name (or key above) -> its value now
    lists: set[str] = field(default_factory=set)  # values that are Python lists (or tuples)
    frozen_lists: set[str] = field(default_factory=set)  # lists read already: no more appends
    none_entering: set[str] = field(default_factory=set)  # carried values entering their loop as None
    grown: set[str] = field(default_factory=set)  # lists appended to (their adjoints are popped)
    nested: set[str] = field(default_factory=set)  # lists holding lists or tuples (lists.py)
    tuple_items: dict[str, tuple] = field(default_factory=dict)  # tuples built here: their items
    returned_displays: dict[str, tuple] = field(default_factory=dict)  # a helper's list: (kind, length)
    tuples: set[str] = field(default_factory=set)  # tuples, merged and carried ones too: their items may be unknown
    nograd_items: dict[str, tuple] = field(default_factory=dict)  # returned by a call: items with no gradient
    fresh_items: dict[str, tuple] = field(default_factory=dict)  # returned by a call: items that are new arrays
    guarded_items: dict[str, Callable] = field(default_factory=dict)  # returned by a helper given a measure
    row_lists: set[str] = field(default_factory=set)  # lists whose list items are stacked into arrays
    int_rows: set[str] = field(default_factory=set)  # rows of a module's table of ints (integer_tables.py)
    stacked_rows: set[int] = field(default_factory=set)  # ids of comprehensions made into row lists
    lambdas: dict[str, ast.Lambda | ast.FunctionDef] = field(default_factory=dict)  # local lambdas and defs
    inlining: set[int] = field(default_factory=set)  # ids of the nested functions being inlined (nested.py)
    temp_names: dict[str, str] = field(default_factory=dict)  # display names of internal `env` keys
    terminated: bool = False  # the current path has returned, broken or continued
    raised: bool = False  # ... by a `raise`: nothing it leaves reaches the code after it
    loops: list[LoopRecord] = field(default_factory=list)  # one per enclosing loop, innermost last
    last_id: int = -1  # the id of the last node made (ids break ties in topological order)

    @classmethod
    def start(cls, parsed: ParsedFunction, table: RuleTable, statics, callee_facts: CalleeFactsOf,
              facts: ParamFacts | None = None) -> LoweringState:
        """The state before the first statement of `parsed` is lowered."""
        locals_ = assigned_names(parsed.tree)
        # Names the generated code needs for itself (np, math, helpers) are never given to a
        # user's local: a local `np` becomes `np_1`, so `np.cos` in an adjoint stays NumPy's.
        reserved = set(rules.TEMPLATE_GLOBALS)
        namer = Namer((names_in(parsed.tree) - locals_) | reserved, locals_ - reserved)
        loads = Counter(n.id for n in ast.walk(parsed.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        sharing = Sharing()
        for name in parameter_names(parsed.tree.args):
            sharing.argument(name)  # a parameter's Var is named as the user named it
        return cls(parsed, table, statics, callee_facts, namer, locals_, loads, sharing,
                   line=parsed.tree.lineno, return_line=parsed.tree.lineno, facts=facts or ParamFacts())

    @property
    def nodes(self) -> list[Node]:
        """The nodes of the block being lowered."""
        return self.block.nodes

    def is_list(self, operand: Operand) -> bool:
        """Whether `operand` is a Python list (or tuple) the function handles as one."""
        return isinstance(operand, Var) and operand.name in self.lists

    def new_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def display(self, key: str) -> str:
        """The name an `env` key goes by in messages and in the names of its values."""
        if key == RETURN:
            return self.parsed.name
        return FLOW_NAMES.get(key, self.temp_names.get(key, key))

    def error(self, node: ast.AST | int, message: str, hint: str = "") -> SrcDiffError:
        return self.parsed.error(node, message, hint)

    def unsupported(self, node: ast.AST) -> SrcDiffError:
        kind = type(node).__name__
        what = REFUSED.get(kind, f"{kind} {'statements' if isinstance(node, ast.stmt) else 'expressions'}")
        return self.error(node, f"{what} are not supported by srcdiff yet",
                          _HINTS.get(kind, "see docs/supported-python.md for what is supported"))


#: what to do instead, for the statements users write most often
_TRY = ("which branch runs is decided by an exception when the function runs, and a gradient cannot "
        "follow it: test the condition yourself (`if np.all(np.isfinite(y)):`, `if np.linalg.cond(K) < 1e12:`) "
        "with if/else, or put the try around the call of the gradient instead "
        "(see docs/supported-python.md)")
_DICT_COMP = ("srcdiff builds a dict comprehension's entries when it builds the gradient, so it needs "
              "items it can list then: a string, a tuple of names (here or at module level), range of a "
              "number, enumerate/zip of those, or a parameter tree's items; otherwise build the dict "
              "with literal keys ({'a': x[0], 'b': x[1]}) (see docs/supported-python.md)")
_HINTS = {"Try": _TRY, "TryStar": _TRY, "DictComp": _DICT_COMP}


def parameter_names(args: ast.arguments) -> list[str]:
    """A function's parameters that name one value each (not ``*args``/``**kwargs``)."""
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
