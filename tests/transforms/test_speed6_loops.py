"""Loop-invariant scalar arithmetic runs once before its loop (ad/invariants.py), and a float
adjoint of a number of unknown kind skips unbroadcast's shape work: gradients unchanged.

References are float64 central differences (tests/numeric.py) or closed forms by hand."""

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def damped(x, a, n):
    s = x
    acc = 0.0
    for _i in range(n):
        t = math.cos(s)
        s = s - 0.1 * a * t + 0.05 * s * s
        acc += t * s
    return acc


def chain(x, a, b, n):          # an invariant built from another invariant
    s = x
    for _ in range(n):
        c = 0.5 * a * b - a
        s = 0.8 * s + c * math.sin(s)
    return s * s


def while_loop(x, a, n):        # a while loop: the invariant moves before it too
    q = x
    k = 0
    e = 0.0
    while k < n:
        q = q - 0.05 * (a * 2.0) * q
        e = e + q * q
        k += 1
    return e


def nested(x, a, n):            # the inner loop's invariant reads the outer target: moves one level
    s = x
    for i in range(n):
        for _j in range(3):
            w = a * i + 0.5
            s = 0.9 * s + 0.1 * w * math.tanh(s)
    return s


def branched(x, a, n):          # an invariant read under a branch of the body
    s = x
    for _i in range(n):
        g = -a
        if s > 0.3:
            s = 0.7 * s + g * math.sin(s)
        else:
            s = 0.9 * s + 0.2 * g
    return s


def carried_final(x, a, n):     # a carried value's final value is invariant: it stays in the loop
    s = x
    r = 0.0
    for _i in range(n):
        r = r + s * a
        s = a * 3.0
    return r


