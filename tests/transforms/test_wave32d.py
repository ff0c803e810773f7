"""Wave 32d: jit="numba" of programs grad differentiates (wave32d_programs.py), each numba answer checked
against the NumPy gradient and float64 central differences (backend/numba_every.py).

Census (grad's jit="numba" cell; ok / refused at the user's line / WRONG / BAD; n/a where grad itself
refuses at the line: a SimpleNamespace's attributes, a tuple of an array and a list as a loop's state,
a tuple holding a list appended to, np.einsum of a 1-D list or a list as the first operand):

    before:  CENSUS_BEFORE
    after:   CENSUS_AFTER

Found and fixed:

FINDINGS
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from backend import numba_every

import srcdiff

from . import corpus, matrix
from . import wave32d_programs as w

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(w.PROGRAMS, "w32d", "wave32d_programs", 32)
#: grad itself refuses these at the user's line (n/a for numba)
GRAD_REFUSED = {"namespace_attributes", "tuple_state_with_history", "tuple_state_list_of_arrays", "einsum_list_vector",
                "einsum_list_first"}
#: jit="numba" still refuses these at the user's line (the docstring's open items)
NUMBA_REFUSED = {"running_product_of_terms", "dict_read_whole"}
#: the default run's numba cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {"fancy_index_module_list", "cached_nodes_dot"}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in GRAD_REFUSED], ids=_name)
def test_grad_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad",))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS
                                     if _name(p) not in GRAD_REFUSED], ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    """numba's gradient agrees with NumPy's and with central differences; the programs NUMBA_REFUSED names
    may instead be refused at the user's line."""
    found = numba_every.run(program, ("grad",))["grad"]
    if _name(program) in NUMBA_REFUSED and found.outcome != matrix.OK:
        assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
        assert "wave32d_programs.py:" in found.message, found.message
    else:
        assert found.outcome == matrix.OK, (found.outcome, found.message)


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in {r[0] for r in w.NUMBER_THEN_ARRAY}],
                         ids=_name)
def test_number_then_array_as_a_tree(program):
    found = numba_every.run(program, ("tree",))["tree"]
    assert found.outcome == matrix.OK, (found.outcome, found.message)


def _fancy_index_gradient(x, pick):
    """The gradient of sum(x[pick] ** 2 * x[0]), by hand."""
    g = np.zeros_like(x)
    np.add.at(g, pick, 2 * x[pick] * x[0])
    g[0] += np.sum(x[pick] ** 2)
    return g


def test_a_module_list_changed_in_place_is_read_again():
    """A module list of numbers is given to numba as an array or a tuple read on every call: changed in
    place, the next call's gradient is of the list as it is then."""
    x = np.array([0.3, 0.5, 0.9])
    g = srcdiff.grad(w.fancy_index_module_list, jit="numba")
    np.testing.assert_allclose(g(x), _fancy_index_gradient(x, [0, 2, 2]), rtol=1e-12)
    w.PICK[0] = 1
    try:
        np.testing.assert_allclose(g(x), _fancy_index_gradient(x, [1, 2, 2]), rtol=1e-12)
    finally:
        w.PICK[0] = 0


def test_a_constant_given_for_a_tested_parameter_is_no_syntax_warning():
    """``weights is None`` of a helper given ``weights=(1.0, 0.05)``: decided when the helper is inlined,
    not written ``(1.0, 0.05) is None`` (a SyntaxWarning, and a list on one path, a tuple on the other)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        g = srcdiff.grad(w.weights_tuple_beside_default)(np.array([0.3, 0.4, 0.5]))
    x = np.array([0.3, 0.4, 0.5])
    np.testing.assert_allclose(g, 2 * x + 0.05 * np.cos(x), rtol=1e-12)
