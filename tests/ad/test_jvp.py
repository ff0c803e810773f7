"""Forward mode: `srcdiff.jvp` against float64 central differences along the tangent, against
reverse mode, at special points, and its generated source (golden)."""

import inspect
import math
import textwrap

import numpy as np
import pytest
from numeric import assert_close
from rules import specs as rule_specs

import srcdiff
from srcdiff.rules import TABLE, default_table
from srcdiff.rules.table import LINEAR


def directional(f, primals, tangents, eps=1e-6):
    """(f(p + eps v) - f(p - eps v)) / 2 eps: J @ v by float64 central differences."""
    def moved(sign):
        return [p + sign * eps * t if t is not None else p for p, t in zip(primals, tangents)]
    return (np.asarray(f(*moved(1.0)), dtype=float) - np.asarray(f(*moved(-1.0)), dtype=float)) / (2 * eps)


def random_tangents(rng, primals):
    out = []
    for p in primals:
        if isinstance(p, np.ndarray):
            out.append(rng.normal(size=p.shape))
        elif isinstance(p, float):
            out.append(float(rng.normal()))
        else:
            out.append(None)
    return tuple(out)


def check_jvp(f, primals, rng, rtol=1e-6, atol=1e-7):
    tangents = random_tangents(rng, primals)
    value, tangent = srcdiff.jvp(f, primals, tangents)
    assert_close(value, f(*primals), rtol=1e-12, atol=1e-12)
    assert np.shape(tangent) == np.shape(value)
    assert_close(np.asarray(tangent), directional(f, primals, tangents), rtol=rtol, atol=atol)
    return tangent


# ---- every rule of the table: J @ v of the primitive's own (array) value ----

@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """Each spec of the rule table's tests, returning the expression itself (not its sum)."""
    return rule_specs.spec_module(tmp_path_factory.mktemp("jvp_specs"), weighted=False)


SPECS = rule_specs.SPECS


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.rule}:{s.expr}" for s in SPECS])
def test_rule_tangent_against_central_differences(cases, index):
    spec = SPECS[index]
    if spec.rule in REFUSED:
        with pytest.raises(srcdiff.SrcDiffError, match="has no tangent rule"):
            args, _ = rule_specs.draw_inputs(spec, index)
            srcdiff.jvp(getattr(cases, f"case_{index}"), tuple(args), tuple(args))
        return
    args, _ = rule_specs.draw_inputs(spec, index)
    f = getattr(cases, f"case_{index}")
    rng = np.random.default_rng(rule_specs.SEED + 1000 + index)
    check_jvp(f, tuple(args), rng, rtol=max(spec.tol, 1e-6), atol=max(spec.tol, 1e-7))


#: Rules of the table forward mode refuses; each entry needs a reason.
REFUSED: dict[str, str] = {}  # (the Dirichlet law's, the last, has its tangents since red team wave 25)


def tangent_kind(rule) -> str:
    if rule.nograd:
        return "no gradient"
    if rule.tangents == LINEAR:
        return "linear"
    if rule.tangents is not None:
        return "templates"
    return "derived" if rule.elementwise or rule.float_result else "refused"


def test_every_rule_has_a_tangent_or_is_listed_as_refused():
    table = default_table()
    table.load_lazy()  # SciPy's rules too
    kinds = {r.name: tangent_kind(r) for r in table}
    refused = sorted(name for name, kind in kinds.items() if kind == "refused")
    assert refused == sorted(REFUSED)
    specified = {spec.rule for spec in SPECS}
    assert not sorted(set(kinds) - specified - set(REFUSED)), "a rule without a spec"


def reversed_double(x):
    return x[::-1] * 2.0


def uses_registered(x):
    y = np.sin(x)
    return reversed_double(y)


def test_a_registered_rule_without_a_tangent_is_refused_naming_the_line(rng):
    rule = srcdiff.register_adjoint(reversed_double, x="g[::-1] * 2.0")
    try:
        with pytest.raises(srcdiff.SrcDiffError, match=r"test_jvp.py:\d+: .*reversed_double has no tangent rule"):
            srcdiff.jvp(uses_registered, (np.ones(3),), (np.ones(3),))
        srcdiff.register_adjoint(reversed_double, x="g[::-1] * 2.0", tangents={"x": "x_dot[::-1] * 2.0"},
                                 replace=True)
        check_jvp(uses_registered, (rng.normal(size=3),), rng)
    finally:
        TABLE.remove(rule.func)