CASES = [
    (damped, (0.4, 0.7, 100), (0, 1)),
    (damped, (0.4, 0.7, 0), (0, 1)),
    (damped, (0.4, 0.7, 1), (0, 1)),
    (chain, (0.3, 0.6, 1.3, 50), (0, 1, 2)),
    (while_loop, (0.9, 0.4, 40), (0, 1)),
    (while_loop, (0.9, 0.4, 0), (0, 1)),
    (nested, (0.2, 0.3, 7), (0, 1)),
    (branched, (0.8, 0.5, 20), (0, 1)),
    (carried_final, (0.8, 0.5, 5), (0, 1)),
    (carried_final, (0.8, 0.5, 0), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_gradient_against_central_differences(f, args, wrt, check_gradient):
    expected = tuple(central_difference(f, args, i) for i in wrt)
    got = check_gradient(f, args, wrt=wrt)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def damped_by_hand(x, a, n):
    states = []
    s = x
    for _ in range(n):
        states.append(s)
        s = s - 0.1 * a * math.cos(s) + 0.05 * s * s
    s_bar = a_bar = 0.0
    for sp in reversed(states):
        t = math.cos(sp)
        new_bar = s_bar + t                   # acc += t * s_new
        a_bar -= 0.1 * t * new_bar
        t_bar = s - 0.1 * a * new_bar
        s_bar = new_bar * (1.0 + 0.1 * sp) - t_bar * math.sin(sp)
        s = sp
    return s_bar, a_bar


@pytest.mark.parametrize("n", [0, 1, 2, 100])
def test_gradient_equals_hand_written(n):
    got = srcdiff.grad(damped, wrt=(0, 1))(0.4, 0.7, n)
    np.testing.assert_allclose(got, damped_by_hand(0.4, 0.7, n), rtol=1e-12, atol=1e-14)


def test_invariant_product_runs_before_the_loop_and_is_not_saved():
    source = srcdiff.grad(damped, wrt=(0, 1)).source_for(0.4, 0.7, 100)
    before_loop = source.split("for ")[0]
    assert "0.1 * a" in before_loop, source
    pushed = [line for line in source.splitlines() if ".append(" in line]
    assert pushed and all("t1" not in line for line in pushed), source


def test_arrays_with_arrays_are_left_in_the_loop():
    def f(x, a, b, n):
        s = x
        for _ in range(n):
            c = a * 2.0                       # an array times a number cannot raise: it moves
            d = a * b                         # A * B may raise (shapes), so it stays
            s = np.sin(s) * c + d
        return s.sum()
    x, a, b = np.linspace(0.1, 0.9, 4), np.linspace(1.0, 0.5, 4), np.linspace(-0.3, 0.3, 4)
    source = srcdiff.grad(f, wrt=(0, 1, 2)).source_for(x, a, b, 3)
    # (speed7: an array with numbers moves before the loop; before, it stayed like A * B)
    assert "a * 2.0" in source.split("for ")[0] and "a * b" in source.split("for ")[1], source
    for n in (0, 3):
        got = srcdiff.grad(f, wrt=(0, 1, 2))(x, a, b, n)
        for i, g in zip((0, 1, 2), got):
            np.testing.assert_allclose(g, central_difference(f, (x, a, b, n), i), rtol=1e-6, atol=1e-8)


def test_hessian_of_a_loop_with_an_invariant():
    def f(p):
        x, a = p[0], p[1]
        s = x
        for _ in range(30):
            s = s - 0.1 * a * math.cos(s) + 0.05 * s * s
        return s * s
    p = np.array([0.4, 0.7])
    h = srcdiff.hessian(f)(p)
    g = srcdiff.grad(f)
    for i in range(2):
        e = np.zeros(2)
        e[i] = 1e-5
        np.testing.assert_allclose(h[:, i], (g(p + e) - g(p - e)) / 2e-5, rtol=1e-5, atol=1e-7)


def test_numba_agrees():
    pytest.importorskip("numba")
    got = srcdiff.grad(damped, wrt=(0, 1), jit="numba")(0.4, 0.7, 50)
    np.testing.assert_allclose(got, damped_by_hand(0.4, 0.7, 50), rtol=1e-12)


def fit(w, b, xs, ys):          # numbers from list arguments: kinds unknown to the code
    total = 0.0
    for i in range(len(xs)):
        r = w * xs[i] + b - ys[i]
        total += r * r
    return total / len(xs)


@pytest.mark.parametrize("kind", [float, int, np.float64])
def test_items_of_list_arguments(kind, check_gradient):
    xs = [kind(v) for v in (1, 2, 3, 5)]
    ys = [kind(v) for v in (2, 3, 7, 11)]
    w, b = 0.5, 0.25
    r = [w * x + b - y for x, y in zip(xs, ys)]
    expected = (2 * sum(ri * x for ri, x in zip(r, xs)) / 4, 2 * sum(r) / 4)
    got = check_gradient(fit, (w, b, xs, ys), wrt=(0, 1), expected=expected)
    assert all(isinstance(g, float) for g in got)  # a number, as its parameter


def test_unbroadcast_keeps_what_it_did():
    from srcdiff.rules.runtime import unbroadcast
    assert unbroadcast(2.0, 3.0) == 2.0 and type(unbroadcast(2.0, 3)) is float
    assert type(unbroadcast(np.float64(2.0), 3.0)) is np.float64
    np.testing.assert_array_equal(unbroadcast(np.ones((2, 3)), 1.0), 6.0)
    np.testing.assert_array_equal(unbroadcast(np.ones((2, 3)), np.ones((1, 3))), np.full((1, 3), 2.0))


def logistic_branch(x, a, n):   # a branch every step; an invariant on one side only
    s = x
    tot = 0.0
    for _i in range(n):
        if s > 0.5:
            s = a * s * (1.0 - s)
        else:
            s = s + 0.3 * a * s
        tot = tot + s
    return tot


def logistic_branch_by_hand(x, a, n):
    states = []
    s = x
    for _ in range(n):
        states.append(s)
        s = a * s * (1.0 - s) if s > 0.5 else s + 0.3 * a * s
    s_bar = a_bar = 0.0
    for sp in reversed(states):
        s_bar += 1.0
        if sp > 0.5:
            a_bar += s_bar * sp * (1.0 - sp)
            s_bar *= a * (1.0 - 2.0 * sp)
        else:
            a_bar += s_bar * 0.3 * sp
            s_bar *= 1.0 + 0.3 * a
    return s_bar, a_bar


@pytest.mark.parametrize("x, a", [(0.45, 2.9), (0.7, 3.3), (0.2, 0.9), (0.9, 1.5)])
@pytest.mark.parametrize("n", [0, 1, 3, 60])
def test_branch_in_loop_equals_hand_written(x, a, n):
    got = srcdiff.grad(logistic_branch, wrt=(0, 1))(x, a, n)
    np.testing.assert_allclose(got, logistic_branch_by_hand(x, a, n), rtol=1e-12, atol=1e-14)
    assert all(type(g) is float for g in got)


def test_branch_in_loop_against_central_differences(check_gradient):
    args = (0.45, 2.9, 25)
    expected = tuple(central_difference(logistic_branch, args, i) for i in (0, 1))
    got = check_gradient(logistic_branch, args, wrt=(0, 1))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_branch_invariant_moves_and_adjoint_reset_goes_into_the_sides():
    source = srcdiff.grad(logistic_branch, wrt=(0, 1)).source_for(0.45, 2.9, 60)
    assert "0.3 * a" in source.split("for ")[0], source
    assert "0.0 +" not in source and "0.0 -" not in source and "= 0.0\n        if" not in source, source


def one_sided(x, n):            # only one side sends an adjoint to x: the other's is zero
    total = 0.0
    for i in range(n):
        if i % 2 == 0:
            total = total + x * x
        else:
            total = total + 2.0
    return total


def int_side(x, k):             # one side's contribution is made with ints: the gradient stays a float
    if k > 0:
        y = x * 2
    else:
        y = x * x
    return y


@pytest.mark.parametrize("f, args", [(one_sided, (1.5, 5)), (one_sided, (1.5, 1)), (one_sided, (1.5, 0)),
                                     (int_side, (1.5, 1)), (int_side, (1.5, -1))],
                         ids=["one_sided5", "one_sided1", "one_sided0", "int_side+", "int_side-"])
def test_reset_adjoints_in_branches(f, args, check_gradient):
    got = check_gradient(f, args, wrt=0)
    np.testing.assert_allclose(got, central_difference(f, args, 0), rtol=1e-6, atol=1e-8)
    assert type(got[0]) is float
