"""``if``/``else`` as a `Branch` region: both sides lowered, the values they differ in merged.

Each side is lowered into a block of its own, from the same `env`.  Where the sides leave
a name (or a control-flow value, state.py) with different values, a `Merge` joins them
into one new value: one side's own final value where it can be renamed, else a copy.
A conditional expression (``a if c else b``) is a branch whose sides assign one value.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from typing import Callable

from ..errors import SrcDiffError
from ..ir.nodes import Block, Branch, Carry, Const, ForwardStatement, Merge, Node, Operand, Var, operand_ast
from ..rules.structural import COPY, NOGRAD
from .complex_sides import refuse_complex_side
from .expressions import ExpressionLowerer
from .lists import new_list
from .opaque import condition
from .point_guards import guarded_sides
from .state import FLOW_DEFAULTS, LoweringState
from .static_values import StaticParameter


def lower_branch(state: LoweringState, test: Operand, lower_body: Callable[[], None],
                 lower_orelse: Callable[[], None], line: int) -> None:
    """Lower both sides of ``if test`` into blocks and merge what they assign."""
    if isinstance(test, Const):  # a literal test: only one side can run
        (lower_body if test.value else lower_orelse)()
        return
    env0, outer = dict(state.env), state.block
    sides, refusals = [], []
    for lower_side in (lower_body, lower_orelse):
        state.block, state.env, state.terminated, state.raised = Block(), dict(env0), False, False
        saved = _snapshot(state)
        try:
            lower_side()
            refuse_complex_side(state, state.block)  # a complex dtype's path: refused when taken
        except StaticParameter:
            raise  # lowering starts again, knowing the parameter's value
        except SrcDiffError as exc:
            if refusals:
                raise refusals[0] from None  # neither side can be differentiated
            refusals.append(exc)
            _restore(state, saved)  # what the side's regions would have undone on their way out
            state.block, state.env = Block(), dict(env0)
            _refuse_when_taken(state, exc, line)
        sides.append((state.block, state.env, state.terminated, state.raised))
    state.block, state.env = outer, {}
    (body, body_env, body_done, body_raised), (orelse, orelse_env, orelse_done, orelse_raised) = sides
    if body_raised or orelse_raised:  # only the side that does not raise reaches the code after
        state.env, state.terminated = dict(orelse_env if body_raised else body_env), \
            orelse_done if body_raised else body_done
        state.raised = body_raised and orelse_raised
        state.nodes.append(Branch(test, body, orelse, [], line))
        return
    merges = []
    for key in dict.fromkeys(list(body_env) + list(orelse_env)):
        b = body_env.get(key, FLOW_DEFAULTS.get(key, Const(None)))
        o = orelse_env.get(key, FLOW_DEFAULTS.get(key, Const(None)))
        # ``return r, theta`` on one side, ``return 0.0, 0.0`` (a literal: a constant) on the other
        b, o = _literal_as_list(state, b, o, body), _literal_as_list(state, o, b, orelse)
        if same(b, o):
            state.env[key] = b
            continue
        # after this, a node on each side assigns `out` (renamed, or a copy)
        out = _merged(state, key, [(b, body, body_env), (o, orelse, orelse_env)], line)
        state.sharing.join(out.name, b, o)
        _merge_lists(state, key, out, (b, o), line)
        merges.append(Merge(out, b, o))
        state.env[key] = out
    state.nodes.append(Branch(test, body, orelse, merges, line))
    state.terminated = body_done and orelse_done


def _snapshot(state: LoweringState) -> tuple:
    """The enclosing loops' records (the objects and their contents), the nested functions
    being inlined, and the local functions: what lowering a side changes on its way."""
    records = [(r, {f.name: copy.copy(getattr(r, f.name)) for f in dataclasses.fields(r)}) for r in state.loops]
    return records, set(state.inlining), dict(state.lambdas)


def _restore(state: LoweringState, saved: tuple) -> None:
    records, state.inlining, state.lambdas = saved
    state.loops[:] = [r for r, _ in records]
    for record, fields in records:
        for name, value in fields.items():
            setattr(record, name, value)


def _refuse_when_taken(state: LoweringState, error: SrcDiffError, line: int) -> None:
    """A side srcdiff cannot differentiate: the gradient raises the refusal if the function
    takes it (library code keeps paths for other dtypes and empty arrays), like a ``raise``."""
    location = error.location
    args = [error.reason, location.filename if location else state.parsed.location(line).filename,
            location.line if location else line, location.code if location else "", error.hint]
    call = ast.Call(ast.Name("refused", ast.Load()), [ast.Constant(a) for a in args], [])
    state.nodes.append(ForwardStatement(state.new_id(), NOGRAD, (), {}, Var(state.namer.temp()), ast.Constant(None),
                                        line, stmt=ast.fix_missing_locations(ast.Expr(call))))
    state.terminated = state.raised = True


def lower_ifexp(lower: ExpressionLowerer, node: ast.IfExp, target) -> Operand:
    """``a if c else b``: a branch whose sides each set one internal `env` key."""
    state = lower.state
    test = condition(lower, node.test)
    key = f"<ifexp {node.lineno}:{node.col_offset}>"
    state.temp_names[key] = target or state.namer.temp()

    def side(expr):
        def lower_side():
            value = lower.expr(expr)  # a nested conditional replaces `state.env`: store after
            state.env[key] = value
        return lower_side

    # ``1.0 if x == 0 else np.expm1(x) / x`` is the same guard as the ``if`` statement (point_guards.py)
    sides = guarded_sides(lower, node.test, side(node.body), side(node.orelse), test)
    lower_branch(state, test, *sides, state.line)
    return state.env.pop(key)


def _literal_as_list(state: LoweringState, value: Operand, other: Operand, block: Block) -> Operand:
    """`value`, or where it is a literal tuple (or list) of numbers and `other` a list, the same numbers
    made a list in `block` (its side), so that the two sides merge as lists."""
    if not (isinstance(value, Const) and isinstance(value.value, (tuple, list)) and value.value
            and all(type(v) in (int, float) for v in value.value) and state.is_list(other)):
        return value
    outer, state.block = state.block, block
    try:
        return new_list(state, [Const(v) for v in value.value], None, tuple_=isinstance(value.value, tuple))
    finally:
        state.block = outer


def _merge_lists(state: LoweringState, key: str, out: Var, values, line: int) -> None:
    """A name holding a list after both sides holds a list after the branch (one of them)."""
    lists = [v for v in values if state.is_list(v)]
    if not lists:
        return
    # a side's None: the name unbound there (a value a loop carries from None, ``t = None`` before it, too)
    if len(lists) < len(values) and not any(isinstance(v, Const) and v.value is None
                                            or isinstance(v, Var) and v.name in state.none_entering for v in values):
        other = next(v for v in values if not state.is_list(v))
        if state.sharing.owner_of(other) in state.sharing.containers:  # ``[0.0] * n``, then ``xs = [...]`` on one side
            raise state.error(line, f"{state.display(key)} is a list of numbers written in the code (``[0.0] * n``, "
                              "which srcdiff keeps whole, as one value) on one side of this branch and a list it "
                              "holds item by item on the other",
                              "build it item by item from the start: a comprehension ([0.0 for _ in range(n)])")
        raise state.error(line, f"{state.display(key)} is a list on one side of this branch and not on the other "
                          "(an array or a number)", "give it the same kind of value on both sides")
    state.lists.add(out.name)
    for facts in (state.frozen_lists, state.grown, state.nested):
        if any(v.name in facts for v in lists):
            facts.add(out.name)
    if all(v.name in state.tuples for v in lists):
        state.tuples.add(out.name)


def same(a: Operand, b: Operand) -> bool:
    """The same value (a constant of the same type: ``1`` and ``1.0`` differ)."""
    return a == b and type(getattr(a, "value", None)) is type(getattr(b, "value", None))


def _merged(state: LoweringState, key: str, sides, line: int) -> Var:
    """The value after the branch: a side's own final value, renamed on the other side."""
    out = None
    for value, block, env in sides:
        if _renamable(state, value, block, env):
            out = value
            break
    if out is None:
        out = Var(state.namer.version(state.display(key)))
    for value, block, env in sides:
        if value == out:
            continue
        if _renamable(state, value, block, env):
            _rename(block, value, out)
        else:
            block.nodes.append(Node(state.new_id(), COPY, (value,), {}, out, operand_ast(value), line))
    return out


