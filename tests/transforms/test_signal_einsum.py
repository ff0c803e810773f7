"""Convolutions (NumPy's and scipy.signal's), einsum in full and N-D dot through every
transformation: jvp and vjp against the gradient's pairing, second orders (hessian, hvp,
jacobian of the gradient) against second differences, float32 kept, numba, and refusals at
the user's line.  First derivatives of every mode and shape are the spec rows
(tests/rules/rule_specs_signal.py)."""

import inspect

import numpy as np
import pytest
import scipy.signal as signal
from numeric import SECOND_ORDER, assert_close, central_difference, second_order

import srcdiff

KERNEL = np.array([0.4, -1.1, 0.7])
IMAGE_KERNEL = np.array([[0.3, -0.5], [1.2, 0.8], [-0.4, 0.6]])
PAIR = np.array([[0.5, -0.2, 0.9], [1.1, 0.3, -0.7]])


def np_same(x):  # every function takes a vector (the second-order reference is a matrix)
    return np.sum(np.sin(np.convolve(x, KERNEL, "same")) * np.arange(5.0))


def np_correlate_both(x):
    return np.sum(np.correlate(x, x[1:4] * 2.0, mode="valid") ** 2)


def sp_same_2d(z):
    x = np.reshape(z, (4, 3))
    return np.sum(np.tanh(signal.convolve(x, IMAGE_KERNEL, "same")))


def sp_valid_swapped(z):  # the kernel larger than the signal: SciPy swaps the operands
    x = np.reshape(z, (2, 2))
    return np.sum(np.sin(signal.correlate(x * x[0, 0], IMAGE_KERNEL, "valid")))


def sp_correlate2d(z):
    x = np.reshape(z, (3, 3))
    return np.sum(np.cos(signal.correlate2d(x, IMAGE_KERNEL[:2], mode="same")))


def sp_fft(z):
    x = np.reshape(z, (2, 3))
    return np.sum(np.sin(signal.fftconvolve(x, IMAGE_KERNEL, mode="full")))


def einsum_trace_product(z):
    x = np.reshape(z, (3, 3))
    return np.sin(np.einsum("ij,jk,ki", x, x, x)) + np.einsum("ii", x) ** 2


def einsum_ellipsis_diag(z):
    x = np.reshape(z, (3, 3))
    return np.sum(np.einsum("...ii,...j->...ij", x[None] * PAIR[:, :1, None], x[0]) ** 2)


def einsum_sublists(z):
    x = np.reshape(z, (3, 3))
    return np.sum(np.einsum(x, [0, 1], x, [1, 2], [0, 2]) ** 2)


def dot_nd(z):
    x = np.reshape(z, (3, 3))
    return np.sum(np.sin(np.dot(x[None] * PAIR[:, :1, None], x)))


SIGNAL = [(np_same, (5,)), (np_correlate_both, (6,)), (sp_same_2d, (12,)), (sp_valid_swapped, (4,)),
          (sp_correlate2d, (9,)), (sp_fft, (6,))]
PRODUCTS = [(einsum_trace_product, (9,)), (einsum_ellipsis_diag, (9,)), (einsum_sublists, (9,)), (dot_nd, (9,))]
ALL = SIGNAL + PRODUCTS
IDS = [f.__name__ for f, _ in ALL]


