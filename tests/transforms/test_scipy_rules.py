"""SciPy as users call it: special functions and distributions found lazily, constants that
need no rule, and the second order (hessian, jvp) through the new rules."""

import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as sc
from numeric import assert_close, central_difference
from scipy import stats

import srcdiff


def test_import_srcdiff_imports_no_scipy():
    code = "import sys, srcdiff; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def negbin_loglik(log_mu, log_r, y):
    mu, r = np.exp(log_mu), np.exp(log_r)
    return np.sum(sc.gammaln(y + r) - sc.gammaln(r) - sc.gammaln(y + 1.0)
                  + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))


def student_t(x, mu, s, df):
    return np.sum(stats.t.logpdf(x, df, mu, s)) + np.sum(stats.norm.logcdf(x, mu, s))


def special_mix(x):
    return np.sum(sc.expit(x) * sc.erf(x) + sc.log_softmax(x) * sc.digamma(x * x + 1.0)) + sc.logsumexp(x)


def lgamma_of_a_constant(x, nu):
    return x * math.lgamma(nu) + np.sum(np.random.normal(size=3)) * 0.0


def i0_of_the_input(x):
    return np.sum(np.i0(x))


@pytest.mark.parametrize("point", [0.3, -0.8])
def test_negative_binomial_likelihood(point):
    y = np.array([0.0, 3.0, 1.0, 7.0])
    grads = srcdiff.grad(negbin_loglik, wrt=(0, 1))(np.full(4, point), 0.4, y)
    assert_close(grads[0], central_difference(negbin_loglik, (np.full(4, point), 0.4, y), 0))
    assert_close(grads[1], central_difference(negbin_loglik, (np.full(4, point), 0.4, y), 1))


def test_student_t_in_every_parameter():
    args = (np.array([0.3, -1.2, 2.0]), 0.2, 1.3, 4.5)
    grads = srcdiff.grad(student_t, wrt=(0, 1, 2, 3))(*args)
    for i, g in enumerate(grads):
        assert_close(g, central_difference(student_t, args, i))


def test_hessian_and_jvp_through_special_functions():
    x = np.array([0.4, -0.3, 1.1])
    gradient = srcdiff.grad(special_mix)
    hessian = srcdiff.hessian(special_mix)(x)
    by_differences = np.array([central_difference(lambda v, i=i: gradient(v)[i], (x,), 0) for i in range(3)])
    assert_close(hessian, by_differences, rtol=1e-5, atol=1e-6)
    v = np.array([1.0, 0.5, -2.0])
    _, tangent = srcdiff.jvp(special_mix, (x,), (v,))
    assert_close(tangent, np.dot(gradient(x), v))


def test_a_call_with_no_rule_on_constants_is_a_constant():
    assert srcdiff.grad(lgamma_of_a_constant)(1.5, 3.0) == pytest.approx(math.lgamma(3.0))


@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_a_call_with_no_rule_on_the_input_is_refused_at_its_line(transform):
    x = np.ones(2)
    with pytest.raises(srcdiff.SrcDiffError, match="numpy.i0") as info:
        if transform == "grad":
            srcdiff.grad(i0_of_the_input)(x)
        else:
            srcdiff.jvp(i0_of_the_input, (x,), (x,))
    assert "test_scipy_rules.py:" in str(info.value) and "register_adjoint" in str(info.value)


def cdf_in_its_shape(x, a):
    return np.sum(stats.gamma.cdf(x, a))


def test_no_closed_form_in_a_shape_parameter_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="not differentiable with respect to its argument 'a'"):
        srcdiff.grad(cdf_in_its_shape, wrt=1)(np.array([1.0, 2.0]), 2.5)
    assert_close(srcdiff.grad(cdf_in_its_shape)(np.array([1.0, 2.0]), 2.5),
                 central_difference(cdf_in_its_shape, (np.array([1.0, 2.0]), 2.5), 0))


def test_refusals_name_scipy_functions_as_scipy():
    from srcdiff.rules.table import qualified_name
    assert qualified_name(sc.gammasgn) == "scipy.special.gammasgn"
    assert qualified_name(np.exp) == "numpy.exp"

