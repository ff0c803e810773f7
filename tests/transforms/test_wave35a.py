"""Wave 35a: the reach of lists and graph-like dicts (wave35a_programs.py: 30 programs written the way users
write them; wave35a_slices.py and wave35a_numpy.py: variants of each fix), each through grad, value_and_grad,
hessian, hvp, jvp, vjp, jacobian, a tree, float32 and jit="numba" against float64 central differences
(matrix.py, closure_cells.py).

Census (wave35a_programs.py, 30 programs x 10 transformations; ok / n/a / refused at the user's line / WRONG /
BAD, BAD a crash, or an error of the generated code reported at the user's line; n/a: the Hessian of a refused
gradient), before -> after the fixes:

                    before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                     11    0   18     0   1             26    0    3     0   1
    value_and_grad           11    0   18     0   1             26    0    3     0   1
    hessian                   9   19    0     0   2             26    4    0     0   0
    hvp                       9    0   18     0   3             26    0    3     0   1
    jvp                      12    0   18     0   0             27    0    3     0   0
    vjp                      11    0   18     0   1             26    0    3     0   1
    jacobian                 12    0   18     0   0             27    0    3     0   0
    tree                     11    0   18     0   1             26    0    3     0   1
    float32                  11    0   18     0   1             26    0    3     0   1
    numba                     9    0   21     0   0             24    0    6     0   0

No WRONG cell before or after.  The BAD cells after are relaxed_twice's (open, below); the refusals after
are the three dict programs (open, below), and numba's three more (shortest_by_edges and written_by_flags: a
list of bools written by index; relaxed_twice).

Found and fixed (each a class, with variants here):

1. A regression (wave 32 made a list of literal numbers appended to a list, whose slices were refused):
   ``incidence[-len(si):][::-1]`` of a renewal equation's incidence (``incidence = [1.0, 2.0, ...]``,
   appended to in the loop) was refused, "slicing a list is not supported" (ec_renewal_equation of
   test_redteam_wave29a.py, pinned as refused since; unpinned).  A slice of a list srcdiff knows is a list
   is now a new list of its items (lower/subscripts.py sliced_list), whose adjoint is added back into the
   list's item by item (``list_add(xs_bar, slice(a, b, c), g)``, rules/list_helpers.py, as for a list a
   helper returns): computed and negative bounds, negative steps, slices of slices, ``list(...)`` of one,
   ``zip`` of two, ``np.array(hist[-k:])``, loops, comprehensions, ``sorted``, ``max``, appended to;
   second order and jit="numba" too (renewal and AR models, moving averages, delay equations reading
   ``history[-lag]``).  ``reversed(xs[-k:])`` as a value was refused ("list(...) is not supported"): it is
   ``xs[-k:][::-1]`` (frontend/iteration_forms.py).
2. BAD: the Hessian and hvp of a list of numbers written by index (shortest_by_edges of wave 34j,
   ``dist = [0.0] * n; dist[v] = cand`` under flags) raised "operands could not be broadcast" in the
   second-order code.  The gradient's ``zero_item(dist_bar, v)`` makes a list an array (so that a list of
   zeros added to it adds); read back to be differentiated again it was the write ``dist_bar[v] = 0.0``
   into a list, kept a list, and two lists added concatenate.  Now ``set_item(items_array(g), v, 0.0)``
   (lower/array_updates.py; items_array in rules/list_helpers.py with its rule, spec row and numba version).
3. Refused: ``np.partition(x, len(x) // 2)`` ("k must be a constant here": gradients are compiled per
   number of axes, not per length).  kth is an operand now (rules/numpy_calculus.py), a tuple of two too.
4. Refused: ``np.put(y, [0, 2], v)`` ("changes y in place").  Into a vector the function creates it is the
   index write ``y[[0, 2]] = v`` (lower/in_place_calls.py), negative indices and NumPy's repetition of v
   included; into a matrix (a flat position is not an index) it is refused at the line.
5. Refused: ``np.poly1d(c)(t)`` and ``p = np.poly1d(c); p(t)`` ("cannot tell which function ... is", "the
   list c cannot be used here"): ``np.polyval(c, t)`` (frontend/poly1d_calls.py); a poly1d used as an
   object (``p.coeffs``) is left as written, refused at the line.
6. WRONG, found on the way (silently wrong values and gradients): ``np.putmask(y, m, v)`` or
   ``np.fill_diagonal(a, v)`` in a loop whose body does not otherwise assign the array: the loop did not
   carry the array, so the writes were dropped (value 3.0 for 2.853).  NumPy's writers and an array's
   ``.sort()`` are stores of the loop now (lower/ast_facts.py stores_in); ``np.putmask``'s new value is
   np.where's, so such a loop is no longer refused as writing by index and rebinding.

Open:

* (closed by wave 36g, test_wave36g.py) Refused at the user's line, the message unchanged: a dict keyed by a
  module graph's node names, read and
  written at the keys its loops give (soft_shortest_path, hard_shortest_path: ``dist[nxt]``, ``nxt in
  dist``; int_keyed_longest, keyed by ints): the loops over ``ORDER[:-1]`` and ``GRAPH.get(node, [])`` are
  not unrolled, so the keys are not constants where the dict is read (the hint's rewrite, a list read at
  a module table's ints, agrees in every transformation: shortest_by_edges).
* BAD: relaxed_twice (``dist = [10.0] * 5; dist[0] = 0.0``, then ``if cand < dist[v]: dist[v] = cand`` in
  a loop), every reverse-mode cell: the adjoint of a list srcdiff does not know is a list is made
  ``zeros_like(dist)`` (a list) before the ``if``, and the side that does not write adds the carried
  adjoint, another list: concatenated, "operands could not be broadcast" in the gradient's code.
* ``dist = [0.0] + [10.0] * 4`` written by index is refused ("dist is not known to be a new array").
* jit="numba" refuses at the line np.polyval (numba has none), np.put_along_axis's run-time check, a list
  of bools written by index (written_by_flags).
"""

from __future__ import annotations

import collections

import pytest

from . import corpus, matrix
from . import wave35a_numpy as n
from . import wave35a_programs as w
from . import wave35a_slices as s

ALL = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "tree", "float32")


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

KEPT = {"renewal_slices"}


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

#: (soft_shortest_path, hard_shortest_path, int_keyed_longest: a dict read and written at the keys its loops
#: give, refused at the user's line until wave 36g, test_wave36g.py, which unrolls those loops)
GRAPH_REFUSED: set = set()
#: first order crashes inside the gradient's code (open: a list's adjoint added to a list concatenates)
GRAPH_OPEN: set = set()  # (relaxed_twice: fixed in wave 35i, test_wave35i.py)
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
