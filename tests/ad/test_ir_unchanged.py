"""The IR is immutable once lowered: every transformation reads it and builds new data.

Frozen dataclasses would say so by construction; lowering itself still builds its nodes in
place (branch merges rename them), so the guarantee is checked instead: a structural dump
of a lowered function's IR (every node's rule, operands, static arguments, expression and
line; regions, merges and carried values) is the same before and after every
transformation compiled from it."""

import ast
import dataclasses

import numpy as np
import pytest

import srcdiff
from srcdiff import driver
from srcdiff.ir import shapes


def dump(value):
    """A comparable picture of an IR value (users, which are derived, left out; a rule by
    its name: the rule table is data of its own)."""
    if isinstance(value, ast.AST):
        return ast.dump(value)
    if type(value).__name__ == "Rule":
        return ("Rule", value.name)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple((f.name, dump(getattr(value, f.name)))
                                              for f in dataclasses.fields(value) if f.name != "users")
    if isinstance(value, (list, tuple)):
        return tuple(dump(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), dump(v)) for k, v in value.items()))
    if isinstance(value, (frozenset, set)):
        return tuple(sorted(map(str, value)))
    return repr(value) if isinstance(value, (int, float, str, bool, type(None))) else type(value).__name__


def helper(a, b):
    if a > b:
        return a * b
    return a - b


def branches_loops_helpers(x, n=3):
    s = 0.0
    for i in range(n):
        if x[i] > 0.0:
            s = s + helper(x[i], 0.5) ** 2
        else:
            s = s - np.sin(x[i])
    y = x[:, None] * x[None, :]
    return s + np.sum(np.where(y > 0.1, np.log1p(y * y), y))


def while_and_lists(x):
    xs = []
    t = x
    while t < 4.0:
        t = t * 1.5 + 0.1
        xs.append(t)
    return sum(xs) + max(t, 2.0)


@pytest.mark.parametrize("f, args", [(branches_loops_helpers, (np.array([0.3, -0.8, 1.2]), 3)),
                                     (while_and_lists, (0.7,))])
def test_no_transformation_changes_the_lowered_ir(f, args):
    found = driver.lowered(f, ("x",), driver.Options(), args)
    before = dump(found.ir)
    signature = tuple(map(shapes.signature, args))
    driver.variant(found, signature)  # reverse
    forward = driver.lowered(f, ("x",), driver.Options(mode="forward"), args)
    forward_before = dump(forward.ir)
    driver.variant(forward, signature)
    tangents = tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 if isinstance(a, float) else None
                     for a in args)
    for transform in (lambda: srcdiff.grad(f)(*args), lambda: srcdiff.hessian(f)(*args),
                      lambda: srcdiff.jvp(f, args, tangents), lambda: srcdiff.vjp(f, *args)):
        try:
            transform()
        except srcdiff.SrcDiffError:  # a refusal is fine here: what it read must be unchanged
            pass
    assert dump(found.ir) == before
    assert dump(forward.ir) == forward_before


def test_the_dump_sees_a_changed_node():
    found = driver.lowered(while_and_lists, ("x",), driver.Options(), (0.7,))
    before = dump(found.ir)
    node = next(n for n in driver.lowered(while_and_lists, ("x",), driver.Options(), (0.7,)).ir.body.nodes
                if hasattr(n, "line"))
    node.line += 1
    try:
        assert dump(found.ir) != before
    finally:
        node.line -= 1