def first_of(x, y):
    return x


def test_a_tangent_template_reads_its_own_tangent_only():
    with pytest.raises(srcdiff.SrcDiffError, match="unknown name 'y_dot'"):
        srcdiff.register_adjoint(first_of, x="g", y="0.0 * g", tangents={"x": "x_dot + y_dot"})
    assert TABLE.lookup(first_of) is None


def softsign(x):
    return x / (1.0 + np.abs(x))


def uses_softsign(x, y):
    return softsign(x * y) + y


def test_a_registered_elementwise_rule_derives_its_tangent(rng):
    rule = srcdiff.register_adjoint(softsign, x="g / (1.0 + np.abs(x)) ** 2", elementwise=True)
    try:
        check_jvp(uses_softsign, (rng.normal(size=(2, 3)), rng.normal(size=3)), rng)
    finally:
        TABLE.remove(rule.func)


# ---- functions: loops, branches, an MLP, reductions, broadcasting, indexing, helpers ----

def poly(x, y):
    z = x * y + x ** 3
    return z / (1.0 + y * y)


def branchy(x, y):
    if x > y:
        r = np.sin(x) * y
    elif x > 0:
        r = x ** 2
    else:
        r = 2.0  # a constant on this path: its tangent is zero
    return r * x


def looped(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.cos(x * i) * x
    return s


def while_loop(x):
    k = 0
    while k < 4:
        x = np.tanh(x) * 1.5
        k += 1
    return x


def swapping(a, b):
    for _ in range(3):
        a, b = b, a * b
    return a + 2.0 * b


def mlp(W1, b1, W2, X):
    h = np.tanh(X @ W1 + b1)
    return np.sum((h @ W2) ** 2, axis=1)


def reductions(x):
    return np.max(x, axis=0) + x.mean(axis=1).sum() + np.var(x, axis=1)[0] + np.linalg.norm(x, axis=0)


def broadcasting(x, b, s):
    return (x + b[None, :]) * s + b


def widening(s, x):
    return (s + np.ones((2, 3))) * np.sum(x) + x[:, None] * 1.0


def indexing(x):
    y = x.copy()
    y[0] = 3.0 * x[1]
    z = np.concatenate([y, x[:2] ** 2])
    return z[2:] * x[-1] + np.cumsum(x)[::-1]


def listing(x, n):
    xs = []
    for i in range(n):
        xs.append(x * i + 1.0)
    return sum(xs) * x


def stacked(x, n):
    rows = []
    for i in range(n):
        rows.append(np.sin(x) * (i + 1.0))
    return np.stack(rows) * float(np.sum(x))


def _square(v):
    return v * v + np.sin(v)


def helper_call(x):
    return _square(x) + _square(2.0 * x)


def linear_algebra(A, b):
    return np.linalg.solve(A, b) + np.linalg.inv(A) @ b * np.linalg.det(A)


def scalar_math(x):
    return math.exp(math.sin(x)) + abs(x) + max(x, 0.5) + min(x, 2.0)


FUNCTIONS = [
    (poly, lambda rng: (1.3, -0.7)),
    (branchy, lambda rng: (1.2, 0.3)),
    (branchy, lambda rng: (0.4, 0.9)),
    (branchy, lambda rng: (-0.4, 0.9)),
    (looped, lambda rng: (0.8, 4)),
    (while_loop, lambda rng: (rng.normal(size=3),)),
    (swapping, lambda rng: (1.1, 0.9)),
    (mlp, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)),
                       rng.normal(size=(5, 3)))),
    (reductions, lambda rng: (rng.normal(size=(3, 4)),)),
    (broadcasting, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4), 0.7)),
    (widening, lambda rng: (0.3, rng.normal(size=2))),
    (indexing, lambda rng: (rng.normal(size=4),)),
    (listing, lambda rng: (rng.normal(size=3), 3)),
    (stacked, lambda rng: (rng.normal(size=3), 2)),
    (helper_call, lambda rng: (rng.normal(size=3),)),
    (linear_algebra, lambda rng: (rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=3))),
    (scalar_math, lambda rng: (0.9,)),
]


@pytest.mark.parametrize("index", range(len(FUNCTIONS)), ids=[f[0].__name__ for f in FUNCTIONS])
def test_jvp_equals_central_differences(index, rng):
    f, make = FUNCTIONS[index]
    check_jvp(f, make(rng), rng)


