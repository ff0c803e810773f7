"""The default run's CPU budget: each test's measured cost, and a cost-weighted sample.

What the other samples (tests/sampling.py) leave in the default run still costs more than the
run's budget: a few hundred rows that compile a Hessian, numba or a whole matrix of
transformations hold most of its CPU time. So each test the default run would run has a
measured cost (`COSTS_FILE`, CPU seconds of its setup, call and teardown, and of the
subprocesses it ran), and the run keeps a test of cost ``c`` above a cut ``T`` with chance
``T / c``: its expected cost is at most ``T``, every cheap test runs, and a costly one runs on a
stable share of machines' runs (the share is a hash of its id, as every sample here: every run
keeps the same tests). ``T`` is chosen so that the expected total is `BUDGET` of the measured
total, whatever the measuring machine's speed. A test the file does not list (new since the
measure) counts as cheap: it runs.

A test's cost depends on what ran before it in its process: the first test to compile a
program pays for it, and a later test of the same program (its Hessian, its value at another
point, its numba version) finds the compiled code and costs little.  Where the budget leaves the
first one out, the second pays, at a cost the run without the budget never measured.  So the costs
come from two runs, and each test's is the larger of the two: one with the budget off (every test
the default run could keep) and one of the default run as sampled (``SRCDIFF_TEST_COSTS_SAMPLED=1``),
where the costs that moved are measured where they now fall.

Measure again after adding costly tests (the file is text; its header records the total)::

    SRCDIFF_TEST_COSTS=/tmp/costs python -m pytest    # every worker writes its rows there
    SRCDIFF_TEST_COSTS=/tmp/sampled SRCDIFF_TEST_COSTS_SAMPLED=1 python -m pytest
    python tests/costs.py /tmp/costs /tmp/sampled     # writes tests/test_costs.tsv

While ``SRCDIFF_TEST_COSTS`` is set the budget is off (unless ``SRCDIFF_TEST_COSTS_SAMPLED=1``), so
every test of the default run is measured.
"""

from __future__ import annotations

import os
import pathlib
import sys
import time
import zlib

import pytest

try:
    import resource
except ImportError:  # Windows
    resource = None

COSTS_FILE = pathlib.Path(__file__).parent / "test_costs.tsv"

#: the share of the measured default run's CPU time the sample keeps (in expectation)
BUDGET = 0.13

#: rows cheaper than this are not written to the file (they are under any cut the budget sets; at
#: 0.15 s the unlisted rows alone cost more than the budget, and the cut left out every listed row)
FLOOR = 0.03

RECORDING = "SRCDIFF_TEST_COSTS"  # a folder: every worker writes its measured rows there
SAMPLED = "SRCDIFF_TEST_COSTS_SAMPLED"  # "1": measure the default run as the budget samples it


def read(path: pathlib.Path = COSTS_FILE) -> tuple[dict[str, float], float]:
    """The listed costs (node id -> CPU seconds) and the measured run's total."""
    costs, total = {}, 0.0
    if not path.exists():
        return costs, total
    for line in path.read_text().splitlines():
        if line.startswith("# total "):
            total = float(line.split()[2])
        elif line and not line.startswith("#"):
            cost, _, nodeid = line.partition("\t")
            costs[nodeid] = float(cost)
    return costs, total


def cut(costs: dict[str, float], total: float, budget: float = BUDGET) -> float:
    """The cost ``T`` at which keeping each test with chance ``min(1, T / c)`` costs `budget` of
    `total` in expectation (the unlisted rows, each cheaper than `FLOOR`, all kept)."""
    ordered = sorted(costs.values())
    cheap = total - sum(ordered)  # the rows under the floor
    wanted, below = budget * total, 0.0
    for k, c in enumerate(ordered):  # with T in [ordered[k - 1], c]: k rows run whole, the rest cost T each
        if cheap + below + c * (len(ordered) - k) >= wanted:
            return max((wanted - cheap - below) / (len(ordered) - k), ordered[k - 1] if k else 0.0)
        below += c
    return float("inf")


def kept(nodeid: str, cost: float, threshold: float) -> bool:
    """Whether the default run keeps a test of measured `cost`: always below `threshold`, else by
    a hash of its id with chance ``threshold / cost``."""
    return cost <= threshold or zlib.crc32(nodeid.encode()) % 10_000 < 10_000 * threshold / cost


def mark(items) -> None:
    """Mark `slow` the measured tests the budget's sample leaves out (none while recording, unless
    the recording is of the sampled run)."""
    if os.environ.get(RECORDING) and os.environ.get(SAMPLED) != "1":
        return
    costs, total = read()
    if not costs:
        return
    threshold = cut(costs, total)
    for item in items:
        cost = costs.get(item.nodeid)
        if cost is not None and item.get_closest_marker("slow") is None and not kept(item.nodeid, cost, threshold):
            item.add_marker(pytest.mark.slow)


class Recorder:
    """A plugin writing each test's CPU seconds (setup, call and teardown) to a file of its own."""

    def __init__(self, folder: str):
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.out = open(pathlib.Path(folder) / f"costs-{worker}-{os.getpid()}.tsv", "a")  # noqa: SIM115

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        start = cpu_seconds()
        yield
        self.out.write(f"{cpu_seconds() - start:.3f}\t{item.nodeid}\n")
        self.out.flush()


def cpu_seconds() -> float:
    """This process's CPU time and its finished children's: a test running `python -m srcdiff`
    or a notebook in a subprocess costs the run what the child spends, not the wait."""
    if resource is None:  # Windows: the children's time is not reported
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def recorder() -> Recorder | None:
    folder = os.environ.get(RECORDING)
    return Recorder(folder) if folder else None


def write(folders, path: pathlib.Path = COSTS_FILE) -> None:
    """Gather the workers' rows from `folders` (one folder or several: each test's largest cost
    is kept, see the module's docstring) into `path` (sorted by id, the total in a header)."""
    if isinstance(folders, (str, pathlib.Path)):
        folders = [folders]
    costs = {}
    for folder in folders:
        for part in sorted(pathlib.Path(folder).glob("costs-*.tsv")):
            for line in part.read_text().splitlines():
                cost, _, nodeid = line.partition("\t")
                costs[nodeid] = max(costs.get(nodeid, 0.0), float(cost))
    total = sum(costs.values())
    listed = sorted((nodeid, cost) for nodeid, cost in costs.items() if cost >= FLOOR)
    header = [f"# CPU seconds each test of the default run took (tests/costs.py; {len(costs)} tests measured, "
              "the larger of two runs' costs).",
              f"# total {total:.2f} s", "# Rows under the floor are left out; regenerate as tests/costs.py says."]
    path.write_text("\n".join(header + [f"{cost:.2f}\t{nodeid}" for nodeid, cost in listed]) + "\n")
    print(f"{len(listed)} of {len(costs)} tests listed, {total:.0f} s in all; the default run keeps "
          f"about {BUDGET:.0%} of it (cut at {cut(dict((n, c) for n, c in listed), total):.2f} s)")


if __name__ == "__main__":
    write([pathlib.Path(folder) for folder in sys.argv[1:]])
