"""One program through every transformation, each answer classified.

A *cell* is one transformation of one program: ``ok`` (agrees with float64 central
differences of `f`, or for second order of the already-checked gradient), ``refused`` (a
`SrcDiffError`; `located` says whether it names a line of the user's file rather than
generated code), ``crash`` (any other exception) or ``WRONG`` (an answer that disagrees
with a stable reference: the worst outcome).  A program whose own central differences are
unstable at its point (a kink, a branch switch nearby) has no reference and is excluded.

    row = run(program, TRANSFORMS)      # matrix_report.py prints the table of a whole corpus
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import re
import signal
import traceback
import warnings
import zlib
from pathlib import Path

import numpy as np

import srcdiff

from . import leaves, trees_wrapped
from .corpus import Program

TRANSFORMS = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "numba", "check", "tree")
OK, REFUSED, CRASH, WRONG, NA = "ok", "refused", "crash", "WRONG", "n/a"
HESSIAN_MAX = 50  # larger inputs get a Hessian-vector product instead of the full Hessian
CELL_SECONDS = 120  # of CPU time (see _limit)
CELL_WALL_FACTOR = 5  # the wall-clock limit, in CELL_SECONDS
CHECK_SECONDS = 4.0  # per symbolic stage of srcdiff.check; past it check answers numerically
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


class Wrong(Exception):
    """A transformation's answer disagrees with the reference."""


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


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class Reference:
    """f's value and central-difference gradient at the program's point."""

    def __init__(self, p: Program):
        self.p = p
        self.arg = p.args[p.wrt]
        self.x = leaves.vector(self.arg)
        if not self.x.size:
            raise ValueError("the parameter holds no number to differentiate")
        self.value = self.f_at(self.x)
        # what f itself returns (computed in float32 for float32 arguments): the values are compared with it
        self.own_value = p.func(*copy.deepcopy(p.args))
        if not (np.ndim(self.value) == 0 and np.isfinite(float(self.value))):
            raise ValueError("f's value is not a finite number here")
        self.grad = self.difference(self.f_at, 1e-6)[0]
        rough = self.difference(self.f_at, 1e-5)[0]
        if not np.all(np.isfinite(self.grad)) or not leaves.agree(self.grad, rough, 1e-4, 1e-5):
            raise ValueError("central differences are unstable here (a kink or a switch of branch nearby)")
        if not self.smooth(1e-5):
            raise ValueError("one-sided differences disagree here (a kink or a tie: no derivative to compare with)")
        self.v = np.random.default_rng(len(self.x)).normal(size=self.x.shape)

    def args_with(self, x: np.ndarray) -> list:
        # float64 copies of float32 arguments: the differences must not vanish in rounding
        args = [leaves.widened(a) for a in copy.deepcopy(list(self.p.args))]
        args[self.p.wrt] = leaves.with_vector(args[self.p.wrt], x)
        return args

    def f_at(self, x):
        return self.p.func(*self.args_with(x))

    def smooth(self, eps: float) -> bool:
        """Whether f's one-sided differences agree along every coordinate (no kink, no tie)."""
        f0 = float(self.value)
        scale = max(1.0, float(np.max(np.abs(self.grad))) if self.grad.size else 1.0)
        for k in range(self.x.size):
            e = np.zeros_like(self.x)
            e[k] = eps
            bend = abs(float(self.f_at(self.x + e)) + float(self.f_at(self.x - e)) - 2 * f0) / eps
            if not bend <= 1e-2 * scale:  # eps * f'' at a smooth point; O(1) at a kink
                return False
        return True

    def difference(self, fn, eps: float) -> np.ndarray:
        """Central differences of `fn` (of the flat argument, into a flat result) along each
        coordinate: the m×n Jacobian (m = 1 for f itself)."""
        cols = []
        for k in range(self.x.size):
            e = np.zeros_like(self.x)
            e[k] = eps
            cols.append((leaves.vector(fn(self.x + e)) - leaves.vector(fn(self.x - e))) / (2 * eps))
        return np.stack(cols, axis=-1) if cols else np.zeros((1, 0))


def _expect(ok: bool, got, want, what: str) -> None:
    if not ok:
        raise Wrong(f"{what}: max error {leaves.max_error(got, want):.3g}")


