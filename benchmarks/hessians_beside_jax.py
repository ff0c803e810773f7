"""Hessians of programs outside the benchmark set, beside ``jax.jit(jax.hessian(f))``.

Run:  python benchmarks/hessians_beside_jax.py [--rounds 5] [--quick] [--peers-path DIR]

Each program is written once, against the module global ``np``; JAX's version is the same
function with ``jax.numpy`` in its place.  srcdiff's Hessian is checked against JAX's before
anything is timed (or, without JAX, against second differences).  Ratios are medians over
interleaved rounds of within-round ratios, in one process pinned to one core
(single_core.py), like the other scripts here.
"""

from __future__ import annotations

# isort: off
import single_core  # noqa: F401 - first: one core, one thread per library, before NumPy loads
# isort: on

import argparse
import statistics
import sys
import timeit
import types

import numpy as np
from batching import jax_module

import srcdiff


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(w * w)


def softmax_regression(W, X, Y):
    Z = X @ W
    Z = Z - np.max(Z, axis=1, keepdims=True)
    return -np.sum(Y * (Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True)))) / X.shape[0]


def smooth_least_squares(x, A, b):
    r = A @ x - b
    return 0.5 * np.sum(r * r) + 3.0 * np.sum((x[1:] - x[:-1]) ** 2) + np.sum(np.log(np.cosh(x)))


def gaussian_nll(theta, data):
    mu, log_s = theta[0], theta[1]
    s = np.exp(log_s)
    return np.sum(0.5 * ((data - mu) / s) ** 2 + log_s)


def flat_tanh_mlp(w, X, y):
    W1 = w[:40].reshape(4, 10)
    h = np.tanh(X @ W1)
    return np.mean((h @ w[40:50] - y) ** 2)


def cases(rng, quick: bool) -> list[tuple]:
    n = 100 if quick else 500
    return [
        ("logistic regression, d = 50", logistic, (rng.normal(size=50) * 0.1, rng.normal(size=(n, 50)),
                                                   (rng.random(n) < 0.5) * 1.0)),
        ("softmax regression, 20 x 5", softmax_regression, (rng.normal(size=(20, 5)) * 0.1,
                                                            rng.normal(size=(200, 20)),
                                                            np.eye(5)[rng.integers(0, 5, 200)])),
        ("least squares + smoothness, n = 60", smooth_least_squares, (rng.normal(size=60), rng.normal(size=(80, 60)),
                                                                      rng.normal(size=80))),
        ("Gaussian likelihood, 2 parameters", gaussian_nll, (np.array([0.3, -0.2]), rng.normal(size=1000))),
        ("flattened tanh MLP, 50 weights", flat_tanh_mlp, (rng.normal(size=50) * 0.3, rng.normal(size=(64, 4)),
                                                          rng.normal(size=64))),
    ]


def in_jax(f, jax):
    """`f` with jax.numpy as its ``np``."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jax.numpy}, f.__name__)


def second_differences(f, args, h=1e-4):
    x = np.array(args[0], dtype=float).ravel()
    shape = np.shape(args[0])

    def at(v):
        return f(v.reshape(shape), *args[1:])
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = (at(x + e_i + e_j) - at(x + e_i - e_j) - at(x - e_i + e_j) + at(x - e_i - e_j)) / (4 * h * h)
    return H.reshape(shape + shape)


def measure(rounds: int, quick: bool, jax) -> list[tuple]:
    rows = []
    for name, f, args in cases(np.random.default_rng(0), quick):
        H, g = srcdiff.hessian(f), srcdiff.grad(f)
        got = H(*args)
        calls = {"hessian": lambda H=H, args=args: H(*args), "grad": lambda g=g, args=args: g(*args)}
        if jax is not None:
            JH, Jg = jax.jit(jax.hessian(in_jax(f, jax))), jax.jit(jax.grad(in_jax(f, jax)))
            np.testing.assert_allclose(got, np.asarray(JH(*args)), rtol=1e-8, atol=1e-10)
            calls["jax hessian"] = lambda JH=JH, args=args: JH(*args).block_until_ready()
            calls["jax grad"] = lambda Jg=Jg, args=args: Jg(*args).block_until_ready()
        elif quick:
            np.testing.assert_allclose(got, second_differences(f, args), rtol=1e-4, atol=1e-4)
        number = 3 if quick else 20
        times = {k: [] for k in calls}
        for _ in range(rounds):
            for k, call in calls.items():
                call()
                times[k].append(min(timeit.repeat(call, number=number, repeat=3)) / number)
        median = {k: statistics.median(v) for k, v in times.items()}
        ratio = {k: statistics.median(a / b for a, b in zip(times[k], times["grad"])) for k in ("hessian",)}
        beside = statistics.median(a / b for a, b in zip(times["hessian"], times["jax hessian"])) if jax else None
        jax_ratio = statistics.median(a / b for a, b in zip(times["jax hessian"], times["jax grad"])) if jax else None
        rows.append((name, median["hessian"], ratio["hessian"], beside, jax_ratio))
    return rows


def table(rows: list[tuple]) -> str:
    def cell(v, unit=""):
        return "" if v is None else f"{v * 1e6:.0f} µs" if unit == "us" else f"{v:.3g}"
    out = ["| program | srcdiff Hessian | Hessian / gradient | srcdiff ÷ JAX-jit | JAX-jit Hessian / gradient |",
           "| --- | --- | --- | --- | --- |"]
    out += [f"| {name} | {cell(t, 'us')} | {cell(r)} | {cell(b)} | {cell(j)} |" for name, t, r, b, j in rows]
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller data, 2 rounds (a smoke run)")
    parser.add_argument("--peers-path", action="append", default=[],
                        help="a directory appended to sys.path (JAX installed in another environment)")
    opts = parser.parse_args(argv)
    sys.path.extend(opts.peers_path)
    jax = jax_module()
    print(table(measure(2 if opts.quick else opts.rounds, opts.quick, jax)))


if __name__ == "__main__":
    main()
