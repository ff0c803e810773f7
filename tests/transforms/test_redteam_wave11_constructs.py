"""What the red team's eleventh wave found and fixed in Python constructs (test_redteam_wave11_findings.py
holds the rest): a tuple of calls as a statement, a configuration string's methods, ``yield from``.
Each a class with variants, through every transformation; references are float64 central differences
(the matrix's own, through `matrix.run`)."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from .corpus import Program
from .matrix import FIRST_ORDER, assert_every_transformation, assert_numba_agrees_or_refuses, assert_ok

HERE = "test_redteam_wave11_constructs.py"
R = np.random.default_rng(111)


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w11_constructs:{f.__name__}", f, args, wrt, HERE)


# ---- 5. a tuple of calls as a statement was refused: ``ms.append(m), Ps.append(P)`` -------------------
# One line keeping a filter's history in several lists was refused as "computed and thrown away".
# FIXED: lower/assignments.py lowers a tuple of calls as the calls in order (its value is thrown away);
# a call among them that changes a value in place, or an item that is not a call, is refused as before.


def filter_history(log_q, ys, a=0.9, r=0.5):
    q = np.exp(log_q)
    ms, Ps = [], []
    m, P = 0.0, 1.0
    for y in ys:
        P = a * a * P + q
        K = P / (P + r)
        m, P = m + K * (y - m), (1 - K) * P
        ms.append(m), Ps.append(P)
    return sum(mi * mi for mi in ms) + sum(Ps)


def appends_at_top(x):
    xs, ys = [], []
    xs.append(np.sin(x)), ys.append(x * x), xs.append(np.cos(x))
    return xs[0] * ys[0] + xs[1]


def appends_of_arrays(W, X):
    hs, zs = [], []
    h = X
    for k in range(W.shape[0]):
        z = h @ W[k]
        h = np.tanh(z)
        zs.append(z), hs.append(h)
    return np.sum(np.stack(hs) ** 2) + np.sum(zs[-1])


APPENDS = [(filter_history, (-1.0, R.normal(size=5))), (appends_at_top, (0.7,)),
           (appends_of_arrays, (0.5 * R.normal(size=(2, 3, 3)), R.normal(size=(4, 3))))]


@pytest.mark.parametrize("f, args", APPENDS, ids=lambda v: getattr(v, "__name__", ""))
def test_a_tuple_of_appends_as_a_statement(f, args):
    assert_ok(_program(f, *args), FIRST_ORDER)


@pytest.mark.parametrize("f, args", APPENDS[:1], ids=lambda v: getattr(v, "__name__", ""))
def test_a_tuple_of_appends_as_a_statement_hessian(f, args):
    assert_every_transformation(_program(f, *args))


def a_sort_among_appends(x):
    xs, ys = [], [0.5, 0.1]
    xs.append(x * x), ys.sort()
    return xs[0] * ys[0]


def a_value_among_calls(x):
    xs = []
    xs.append(x * x), x + 1.0
    return xs[0]


@pytest.mark.parametrize("f, what", [(a_sort_among_appends, "in.place"), (a_value_among_calls, "thrown away")],
                         ids=["sort", "value"])
def test_a_tuple_of_calls_with_a_change_in_place_is_still_refused(f, what):
    with pytest.raises(srcdiff.SrcDiffError, match=what) as info:
        srcdiff.grad(f)(0.7)
    assert HERE in str(info.value)


def test_a_tuple_of_appends_numba_agrees_or_refuses():
    assert_numba_agrees_or_refuses(_program(filter_history, -1.0, R.normal(size=5)))


# ---- 6. a configuration string's methods were refused: ``kind = config.lower().strip()`` --------------
# ``config.startswith("hub")`` in an ``if`` was taken (a branch decided when the gradient runs), but the
# same string method in an assignment was refused as a method "with no adjoint rule".  FIXED:
# lower/rule_calls.py reads the methods of `str` no NumPy array has (lower, upper, strip, replace,
# startswith, endswith, ...) as text with no gradient, as ``str(x)`` and f-strings are.


def config_loss(w, X, y, config="Huber"):
    res = X @ w - y
    kind = config.lower().strip()
    if kind.startswith("hub"):
        loss = np.where(np.abs(res) < 1.0, 0.5 * res ** 2, np.abs(res) - 0.5)
    elif kind in ("l2", "mse"):
        loss = res ** 2
    else:
        raise ValueError(f"unknown loss {config!r}")
    return np.mean(loss)


def suffix_config(w, act="Tanh_layer"):
    name = act.removesuffix("_layer").casefold()
    h = np.tanh(w) if name == "tanh" else np.sin(w)
    return np.sum(h ** 2) if act.endswith("layer") else np.sum(h)


def replaced_in_loop(w, names=("l2-penalty", "l1-penalty")):
    total = np.sum(np.cos(w))
    for n in names:
        key = n.replace("-penalty", "").upper()
        total = total + (np.sum(w ** 2) if key == "L2" else 0.1 * np.sum(np.sqrt(w ** 2 + 1e-3)))
    return total


TEXT = [(config_loss, (R.normal(size=3), R.normal(size=(6, 3)), R.normal(size=6))),
        (config_loss, (R.normal(size=3), R.normal(size=(6, 3)), R.normal(size=6), " MSE ")),
        (suffix_config, (R.normal(size=4),)), (suffix_config, (R.normal(size=4), "SIN")),
        (replaced_in_loop, (R.normal(size=4),))]


@pytest.mark.parametrize("f, args", TEXT, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(TEXT)])
def test_string_methods_of_a_configuration(f, args):
    assert_ok(_program(f, *args), FIRST_ORDER)


def test_string_methods_of_a_configuration_hessian_and_numba():
    assert_every_transformation(_program(config_loss, *TEXT[0][1]))
    assert_numba_agrees_or_refuses(_program(suffix_config, *TEXT[2][1]))


def test_an_unknown_configuration_still_raises_the_users_error():
    with pytest.raises(ValueError, match="unknown loss"):
        srcdiff.grad(config_loss)(*TEXT[0][1], "cauchy")


# ---- 7. a generator using ``yield from`` was refused ---------------------------------------------------
# ``def _all_terms(W, x): yield from _layers(W, x); yield x * x`` was refused (generators are read as the
# list they yield, and ``yield from`` had no list to stand for).  FIXED: frontend/generators.py reads
# ``yield from xs`` as ``for item in xs: items.append(item)``; ``y = yield from g`` is still refused.


def _rows_of(W, x):
    for row in W:
        x = np.tanh(row * x)
        yield x


def _every_term(W, x):
    yield from _rows_of(W, x)
    yield x * x


def delegating_generator(W, x):
    return sum(np.sum(h) for h in _every_term(W, x))


def _from_a_list(x):
    yield from [np.sin(x), np.cos(x)]
    for k in range(2):
        yield from _rows_of(np.ones((1, x.shape[0])) * (k + 1), x)


def yield_from_list_and_loop(x):
    return sum(np.sum(v ** 2) for v in _from_a_list(x))


def _twice(x):
    yield from _every_term(np.eye(2)[:1] + 0.5, x)
    yield from _every_term(np.eye(2)[1:] - 0.5, x)


def nested_delegation(x):
    total = 0.0
    for v in _twice(x):
        total = total + np.sum(v * x)
    return total


YIELD_FROM = [(delegating_generator, (R.normal(size=(3, 4)), R.normal(size=4))),
              (yield_from_list_and_loop, (R.normal(size=3),)), (nested_delegation, (R.normal(size=2),))]


@pytest.mark.parametrize("f, args", YIELD_FROM, ids=lambda v: getattr(v, "__name__", ""))
def test_a_generator_using_yield_from(f, args):
    assert_ok(_program(f, *args), FIRST_ORDER)


def test_a_generator_using_yield_from_hessian():
    assert_every_transformation(_program(delegating_generator, *YIELD_FROM[0][1]))


def _result_of_delegation(x):
    got = yield from _rows_of(np.ones((1, 2)), x)
    yield got


def yield_from_as_a_value(x):
    return sum(np.sum(v) for v in _result_of_delegation(x))


def test_yield_from_used_as_a_value_is_still_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError, match="`yield from` used as a value") as info:
        srcdiff.grad(yield_from_as_a_value)(np.array([0.5, 1.5]))
    assert HERE in str(info.value)
