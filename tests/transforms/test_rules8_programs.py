"""Programs calling the primitives of rules/numpy_piecewise.py (and the Fourier parts of
lower/fft_parts.py), python_math.py's whole parts and remainders, lower/number_calls.py
(math.fsum, math.prod, statistics means, divmod) and lower/in_place_calls.py (np.fill_diagonal,
np.putmask), through every transformation: grad, hessian, jvp, vjp, float32 and numba (right,
or refused at the user's line).  References are float64 central differences and values written
by hand at the special points (ties, jumps, 0)."""

import math
import statistics

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

# ---- in-place writes of a local array ----


def pair_energy(x):
    d = x[:, None] - x[None, :]
    inv = 1.0 / (d * d + 0.5)
    np.fill_diagonal(inv, 0.0)
    return np.sum(inv * np.outer(x, x))


def diagonal_of_values(x):
    a = np.outer(x, np.sin(x))
    np.fill_diagonal(a, x ** 2)
    return np.sum(a * a)


def repeated_diagonal(x):
    a = np.outer(x, x)
    np.fill_diagonal(a, x[:2])  # NumPy repeats the two values along the diagonal of four
    return np.sum(np.tanh(a))


def wrapped_diagonal(x):
    a = np.tile(x[:2], (5, 1)) * x[:5, None]
    np.fill_diagonal(a, 0.5 * x[0], wrap=True)
    return np.sum(a ** 2)


def _zero_self(m):
    out = m * m
    np.fill_diagonal(out, 1.0)
    return out


def helper_with_diagonal(x):
    return np.sum(np.log(_zero_self(np.outer(x, x) + 2.0)))


def masked_clamp(x):
    a = x * np.linspace(0.5, 1.5, x.size)
    np.putmask(a, a > 0.6, np.sqrt(np.abs(a)))
    return np.sum(a * x)


# ---- steps, remainders, parts of numbers ----


def sawtooth_energy(x):
    phase = math.fmod(x, 0.7)
    return math.sin(phase) * x + math.floor(x) * x * x + math.ceil(x) - math.trunc(-x) * x


def gated_quadratic(x, h):
    return np.sum(np.heaviside(x - 0.2, h) * x ** 2 + np.heaviside(x * 0.0, h) * h)


def signed_magnitude(x, y):
    return np.sum(np.copysign(x ** 2 + 0.5, y) * y + np.copysign(x, -1.0))


def power_law(x, p):
    return np.sum(np.float_power(x, p) + np.float_power(x, 2.0))


def fractional_energy(x):
    frac, whole = np.modf(3.0 * x)
    return np.sum(frac ** 2 * whole + np.sin(frac))


def mantissa_energy(x):
    m, e = np.frexp(x)
    return np.sum(m * m * e + m)


def wrapped_angle(x, y):
    turns, rest = divmod(x * y, 0.9)
    return rest ** 2 * turns + np.sin(rest)


def normalized_range(x):
    return np.ptp(x) / np.sum(x * x) + np.sum(np.ptp(x.reshape(2, 3), axis=1) ** 2)


# ---- running extrema, log-sum-exp ----


def drawdown(prices):
    peak = np.maximum.accumulate(prices)
    return np.sum((peak - prices) / peak) + np.sum(np.minimum.accumulate(prices) ** 2)


def running_max_rows(x):
    return np.sum(np.maximum.accumulate(np.sin(x), axis=1) * x)


def soft_maximum(x):
    return np.logaddexp.reduce(x * 2.0) + np.sum(np.logaddexp.reduce(x.reshape(2, 3), axis=1))


# ---- lists of floats ----


def exact_sum(x):
    return math.fsum([x * x, math.sin(x), 2.0 * x]) + math.prod([x, x + 1.0, 3.0])


def list_means(x):
    terms = []
    for k in range(3):
        terms.append(math.cos(k * x) * x)
    return statistics.fmean(terms) + statistics.mean([x * x, x]) + math.fsum(terms)


def array_fsum(x):
    return math.fsum(x * x) + math.fsum([v * 2.0 for v in [x[0], x[1]]])


# ---- the Fourier transform of a real signal, taken apart at once (lower/fft_parts.py) ----


def power_spectrum(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2 * np.arange(4.0))


def spectral_magnitude(x):
    return np.sum(np.abs(np.fft.fft(x)) * np.linspace(0.0, 1.0, x.size))


def cross_parts(x):
    return np.sum(np.fft.rfft(x).real * np.fft.rfft(x * x).imag) + np.sum(np.imag(np.fft.fft(x)) ** 2)


def column_spectra(x):
    return np.sum(np.real(np.fft.rfft(x, axis=0)) ** 3)


