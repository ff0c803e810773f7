"""The batching transform: a lowered function becomes code that runs over a leading batch
axis of some of its parameters in one call (what ``jax.vmap`` is to JAX).

Every value either has a batch axis (it depends on a batched parameter) or not; a value
keeps its name either way, so the batched code reads like the function it comes from.  A
call none of whose operands is batched is the user's statement unchanged (computed once for
the whole batch); any other call is rewritten by its rule's batching kind
(ad/batching_rules.py).  Branches on values the same for every row stay branches; a loop
carries a batch axis where its initial or its final value has one; a list of values with a batch
axis is a list of rows (ad/batching_lists.py).  A primitive without a batching rule, a branch or a
loop bound that differs per row, and calls of other functions are refused, naming the user's
line (`srcdiff.vmap` then runs one example at a time, api/vmap_examples.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import SrcDiffError
from ..frontend.naming import Namer
from ..ir.nodes import (
    Branch,
    Const,
    ForwardStatement,
    Function,
    Global,
    Loop,
    Node,
    Operand,
    UserCall,
    Var,
    operand_ast,
)
from ..ir.program import Assign, Break, For, If, Run, While
from ..ir.shapes import Shape
from ..rules.structural import APPEND
from .batched_products import hoist_factors
from .batching_conditions import KINDS as CONDITIONS
from .batching_conditions import kept_test, truth_rule, whole_kind
from .batching_dtypes import carried_init, literal_tuples
from .batching_each_row import each_row_rule, refuse_no_rule
from .batching_effects import effect_statement
from .batching_gathers import KINDS as GATHERS
from .batching_gathers import index_tuple
from .batching_lists import RowList, list_node, need_rows
from .batching_masks import carried_masked, masked_node
from .batching_moves import KINDS as MOVES
from .batching_rules import KINDS, call, float_math
from .batching_selects import read_contexts, selected
from .batching_shapes import row_test, shape_query, shapes_only
from .static_index import record_static


@dataclass
class BatchedProgram:
    """The statements of a batched function and the expression it returns."""

    function: Function
    body: list
    output: ast.expr
    batched: tuple[str, ...]  # the parameters with a batch axis
    rows: frozenset = frozenset()  # every value with a batch axis


@dataclass
class Batching:
    """What the transform knows: which values have a batch axis, and the batch size's name."""

    shapes: dict[str, Shape]
    location: object
    size: str
    lists: set[str]  # (an item read from a list of row lists is one too: added where read)
    have: set[str] = field(default_factory=set)  # values with a batch axis
    ndims: dict[str, int] = field(default_factory=dict)  # a row's axes where the rules do not say
    containers: set[str] = field(default_factory=set)  # tuples whose every part has one
    # tests kept whole whose batched value would be wrong (``x > np.mean(x)``): refused where read,
    # after a branch on them has refused with its own reason
    wrong_rows: dict[str, tuple] = field(default_factory=dict)
    # index parts known when the code is made (``t13 = slice(1, None, None),``), written out where read
    statics: dict = field(default_factory=dict)
    forced: frozenset[str] = frozenset()  # lists made of rows from the start (ad/batching_lists.py)
    nested: set[str] = field(default_factory=set)  # row lists whose items are row lists (ad/batching_lists.py)
    # index tuples of positions with a batch axis beside slices, each part's flag (ad/batching_gathers.py)
    index_rows: dict[str, tuple] = field(default_factory=dict)
    bools: set[str] = field(default_factory=set)  # tests with a batch axis (a mask's candidates)
    masks: dict[str, str] = field(default_factory=dict)  # masked rows -> their mask (ad/batching_masks.py)
    shaped: set[str] = field(default_factory=set)  # the whole shape of a row of masked rows
    # row lists of adjoints made by ``zeros_list`` (their items zero rows shaped like the primal's items,
    # where the unbatched code holds the number 0.0), and items read from them: a row's axes asked when run
    zero_lists: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)
    # elementwise results of those: a row's axes asked when run where a rule can (the shapes' may be too few)
    unsure: set[str] = field(default_factory=set)
    # a branch on a batched test runs both sides and selects row by row (ad/batching_selects.py): not with numba
    select: bool = True
    fresh: object = None  # the namer's fresh names
    reads: dict = field(default_factory=dict)  # where each value is read (batching_selects.read_contexts)
    narrow: dict = field(default_factory=dict)  # float32 values and Python numbers (ad/batching_dtypes.py)

    def check_read(self, operand: Operand) -> None:
        if isinstance(operand, Var) and operand.name in self.wrong_rows:
            self.refuse(*self.wrong_rows[operand.name])

    def batched(self, operand: Operand) -> bool:
        return isinstance(operand, Var) and (operand.name in self.have or operand.name in self.containers
                                             or operand.name in self.index_rows)

    def ref(self, operand: Operand) -> ast.expr:
        return operand_ast(operand)

    def ndim(self, operand: Operand, node, required: bool = True) -> int | None:
        """A row's number of axes (the shape the code is compiled for); None (or, when
        `required`, a refusal) where it is not known before the call."""
        if isinstance(operand, Const):
            return int(getattr(operand.value, "ndim", 0)) if not isinstance(operand.value, (list, tuple)) else 1
        shape = operand.shape if isinstance(operand, Global) else self.shapes.get(operand.name)
        if isinstance(operand, Var) and operand.name in self.asked:
            if required:
                self.refuse(node, "the number of axes of a value here is not known before the call, so it cannot "
                                  "be batched", "call the function once per example")
            return None
        if isinstance(operand, Var) and operand.name in self.unsure and not required:
            return None
        if (shape is None or not shape.known) and isinstance(operand, Var) and operand.name in self.ndims:
            return self.ndims[operand.name]
        if shape is None or not shape.known:
            if not required:
                return None
            self.refuse(node, "the number of axes of a value here is not known before the call, so it cannot be "
                              "batched", "pass arrays (not lists) and avoid values whose shape depends on data")
        return len(shape.dims)

    def rank_expr(self, operands, node) -> int | ast.expr:
        """The most axes a row of `operands` has: a number, or an expression where the code
        knows it only when it runs."""
        known, asked = [], []
        for v in operands:
            n = self.ndim(v, node, required=False)
            if n is not None:
                known.append(n)
            elif self.batched(v):
                asked.append(ast.BinOp(call("np.ndim", self.ref(v)), ast.Sub(), ast.Constant(1)))
            else:
                asked.append(call("np.ndim", self.ref(v)))
        if not asked:
            return max(known, default=0)
        return call("max", *[ast.Constant(k) for k in set(known)], *asked) if len(asked) + bool(known) > 1 \
            else asked[0]

    def expanded(self, operand: Operand, rank, node) -> ast.expr:
        """A batched operand with axes of length one after its batch axis, up to `rank` axes
        a row (`rank` a number, or an expression computed when the code runs)."""
        own = self.ndim(operand, node, required=False)
        if isinstance(rank, int) and own is not None:
            if own >= rank:
                return self.ref(operand)
            parts = [ast.Slice(None, None, None)] + [ast.Constant(None)] * (rank - own)
            return ast.Subscript(self.ref(operand), ast.Tuple(parts, ast.Load()), ast.Load())
        return call("expand_rows", self.ref(operand), rank if isinstance(rank, ast.expr) else ast.Constant(rank))

    def rows(self, operand: Operand) -> ast.expr:
        """`operand` with a batch axis: itself, or the same value for every row."""
        if self.batched(operand):
            return self.ref(operand)
        if isinstance(operand, Var) and operand.name in self.lists:  # a list: its items rows, from where it is made
            need_rows(self, operand)
        return call("broadcast_rows", self.ref(operand), ast.Name(self.size, ast.Load()))

    def refuse(self, node, what: str, hint: str = "") -> None:
        line = getattr(node, "line", None)
        raise SrcDiffError(f"batching (srcdiff.vmap): {what}", self.location(line) if line else None,
                           hint or "compute this value from operations that have batching rules, or call the "
                                   "function once per example")


