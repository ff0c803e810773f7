"""The tests a wave's program table repeats, written once.

A wave's test module holds a table of programs (``(name, func, make_args(rng), wrt)`` rows, see
corpus.from_table) and the same few tests over it: the first-order transformations of every row the
grad accepts (a few rows in the default run), every transformation (the slow set), jit="numba", what
grad refuses refused at the user's line by every transformation, and the rows still open as strict
xfails.  `Table` makes those test functions; the module binds each to the name pytest collects:

    table = table_tests.Table.of(w.PROGRAMS, "w35b", "wave35b_programs", 35, kept=KEPT, refused=REFUSED,
                                 numba_refused=NUMBA_REFUSED)
    test_first_order = table.first_order()
    test_every_transformation = table.every_transformation(ALL)
    test_numba = table.numba()
    test_what_grad_refuses_every_transformation_refuses_at_the_line = table.refused_at_the_line()

A test's id is the row's short name (``table_tests.name``), as the modules wrote it by hand.  Every
test runs the cells of ``matrix.run`` (cell_table.STANDARD), or the table's own `cells`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Collection, Mapping

import pytest

from . import corpus, matrix, speed_checks
from .corpus import Program

#: what a row grad refuses is refused by, at the user's line (hvp takes the first argument only: n/a)
REFUSED_CELLS = ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian")


def name(p: Program) -> str:
    """A row's short name: the program's name without its table's prefix (its test id)."""
    return p.name.partition(":")[2]


@dataclasses.dataclass
class Table:
    programs: Callable  # () -> the table's corpus.Programs, made again at each call (no test shares one)
    kept: Collection = frozenset()  # the rows of test_first_order the default run keeps
    refused: Collection = frozenset()  # refused by grad at the user's line, and so by every transformation
    apart: Collection = frozenset()  # rows the module tests on their own (in none of these tests)
    numba_refused: Collection = frozenset()  # jit="numba" may refuse these at the user's line
    cells: Mapping | None = None  # the matrix's cells (None: cell_table.STANDARD)

    @classmethod
    def of(cls, rows, prefix: str, origin: str, seed: int, **options) -> Table:
        """The table of `rows`, each program named ``prefix:name`` (corpus.from_table)."""
        return cls(functools.partial(corpus.from_table, rows, prefix, origin, seed), **options)

    def accepted(self) -> list:
        """The rows grad accepts (but those tested apart)."""
        return [p for p in self.programs() if name(p) not in self.refused and name(p) not in self.apart]

    def _rows(self, programs, kept) -> list:
        # kept None: every row slow; else the rows named in kept run in the default run too
        return [corpus.slow_unless(kept is not None and name(p) in kept, p) for p in programs]

    def first_order(self, transforms=matrix.FIRST_ORDER, or_na: bool = True) -> Callable:
        """`transforms` (or `transforms(program)`, a function) of every accepted row ok (or n/a, unless
        not `or_na`); the default run keeps the rows of `kept`."""
        cells, check = self.cells, matrix.assert_ok_or_na if or_na else matrix.assert_ok

        @pytest.mark.parametrize("program", self._rows(self.accepted(), self.kept), ids=name)
        def test_first_order(program):
            check(program, transforms(program) if callable(transforms) else transforms, cells)
        return test_first_order

    def near_central_differences(self, skip: Collection = ()) -> Callable:
        """Every row's (optimised) gradient near float64 central differences, but the rows `skip` names
        (at kinks: no derivative to compare with)."""
        @pytest.mark.parametrize("program", [p for p in self.programs() if name(p) not in skip], ids=name)
        def test_gradient_against_central_differences(program):
            speed_checks.assert_near_central_differences(program)
        return test_gradient_against_central_differences

    def optimised_equals_debug(self) -> Callable:
        """Every row's optimised gradient equal to the unoptimised one (debug=True)."""
        @pytest.mark.parametrize("program", self.programs(), ids=name)
        def test_optimised_equals_debug(program):
            speed_checks.assert_optimised_equals_debug(program)
        return test_optimised_equals_debug

    def every_transformation(self, transforms, kept: Collection | None = None) -> Callable:
        """`transforms` (or `transforms(program)`) of every accepted row ok or n/a: the slow set, but the
        rows `kept` names."""
        cells = self.cells

        @pytest.mark.parametrize("program", self._rows(self.accepted(), kept), ids=name)
        def test_every_transformation(program):
            matrix.assert_ok_or_na(program, transforms(program) if callable(transforms) else transforms, cells)
        return test_every_transformation

    def numba(self, kept: Collection | None = None) -> Callable:
        """jit="numba" agrees on every accepted row (or refuses at the user's line one of
        `numba_refused`): the slow set (numba compiles for seconds a program), but the rows `kept` names."""
        cells, refused = self.cells, set(self.numba_refused)

        @pytest.mark.parametrize("program", self._rows(self.accepted(), kept), ids=name)
        def test_numba(program):
            matrix.assert_numba_unless_refused(program, refused, cells)
        return test_numba

    def refused_at_the_line(self, transforms=REFUSED_CELLS, kept: Collection | None = None) -> Callable:
        """Every transformation of `transforms` refuses each row of `refused` at the user's line; the
        default run keeps the first row (or the rows `kept` names)."""
        cells = self.cells
        rows = [p for p in self.programs() if name(p) in self.refused]
        kept = {name(p) for p in rows[:1]} if kept is None else kept

        @pytest.mark.parametrize("program", self._rows(rows, kept), ids=name)
        def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
            matrix.assert_refused_at_the_line(program, transforms, cells)
        return test_what_grad_refuses_every_transformation_refuses_at_the_line

    def still_open(self, rows: Collection, transforms, reason: str, kept: Collection | None = None) -> Callable:
        """A strict xfail over the rows `rows` names: `transforms` ok on each (they are not, yet:
        `reason` says why)."""
        cells = self.cells

        @pytest.mark.xfail(strict=True, reason=reason)
        @pytest.mark.parametrize("program", self._rows([p for p in self.programs() if name(p) in rows], kept),
                                 ids=name)
        def test_still_open(program):
            matrix.assert_ok(program, transforms, cells)
        return test_still_open