def loss(w, X, y):
    r = np.tanh(X @ w) - y
    return np.sum(r * r) / len(y)


def scalar_loop(x):
    s = 0.0
    for i in range(3):
        if s < 1.0:
            s = s + np.sum(np.exp(x * (i + 1)))
        else:
            s = s * np.sum(x)
    return s


@pytest.mark.parametrize("f, make", [
    (loss, lambda rng: (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6))),
    (scalar_loop, lambda rng: (0.1 * rng.normal(size=4),)),
    (reductions, None),
])
def test_jvp_equals_the_gradient_dotted_with_the_tangent(f, make, rng):
    if make is None:  # a vector output: each element's gradient, one row of the Jacobian
        x, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
        _, tangent = srcdiff.jvp(f, (x,), (v,))
        rows = [np.sum(srcdiff.grad(_element)(x, k) * v) for k in range(4)]
        assert_close(tangent, np.array(rows))
        return
    primals = make(rng)
    tangents = random_tangents(rng, primals)
    _, tangent = srcdiff.jvp(f, primals, (tangents[0],) + tuple(np.zeros_like(p) for p in primals[1:]))
    assert_close(tangent, np.sum(srcdiff.grad(f)(*primals) * tangents[0]))


def _element(x, k):
    return reductions(x)[k]


def filled_int(y):
    return np.sum(np.full(3, y, dtype=int))


def test_a_fill_value_carries_its_derivative_and_an_integer_fill_is_refused():
    _, tangent = srcdiff.jvp(filled, (2.0,), (1.0,))
    assert tangent == 6.0
    assert srcdiff.grad(filled)(2.0) == 6.0
    with pytest.raises(srcdiff.SrcDiffError, match="dtype"):
        srcdiff.grad(filled_int)(2.0)


def filled(y):
    return np.sum(np.full((2, 3), y))


# ---- exact at special points ----

def powers(x):
    return x ** 0 + x ** 2 + x ** 3


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def test_powers_at_zero_are_exact():
    value, tangent = srcdiff.jvp(powers, (0.0,), (1.0,))
    assert (value, tangent) == (1.0, 0.0)
    value, tangent = srcdiff.jvp(powers, (np.zeros(3),), (np.ones(3),))
    assert_close(tangent, np.zeros(3))


def test_where_untaken_branch_is_zero_never_nan():
    with np.errstate(invalid="ignore"):
        _, tangent = srcdiff.jvp(where_sqrt, (np.array([-1.0, 4.0]),), (np.array([1.0, 1.0]),))
    assert tangent == 0.25  # d sqrt(4) = 1 / 4; the negative element contributes an exact 0


# ---- arguments ----

def test_ints_get_no_tangent_and_tangent_shapes_are_checked():
    _, tangent = srcdiff.jvp(looped, (0.8, 3), (1.0, None))
    assert isinstance(float(tangent), float)
    with pytest.raises(srcdiff.SrcDiffError, match="shape"):
        srcdiff.jvp(mlp, (np.ones((3, 4)), np.ones(4), np.ones((4, 2)), np.ones((5, 3))),
                    (np.ones((4, 3)), np.ones(4), np.ones((4, 2)), np.ones((5, 3))))
    with pytest.raises(srcdiff.SrcDiffError, match="1 primal"):
        srcdiff.jvp(poly, (1.0,), (1.0, 2.0))


def test_compiled_once_per_signature():
    jvp_poly = srcdiff.jvp_function(poly)
    srcdiff.jvp(poly, (1.0, 2.0), (1.0, 0.0))
    first = jvp_poly._last
    srcdiff.jvp(poly, (3.0, -2.0), (0.0, 1.0))
    assert jvp_poly._last is first
    srcdiff.jvp(poly, (np.ones(2), 2.0), (np.ones(2), 0.0))
    assert jvp_poly._last is not first


# ---- errors ----

def recursive(x, n):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1))


def inverse(A):
    return np.linalg.inv(A) * 2.0


def test_an_error_in_the_generated_code_names_the_user_line():
    line = first_line(inverse) + 1
    with pytest.raises(srcdiff.SrcDiffError, match=rf"test_jvp.py:{line}: LinAlgError"):
        srcdiff.jvp(inverse, (np.zeros((2, 2)),), (np.ones((2, 2)),))