def batch(function: Function, namer: Namer, batched: tuple[str, ...], shape_of: dict[str, Shape], *,
          location, ndims: dict[str, int] | None = None, floats: frozenset = frozenset(),
          select: bool = True, narrow: dict | None = None) -> BatchedProgram:
    """The batched program of `function`, whose parameters `batched` have a leading batch
    axis; `ndims` gives a row's number of axes of values whose shapes the rules do not say;
    `floats` names parameters whose rows are floating-point (ad/batched_products.py); `select`:
    a branch whose test differs between rows runs both sides (ad/batching_selects.py), else it is refused;
    `narrow`: one example's float32 values and Python numbers (driver/batched.py's `probe`)."""
    size = namer.fresh("batch_size")
    forced: set[str] = set()
    reads = read_contexts(function)
    while True:  # again with each list a batched value meets made of rows from the start
        state = Batching(shape_of, location, size, set(function.lists), set(batched), ndims=dict(ndims or {}),
                         forced=frozenset(forced), select=select, fresh=namer.fresh, reads=reads,
                         narrow=dict(narrow or {}))
        try:
            return _batched(function, state, batched, floats)
        except RowList as grown:
            if grown.name in forced:
                raise SrcDiffError(f"batching (srcdiff.vmap): the list {grown.name} cannot be made of rows",
                                   hint="build an array with np.stack instead") from None
            forced.add(grown.name)


