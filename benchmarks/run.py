"""Benchmark srcdiff's gradients against hand-written NumPy gradients and the peers.

    python benchmarks/run.py                      # full run, prints the table
    python benchmarks/run.py --quick              # fast smoke run (fewer, shorter rounds)
    python benchmarks/run.py --problems rosenbrock,mlp --contenders hand,srcdiff,jax-jit
    python benchmarks/run.py --markdown benchmarks/RESULTS.md

See benchmarks/README.md for how to read the numbers.
"""

# isort: off
import single_core  # first: one core, one thread per library, before NumPy loads
# isort: on

import argparse
import dataclasses
import datetime
import gc
import importlib.util
import itertools
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from select import select as wait_readable

import numpy as np
import peers
import problems

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@dataclass(frozen=True)
class Settings:
    rounds: int          # interleaved rounds; ratios are medians over rounds
    target: float        # seconds one timed batch of calls should last
    clock: str = "wall"  # a key of CLOCKS
    budget: float = 120.0  # seconds a compiling contender's build + first call may take (0: no cap)


FULL = Settings(rounds=7, target=0.05)
QUICK = Settings(rounds=3, target=0.005)

#: how time is read: the wall clock, or (``--clock cpu``) the CPU time of this process, all
#: its threads: on a busy machine, the time other processes hold the core is not counted
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


_fresh_imports = itertools.count()


