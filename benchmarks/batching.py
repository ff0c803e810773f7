"""The batching transform, measured: Hessians and Jacobians in one batched call (against one
pullback per row, the path before it), per-example gradients with ``vmap(grad(loss))``
against one gradient of the batch's summed loss, and JAX (``jax.jit``) beside each.

Run:  python benchmarks/batching.py [--rounds 7] [--quick] [--clock cpu] [--markdown benchmarks/RESULTS.md]
      [--peers-path DIR]   # a site-packages holding JAX (a separate virtual environment)

Every srcdiff result is checked against a reference before it is timed: SciPy's
``rosen_hess``, the per-row Hessian, a Python loop of per-example gradients, JAX's result.
The srcdiff-numba columns time the same transformation with ``jit="numba"`` (``hessian(f,
jit="numba")``, ``jacobian(f, jit="numba")``, ``hvp(grad(f, jit="numba"), x, v)``), its
result checked against the NumPy one; a blank where srcdiff refuses it.
Timing: interleaved rounds, each callable timed once per round in batches of about 20 ms;
ratios are taken within a round and the table gives their medians (the machine is shared).
The process is pinned to one core, one thread per library (single_core.py), like run.py.
"""

from __future__ import annotations

# isort: off
import single_core  # noqa: F401 - first: one core, one thread per library, before NumPy loads
# isort: on

import argparse
import statistics
import sys
import time

import numpy as np
import scipy.optimize
from problems import pendulum, pendulum_args

import srcdiff

BEGIN, END = "<!-- batching: begin -->", "<!-- batching: end -->"


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


class Clock:
    """Time per call of a batch lasting about `budget` seconds, by the wall clock or the CPU time."""

    def __init__(self, kind: str, budget: float):
        self.now = time.process_time if kind == "cpu" else time.perf_counter
        self.budget, self.numbers = budget, {}

    def __call__(self, key, fn) -> float:
        number = self.numbers.get(key)
        if number is None:
            fn()
            number, start = 1, time.perf_counter()
            while time.perf_counter() - start < self.budget:
                fn()
                number += 1
            self.numbers[key] = number
        start = self.now()
        for _ in range(number):
            fn()
        return (self.now() - start) / number


def rounds_of(clock: Clock, rounds: int, calls: dict) -> dict:
    """{name: [time per call, one per round]} with the calls interleaved, order rotated each round."""
    names, times = list(calls), {n: [] for n in calls}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(clock(name, calls[name]))
    return times


def ratio(times: dict, a: str, b: str) -> float:
    """The median over rounds of times[a] / times[b]."""
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


def jax_module():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def numba_call(quick: bool, calls: dict, transform, run, check) -> None:
    """``calls["numba"] = lambda: run(transform())`` (the transform made once), its result
    checked by `check`; nothing in a `quick` run, or where srcdiff refuses it (the table leaves the cells blank
    and the refusal is printed on stderr)."""
    if quick:  # a smoke run: no numba compilation (tests/transforms/test_numba_second_order.py checks it)
        return
    try:
        made = transform()
        check(run(made))
    except srcdiff.SrcDiffError as exc:
        print(f"srcdiff-numba refused: {exc}", file=sys.stderr)
        return
    calls["numba"] = lambda: run(made)


def numba_columns(t: dict, beside: str | None) -> tuple:
    """(srcdiff-numba ÷ JAX-jit, srcdiff-numba per call) of the timings `t`; `beside` names
    the JAX call compared with."""
    if "numba" not in t:
        return None, None
    return ratio(t, "numba", beside) if beside in t else None, statistics.median(t["numba"])