def _batched(function: Function, state: Batching, batched: tuple[str, ...], floats: frozenset) -> BatchedProgram:
    size = state.size
    body = []
    if batched:
        first = ast.Subscript(ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "shape", ast.Load()),
                                       [ast.Name(batched[0], ast.Load())], []), ast.Constant(0), ast.Load())
        line = getattr(function.body.nodes[0], "line", None) if function.body.nodes else None
        body.append(Assign([size], first, line or function.return_line))
    body += _block(function.body, state)
    out = function.output
    state.check_read(out)
    carried_masked([out.name] if isinstance(out, Var) else [], state, (function.body.nodes or [None])[-1])
    if isinstance(out, Var) and out.name in state.containers:
        output = operand_ast(out)
    elif state.batched(out):
        output = operand_ast(out)
    elif batched:
        output = call("copy_rows", operand_ast(out), ast.Name(size, ast.Load()))
    else:
        output = operand_ast(out)
    params = tuple(p.name for p in function.params)
    rows = frozenset(state.have | state.containers)
    body = hoist_factors(body, output, rows, params, floats)
    return BatchedProgram(function, body, output, batched, rows)


def _block(block, state: Batching) -> list:
    out = []
    for item in block.nodes:
        if isinstance(item, Branch):
            out += _branch(item, state)
        elif isinstance(item, Loop):
            out += _loop(item, state)
        elif isinstance(item, ForwardStatement):
            out.append(Run(effect_statement(item, state), item.line))
        else:
            out += _node(item, state)
    return out


def _node(node: Node, state: Batching) -> list:
    checks, done = masked_node(node, state)
    if done:
        return checks
    return checks + _unmasked(node, state)


