"""Negative-binomial regression fitted by maximum likelihood, with SciPy's optimiser.

Counts y (over-dispersed: their variance exceeds their mean) depend on features X through
log mu = X @ beta; the dispersion r = exp(log_r) is fitted too.  The log-likelihood uses
``gammaln``; srcdiff writes its gradient (``digamma`` appears in it) and the Hessian, which
``scipy.optimize.minimize(method="trust-exact")`` takes as ``hess=``.

    python examples/negative_binomial.py
"""

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln

import srcdiff


def negative_log_likelihood(params, X, y):
    beta, log_r = params[:-1], params[-1]
    mu = np.exp(X @ beta)
    r = np.exp(log_r)
    log_lik = gammaln(y + r) - gammaln(r) - gammaln(y + 1.0) + r * (log_r - np.log(r + mu)) \
        + y * (np.log(mu) - np.log(r + mu))
    return -np.sum(log_lik) / y.shape[0]


def simulate(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.normal(size=n), rng.uniform(-1.0, 1.0, size=n)])
    beta, r = np.array([1.0, 0.5, -0.7]), 2.5
    mu = np.exp(X @ beta)
    y = rng.negative_binomial(r, r / (r + mu)).astype(float)
    return X, y, beta, r


def fit(X, y):
    gradient = srcdiff.grad(negative_log_likelihood)
    hessian = srcdiff.hessian(negative_log_likelihood)
    start = np.zeros(X.shape[1] + 1)
    return minimize(negative_log_likelihood, start, args=(X, y), jac=gradient, hess=hessian, method="trust-exact")


if __name__ == "__main__":
    X, y, beta, r = simulate()
    result = fit(X, y)
    print("converged:", result.success, "in", result.nit, "iterations")
    print("beta:", np.round(result.x[:-1], 3), "(true", beta, ")")
    print("r:   ", round(float(np.exp(result.x[-1])), 3), "(true", r, ")")
    print(srcdiff.grad(negative_log_likelihood).source)
