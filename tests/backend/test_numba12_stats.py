"""numba's ``scipy.stats.t`` and ``multivariate_normal`` (backend/numba/stats_t_mvn.py) agree with
SciPy's: every method at points far in the tails, with arrays and numbers broadcast, an infinite
``df`` (the normal law), and a ``df`` or scale that is not positive (NaN)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

pytest.importorskip("numba")

#: numba compiles every method for six kinds of arguments (two minutes): the slow set runs them;
#: gradients reach them in test_numba12_reach.py too
pytestmark = pytest.mark.slow

METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@pytest.mark.parametrize("method", METHODS)
def test_t_methods_agree_with_scipy(method):
    from numba import njit

    from srcdiff.backend.numba import stats_t_mvn

    stub = getattr(stats_t_mvn, f"stats_t_{method}")
    run = njit(lambda x, df, loc, scale: stub(x, df, loc, scale))
    x = np.concatenate([np.linspace(-40.0, 40.0, 41), [-7.5, -0.3, 0.0, 1e-9, 2.5]])
    df = np.linspace(0.5, 60.0, x.size)
    df_with_bad = df.copy()
    df_with_bad[[2, 7, 11]] = [0.0, -1.0, np.inf]
    loc = np.linspace(-1.0, 1.0, x.size)
    scale = np.linspace(0.2, 3.0, x.size)
    scale_with_bad = scale.copy()
    scale_with_bad[[3, 10]] = [0.0, -1.0]
    for args in ((x, 3.0, 0.0, 1.0), (x, df, loc, scale), (x, df_with_bad, 0.5, 2.0), (x, 4.0, loc, scale_with_bad),
                 (0.7, 2.5, -0.2, 1.5), (x[:, None], np.array([1.0, 5.0]), loc[:, None], 1.0)):
        want = getattr(scipy.stats.t, method)(*args)
        got = run(*args)
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-300, equal_nan=True)
    assert np.isnan(run(0.3, 2.0, 0.0, -2.0)) and np.isnan(run(0.3, -1.0, 0.0, 1.0))


@pytest.mark.parametrize("method", ("logpdf", "pdf"))
def test_multivariate_normal_agrees_with_scipy(method):
    from numba import njit

    from srcdiff.backend.numba import stats_t_mvn

    stub = getattr(stats_t_mvn, f"stats_multivariate_normal_{method}")
    run = njit(lambda x, mean, cov: stub(x, mean, cov))
    rng = np.random.default_rng(12)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 0.5 * np.eye(3)
    X, mean = rng.normal(size=(6, 3)), rng.normal(size=3)
    law = getattr(scipy.stats.multivariate_normal, method)
    np.testing.assert_allclose(run(X, mean, cov), law(X, mean, cov), rtol=1e-11)
    np.testing.assert_allclose(run(X[0], mean, cov), law(X[0], mean, cov), rtol=1e-11)
    one = np.array([[0.7]])  # a number as the mean: of one axis, as SciPy reads it
    np.testing.assert_allclose(run(X[:, :1], 0.3, one), law(X[:, :1], 0.3, one), rtol=1e-11)
    with pytest.raises(ValueError, match="mean of several axes"):  # SciPy raises too
        run(X, 0.3, cov)
    with pytest.raises(np.linalg.LinAlgError):  # not positive definite: SciPy raises too
        run(X, mean, -cov)
