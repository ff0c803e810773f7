"""Wave 33a: module-level data read by attribute or from arguments (wave33a_programs.py).

CENSUS

Found and fixed:

OPEN
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave33a_programs as w
from .test_wave31m import changed_cell

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"nt_rate_times_x", "ns_taps_tuple", "cls_coefs_loop", "nested_attribute", "fstring_range_param_passed",
        "labels_tuple_argument"}
#: refused by grad at the user's line, and so by every transformation (the docstring's open items)
REFUSED = {"dicts_appended_len"}
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"kw_acts_tuple"}
#: the changes the default run makes (one transformation each: QUICK)
CHANGES_KEPT = {"nt_rate_times_x", "ns_list_field_loop", "cls_list_numbers", "nested_attribute"}
QUICK = ("grad",)
TRANSFORMS = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "numba", "float32")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33a", "wave33a_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and check."""
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [corpus.slow_unless(False, p) for p in programs() if _name(p) in REFUSED],
                         ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "hvp"))


def _changes():
    found = {_name(p): p for p in programs()}
    return [(found[name], change) for name, change in w.CHANGES]


@pytest.mark.parametrize("pair", [corpus.slow_unless(False, pair) for pair in _changes()],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call_every_transformation(pair):
    """What a row read when its gradient was built (an attribute rebound, a frozen dataclass's field set, a
    class attribute's list changed in place, the module name rebound) changed after a first call: the new
    derivative, against central differences of the function as it is now, or a refusal at the line."""
    for name in TRANSFORMS:
        cell = changed_cell(*pair, name)
        assert cell.outcome in (matrix.OK, matrix.NA) or cell.outcome == matrix.REFUSED and cell.located, \
            (name, cell.outcome, cell.message)


@pytest.mark.parametrize("pair", [pair for pair in _changes() if _name(pair[0]) in CHANGES_KEPT],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call(pair):
    """The same through grad (the default run)."""
    for name in QUICK:
        cell = changed_cell(*pair, name)
        assert cell.outcome == matrix.OK, (name, cell.outcome, cell.message)


def test_a_namespace_changed_and_put_back_follows_each_call():
    """``HP.l2`` set, then put back: each call's gradient is of the namespace as it is at that call."""
    x = np.array([0.3, -0.4, 0.6])
    g = srcdiff.grad(w.ns_hyper)
    first = g(x)
    w.HP.l2 = 1.0
    try:
        second = g(x)
    finally:
        w.HP.l2 = 0.05
    np.testing.assert_array_equal(g(x), first)
    assert not np.allclose(first, second)


def _by_hand(p: dict, n: int) -> dict:
    """The gradient of fstring_range_param_passed: sum over i < n of (i + 1) * p[f"w{i}"] ** 2."""
    return {k: 2 * v * (int(k[1:]) + 1) if int(k[1:]) < n else 0.0 for k, v in p.items()}


def _passes_on(params, n):
    return w.fstring_range_param_passed(params, n)


@pytest.mark.parametrize("jit", [None, pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("func", [w.fstring_range_param_passed, _passes_on], ids=lambda f: f.__name__)
def test_a_count_of_keys_changed_between_calls_gets_its_own_gradient(func, jit):
    """``params[f"w{i}"] for i in range(n)``, n an int argument (given to a helper, or a NumPy integer):
    each n its own rewrite and gradient, never another n's (called with 2, 3, 1, 2 in turn)."""
    p = {"w0": 0.3, "w1": -0.5, "w2": 0.7}
    g = srcdiff.grad(func, jit=jit)
    for n in (2, 3, 1, np.int64(2)):
        got, want = g(dict(p), n), _by_hand(p, int(n))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), n


def test_labels_changed_between_calls_get_their_own_gradient():
    """``params[lab] for lab in labels``, labels a tuple (or list) of strings: each its own gradient."""
    values = {"a": 0.3, "b": -0.6, "c": 0.9}
    g = srcdiff.grad(w.labels_read_from_params)
    for labels in (("a", "c"), ("b",), ["c", "a", "b"], ("a", "c")):
        want = dict.fromkeys(values, 0.0)
        for k, lab in enumerate(labels):
            want[lab] += 2 * values[lab] * (k + 1)
        assert g(dict(values), labels) == pytest.approx(want, rel=1e-12, abs=1e-12), labels


def test_a_count_changed_in_forward_and_second_order():
    """jvp and hessian of the same, n changed between calls."""
    p = {"w0": 0.3, "w1": -0.5, "w2": 0.7}
    for n in (1, 3):
        _, tangent = srcdiff.jvp(w.fstring_range_param_passed, (dict(p), n), (dict.fromkeys(p, 1.0), None))
        assert tangent == pytest.approx(sum(_by_hand(p, n).values()), rel=1e-12)
        assert srcdiff.hessian(w.fstring_range_param_passed)(dict(p), n)["w2"]["w2"] == (6.0 if n == 3 else 0.0)


def test_a_bool_count_is_refused_at_the_line():
    """``range(True)`` is Python's, but a bool is no count srcdiff takes as a key: refused at the line."""
    line = w.fstring_range_param_passed.__code__.co_firstlineno + 1
    with pytest.raises(srcdiff.SrcDiffError, match=rf"wave33a_programs.py:{line}: "):
        srcdiff.grad(w.fstring_range_param_passed)({"w0": 0.3}, True)
