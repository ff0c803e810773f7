"""Wave 32g (issue 26, speed): held-out recurrent cells read by slices, einsums of three or more
operands and small scalar polynomials (benchmarks/variants32_heldout.py, written before tuning;
wave32g_programs.py), each against float64 central differences, the debug gradient, float32 and
every transformation.

Found and fixed (each for its class):

1. an ``np.einsum`` of three or more operands ran as one C loop over every combination of its
   letters, and so did each operand's adjoint (an einsum of three again): 'bi,ij,bj->b' took 12x
   the hand-written gradient, 'ni,ij,nj->' 39x.  It is now contracted a pair at a time, the pair
   whose result keeps the fewest letters first (np.einsum's greedy path, chosen once when the code
   is written), numbers among the operands scaling the result; einsum_matmuls.py then writes the
   pairs that are matrix products as ``@`` (backend/optimize/einsum_pairs.py).  A diagonal
   ('ii,i,i->') stays one einsum; numba has no np.einsum of these spellings (refused at the user's
   line before and after: the pass rewrites the NumPy code only).
2. every call of a gradient's fast path read its function's ``__code__`` (so that a replaced
   ``__code__`` is honoured): about 27 ns of a 300 ns scalar gradient.  CPython raises an audit
   event before every assignment of a function's ``__code__``; one hook now resets the function's
   gradients then, and the guard keeps only the arguments' type tests (backend/code_swaps.py;
   elsewhere than CPython the per-call read stays).

Census of the 20 programs below through every transformation (grad, value_and_grad, hessian, jvp,
vjp, numba, check, trees; ``-m slow`` runs them all), before -> after: none WRONG, none bad
error; numba refuses five einsum spellings at the user's line (NUMBA_REFUSES), before and after.

Benchmarks (grad/hand, benchmarks/variants.py --quick --rounds 5, CPU clock; before -> after):

    held out (this wave)      lstm_quarters 1.12 -> 1.12, min_gru_split 1.42 -> 1.39,
                              gru_reset 1.12 -> 1.11, quad_form 3.78 -> 0.87 (0.97),
                              bilinear_sum 39.4 -> 2.27 (the rest: the forward einsum, computed so
                              that errors are raised where f raises), trilinear 1.06 -> 0.57
    scalar calls (best of 9,  poly 1.20 -> 1.11, cubic2 1.16 -> 1.05, horner3 1.69 -> 1.47
    alternating runs)
    issue 26's rows           bilinear_einsum 12.3 -> 0.86; ligru 1.35, gated_writes 2.0,
                              gru_concat 1.32, mvn_cho 1.33: unchanged (open)
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks, wave32g_programs


def programs():
    return corpus.from_table(wave32g_programs.PROGRAMS, "wave32g", "test_wave32g", 32)


#: the rows the default run keeps (the einsums this wave rewrites, one cell, one polynomial; `-m slow`: all)
KEPT = {"four_operands", "bilinear_sum", "batched_forms", "scaled_operands", "list_operand", "summed_alone",
        "diagonal_kept", "quad_form_A", "trilinear_x", "min_gru_split", "cubic2_x"}


def _kept():
    return [corpus.slow_unless(p.name.partition(":")[2] in KEPT, p) for p in programs()]


@pytest.mark.parametrize("program", _kept(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", _kept(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("program", [corpus.slow_unless(p.name.endswith("four_operands"), p)
                                     for p in programs()], ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_numba_included(program, NUMBA_REFUSES)


#: numba has no np.einsum of these spellings: refused at the user's line (before and after; einsum_pairs.py
#: rewrites the NumPy code only)
NUMBA_REFUSES = {name: "np.einsum" for name in
                 ("diagonal_kept", "four_operands", "scaled_operands", "list_operand", "summed_alone")}


@pytest.mark.parametrize("program", [corpus.slow_unless(p.name.endswith("batched_forms"), p) for p in programs()
                                     if not isinstance(p.args[0], float)], ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(name):
    p = next(p for p in programs() if p.name.endswith(name))
    g = srcdiff.grad(p.func, wrt=p.wrt)
    g(*p.args)
    return g.source


@pytest.mark.parametrize("name", ["bilinear_sum", "batched_forms", "quad_form_A", "four_operands"])
def test_three_operands_become_pairs(name):
    """No einsum of three or more operands is left; the pairs that are matrix products are ``@``."""
    source = _source(name)
    calls = [line for line in source.splitlines() if "np.einsum(" in line]
    assert all(spec.count(",") < 2 for line in calls for spec in line.split("'")[1::2] if "->" in spec), source
    assert "@" in source, source


def test_a_diagonal_stays_one_einsum():
    assert "'ii,i,i->'" in _source("diagonal_kept") or "'ii," in _source("diagonal_kept")


def test_bilinear_adjoint_is_one_product():
    """'ni,ij,nj->' wrt the middle operand: X.T @ Y, no einsum."""
    source = _source("bilinear_sum")
    assert "X.T @ Y" in source and "einsum('ni,ij,nj" not in source.split("# backward")[1], source


def test_pairs_round_like_the_single_einsum():
    """The pairwise contraction gives the single einsum's value to rounding."""
    rng = np.random.default_rng(0)
    X, W, Y = rng.standard_normal((6, 3)), rng.standard_normal((3, 2)), rng.standard_normal((6, 2))
    got = srcdiff.value_and_grad(wave32g_programs.batched_forms)(W, X, Y)[0]
    np.testing.assert_allclose(got, wave32g_programs.batched_forms(W, X, Y), rtol=1e-13)


def _square(x):
    return x ** 2


def _cube(x):
    return x ** 3


def _scaled(x):
    return 5.0 * x


def test_a_replaced_code_is_honoured_without_a_read_per_call():
    """The fast path no longer reads ``__code__`` on each call (backend/code_swaps.py): assigning a
    function's ``__code__`` sends each of its gradients back to the slow path, which transforms
    the new code; and back again."""
    import types

    f = types.FunctionType(_square.__code__, globals(), "_square")
    g, vg, other = srcdiff.grad(f), srcdiff.value_and_grad(f), srcdiff.grad(f)
    assert g(3.0) == 6.0 and vg(3.0) == (9.0, 6.0) and other(3.0) == 6.0
    fast = type(g).__call__
    assert "__code__" not in fast.__code__.co_names or not srcdiff.backend.code_swaps.WATCHING
    for code, want in ((_cube.__code__, (27.0, 27.0)), (_scaled.__code__, (15.0, 5.0)), (_square.__code__, (9.0, 6.0))):
        f.__code__ = code
        assert g(3.0) == want[1] and vg(3.0) == want and other(3.0) == want[1]


def test_a_replaced_code_is_honoured_by_numba_without_a_read_per_call():
    """jit="numba"'s direct entry watches ``__code__`` like the NumPy path: with the audit hook
    installed each read of ``__code__`` is an audited event, which doubled a scalar gradient's call."""
    import types

    pytest.importorskip("numba")
    f = types.FunctionType(_square.__code__, globals(), "_square")
    g = srcdiff.grad(f, jit="numba")
    assert g(3.0) == 6.0 and g(3.0) == 6.0  # (the second call: the direct entry)
    for code, want in ((_cube.__code__, 27.0), (_scaled.__code__, 5.0), (_square.__code__, 6.0)):
        f.__code__ = code
        assert g(3.0) == want and g(3.0) == want