RNG = np.random.default_rng(20261202)
V6 = np.array([0.31, 1.2, -0.4, 0.85, -1.1, 0.6])
PROGRAMS = [
    (pair_energy, (V6[:4],)),
    (diagonal_of_values, (V6[:3],)),
    (repeated_diagonal, (0.5 * V6[:4],)),
    (wrapped_diagonal, (V6,)),
    (helper_with_diagonal, (V6[:3],)),
    (masked_clamp, (V6,)),
    (sawtooth_energy, (1.93,)),
    (gated_quadratic, (V6, np.full(6, 0.3))),
    (signed_magnitude, (V6, V6[::-1] + 0.05)),
    (power_law, (np.abs(V6) + 0.2, 1.7)),
    (fractional_energy, (np.array([0.35, 1.3, -0.9, 2.2]),)),
    (mantissa_energy, (np.array([0.3, 1.7, -5.2, 12.0]),)),
    (wrapped_angle, (1.7, 1.3)),
    (normalized_range, (V6,)),
    (drawdown, (np.array([1.0, 1.4, 1.2, 1.9, 1.5, 2.1]),)),
    (running_max_rows, (RNG.normal(size=(3, 5)),)),
    (soft_maximum, (V6,)),
    (exact_sum, (1.3,)),
    (list_means, (0.7,)),
    (array_fsum, (V6[:3],)),
    (power_spectrum, (V6,)),
    (spectral_magnitude, (V6,)),
    (cross_parts, (V6[:5],)),
    (column_spectra, (V6.reshape(3, 2),)),
]
IDS = [f.__name__ for f, _ in PROGRAMS]