def test_a_call_that_is_not_inlined_goes_through_its_own_tangent_function():
    value, tangent = srcdiff.jvp(recursive, (0.5, 3), (1.0, None))
    s1 = np.sin(0.5)
    s2 = np.sin(s1)
    assert value == pytest.approx(np.sin(s2))
    assert tangent == pytest.approx(np.cos(s2) * np.cos(s1) * np.cos(0.5))  # the chain rule, by hand


# ---- the generated source ----

def seed_example(x, y, b):
    z = x * y
    return z + b


def first_line(f) -> int:
    return inspect.getsourcelines(f)[1]


def test_seed_example_jvp_source_is_golden():
    assert srcdiff.jvp(seed_example, (2.0, 3.0, 1.0), (1.0, 0.5, 0.25)) == (7.0, 4.25)
    line = first_line(seed_example)
    assert srcdiff.jvp_function(seed_example).source == textwrap.dedent(f"""\
        def seed_example_jvp(x, y, b, x_dot, y_dot, b_dot):
            # test_jvp.py:{line + 1}  z = x * y
            z = x * y
            z_dot = x_dot * y + x * y_dot
            # test_jvp.py:{line + 2}  return z + b
            seed_example = z + b
            seed_example_dot = z_dot + b_dot
            return seed_example, seed_example_dot
        """)


def test_loop_jvp_source_is_golden():
    source = srcdiff.jvp_function(looped).source_for(0.8, 4)
    line = first_line(looped)
    assert source == textwrap.dedent(f"""\
        def looped_jvp(x, n, x_dot):
            # test_jvp.py:{line + 2}  for i in range(n):
            s = 0.0
            s_dot = 0.0
            for i in range(n):
                # test_jvp.py:{line + 3}  s = s + np.cos(x * i) * x
                t1 = x * i
                t1_dot = x_dot * i
                t2 = np.cos(t1)
                t2_dot = -t1_dot * np.sin(t1)
                t3 = t2 * x
                t3_dot = t2_dot * x + t2 * x_dot
                s_1 = s + t3
                s_1_dot = s_dot + t3_dot
                # test_jvp.py:{line + 2}  for i in range(n):
                s = s_1
                s_dot = s_1_dot
            return s, s_dot
        """)


def squares(x):
    return np.sum(x ** 2)


def scaled(x, scale=2.0):
    return x * scale


def passes_through(x):
    return x + 0.0


@pytest.mark.parametrize("primal, tangent, message", [
    (3, 1.0, "integer"),
    (np.array([3, 1]), np.array([1.0, 0.0]), "dtype int64"),
    (True, 1.0, "integer"),
    (np.array([1.0 + 1j]), np.array([1.0]), "complex"),
    ({"w": np.ones(2)}, {"w": np.ones(2)}, "parameter tree"),  # squares uses the dict whole
])
def test_a_tangent_srcdiff_cannot_follow_is_refused_not_zero(primal, tangent, message):
    with pytest.raises(srcdiff.SrcDiffError, match=message):
        srcdiff.jvp(squares, (primal,), (tangent,))


def test_an_array_of_another_library_gets_a_tangent_like_grad_gives_it_a_gradient():
    xp = pytest.importorskip("array_api_strict")
    value, tangent = srcdiff.jvp(squares, (xp.asarray([1.0, 2.0]),), (xp.asarray([1.0, 0.0]),))
    assert float(value) == 5.0 and float(tangent) == 2.0
    with pytest.raises(srcdiff.SrcDiffError, match="tangent of 'x' is a"):
        srcdiff.jvp(squares, (xp.asarray([1.0, 2.0]),), (np.array([1.0, 0.0]),))


def test_none_and_defaults_hold_an_argument_constant(rng):
    x = rng.normal(size=2)
    value, tangent = srcdiff.jvp(scaled, (x,), (np.ones(2),))  # scale: its default, held constant
    assert_close(tangent, np.full(2, 2.0))
    _, tangent = srcdiff.jvp(scaled, (x, 3.0), (np.ones(2), None))
    assert_close(tangent, np.full(2, 3.0))
    _, tangent = srcdiff.jvp(scaled, (x, 3.0), (np.zeros(2), 1.0))
    assert_close(tangent, x)


def test_the_returned_tangent_is_never_the_callers_array():
    t = np.array([1.0, 1.0])
    _, tangent = srcdiff.jvp(passes_through, (np.array([1.0, 2.0]),), (t,))
    tangent[0] = 99.0
    assert_close(t, np.array([1.0, 1.0]), rtol=0, atol=0)
