"""One program through every transformation, each answer classified.

A *cell* is one transformation of one program: ``ok`` (agrees with float64 central
differences of `f`, or for second order of the already-checked gradient), ``refused`` (a
`SrcDiffError`; `located` says whether it names a line of the user's file rather than
generated code), ``crash`` (any other exception) or ``WRONG`` (an answer that disagrees
with a stable reference: the worst outcome).  A program whose own central differences are
unstable at its point (a kink, a branch switch nearby) has no reference and is excluded.

    row = run(program, TRANSFORMS)      # matrix_report.py prints the table of a whole corpus

The cells a row may name are cell_table.STANDARD (every transformation of the suite, listed in that
one place); ``run(..., cells=...)`` and every ``assert_*`` below take another table instead, for a
module with a cell of its own: ``cells={**cell_table.STANDARD, "mine": cell_mine}``.  The reference
and the comparisons are in reference.py, the first cells in base_cells.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import signal
import traceback
import zlib
from pathlib import Path

import numpy as np

import srcdiff

from . import trees_wrapped
from .base_cells import CHECK_SECONDS, HESSIAN_MAX  # noqa: F401  (read as matrix.*)
from .cell_table import STANDARD
from .corpus import Program
from .reference import CRASH, NA, OK, REFUSED, WRONG, Reference, Wrong, check_value, first_order  # noqa: F401
from .reference import quiet as _quiet

TRANSFORMS = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "numba", "check", "tree")
CELL_SECONDS = 120  # of CPU time (see _limit)
CELL_WALL_FACTOR = 5  # the wall-clock limit, in CELL_SECONDS
#: modules written before wave 36 wrote their cells into this copy of STANDARD when imported (the
#: names they wrote are in STANDARD now); a new module passes ``cells=`` instead
#: (test_wave36f.py's test_no_module_writes_into_another_modules_globals keeps it so)
CELLS = dict(STANDARD)
_value = check_value  # (the name a wave-35 module read)
PACKAGE = Path(srcdiff.__file__).resolve().parent


@dataclasses.dataclass
class Cell:
    outcome: str
    detail: str = ""  # ok: how (proved, hvp); refused / crash: the message's class
    message: str = ""  # the full first line
    located: bool = True  # a refusal that names a line of the user's file


@dataclasses.dataclass
class Row:
    program: Program
    cells: dict = dataclasses.field(default_factory=dict)
    excluded: str = ""  # why the program has no reference (then no cells)


class Timeout(Exception):
    pass


@contextlib.contextmanager
def _limit(seconds: int):
    # CPU time of this process (ITIMER_PROF, every thread): a machine busy with other work
    # stretches a cell's wall time, not its CPU time; the wall-clock alarm, some times longer,
    # still stops a cell that waits without computing
    def expire(signum, frame):
        raise Timeout(f"no answer within {seconds} s of CPU time" if signum == signal.SIGPROF
                      else f"no answer within {seconds * CELL_WALL_FACTOR} s")
    old = signal.signal(signal.SIGPROF, expire), signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.alarm(seconds * CELL_WALL_FACTOR)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])





_MENTIONED = re.compile(r"([\w.-]+\.py):\d+")


def located(exc: srcdiff.SrcDiffError) -> bool:
    """Whether the error names a line of a user's file (not generated code, not srcdiff):
    as its `location`, or spelled in its message (``model.py:12``)."""
    where = exc.location
    if where is not None and where.filename:
        path = Path(where.filename)
        return path.is_file() and PACKAGE not in path.resolve().parents
    return any(not list(PACKAGE.rglob(name)) for name in _MENTIONED.findall(str(exc).splitlines()[0]))


def reason_class(text: str) -> str:
    """A message with its particulars (names, numbers, quoted code) replaced, for grouping."""
    text = text.splitlines()[0] if text else ""
    text = re.sub(r"^(?:.*[/\\])?[\w.-]+\.py:\d+: ", "", text)  # where: not part of the class
    text = re.sub(r"\(the adjoint of [^)]*\)|\(its forward computation\)", "(…)", text)
    text = re.sub(r"\b(call of|through|at|of|helper|function) [A-Za-z_][\w.]*", r"\1 …", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"\b\w+\.\w+(\.\w+)*\b",
                  lambda m: m.group(0) if m.group(0).startswith(("np.", "numpy.", "math.")) else "…", text)
    return text[:160]


def _crash_site(exc: BaseException) -> str:
    """The innermost srcdiff function the exception went through (or 'generated code')."""
    site = "outside srcdiff"
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if PACKAGE in path.resolve().parents:
            site = f"{path.relative_to(PACKAGE.parent)}:{frame.name}"
        elif frame.filename.startswith("<"):
            site = "generated code"
    return site


def run_cell(name: str, ref: Reference, cells=None) -> Cell:
    """Cell `name` of `cells` (CELLS, the standard table, when None) at `ref`, classified."""
    try:
        with _quiet(), _limit(CELL_SECONDS):
            found = (CELLS if cells is None else cells)[name](ref)
    except Wrong as exc:
        return Cell(WRONG, str(exc), str(exc))
    except trees_wrapped.NotWrapped as exc:
        return Cell(NA, str(exc))
    except srcdiff.SrcDiffError as exc:
        reason = getattr(exc, "reason", str(exc))
        return Cell(REFUSED, reason_class(reason), str(exc).splitlines()[0], located(exc))
    except Exception as exc:  # noqa: BLE001  every other exception is a crash, classified
        first = str(exc).splitlines()[0] if str(exc) else ""
        return Cell(CRASH, f"{type(exc).__name__}: {reason_class(first)} [{_crash_site(exc)}]",
                    f"{type(exc).__name__}: {first}")
    outcome, detail = found if found else (OK, "")
    return Cell(outcome, detail)


def not_ok(row: Row) -> dict:
    """The cells of `row` that are not ok: transformation -> (outcome, the message's start)."""
    return {name: (cell.outcome, cell.message[:300]) for name, cell in row.cells.items() if cell.outcome != OK}


#: what a program of a construct's own table goes through (numba apart: it may refuse at the line)
EVERY = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", "check")
#: the first-order transformations (a table's second-order and numba rows run apart, on a sample)
FIRST_ORDER = ("grad", "value_and_grad", "jvp", "vjp", "tree")

#: The costly cells of a row of several transformations run on a stable sample of programs (a
#: hash of the program's name), one in SAMPLE[name]: `check` (sympy, about 5 s a program, 10
#: where its simplifying runs to the limit; a multiple of the earlier 4, so the programs it checks
#: were checked before too) and `hessian` (a second derivative compiled: two thirds of a construct
#: row's time without `check`).  A row asking for one transformation alone always runs it.  The
#: slow set (`-m slow`) runs every row again with every sample 1 (tests/sampling.py sets them), and
#: so does matrix_report.py's measurement.
SAMPLE = {"check": 8, "hessian": 3}


def sampled(p: Program, name: str) -> bool:
    """Whether a row of several transformations of `p` runs `name` (SAMPLE)."""
    return zlib.crc32(p.name.encode()) % SAMPLE.get(name, 1) == 0


def sample_everything() -> None:
    """Run every cell of every row, as the slow set and measurements do."""
    SAMPLE.update(dict.fromkeys(SAMPLE, 1))


def assert_every_transformation(p: Program, cells=None) -> None:
    """Every transformation of EVERY agrees with central differences on `p` (`check` and
    `hessian` on a sample: SAMPLE)."""
    row = run(p, EVERY, cells)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    assert not bad, bad


def assert_ok(p: Program, transforms, cells=None) -> None:
    """Every transformation of `transforms` agrees with central differences on `p` (a row of
    several samples `check` and `hessian`: SAMPLE)."""
    row = run(p, transforms, cells)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    assert not bad, bad


def assert_ok_or_na(p: Program, transforms, cells=None) -> None:
    """Every transformation of `transforms` agrees with central differences on `p`, or does not apply
    to it (n/a: float32 of a float64-only program, hvp of another argument than the first, per-example
    gradients of a function not shaped ``f(params, x, y)``)."""
    row = run(p, transforms, cells)
    assert not row.excluded, row.excluded
    bad = {k: v for k, v in not_ok(row).items() if v[0] != NA}
    assert not bad, bad


def with_array_argument(programs: list) -> list:
    """The programs differentiated with respect to an array (those a float32 row can take)."""
    return [p for p in programs if isinstance(p.args[p.wrt], np.ndarray)]


def assert_float32_stays_float32(p: Program) -> None:
    """`grad` of `p` with its float64 arrays made float32: a float32 gradient, equal to the float64
    one to float32's precision."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in p.args]
    got = srcdiff.grad(p.func, wrt=p.wrt)(*args)
    want = srcdiff.grad(p.func, wrt=p.wrt)(*p.args)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.nanmax(np.abs(want)))))


def assert_numba_included(p: Program, refused: dict | None = None, cells=None) -> None:
    """Every transformation, numba included, agrees with central differences on `p`; numba may
    refuse at the user's line the programs `refused` names (short name -> why)."""
    row = run(p, TRANSFORMS, cells)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    if p.name.partition(":")[2] in (refused or {}) and "numba" in bad:
        assert row.cells["numba"].outcome == REFUSED and row.cells["numba"].located, row.cells["numba"].message
        del bad["numba"]
    assert not bad, bad


def assert_refused_at_the_line(p: Program, transforms, cells=None) -> None:
    """Every transformation of `transforms` that applies to `p` (not n/a: hvp of another argument than
    the first) refuses it with a SrcDiffError naming the user's line."""
    row = run(p, transforms, cells)
    assert not row.excluded, row.excluded
    for name, cell in row.cells.items():
        assert cell.outcome == NA or cell.outcome == REFUSED and cell.located, (name, cell.outcome, cell.message)


def assert_numba_unless_refused(p: Program, refused: set, cells=None) -> None:
    """``jit="numba"`` agrees on `p`; on the programs `refused` names (short names) it may instead
    refuse at the user's line."""
    if p.name.partition(":")[2] in refused:
        assert_numba_agrees_or_refuses(p, cells)
    else:
        assert_ok(p, ("numba",), cells)


def assert_numba_agrees_or_refuses(p: Program, cells=None) -> None:
    """``jit="numba"`` agrees on `p`, or refuses it naming the user's line."""
    cell = run(p, ("numba",), cells).cells["numba"]
    assert cell.outcome in (OK, REFUSED), cell.message
    assert cell.located, cell.message


def run(p: Program, transforms=TRANSFORMS, cells=None) -> Row:
    """Every transformation of `p` in `transforms`, classified (`check` and `hessian`, in a row
    of several, on a sample: SAMPLE), each the cell of that name in `cells` (CELLS, the standard
    table cell_table.STANDARD, when None)."""
    if len(transforms) > 1:
        transforms = tuple(t for t in transforms if sampled(p, t))
    row = Row(p)
    try:
        with _quiet(), _limit(CELL_SECONDS):
            ref = Reference(p)
    except Exception as exc:  # noqa: BLE001  f itself fails, or has no reference here
        row.excluded = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:120]
        return row
    for name in transforms:
        row.cells[name] = run_cell(name, ref, cells)
    gradient = row.cells.get("grad", Cell(OK)).outcome
    if "hessian" in row.cells and gradient != OK:
        row.cells["hessian"] = Cell(NA, "no checked gradient")
    found = row.cells.get("check")
    if found is not None and gradient == WRONG:  # check's job is then to find the gradient wrong
        row.cells["check"] = Cell(OK, "MISMATCH found a wrong gradient") if found.outcome == WRONG else \
            Cell(WRONG, f"check passes a wrong gradient ({found.detail})") if found.outcome == OK else found
    return row
