"""Peak memory of a long loop's gradient with and without ``checkpoint=k`` (tracemalloc).

    python benchmarks/checkpoint_memory.py                      # prints a markdown table
    python benchmarks/checkpoint_memory.py --markdown benchmarks/RESULTS.md   # updates its section

The function is a scalar simulation (a damped pendulum stepped n times); its gradient with
respect to the damping keeps every step's values without checkpoints (O(n) memory) and the
state every k steps plus one segment's values with them (O(n/k + k); k = sqrt(n) gives
O(sqrt n)).  Each gradient is compiled first, so only the call is measured.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time
import tracemalloc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import srcdiff  # noqa: E402

BEGIN, END = "<!-- checkpoint_memory: begin -->", "<!-- checkpoint_memory: end -->"


def pendulum(damping, n):
    """Angle after n steps of a damped pendulum (semi-implicit Euler)."""
    theta = 1.0
    omega = 0.0
    dt = 0.01
    for _step in range(n):
        omega = omega - dt * (math.sin(theta) + damping * omega)
        theta = theta + dt * omega
    return theta


def peak(gradient, *args) -> tuple[float, float, float]:
    """(peak MB allocated during one call, seconds, the gradient)."""
    gradient(*args)  # compiled and warmed up outside the measurement
    tracemalloc.start()
    start = time.perf_counter()
    value = gradient(*args)
    seconds = time.perf_counter() - start
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top / 1e6, seconds, value


def measure(steps=(1_000, 10_000, 100_000)) -> list[dict]:
    rows = []
    plain = srcdiff.grad(pendulum)
    for n in steps:
        k = max(1, round(math.sqrt(n)))
        checkpointed = srcdiff.grad(pendulum, checkpoint=k)
        mb, seconds, g = peak(plain, 0.3, n)
        mb_k, seconds_k, g_k = peak(checkpointed, 0.3, n)
        rows.append({"n": n, "k": k, "plain_mb": mb, "checkpoint_mb": mb_k, "plain_s": seconds,
                     "checkpoint_s": seconds_k, "equal": g == g_k})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [BEGIN, "## Checkpointing: peak memory of a long loop's gradient", "",
             "Written by `python benchmarks/checkpoint_memory.py --markdown benchmarks/RESULTS.md` "
             "(tracemalloc peak during one call of the compiled gradient of `pendulum(damping, n)`, "
             "a scalar simulation; k = round(sqrt(n)); times are one call under tracemalloc, which slows "
             "it, wall clock).", "",
             "| steps n | k | peak, no checkpoint | peak, checkpoint=k | ratio | time, no checkpoint | "
             "time, checkpoint=k | same gradient |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['n']:,} | {r['k']} | {r['plain_mb']:.3f} MB | {r['checkpoint_mb']:.3f} MB | "
                     f"{r['plain_mb'] / r['checkpoint_mb']:.0f}× | {r['plain_s'] * 1e3:.1f} ms | "
                     f"{r['checkpoint_s'] * 1e3:.1f} ms | {'bitwise' if r['equal'] else 'NO'} |")
    lines += ["", "Without checkpoints the memory grows with n (every step's values are kept); with "
              "k = sqrt(n) it grows with sqrt(n): the state every k steps plus one segment's values. "
              "The price is one more forward pass (the segments are recomputed).", END]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="update this file's checkpoint section")
    parser.add_argument("--steps", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    options = parser.parse_args()
    text = markdown(measure(options.steps))
    print(text)
    if options.markdown:
        path = pathlib.Path(options.markdown)
        old = path.read_text() if path.exists() else ""
        if BEGIN in old and END in old:
            old = old[:old.index(BEGIN)] + old[old.index(END) + len(END) + 1:]
        path.write_text(old.rstrip("\n") + "\n\n" + text)


if __name__ == "__main__":
    main()
