"""The first call of a ``jit="numba"`` gradient in a fresh process, cold and warm.

    python benchmarks/numba_first_call.py [--problems rnn,rk4 | all] [--profile]

Times are CPU times of the child (the machine may be shared), which runs one thread per
library (``OMP_NUM_THREADS`` and the like are 1 unless set).  For each problem, two fresh
``python -c`` processes run one after the other on the same empty cache folder
(``SRCDIFF_NUMBA_CACHE``): the first compiles (cold), the second finds the compiled code on
disk (warm).  Each child reports where its first call went: importing srcdiff, importing
numba (and srcdiff's numba helpers), srcdiff's own work (lowering, transforming, rendering
the module) and the compiled call (numba's compilation, or its loading of the cache).
``--profile`` prints the warm child's top functions too.

The children read and write bytecode (``__pycache__``) in a folder of their own, as an
installed package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set: without bytecode,
importing srcdiff compiles its ~300 modules' source on every start (0.4 s instead of 0.15 s).
``--baseline DIR`` measures another copy of srcdiff (a checkout of an earlier commit:
``git archive <commit> | tar -x -C DIR``) in the same run, row by row: "before" and "after".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROBLEMS = ("scalar_loop", "rnn_seq_T50_h128", "rnn_T50_h128", "rk4_helper", "mlp_256x784x256x10")

CHILD = r"""
import json, sys, time
t0 = time.process_time()
import srcdiff
t1 = time.process_time()
import numba, srcdiff.backend.numba.runtime
t2 = time.process_time()
sys.path.insert(0, {here!r})
import problems
problem = problems.by_name({name!r})
func, _ = problem.functions(problems)
args = problem.args()
from srcdiff.backend import jit
built = {{}}
original = jit.numba_function
def timed(*a, **k):
    start = time.process_time()
    run = original(*a, **k)
    built["module"] = time.process_time() - start
    def first(*args):
        start = time.process_time()
        try:
            return run(*args)
        finally:
            built.setdefault("call", time.process_time() - start)
    return first
jit.numba_function = timed
t3 = time.process_time()
if {profile}:
    import cProfile, pstats
    profiler = cProfile.Profile()
    profiler.enable()
df = srcdiff.grad(func, wrt=problem.wrt, jit="numba")
df(*args)
t4 = time.process_time()
if {profile}:
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(35)
start = time.process_time()
df(*args)
again = time.process_time() - start
print(json.dumps({{"import srcdiff": t1 - t0, "import numba": t2 - t1, "first call": t4 - t3,
                  "module": built.get("module", 0.0), "compiled call": built.get("call", 0.0),
                  "second call": again}}))
"""


def child(name: str, cache: str, profile: bool = False, root: Path = ROOT, bytecode: str = "") -> dict:
    # one thread per library, as run.py measures: the children's CPU time otherwise counts
    # OpenBLAS's threads waiting for work (0.5 s of the batched RNN's first call on a busy machine)
    threads = {name: os.environ.get(name, "1") for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                             "MKL_NUM_THREADS")}
    env = dict(os.environ, SRCDIFF_NUMBA_CACHE=cache, PYTHONPATH=str(root), **threads)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = bytecode
        subprocess.run([sys.executable, "-c", "import srcdiff, numba, srcdiff.backend.numba.runtime"], env=env,
                       check=True)  # (writes the bytecode a later child reads)
    code = CHILD.format(here=str(HERE), name=name, profile=profile)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    if profile:
        print(done.stderr, file=sys.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--baseline", default=None, help="another srcdiff checkout, measured beside this one")
    opts = parser.parse_args(argv)
    if opts.problems == "all":  # every problem of problems.py, not only the five measured by default
        sys.path.insert(0, str(HERE))
        import problems
        wanted = [p.name for p in problems.PROBLEMS]
    else:
        wanted = [p for p in PROBLEMS if any(w in p for w in opts.problems.split(","))]
    copies = [("after", ROOT)] + ([("before", Path(opts.baseline).resolve())] if opts.baseline else [])
    print(f"{'problem':22s} {'copy':6s} {'run':5s} {'import srcdiff':>14s} {'import numba':>13s} "
          f"{'srcdiff work':>13s} {'compiled call':>14s} {'first call':>11s} {'total':>7s}")
    for name in wanted:
        totals = {}
        for label, root in copies:
            with tempfile.TemporaryDirectory(prefix="srcdiff-first-call-") as cache, \
                    tempfile.TemporaryDirectory(prefix="srcdiff-bytecode-") as bytecode:
                results = {}
                for run in ("cold", "warm"):
                    r = child(name, cache, opts.profile and run == "warm", root, bytecode)
                    results[run] = r
                    work = r["first call"] - r["compiled call"]
                    total = r["import srcdiff"] + r["import numba"] + r["first call"]
                    print(f"{name:22s} {label:6s} {run:5s} {r['import srcdiff']:14.3f} {r['import numba']:13.3f} "
                          f"{work:13.3f} {r['compiled call']:14.3f} {r['first call']:11.3f} {total:7.3f}")
                    totals[label, run] = total
                cold, warm = results["cold"]["first call"], results["warm"]["first call"]
                print(f"{'':22s} {label:6s} warm / cold first call: {warm / cold:.2f}")
        if opts.baseline:
            print(f"{'':22s} warm total after / before: {totals['after', 'warm'] / totals['before', 'warm']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
