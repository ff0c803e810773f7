"""Reach 29: a sigmoid written out, ``1.0 / (1.0 + np.exp(-z))``, and its spellings
(``np.exp(z) / (1 + np.exp(z))``, ``1 / (np.exp(-z) + 1)``, a scale ``np.exp(-a * z)``, parts named on
lines of their own, in a helper, in a loop; reach29_sigmoid.py), exact at every order in every
transformation, at saturation too (z = -inf, -800, inf), float32 included.

Found (wave 28b, open): its Hessian (hessian, hvp) at z = -inf was NaN where it is 0: the gradient
srcdiff differentiates again held ``(1.0 - 1.0 / d) / d`` with ``d = 1.0 + np.exp(-z)`` infinite, whose
tangent is ``inf / inf``.  The first derivative was mended by a pass over the backward sweep
(backend/optimize/logistic.py); the second was not.  Fixed at the root: lowering reads the sigmoid
written out as one node of srcdiff's logistic function (lower/logistic_forms.py, rules/logistic.py),
whose rule is ``g * ans * (1.0 - ans)``, as SciPy's expit's, printed as the user's first spelling.

Census of the variants (12 spellings at 7 points: grad, jvp, vjp, hessian, hvp; before -> after):
before, hessian and hvp NaN at z = -inf and -800 for 8 spellings (plain, integer ones, 1 added last,
scaled, the negation named, the parts named, and the two below); ``np.exp(z) / (1 + np.exp(z))``
(inline or named) NaN at z >= 710 in every transformation, its value too (inf / inf), and its jvp
NaN at every point of a vector holding one such z; a sigmoid per element in a loop (``t + 1.0 / (1.0
+ np.exp(-z[k]))``) NaN at z = -800 and -inf in grad and vjp too (first order, silently); 3
spellings (squared, a helper, ``1 - s``) were right.  After: 12 of 12 exact in every cell, and in
value_and_grad, jacobian, a tree, float32, vmap and numba (test_first_order_everywhere_at_saturation).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numeric import central_difference

import srcdiff

from . import redteam_wave27b_cells as cells
from .reach29_sigmoid import POINTS, VARIANTS

IDS = [v[0] for v in VARIANTS]
#: the rows the default run compiles with numba (seconds each)
NUMBA_KEPT = {"plain"}
#: the rows the default run keeps elsewhere (`-m slow` runs every spelling)
KEPT = {"plain", "exp_over_one_plus", "named_parts", "per_element_loop"}


def _rows(rows=VARIANTS):
    return [v if v[0] in KEPT else pytest.param(*v, marks=pytest.mark.slow) for v in rows]


def _close(got, want, what, rtol=1e-9, atol=1e-300):
    got = np.asarray(got, dtype=float)
    assert np.all(np.isfinite(got)), f"{what}: non-finite where the derivative is {want}: {got}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", _rows(), ids=IDS)
def test_first_order_everywhere_at_saturation(name, f, d1, d2):
    with np.errstate(all="ignore"):
        answers = cells.kink_answers(f, (POINTS.copy(),), 0)
        want = d1(POINTS)
    for transformation, got in answers.items():
        if transformation == "vmap":
            continue  # (vmap's second example is POINTS + 0.25)
        loose = transformation == "float32"
        _close(got, want, transformation, rtol=2e-3 if loose else 1e-9, atol=2e-3 if loose else 1e-300)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", _rows(), ids=IDS)
def test_second_order_exact_at_saturation(name, f, d1, d2):
    with np.errstate(all="ignore"):
        want = np.diag(d2(POINTS))
        _close(srcdiff.hessian(f)(POINTS.copy()), want, "hessian", atol=1e-15)
        for k in (0, 1, 3, 6):
            _close(srcdiff.hvp(f, POINTS.copy(), np.eye(POINTS.size)[k]), want[k], f"hvp along {k}", atol=1e-15)
        g = srcdiff.grad(f)
        _close(srcdiff.jvp(g, (POINTS.copy(),), (np.ones(POINTS.size),))[1], want @ np.ones(POINTS.size),
               "jvp of the gradient", atol=1e-15)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2",
                         [v if v[0] in NUMBA_KEPT else pytest.param(*v, marks=pytest.mark.slow) for v in VARIANTS],
                         ids=IDS)
def test_numba_at_saturation(name, f, d1, d2):
    with np.errstate(all="ignore"):
        _close(srcdiff.grad(f, jit="numba")(POINTS.copy()), d1(POINTS), "numba")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float32_second_order_and_saturation():
    """float32 saturates at -88: the gradient and the Hessian are float32 and 0 there."""
    z = np.array([-100.0, -np.inf, 0.5, 100.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        g = srcdiff.grad(VARIANTS[0][1])(z)
        h = srcdiff.hessian(VARIANTS[0][1])(z)
    assert g.dtype == np.float32 and h.dtype == np.float32
    s = 1.0 / (1.0 + np.exp(-0.5))
    np.testing.assert_allclose(g, [0.0, 0.0, s * (1 - s), 0.0], rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(np.diag(h), [0.0, 0.0, s * (1 - s) * (1 - 2 * s), 0.0], rtol=1e-5, atol=1e-30)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_tree_and_a_number():
    """A dict of parameters, and a Python float (its value a NumPy float, as NumPy's np.exp gives)."""
    def logistic_loss(p, x, y):
        s = 1.0 / (1.0 + np.exp(-(x @ p["w"] + p["b"])))
        return -np.sum(y * np.log(s) + (1.0 - y) * np.log(1.0 - s))

    rng = np.random.default_rng(29)
    p, x, y = {"w": rng.standard_normal(3), "b": 0.2}, rng.standard_normal((5, 3)), np.array([1.0, 0, 1, 1, 0])
    got = srcdiff.grad(logistic_loss)(p, x, y)
    for key in ("w", "b"):
        def part(v, key=key):
            return logistic_loss({**p, key: v}, x, y)
        np.testing.assert_allclose(got[key], central_difference(part, (p[key],), 0), rtol=1e-6)
    h = srcdiff.hessian(logistic_loss)(p, x, y)
    want = np.stack([central_difference(lambda w, k=k: srcdiff.grad(logistic_loss)({**p, "w": w}, x, y)["w"][k],
                                        (p["w"],), 0) for k in range(3)])
    np.testing.assert_allclose(np.asarray(h["w"]["w"]), want, rtol=1e-5, atol=1e-8)
    with np.errstate(all="ignore"):
        assert srcdiff.grad(VARIANTS[0][1])(-800.0) == 0.0
        assert srcdiff.hessian(VARIANTS[0][1])(-np.inf) == 0.0


def test_generated_code_keeps_the_users_spelling():
    """The forward line is the sigmoid as written (no helper call), the adjoint reads s * (1 - s)."""
    source = srcdiff.grad(VARIANTS[6][1]).source  # named_parts
    assert "1.0 / (1.0 + np.exp(-z))" in source and "logistic(" not in source
    assert "* (1.0 - s)" in source


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", _rows(VARIANTS[:4] + VARIANTS[8:9]), ids=IDS[:4] + IDS[8:9])
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(point=st.lists(st.one_of(st.sampled_from([-np.inf, np.inf, -1e308, -745.0, -709.0, 709.0, 0.0]),
                                st.floats(-800.0, 800.0), st.floats(-5.0, 5.0)), min_size=3, max_size=3))
def test_hypothesis_saturated_points_against_the_formulas(name, f, d1, d2, point):
    z = np.array(point)
    with np.errstate(all="ignore"):
        want1, want2 = d1(z), np.diag(d2(z))
        _close(srcdiff.grad(f)(z.copy()), want1, "grad", atol=1e-300)
        _close(srcdiff.jvp(f, (z.copy(),), (np.ones(3),))[1], np.sum(want1), "jvp", atol=1e-300)
        # (absolute 1e-14: the formula cancels where the second derivative crosses 0, z = log 2 squared)
        _close(srcdiff.hessian(f)(z.copy()), want2, "hessian", rtol=1e-8, atol=1e-14)
        _close(srcdiff.hvp(f, z.copy(), np.ones(3)), want2 @ np.ones(3), "hvp", rtol=1e-8, atol=1e-14)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", _rows(VARIANTS[:5]), ids=IDS[:5])
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(point=st.lists(st.floats(-30.0, 30.0), min_size=3, max_size=3))
def test_hypothesis_against_central_differences(name, f, d1, d2, point):
    z = np.array(point)
    g = srcdiff.grad(f)
    np.testing.assert_allclose(g(z.copy()), central_difference(f, (z.copy(),), 0), rtol=1e-5, atol=1e-9)
    want = np.stack([central_difference(lambda y, k=k: g(y)[k], (z.copy(),), 0) for k in range(3)])
    np.testing.assert_allclose(srcdiff.hessian(f)(z.copy()), want, rtol=1e-4, atol=1e-8)