@pytest.mark.parametrize("f, shape", ALL, ids=IDS)
def test_gradient_against_central_differences(f, shape, rng, check_gradient):
    check_gradient(f, (rng.normal(size=shape),), 0)


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("f, shape", ALL, ids=IDS)
def test_second_order(f, shape, transform, rng):
    got, expected = second_order(transform, f, rng.normal(size=shape), rng)
    assert_close(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f, shape", ALL, ids=IDS)
def test_jvp_and_vjp_pair_with_the_gradient(f, shape, rng):
    x, t = rng.normal(size=shape), rng.normal(size=shape)
    reference = central_difference(f, (x,), 0)
    value, tangent = srcdiff.jvp(f, (x,), (t,))
    assert_close(value, f(x))
    assert_close(tangent, np.sum(reference * t), rtol=1e-5, atol=1e-6)
    value, pullback = srcdiff.vjp(f, x)
    assert_close(pullback(1.0), reference, rtol=1e-5, atol=1e-6)


WITHOUT_CONSTANTS = [(np_correlate_both, (6,)), (einsum_trace_product, (9,)), (einsum_sublists, (9,))]


@pytest.mark.parametrize("f, shape", WITHOUT_CONSTANTS, ids=[f.__name__ for f, _ in WITHOUT_CONSTANTS])
def test_float32_stays_float32(f, shape, rng):
    x = rng.normal(size=shape).astype(np.float32)
    g = srcdiff.grad(f)(x)
    assert g.dtype == np.float32
    assert_close(g, srcdiff.grad(f)(x.astype(np.float64)), rtol=2e-3, atol=2e-3)


def both_operands(x, k):
    return np.sum(np.sin(np.convolve(x, k, "same"))) + np.sum(np.correlate(k, x, "full") ** 2)


def scipy_both(x, k):
    return np.sum(np.sin(signal.convolve(x, k, "valid"))) + np.sum(np.sin(signal.correlate(x, k, "same")))


@pytest.mark.parametrize("n, m", [(5, 3), (3, 5), (4, 4), (2, 6)])
def test_both_operands_in_every_order_of_lengths(n, m, rng, check_gradient):
    x, k = rng.normal(size=n), rng.normal(size=m)
    check_gradient(both_operands, (x, k), (0, 1))
    a, b = rng.normal(size=(n, 2)), rng.normal(size=(m, 2))
    check_gradient(scipy_both, (a, b), (0, 1))
    grads = srcdiff.grad(scipy_both, wrt=(0, 1))(a.astype(np.float32), b.astype(np.float32))
    assert all(g.dtype == np.float32 for g in grads)


def einsum_by_parameter(x, subscripts, y):
    return np.sum(np.sin(np.einsum(subscripts, x, y)))


def sublists_by_parameter(x, xs, y, ys, out):
    return np.sum(np.sin(np.einsum(x, xs, y, ys, out)))


@pytest.mark.parametrize("subscripts, shapes", [
    ("...ij,...jk->...ik", ((2, 3), (4, 3, 2))), ("ij,ij->ij", ((1, 3), (4, 3))), ("iij,j->i", ((3, 3, 2), (2,))),
    ("j...k,lj...->lk...", ((2, 3, 2), (2, 2, 3))), ("ijk,lji", ((3, 2, 2), (2, 2, 3)))])
def test_einsum_forms_as_parameters(subscripts, shapes, rng, check_gradient):
    x, y = (rng.normal(size=s) for s in shapes)
    check_gradient(einsum_by_parameter, (x, subscripts, y), (0, 2))


def test_einsum_sublists_as_parameters(rng, check_gradient):
    x, y = rng.normal(size=(2, 2, 3)), rng.normal(size=(3, 4))
    check_gradient(sublists_by_parameter, (x, (Ellipsis, 0, 1), y, (1, 2), (Ellipsis, 0, 2)), (0, 2))


def test_numpy_convolutions_compile_with_numba(rng):
    pytest.importorskip("numba")
    x, k = rng.normal(size=6), rng.normal(size=3)
    jitted = srcdiff.grad(both_operands, wrt=(0, 1), jit="numba")(x, k)
    for got, want in zip(jitted, srcdiff.grad(both_operands, wrt=(0, 1))(x, k)):
        assert_close(got, want)


def test_scipy_under_numba_is_refused_at_the_line(rng):
    pytest.importorskip("numba")
    with pytest.raises(srcdiff.SrcDiffError, match=r"(?s)numba cannot compile.*signal_convolve") as info:
        srcdiff.grad(sp_same_2d, jit="numba")(rng.normal(size=(4, 3)))
    lines, first = inspect.getsourcelines(sp_same_2d)
    assert info.value.location.filename.endswith("test_signal_einsum.py")
    assert first < info.value.location.line < first + len(lines)


def fft_along_axes(x):
    return np.sum(signal.fftconvolve(x, IMAGE_KERNEL, axes=[0]))


def wrapped_boundary(x):
    return np.sum(signal.convolve2d(x, IMAGE_KERNEL, boundary="wrap"))


def filled_boundary(x):
    return np.sum(signal.convolve2d(x, IMAGE_KERNEL, fillvalue=1.0))


@pytest.mark.parametrize("f, message", [(fft_along_axes, "axes= has no adjoint rule"),
                                        (wrapped_boundary, "boundary='wrap'"),
                                        (filled_boundary, "fillvalue=1.0")])
def test_unsupported_options_are_refused_at_the_line(f, message, rng):
    with pytest.raises(srcdiff.SrcDiffError, match=message) as info:
        srcdiff.grad(f)(rng.normal(size=(4, 3)))
    assert info.value.location.filename.endswith("test_signal_einsum.py")
    assert info.value.location.line == f.__code__.co_firstlineno + 1


def test_generated_code_reads_as_convolutions():
    source = srcdiff.grad(np_same).source_for(np.ones(5))
    assert "np.correlate(" in source and "np.convolve(" in source and "helper" not in source


def test_an_exported_gradient_imports_scipy_as_its_adjoints_name_it(tmp_path, rng):
    from modules import import_source
    x = rng.normal(size=12)
    path = srcdiff.export(sp_same_2d, x, path=tmp_path / "exported.py")
    module = import_source(tmp_path, path.read_text(), "exported_again")
    assert "import scipy.signal as scipy_signal" in path.read_text()
    assert_close(module.sp_same_2d_grad(x), central_difference(sp_same_2d, (x,), 0), rtol=1e-5, atol=1e-6)
