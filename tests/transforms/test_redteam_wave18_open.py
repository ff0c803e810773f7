"""What the red team's eighteenth wave found that is still open (test_redteam_wave18_findings.py holds what is
fixed).  Each class is a strict xfail naming it, with a few variants; the reference is float64 central
differences of the function (tests/numeric.py) or the function's own value, never srcdiff.

Classes (counts from the wave's 220 rows; see the findings module's docstring for how they ran):
  1. SILENT (first order), 1 row (+3 variants here): kinks that cancel, written with ``np.where``: the stable
     softplus / binary cross entropy with ``np.where(z > 0, z, 0.0)`` for ``np.maximum(z, 0)``, ``np.where(x >= 0,
     x, 0.0) + np.minimum(x, 0.0)`` (= x), ``np.where(x > 0, x, 0.0) - np.where(x < 0, -x, 0.0)`` (= x) at 0.
     np.where's derivative at its boundary is the selected branch's (one side), abs's is 0 and maximum's
     half: the sum is not the derivative where the function is smooth (0 and 1.5 for truths 0.5 and 1).
     The documented cancellation (docs/guarantees.md) covers abs / maximum / minimum / clip, not np.where.
  2. Refusal with no user line, hessian only, 1 row: ``np.linalg.cholesky`` inside ``try: ... except
     np.linalg.LinAlgError:`` ("try_except_grad_grad:63: no adjoint rule for ... cholesky_adjoint_a"); hvp
     and the same code without try take it.  hessian also refuses ``if np.all(...) and not np.any(...)``
     ("`and`/`or` are supported as values ...", at the user's line) that grad, jvp and hvp take.
  3. Refused, reasonable (first order, at the user's line), 10 rows (``np.max(x, initial=c)``, the 11th, is
     fixed: test_redteam_wave18_findings_more.py): np.gradient(y, x) with coordinates (read as a setting);
     calling a nested def in a ``while`` test (in an ``if`` test: fixed); a nested helper with keyword-only
     parameters or ``**kw`` passed on; ``np.divide(x, y, out=out, where=y != 0)``;
     ufunc methods (``np.add.reduce``, ``np.multiply.outer``, ``np.maximum.reduce``) (``np.average(x, axis=1,
     weights=np.array([...]))``: fixed in wave 25, test_redteam_wave25.py); a list of weight arrays handed
     whole to a callable model (``W = self.W if W is None else W``); an all-pass chain whose output array
     becomes the next stage's input (``x = y``; "writes into an array ... prev_y also refers to").
  4. numba only (of 115 rows: 102 agree, 12 refused at the line, 1 the documented equality-guard NaN):
     numba's compiler fails inside on a curve bootstrapped by ``dfs.append(...)``/``sum(dfs)``; np.diagonal
     (Barlow Twins); a recursive helper (Cox-de Boor); np.correlate(mode="full"); a default array parameter.
  5. vmap: 118 of 198 rows with an array argument batched, 80 refused at the line (np.array of batched
     numbers, an if on a batched test, np.linalg.solve, np.sort, reshape spellings, lists, builtin abs / max /
     min, math.erf); the vector maps' jacobian / jvp / vjp 18 of 18 agree, their vmap 8.
  6. srcdiff.check, 1 row of 243: a false MISMATCH on a right gradient where ``np.sinc`` is evaluated at an
     integer (``np.sinc(t - n)`` at ``t = 2.0``): sympy's counterpart ``sin(pi x) / (pi x)`` is 0 / 0 there.
     (check's other 5 MISMATCH reports are right: the documented NaNs and class 1.)
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .redteam_wave18_idioms import (
    _NET,
    class_model_loss,
    keyword_only_helper,
    kwargs_passthrough,
    try_except,
    ufunc_methods,
)
from .redteam_wave18_points import divide_where
from .redteam_wave18_signal import allpass_chain


def xfail(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


Z = np.array([0.0, 0.7, -1.2])

# ---- 1. kinks that cancel, written with np.where ----------------------------------------------------------------


def softplus_by_where(z):
    return np.sum(np.where(z > 0, z, 0.0) + np.log1p(np.exp(-np.abs(z))))


def bce_by_where(z, y):
    return np.mean(np.where(z > 0, z, 0.0) - z * y + np.log1p(np.exp(-np.abs(z))))


def where_plus_minimum(x):
    return np.sum(np.where(x >= 0, x, 0.0) + np.minimum(x, 0.0))


def where_minus_where(x):
    return np.sum(np.where(x > 0, x, 0.0) - np.where(x < 0, -x, 0.0))


CANCELLING = [(softplus_by_where, (Z,)), (bce_by_where, (Z, np.array([1.0, 0.0, 1.0]))),
              (where_plus_minimum, (Z,)), (where_minus_where, (Z,))]


@xfail("1. kinks that cancel, written with np.where: the one-sided derivative of the where at its boundary")
@pytest.mark.parametrize("f, args", CANCELLING, ids=[f.__name__ for f, _ in CANCELLING])
def test_kinks_cancelling_through_np_where(f, args):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6, atol=1e-9)


def test_the_same_kinks_through_np_maximum_cancel():
    def softplus(z):
        return np.sum(np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))))
    np.testing.assert_allclose(srcdiff.grad(softplus)(Z), central_difference(softplus, (Z,), 0), rtol=1e-6)


# ---- 2. hessian alone refuses ------------------------------------------------------------------------------------

X3 = np.array([0.3, -0.5, 0.2])


def all_finite_then(x):
    if np.all(x > -5) and not np.any(np.isnan(x)):
        return np.sum(np.exp(-x ** 2))
    return 0.0


@xfail("2. hessian refuses a Cholesky factor inside try / except (no user line) and `and` of computed tests")
@pytest.mark.parametrize("f", [try_except, all_finite_then], ids=["cholesky_in_try", "and_of_tests"])
def test_hessian_takes_what_hvp_takes(f):
    g = srcdiff.grad(f)
    want = np.stack([central_difference(lambda x, k=k: g(x)[k], (X3,), 0) for k in range(3)])
    np.testing.assert_allclose(srcdiff.hessian(f)(X3), want, rtol=1e-5, atol=1e-6)


def test_hvp_takes_the_cholesky_in_try():
    g = srcdiff.grad(try_except)
    v = np.array([1.0, -0.5, 0.25])
    want = (g(X3 + 1e-5 * v) - g(X3 - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(srcdiff.hvp(try_except, X3, v), want, rtol=1e-5, atol=1e-6)


# ---- 3. reasonable code refused ----------------------------------------------------------------------------------

rng = np.random.default_rng(18)
REFUSED = [
    (keyword_only_helper, (rng.normal(size=5),)),
    (kwargs_passthrough, (rng.normal(size=6),)),
    (divide_where, (np.array([0.3, 0.1, -0.4]), np.array([2.0, 0.0, -1.0]))),
    (ufunc_methods, (rng.normal(size=4), rng.normal(size=4))),
    (class_model_loss, ([w.copy() for w in _NET.W], rng.normal(size=(6, 3)), rng.normal(size=6))),
    (allpass_chain, (np.array([0.5, -0.3]), rng.normal(size=8))),
]


@xfail("3. reasonable code refused (keyword-only helpers, out= / where=, ufunc methods, ...)")
@pytest.mark.parametrize("f, args", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_reasonable_code_is_differentiated(f, args):
    got = srcdiff.grad(f)(*args)
    want = central_difference(f, args, 0)
    for a, b in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("f, args", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_the_refusals_name_the_users_line(f, args):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    assert "redteam_wave18_" in str(info.value).splitlines()[0]


# ---- 4. numba only ------------------------------------------------------------------------------------------------


def bootstrap(par):
    dfs = []
    for c in par:
        annuity = sum(dfs)
        dfs.append((1 - c * annuity) / (1 + c))
    return np.sum(-np.log(np.array(dfs)))


@xfail("4. numba's compiler fails inside on a list grown by append and summed by sum()")
def test_numba_compiles_a_bootstrapped_curve():
    par = np.array([0.02, 0.025, 0.028, 0.03])
    got = srcdiff.grad(bootstrap, jit="numba")(par)
    np.testing.assert_allclose(got, central_difference(bootstrap, (par,), 0), rtol=1e-6)


# ---- 5. vmap's reach -----------------------------------------------------------------------------------------------


def spherical(p):
    r, theta, phi = p
    return np.array([r * np.sin(theta) * np.cos(phi), r * np.sin(theta) * np.sin(phi), r * np.cos(theta)])


def test_vmap_of_np_array_of_numbers():  # (open since wave 18; one example at a time since wave 26)
    ps = np.array([[1.5, 0.7, 0.4], [1.0, 0.2, -0.3]])
    np.testing.assert_allclose(srcdiff.vmap(spherical)(ps), [spherical(p) for p in ps], rtol=1e-12)


# ---- 6. check at sinc's removable singularity ------------------------------------------------------------------


def sinc_through_a_sample(t, samples):
    n = np.arange(len(samples))
    return np.sum(samples * np.sinc(t - n))


@xfail("6. srcdiff.check reports MISMATCH where np.sinc meets 0 (sympy's sin(pi x) / (pi x) is 0 / 0)")
def test_check_agrees_at_an_integer_of_sinc():
    samples = np.array([0.3, -1.2, 0.8, 0.5])
    assert srcdiff.check(sinc_through_a_sample, 2.0, samples).status != "MISMATCH"


def test_the_gradient_there_is_right():
    samples = np.array([0.3, -1.2, 0.8, 0.5])
    want = central_difference(sinc_through_a_sample, (2.0, samples), 0)
    assert np.isclose(srcdiff.grad(sinc_through_a_sample)(2.0, samples), want, rtol=1e-6)