def _unmasked(node: Node, state: Batching) -> list:
    made = (index_tuple(node, state) if node.rule.name == "list" else None) or list_node(node, state)
    if made is not None:
        return made
    if not any(state.batched(v) for v in node.inputs):
        record_static(node.out.name, node.expr, state.statics)
        return [Assign([node.out.name], node.expr, node.line)]
    if isinstance(node, UserCall):
        name = getattr(node.callee, "__qualname__", "another function")
        if getattr(getattr(node.callee, "func", node.callee), "__srcdiff_generated__", False):  # (driver/higher.py)
            state.refuse(node, f"a call of a srcdiff gradient object (its code {name}) inside the function cannot "
                         "be batched: its code is not copied into its caller",
                         "vmap the gradient object itself (srcdiff.vmap(dloss)), or leave jit= out of srcdiff.vmap "
                         "(the function then runs one example at a time)")
        state.refuse(node, f"the call of {name} is not copied into its caller ({node.kept or 'it is kept a call'})",
                     f"write {name} at module level without recursion")
    if node.rule is APPEND or (node.out.name in state.lists and node.rule.name != "list") or any(
            isinstance(v, Var) and v.name in state.lists and state.batched(v) and v.name not in state.containers
            and v.name not in state.index_rows for v in node.inputs):  # (list_node batches the lists it knows)
        state.refuse(node, "lists cannot be batched", "build an array with np.stack instead")
    if any(isinstance(v, Var) and v.name in state.index_rows for v in node.inputs) \
            and node.rule.batching_kind not in ("index_read", "index_add"):
        state.refuse(node, f"{node.rule.name} of an index with a batch axis beside slices has no batching rule")
    if node.rule.name == "list":  # a tuple of values: each part with a batch axis
        state.containers.add(node.out.name)
        parts = [state.rows(v) for v in node.inputs]
        return [Assign([node.out.name], ast.Tuple(parts, ast.Load()), node.line)]
    if any(isinstance(v, Var) and v.name in state.containers for v in node.inputs) and node.rule.name != "getitem" \
            and node.rule.batching_kind not in GATHERS:  # (an index's parts: ad/batching_gathers.py)
        state.refuse(node, f"{node.rule.name} of a tuple of batched values has no batching rule")
    query = shape_query(node, state)
    if query is not None:
        return [Assign([node.out.name], query, node.line)]
    asked = shapes_only(node, state)
    if asked is not None:  # the same for every row: no batch axis
        return [Assign([node.out.name], asked, node.line)]
    kind = node.rule.batching_kind
    for v in node.inputs:
        state.check_read(v)
    if kind is None and node.rule.nograd and kept_test(node.expr):
        kind = whole_kind(node, state)  # a comparison written in the code (``x > 0.5 * y``)
    rule = (GATHERS.get(kind) or KINDS.get(kind) or MOVES.get(kind) or CONDITIONS.get(kind)) if kind else \
        (float_math if node.rule.float_result else truth_rule(node) or each_row_rule(node, state))
    if rule is None:
        refuse_no_rule(node, state)
    try:
        expr, has_axis = rule(node, state)
    except SrcDiffError as exc:
        if exc.location is not None:
            raise
        raise SrcDiffError(exc.reason, state.location(node.line), exc.hint) from None
    if has_axis:
        state.have.add(node.out.name)
        if isinstance(node.expr, (ast.Compare, ast.BoolOp)) or kind == "whole_test" or (
                isinstance(node.expr, ast.BinOp) and isinstance(node.expr.op, (ast.BitAnd, ast.BitOr))):
            state.bools.add(node.out.name)
    return [Assign([node.out.name], expr, node.line)]


def _branch(branch: Branch, state: Batching) -> list:
    if state.batched(branch.test):
        if not state.select:
            state.refuse(branch, "an if whose test differs between examples cannot be batched with jit='numba'",
                         "write it with np.where(test, a, b)")
        return selected(branch, state, _block)
    before = set(state.have)
    body = _side(branch.body, state, before)
    after_body, state.have = state.have, set(before)
    orelse = _side(branch.orelse, state, before)
    carried_masked([v.name for m in branch.merges for v in (m.body, m.orelse) if isinstance(v, Var)], state, branch)
    after_orelse = state.have
    state.have = after_body | after_orelse
    for merge in branch.merges:
        name = merge.out.name
        for side, has in ((body, after_body), (orelse, after_orelse)):
            if name in state.have and name not in has:  # the same for every row on this side only
                if name in state.lists:
                    state.refuse(branch, "a list with a batch axis on one side of an if only cannot be batched")
                # (not `state.rows`: the name is in `have` already, for the other side's rows)
                rows = call("broadcast_rows", state.ref(merge.out), ast.Name(state.size, ast.Load()))
                side.append(Assign([name], rows, branch.line))
    return [If(operand_ast(branch.test), body, orelse, branch.line)]


