"""Wave 36j: the fuzz's random programs through every transformation (wave36j_closure_fuzz.py).

tests/ad/test_fuzz.py draws random small programs (fuzzgen.py's families) and checks grad and
value_and_grad on them.  Here every drawn program grad accepts at a smooth point also goes through
value_and_grad, hessian, hvp, jvp, vjp, jacobian, the jacobian of the gradient, float32, a tree
(a dict argument; jvp and vjp of it too) and jit="numba", each against float64 central
differences (the matrix's standard cells).  A cell must be ok, n/a, or a refusal naming the
user's line (a *closure* refusal: counted, see CENSUS); never WRONG, NaN, a crash or a refusal
that names no line of the user's file.

The default run draws two programs of a few families (derandomized); ``-m slow`` draws
`SLOW_EXAMPLES` of every family and numba on each; ``pytest -m fuzz`` runs the random profile.

CENSUS
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from . import corpus, matrix
from . import wave36j_closure_fuzz as closure
from . import wave36j_programs as programs
from .corpus import Program

SUPPRESS = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
#: the families the default run draws from (a program of each costs a few seconds of compiles)
DEFAULT_FAMILIES = ("scalar", "matrix")
DEFAULT_EXAMPLES = 2
SLOW_EXAMPLES = 12
NO_NUMBA = tuple(t for t in closure.CLOSURE if t not in closure.NUMBA)


def profile(examples, derandomize=True):
    return settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
                    suppress_health_check=SUPPRESS, phases=[Phase.explicit, Phase.generate])


@pytest.mark.parametrize("family", [corpus.slow_unless(name in DEFAULT_FAMILIES, name)
                                    for name in sorted(closure.FAMILIES)])
def test_drawn_programs_go_through_every_transformation(family, tmp_path):
    """Every first- and second-order transformation, a tree and float32 (numba in the slow set)."""
    slow = family not in DEFAULT_FAMILIES

    @profile(SLOW_EXAMPLES if slow else DEFAULT_EXAMPLES)
    @given(st.data())
    def run(data):
        closure.checked(data, family, tmp_path, closure.CLOSURE if slow else NO_NUMBA)

    run()


@pytest.mark.fuzz
@pytest.mark.parametrize("family", sorted(closure.FAMILIES))
def test_long_closure_fuzz(family, tmp_path):
    """`pytest -m fuzz`: FUZZ_EXAMPLES random programs of each family (200 by default), numba included."""
    @profile(int(os.environ.get("FUZZ_EXAMPLES", "200")), derandomize=False)
    @given(st.data())
    def run(data):
        closure.checked(data, family, tmp_path)

    run()


def _program(name: str, table: dict) -> Program:
    args, wrt = table[name]
    return Program(f"wave36j_programs:{name}", getattr(programs, name), args, wrt, "wave36j")


@pytest.mark.parametrize("name", sorted(programs.BRANCH_LISTS))
def test_a_list_built_in_a_branch_not_taken_differentiated_twice(name):
    """``if x <= y: return y`` above ``sum(y for _ in range(2))``: the jacobian of the gradient set up the
    list's adjoint (zeros_list) before the branch that builds the list, and failed on the branch not
    taken ("TypeError: object of type 'NoneType' has no len()"); a list never built has no adjoint now."""
    p = _program(name, programs.BRANCH_LISTS)
    matrix.assert_ok(p, ("jac_grad",))
    matrix.assert_ok(p, ("hessian",))


@pytest.mark.xfail(strict=True, reason="open: the outer reverse pass spells a list's zero adjoint inline")
@pytest.mark.parametrize("name", sorted(set(programs.BRANCH_LISTS) - {"array_list_in_a_branch"}))
def test_a_list_built_in_a_branch_not_taken_under_grad_of_grad(name):
    """The same programs under ``grad(grad(f))`` and ``vjp(grad(f))``: the outer (not derivable) reverse
    pass writes ``[0.0] * len(items)`` before the branch (ad/sweep.py `zero`), still a TypeError."""
    p = _program(name, programs.BRANCH_LISTS)
    matrix.assert_ok(p, ("grad_grad",))
    matrix.assert_ok(p, ("vjp_grad",))


@pytest.mark.xfail(strict=True, reason="open: a tie of one value carried through a loop is not proved to persist")
@pytest.mark.parametrize("name", sorted(programs.OPEN))
def test_a_tie_of_one_value_through_a_loop_has_second_derivatives(name):
    """``for _ in range(3): x = y`` then ``min(x, y) * y``: x is y, min(x, y) is y, smooth; grad is right,
    but its derivative (hessian, jacobian of grad) is NaN: ad/ties.py proves a tie persists only through
    straight-line code (``x = y; min(x, y)`` is right), not through a loop's carried value."""
    p = _program(name, programs.OPEN)
    matrix.assert_ok(p, ("hessian",))
    matrix.assert_ok(p, ("jac_grad",))


@pytest.mark.parametrize("name", [corpus.slow_unless(False, name) for name in sorted(programs.NUMBA_DEAD_LOOPS)])
def test_numba_refuses_a_loop_that_never_runs_at_the_line(name):
    """A loop that never runs (``while k < 0`` after ``k = 0``, ``for i in range(0)``) whose body stacks
    values: numba prunes it as dead code and leaves the stack's type undecided (or a value Optional);
    srcdiff refuses at the body's line.  (A closure gap, open: grad and the others take these.)"""
    matrix.assert_numba_agrees_or_refuses(_program(name, programs.NUMBA_DEAD_LOOPS))
