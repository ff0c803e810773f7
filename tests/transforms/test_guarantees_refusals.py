"""Never a silent wrong answer (#24): what srcdiff refuses at the user's line, in reverse and
forward mode alike, and the crashes that became results."""

import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

X = np.array([0.3, 0.5, 0.9, 1.1])


def _refused(call, line_text):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        call()
    assert info.value.location is not None, str(info.value)
    assert line_text in str(info.value), str(info.value)
    return str(info.value)


def _every_transform(f, x):
    """A zero-argument call per transformation of `f` at `x`."""
    v = np.ones_like(x) if isinstance(x, np.ndarray) else 1.0
    return {
        "grad": lambda: srcdiff.grad(f)(x),
        "value_and_grad": lambda: srcdiff.value_and_grad(f)(x),
        "jvp": lambda: srcdiff.jvp(f, (x,), (v,)),
        "vjp": lambda: srcdiff.vjp(f, x)[1](1.0),
        "hessian": lambda: srcdiff.hessian(f)(x),
        "hvp": lambda: srcdiff.hvp(f, x, v),
    }


# ---- complex intermediates: read as pairs of real parts (frontend/complex_split.py); a complex ----
# ---- value used any other way is refused at the line (never a complex gradient for a real input) ----

def phase_modulus(x):
    return np.abs(np.exp(1j * x))


def modulated_power(x):
    return np.sum(np.abs(x * np.exp(1j * x)) ** 2)


def dft_power(x):
    k = np.arange(4.0)
    w = np.exp(-2j * np.pi * np.outer(k, k) / 4.0)
    return np.sum(np.abs(w @ x) ** 2)


def complex_scale_real(x):
    return np.sum(np.real(x * (1.0 + 2.0j)) ** 2)


def complex_added(x):
    z = x + 0j
    return np.sum(np.abs(z) ** 2)


COMPLEX = [(phase_modulus, 0.7, "np.exp(1j * x)"), (modulated_power, X, "np.exp(1j * x)"),
           (dft_power, X, "w @ x"), (complex_scale_real, X, "(1.0 + 2.0j)"), (complex_added, X, "x + 0j")]


def complex_logarithm(x):
    return np.sum(np.log(x + 1j).real)


@pytest.mark.parametrize("f, x, text", COMPLEX, ids=[c[0].__name__ for c in COMPLEX])
@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "hessian"])
def test_complex_intermediates_are_differentiated_as_real_parts(f, x, text, transform):
    calls = _every_transform(f, x)
    expected = central_difference(f, (x,), 0)
    got = calls[transform]()
    if transform == "jvp":
        expected, got = np.sum(expected), got[1]
    if transform == "hessian":
        g = srcdiff.grad(f)
        expected = central_difference(g, (x,), 0) if np.ndim(x) == 0 else \
            np.array([central_difference(lambda z, k=k: g(z)[k], (x,), 0) for k in range(np.size(x))])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jvp", "vjp", "hessian", "hvp"])
def test_a_complex_value_used_otherwise_is_refused_at_the_line(transform):
    _refused(_every_transform(complex_logarithm, X)[transform], "np.log(x + 1j)")


# ---- a value carried through text: refused; text for a message is fine ----

def through_str(x):
    return float(str(x)) ** 2


def through_fstring(x):
    return float(f"{x}") ** 2


def through_repr(x):
    return float(repr(x)) * x


def through_format(x):
    return float(format(x, ".17g")) + x


def through_percent(x):
    return float("%f" % x) ** 2


FORMAT = "%.6f"


def through_named_format(x):
    return float(FORMAT % x) ** 2


def remainder_is_not_text(x):  # % of numbers is a remainder, differentiated as one
    return (x % 1.25) ** 2


TEXT = [(through_str, "str(x)"), (through_fstring, 'f"{x}"'), (through_repr, "repr(x)"),
        (through_format, "format(x"), (through_percent, '"%f" % x'), (through_named_format, "FORMAT % x")]


def test_a_remainder_of_numbers_is_differentiated():
    x = 2.3
    expected = 2 * (x % 1.25)  # d/dx (x mod c)^2 = 2 (x mod c) away from the jumps
    assert srcdiff.grad(remainder_is_not_text)(x) == pytest.approx(expected, rel=1e-12)
    assert srcdiff.jvp(remainder_is_not_text, (x,), (1.0,))[1] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("f, text", TEXT, ids=[c[0].__name__ for c in TEXT])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jvp", "vjp", "hessian", "hvp"])
def test_numbers_parsed_back_from_text_are_refused(f, text, transform):
    _refused(_every_transform(f, 1.5)[transform], text)