def first_order(ref: Reference, got, what="gradient", scale=1.0) -> None:
    if leaves.is_complex(got):
        raise Wrong(f"{what}: complex numbers for a real argument")
    shapes = [np.shape(leaf) for leaf in leaves.float_leaves(got)]
    wanted = [np.shape(leaf) for leaf in leaves.float_leaves(ref.arg)]
    if shapes != wanted:
        raise Wrong(f"{what}: shaped {shapes}, the argument {wanted}")
    flat = leaves.vector(got)
    _expect(leaves.agree(flat, scale * ref.grad), flat, scale * ref.grad, what)


def _value(ref: Reference, got) -> None:
    if leaves.is_complex(got):
        raise Wrong("value: complex numbers for a real function")
    # (float32's value to a few of its ulps: a sum taken in another order, as einsum's, rounds differently)
    single = np.result_type(ref.own_value) == np.float32
    _expect(leaves.agree(got, ref.own_value, 5e-7 if single else 1e-9, 1e-12), got, ref.own_value, "value")


def cell_grad(ref: Reference):
    first_order(ref, srcdiff.grad(ref.p.func, wrt=ref.p.wrt)(*copy.deepcopy(ref.p.args)))


def cell_value_and_grad(ref: Reference):
    value, got = srcdiff.value_and_grad(ref.p.func, wrt=ref.p.wrt)(*copy.deepcopy(ref.p.args))
    _value(ref, value)
    first_order(ref, got)


def cell_hessian(ref: Reference):
    p, n = ref.p, ref.x.size
    gradient = srcdiff.grad(p.func, wrt=p.wrt)
    g_at = lambda x: gradient(*ref.args_with(x))  # noqa: E731  the already-checked gradient
    if n > HESSIAN_MAX and p.wrt == 0:
        got = srcdiff.hvp(p.func, *ref.args_with(ref.x)[:1], leaves.with_vector(ref.arg, ref.v),
                          *copy.deepcopy(p.args[1:]))
        flat, detail, directions = leaves.vector(got), "hvp", ref.v[:, None]
    else:
        got = srcdiff.hessian(p.func, wrt=p.wrt)(*copy.deepcopy(p.args))
        flat, detail, directions = leaves.square(got, ref.arg), "hessian", np.eye(n)
    g0 = leaves.vector(g_at(ref.x))

    def second(eps, side=0):  # side 0: central; +1 / -1: one-sided differences of the gradient
        cols = []
        for d in directions.T:
            hi = leaves.vector(g_at(ref.x + eps * d)) if side >= 0 else g0
            lo = leaves.vector(g_at(ref.x - eps * d)) if side <= 0 else g0
            cols.append((hi - lo) / (eps * (2 if side == 0 else 1)))
        out = np.stack(cols, axis=-1)
        return out if detail == "hessian" else out[:, 0]
    want = second(1e-5)
    if not leaves.agree(flat, want, 1e-4, 1e-4):
        if not leaves.agree(want, second(1e-4), 1e-3, 1e-4):
            return NA, "second differences unstable here"
        if not leaves.agree(second(1e-5, 1), second(1e-5, -1), 1e-3, 1e-3):
            return NA, "the gradient has a kink here: no second derivative"
        _expect(False, flat, want, detail)
    return OK, detail


def cell_jvp(ref: Reference):
    p = ref.p
    tangents = [None] * len(p.args)
    tangents[p.wrt] = leaves.with_vector(ref.arg, ref.v)
    value, tangent = srcdiff.jvp(p.func, tuple(copy.deepcopy(p.args)), tuple(tangents))
    _value(ref, value)
    want = float(ref.grad @ ref.v)
    if leaves.is_complex(tangent):
        raise Wrong("tangent: complex numbers for a real function")
    _expect(leaves.agree(tangent, want), tangent, want, "tangent")


def cell_vjp(ref: Reference):
    value, pullback = srcdiff.vjp(ref.p.func, *copy.deepcopy(ref.p.args), wrt=ref.p.wrt)
    _value(ref, value)
    for seed in (1.75, -0.5):  # a pullback may be called again: loops' stacks must be refilled
        first_order(ref, pullback(seed if np.ndim(value) == 0 else np.full(np.shape(value), seed)), scale=seed)


def cell_numba(ref: Reference):
    first_order(ref, srcdiff.grad(ref.p.func, wrt=ref.p.wrt, jit="numba")(*copy.deepcopy(ref.p.args)))


def cell_check(ref: Reference):
    report = srcdiff.check(ref.p.func, *copy.deepcopy(ref.p.args), wrt=ref.p.wrt, timeout=CHECK_SECONDS,
                           progress=False)
    status = report.status
    if status == "MISMATCH":
        raise Wrong(f"check reports MISMATCH on a right gradient: {str(report).splitlines()[0]}")
    if status in ("proved", "agrees numerically"):
        return OK, status
    if report.numeric is not None and report:
        return OK, f"{status}, numerically right"
    if report.numeric is not None:
        return OK, f"{status}, central differences agree"
    return REFUSED, f"check {status}"


