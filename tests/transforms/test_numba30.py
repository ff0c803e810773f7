"""jit="numba" where grad differentiates and numba refused at the user's line (numba30_programs.py): every
transformation jit="numba" takes (grad, value_and_grad, hessian, jvp, vjp, jacobian, a tree, float32) against
the NumPy transformation and float64 central differences (backend/numba_every.py); the compiled gradient's
first call is compared with the Python gradient's too (backend/numba/first_call.py).

Census (a throwaway script, not in the repository: matrix.Reference and matrix.run_cell's grad and numba
cells over every (name, function, make_args, wrt) row of tests/transforms/*programs*.py and redteam_*.py,
5108 programs).  numba compiles for seconds a program and the machine was shared: the corpus ran in an
order fixed by a hash of the names, and 205 programs ran before the time was up (a uniform
sample); then every program the tests' NUMBA_REFUSED lists name (and those the sample found refused),
before and after this wave's fixes:

* the sample: 205 programs ran; 198 have a reference and a gradient grad accepts (3 have no reference
  at their point, grad refuses 3 at the line, grad is WRONG on 1: w15_xlogx_zero_entries, open in
  the red team's tables).  numba: 193 ok, 5 refused at the user's line before; the 5 again after:
  1 ok (a list that starts empty), 4 refused (a memoised or recursive helper kept a Python call (2),
  numba's compiler failing inside, ``x += array`` into a float).  No WRONG, no refusal without a line.
* the tables' numba refusals: 85 programs, 84 accepted by grad: before 16 ok / 68 refused at the
  line, after 31 ok / 53 refused at the line (the 16 ok before still ok; no WRONG).  By numba's
  reason before, and how many of them compile after:

      refused  after ok   reason (before)
        13        0       a helper kept a Python call (memoised, recursive, a SciPy distribution)
         9        8       an empty list typed only through another name (3. below; the ninth,
                          ct_lqr_rollout_states, now meets numba's compiler failing inside)
         5        0       numba's "non-precise type pyobject" (a module-level object)
         4        0       SciPy's linalg (scipy_linalg.*), which numba does not compile
         4        0       a helper of srcdiff's whose shapes were not all known
         3        3       a number before a loop, an array in it (2. below)
         3        0       an attribute of a module numba does not have
         2        2       np.squeeze without an axis (1. below)
         2        2       np.unique of a list of labels, g.tolist() (4. below)
        23        0       18 reasons of one or two programs each (yield in a closure, np.add.at
                          with two index arrays, an int array made float in a loop, np.ravel of a
                          number, hstack of numbers and arrays, sorted(key=abs), string labels'
                          .item(), np.pad's edge mode, np.nanpercentile with an axis, ...)

Fixed, each a class with variants here:

1. ``np.squeeze(x)`` without an axis (numba: "Use of unsupported NumPy function 'numpy.squeeze'"; the number
   of axes of its result depends on the lengths of x).  A variant is compiled for one signature, which says
   which axes of each array argument have length one, and shape inference carries that to every value:
   where it knows every axis of x, the call becomes ``np.squeeze(x, axis=(...))`` naming those of length
   one (ad/squeeze_axes.py, called from driver/compile.py for every transformation but vmap's; a call
   given other lengths raises, as NumPy's squeeze of a named axis does).  The method
   ``x.squeeze(axis=...)`` is numba's squeeze too (backend/numba/array_calls.py).  Variants: a product's
   axes, the method, an argument, no axis of length one, a 0-d result, in a loop, in a helper, a mean
   with keepdims, a tree's leaf.  Still refused at the line: a squeeze of ``M[k:k + 1]``, whose length the
   signature does not say (REFUSED).
2. A number before a loop, an array in it (numba: "`u` is a number on one path and an array on
   another"): (a) sinkhorn's ``u = 1.0`` then ``u = a / (K @ v)``: the number is never computed with,
   only pushed on the loop's stack and popped back for the first iteration, whose adjoints do not read
   it; it is preset None as a value first assigned in the loop is (backend/numba/joins.py: _dead,
   optionals.py's zeros_of_preset); (b) a value pushed alone (``stack.append(v)``, not in a tuple) ended
   the proof that promoting ``v = 0.0`` to an array of ones' shape is exact (taints.py, joins.py), so
   ``v = v + x * i`` over ``range(n)`` was refused with any n, 0 too; (c) a float argument as the
   starting number (``s = u0``) is promoted as a constant is (not where u0 itself is differentiated:
   its gradient would have ones' shape; refused at the line, REFUSED).  Variants: two numbers
   overwritten, no trip and some trips, ``while`` loops counted and to a tolerance.
3. A list that starts empty whose items numba learns only through another name (``returns = []`` then
   ``returns = joined`` each iteration, as a list prepended to, ``xs = xs + [t]``, rebuilt lists;
   numba: "Cannot infer the type of variable 'returns', have imprecise type: list(undefined)"): written
   ``[item][:0]``, an empty list of the items' kind where kindflow knows it, else float64 numbers, then
   arrays of one and two axes and float32 ones in turn where numba refuses the type given
   (backend/numba/empty_lists.py, a retry of backend/jit.py).  A wrong guess is refused by numba, never
   a value.  Variants: insert(0, ...), a list of arrays prepended, a running list joined.
4. Labels: ``np.unique`` of a list of labels (``sorted(set(labels))`` with labels a list) and of
   ``g.tolist()`` (numba: "no implementation of unique(reflected list(int64))", "Unknown attribute
   'tolist'"): the array's (backend/numba/array_calls.py).  Lists written into or appended to while
   read in the same loop, and an empty list appended in a loop then read, compiled before this wave
   (checked again while writing it).

Open (refused at the user's line; OPEN): the promotions of 2. (b), (c) and of a while loop's number are made
in the main function only, not where the function is called as a helper (the tree column's wrapper
calls it); ``g.tolist()`` read apart from np.unique (there, and in forward mode's code: jvp, and so the
Jacobian and Hessian); discounted_returns of float32 arguments, where numba's compiler fails inside (an
AssertionError, said at the line; ct_lqr_rollout_states of the census too).  The census's remaining groups, largest
first: a helper srcdiff keeps
a Python call (a memoised or recursive helper: "_chebyshev is a Python function the generated code
calls"), numba's compiler failing inside ("its compiler failed inside"), ``yield`` in a closure,
``str.item()`` of string labels and ``sorted(..., key=abs)``, np.add.at with two index arrays, an int
array made float in a loop, SciPy calls numba does not compile, ``np.insert``/``np.delete`` forms.
"""

