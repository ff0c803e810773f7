"""The batching transform, measured: Hessians and Jacobians in one batched call against one
pullback per row (the path before it, still the fallback), and per-example gradients with
``vmap(grad(loss))`` against one gradient of the batch's summed loss.

Run:  python benchmarks/batching.py [--rounds 5] [--quick]

Every batched result is checked against the per-row one before it is timed.  JAX, when
installed, is timed beside (jit-compiled, float64).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import srcdiff


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def layer(x, W, b):
    return np.tanh(W @ x + b)


def mlp_w1(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def example_loss(W1, b1, W2, x, y):
    """One example's loss of a tanh MLP with a softmax cross-entropy (y one-hot)."""
    h = np.tanh(x @ W1 + b1)
    z = h @ W2
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m))) - np.sum(z * y)


def batch_loss(W1, b1, W2, X, Y):
    """The summed loss of a batch: its gradient is the sum of the per-example gradients."""
    h = np.tanh(X @ W1 + b1)
    z = h @ W2
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(z - m), axis=1)) - np.sum(z * Y, axis=1))


def best_time(fn, rounds: int, budget: float = 0.02) -> float:
    """The best time per call over `rounds` batches of about `budget` seconds each."""
    fn()
    number, start = 1, time.perf_counter()
    while time.perf_counter() - start < budget:
        fn()
        number += 1
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def per_row(transform):
    transform.batched.enabled = False
    return transform


def jax_module():
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        return jax
    except Exception:  # noqa: BLE001 - optional peer
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="n = 10, 100 only, 3 rounds")
    opts = parser.parse_args(argv)
    rounds = 3 if opts.quick else opts.rounds
    rng = np.random.default_rng(0)
    jax = jax_module()
    rows = []

    print("Hessian / gradient, Rosenbrock")
    print(f"{'n':>6} {'per-row':>10} {'batched':>10} {'speed-up':>9}" + ("  jax-jit H/grad" if jax else ""))
    gradient = srcdiff.grad(rosenbrock)
    for n in (10, 100) if opts.quick else (10, 100, 1000):
        x = rng.normal(size=n)
        fast, slow = srcdiff.hessian(rosenbrock), per_row(srcdiff.hessian(rosenbrock))
        np.testing.assert_allclose(fast(x), slow(x), rtol=1e-10, atol=1e-8)
        g = best_time(lambda x=x: gradient(x), rounds)
        hb = best_time(lambda x=x, f=fast: f(x), rounds)
        hs = best_time(lambda x=x, f=slow: f(x), 1 if n >= 1000 else rounds, budget=0.0 if n >= 1000 else 0.02)
        line = f"{n:>6} {hs / g:>10.0f} {hb / g:>10.1f} {hs / hb:>8.0f}x"
        if jax:
            import jax.numpy as jnp
            jf = lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)  # noqa: E731
            jg, jh = jax.jit(jax.grad(jf)), jax.jit(jax.hessian(jf))
            jg(x).block_until_ready()
            jh(x).block_until_ready()
            th = best_time(lambda x=x, jh=jh: jh(x).block_until_ready(), rounds)
            tg = best_time(lambda x=x, jg=jg: jg(x).block_until_ready(), rounds)
            line += f"  {th / tg:>10.1f}"
        print(line)
        rows.append(("rosenbrock hessian", n, hs / g, hb / g))

    print("\nJacobian of a 50 -> 50 tanh layer (w.r.t. x)")
    x, W, b = rng.normal(size=50), rng.normal(size=(50, 50)) / 7, rng.normal(size=50)
    fast, slow = srcdiff.jacobian(layer), per_row(srcdiff.jacobian(layer))
    np.testing.assert_allclose(fast(x, W, b), slow(x, W, b), rtol=1e-12, atol=1e-12)
    f_time = best_time(lambda: layer(x, W, b), rounds)
    jb, js = best_time(lambda: fast(x, W, b), rounds), best_time(lambda: slow(x, W, b), rounds)
    print(f"  per-row {js * 1e6:8.0f} us   batched {jb * 1e6:8.0f} us   ({js / jb:.0f}x);  "
          f"batched / f = {jb / f_time:.1f}")

    print("\nMLP Hessian w.r.t. W1 (10 x 50 = 500 parameters; X 32 x 10)")
    args = (rng.normal(size=(10, 50)) / 3, rng.normal(size=50), rng.normal(size=50) / 7, rng.normal(size=(32, 10)),
            rng.normal(size=32))
    fast, slow = srcdiff.hessian(mlp_w1), per_row(srcdiff.hessian(mlp_w1))
    np.testing.assert_allclose(fast(*args), slow(*args), rtol=1e-9, atol=1e-12)
    mlp_gradient = srcdiff.grad(mlp_w1)
    g = best_time(lambda: mlp_gradient(*args), rounds)
    hb = best_time(lambda: fast(*args), rounds)
    hs = best_time(lambda: slow(*args), 1, budget=0.0)
    print(f"  per-row H/grad {hs / g:8.0f}   batched H/grad {hb / g:8.1f}   ({hs / hb:.0f}x)")

    print("\nPer-example gradients, tanh MLP 32-64-10, batch 256")
    W1, b1, W2 = rng.normal(size=(32, 64)) / 6, rng.normal(size=64), rng.normal(size=(64, 10)) / 8
    X, Y = rng.normal(size=(256, 32)), np.eye(10)[rng.integers(0, 10, 256)]
    per_example = srcdiff.vmap(srcdiff.grad(example_loss), in_axes=(None, None, None, 0, 0))
    one = srcdiff.grad(batch_loss)
    grads = per_example(W1, b1, W2, X, Y)
    np.testing.assert_allclose(grads.sum(axis=0), one(W1, b1, W2, X, Y), rtol=1e-9, atol=1e-9)
    loop = srcdiff.grad(example_loss)
    np.testing.assert_allclose(grads[3], loop(W1, b1, W2, X[3], Y[3]), rtol=1e-10, atol=1e-12)
    tv = best_time(lambda: per_example(W1, b1, W2, X, Y), rounds)
    t1 = best_time(lambda: one(W1, b1, W2, X, Y), rounds)
    tl = best_time(lambda: [loop(W1, b1, W2, X[i], Y[i]) for i in range(256)], 1, budget=0.0)
    print(f"  vmap(grad) {tv * 1e3:7.2f} ms   one batched gradient {t1 * 1e3:7.2f} ms   ratio {tv / t1:.2f}   "
          f"(a Python loop of grad: {tl * 1e3:.1f} ms, {tl / tv:.0f}x vmap)")
    return rows


if __name__ == "__main__":
    main()
