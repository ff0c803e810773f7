"""jit="numba" with and without fused loops, beside hand-written NumPy and jax.jit.

    python benchmarks/numba_fusion.py                       # every problem, 7 rounds
    python benchmarks/numba_fusion.py --peers-path DIR      # DIR: a site-packages with JAX
    python benchmarks/numba_fusion.py --markdown FILE       # also write the table

Four problems: the two the fusion pass was written against (rosenbrock_1e6, rk4_helper from
problems.py) and two it was not (a logistic loss on 1e6 points written with ``log1p(exp)``,
and a Lennard-Jones energy of 300 particles, pairwise distances through broadcasting).
Contenders: ``hand`` (the reference), ``srcdiff`` (NumPy), ``numba-unfused`` (jit="numba"
with the fusion pass switched off: the code as it was before it), ``numba`` (fused), and
``jax-jit`` when JAX imports.  Times are CPU seconds of this process, one core, one thread;
ratios are medians over interleaved rounds of (time / hand's time).
"""

# isort: off
import single_core  # first: one core, one thread per library, before NumPy loads
# isort: on

import argparse
import gc
import platform
import statistics
import sys
import time

import numpy as np
import peers
import problems

import srcdiff
from srcdiff.backend.numba import fusion

# --------------------------------------------------------------------------
# The problems the fusion pass was not written against
# --------------------------------------------------------------------------


def logistic_1d(w, b, x, t):
    m = -t * (w * x + b)
    return np.sum(np.log1p(np.exp(m))) / x.shape[0]


def logistic_1d_grad(w, b, x, t):
    e = np.exp(-t * (w * x + b))
    s = -t * (e / (1.0 + e)) / x.shape[0]
    return np.dot(s, x), np.sum(s)


def logistic_1d_args(n=1_000_000, seed=11):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    t = np.where(rng.standard_normal(n) + 0.8 * x > 0, 1.0, -1.0)
    return 0.4, -0.1, x, t


def lennard_jones(pos, mask):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=2) + (1.0 - mask)
    inv6 = 1.0 / (r2 * r2 * r2)
    return 2.0 * np.sum((inv6 * inv6 - inv6) * mask)


def lennard_jones_grad(pos, mask):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=2) + (1.0 - mask)
    inv6 = 1.0 / (r2 * r2 * r2)
    g = -6.0 * mask * (2.0 * inv6 - 1.0) * inv6 / r2  # dE / dr2
    return 2.0 * np.sum((g + g.T)[:, :, None] * d, axis=1)


def lennard_jones_args(n=300, seed=12):
    rng = np.random.default_rng(seed)
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    return 1.2 * grid + 0.05 * rng.standard_normal((n, 3)), 1.0 - np.eye(n)


def jax_versions(jnp):
    def logistic(w, b, x, t):
        return jnp.sum(jnp.log1p(jnp.exp(-t * (w * x + b)))) / x.shape[0]

    def lj(pos, mask):
        d = pos[:, None, :] - pos[None, :, :]
        r2 = jnp.sum(d * d, axis=2) + (1.0 - mask)
        inv6 = 1.0 / (r2 * r2 * r2)
        return 2.0 * jnp.sum((inv6 * inv6 - inv6) * mask)

    return {"logistic_1d": logistic, "lennard_jones": lj}


# name -> (user function, hand gradient, arguments, wrt, JAX function maker)
PROBLEMS = {
    "rosenbrock_1e6": (problems.rosenbrock, problems.rosenbrock_grad, lambda: problems.rosenbrock_args(1_000_000),
                       (0,), lambda jnp: peers.numpy_api_versions(jnp)["rosenbrock"]),
    "rk4_helper": (problems.rk4, problems.rk4_grad, problems.rk4_args, (0, 1),
                   lambda jnp: peers.numpy_api_versions(jnp)["rk4"]),
    "logistic_1e6 (untuned)": (logistic_1d, logistic_1d_grad, logistic_1d_args, (0, 1),
                               lambda jnp: jax_versions(jnp)["logistic_1d"]),
    "lennard_jones_300 (untuned)": (lennard_jones, lennard_jones_grad, lennard_jones_args, (0,),
                                    lambda jnp: jax_versions(jnp)["lennard_jones"]),
}


def contenders(f, hand, args, wrt, jax_maker):
    made = {"hand": hand, "srcdiff": srcdiff.grad(f, wrt=wrt)}
    unfused = srcdiff.grad(f, wrt=wrt, jit="numba")
    keep = fusion.fused
    fusion.fused = lambda built, made, key: built  # the pass off: the module as it was before it
    try:
        unfused(*args)
    finally:
        fusion.fused = keep
    made["numba-unfused"] = unfused.variant_for(*args).jitted  # (without the signature guard: a bit faster)
    srcdiff.clear_cache()
    made["numba"] = srcdiff.grad(f, wrt=wrt, jit="numba")
    try:
        jax = peers._jax()
    except ImportError:
        return made
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    df = jax.jit(jax.grad(jax_maker(jax.numpy), argnums=wrt if len(wrt) > 1 else wrt[0]), static_argnums=static)
    jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    made["jax-jit"] = (lambda *a: jax.block_until_ready(df(*jargs)))
    return made


def per_call(fn, args, number):
    gc.disable()
    try:
        start = time.process_time()
        for _ in range(number):
            fn(*args)
        return (time.process_time() - start) / number
    finally:
        gc.enable()


def measure(name, rounds):
    f, hand, make, wrt, jax_maker = PROBLEMS[name]
    args = make()
    made = contenders(f, hand, args, wrt, jax_maker)
    want = hand(*args)
    want = want if isinstance(want, tuple) else (want,)
    numbers = {}
    for label, fn in made.items():
        got = fn(*args)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-8, atol=1e-10 * np.max(np.abs(w)))
        once = per_call(fn, args, 1)
        numbers[label] = max(1, int(0.05 / max(once, 1e-9)))
    times = {label: [] for label in made}
    for r in range(rounds):
        labels = list(made)
        labels = labels[r % len(labels):] + labels[:r % len(labels)]
        for label in labels:
            times[label].append(per_call(made[label], args, numbers[label]))
    rows = []
    for label in made:
        ratio = statistics.median(t / h for t, h in zip(times[label], times["hand"]))
        rows.append((name, label, statistics.median(times[label]), ratio))
    return rows


def fmt(seconds):
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--problems", help="comma-separated parts of problem names")
    parser.add_argument("--peers-path", help="a site-packages folder to import JAX from")
    parser.add_argument("--markdown", metavar="FILE")
    options = parser.parse_args(argv)
    if options.peers_path:
        sys.path.append(options.peers_path)
    names = [n for n in PROBLEMS if not options.problems or any(p in n for p in options.problems.split(","))]
    lines = [f"- machine: {platform.processor() or platform.machine()}, core {single_core.CORE}, "
             f"CPU time, {options.rounds} rounds", "",
             "| problem | contender | per call | / hand |", "| --- | --- | --- | --- |"]
    for name in names:
        for problem, label, seconds, ratio in measure(name, options.rounds):
            lines.append(f"| {problem} | {label} | {fmt(seconds)} | {ratio:.3g}× |")
            print(lines[-1], flush=True)
    if options.markdown:
        with open(options.markdown, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