def measure(rounds: int, quick: bool, clock: Clock, jax) -> list[tuple]:
    """Rows (table, case, numbers...) of every measurement."""
    rng = np.random.default_rng(0)
    rows = []
    jnp = jax.numpy if jax else None

    def jit(f, *a):
        compiled = jax.jit(f)
        compiled(*a)
        return lambda: jax.block_until_ready(compiled(*a))

    def jrosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    gradient = srcdiff.grad(rosenbrock)
    for n in (10, 100) if quick else (10, 100, 1000):
        x = rng.normal(size=n)
        fast, slow = srcdiff.hessian(rosenbrock), srcdiff.hessian(rosenbrock)
        slow.batched.enabled = False
        np.testing.assert_allclose(fast(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)
        calls = {"grad": lambda x=x: gradient(x), "hessian": lambda x=x, fast=fast: fast(x)}
        if n <= 100:
            np.testing.assert_allclose(slow(x), fast(x), rtol=1e-10, atol=1e-8)
            calls["per-row"] = lambda x=x, slow=slow: slow(x)
        if jax:
            calls["jax grad"], calls["jax hessian"] = jit(jax.grad(jrosen), x), jit(jax.hessian(jrosen), x)
        numba_call(quick, calls, lambda: srcdiff.hessian(rosenbrock, jit="numba"), lambda H, x=x: H(x),
                   lambda h, x=x: np.testing.assert_allclose(h, scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8))
        t = rounds_of(clock, rounds, calls)
        rows.append(("rosenbrock", n, ratio(t, "hessian", "grad"), ratio(t, "per-row", "grad") if n <= 100 else None,
                     ratio(t, "jax hessian", "jax grad") if jax else None,
                     ratio(t, "hessian", "jax hessian") if jax else None, *numba_columns(t, "jax hessian"),
                     statistics.median(t["hessian"])))

    args = (rng.normal(size=(10, 50)) / 3, rng.normal(size=50), rng.normal(size=50) / 7, rng.normal(size=(32, 10)),
            rng.normal(size=32))
    H, g = srcdiff.hessian(mlp_w1), srcdiff.grad(mlp_w1)
    calls = {"grad": lambda: g(*args), "hessian": lambda: H(*args)}
    numba_call(quick, calls, lambda: srcdiff.hessian(mlp_w1, jit="numba"), lambda H: H(*args),
               lambda h: np.testing.assert_allclose(h, H(*args), rtol=1e-9, atol=1e-12))
    if jax:
        def jmlp(W1, b1, W2, X, y):
            r = jnp.tanh(X @ W1 + b1) @ W2 - y
            return jnp.mean(r * r)
        np.testing.assert_allclose(H(*args), jax.hessian(jmlp)(*args), rtol=1e-9, atol=1e-12)
        calls["jax grad"], calls["jax hessian"] = jit(jax.grad(jmlp), *args), jit(jax.hessian(jmlp), *args)
    t = rounds_of(clock, rounds, calls)
    rows.append(("mlp hessian W1 (500)", 500, ratio(t, "hessian", "grad"), None,
                 ratio(t, "jax hessian", "jax grad") if jax else None,
                 ratio(t, "hessian", "jax hessian") if jax else None, *numba_columns(t, "jax hessian"),
                 statistics.median(t["hessian"])))

    pargs = pendulum_args(steps=20 if quick else 100)
    H, g = srcdiff.hessian(pendulum, wrt=(0, 1)), srcdiff.grad(pendulum, wrt=(0, 1))
    calls = {"grad": lambda: g(*pargs), "hessian": lambda: H(*pargs)}
    numba_call(quick, calls, lambda: srcdiff.hessian(pendulum, wrt=(0, 1), jit="numba"), lambda H: H(*pargs),
               lambda h: np.testing.assert_allclose(np.array(h, dtype=float), np.array(H(*pargs), dtype=float),
                                                    rtol=1e-9, atol=1e-12))
    # no JAX beside: jit of its Hessian unrolls the 100 steps' forward-over-reverse (minutes of XLA compilation)
    t = rounds_of(clock, rounds, calls)
    rows.append(("pendulum fit hessian 2x2", 2, ratio(t, "hessian", "grad"), None, None, None, *numba_columns(t, None),
                 statistics.median(t["hessian"])))

    x, W, b = rng.normal(size=50), rng.normal(size=(50, 50)) / 7, rng.normal(size=50)
    J = srcdiff.jacobian(layer)
    calls = {"f": lambda: layer(x, W, b), "jacobian": lambda: J(x, W, b)}
    numba_call(quick, calls, lambda: srcdiff.jacobian(layer, jit="numba"), lambda J: J(x, W, b),
               lambda j: np.testing.assert_allclose(j, J(x, W, b), rtol=1e-12, atol=1e-12))
    if jax:
        jlayer = lambda x, W, b: jnp.tanh(W @ x + b)  # noqa: E731
        np.testing.assert_allclose(J(x, W, b), jax.jacrev(jlayer)(x, W, b), rtol=1e-12, atol=1e-12)
        calls["jax jacobian"] = jit(jax.jacrev(jlayer), x, W, b)
    t = rounds_of(clock, rounds, calls)
    rows.append(("jacobian 50->50", 50, ratio(t, "jacobian", "f"), None, None,
                 ratio(t, "jacobian", "jax jacobian") if jax else None, *numba_columns(t, "jax jacobian"),
                 statistics.median(t["jacobian"])))

    n = 10_000 if quick else 1_000_000
    x, v = rng.uniform(-1.0, 1.0, n), rng.normal(size=n)
    np.testing.assert_allclose(srcdiff.hvp(rosenbrock, x, v), scipy.optimize.rosen_hess_prod(x, v), rtol=1e-12,
                               atol=1e-8)
    calls = {"grad": lambda: gradient(x), "hvp": lambda: srcdiff.hvp(rosenbrock, x, v)}
    numba_call(quick, calls, lambda: srcdiff.grad(rosenbrock, jit="numba"), lambda g: srcdiff.hvp(g, x, v),
               lambda p: np.testing.assert_allclose(p, scipy.optimize.rosen_hess_prod(x, v), rtol=1e-12, atol=1e-8))
    if jax:
        calls["jax grad"] = jit(jax.grad(jrosen), x)
        calls["jax hvp"] = jit(lambda x, v: jax.jvp(jax.grad(jrosen), (x,), (v,))[1], x, v)
    t = rounds_of(clock, max(3, rounds // 2), calls)
    rows.append((f"hvp rosenbrock n={n:.0e}", n, ratio(t, "hvp", "grad"), None,
                 ratio(t, "jax hvp", "jax grad") if jax else None,
                 ratio(t, "hvp", "jax hvp") if jax else None, *numba_columns(t, "jax hvp"),
                 statistics.median(t["hvp"])))

    W1, b1, W2 = rng.normal(size=(32, 64)) / 6, rng.normal(size=64), rng.normal(size=(64, 10)) / 8
    X, Y = rng.normal(size=(256, 32)), np.eye(10)[rng.integers(0, 10, 256)]
    per_example = srcdiff.vmap(srcdiff.grad(example_loss), in_axes=(None, None, None, 0, 0))
    one, single = srcdiff.grad(batch_loss), srcdiff.grad(example_loss)
    grads = per_example(W1, b1, W2, X, Y)
    np.testing.assert_allclose(grads.sum(axis=0), one(W1, b1, W2, X, Y), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(grads[3], single(W1, b1, W2, X[3], Y[3]), rtol=1e-10, atol=1e-12)
    calls = {"grad": lambda: one(W1, b1, W2, X, Y), "vmap": lambda: per_example(W1, b1, W2, X, Y)}
    numba_call(quick, calls, lambda: srcdiff.vmap(srcdiff.grad(example_loss), in_axes=(None, None, None, 0, 0),
                                                  jit="numba"), lambda V: V(W1, b1, W2, X, Y),
               lambda G: np.testing.assert_allclose(G, grads, rtol=1e-10, atol=1e-12))
    if jax:
        def jexample(W1, b1, W2, x, y):
            z = jnp.tanh(x @ W1 + b1) @ W2
            m = jnp.max(z)
            return m + jnp.log(jnp.sum(jnp.exp(z - m))) - jnp.sum(z * y)

        def jbatch(W1, b1, W2, X, Y):
            z = jnp.tanh(X @ W1 + b1) @ W2
            m = jnp.max(z, axis=1, keepdims=True)
            return jnp.sum(m[:, 0] + jnp.log(jnp.sum(jnp.exp(z - m), axis=1)) - jnp.sum(z * Y, axis=1))
        jvmap = jax.vmap(jax.grad(jexample), in_axes=(None, None, None, 0, 0))
        np.testing.assert_allclose(grads, jvmap(W1, b1, W2, X, Y), rtol=1e-10, atol=1e-12)
        calls["jax grad"] = jit(jax.grad(jbatch), W1, b1, W2, X, Y)
        calls["jax vmap"] = jit(jvmap, W1, b1, W2, X, Y)
    t = rounds_of(clock, rounds, calls)
    rows.append(("vmap(grad) mlp 32-64-10, batch 256", 256, ratio(t, "vmap", "grad"), None,
                 ratio(t, "jax vmap", "jax grad") if jax else None,
                 ratio(t, "vmap", "jax vmap") if jax else None, *numba_columns(t, "jax vmap"),
                 statistics.median(t["vmap"])))
    return rows


HEADER = ("case", "size", "srcdiff ratio", "per-row ratio", "JAX-jit ratio", "srcdiff ÷ JAX-jit",
          "srcdiff-numba ÷ JAX-jit", "srcdiff-numba per call", "srcdiff per call")
MEANING = ("- srcdiff ratio: Hessian / gradient (Rosenbrock, MLP, pendulum), hvp / gradient, Jacobian / f, "
           "vmap(grad) / one gradient of the batch's summed loss; median over rounds of the ratio within a round.\n"
           "- per-row ratio: the same with one pullback per row (the path before batching).\n"
           "- JAX-jit ratio: the same ratio for JAX, each side jit-compiled; srcdiff ÷ JAX-jit: srcdiff's "
           "second-order (or vmap, Jacobian) call over JAX's.\n"
           "- srcdiff-numba: the same call with jit=\"numba\" (hvp: of srcdiff.grad(f, jit=\"numba\")), over JAX's, "
           "and its time per call (blank: refused).")


def table(rows: list[tuple]) -> list[str]:
    def cell(v):
        return "" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    for name, size, *numbers, numba_per_call, per_call in rows:
        numba = "" if numba_per_call is None else f"{numba_per_call * 1e6:.0f} µs"
        cells = [name, str(size), *map(cell, numbers), numba, f"{per_call * 1e6:.0f} µs"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds, no numba (a smoke run)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--markdown", help="update this file's batching section")
    parser.add_argument("--peers-path", action="append", default=[],
                        help="a directory appended to sys.path (JAX installed in another environment)")
    opts = parser.parse_args(argv)
    sys.path.extend(opts.peers_path)
    jax = jax_module()
    rounds = min(3, opts.rounds) if opts.quick else opts.rounds
    rows = measure(rounds, opts.quick, Clock(opts.clock, 0.005 if opts.quick else 0.02), jax)
    lines = table(rows)
    print("\n".join(lines))
    if opts.markdown:
        import pathlib
        versions = f"numpy {np.__version__}" + (f", jax {jax.__version__}" if jax else ", JAX not installed")
        text = "\n".join([BEGIN, "## Batched second order and vmap beside JAX", "",
                          f"Written by `python benchmarks/batching.py --clock {opts.clock} --rounds {rounds}"
                          f"{' --quick' if opts.quick else ''} --markdown ...` ({versions}; one core, "
                          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).", "", *lines, "", MEANING, END, ""])
        path = pathlib.Path(opts.markdown)
        old = path.read_text() if path.exists() else ""
        if BEGIN in old and END in old:
            old = old[:old.index(BEGIN)] + old[old.index(END) + len(END) + 1:]
        path.write_text(old.rstrip("\n") + "\n\n" + text)
    return rows


if __name__ == "__main__":
    main()