def cell_tree(ref: Reference):
    wrapper, key = trees_wrapped.wrapper(ref.p)
    args = copy.deepcopy(list(ref.p.args))
    args[ref.p.wrt] = {key: args[ref.p.wrt]}
    got = srcdiff.grad(wrapper, wrt=ref.p.wrt)(*args)
    if not isinstance(got, dict) or list(got) != [key]:
        raise Wrong(f"the gradient of a dict is a {type(got).__name__}, not a dict with key {key!r}")
    first_order(ref, got)


CELLS = {"grad": cell_grad, "value_and_grad": cell_value_and_grad, "hessian": cell_hessian, "jvp": cell_jvp,
         "vjp": cell_vjp, "numba": cell_numba, "check": cell_check, "tree": cell_tree}


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


def run_cell(name: str, ref: Reference) -> Cell:
    try:
        with _quiet(), _limit(CELL_SECONDS):
            found = CELLS[name](ref)
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


def assert_every_transformation(p: Program) -> None:
    """Every transformation of EVERY agrees with central differences on `p` (`check` and
    `hessian` on a sample: SAMPLE)."""
    row = run(p, EVERY)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    assert not bad, bad


def assert_ok(p: Program, transforms) -> None:
    """Every transformation of `transforms` agrees with central differences on `p` (a row of
    several samples `check` and `hessian`: SAMPLE)."""
    row = run(p, transforms)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    assert not bad, bad


def assert_ok_or_na(p: Program, transforms) -> None:
    """Every transformation of `transforms` agrees with central differences on `p`, or does not apply
    to it (n/a: float32 of a float64-only program, hvp of another argument than the first, per-example
    gradients of a function not shaped ``f(params, x, y)``)."""
    row = run(p, transforms)
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


def assert_numba_included(p: Program, refused: dict | None = None) -> None:
    """Every transformation, numba included, agrees with central differences on `p`; numba may
    refuse at the user's line the programs `refused` names (short name -> why)."""
    row = run(p, TRANSFORMS)
    assert not row.excluded, row.excluded
    bad = not_ok(row)
    if p.name.partition(":")[2] in (refused or {}) and "numba" in bad:
        assert row.cells["numba"].outcome == REFUSED and row.cells["numba"].located, row.cells["numba"].message
        del bad["numba"]
    assert not bad, bad


def assert_refused_at_the_line(p: Program, transforms) -> None:
    """Every transformation of `transforms` that applies to `p` (not n/a: hvp of another argument than
    the first) refuses it with a SrcDiffError naming the user's line."""
    row = run(p, transforms)
    assert not row.excluded, row.excluded
    for name, cell in row.cells.items():
        assert cell.outcome == NA or cell.outcome == REFUSED and cell.located, (name, cell.outcome, cell.message)


def assert_numba_unless_refused(p: Program, refused: set) -> None:
    """``jit="numba"`` agrees on `p`; on the programs `refused` names (short names) it may instead
    refuse at the user's line."""
    if p.name.partition(":")[2] in refused:
        assert_numba_agrees_or_refuses(p)
    else:
        assert_ok(p, ("numba",))


def assert_numba_agrees_or_refuses(p: Program) -> None:
    """``jit="numba"`` agrees on `p`, or refuses it naming the user's line."""
    cell = run(p, ("numba",)).cells["numba"]
    assert cell.outcome in (OK, REFUSED), cell.message
    assert cell.located, cell.message


def run(p: Program, transforms=TRANSFORMS) -> Row:
    """Every transformation of `p` in `transforms`, classified (`check` and `hessian`, in a row
    of several, on a sample: SAMPLE)."""
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
        row.cells[name] = run_cell(name, ref)
    gradient = row.cells.get("grad", Cell(OK)).outcome
    if "hessian" in row.cells and gradient != OK:
        row.cells["hessian"] = Cell(NA, "no checked gradient")
    found = row.cells.get("check")
    if found is not None and gradient == WRONG:  # check's job is then to find the gradient wrong
        row.cells["check"] = Cell(OK, "MISMATCH found a wrong gradient") if found.outcome == WRONG else \
            Cell(WRONG, f"check passes a wrong gradient ({found.detail})") if found.outcome == OK else found
    return row