def fresh_problems_module():
    """problems.py imported again under a new name: new function and code objects,
    so nothing a library cached for the old ones is reused (inspect.getsource
    still works, the file is the same)."""
    name = f"_problems_fresh_{next(_fresh_imports)}"
    spec = importlib.util.spec_from_file_location(name, problems.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------
# One contender on one problem
# --------------------------------------------------------------------------

@dataclass
class Entry:
    name: str
    grad: Callable | None = None        # the callable timed
    args: tuple = ()                    # its arguments (converted for the peer)
    result: tuple = ()                  # gradient at args, as NumPy
    first_call: float = math.nan        # build the gradient + its first call, seconds
    error: str = ""                     # why it is n/a
    trace: str = ""                     # traceback of the error
    note: str = ""
    number: int = 1                     # calls per timed batch
    times: list = field(default_factory=list)   # per-call seconds, one per round
    max_rel_err: float = math.nan
    peak: int | None = None             # bytes, memory problems only

    @property
    def ok(self):
        return not self.error


def describe(exc, contender):
    """The short reason shown in the table (paths relative to benchmarks/)."""
    srcdiff = sys.modules.get("srcdiff")
    if srcdiff is not None and isinstance(exc, getattr(srcdiff, "SrcDiffError", ())):
        return peers.first_line(exc).replace(HERE + os.sep, "")
    prefix = "crash: " if contender is peers.SRCDIFF else ""
    return f"{prefix}{type(exc).__name__}: {peers.first_line(exc)}"


def fail(entry, exc, contender):
    entry.error = describe(exc, contender)
    entry.trace = traceback.format_exc()
    entry.grad = None


def prepare(contender, problem, args, budget=0.0):
    """Build the contender's gradient from scratch and time its first call; a contender that
    compiles is first tried in a separate process, and is n/a when that takes over `budget` s."""
    entry = Entry(contender.name)
    entry.error = contender.unavailable()
    if entry.error:
        return entry
    if budget and contender.compiles:
        entry.error = over_budget(contender, problem, budget)
        if entry.error:
            return entry
    try:
        contender.clear_caches()
        module = fresh_problems_module()
        entry.args = contender.convert_args(args, problem)
        start = clock()
        entry.grad = contender.make_grad(problem, module, entry.args)
        result = entry.grad(*entry.args)
        entry.first_call = clock() - start
        entry.result = contender.to_numpy(result)
        entry.note = getattr(entry.grad, "note", "")
    except Exception as exc:  # noqa: BLE001  any failure makes the row n/a, with its reason
        fail(entry, exc, contender)
    return entry


# --------------------------------------------------------------------------
# A cap on compilation: a compiling contender's first call is tried in a child process
# --------------------------------------------------------------------------

#: seconds a child may take to import its library and warm up before its clock starts
START_UP = 120.0
READY = "ready"


def over_budget(contender, problem, budget):
    """'' when `contender` builds and first-calls its gradient of `problem` within `budget`
    seconds in a fresh child process (after the child's own warm-up), else the reason it is
    n/a. XLA's and numba's compilers cannot be interrupted from Python, so the compilation is
    tried where it can be killed; the parent then compiles again (its cache is cold)."""
    command = [sys.executable, os.path.abspath(__file__), "--probe", f"{problem.name}:{contender.name}"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = read_line(child, START_UP)
        if ready != READY:
            return ""        # the child failed before its clock started: the parent reports why
        answer = read_line(child, budget)
        if answer is None:
            return f"compile over {budget:g} s (first call, tried in a separate process)"
        if answer and float(answer) > budget:
            return f"compile over {budget:g} s (first call took {float(answer):.0f} s)"
        return ""
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def read_line(child, seconds):
    """The child's next line of output (stripped), '' at its end, None after `seconds`."""
    ready, _, _ = wait_readable([child.stdout], [], [], seconds)
    if not ready:
        return None
    return child.stdout.readline().strip()


def probe(spec):
    """In the child of `over_budget`: warm up, say READY, then print the seconds the build and
    first call of `contender` on `problem` take ('' when it fails)."""
    problem_name, contender_name = spec.split(":")
    problem, contender = problems.by_name(problem_name), peers.by_name(contender_name)
    warm_up([contender])
    print(READY, flush=True)
    entry = prepare(contender, problem, problem.args())
    print(f"{entry.first_call:.3f}" if entry.ok else "", flush=True)
    return 0


WARM_UP = ("poly", "mlp_256x784x256x10")


def warm_up(contenders):
    """Pay each library's one-time start-up (imports, backend init) before anything is
    timed, on small instances of a scalar and an array problem."""
    for problem in map(problems.by_name, WARM_UP):
        for contender in contenders:
            prepare(contender, problem, problem.args(small=True))


def max_rel_err(result, reference):
    """max over the wrt arguments of max|g - g_hand| / max|g_hand|."""
    if len(result) != len(reference):
        raise ValueError(f"{len(result)} gradients, expected {len(reference)}")
    worst = 0.0
    for got, want in zip(result, reference):
        if np.shape(got) != np.shape(want):
            raise ValueError(f"gradient of shape {np.shape(got)}, expected {np.shape(want)}")
        scale = max(float(np.max(np.abs(want))), 1e-300)
        worst = max(worst, float(np.max(np.abs(got - want))) / scale)
    return worst


# --------------------------------------------------------------------------
# Timing and memory
# --------------------------------------------------------------------------

def time_batch(fn, args, number):
    """Seconds per call over ``number`` calls, garbage collector off (as timeit)."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in range(number):
            fn(*args)
        return (clock() - start) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def calibrate(entry, settings):
    """Warm up, then choose how many calls make one batch last ``settings.target``.

    The batch that measures one call grows tenfold until it lasts a tenth of the target: a CPU
    clock that ticks coarsely can read 0 for one fast call, and a batch sized from that 0 ran
    for many minutes."""
    time_batch(entry.grad, entry.args, 1)
    number = 1
    while True:
        per_call = time_batch(entry.grad, entry.args, number)
        if per_call * number >= settings.target / 10 or number >= 10 ** 7:
            break
        number *= 10
    entry.number = max(1, int(settings.target / max(per_call, 1e-9)))


def run_rounds(entries, settings):
    """Time every entry once per round, in an order rotated each round."""
    for r in range(settings.rounds):
        shift = r % len(entries)
        for entry in entries[shift:] + entries[:shift]:
            entry.times.append(time_batch(entry.grad, entry.args, entry.number))


def peak_memory(fn, args):
    """Bytes allocated at the peak of one call, above what was live before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return peak


def median_ratio(times, base_times):
    return statistics.median(t / b for t, b in zip(times, base_times))


# --------------------------------------------------------------------------
# One problem
# --------------------------------------------------------------------------

def bench_problem(problem, contenders, settings):
    """Entries for the user's function ('f') and every contender, measured."""
    args = problem.args()
    f, hand = problem.functions(problems)
    hand(*args)   # warm the allocator (big arrays), so no contender's first call pays it
    function = Entry("f", grad=f, args=args)
    entries = [prepare(c, problem, args, settings.budget) for c in contenders]
    reference = entries[0].result if entries[0].ok else None   # contenders[0] is hand
    timed = [function]
    for contender, entry in zip(contenders, entries):
        if not entry.ok:
            continue
        try:
            if reference is not None:
                entry.max_rel_err = max_rel_err(entry.result, reference)
            calibrate(entry, settings)
            if problem.memory and contender.tracks_memory:
                entry.peak = peak_memory(entry.grad, entry.args)
            timed.append(entry)
        except Exception as exc:  # noqa: BLE001  as in prepare()
            fail(entry, exc, contender)
    calibrate(function, settings)
    run_rounds(timed, settings)
    return function, entries


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------

COLUMNS = ["problem", "contender", "per call", "grad/f", "grad/hand", "first call",
           "max rel err", "peak mem", "note"]


def fmt_time(seconds):
    if math.isnan(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_ratio(ratio):
    return "-" if ratio is None else f"{ratio:.3g}×"


def fmt_memory(entry, hand):
    if entry.peak is None:
        return ""
    text = f"{entry.peak / 2**20:.1f} MiB"
    if hand is not None and hand.peak:
        text += f" ({entry.peak / hand.peak:.2f}×)"
    return text


NOT_TRACKED = "not seen by tracemalloc"


def problem_rows(problem, function, entries):
    hand = entries[0] if entries[0].ok and entries[0].times else None
    rows = [[problem.name, "f (as written)", fmt_time(statistics.median(function.times)),
             "", "", "", "", "", "the user's function, the denominator of grad/f"]]
    for entry in entries:
        if not entry.ok:
            rows.append([problem.name, entry.name, "n/a", "", "", "", "", "",
                         f"n/a: {entry.error}"])
            continue
        vs_hand = median_ratio(entry.times, hand.times) if hand else None
        err = "-" if math.isnan(entry.max_rel_err) else f"{entry.max_rel_err:.1e}"
        peak = fmt_memory(entry, hand)
        if problem.memory and entry.peak is None:
            peak = NOT_TRACKED
        per_call = statistics.median(entry.times)
        setup = max(entry.first_call - per_call, 0.0)
        rows.append([problem.name, entry.name, fmt_time(per_call),
                     fmt_ratio(median_ratio(entry.times, function.times)),
                     fmt_ratio(vs_hand), fmt_time(setup), err, peak, entry.note])
    return rows


def text_table(rows):
    widths = [max(len(str(r[i])) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]

    def line(cells):
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    out = [line(COLUMNS), line("-" * w for w in widths)]
    previous = None
    for row in rows:
        if previous is not None and row[0] != previous:
            out.append("")
        out.append(line(row))
        previous = row[0]
    return "\n".join(out)


def markdown_table(rows):
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(COLUMNS), line("---" for _ in COLUMNS), *map(line, rows)])


def versions(contenders):
    found = {"python": platform.python_version(), "numpy": np.__version__}
    for contender in contenders:
        if contender is not peers.HAND and not contender.unavailable():
            found[contender.module] = contender.version()
    if "srcdiff" in found:
        found["srcdiff"] += f" ({git_revision()})"
    return ", ".join(f"{k} {v}" for k, v in found.items())


def git_revision():
    """The working tree's commit, '+changes' when it differs from it."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        revision = git("rev-parse", "--short", "HEAD")
    except (OSError, subprocess.CalledProcessError):
        return "no git commit"
    return revision + ("+changes" if git("status", "--porcelain", "--", "srcdiff") else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def header(settings, contenders):
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return [
        f"date: {now}",
        (f"machine: {cpu_model()}, {os.cpu_count()} cores; "
         f"pinned to core {single_core.CORE}, one thread per library"),
        f"versions: {versions(contenders)}",
        f"rounds: {settings.rounds}, about {fmt_time(settings.target)} per timed batch, "
        + ("wall-clock time" if settings.clock == "wall" else "CPU time of the process (all its threads)"),
        f"compile budget: {settings.budget:g} s for a compiling contender's build + first call"
        if settings.budget else "compile budget: none",
    ]


LEGEND = """\
per call: median over rounds of the mean time of one gradient call.
grad/f: median over rounds of (gradient time / time of the user's NumPy function).
grad/hand: median over rounds of (gradient time / hand-written gradient time).
first call: one-time cost (parse/transform/trace/compile): build + first call from scratch, minus per call.
max rel err: max |g - g_hand| / max |g_hand| over the differentiated arguments.
peak mem: tracemalloc peak of one gradient call (NumPy allocations), with the ratio to hand-written."""


def markdown_report(header_lines, rows, argv):
    command = " ".join(["python benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)])
    bullets = "".join(f"- {line}\n" for line in header_lines)
    legend = "".join(f"- {line}\n" for line in LEGEND.splitlines())
    return (f"# Benchmark results\n\nWritten by `{command}`; see README.md for how to read it.\n\n"
            f"{bullets}\n{markdown_table(rows)}\n\n{legend}")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def matching(items, word):
    """Items named ``word`` exactly, else those whose name contains it."""
    exact = [item for item in items if item.name == word]
    return exact or [item for item in items if word in item.name]


def select(items, names, what):
    """Items matching one of the comma-separated ``names`` (all if None), in table order."""
    if not names:
        return list(items)
    chosen = set()
    for word in filter(None, (n.strip() for n in names.split(","))):
        found = matching(items, word)
        if not found:
            sys.exit(f"no {what} matches {word!r}; known: {', '.join(i.name for i in items)}")
        chosen.update(item.name for item in found)
    return [item for item in items if item.name in chosen]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 7, 3 with --quick); "
                        "more rounds steady the medians on a busy machine")
    parser.add_argument("--problems", help="comma-separated names or parts of names")
    parser.add_argument("--contenders", help="comma-separated contenders "
                        f"({', '.join(c.name for c in peers.CONTENDERS)}); 'hand' is always run")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time (default) or this process's CPU time (steadier on a busy machine)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the results as Markdown")
    parser.add_argument("--tracebacks", action="store_true",
                        help="print the traceback of every failure")
    parser.add_argument("--budget", type=float, default=FULL.budget, metavar="SECONDS",
                        help="cap on a compiling contender's build + first call (jax-jit, srcdiff-numba), tried "
                        f"in a separate process first; over it the row is n/a (default {FULL.budget:.0f}, 0: no cap)")
    parser.add_argument("--probe", help=argparse.SUPPRESS)   # PROBLEM:CONTENDER, the child of over_budget
    return parser.parse_args(argv)


def report_failures(all_entries, show_tracebacks):
    """Tracebacks of srcdiff's crashes (errors other than SrcDiffError), or of all."""
    for problem, entry in all_entries:
        crashed = entry.name == "srcdiff" and entry.error.startswith("crash:")
        if entry.trace and (show_tracebacks or crashed):
            print(f"\n--- {entry.name} on {problem.name} ---\n{entry.trace}", file=sys.stderr)


def main(argv=None):
    sys.path.insert(0, ROOT)   # benchmark the working tree's srcdiff
    opts = parse_args(argv)
    settings = QUICK if opts.quick else FULL
    settings = dataclasses.replace(settings, rounds=opts.rounds or settings.rounds, clock=opts.clock,
                                   budget=opts.budget)
    global clock
    clock = CLOCKS[settings.clock]
    if opts.probe:
        return probe(opts.probe)
    chosen = select(peers.CONTENDERS, opts.contenders, "contender")
    contenders = [peers.HAND] + [c for c in chosen if c is not peers.HAND]
    print("\n".join(header(settings, contenders)), flush=True)
    started = time.perf_counter()
    warm_up(contenders)
    rows, all_entries = [], []
    for problem in select(problems.PROBLEMS, opts.problems, "problem"):
        print(f"... {problem.name}", file=sys.stderr, flush=True)
        function, entries = bench_problem(problem, contenders, settings)
        rows += problem_rows(problem, function, entries)
        all_entries += [(problem, e) for e in entries]
    print()
    print(text_table(rows))
    print()
    print(LEGEND)
    print(f"\nthe run took {fmt_time(time.perf_counter() - started)} (wall clock)")
    report_failures(all_entries, opts.tracebacks)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write(markdown_report(header(settings, contenders), rows, argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