def _wrt_all(args):
    return tuple(range(len(args)))


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_gradient_matches_central_differences(f, args):
    wrt = _wrt_all(args)
    grads = srcdiff.grad(f, wrt=wrt)(*args)
    for i in wrt:
        np.testing.assert_allclose(grads[i], central_difference(f, args, i), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_jvp_and_vjp_match_central_differences(f, args):
    tangents = tuple(np.ones_like(a) * 0.7 if isinstance(a, np.ndarray) else 0.7 for a in args)
    value, derivative = srcdiff.jvp(f, args, tangents)
    expected = sum(np.sum(central_difference(f, args, i) * t) for i, t in enumerate(tangents))
    np.testing.assert_allclose(value, f(*args))
    np.testing.assert_allclose(derivative, expected, rtol=1e-6, atol=1e-7)
    value, pullback = srcdiff.vjp(f, *args, wrt=_wrt_all(args))
    cotangents = pullback(2.0)
    for i in _wrt_all(args):
        np.testing.assert_allclose(cotangents[i], 2.0 * central_difference(f, args, i), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_hessian_matches_second_differences(f, args):
    if not isinstance(args[0], np.ndarray):  # a function of a number: its Hessian is one number
        g = srcdiff.grad(f)
        expected = central_difference(lambda *a: g(*a), args, 0, eps=1e-5)
        np.testing.assert_allclose(srcdiff.hessian(f)(*args), expected, rtol=1e-5, atol=1e-6)
        return
    expected = hessian_difference(f, args)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_float32_gradients_stay_float32_and_close(f, args):
    small = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args)
    if not any(isinstance(a, np.ndarray) for a in args):
        pytest.skip("a function of Python floats")
    grad = srcdiff.grad(f)(*small)
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, central_difference(f, args, 0), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_numba_is_right_or_refuses_at_the_users_line(f, args):
    pytest.importorskip("numba")
    try:
        grad = srcdiff.grad(f, jit="numba")(*args)
    except srcdiff.SrcDiffError as error:
        assert __file__.rsplit("/", 1)[-1] in str(error), str(error)
        return
    np.testing.assert_allclose(grad, central_difference(f, args, 0), rtol=1e-6, atol=1e-7)


# ---- special points: ties, jumps, zeros (exact, never NaN) ----


def running_max_sum(x):
    return np.sum(np.maximum.accumulate(x) * np.array([1.0, 2.0, 3.0, 4.0, 5.0]))


def test_running_maximum_ties_share_the_gradient_equally():
    # ans = [1, 1, 1, 2, 2]: ans[1] is held by x0 and x1 (2 / 2 each), ans[2] by them too
    # (3 / 2 each); ans[3] by x3 alone, ans[4] by x3 and x4 (5 / 2 each)
    grad = srcdiff.grad(running_max_sum)(np.array([1.0, 1.0, 0.5, 2.0, 2.0]))
    np.testing.assert_array_equal(grad, [1.0 + 1.0 + 1.5, 1.0 + 1.5, 0.0, 4.0 + 2.5, 2.5])
    value, tangent = srcdiff.jvp(running_max_sum, (np.array([1.0, 1.0, 0.5, 2.0, 2.0]),),
                                 (np.array([1.0, 3.0, 7.0, 2.0, 4.0]),))
    assert tangent == 1.0 + 2.0 * 2.0 + 3.0 * 2.0 + 4.0 * 2.0 + 5.0 * 3.0  # the mean of the tied tangents


def test_whole_parts_and_steps_at_their_jumps_are_zero_not_nan():
    assert srcdiff.grad(lambda_free_floor)(2.0) == 2.0 * 2.0 * 2.0  # floor(x) * x * x at x = 2: floor 2, slope 0
    grads = srcdiff.grad(gated_quadratic, wrt=(0, 1))(np.array([0.2, 0.0, 1.0]), np.array([0.3, 0.4, 0.5]))
    np.testing.assert_array_equal(grads[0], [0.3 * 0.4, 0.0, 2.0])  # at the step: h0 * 2x, no delta
    np.testing.assert_allclose(grads[1], [0.04 + 0.6, 0.8, 1.0], rtol=1e-15)  # heaviside(0, h) * h = h * h
    grad = srcdiff.grad(fractional_energy)(np.array([1.0, 0.0, -2.0 / 3.0]))
    assert np.all(np.isfinite(grad))
    assert np.all(np.isfinite(srcdiff.grad(mantissa_energy)(np.array([0.0, 1.0, -0.5]))))


def lambda_free_floor(x):
    return math.floor(x) * x * x + math.ceil(x)


def test_copysign_at_zero_follows_abs():
    np.testing.assert_array_equal(srcdiff.grad(lambda_free_copysign)(np.array([0.0, 2.0, -3.0])), [0.0, -1.0, 1.0])


def lambda_free_copysign(x):
    return np.sum(np.copysign(x, -1.0))


def test_float_power_at_zero_is_exact():
    grad = srcdiff.grad(power_law, wrt=(0, 1))(np.array([0.0, 1.0]), 2.0)
    np.testing.assert_array_equal(grad[0], [0.0, 4.0])
    assert grad[1] == 0.0  # x ** p at x = 0 moves by nothing, at x = 1 by log 1 = 0


def test_ptp_ties_share_as_max_and_min_do():
    grad = srcdiff.grad(lambda_free_ptp)(np.array([1.0, 3.0, 3.0, 0.0]))
    np.testing.assert_array_equal(grad, [0.0, 0.5, 0.5, -1.0])


def lambda_free_ptp(x):
    return np.ptp(x)


def test_fill_diagonal_of_a_cube_is_refused_at_the_users_line():
    with pytest.raises(srcdiff.SrcDiffError, match="test_rules8_programs.py"):
        srcdiff.grad(helper_with_diagonal_cube)(np.ones(2))


def _cube_diagonal(c):
    out = c * 1.0
    np.fill_diagonal(out, 0.0)
    return out


def helper_with_diagonal_cube(x):
    return np.sum(_cube_diagonal(x[:, None, None] * x[None, :, None] * x[None, None, :]))


def test_prod_of_a_list_built_by_appending_is_refused_with_a_hint():
    with pytest.raises(srcdiff.SrcDiffError, match="math.prod"):
        srcdiff.grad(built_product)(1.2)


def built_product(x):
    terms = []
    for k in range(3):
        terms.append(x + k)
    return math.prod(terms)


def test_a_power_spectrum_is_exact_at_every_order_where_a_component_is_zero():
    x = V6[:5] - np.mean(V6[:5])  # the mean 0: the DC component |X_0| is 0, a kink of |X_0|, not of its square
    f = power_spectrum_of_five
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-7)
    hessian = srcdiff.hessian(f)(x)
    assert np.all(np.isfinite(hessian))
    # |rfft(x)|^2 weighted by w is x^T A x with A = sum_k w_k (c_k c_k^T + s_k s_k^T): its Hessian is 2 A
    n = np.arange(5)
    cos = np.cos(2 * np.pi * np.outer(np.arange(3), n) / 5)
    sin = np.sin(2 * np.pi * np.outer(np.arange(3), n) / 5)
    w = np.array([1.0, 2.0, 3.0])
    expected = 2.0 * (cos.T @ (w[:, None] * cos) + sin.T @ (w[:, None] * sin))
    np.testing.assert_allclose(hessian, expected, rtol=1e-10, atol=1e-10)


def power_spectrum_of_five(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2 * np.array([1.0, 2.0, 3.0]))


def test_the_transform_kept_as_a_complex_value_is_read_as_its_real_parts():
    np.testing.assert_allclose(srcdiff.grad(spectrum_kept)(V6), central_difference(spectrum_kept, (V6,), 0),
                               rtol=1e-6, atol=1e-7)


def spectrum_kept(x):
    spectrum = np.fft.rfft(x)
    return np.sum(np.abs(spectrum))