def _side(block, state: Batching, before: set) -> list:
    """A side of a branch the same for every row; one that cannot be batched (a gradient's branch on a
    shape, whose other side runs) raises when run, and vmap then runs one example at a time."""
    try:
        return _block(block, state)
    except SrcDiffError as exc:
        state.have = set(before)
        return [Run(ast.Expr(call("refused_when_run", ast.Constant(str(exc)))), getattr(block, "line", None))]


def _loop(loop: Loop, state: Batching) -> list:
    """The loop, its carried values with a batch axis where the initial or the final value has one."""
    if any(state.batched(b) for b in loop.bounds) or not row_test(loop, state)[0] \
            or (loop.stop is not None and state.batched(loop.stop)):
        state.refuse(loop, "a loop whose number of iterations differs between examples cannot be batched",
                     "run a fixed number of iterations and select the results with np.where")
    entry = set(state.have)
    # lists coming in without rows (``hs = [w]``): one carried with rows must be made of rows from the start,
    # else its first items would be read as rows (silently wrong where an item is as long as the batch)
    plain_lists = {c.init.name for c in loop.carried if isinstance(c.init, Var) and c.init.name in state.lists
                   and c.init.name not in state.containers}
    carried_rows = {c.var.name for c in loop.carried if state.batched(c.init)}
    literal = literal_tuples(loop, state)  # (a tuple of numbers rebound to a tuple: a list of rows)
    state.containers |= {name for name in carried_rows if name in state.lists}
    while True:  # to a fixed point: a value batched at the end of an iteration is batched throughout
        state.have = entry | carried_rows
        body = _block(loop.body, state)
        grown = {c.var.name for c in loop.carried if state.batched(c.final)} - carried_rows
        holding = {c.var.name for c in loop.carried for v in (c.init, c.final)  # lists of row lists carried
                   if isinstance(v, Var) and v.name in state.nested} - state.nested
        state.nested |= holding
        if not grown and not holding:
            break
        carried_rows |= grown
        state.containers |= {name for name in grown if name in state.lists}  # a list carried: a row list
    carried_masked([v.name for c in loop.carried for v in (c.init, c.final) if isinstance(v, Var)], state, loop)
    for c in loop.carried:
        if c.var.name in carried_rows and isinstance(c.init, Var) and c.init.name in plain_lists:
            need_rows(state, c.init)
    # the test reads carried values too (``while np.linalg.norm(g) > tol``), batched only now we know them:
    # left unbatched, NumPy would reduce over the whole batch and every example would stop together
    same_count, test = row_test(loop, state)
    if (loop.stop is not None and state.batched(loop.stop)) or not same_count:
        state.refuse(loop, "a loop whose number of iterations differs between examples cannot be batched",
                     "run a fixed number of iterations and select the results with np.where")
    before = []
    for c in loop.carried:
        if c.var != c.init:
            init = carried_init(state, c, literal) if c.var.name in carried_rows else operand_ast(c.init)
            before.append(Assign([c.var.name], init, loop.line))
    copies = [c for c in loop.carried if c.final != c.var]
    values = [state.rows(c.final) if c.var.name in carried_rows else operand_ast(c.final) for c in copies]
    phis = {c.var for c in loop.carried}
    if len(copies) > 1 and any(c.final in phis for c in copies):
        body.append(Assign([c.var.name for c in copies], ast.Tuple(values, ast.Load()), loop.line))
    else:
        body += [Assign([c.var.name], v, loop.line) for c, v in zip(copies, values)]
    if loop.stop is not None:
        body.append(If(operand_ast(loop.stop), [Break()], [], loop.line))
    state.have |= carried_rows
    if loop.kind == "range":
        iterator = ast.Call(ast.Name("range", ast.Load()), [operand_ast(b) for b in loop.bounds], [])
        return before + [For(loop.target.name, iterator, body, loop.line)]
    return before + [While(test, body, loop.line)]


__all__ = ["BatchedProgram", "Batching", "batch"]
