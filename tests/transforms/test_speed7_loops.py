"""A number times a power of one value gets its derivative as one expression (ad/powers.py);
a loop of numbers computes a few saved numbers again instead of saving a tuple per step
(ad/invariants.py `numbers_recomputed`); a common factor's sign is taken out of a sum
(optimize/factor.py).  Gradients unchanged: float64 central differences, hand-written
gradients, and second derivatives against second differences.

None of these programs is in the benchmark set: RK4 with other right-hand sides, leapfrog
and Euler integrators with helpers, loops with a branch on every step."""

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

# ---- products of one value with itself -------------------------------------------------


def force(x, k):
    return -k * x - 0.1 * x * x * x


def leapfrog(x0, v0, k, dt, steps):
    x, v = x0, v0
    for _ in range(steps):
        v = v + 0.5 * dt * force(x, k)
        x = x + dt * v
        v = v + 0.5 * dt * force(x, k)
    return np.sum(x * x) + np.sum(v * v)


def growth(y, r):
    return r * y * (1.0 - y / 2.0) - 0.25 * y * y


def rk4_growth(y0, r, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = growth(y, r)
        k2 = growth(y + 0.5 * dt * k1, r)
        k3 = growth(y + 0.5 * dt * k2, r)
        k4 = growth(y + dt * k3, r)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def powers_in_every_order(x, a):
    p = x * 0.3 * x                  # the constant in the middle
    q = x * x * x * x                # no constant, degree 4
    r = 2.0 * (a * x) * x            # a second value: not a power of one value
    s = (0.5 * x) * (x * 3.0)        # two inner products
    return np.sum(p + q + r + s)


def shared_inner(x):
    t = 0.5 * x                      # read twice: stays rule by rule
    return np.sum(t * x + t)


def scalar_powers(x, n):
    s = x
    for _ in range(n):
        s = s - 0.05 * s * s * s + 0.01 * math.sin(s)
    return s


def masked_power(x):
    y = 0.5 * x * x
    return np.sum(np.where(x > 0.2, y, 0.0))


def power_under_sqrt(x):
    return np.sum(np.sqrt(0.5 * x * x))


def power_in_branch(x, c):
    if c > 0.0:
        y = 0.5 * x * x
    elif c > -1.0:
        y = x * x * x
    else:
        y = x
    return np.sum(y)


VEC = np.linspace(-0.9, 1.1, 5)
POWER_CASES = [
    (leapfrog, (VEC, VEC[::-1] * 0.5, np.linspace(0.5, 1.5, 5), 0.05, 6), (0, 1, 2)),
    (leapfrog, (VEC, VEC * 0.5, np.linspace(0.5, 1.5, 5), 0.05, 0), (0, 1, 2)),
    (rk4_growth, (np.linspace(0.1, 1.0, 4), np.linspace(0.5, 1.5, 4), 0.1, 3), (0, 1)),
    (rk4_growth, (0.4, 0.9, 0.1, 5), (0, 1)),
    (powers_in_every_order, (VEC, VEC + 0.3), (0, 1)),
    (powers_in_every_order, (0.7, 0.2), (0, 1)),
    (shared_inner, (VEC,), (0,)),
    (scalar_powers, (0.8, 30), (0,)),
    (masked_power, (VEC,), (0,)),
    (power_under_sqrt, (VEC,), (0,)),
    (power_in_branch, (VEC, 1.0), (0,)),
    (power_in_branch, (VEC, -0.5), (0,)),
    (power_in_branch, (VEC, -2.0), (0,)),
]


@pytest.mark.parametrize("f, args, wrt", POWER_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_powers_against_central_differences(f, args, wrt, check_gradient):
    expected = tuple(central_difference(f, args, i) for i in wrt)
    got = check_gradient(f, args, wrt=wrt)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def code(source):
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def test_a_power_has_one_contribution_and_no_inner_adjoint():
    source = srcdiff.grad(leapfrog, wrt=(0, 1, 2)).source_for(VEC, VEC, VEC + 1.0, 0.05, 4)
    backward = code(source.split("# backward")[1])
    assert "0.30000000000000004 *" in backward, source   # 3 * 0.1, once
    assert "0.1 * x" not in backward, source              # the inner product is neither read nor kept
    source = srcdiff.grad(rk4_growth, wrt=(0, 1)).source_for(VEC, VEC, 0.1, 3)
    assert "0.25 *" not in code(source.split("# backward")[1]) and "0.5 * y" not in code(source), source


def test_the_masked_and_the_singular_stay_rule_by_rule():
    # below np.where and under a square root the product keeps its rule's selects
    for f in (masked_power, power_under_sqrt):
        x = np.array([0.0, 0.1, 0.5, -0.7])
        got = srcdiff.grad(f)(x)
        assert np.all(np.isfinite(got)), got
    np.testing.assert_array_equal(srcdiff.grad(masked_power)(np.array([0.0, 0.1, 0.5])), [0.0, 0.0, 0.5])


def test_the_hessian_of_a_power_chain():
    def f(x):
        return 0.1 * x * x * x + x * x * 0.25
    h = srcdiff.hessian(f)(0.7)
    assert h == pytest.approx(0.6 * 0.7 + 0.5, rel=1e-12)


# ---- loops of numbers: a branch on every step ---------------------------------------


def branchy(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        if s > 0.5:
            s = 0.8 * s + a * math.sin(s)
        else:
            s = 1.1 * s + a * math.cos(s)
        total = total + s * s
    return total


def branchy_by_hand(x, a, n):
    states = []
    s = x
    for _ in range(n):
        states.append(s)
        if s > 0.5:
            s = 0.8 * s + a * math.sin(s)
        else:
            s = 1.1 * s + a * math.cos(s)
    s_bar = a_bar = 0.0
    for sp in reversed(states):
        s_bar += 2.0 * s
        if sp > 0.5:
            a_bar += s_bar * math.sin(sp)
            s_bar *= 0.8 + a * math.cos(sp)
        else:
            a_bar += s_bar * math.cos(sp)
            s_bar *= 1.1 - a * math.sin(sp)
        s = sp
    return s_bar, a_bar


def guarded_log(x, a, n):            # the log runs only where the test holds: never before it
    s = x
    for _ in range(n):
        if s > 0.0:
            s = 0.5 * s + a * math.log(s + 1.0)
        else:
            s = 0.9 * s + a
    return s * s


def elif_steps(x, a, n):
    s = x
    acc = 0.0
    for _ in range(n):
        if s > 1.0:
            s = 0.5 * s + a
        elif s > 0.0:
            s = s + a * math.exp(-s)
        else:
            s = -0.5 * s + a * a
        acc = acc + s
    return acc


def while_two_tests(x, a):
    s = x
    k = 0
    while k < 30 and s < 5.0:
        if s * a > 0.2 and s < 3.0:
            s = s + a * math.tanh(s)
        else:
            s = s + 0.1 * a
        k += 1
    return s


def two_states(x, a, n):            # two carried values: a tuple either way
    u, v = x, 0.0
    for _ in range(n):
        if u > 0.3:
            u, v = u - 0.1 * v, v + a * math.sin(u)
        else:
            u, v = u + 0.1 * v, v - a * u
    return u * u + v


def in_inner_loop(x, a, n):
    s = x
    for i in range(n):
        for _ in range(3):
            if s > 0.4:
                s = 0.9 * s + a * math.sin(s + i)
            else:
                s = s + 0.1 * a
    return s


def while_exp(x, a):                 # the saved values are computed from s, saved instead
    s = x
    k = 0
    acc = 0.0
    while k < 60:
        if s < 1.0:
            s = s + a * math.exp(-s)
        else:
            s = 0.5 * s
        acc += s
        k += 1
    return acc


LOOP_CASES = [
    (while_exp, (0.2, 0.3), (0, 1)),
    (while_exp, (1.7, 0.4), (0, 1)),
    (branchy, (0.45, 0.3, 60), (0, 1)),
    (branchy, (0.9, -0.2, 1), (0, 1)),
    (branchy, (0.9, -0.2, 0), (0, 1)),
    (guarded_log, (0.4, -0.3, 40), (0, 1)),
    (guarded_log, (-0.4, 0.2, 25), (0, 1)),
    (elif_steps, (1.5, 0.35, 40), (0, 1)),
    (elif_steps, (-0.5, -0.2, 40), (0, 1)),
    (while_two_tests, (0.5, 0.7), (0, 1)),
    (while_two_tests, (0.1, 0.3), (0, 1)),
    (two_states, (0.6, 0.4, 30), (0, 1)),
    (in_inner_loop, (0.33, 0.5, 6), (0, 1)),
    (in_inner_loop, (0.62, -0.5, 4), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", LOOP_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_loops_of_numbers_against_central_differences(f, args, wrt, check_gradient):
    expected = tuple(central_difference(f, args, i) for i in wrt)
    got = check_gradient(f, args, wrt=wrt)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n", [0, 1, 2, 100])
def test_branchy_equals_hand_written(n):
    got = srcdiff.grad(branchy, wrt=(0, 1))(0.45, 0.3, n)
    np.testing.assert_allclose(got, branchy_by_hand(0.45, 0.3, n), rtol=1e-12, atol=1e-14)


def test_a_branch_on_every_step_saves_one_number():
    source = srcdiff.grad(branchy, wrt=(0, 1)).source_for(0.45, 0.3, 10)
    assert "stack.append(s)" in source, source
    assert code(source).count("if s > 0.5:") == 2, source          # the test computed again, not saved
    backward = source.split("# backward")[1]
    assert "math.sin(s)" in backward.split("else:")[0], source   # on its own side only


def test_a_guarded_call_is_computed_again_only_on_its_side():
    source = srcdiff.grad(guarded_log, wrt=(0, 1)).source_for(0.4, -0.3, 5)
    backward = source.split("# backward")[1]
    if "math.log" in backward:
        head, rest = backward.split("if ", 1)
        assert "math.log" not in head, source
    got = srcdiff.grad(guarded_log, wrt=(0, 1))(-3.0, 0.1, 5)   # log(s + 1) undefined at s = -3
    expected = tuple(central_difference(guarded_log, (-3.0, 0.1, 5), i) for i in (0, 1))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_hessian_of_a_branchy_loop_against_second_differences():
    h = srcdiff.hessian(branchy, wrt=(0, 1))(0.45, 0.3, 20)
    eps = 1e-4

    def grad_at(x, a):
        return np.array(branchy_by_hand(x, a, 20))
    rows = [(grad_at(0.45 + eps, 0.3) - grad_at(0.45 - eps, 0.3)) / (2 * eps),
            (grad_at(0.45, 0.3 + eps) - grad_at(0.45, 0.3 - eps)) / (2 * eps)]
    np.testing.assert_allclose(np.array(h, dtype=float), np.array(rows), rtol=1e-5, atol=1e-6)


# ---- the sign of a common factor ---------------------------------------------------


def test_a_negated_factor_is_taken_out():
    import ast

    from srcdiff.backend.optimize.factor import factor_backward
    func = ast.parse(
        "def f_grad(a, s, g):\n"
        "    __srcdiff_comment__('backward')\n"
        "    b = -g * a * math.sin(s) + g * 1.1\n"
        "    c = -g * a - (-g) * s\n"
        "    return b, c\n").body[0]
    assert factor_backward(func)
    text = ast.unparse(func)
    assert "b = g * (1.1 - a * math.sin(s))" in text, text
    assert "c = g * (s - a)" in text, text
    ns = {"math": math, "__srcdiff_comment__": lambda text: None}
    exec(text, ns)
    for a, s, g in [(0.3, 0.7, 1.5), (-2.0, 0.1, -0.4)]:
        b, c = ns["f_grad"](a, s, g)
        assert b == pytest.approx(-g * a * math.sin(s) + g * 1.1, rel=1e-14)
        assert c == pytest.approx(-g * a + g * s, rel=1e-14)


def test_an_array_with_numbers_runs_before_the_loop():
    source = srcdiff.grad(leapfrog, wrt=(0, 1, 2)).source_for(VEC, VEC, VEC + 1.0, 0.05, 4)
    before, loop = source.split("for ", 1)
    assert "= -k" in before and "-k" not in code(loop.split("# backward")[0]), source

    def shifted(x, a, n):
        s = x
        for _ in range(n):
            s = np.tanh(s) * (a * 0.5) - (a - 1.0)     # both move; s's shape is a's
        return np.sum(s * s)
    for n in (0, 1, 5):
        args = (VEC, VEC[::-1] + 0.2, n)
        got = srcdiff.grad(shifted, wrt=(0, 1))(*args)
        for i, g in zip((0, 1), got):
            np.testing.assert_allclose(g, central_difference(shifted, args, i), rtol=1e-6, atol=1e-8)


def test_a_carried_number_is_saved_instead_of_what_comes_from_it():
    source = srcdiff.grad(while_exp, wrt=(0, 1)).source_for(0.2, 0.3)
    assert "stack.append(s)" in source, source
    assert code(source.split("# backward")[1]).count("math.exp(-s)") == 1, source


def test_numba_and_checkpoints_agree():
    pytest.importorskip("numba")
    for f, args in [(branchy, (0.45, 0.3, 60)), (while_exp, (0.2, 0.3))]:
        plain = srcdiff.grad(f, wrt=(0, 1))(*args)
        np.testing.assert_allclose(srcdiff.grad(f, wrt=(0, 1), jit="numba")(*args), plain, rtol=1e-13)
        np.testing.assert_allclose(srcdiff.grad(f, wrt=(0, 1), checkpoint=7)(*args), plain, rtol=1e-13)
    args = (VEC, VEC * 0.5, VEC + 1.0, 0.05, 6)
    for got, want in zip(srcdiff.grad(leapfrog, wrt=(0, 1, 2), jit="numba")(*args),
                         srcdiff.grad(leapfrog, wrt=(0, 1, 2))(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-13)