def test_text_for_a_message_is_fine():
    def f(x):
        label = f"x is {x}"
        if len(label) > 100:
            return 0.0 * x
        return x * x
    assert srcdiff.grad(f)(1.5) == pytest.approx(3.0)
    assert srcdiff.jvp(f, (1.5,), (1.0,))[1] == pytest.approx(3.0)


# ---- forward and reverse refuse the same programs ----

def linspace_sum(x):  # array endpoints (number endpoints have a rule)
    return np.sum(np.linspace(x * np.ones(2), 2.0 * x * np.ones(2), 5))


def arange_sum(x):
    return np.sum(np.arange(x, x + 3.0))


def linspace_stop(x):
    return np.sum(np.linspace(np.zeros(2), x * np.ones(2), 4) ** 2)


@pytest.mark.parametrize("f", [linspace_sum, arange_sum, linspace_stop])
@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp", "hvp"])
def test_forward_refuses_what_reverse_refuses(f, transform):
    _refused(_every_transform(f, 1.5)[transform], "np.")


# ---- array subclasses: refused, never differentiated as ndarrays ----

with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix's own notice
    SUBCLASSES = [np.matrix([[1.0, 2.0], [3.0, 4.0]]), np.ma.masked_array([1.0, 2.0], mask=[False, True])]


@pytest.mark.parametrize("a", SUBCLASSES, ids=["matrix", "masked"])
@pytest.mark.parametrize("wrt", [0, 1])
def test_array_subclasses_are_refused(a, wrt):
    def f(a, x):
        return np.sum(a * x)
    x = np.ones(np.shape(a))
    with pytest.raises(srcdiff.SrcDiffError, match="subclass"):
        srcdiff.grad(f, wrt=wrt)(a, x)
    with pytest.raises(srcdiff.SrcDiffError, match="subclass"):
        srcdiff.vjp(f, a, x, wrt=wrt)


# ---- crashes that became a result or a refusal at the line ----

def test_walrus_in_a_while_test_is_refused_at_the_line_and_in_an_if_test_is_differentiated():
    def in_while(n):
        while (n := n + 1.0) < 3.0:
            pass
        return n * n

    def in_if(x):
        if (y := x * 2.0) > 1.0:
            return y * y
        return y
    _refused(lambda: srcdiff.grad(in_while)(0.5), ":=")
    # (an `if` test always runs: `y = x * 2.0` before it, frontend/named_values.py)
    assert srcdiff.grad(in_if)(1.0) == pytest.approx(8.0) and srcdiff.grad(in_if)(0.25) == pytest.approx(2.0)
    assert srcdiff.jvp(in_if, (1.0,), (1.0,))[1] == pytest.approx(8.0)


@pytest.mark.parametrize("axis", [0, 1, None])
def test_repeat_zero_times(axis):
    def f(x):
        return np.sum(np.repeat(x, 0, axis=axis)) + np.sum(x * x)
    x = np.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(srcdiff.grad(f)(x), 2.0 * x)
    assert srcdiff.jvp(f, (x,), (np.ones_like(x),))[1] == pytest.approx(np.sum(2.0 * x))


def test_batched_cholesky():
    def f(a):
        return np.sum(np.linalg.cholesky(a) * weights)
    rng = np.random.default_rng(0)
    m = rng.normal(size=(3, 4, 4))
    a = m @ np.swapaxes(m, -1, -2) + 4.0 * np.eye(4)
    weights = rng.normal(size=(3, 4, 4))
    expected = central_difference(f, (a,), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(a), expected, rtol=1e-5, atol=1e-6)
    v = rng.normal(size=a.shape)
    v = np.tril(v)  # cholesky reads the lower triangle only
    _, tangent = srcdiff.jvp(f, (a,), (v,))
    assert tangent == pytest.approx(np.sum(expected * v), rel=1e-5)


# ---- dtypes: float32 in, float32 out ----

def sin_times(x):
    return np.sum(np.sin(x) * x)


def test_float32_keeps_its_dtype_in_every_transformation():
    x = np.array([0.5, -0.3, 0.8], np.float32)
    assert srcdiff.grad(sin_times)(x).dtype == np.float32
    assert srcdiff.value_and_grad(sin_times)(x)[1].dtype == np.float32
    assert srcdiff.hessian(sin_times)(x).dtype == np.float32
    assert srcdiff.hvp(sin_times, x, x).dtype == np.float32
    assert srcdiff.jacobian(lambda x: np.sin(x) * x)(x).dtype == np.float32
    assert srcdiff.vjp(sin_times, x)[1](np.float32(1.0)).dtype == np.float32
    assert all(np.asarray(a).dtype == np.float32 for a in srcdiff.jvp(sin_times, (x,), (x,)))
    x64 = x.astype(float)
    np.testing.assert_allclose(srcdiff.hessian(sin_times)(x), srcdiff.hessian(sin_times)(x64), rtol=1e-5)
