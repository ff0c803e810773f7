"""A branch whose test differs between examples, in batched code (ad/batching.py): both sides run for
every row, and each value the branch joins is each row's own side's (``branch_rows``, a `np.where` of
rows), as ``np.where(test, a, b)`` written by hand would.

That is exact only where running the side a row does not take changes nothing that row sees: the
sides may not print, assert, raise, draw random numbers or append to a list (refused: vmap then runs
one example at a time), and a value the untaken side makes for a row (a NaN, an infinity) never
reaches it, since the join takes the other side's.  A side that raises for a row that does not take
it (``np.linalg.cholesky`` of a matrix the other side guards against) raises `SelectedSideError` when
run, and vmap runs that call one example at a time (api/vmap_selects.py).  A value one side makes and
the other leaves None (a gradient's forward values, kept for its backward branch on the same test) is
kept as the side that makes it computed it for every row, where it is read only under that side.
"""

from __future__ import annotations

import ast

from ..ir.nodes import Branch, Const, ForwardStatement, Loop, Var, all_nodes
from ..ir.program import Assign
from .batching_rules import call

_NEGATED = " negated"  # (read_contexts's entry of the tests that negate another: not a name)


def read_contexts(function) -> dict[str, list[tuple]]:
    """Where each value of `function` is read: for each read, the branches around it, as a tuple of
    (test name, side) pairs (side True for the body; a test ``t3 = not t1`` named as t1 with the other
    side, as a gradient's forward sweep writes ``if not t1:``)."""
    reads: dict[str, list[tuple]] = {}
    negated = {n.out.name: n.inputs[0].name for n in all_nodes(function) if isinstance(n.expr, ast.UnaryOp)
               and isinstance(n.expr.op, ast.Not) and len(n.inputs) == 1 and isinstance(n.inputs[0], Var)}

    def read(operand, where: tuple) -> None:
        if isinstance(operand, Var):
            reads.setdefault(operand.name, []).append(where)

    def walk(block, where: tuple) -> None:
        for item in block.nodes:
            if isinstance(item, Branch):
                read(item.test, where)
                test = item.test.name if isinstance(item.test, Var) else None
                for side, sub in ((True, item.body), (False, item.orelse)):
                    walk(sub, where + (plain(test, side, negated),))
                for merge in item.merges:
                    read(merge.body, where + (plain(test, True, negated),))
                    read(merge.orelse, where + (plain(test, False, negated),))
            elif isinstance(item, Loop):
                for v in (*item.bounds, *item.test_inputs, *(c.init for c in item.carried)):
                    read(v, where)
                walk(item.body, where)
                for v in (item.stop, *(c.final for c in item.carried)):
                    read(v, where)
            else:
                for v in item.inputs:
                    read(v, where)

    walk(function.body, ())
    read(function.output, ())
    reads[_NEGATED] = negated
    return reads


def plain(test: str | None, side: bool, negated: dict) -> tuple:
    """(test, side) with a test that negates another named as that one, on the other side."""
    seen = set()
    while test in negated and test not in seen:
        seen.add(test)
        test, side = negated[test], not side
    return test, side


def _unsafe(block, state) -> None:
    """Refuses a side that does something besides computing values (running it for a row that does
    not take it would do that too)."""
    for item in block.nodes:
        if isinstance(item, Branch):
            _unsafe(item.body, state)
            _unsafe(item.orelse, state)
        elif isinstance(item, Loop):
            _unsafe(item.body, state)
        elif isinstance(item, ForwardStatement) and not _check(item.stmt):
            state.refuse(item, "an if whose test differs between examples runs a statement for its effect (a print, "
                         "an assert, a raise) on a side, which batching cannot run for every example",
                         "write the branch with np.where(test, a, b), or call the function once per example")
        elif item.rule.draws or not item.rule.pure:
            state.refuse(item, f"an if whose test differs between examples calls {item.rule.name} on a side "
                         "(it draws random numbers or changes a value), which batching cannot run for every example",
                         "write the branch with np.where(test, a, b), or call the function once per example")


def _check(stmt) -> bool:
    """Whether a statement run for its effect only raises or not (``if x.shape[0] != 3: raise ...``, an
    assert, a gradient's check that f returns a number): run for a row that does not take its side, its
    error sends the call to one example at a time (api/vmap_selects.py); it prints nothing."""
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, ast.If):
        return not stmt.orelse and all(isinstance(s, ast.Raise) for s in stmt.body)
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
        and stmt.value.func.id in ("ensure_scalar", "computed_for_errors")


def _none(operand) -> bool:
    return isinstance(operand, Const) and operand.value is None


def selected(branch: Branch, state, block) -> list:
    """The statements of `branch` (its test batched) for rows: both sides, then each joined value
    selected row by row; `block` batches a side."""
    state.check_read(branch.test)  # (a test kept whole that batching would compute over the whole batch)
    _unsafe(branch.body, state)
    _unsafe(branch.orelse, state)
    test = branch.test.name
    for merge in branch.merges:
        for side, value, other in ((True, merge.body, merge.orelse), (False, merge.orelse, merge.body)):
            if _none(other) and not _none(value) and not all(plain(test, side, state.reads.get(_NEGATED, {})) in where
                                                              for where in state.reads.get(merge.out.name, [])):
                state.refuse(branch, f"an if whose test differs between examples leaves {merge.out.name} None on "
                             "one side only, and it is read where either side may have run",
                             "give the value on both sides, or call the function once per example")
    before = set(state.have)
    body = block(branch.body, state)
    after_body, state.have = state.have, set(before)
    orelse = block(branch.orelse, state)
    after_orelse = state.have
    out, joins = list(body), []
    for merge in branch.merges:
        name = merge.out.name
        if name in state.lists or name in state.containers:
            state.refuse(branch, f"an if whose test differs between examples gives {name} a list or tuple on its "
                         "sides, which batching does not select row by row",
                         "build an array with np.stack on each side, or call the function once per example")
        if _none(merge.body):
            continue  # (the orelse's value stands)
        kept = state.fresh(f"{name}_then")
        out.append(Assign([kept], ast.Name(name, ast.Load()), branch.line))
        if _none(merge.orelse):
            joins.append(Assign([name], ast.Name(kept, ast.Load()), branch.line))
            batched = name in after_body
        else:
            joins.append(Assign([name], call("branch_rows", ast.Name(test, ast.Load()), ast.Name(kept, ast.Load()),
                                             ast.Name(name, ast.Load()), ast.Constant(name in after_body),
                                             ast.Constant(name in after_orelse)), branch.line))
            batched = True
        if batched:
            after_orelse.add(name)
    state.have = after_body | after_orelse
    return out + orelse + joins


__all__ = ["read_contexts", "selected"]
