"""Second derivatives, side by side: a Hessian-vector product on Rosenbrock in 10,000
dimensions, and the full Hessian of a small MLP's loss with respect to its weights.

Run:  python benchmarks/second_order.py [--rounds 7] [--small]

For each library the same run times its gradient and its second-order call, so the report
gives both the time per call and the ratio hvp / gradient (the issue's goal: at most 3 for
srcdiff).  The hand-written baselines are SciPy's ``rosen_der`` / ``rosen_hess_prod``
(hand-written NumPy, no AD), and for the MLP a hand-written gradient with the Hessian left
to the libraries.  Peers (JAX with jit, autograd, PyTorch) are optional: a missing one is
reported as such.  Every result is checked against srcdiff's before it is timed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.optimize

import srcdiff


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp_loss(w, X, y):
    """A 4-8-1 tanh network; `w` holds its 49 weights in one vector."""
    W1 = np.reshape(w[:32], (4, 8))
    b1 = w[32:40]
    W2 = w[40:48]
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 + w[48] - y
    return np.mean(r * r)


def best_time(fn, rounds: int) -> float:
    """The best time per call over `rounds` batches of about 20 ms each."""
    fn()
    number, start = 1, time.perf_counter()
    while time.perf_counter() - start < 0.02:
        fn()
        number += 1
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def peers_hvp(x, v):
    """(name, gradient callable, hvp callable) for each installed peer, on Rosenbrock."""
    found = []
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        def jrosen(x):
            return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
        jgrad = jax.jit(jax.grad(jrosen))
        jhvp = jax.jit(lambda x, v: jax.jvp(jax.grad(jrosen), (x,), (v,))[1])
        jx, jv = jnp.asarray(x), jnp.asarray(v)
        found.append(("JAX-jit", lambda: jgrad(jx).block_until_ready(), lambda: jhvp(jx, jv).block_until_ready()))
    except ImportError:
        found.append(("JAX-jit", None, "not installed"))
    try:
        import autograd
        import autograd.numpy as anp

        def arosen(x):
            return anp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
        agrad = autograd.grad(arosen)
        ahvp = autograd.hessian_vector_product(arosen)
        found.append(("autograd", lambda: agrad(x), lambda: ahvp(x, v)))
    except ImportError:
        found.append(("autograd", None, "not installed"))
    try:
        import torch
        torch.set_num_threads(1)
        tx, tv = torch.tensor(x, requires_grad=True), torch.tensor(v)

        def trosen(x):
            return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

        def tgrad():
            return torch.autograd.grad(trosen(tx), tx)[0]

        def thvp():
            (g,) = torch.autograd.grad(trosen(tx), tx, create_graph=True)
            return torch.autograd.grad(g, tx, tv)[0]
        found.append(("PyTorch", tgrad, thvp))
    except ImportError:
        found.append(("PyTorch", None, "not installed"))
    return found


def peers_hessian(w, X, y):
    found = []
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        def jloss(w, X, y):
            h = jnp.tanh(X @ jnp.reshape(w[:32], (4, 8)) + w[32:40])
            r = h @ w[40:48] + w[48] - y
            return jnp.mean(r * r)
        jgrad, jhess = jax.jit(jax.grad(jloss)), jax.jit(jax.hessian(jloss))
        args = tuple(jnp.asarray(a) for a in (w, X, y))
        found.append(("JAX-jit", lambda: jgrad(*args).block_until_ready(), lambda: jhess(*args).block_until_ready()))
    except ImportError:
        found.append(("JAX-jit", None, "not installed"))
    try:
        import autograd
        import autograd.numpy as anp

        def aloss(w, X, y):
            h = anp.tanh(X @ anp.reshape(w[:32], (4, 8)) + w[32:40])
            r = h @ w[40:48] + w[48] - y
            return anp.mean(r * r)
        agrad, ahess = autograd.grad(aloss), autograd.hessian(aloss)
        found.append(("autograd", lambda: agrad(w, X, y), lambda: ahess(w, X, y)))
    except ImportError:
        found.append(("autograd", None, "not installed"))
    try:
        import torch
        torch.set_num_threads(1)
        tw, tX, ty = (torch.tensor(a) for a in (w, X, y))

        def tloss(w):
            h = torch.tanh(tX @ torch.reshape(w[:32], (4, 8)) + w[32:40])
            r = h @ w[40:48] + w[48] - ty
            return torch.mean(r * r)

        def tgrad():
            w = tw.clone().requires_grad_(True)
            return torch.autograd.grad(tloss(w), w)[0]
        found.append(("PyTorch", tgrad, lambda: torch.autograd.functional.hessian(tloss, tw)))
    except ImportError:
        found.append(("PyTorch", None, "not installed"))
    return found


def as_numpy(value):
    return np.asarray(value.detach().numpy() if hasattr(value, "detach") else value, dtype=float)


def rows_for(title, baseline, contenders, rounds, reference):
    rows = []
    for name, gradient, second in contenders:
        if gradient is None:
            rows.append((title, name, second, "", "", ""))
            continue
        if not np.allclose(as_numpy(second()), reference, rtol=1e-8, atol=1e-8):
            raise AssertionError(f"{title}: {name} disagrees with srcdiff")
        tg, ts = best_time(gradient, rounds), best_time(second, rounds)
        rows.append((title, name, f"{tg * 1e6:.0f} µs", f"{ts * 1e6:.0f} µs", f"{ts / tg:.2f}",
                     f"{ts / baseline:.2f}" if baseline else ""))
    return rows


def main(argv=None) -> list[tuple]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--small", action="store_true", help="tiny sizes (a smoke test)")
    ns = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    n = 50 if ns.small else 10_000
    x, v = rng.uniform(-1.0, 1.0, n), rng.normal(size=n)
    gradient = srcdiff.grad(rosenbrock)
    expected = scipy.optimize.rosen_hess_prod(x, v)
    assert np.allclose(srcdiff.hvp(rosenbrock, x, v), expected, rtol=1e-12, atol=1e-9)
    hand = best_time(lambda: scipy.optimize.rosen_hess_prod(x, v), ns.rounds)
    hvp_rows = rows_for(f"hvp, Rosenbrock n={n}", hand, [
        ("hand (SciPy rosen_der / rosen_hess_prod)", lambda: scipy.optimize.rosen_der(x),
         lambda: scipy.optimize.rosen_hess_prod(x, v)),
        ("srcdiff", lambda: gradient(x), lambda: srcdiff.hvp(rosenbrock, x, v)),
        *peers_hvp(x, v)], ns.rounds, expected)

    w, X, y = rng.normal(size=49) * 0.5, rng.normal(size=(32, 4)), rng.normal(size=32)
    loss_grad, hessian = srcdiff.grad(mlp_loss), srcdiff.hessian(mlp_loss)
    H = hessian(w, X, y)
    assert np.allclose(H, H.T, atol=1e-10)
    hessian_rows = rows_for("Hessian, MLP 4-8-1 (49 weights, batch 32)", None, [
        ("srcdiff", lambda: loss_grad(w, X, y), lambda: hessian(w, X, y)),
        *peers_hessian(w, X, y)], ns.rounds, H)
    rows = hvp_rows + hessian_rows
    header = ("problem", "contender", "gradient", "second order", "second / gradient", "÷ hand")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(c).ljust(wd) for c, wd in zip(row, widths)))
    return rows


if __name__ == "__main__":
    main()
