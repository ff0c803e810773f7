"""What the red team's eleventh wave found and fixed, each a class with variants of its own, through
every transformation.  References are float64 central differences of the function (the matrix's
own through `matrix.run`, tests/numeric.py for values written out here)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.special
import scipy.stats
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses, not_ok, run

HERE = "test_redteam_wave11_findings.py"


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w11_findings:{f.__name__}", f, args, wrt, HERE)


# ---- 1. zip(xs, itertools.count(k)) crashed the generated code, and check called it a MISMATCH --------
# ``sum(p * w for p, w in zip(partial, itertools.count(1)))``: the count was kept as an opaque value and
# the loop over the zip asked for ``len(count)``: a TypeError inside the gradient (reported at the
# user's line, as if the code were wrong), which `srcdiff.check` took for an error of the gradient and
# reported as "MISMATCH" on a function whose gradient was never computed.  FIXED: lower/loops.py reads
# ``itertools.count(start, step)`` inside a zip as the finite list zip takes of it,
# ``[start + step * n for n in range(len(xs))]``; a zip of counts only is refused at its line.


def count_weights(x):
    return sum(p * w for p, w in zip(x * x, itertools.count(1)))


def accumulated_count(x):
    partial = list(itertools.accumulate(x * x))
    return sum(p * w for p, w in zip(partial, itertools.count(1)))


def float_count_loop(x):
    total = 0.0
    for xi, t in zip(x, itertools.count(0.5, 0.25)):
        total = total + math.sin(t) * xi ** 2
    return total


def keyword_count_first(x):
    return sum(a * k for k, a in zip(itertools.count(start=2, step=3), np.tanh(x)))


def count_with_n_outside(x):
    n = 3.0  # the list zip reads of the count names its index n: the user's n is another
    total = sum(a * k for a, k in zip(x, itertools.count()))
    return total * n + n


COUNTED = [count_weights, accumulated_count, float_count_loop, keyword_count_first, count_with_n_outside]
X4 = np.array([0.3, -1.2, 0.8, 0.5])


def test_zip_with_itertools_count_in_float32_and_numba():
    x = X4.astype(np.float32)
    got = srcdiff.grad(count_weights)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2 * x * np.arange(1, 5), rtol=1e-6)
    assert_numba_agrees_or_refuses(_program(float_count_loop, X4))


def count_only(x):
    total = 0.0
    for a, b in zip(itertools.count(), itertools.count(1)):
        total = total + x * a * b
        if a > 2:
            break
    return total


def test_a_zip_of_counts_only_is_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError, match="never ends") as info:
        srcdiff.grad(count_only)(0.5)
    assert HERE in str(info.value)


def test_gradcheck_no_longer_reports_a_mismatch_for_a_counted_zip():
    report = srcdiff.gradcheck(accumulated_count, X4)
    assert report, str(report)


@pytest.mark.slow
def test_check_no_longer_reports_a_mismatch_for_a_counted_zip():
    report = srcdiff.check(accumulated_count, X4, timeout=2.0, progress=False)
    assert report, str(report)


# ---- 2. arithmetic on a static parameter was refused: ``np.partition(sq, keep - 1)`` ------------------
# A parameter used as a static argument (``axis=axis``, ``kth=keep``) is specialised on its value, but
# ``keep - 1``, ``2 * k + 1`` or ``(n_seg + 1, 2)`` were refused as "must be a constant here".  FIXED:
# lower/static_values.py evaluates arithmetic on numbers and static parameters, each asked for as a
# bare one is (a new value of the parameter builds the gradient again).


def trimmed(w, X, y, keep=5):
    sq = (X @ w - y) ** 2
    return np.sum(np.partition(sq, keep - 1)[:keep])


def rolled(x, k=2):
    return np.sum(np.roll(x, 2 * k - 1) * x)


def reshaped_segments(z, n_seg=3):
    states = z.reshape(n_seg + 1, 2)
    return np.sum(np.diff(states, axis=0) ** 2) + np.sum(np.sin(states[0]))


def summed_axis_loop(X, lag=1):
    total = 0.0
    for _ in range(2):
        total = total + np.sum(X[:, lag + 1:] * X[:, :-(lag + 1)])
    return total


R = np.random.default_rng(11)
STATIC = [(trimmed, (R.normal(size=3), R.normal(size=(8, 3)), R.normal(size=8))),
          (rolled, (R.normal(size=5),)), (reshaped_segments, (R.normal(size=8),)),
          (summed_axis_loop, (R.normal(size=(3, 5)),))]


def test_arithmetic_of_a_static_parameter_takes_each_value():
    w, X, y = STATIC[0][1]
    gradient = srcdiff.grad(trimmed)
    for keep in (2, 5, 8):
        want = central_difference(lambda w_, k=keep: trimmed(w_, X, y, k), (w,), 0)
        np.testing.assert_allclose(gradient(w, X, y, keep=keep), want, rtol=1e-6, atol=1e-9)
    x = STATIC[1][1][0]
    for k in (0, 1, 3):
        np.testing.assert_allclose(srcdiff.grad(rolled)(x, k), central_difference(lambda v, k=k: rolled(v, k), (x,), 0),
                                   rtol=1e-6, atol=1e-9)


# ---- 3. rules: math.lgamma, math.gamma, math.copysign, scipy.special.erfcx ---------------------------


def math_special(t):
    a, b = t
    return math.lgamma(a) * b + math.gamma(b) + math.copysign(a * a, b - 0.5) + math.copysign(b, -1.0)


def lgamma_negative(a):
    return math.lgamma(a) + math.gamma(a) ** 2


def copysign_in_loop(x):
    total = 0.0
    for k in range(3):
        total = total + math.copysign(x - k, x + 0.5) * k
    return total


def erfcx_mills(x):
    return np.sum(np.log(scipy.special.erfcx(x)) - x ** 2)


def erfcx_tail(x):
    return np.sum(scipy.special.erfcx(3.0 * x) * x)


RULED = [(math_special, ((1.7, 0.4),)), (math_special, ((2.5, 0.9),)), (lgamma_negative, (-1.7,)),
         (copysign_in_loop, (0.8,)), (erfcx_mills, (np.array([-1.0, 0.3, 2.0, 8.0]),)),
         (erfcx_tail, (np.array([0.5, 4.0, 12.0]),))]


# ---- every class's variants through every transformation: one table ---------------------------------
# The first-order transformations run on every row; the Hessian with the rest (EVERY) is a sampled
# family (tests/sampling.py: one row in six by default, every row with ``-m slow``).

TABLE = ([(f, (X4,)) for f in COUNTED] + STATIC + RULED)
IDS = [f"{f.__name__}-{k}" for k, (f, _) in enumerate(TABLE)]


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave11_findings_first_order(f, args):
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp"))
    assert not row.excluded, row.excluded
    assert not not_ok(row), not_ok(row)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave11_findings_hessian_and_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


def test_erfcx_where_erfc_underflows():
    x = np.array([30.0, 100.0])
    want = 2 * x * scipy.special.erfcx(x) - 2 / np.sqrt(np.pi)
    np.testing.assert_allclose(srcdiff.grad(lambda_free_erfcx)(x), want, rtol=1e-10)
    assert np.all(np.isfinite(srcdiff.hessian(lambda_free_erfcx)(x)))


def lambda_free_erfcx(x):
    return np.sum(scipy.special.erfcx(x))


def test_copysign_at_zero_follows_abs():
    # |x| with a sign: abs's convention 0 at x = 0 (docs/guarantees.md), never NaN
    assert srcdiff.grad(copysign_zero)(0.0) == 0.0
    assert srcdiff.grad(copysign_zero)(0.5) == -1.0
    assert srcdiff.grad(copysign_zero)(-0.5) == 1.0


def copysign_zero(x):
    return math.copysign(x, -2.0)


# ---- 4. scipy.stats.multivariate_normal had no tangent: jvp refused what grad took -------------------
# ``-np.sum(multivariate_normal.logpdf(X, mean=mu, cov=cov))`` was differentiated by grad, vjp and hessian
# but refused by jvp ("has no tangent rule").  FIXED: rules/scipy_stats.py gives logpdf and pdf the
# transposes of their adjoints, ``-sum(Sigma^-1 (x - mean) * (x_dot - mean_dot), axis=-1)``.


def mvn_rows(mu, X):
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])
    return -np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


def mvn_diagonal_pdf(x, mu):
    return (scipy.stats.multivariate_normal.pdf(x, mu, np.array([0.5, 2.0]))
            + scipy.stats.multivariate_normal.logpdf(x, mu, 0.7))


def mvn_in_loop(mu, X):
    total = 0.0
    for scale in (0.5, 1.5):
        total = total + np.sum(scipy.stats.multivariate_normal.logpdf(X * scale, mu, np.eye(2) * scale))
    return total


MVN = [(mvn_rows, (R.normal(size=2), R.normal(size=(5, 2))), 0),
       (mvn_rows, (R.normal(size=2), R.normal(size=(5, 2))), 1),
       (mvn_diagonal_pdf, (R.normal(size=2), R.normal(size=2)), 0),
       (mvn_diagonal_pdf, (R.normal(size=2), R.normal(size=2)), 1),
       (mvn_in_loop, (R.normal(size=2), R.normal(size=(3, 2))), 0)]


@pytest.mark.parametrize("f, args, wrt", MVN, ids=[f"{f.__name__}-{w}" for f, _, w in MVN])
def test_multivariate_normal_in_forward_mode(f, args, wrt):
    row = run(_program(f, *args, wrt=wrt), ("jvp", "hessian"))
    assert not row.excluded and not not_ok(row), (row.excluded, not_ok(row))


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
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp", "tree"))
    assert not row.excluded and not not_ok(row), (row.excluded, not_ok(row))


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


@pytest.mark.parametrize("f, what", [(a_sort_among_appends, "in place"), (a_value_among_calls, "thrown away")],
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
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp", "tree"))
    assert not row.excluded and not not_ok(row), (row.excluded, not_ok(row))


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
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp", "tree"))
    assert not row.excluded and not not_ok(row), (row.excluded, not_ok(row))


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
