"""jit="numba" where grad differentiates and numba refused at the user's line or failed (wave31j_programs.py):
every transformation jit="numba" takes (grad, value_and_grad, hessian, jvp, vjp, jacobian, a tree, float32)
against the NumPy transformation and float64 central differences (backend/numba_every.py).

Census (25 programs of wave31j_programs.py, 5 to 6 variants a class; a cell is ok, refused at the user's
line, WRONG, or BAD: a crash or a refusal naming no line of the user's).  Before: every program through all
8 cells (200 cells): 51 ok, 147 refused at the line, 2 BAD (a tree's refusal naming the wrapper's generated
file), 0 WRONG.  After (the machine was shared: grad, hessian, jvp, tree and float32 of every program, all 8
cells of three; value_and_grad and vjp run grad's code, jacobian jvp's): 134 cells, 129 ok, 5 refused at the
line (ragged_rows_by_a_counter), 0 WRONG, 0 BAD.  By class, on the cells run after:

    class           cells  before                      after
    PADS              36   36 refused                  36 ok
    WHILE_APPENDS     25   7 ok, 17 refused, 1 BAD     25 ok
    MASKS             23   19 ok, 4 refused (Hessian)  23 ok
    TOLIST            15   2 ok, 12 refused, 1 BAD     15 ok
    DICTS             25   25 refused                  25 ok
    OPEN              10   4 ok, 6 refused             5 ok, 5 refused (the ragged rows)

The tables of earlier waves these classes came from (test_reach30, test_redteam_wave30h, test_redteam_wave30a's
findings, test_numba30's OPEN cells) now compile where they named them: np.pad's 5 rows and 2 rows, the three
while-append rows, enumerate(D) and the dict of arrays, the Hessians over masks of labels, g.tolist()'s jvp
and tree, the float argument then array in a tree, the float32 discounted returns.  The first call in a new
process with numba's on-disk cache warm is as before (a plain gradient, 5 runs interleaved: 0.73-1.24 s
before, 0.80-1.21 s after; np.pad and dict reads 0.9 s warm against 3.5-6.9 s cold); a refusal is not kept
in numba's cache, so the while-append lists are typed before the first compile rather than on numba's
refusal (empty_lists.ahead).

Found and fixed, each a class with variants here:

1. np.pad with widths the code computes (``(0, length - n)``, ``(n // 2, n - n // 2)``, ``len(x) - 1``,
   a pair per axis of a matrix; constant, edge, reflect, symmetric, wrap): numba has no np.pad, and
   srcdiff's numba versions took widths written as constants only.  The code computes the width as an
   array (``np.asarray((0, 8 - n))``), which backend/numba/turns.py and pads.py now read as NumPy
   broadcasts it; a negative width raises ValueError as NumPy's does.
2. A list that starts empty whose ``len()`` is read before its first append (``while len(xs) < n:
   xs.append(...)``): numba types the length of a list of no type as undefined, and everything computed
   from it ("failed to unpack undefined" at the stack's pop, "Type of variable 'k' cannot be determined",
   "Undecided type ... load_method"); on those refusals every empty list whose items' kind is known is
   typed (backend/numba/empty_lists.py), with ``x[k % 3]``'s kind known (kinds.py: ``%`` and ``//``, an
   index of any integer expression).  ``np.where`` of numbers appended to such a list (a 0-d array in
   numba) is spelled as a number (scalar_where.py).
3. A helper's argument kinds: a tree's wrapper calls the function as a helper, whose arguments' kinds
   were unknown, so neither 2. nor wave 30's number-then-array promotion applied there; they are now
   taken from the main function's call (joins.arguments_in).
4. Hessians of sums over a boolean mask (``w[labels == k]``, ``x[x > 0]``): forward mode over the
   gradient writes the adjoint by the mask, ``index_add(base, (mask,), v)``, which numba has no
   index for; now a loop over the mask (backend/numba/index_adds.py).
5. ``g.tolist()`` apart from np.unique (a loop over it, ``labels.count(k)``, in forward mode's code):
   ``as_list(g)``, a list of the vector's items (backend/numba/as_lists.py).
6. A dict of the module read at keys the code computes (``for i, name in enumerate(RATES): RATES[name]``,
   a generator over a dict of arrays, ``POWERS[i]``, a loop of layers): numba takes no Python dict;
   a dict of one type of keys and one type of values is passed as the pair (keys, values), read on
   every call (a value changed in place is seen), and ``dict_item(pair, key)`` finds the value
   (backend/numba/dict_items.py, scope_reads.py).

7. numba's compiler failing inside (an AssertionError of its lowering) on a list of float32 items
   unified with one of float64 (the float32 discounted returns, a list prepended to): said at the line
   as numba's limit before; now the float32 arguments are computed in float64 from the start, as where
   numba refuses float32 meeting float64 (backend/numba/widening.py), the results given back in float32.

Still refused at the user's line (REFUSED below; OPEN): a ragged tuple indexed by a counter (numba's getitem
of a heterogeneous tuple); the number-then-array promotion in a tree's wrapper where the proof must read the
pullback (another function: test_numba30's OPEN); helpers srcdiff leaves as Python calls (memoised, recursive)
and module-level objects of no numba type (pyobject), which need the callee compiled apart.
"""

from __future__ import annotations

import numpy as np
import pytest
from backend import numba_every

import srcdiff

from . import corpus, matrix
from . import wave31j_programs as w

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(w.PROGRAMS, "w31j", "wave31j_programs", 31)
#: the default run's cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {("pad_to_a_length", "grad"), ("dict_rates_enumerated", "grad")}
#: cells refused at the user's line still (the docstring's open items)
REFUSED = {("ragged_rows_by_a_counter", cell) for cell in numba_every.CELLS}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program,cell", [corpus.slow_unless((_name(p), c) in KEPT, p, c) for p in PROGRAMS
                                          for c in numba_every.CELLS],
                         ids=[f"{_name(p)}-{c}" for p in PROGRAMS for c in numba_every.CELLS])
def test_every_transformation(program, cell):
    found = numba_every.run(program, (cell,))[cell]
    if (_name(program), cell) in REFUSED:
        assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
        assert "wave31j_programs.py:" in found.message, found.message
    else:
        assert found.outcome in (matrix.OK, matrix.NA), (found.outcome, found.message)


@pytest.mark.slow  # (numba compiles for seconds)
def test_a_dict_changed_in_place_is_seen():
    """The dict's values are read on every call, as the other globals are."""
    x = np.array([0.3, -0.2, 0.5])
    gradient = srcdiff.grad(w.dict_rates_enumerated, jit="numba")
    kept = dict(w.RATES)
    try:
        for scale in (1.0, 3.0):
            w.RATES.update({k: v * scale for k, v in kept.items()})
            want = np.array([2.0 * (i + 1) * r * x[i] for i, r in enumerate(w.RATES.values())])
            assert np.allclose(gradient(x), want, rtol=1e-12, atol=0.0)
    finally:
        w.RATES.update(kept)


@pytest.mark.slow  # (numba compiles for seconds)
def test_a_negative_computed_width_raises_as_numpy():
    with pytest.raises(ValueError):
        w.pad_to_a_length(np.ones(9))
    with pytest.raises(srcdiff.SrcDiffError, match="negative"):
        srcdiff.grad(w.pad_to_a_length, jit="numba")(np.ones(9))
