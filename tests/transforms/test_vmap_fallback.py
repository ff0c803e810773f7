"""`srcdiff.vmap` never falls back silently: a call that cannot be batched runs one example at a time
and warns once (`srcdiff.PerExampleWarning`, at the user's line that could not be batched), or with
``per_example="allow"`` runs so quietly, or with ``per_example="refuse"`` raises `SrcDiffError` at
that line.  And the ratchet: how many of the vmap programs (vmap_programs.py) run one example at a
time, a number that may only go down."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import srcdiff

from . import vmap_programs as vp

CASES = {case.name: case for case in vp.cases()}


def ranked(w, x):
    while np.sum(x * x) > 1.0:  # a loop whose count differs between examples
        x = 0.5 * x
    return np.sum(w * x)


RANKED_LINE = ranked.__code__.co_firstlineno + 1  # the line that cannot be batched
W = np.array([0.5, -1.0, 2.0])
X = np.array([[1.0, 3.0, 2.0], [0.0, -1.0, 4.0], [2.0, 1.0, 0.5]])


def loop_truth(f):
    return np.stack([f(W, x) for x in X])


def recorded(call) -> tuple[object, list]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, srcdiff.PerExampleWarning)]


@pytest.mark.parametrize("transform", [lambda f: f, srcdiff.grad], ids=["f", "grad"])
def test_the_first_call_run_one_example_at_a_time_warns_at_the_users_line(transform):
    f = transform(ranked)
    mapped = srcdiff.vmap(f, in_axes=(None, 0))
    got, caught = recorded(lambda: mapped(W, X))
    np.testing.assert_allclose(got, loop_truth(f), rtol=1e-12, atol=1e-14)
    assert len(caught) == 1
    warning = caught[0]
    assert issubclass(warning.category, UserWarning)
    assert (warning.filename, warning.lineno) == (__file__, RANKED_LINE)
    text = str(warning.message)
    assert "one example at a time" in text and "differs between examples" in text
    assert f"test_vmap_fallback.py:{RANKED_LINE}" in text and "per_example='allow'" in text
    _, again = recorded(lambda: mapped(W, X))  # the same kind of call: warned once
    assert again == []


def test_allow_runs_one_example_at_a_time_without_a_warning():
    mapped = srcdiff.vmap(srcdiff.grad(ranked), in_axes=(None, 0), per_example="allow")
    got, caught = recorded(lambda: mapped(W, X))
    assert caught == [] and mapped.per_example is not None
    np.testing.assert_allclose(got, loop_truth(srcdiff.grad(ranked)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("transform", [lambda f: f, srcdiff.grad], ids=["f", "grad"])
def test_refuse_raises_at_the_line_that_cannot_be_batched(transform):
    mapped = srcdiff.vmap(transform(ranked), in_axes=(None, 0), per_example="refuse")
    for _ in range(2):  # nothing cached: the second call refuses too
        with pytest.raises(srcdiff.SrcDiffError, match="per_example='refuse'") as info:
            mapped(W, X)
        assert info.value.location.filename == __file__ and info.value.location.line == RANKED_LINE
        assert "per_example='allow'" in info.value.hint


def halved_twice(w, x):
    k = 0
    while k < 3:  # the same count for every example
        x = 0.9 * x
        k += 1
    if np.sum(w) > 0.0:
        x = x + w
    while np.sum(x * x) > 1.0:  # a count that differs between examples
        x = 0.5 * x
    return np.sum(w * x)


@pytest.mark.parametrize("transform", [lambda f: f, srcdiff.grad, srcdiff.value_and_grad],
                         ids=["f", "grad", "value_and_grad"])
def test_refuse_names_the_while_line_among_others(transform):
    """The gradient's forward sweep names the user's k-th while loop at its k-th (it named the def line)."""
    line = next(i for i, text in enumerate(inspect.getsource(halved_twice).splitlines())
                if "differs" in text) + halved_twice.__code__.co_firstlineno
    mapped = srcdiff.vmap(transform(halved_twice), in_axes=(None, 0), per_example="refuse")
    with pytest.raises(srcdiff.SrcDiffError, match="per_example='refuse'") as info:
        mapped(W, X)
    assert info.value.location.line == line


def test_refuse_names_the_def_line_of_a_tree_call():
    def layer(params, x):  # a tree in, a tree out: one example at a time
        return np.tanh(params[0] @ x + params[1]), np.sum(x)

    Ws, b = np.ones((3, 3, 3)), np.ones(3)
    with pytest.raises(srcdiff.SrcDiffError, match="a tree argument") as info:
        srcdiff.vmap(layer, in_axes=((0, None), 0), per_example="refuse")((Ws, b), X)
    assert info.value.location.line == layer.__code__.co_firstlineno
    got, caught = recorded(lambda: srcdiff.vmap(layer, in_axes=((0, None), 0))((Ws, b), X))
    assert len(caught) == 1 and caught[0].lineno == layer.__code__.co_firstlineno
    np.testing.assert_allclose(got[0], [layer((Ws[i], b), X[i])[0] for i in range(3)], rtol=1e-12)


def test_a_batched_call_does_not_warn():
    mapped = srcdiff.vmap(srcdiff.grad(vp.mlp), in_axes=(None, None, 0), per_example="refuse")
    case = CASES["mlp"]
    _, caught = recorded(lambda: mapped(*case.args))
    assert caught == [] and mapped.per_example is None


def test_a_call_that_raises_one_example_at_a_time_does_not_warn():
    def branch_then_nan(x):
        if x[0] > 0:
            return np.sum(x)
        raise ValueError("no")

    with warnings.catch_warnings():
        warnings.simplefilter("error", srcdiff.PerExampleWarning)
        with pytest.raises(ValueError, match="no"):
            srcdiff.vmap(branch_then_nan)(np.array([[1.0, 2.0], [-1.0, 0.0]]))


@pytest.mark.parametrize("value", ["ignore", None, True, "Warn"])
def test_per_example_takes_three_values(value):
    with pytest.raises(srcdiff.SrcDiffError, match="'warn', 'allow', 'refuse'"):
        srcdiff.vmap(ranked, per_example=value)


def test_the_warning_is_public():
    assert "PerExampleWarning" in srcdiff.__all__ and issubclass(srcdiff.PerExampleWarning, UserWarning)


# ---- the ratchet: how many vmap programs run one example at a time (may only go down) ----

#: (program, "f" or "grad") still run one example at a time; a program batched since is taken off
PER_EXAMPLE: set = set()
#: the bound, lowered as programs are batched: before wave 27's batching rules 13 of the 102 programs then in the
#: corpus (51 functions and their gradients); after it 5 of 106; since wave 28 (the gradient of a max along an
#: axis, lists of lists in a gradient's loops, det, eigh and gathers beside slices added to the corpus) none of 114
BEFORE = 0


@pytest.mark.slow
def test_the_vmap_programs_run_one_example_at_a_time_no_more_often_than_pinned():
    fallen = set()
    for case in CASES.values():
        for kind, f in (("f", case.func), ("grad", srcdiff.grad(case.func, wrt=case.wrt))):
            mapped = srcdiff.vmap(f, in_axes=case.in_axes, per_example="allow")
            mapped(*case.args)
            if mapped.per_example is not None:
                fallen.add((case.name, kind))
    natively = 2 * len(CASES) - len(fallen)
    assert fallen <= PER_EXAMPLE, f"newly run one example at a time: {sorted(fallen - PER_EXAMPLE)}"
    assert fallen == PER_EXAMPLE, f"batched now, take them off PER_EXAMPLE: {sorted(PER_EXAMPLE - fallen)}"
    assert len(PER_EXAMPLE) <= BEFORE and natively == 2 * len(CASES) - len(PER_EXAMPLE)
