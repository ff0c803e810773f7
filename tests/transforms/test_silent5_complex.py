"""Complex values reaching a differentiated one (issue 24.2-3): never a complex gradient, nor a
zero one, for a real input.  srcdiff's rules are real, so a differentiated value that meets a
complex number is refused at the user's line, in every transformation, wherever the complex
number comes from: a constant (``1j``), a complex argument that is not differentiated (an
array, a Python or NumPy complex number, complex64), a complex global (an array, a number, a
list), or a tree leaf.  Complex data made real before it meets the differentiated value
(``np.abs(z) * x``, ``np.real(z)``, ``np.angle(z)``, ``np.linalg.norm(z)``) is fine: its
gradient is real and exact (references written by hand)."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

X = np.array([0.3, -1.2, 0.7])
Z = np.array([1 + 2j, 2 - 1j, 0.5j])
V = np.array([1.0, -0.5, 2.0])
ZG = np.array([1 - 1j, 0.5 + 0.5j, 2j])  # a complex global
CG = 1.5 + 0.5j
LG = [1 + 2j, 2 - 1j, 0.5j]


def abs_of_product(x, z):
    return np.sum(np.abs(z * x))


def squared_modulus(x, z):
    return np.sum(np.abs(z * x) ** 2)


def real_of_product(x, z):
    return np.sum(np.real(z * x) ** 2)


def imag_of_sum(x, z):
    return np.sum(np.imag(z + x))


def angle_of_sum(x, z):
    return np.sum(np.angle(z + x))


def conj_product(x, z):
    return np.sum(np.real(np.conj(z) * z * x))


def modulus_of_matmul(x, z):
    return np.sum(np.abs(np.outer(z, z) @ x) ** 2)


def where_complex(x, z):
    return np.sum(np.abs(np.where(x > 0, z, x)))


def exp_of_data(x, z):
    return np.sum(np.abs(np.exp(z) * x))


def written_into(x, z):
    a = np.zeros(3, dtype=complex)
    a[0] = x[0]
    return np.sum(np.abs(a * z))


def through_a_helper(x, z):
    return np.sum(_helper(z, x))


def _helper(z, x):
    return np.abs(z * x)


def global_array(x, z):
    return np.sum(np.abs(ZG * x))


def global_number(x, z):
    return np.sum(np.abs(CG * x))


def global_list(x, z):
    return np.sum(np.abs(np.array(LG) * x))


REFUSED = [abs_of_product, squared_modulus, real_of_product, imag_of_sum, angle_of_sum, conj_product,
           modulus_of_matmul, where_complex, exp_of_data, written_into, through_a_helper, global_array,
           global_number, global_list]

TRANSFORMATIONS = {
    "grad": lambda f, x, z: srcdiff.grad(f)(x, z),
    "value_and_grad": lambda f, x, z: srcdiff.value_and_grad(f)(x, z),
    "vjp": lambda f, x, z: srcdiff.vjp(f, x, z)[1](1.0),
    "jvp": lambda f, x, z: srcdiff.jvp(f, (x, z), (V, None)),
    "jacobian": lambda f, x, z: srcdiff.jacobian(f)(x, z),
    "hessian": lambda f, x, z: srcdiff.hessian(f)(x, z),
    "hvp": lambda f, x, z: srcdiff.hvp(f, x, V, z),
    "jacobian_of_grad": lambda f, x, z: srcdiff.jacobian(srcdiff.grad(f))(x, z),
    "numba": lambda f, x, z: srcdiff.grad(f, jit="numba")(x, z),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("how", list(TRANSFORMATIONS))
@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_a_differentiated_value_meeting_complex_data_is_refused_at_its_line(f, how):
    with pytest.raises(srcdiff.SrcDiffError, match="complex") as found:
        TRANSFORMATIONS[how](f, X, Z)
    assert "test_silent5_complex.py" in str(found.value)


def scaled(x, c):
    return np.abs(c * x) ** 2


@pytest.mark.parametrize("c", [1 + 2j, np.complex128(1 + 2j), np.complex64(1 + 2j), np.array(1 + 2j),
                               np.array([1 + 2j], dtype=np.complex64)], ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("how", ["grad", "hessian", "jvp"])
def test_complex_numbers_of_every_type_are_refused(c, how):
    with pytest.raises(srcdiff.SrcDiffError, match="complex"):
        TRANSFORMATIONS[how](scaled, 0.5, c) if how != "jvp" else srcdiff.jvp(scaled, (0.5, c), (1.0, None))


def complex_leaf(params, data):
    return np.sum(np.abs(data["z"] * params["w"]))


@pytest.mark.parametrize("how", ["grad", "hessian", "jvp", "numba"])
def test_a_complex_tree_leaf_is_refused(how):
    params, data = {"w": X}, {"z": Z}
    with pytest.raises(srcdiff.SrcDiffError, match="complex"):
        if how == "grad":
            srcdiff.grad(complex_leaf)(params, data)
        elif how == "hessian":
            srcdiff.hessian(complex_leaf)(params, data)
        elif how == "jvp":
            srcdiff.jvp(complex_leaf, (params, data), ({"w": V}, None))
        else:
            srcdiff.grad(complex_leaf, jit="numba")(params, data)


def data_made_real(x, z):
    # |z| x^2 + Re(z) x + Im(z) x^3 + angle(z) sin(x) + |z|_2 x
    return np.sum(np.abs(z) * x ** 2 + np.real(z) * x + z.imag * x ** 3 + np.angle(z) * np.sin(x)
                  + np.linalg.norm(z) * x)


def _made_real_gradient(x, z):
    return 2 * np.abs(z) * x + z.real + 3 * z.imag * x ** 2 + np.angle(z) * np.cos(x) + np.linalg.norm(z)


def _made_real_hessian(x, z):
    return np.diag(2 * np.abs(z) + 6 * z.imag * x - np.angle(z) * np.sin(x))


@pytest.mark.parametrize("how", list(TRANSFORMATIONS))
def test_complex_data_made_real_first_has_a_real_exact_gradient(how):
    got = TRANSFORMATIONS[how](data_made_real, X, Z)
    g, H = _made_real_gradient(X, Z), _made_real_hessian(X, Z)
    want = {"value_and_grad": (data_made_real(X, Z), g), "jvp": (data_made_real(X, Z), g @ V), "hessian": H,
            "hvp": H @ V, "jacobian_of_grad": H}.get(how, g)
    for got_part, want_part in zip(got if isinstance(want, tuple) else (got,),
                                   want if isinstance(want, tuple) else (want,)):
        assert not np.iscomplexobj(got_part)
        assert np.asarray(got_part).dtype == np.float64
        np.testing.assert_allclose(got_part, want_part, rtol=1e-12)


def test_a_global_made_complex_later_is_refused_then():
    # the transform is guarded on the global's signature (its dtype kind included)
    global ZG
    real = ZG
    try:
        ZG = np.array([1.0, 2.0, 3.0])
        np.testing.assert_allclose(srcdiff.grad(global_array)(X, Z), np.array([1.0, 2.0, 3.0]) * np.sign(X))
        ZG = real
        with pytest.raises(srcdiff.SrcDiffError, match="complex"):
            srcdiff.grad(global_array)(X, Z)
    finally:
        ZG = real


def squared_modulus_of_data(x, z):
    return np.sum(x ** 2 * np.abs(z) ** 2)


def squared_modulus_written_out(x, z):
    return np.sum(x ** 2 * np.real(z * np.conj(z)))


def test_an_even_power_of_abs_of_complex_data_is_refused_and_its_real_spelling_works():
    # np.abs(z) ** 2 is lowered as z * z (the smooth identity for real values): refused, never
    # the complex z * z; np.real(z * np.conj(z)) is the same real number, and works
    with pytest.raises(srcdiff.SrcDiffError, match="complex"):
        srcdiff.grad(squared_modulus_of_data)(X, Z)
    np.testing.assert_allclose(srcdiff.grad(squared_modulus_written_out)(X, Z), 2 * X * np.abs(Z) ** 2, rtol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(squared_modulus_written_out)(X, Z), np.diag(2 * np.abs(Z) ** 2),
                               rtol=1e-12)


@pytest.mark.parametrize("jit", [None, "numba"])
def test_a_compiled_gradient_called_again_with_complex_data_refuses(jit):
    # the variant for real data is not reused for complex data: the signature says which
    grad = srcdiff.grad(abs_of_product, jit=jit)
    np.testing.assert_allclose(grad(X, np.array([2.0, -1.0, 0.5])), np.abs([2.0, -1.0, 0.5]) * np.sign(X))
    with pytest.raises(srcdiff.SrcDiffError, match="complex"):
        grad(X, Z)
