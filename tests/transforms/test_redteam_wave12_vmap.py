"""What the red team's twelfth wave found and fixed in `srcdiff.vmap` (test_redteam_wave12_findings.py
holds the other classes): silently wrong batched values and gradients, a crash on defaults, and
gradients whose selects and reductions had no batching rule.  References are float64 central
differences of the function at each example, never srcdiff's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special
from numeric import central_difference

import srcdiff

HERE = "test_redteam_wave12_vmap.py"
R = np.random.default_rng(12)


def per_example(f, xs, *rest, wrt=0):
    """Central differences of f at each example of the batch `xs` (the batched argument `wrt`)."""
    out = []
    for x in xs:
        args = list(rest)
        args.insert(wrt, x)
        out.append(central_difference(f, args, wrt))
    return np.stack(out)


# ---- 2. vmap of a function with defaults crashed (KeyError) or refused -------------------------------------
# ``srcdiff.vmap(srcdiff.grad(f))(xs)`` with ``def f(x, n=4)`` raised KeyError: 'n' (the binder of the
# gradient was given the batched arguments only); vmap of the plain function refused ("the number of
# axes ... not known").  FIXED: api/vmap.py passes the defaults a call leaves out, unbatched.


def bernstein_sum(x, n=4, scale=2.0):
    return scale * np.sum(x ** n * (1 - x))


def with_config(w, x, cfg=None):
    cfg = cfg or {"p": 2.0}
    return np.sum(np.abs(x * w) ** cfg["p"])


def test_vmap_passes_defaults():
    xs = R.uniform(0.1, 0.9, size=(3, 4))
    got = srcdiff.vmap(srcdiff.grad(bernstein_sum))(xs)
    np.testing.assert_allclose(got, per_example(bernstein_sum, xs), rtol=1e-6, atol=1e-8)
    got = srcdiff.vmap(srcdiff.grad(bernstein_sum), in_axes=(0, None))(xs, 3)
    np.testing.assert_allclose(got, per_example(bernstein_sum, xs, 3), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.vmap(bernstein_sum)(xs), [bernstein_sum(x) for x in xs])
    x = R.normal(size=4)
    np.testing.assert_allclose(srcdiff.vmap(with_config, in_axes=(0, None))(xs, x), [with_config(w, x) for w in xs])


# ---- 3. vmap of np.linalg.norm(x, ord) lost its ord: a SILENT WRONG value ----------------------------------
# ``srcdiff.vmap(lambda x: np.linalg.norm(x, np.inf))`` ran ``np.linalg.norm(x, 1)`` on the batch: the
# batching rule of reductions took ``np.linalg.norm`` for a method (its receiver ``np.linalg`` is not the
# name ``np``), so the axis went where the ord was: one number (a matrix norm) for the whole batch.
# FIXED: ad/batching_rules.py tells a module path (np.linalg, scipy.special) from a method's receiver.


def norm_inf(x):
    return np.linalg.norm(x, np.inf)


def norm_minus_inf(x):
    return np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 1)


def norm_three(x):
    return np.linalg.norm(x, 3) + np.linalg.norm(x, ord=0.5)


@pytest.mark.parametrize("f", [norm_inf, norm_minus_inf, norm_three])
def test_vmap_of_a_vector_norm_keeps_its_ord(f):
    xs = np.array([[0.3, -1.7, 0.9, 1.2], [0.5, 0.2, -0.1, 0.3], [2.0, -0.4, 0.6, 0.1]])
    np.testing.assert_allclose(srcdiff.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)


# ---- 4. vmap of a test holding a call or an index: a SILENT WRONG value and gradient -----------------------
# A comparison kept whole (no gradient) was batched by substituting whole batches for its names:
# ``np.where(x > np.mean(x), ...)`` compared every example with the batch's mean, and vmap(grad) of
# ``np.max`` (whose gradient tests ``t == np.max(t)``) gave 0 for every example but the one holding
# the batch's maximum: silently wrong numbers.  FIXED: ad/batching.py batches such a test only when it
# is made of operators and elementwise NumPy calls (np.abs(r) <= c); a reduction or an index inside it
# is refused at the user's line where its value is used.


def above_mean(x):
    return np.sum(np.where(x > np.mean(x), x ** 2, 0.0))


def share_of_max(x):
    m = np.max(x)
    return np.sum(np.where(x == m, 1.0, 0.0) * x)


def first_sign(x):
    return np.sum(np.where(x[0] > 0.0, x ** 2, -x))


def first_sign_of_a_call(x):
    return np.sum(np.where(np.atleast_1d(x)[0] > 0.0, x ** 2, -x))


def huber_abs_test(x):
    return np.sum(np.where(np.abs(x) <= 1.0, 0.5 * x ** 2, np.abs(x) - 0.5))


XS = np.array([[-0.3, -1.7, 0.9, 1.2], [0.5, 0.2, -0.1, 0.3]])


def _batched_grad(f):
    return srcdiff.vmap(srcdiff.grad(f))


@pytest.mark.parametrize("f, batched", [(first_sign, srcdiff.vmap), (first_sign, _batched_grad)])
def test_vmap_of_a_test_with_an_index_inside_is_batched(f, batched):
    # since wave 29 an index of numbers and slices inside a test is each row's (ad/batching_conditions.py)
    mapped = batched(f)
    got = mapped(XS)
    want = np.stack([f(x) for x in XS]) if batched is srcdiff.vmap else per_example(f, XS)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    assert mapped.per_example is None


@pytest.mark.parametrize("f, batched", [(first_sign_of_a_call, srcdiff.vmap), (first_sign_of_a_call, _batched_grad)])
def test_vmap_of_a_test_with_a_call_inside_runs_one_example_at_a_time(f, batched):
    # refused at the line since wave 12; since wave 26 each example runs alone (the reason kept, with the line)
    mapped = batched(f)
    with pytest.warns(srcdiff.PerExampleWarning, match="computes a value inside it"):
        got = mapped(XS)
    want = np.stack([f(x) for x in XS]) if batched is srcdiff.vmap else per_example(f, XS)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    assert "computes a value inside it" in mapped.per_example and HERE in mapped.per_example


@pytest.mark.parametrize("f, batched", [(above_mean, srcdiff.vmap), (share_of_max, _batched_grad),
                                        (above_mean, _batched_grad)])
def test_vmap_of_a_test_with_a_reduction_inside_is_batched(f, batched):
    # since wave 28 the reduction is rewritten for rows (ad/batching_conditions.py): one batched call
    mapped = batched(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcdiff.PerExampleWarning)
        got = mapped(XS)
    one = f if batched is srcdiff.vmap else srcdiff.grad(f)
    np.testing.assert_allclose(got, np.stack([one(x) for x in XS]), rtol=1e-12, atol=1e-14)
    if batched is not srcdiff.vmap:
        np.testing.assert_allclose(got, per_example(f, XS), rtol=1e-6, atol=1e-8)
    assert mapped.per_example is None


def test_vmap_batches_elementwise_calls_in_a_test():
    np.testing.assert_allclose(srcdiff.vmap(huber_abs_test)(XS), [huber_abs_test(x) for x in XS])
    got = srcdiff.vmap(srcdiff.grad(huber_abs_test))(XS)
    np.testing.assert_allclose(got, per_example(huber_abs_test, XS), rtol=1e-6, atol=1e-8)


# ---- 5. vmap of gradients through np.where, softmax, logsumexp, cumsum: refused, now batched ----------------
# The adjoint of np.where's branches (`select`) and the reductions of SciPy and the scans had no
# batching rule: vmap(grad(loss)) of a Huber loss, a mixture's logsumexp or a softmax policy refused.
# FIXED: `select_rows` (rules/batching_helpers.py) and the reduce kind for scipy.special.logsumexp /
# softmax / log_softmax, np.cumsum and np.cumprod.


def clipped(x):
    return np.sum(np.where(x > 0.25, np.sqrt(np.abs(x)), x ** 2))


def mixture(mu, x):
    lp = -0.5 * (x[:, None] - mu[None, :]) ** 2
    return -np.sum(scipy.special.logsumexp(lp, axis=1))


def policy(theta):
    p = scipy.special.softmax(theta)
    return np.sum(p * np.arange(theta.size)) + scipy.special.logsumexp(theta) \
        + np.sum(scipy.special.log_softmax(theta) ** 2)


def scans(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(1.0 + 0.1 * x))


BATCHED = [(clipped, (), XS), (mixture, (R.normal(size=5),), R.normal(size=(3, 2))),
           (policy, (), R.normal(size=(3, 4))), (scans, (), R.normal(size=(3, 4)))]


@pytest.mark.parametrize("f, rest, xs", BATCHED, ids=[b[0].__name__ for b in BATCHED])
def test_vmap_of_grad_batches_selects_and_reductions(f, rest, xs):
    in_axes = (0,) + (None,) * len(rest)
    np.testing.assert_allclose(srcdiff.vmap(f, in_axes=in_axes)(xs, *rest), [f(x, *rest) for x in xs], rtol=1e-10)
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=in_axes, per_example="allow")(xs, *rest)
    except srcdiff.SrcDiffError as exc:  # refused at the user's line, saying it is vmap's limit
        assert HERE in str(exc) and "batching" in str(exc), str(exc)
        return
    np.testing.assert_allclose(got, per_example(f, xs, *rest), rtol=1e-6, atol=1e-8)


def test_a_batched_gradients_refusal_says_it_is_batching():
    mapped = srcdiff.vmap(srcdiff.grad(first_sign_of_a_call), per_example="allow")
    mapped(XS)
    assert "batching its gradient" in mapped.per_example
    assert "differentiating its gradient again" not in mapped.per_example
