"""Which rows of the costly test families the default run keeps; a run that selects the slow
set (``-m slow``) runs every row.

Every sample is a stable hash of the test's id (zlib.crc32, never random): each machine and
each run keeps the same tests, and ``python -m pytest --collect-only -q`` lists them.  A row
left out of the default run is marked ``slow``; tests/conftest.py applies `mark` before
pytest's own ``-m`` selection reads the marks.

* The parametrized *families* (`FAMILY`): the second-order batteries (a test function whose name
  says it checks second derivatives) and the per-row families named in `FAMILY_NAMES`.  Of each
  family of `FAMILY_MIN_ROWS` rows or more the default run keeps one row in `FAMILY_SAMPLE`
  (at least one); where the family crosses its programs (the parameter of the most values)
  with others (transformations, dtypes, options), also a row for each value of those, so that
  every transformation of the grid still runs: only its combinations with programs are sampled.
* numba: one in `NUMBA_SAMPLE` of the tests that compile with numba outside tests/backend.
* The rows of `HEAVY_ROWS` (tests/heavy_rows.txt), the costliest single rows, measured.
* The construct tables' rows (`EVERY_ROW_TESTS`) run in the default run with `srcdiff.check` and
  `hessian` on a sample (transforms/matrix.py, SAMPLE), and of each table's
  `test_every_transformation` one row in `ROW_SAMPLE`; the slow set runs them again, every cell.
"""

from __future__ import annotations

import collections
import pathlib
import re
import zlib

import costs
import pytest
from transforms import matrix

#: a parametrized test function whose name matches checks second derivatives, row by row
FAMILY = re.compile(r"second_order|hessian|hvp")

#: other per-row families (by function name) whose rows each take a second or more: sympy's proof
#: of each rule, numba's compiles of each program
FAMILY_NAMES = frozenset({"test_every_transformation_goes_through_every_helper", "test_rule_agrees_with_sympy",
                          "test_numba_methods_agree_with_scipy", "test_numba_agrees_with_central_differences",
                          "test_numba_gradient_agrees_with_central_differences_and_numpy",
                          "test_float32_gradients_stay_float32", "test_each_row_optimised_as_unoptimised"})

#: the default run keeps one row of a sampled family in FAMILY_SAMPLE (with every value of
#: its smaller parameters)
FAMILY_SAMPLE = 24

#: a family of fewer rows runs whole (its rows are mostly named special points)
FAMILY_MIN_ROWS = 4

#: The default run keeps one in NUMBA_SAMPLE of the tests that compile with numba outside
#: tests/backend: a cold numba cache, as on a fresh machine, compiles for seconds per test.
#: tests/backend (the jit path itself, and the cross-process naming regression) always runs.
#: (A multiple of the samples before it, 3, 6, 12 and 24: what it keeps, those kept too.)
NUMBA_SAMPLE = 48

#: the construct tables' rows (matrix.assert_every_transformation)
EVERY_ROW_TESTS = ("test_every_transformation", "test_every_second_order_transformation")

#: The default run keeps one row in ROW_SAMPLE of each construct table's `test_every_transformation`
#: (at least one a table): each row runs five transformations or more; the slow set runs them all.
ROW_SAMPLE = 8


#: the rows left out of the default run for their cost alone (tests/heavy_rows.txt: its header says how
#: they were chosen); the slow set runs them
HEAVY_FILE = pathlib.Path(__file__).parent / "heavy_rows.txt"
HEAVY_ROWS = frozenset(line.strip() for line in HEAVY_FILE.read_text().splitlines()
                       if line.strip() and not line.startswith("#"))


def _hash(item) -> int:
    return zlib.crc32(item.nodeid.encode())


def _slow(item) -> bool:
    return item.get_closest_marker("slow") is not None


def in_family(item) -> bool:
    """Whether `item` is a row of a sampled parametrized family."""
    name = getattr(item, "originalname", None) or ""
    return hasattr(item, "callspec") and (FAMILY.search(name) is not None or name in FAMILY_NAMES)


