"""Property-based fuzzing: random small programs, srcdiff's gradient against finite differences.

srcdiff promises never to return a silent wrong gradient: it returns the right one or raises
`SrcDiffError` naming file:line.  Each test below draws programs from one family of
constructs (see `fuzzgen.py`), arguments at smooth points, and checks that promise:

- a `SrcDiffError` whose message starts with ``file.py:LINE`` is an acceptable refusal;
- any other exception, a NaN/Inf gradient where finite differences are finite, a wrong
  gradient, or a `value_and_grad` value different from f's value is a failure.

Points near a kink or a branch boundary are rejected (central differences at two steps and
one-sided differences must agree).  The CI profile is small and derandomized; the long one
runs with ``pytest -m fuzz`` (``FUZZ_EXAMPLES`` sets its size).

Families that hit a known bug are split: the family without the buggy construct must pass,
and the family with it is marked ``xfail(strict=True)`` pointing at its regression test in
``test_fuzz_regressions.py``.
"""

import os
import tempfile
from pathlib import Path

import pytest
from fuzzgen import (
    ARRAY_GUARDS,
    ARRAY_HELPERS,
    ARRAY_STATEMENTS,
    ARRAYS,
    GATHER,
    MATRIX,
    NESTED_COMPREHENSIONS,
    NESTED_TERNARY,
    POLY_FORMS,
    SCALAR,
    SCALAR_GUARDS,
    SCALAR_NO_HELPER,
    check_program,
    draw_arrays,
    draw_matrix,
    draw_poly,
    draw_scalar,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

_TMP = tempfile.TemporaryDirectory(prefix="srcdiff_fuzz_")  # removed when the process exits
TMP = Path(_TMP.name)

SUPPRESS = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


#: The default run draws a fifth of each family's CI budget; ``pytest -m slow`` runs every
#: family at its full budget (`test_family_at_its_full_budget`), derandomized too.
DEFAULT_SHARE = 5
BUDGETS: dict[str, tuple[int, bool]] = {}  # family: (CI budget, shrink)


def derandomized(examples, shrink=True):
    """Deterministic; families expected to fail (xfail) skip shrinking, which is slow."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.target, Phase.shrink] if shrink else [])
    return settings(max_examples=examples, deadline=None, derandomize=True, suppress_health_check=SUPPRESS,
                    database=None, phases=phases)


def ci(examples, shrink=True, family=None):
    """The CI profile of a family: a share of its budget here, the whole under ``-m slow``."""
    BUDGETS[family] = (examples, shrink)
    return derandomized(max(10, examples // DEFAULT_SHARE), shrink)


def long_profile(shrink=True):
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.target, Phase.shrink] if shrink else [])
    return settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "2000")), deadline=None,
                    suppress_health_check=SUPPRESS, database=None, phases=phases)


# ---- families (fuzzgen.py draws them) ----

def run_scalar(data, options, zero=False):
    source, args, wrt = draw_scalar(data, options, zero)
    use_grad = data.draw(st.integers(0, 3), label="grad") == 0
    return check_program(source, args, wrt, TMP, use_grad=use_grad)


def run_arrays(data, options, n=3):
    source, args, wrt = draw_arrays(data, options, n)
    return check_program(source, args, wrt, TMP, use_grad=data.draw(st.integers(0, 3), label="grad") == 0)


def run_matrix(data, options, n=3):
    return check_program(*draw_matrix(data, options, n), TMP)


def run_poly(data, forms, array_x=False, zero=True):
    """A polynomial sum c[k] * x ** k, differentiated in x and c; x may be 0 (or have 0 entries)."""
    return check_program(*draw_poly(data, forms, array_x, zero), TMP)


# ---- CI profile (deterministic) ----

@ci(150, family="scalar")
@given(st.data())
def test_scalar_programs(data):
    run_scalar(data, SCALAR)


@ci(60, family="scalar_long")
@given(st.data())
def test_scalar_programs_longer_bodies(data):
    run_scalar(data, SCALAR_NO_HELPER)


@ci(60, family="scalar_zero")
@given(st.data())
def test_scalar_programs_at_zero(data):
    run_scalar(data, SCALAR, zero=True)


@ci(40, shrink=False, family="nested_ternary")
@given(st.data())
def test_nested_conditional_expressions(data):
    run_scalar(data, NESTED_TERNARY)


@ci(40, family="scalar_guards")
@given(st.data())
def test_scalar_domain_guards(data):
    run_scalar(data, SCALAR_GUARDS)


@ci(100, family="arrays")
@given(st.data())
def test_array_programs(data):
    run_arrays(data, ARRAYS)


@ci(60, family="array_guards")
@given(st.data())
def test_array_domain_guards(data):
    run_arrays(data, ARRAY_GUARDS)


@ci(60, family="array_helpers")
@given(st.data())
def test_array_helpers(data):
    """Helper functions taking and returning arrays (keyword arguments, defaults) called from f."""
    run_arrays(data, ARRAY_HELPERS)


@ci(80, family="array_statements")
@given(st.data())
def test_array_statements(data):
    """Writes into new arrays, for over arrays / enumerate / zip, lists built with append, early returns."""
    run_arrays(data, ARRAY_STATEMENTS)


@ci(60, family="matrix")
@given(st.data())
def test_matrix_programs(data):
    run_matrix(data, MATRIX)


@ci(30, family="poly")
@given(st.data())
def test_polynomials(data):
    run_poly(data, POLY_FORMS, zero=False)


@ci(30, family="poly_arrays")
@given(st.data())
def test_polynomials_of_arrays(data):
    run_poly(data, POLY_FORMS, array_x=True, zero=False)


@ci(30, shrink=False, family="poly_zero")
@given(st.data())
def test_polynomials_at_zero(data):
    run_poly(data, POLY_FORMS)


@ci(30, shrink=False, family="poly_arrays_zero")
@given(st.data())
def test_polynomials_of_arrays_at_zero(data):
    run_poly(data, POLY_FORMS, array_x=True)


@ci(30, shrink=False, family="nested_comprehensions")
@given(st.data())
def test_nested_comprehension_programs(data):
    run_matrix(data, NESTED_COMPREHENSIONS)


@ci(30, shrink=False, family="gather")
@given(st.data())
def test_gather_programs(data):
    run_matrix(data, GATHER)


# ---- long profile: pytest -m fuzz ----

LONG_FAMILIES = {
    "scalar": lambda d: run_scalar(d, SCALAR),
    "scalar_long": lambda d: run_scalar(d, SCALAR_NO_HELPER),
    "scalar_zero": lambda d: run_scalar(d, SCALAR, zero=True),
    "nested_ternary": lambda d: run_scalar(d, NESTED_TERNARY),
    "scalar_guards": lambda d: run_scalar(d, SCALAR_GUARDS),
    "arrays": lambda d: run_arrays(d, ARRAYS),
    "array_guards": lambda d: run_arrays(d, ARRAY_GUARDS),
    "array_statements": lambda d: run_arrays(d, ARRAY_STATEMENTS),
    "array_helpers": lambda d: run_arrays(d, ARRAY_HELPERS),
    "matrix": lambda d: run_matrix(d, MATRIX),
    "nested_comprehensions": lambda d: run_matrix(d, NESTED_COMPREHENSIONS),
    "gather": lambda d: run_matrix(d, GATHER),
    "poly": lambda d: run_poly(d, POLY_FORMS, zero=False),
    "poly_arrays": lambda d: run_poly(d, POLY_FORMS, array_x=True, zero=False),
    "poly_zero": lambda d: run_poly(d, POLY_FORMS),
    "poly_arrays_zero": lambda d: run_poly(d, POLY_FORMS, array_x=True),
}


KNOWN_BUGS: set[str] = set()


@pytest.mark.fuzz
@pytest.mark.parametrize("family", [
    pytest.param(name, marks=pytest.mark.xfail(reason="a known bug (see the CI test of this family)"))
    if name in KNOWN_BUGS else name for name in sorted(LONG_FAMILIES)])
def test_long_fuzz(family):
    """`pytest -m fuzz` (FUZZ_EXAMPLES=2000 per family by default), random seeds."""
    @long_profile(shrink=family not in KNOWN_BUGS)
    @given(st.data())
    def run(data):
        LONG_FAMILIES[family](data)

    run()


def test_every_family_has_a_full_budget():
    assert sorted(BUDGETS) == sorted(LONG_FAMILIES)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(BUDGETS))
def test_family_at_its_full_budget(family):
    """`pytest -m slow` (before a release): each family at its full CI budget, derandomized."""
    examples, shrink = BUDGETS[family]

    @derandomized(examples, shrink)
    @given(st.data())
    def run(data):
        LONG_FAMILIES[family](data)

    run()
