"""Programs a user expects to work (the red team's open refusals): each works in every
transformation, against float64 central differences, or is refused at the user's line with
what to do.

Callable default arguments, dataclass parameters with a default field, rounding (zero
gradient), NaN-skipping reductions, order statistics (the selected elements; ties shared),
``try`` (refused with a hint), ``itertools.combinations`` / ``product`` over ranges, a dict of
lambdas, and ``jvp(grad(f))`` with dict parameters.
"""

import dataclasses
import itertools
import math
from itertools import combinations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

RNG = np.random.default_rng(6)
NUMBA_REFUSES: set = set()  # (filled below, by program)
SECOND_ORDER_REFUSES: set = set()
X = np.array([0.31, -1.17, 2.03, 0.72, -0.44])  # distinct values, away from rounding points
V = np.array([1.0, -0.5, 0.25, 2.0, -1.0])


def _check(how, f, args, rtol=1e-5, atol=1e-6):
    """`how` of `f` w.r.t. its first argument at `args`, against central differences."""
    x, rest = args[0], args[1:]
    expected = central_difference(f, args, 0)
    if how == "grad":
        found = srcdiff.grad(f)(*args)
    elif how == "value_and_grad":
        value, found = srcdiff.value_and_grad(f)(*args)
        np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    elif how == "vjp":
        found = srcdiff.vjp(f, *args)[1](1.0)
    elif how == "jacobian":
        found = srcdiff.jacobian(f)(*args)
    elif how == "numba":
        pytest.importorskip("numba")
        if f in NUMBA_REFUSES:  # numba lacks the NumPy function: refused at the user's line
            with pytest.raises(srcdiff.SrcDiffError, match=r"test_reach6\.py:\d+: jit='numba': numba cannot"):
                srcdiff.grad(f, jit="numba")(*args)
            return
        found = srcdiff.grad(f, jit="numba")(*args)
    elif how == "jvp":
        tangents = (_direction(x),) + tuple(
            np.zeros_like(a) if isinstance(a, np.ndarray) else None for a in rest)
        found, expected = srcdiff.jvp(f, args, tangents)[1], np.sum(expected * tangents[0])
    elif how in ("hessian", "hvp") and f in SECOND_ORDER_REFUSES:
        with pytest.raises(srcdiff.SrcDiffError, match=r"test_reach6\.py:\d+: differentiating its gradient again"):
            srcdiff.hessian(f)(*args) if how == "hessian" else srcdiff.hvp(f, x, np.ones_like(x), *rest)
        return
    elif how == "hessian":
        found, expected = srcdiff.hessian(f)(*args), hessian_difference(f, args)
        rtol, atol = 1e-4, 1e-5
    elif how == "hvp":
        v = _direction(x)
        found = srcdiff.hvp(f, x, v, *rest)
        expected = np.tensordot(hessian_difference(f, args), v, axes=np.ndim(x))
        rtol, atol = 1e-4, 1e-5
    else:
        raise AssertionError(how)
    np.testing.assert_allclose(found, expected, rtol=rtol, atol=atol)


def _direction(x):
    return np.resize(V, np.shape(x)) if np.ndim(x) else 0.75


ALL = ["grad", "value_and_grad", "vjp", "jacobian", "jvp", "hessian", "hvp", "numba"]


# ---- a parameter holding a function (a callable default) ----

def softsign(t):
    return t / (1.0 + np.abs(t))


def with_activation(x, act=np.tanh):
    return np.sum(act(x) * x)


def with_helper_default(x, act=softsign):
    return np.sum(act(x) ** 2)


def with_lambda_default(x, act=lambda t: t ** 3 - t):
    return np.sum(act(x) * np.cos(x))


def with_math_default(x, scale=2.0, act=math.exp):
    return act(scale * x) + x ** 2


def passed_on_twice(x, act=np.sin):
    h = act(x)
    return np.sum(act(h * x))


CALLABLES = [(with_activation, (X,)), (with_activation, (X, np.sin)), (with_activation, (X, softsign)),
             (with_helper_default, (X,)), (with_lambda_default, (X,)), (with_math_default, (0.3,)),
             (passed_on_twice, (X,)), (passed_on_twice, (X, np.arctan))]


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f, args", CALLABLES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CALLABLES)])
def test_a_parameter_holding_a_function(f, args, how):
    if how == "numba" and f is with_lambda_default:
        pytest.skip("a lambda default is a user function numba compiles through its adjoint (checked below)")
    _check(how, f, args)