def _value(row, name):
    """Which value of parameter `name` the row takes: the value itself if it is a plain one
    (one parametrize call may cross two names: ``("program", "transform")``), else its index."""
    value = row.callspec.params.get(name)
    return value if isinstance(value, (str, int, float, bool)) else row.callspec.indices.get(name)


def _together(rows, a, b) -> bool:
    """Whether parameters `a` and `b` move together (each value of one goes with one of the other)."""
    pairs = {(_value(r, a), _value(r, b)) for r in rows}
    return len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


def family_sample(rows: list) -> set:
    """The node ids of `rows` (the rows of one family) the default run keeps: one in
    FAMILY_SAMPLE by hash, at least one, and where the family crosses its programs (the
    parameter of the most values) with others (transformations, dtypes, options), a row for
    each value of each of those."""
    kept = {r.nodeid for r in rows if _hash(r) % FAMILY_SAMPLE == 0}
    ordered = sorted(rows, key=_hash)
    if not kept:
        kept.add(ordered[0].nodeid)
    names = [n for n in sorted({n for r in rows for n in r.callspec.params}) if len({_value(r, n) for r in rows}) > 1]
    if all(_together(rows, a, b) for a in names for b in names):
        return kept  # one parameter (its names move together: ``"name, shape"``): the programs
    main = max(len({_value(r, n) for r in rows}) for n in names)
    for name in names:
        if len({_value(r, name) for r in rows}) == main:
            continue  # the family's programs: sampled
        for value in {_value(r, name) for r in rows}:
            if not any(r.nodeid in kept and _value(r, name) == value for r in rows):
                kept.add(next(r.nodeid for r in ordered if _value(r, name) == value))
    return kept


def selects_slow(config) -> bool:
    """Whether the run's ``-m`` expression selects the slow set."""
    expression = config.getoption("markexpr") or ""
    return "slow" in expression.replace("not slow", "")


def families(items) -> list:
    """The sampled families among `items`, each a list of its rows (FAMILY_MIN_ROWS or more)."""
    found = collections.defaultdict(list)
    for item in items:
        if in_family(item):
            found[item.nodeid.partition("[")[0]].append(item)
    return [rows for rows in found.values() if len(rows) >= FAMILY_MIN_ROWS]


def construct_tables(items) -> list:
    """The rows of each construct table's `test_every_transformation` the default run would run."""
    found = collections.defaultdict(list)
    for item in items:
        if getattr(item, "originalname", None) == EVERY_ROW_TESTS[0] and hasattr(item, "callspec") \
                and not _slow(item):
            found[item.nodeid.partition("[")[0]].append(item)
    return list(found.values())


def mark(config, items) -> None:
    """Mark `slow` what the default run leaves out; with the slow set selected, mark every row of
    the sampled families and construct tables slow, so that it runs them all."""
    if selects_slow(config):
        matrix.sample_everything()
        for item in items:
            if getattr(item, "originalname", None) in EVERY_ROW_TESTS:
                item.add_marker(pytest.mark.slow)
        for rows in families(items):
            for r in rows:
                r.add_marker(pytest.mark.slow)
    else:
        for rows in families(items):
            rows = [r for r in rows if not _slow(r)]  # a row its file sends to the slow set stays there
            kept = family_sample(rows) if rows else set()
            for r in rows:
                if r.nodeid not in kept:
                    r.add_marker(pytest.mark.slow)
        for rows in construct_tables(items):
            ordered = sorted(rows, key=_hash)
            for r in ordered[1:]:  # the first by hash always runs
                if _hash(r) % ROW_SAMPLE:
                    r.add_marker(pytest.mark.slow)
    for item in items:
        if item.nodeid in HEAVY_ROWS:
            item.add_marker(pytest.mark.slow)
        nodeid = item.nodeid.lower()
        if ("numba" in nodeid or "jit" in nodeid) and not nodeid.startswith("tests/backend/") \
                and not _slow(item) and _hash(item) % NUMBA_SAMPLE:
            item.add_marker(pytest.mark.slow)
    # last: of what the samples above keep, a share within the CPU budget; with the slow set selected
    # too, so that it runs the rows the budget leaves out (unmarked, `-m slow` would run them nowhere)
    costs.mark(items)
