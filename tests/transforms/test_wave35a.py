"""Wave 35a: the reach of lists and graph-like dicts (wave35a_programs.py, wave35a_slices.py), each
program through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and
jit="numba" against float64 central differences (matrix.py, closure_cells.py).

CENSUS

Found and fixed:

1. A regression (wave 32 made a list of literal numbers appended to a list, whose slices were refused):
   ``incidence[-len(si):][::-1]`` of a renewal equation's incidence (``incidence = [1.0, 2.0, ...]``,
   appended to in the loop) was refused, "slicing a list is not supported" (ec_renewal_equation of
   test_redteam_wave29a.py, pinned as refused since).  A slice of a list srcdiff knows is a list is now
   a new list of its items (lower/subscripts.py sliced_list), whose adjoint is added back into the
   list's item by item (``list_add(xs_bar, slice(a, b, c), g)``, rules/list_helpers.py, as for a list a
   helper returns): computed and negative bounds, negative steps, slices of slices, ``list(...)`` of
   one, ``zip`` of two, ``np.array(hist[-k:])``, loops, comprehensions, ``sorted``, ``max``, appended to;
   second order and jit="numba" too.  ``reversed(xs[-k:])`` as a value was refused ("list(...) is not
   supported"): it is ``xs[-k:][::-1]`` (frontend/iteration_forms.py).
"""

from __future__ import annotations

import collections

import pytest

from . import closure_cells, corpus, matrix
from . import wave35a_numpy as n
from . import wave35a_programs as w
from . import wave35a_slices as s

ALL = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "tree", "float32")
assert set(closure_cells.EXTRA) <= set(ALL)  # (importing closure_cells registers jacobian, hvp and float32)


def _name(p):
    return p.name.partition(":")[2]


def table(rows, origin="wave35a_programs"):
    return corpus.from_table(rows, "w35a", origin, 35)


def census(programs=None, transforms=(*ALL, "numba")) -> dict:
    """transformation -> Counter of outcomes ('BAD' for a crash or a refusal not naming the user's line),
    over `programs` (every program of wave35a_programs.py by default): the docstring's table."""
    matrix.sample_everything()
    counts = collections.defaultdict(collections.Counter)
    for p in programs or table(w.PROGRAMS):
        row = matrix.run(p, transforms)
        for name in transforms:
            cell = row.cells.get(name)
            outcome = matrix.NA if cell is None else cell.outcome
            if outcome == matrix.CRASH or outcome == matrix.REFUSED and not cell.located:
                outcome = "BAD"
            counts[name][outcome] += 1
    return counts


# ---- 1. slices of a list: history lists, renewal and AR models, delays ----

KEPT = {"renewal_slices", "slice_read_beside_item"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in table(w.HISTORIES)], ids=_name)
def test_a_history_list_read_by_slices(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p)
                                     for p in table(s.SLICES, "wave35a_slices")], ids=_name)
def test_a_slice_of_a_list(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", table(w.HISTORIES) + table(s.SLICES, "wave35a_slices"), ids=_name)
def test_a_slice_of_a_list_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", table(w.HISTORIES) + table(s.SLICES, "wave35a_slices"), ids=_name)
def test_a_slice_of_a_list_numba(program):
    matrix.assert_ok(program, ("numba",))


# ---- 2. a list written by index, differentiated twice (the Hessian of shortest_by_edges) ----

#: refused by grad at the user's line: a dict read and written at keys its loops compute (open)
GRAPH_REFUSED = {"soft_shortest_path", "hard_shortest_path", "int_keyed_longest"}
#: first order crashes inside the gradient's code (open: a list's adjoint added to a list concatenates)
GRAPH_OPEN = {"relaxed_twice"}
SECOND_ORDER = ("hessian", "hvp")


def graphs():
    return [p for p in table(w.GRAPHS) if _name(p) not in GRAPH_REFUSED | GRAPH_OPEN]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "written_by_flags", p) for p in graphs()],
                         ids=_name)
def test_a_list_written_by_index_second_order(program):
    """``dist[v] = cand`` of ``dist = [0.0] * n`` in a loop: the gradient's ``zero_item(dist_bar, v)`` (an array,
    so that the list of zeros added to it adds) was read back as a write into a list, kept a list, and the
    Hessian's code added two lists: concatenated, "operands could not be broadcast" (the Hessian of
    shortest_by_edges, wave 34j).  Read back as ``set_item(items_array(g), v, 0.0)`` now."""
    matrix.assert_ok(program, SECOND_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", graphs(), ids=_name)
def test_a_list_written_by_index_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


# ---- 3. NumPy calls on list-ish arguments: partition's kth from shapes, np.put, np.poly1d ----

#: jit="numba" refuses these at the user's line (numba has no np.polyval; no numba version of along_axis_indices)
NUMBA_REFUSED = {"poly1d_spelled_out", "put_along_axis_loop", "poly1d_argument", "poly1d_loop_coeffs",
                 "polyval_loop_coeffs", "polyval_list_display"}
NUMPY_KEPT = {"median_by_partition", "put_constant_indices", "poly1d_loop_coeffs", "putmask_loop"}


def numpy_programs():
    return table(w.NUMPY) + table(n.NUMPY, "wave35a_numpy") + table(n.LOOPS, "wave35a_numpy")


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in NUMPY_KEPT, p) for p in numpy_programs()],
                         ids=_name)
def test_numpy_calls_on_list_ish_arguments(program):
    """``np.partition(x, len(x) // 2)`` (kth an operand now: it was "k must be a constant here"), ``np.put(y,
    [0, 2], v)`` of a vector (the index write ``y[[0, 2]] = v``), ``np.poly1d(c)(t)`` and ``p = np.poly1d(c);
    p(t)`` (``np.polyval(c, t)``), and NumPy's writers in a loop, whose writes were dropped."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", numpy_programs(), ids=_name)
def test_numpy_calls_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", numpy_programs(), ids=_name)
def test_numpy_calls_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", table(n.REFUSED, "wave35a_numpy"), ids=_name)
def test_np_put_into_a_matrix_and_a_poly1d_used_as_an_object_are_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jvp"))


# ---- what grad refuses (open: a dict keyed by the names its loops give) ----

@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "soft_shortest_path", p) for p in table(w.GRAPHS)
                                     if _name(p) in GRAPH_REFUSED], ids=_name)
def test_a_dict_read_at_keys_its_loops_give_is_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))