def test_calls_with_other_functions_get_their_own_gradients():
    df = srcdiff.grad(with_activation)
    for act in (np.tanh, np.sin, softsign, np.tanh, np.arctan):  # back and forth: the fast path too
        np.testing.assert_allclose(df(X, act), central_difference(with_activation, (X, act), 0),
                                   rtol=1e-6, atol=1e-8)


def test_a_lambda_default_under_numba():
    pytest.importorskip("numba")
    try:
        found = srcdiff.grad(with_lambda_default, jit="numba")(X)
    except srcdiff.SrcDiffError as exc:  # refused: at the user's line
        assert "test_reach6.py:" in str(exc)
        return
    np.testing.assert_allclose(found, central_difference(with_lambda_default, (X,), 0), rtol=1e-6, atol=1e-8)


# ---- a dataclass parameter with a default field ----

@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float = 0.25
    scale: float = dataclasses.field(default=1.5)


def layer_loss(p, x):
    return np.sum(np.tanh(p.w * x + p.b) * p.scale)


@pytest.mark.parametrize("how", ["grad", "numba", "hessian", "jvp", "vjp"])
def test_a_dataclass_with_default_fields(how):
    p = Layer(np.array([0.5, -1.0, 2.0, 0.3, 1.1]))  # b and scale from their defaults
    flat = lambda w, b, s: layer_loss(Layer(w, b, s), X)  # noqa: E731  the reference's variables
    refs = [central_difference(flat, (p.w, p.b, p.scale), i) for i in range(3)]
    if how in ("grad", "numba"):
        pytest.importorskip("numba") if how == "numba" else None
        g = srcdiff.grad(layer_loss, jit="numba" if how == "numba" else None)(p, X)
        for got, ref in zip((g.w, g.b, g.scale), refs):
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)
    elif how == "vjp":
        g = srcdiff.vjp(layer_loss, p, X)[1](1.0)
        g = g[0] if isinstance(g, tuple) else g
        for got, ref in zip((g.w, g.b, g.scale), refs):
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)
    elif how == "jvp":
        t = Layer(np.ones(5), 0.5, -1.0)
        found = srcdiff.jvp(layer_loss, (p, X), (t, np.zeros(5)))[1]
        np.testing.assert_allclose(found, np.sum(refs[0]) + 0.5 * refs[1] - refs[2], rtol=1e-6)
    else:
        H = srcdiff.hessian(layer_loss)(p, X)
        np.testing.assert_allclose(H.w.w, hessian_difference(lambda w: flat(w, p.b, p.scale), (p.w,)),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(H.b.b, hessian_difference(lambda b: flat(p.w, b, p.scale), (p.b,)),
                                   rtol=1e-4, atol=1e-5)


# ---- rounding: zero gradient, as a piecewise-constant function ----

def rounded_weights(x):
    return np.sum(np.round(x) * x + np.floor(x) * np.sin(x) + np.rint(2.0 * x) ** 2)


def rounded_to_places(x):
    return np.sum(np.round(x, 1) * np.exp(x)) + np.sum(x.round() * x)


def truncated(x):
    return np.sum(np.trunc(x) * x ** 2 + np.fix(x) + np.around(x) * np.ceil(x))


ROUNDING = [rounded_weights, rounded_to_places, truncated]


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f", ROUNDING, ids=lambda f: f.__name__)
def test_rounding_has_zero_gradient(f, how):
    _check(how, f, (X,))


# ---- reductions that skip NaN ----

MISSING = np.array([1.0, np.nan, 0.5, np.nan, 2.0])


def nan_loss(pred, y):
    err = pred - y
    return np.nansum(err ** 2) / np.sum(~np.isnan(y)) + 0.1 * np.nanmean(np.abs(err) ** 3)


def nan_rows(x, y):
    A = np.outer(x, x) * y[:, None]
    return np.sum(np.nanmean(A, axis=0) ** 2) + np.sum(np.nansum(A, axis=1, keepdims=True) * x[:, None])


def nan_of_own_values(x):
    return np.nansum(np.log(x)) + np.nanmean(np.sqrt(x))  # NaN where x < 0: skipped, gradient 0 there


NAN_CASES = [(nan_loss, (X, MISSING)), (nan_rows, (X, MISSING)), (nan_of_own_values, (X,))]


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f, args", NAN_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_nan_skipping_reductions(f, args, how):
    with np.errstate(invalid="ignore"):
        _check(how, f, args)
        found = srcdiff.grad(f)(*args)
    assert np.all(np.isfinite(found))


# ---- order statistics: the selected elements; ties shared ----

def median_loss(x):
    return np.median(x ** 2) + np.median(np.sin(x))


def percentiles(x):
    return np.percentile(x, 30) + 2.0 * np.percentile(x * x, 75.0) - np.quantile(np.exp(x), 0.4)


def median_of_rows(x):
    A = np.reshape(x[:4], (2, 2)) * np.array([[1.0, 2.0], [-1.0, 0.5]])
    return np.sum(np.median(A, axis=1) ** 2) + np.sum(np.percentile(A, 60.0, axis=0, keepdims=True))


ORDER = [median_loss, percentiles, median_of_rows]


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f", ORDER, ids=lambda f: f.__name__)
def test_order_statistics(f, how):
    _check(how, f, (X,))


def test_tied_order_statistics_share_the_gradient():
    """At a tie the median is not differentiable: the tied elements share the selected weight
    (as ties of np.max do), a subgradient; the mean of the one-sided slopes here."""
    x = np.array([3.0, 1.0, 2.0, 2.0, 0.0])  # median 2.0, held by two elements
    np.testing.assert_allclose(srcdiff.grad(lambda x: np.median(x))(x), [0.0, 0.0, 0.5, 0.5, 0.0])
    x = np.array([1.0, 1.0, 1.0, 5.0])  # percentile 50 = between order statistics 1 and 2, both 1.0
    np.testing.assert_allclose(srcdiff.grad(lambda x: np.percentile(x, 50))(x), [1 / 3, 1 / 3, 1 / 3, 0.0])


def test_a_percentile_of_several_qs_is_the_sum_of_each():
    def both(x):
        return np.sum(np.percentile(x, [10, 90]) * np.array([1.0, 3.0]))

    def each(x):
        return np.percentile(x, 10) + 3.0 * np.percentile(x, 90)
    np.testing.assert_allclose(srcdiff.grad(both)(X), srcdiff.grad(each)(X))


def test_a_percentile_of_a_matrix_of_qs_is_refused_with_a_hint():
    with pytest.raises(srcdiff.SrcDiffError, match=r"flat sequence") as err:
        srcdiff.grad(lambda x: np.sum(np.percentile(x, [[10, 90]])))(X)
    assert "once per q" in err.value.hint


# ---- try blocks: a branch taken at run time (frontend/try_blocks.py); a `finally` is refused ----

def guarded_by_try(x):
    try:
        L = np.linalg.cholesky(np.outer(x, x) + np.eye(len(x)))
    except np.linalg.LinAlgError:
        L = np.eye(len(x))
    return np.sum(L)


def try_finally(x):
    try:
        y = np.sum(np.sin(x))
    finally:
        pass
    return y


def test_try_whose_body_runs_is_differentiated_through_the_body():
    from numeric import central_difference
    got = srcdiff.grad(guarded_by_try)(X)
    np.testing.assert_allclose(got, central_difference(guarded_by_try, (X,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("how", ["grad", "jvp", "hessian", "numba", "vjp"])
def test_try_with_finally_is_refused_at_its_line(how):
    if how == "numba":
        pytest.importorskip("numba")
    f = try_finally
    line = f.__code__.co_firstlineno + 1
    with pytest.raises(srcdiff.SrcDiffError, match=rf"test_reach6\.py:{line}: this `try` cannot be read") as err:
        {"grad": lambda: srcdiff.grad(f)(X), "jvp": lambda: srcdiff.jvp(f, (X,), (V,)),
         "hessian": lambda: srcdiff.hessian(f)(X), "numba": lambda: srcdiff.grad(f, jit="numba")(X),
         "vjp": lambda: srcdiff.vjp(f, X)}[how]()
    assert "finally" in err.value.hint


# ---- itertools.combinations / product over ranges ----

def pair_energy(pos, charges):
    energy = 0.0
    for i, j in itertools.combinations(range(len(charges)), 2):
        r = math.sqrt(sum((pos[i, k] - pos[j, k]) ** 2 for k in range(pos.shape[1])))
        energy += charges[i] * charges[j] / r + 0.1 / r ** 6
    return energy


def triples(x):
    s = 0.0
    for i, j, k in combinations(range(1, len(x)), 3):
        s = s + x[i] * x[j] * np.sin(x[k])
    return s + x[0] ** 2


def grid_product(x):
    s = 0.0
    for i, j in itertools.product(range(2), range(1, 4)):
        if j == 3:
            continue
        s = s + np.cos(x[i] * x[j])
    return s


def repeated_product(x):
    s = 0.0
    for a, b in itertools.product(range(len(x)), repeat=2):
        s = s + np.tanh(x[a] - 0.5 * x[b]) ** 2
    return s


# x.round(), np.median(A, axis=1): numba has no such calls (np.nanmean(A, axis=0) of nan_rows compiles since
# wave 33, checked against central differences like every other program)
NUMBA_REFUSES.update({rounded_to_places, median_of_rows})
# (pair_energy, sum(<generator>) in the loop, is differentiated twice now: its gradient keeps the lists)

CHARGES = np.array([1.0, -1.0, 2.0, 0.5])
POS = RNG.normal(size=(4, 3))
LOOPS = [(pair_energy, (POS, CHARGES)), (triples, (X,)), (grid_product, (X,)), (repeated_product, (X,))]


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f, args", LOOPS, ids=lambda v: getattr(v, "__name__", ""))
def test_itertools_loops_over_ranges(f, args, how):
    _check(how, f, args, rtol=1e-5, atol=1e-5)


def test_the_same_iterations_as_itertools():
    """combinations(range(a, b), r) is the nested loops' order and count (the rewrite's premise)."""
    seen = []

    def record(x):
        s = 0.0
        for i, j in itertools.combinations(range(1, 5), 2):
            s = s + x[i] * x[j] * (i * 10 + j)
        return s

    expected = np.zeros(5)
    for i, j in itertools.combinations(range(1, 5), 2):
        seen.append((i, j))
        expected[i] += X[j] * (i * 10 + j)
        expected[j] += X[i] * (i * 10 + j)
    assert len(seen) == 6
    np.testing.assert_allclose(srcdiff.grad(record)(X), expected, rtol=1e-12)


def break_in_combinations(x):
    s = 0.0
    for i, j in itertools.combinations(range(4), 2):
        if s > 1.0:
            break
        s = s + x[i] * x[j]
    return s


def combinations_of_a_list(x):
    s = 0.0
    for a, b in itertools.combinations([0, 2, 3], 2):
        s = s + x[a] * x[b]
    return s


def combinations_into_one_name(x):
    s = 0.0
    for pair in itertools.combinations(range(3), 2):
        s = s + x[pair[0]] * x[pair[1]]
    return s


@pytest.mark.parametrize("f, words", [(break_in_combinations, "`break`"),
                                      (combinations_of_a_list, "range"),
                                      (combinations_into_one_name, "unpack")],
                         ids=["break", "list", "one_name"])
def test_itertools_loops_refused_at_the_line(f, words):
    line = f.__code__.co_firstlineno + 2
    with pytest.raises(srcdiff.SrcDiffError, match=rf"test_reach6\.py:{line}: .*{words}") as err:
        srcdiff.grad(f)(X)
    assert err.value.hint


# ---- a dict of lambdas called in the function ----

def dict_of_lambdas(x):
    acts = {"square": lambda t: t ** 2, "wave": lambda t: np.sin(3.0 * t), "soft": lambda t: np.log1p(np.exp(t))}
    return np.sum(acts["square"](x) + acts["wave"](x) * acts["soft"](x))


def dict_of_lambdas_in_a_loop(x):
    acts = {"a": lambda t: np.tanh(t), "b": lambda t: t * np.exp(-t * t)}
    s = 0.0
    for name in ("a", "b", "a"):
        s = s + np.sum(acts[name](x) * x)
    return s


@pytest.mark.parametrize("how", ALL)
@pytest.mark.parametrize("f", [dict_of_lambdas, dict_of_lambdas_in_a_loop], ids=lambda f: f.__name__)
def test_a_dict_of_lambdas(f, how):
    _check(how, f, (X,))


# ---- jvp(grad(f)) with dict parameters ----

def dict_params(p):
    return np.sum(p["w"] ** 2 * np.sin(p["b"])) + p["b"] ** 3 * np.sum(np.tanh(p["w"]))


def test_jvp_of_grad_with_dict_parameters():
    p = {"w": np.array([1.0, -2.0, 0.5]), "b": 0.4}
    t = {"w": np.array([0.5, 1.0, -1.0]), "b": 0.7}
    gradient, tangent = srcdiff.jvp(srcdiff.grad(dict_params), (p,), (t,))

    def flat(z):  # the reference's variables: w then b
        return dict_params({"w": z[:3], "b": z[3]})

    z = np.concatenate([p["w"], [p["b"]]])
    g = central_difference(flat, (z,), 0)
    H = hessian_difference(flat, (z,))
    Ht = H @ np.concatenate([t["w"], [t["b"]]])
    np.testing.assert_allclose(gradient["w"], g[:3], rtol=1e-6)
    np.testing.assert_allclose(gradient["b"], g[3], rtol=1e-6)
    np.testing.assert_allclose(tangent["w"], Ht[:3], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(tangent["b"], Ht[3], rtol=1e-4, atol=1e-6)