def _renamable(state: LoweringState, value: Operand, block: Block, env: dict) -> bool:
    """Made by a node of this side and held by no other name: it may take the merged name."""
    return isinstance(value, Var) and value.name not in state.lists \
        and any(isinstance(n, Node) and n.out == value for n in block.nodes) \
        and sum(1 for v in env.values() if v == value) == 1


def _rename(block: Block, old: Var, new: Var) -> None:
    """Give the node computing `old` (directly in `block`) the name `new`, and update readers."""

    class Rename(ast.NodeTransformer):
        def visit_Name(self, name):
            return ast.Name(new.name, name.ctx) if name.id == old.name else name

    def fix(op):
        return new if op == old else op

    def walk(b: Block):
        for item in b.nodes:
            if isinstance(item, Node):
                if item.out == old:
                    item.out = new
                if old in item.inputs:
                    item.inputs = tuple(fix(v) for v in item.inputs)
                    item.expr = Rename().visit(item.expr)
                    if isinstance(item, ForwardStatement):
                        item.stmt = Rename().visit(item.stmt)
            elif isinstance(item, Branch):
                item.test = fix(item.test)
                walk(item.body)
                walk(item.orelse)
                item.merges = [Merge(m.out, fix(m.body), fix(m.orelse)) for m in item.merges]
            else:
                item.bounds = tuple(fix(v) for v in item.bounds)
                item.carried = [Carry(c.var, fix(c.init), fix(c.final)) for c in item.carried]
                item.stop = fix(item.stop) if item.stop is not None else None
                if old in item.test_inputs:
                    item.test_inputs = tuple(fix(v) for v in item.test_inputs)
                    item.test = Rename().visit(item.test)
                walk(item.body)

    walk(block)