from __future__ import annotations

import pytest
from backend import numba_every

from . import corpus, matrix, numba30_programs

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(numba30_programs.PROGRAMS, "n30", "numba30_programs", 30)
REFUSED = corpus.from_table([row for row, _ in numba30_programs.REFUSED.values()], "n30", "numba30_programs", 30)
#: the default run's cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {("squeeze_of_a_product", "grad"), ("sinkhorn_from_a_number", "grad"), ("discounted_returns", "grad"),
        ("groups_of_a_list_of_labels", "grad")}


#: cells refused at the user's line still: none (the promotions of 2. (b) and a while loop's called as a helper, the
#: tree column's wrapper calling the function, compile since wave 32d: the proof reads the helper and its pullback
#: as one, numba/pullback_joins.py; the Hessians of sums over a boolean mask, (c) in a helper, ``g.tolist()`` apart
#: from np.unique and the float32 returns compile since wave31j: numba/index_adds.py, joins.arguments_in,
#: as_lists.py, widening.failed_inside)
OPEN: set = set()


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program,cell", [corpus.slow_unless((_name(p), c) in KEPT, p, c) for p in PROGRAMS
                                          for c in numba_every.CELLS],
                         ids=[f"{_name(p)}-{c}" for p in PROGRAMS for c in numba_every.CELLS])
def test_every_transformation(program, cell):
    found = numba_every.run(program, (cell,))[cell]
    if (_name(program), cell) in OPEN and found.outcome != matrix.OK:
        assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
        assert "numba30_programs.py:" in found.message, found.message
    else:
        assert found.outcome in (matrix.OK, matrix.NA), (found.outcome, found.message)


@pytest.mark.slow  # (numba compiles for seconds a cell)
@pytest.mark.parametrize("program", REFUSED, ids=_name)
def test_refused_at_the_line(program):
    found = numba_every.run(program, ("grad",))["grad"]
    assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
    assert "numba30_programs.py:" in found.message, found.message
