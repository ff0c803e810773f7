"""Wave 36e: jit="numba" over the programs grad accepts (wave36e_programs.py: variants of each class found),
through grad, value_and_grad, jvp, vjp and a tree against float64 central differences, and jit="numba"
(matrix.py).

Census (every program a test of tests/transforms is parametrised with, and the matrix's corpus: 9097;
grad, then jit="numba" of grad, of value_and_grad and of the Hessian where grad is right; ok / refused at
the user's line / WRONG / crash):

* a stable 2% sample (the machine loaded: 51 rows run, 47 of which grad differentiates): numba 47 ok,
  value_and_grad 7 of 7 ok, Hessian 2 of 2 ok; no refusal, no WRONG, no crash, before and after.
* every program a test pins as refused or open under numba (a NUMBA_REFUSED / NUMBA_OPEN set: 74
  programs, 71 grad differentiates), after fix 1 -> after fix 2: 27 -> 33 ok, 44 -> 38 refused at the
  user's line, 0 WRONG, 0 crash, 0 refusal without a line.  27 compiled already (pins left behind; those
  of test_reach15 and test_wave33a are updated).  The 38 left, by class: a call numba has no version of
  (17: np.nanpercentile with an axis, scipy.linalg.det, np.ravel of a float, np.einsum's and np.polyval's
  forms, np.pad's edge mode, np.convolve's modes, sorted with a key, np.hstack of numbers and arrays, a
  string's item, ...); one variable of two kinds (8: a number and an array, a list and an array, a tuple
  and a list, int and float arrays, a recursive helper's returns); numba's compiler failing inside (7); a
  dict read at a variable key (3); a tuple of tuples of different lengths indexed by a variable (2); a list
  carried through a loop whose items srcdiff cannot tell (1).

The first call in a fresh process with numba's cache warm (benchmarks/numba_first_call.py --problems all,
CPU seconds, imports included, a load average of 16 on 2 cores: about 1.8x an idle machine's): 0.93-1.20 s
for eleven of the twelve problems, pendulum_fit 2.8 s, srcdiff's own work 1.8 s of it: looking up ``len``
(no rule) imported SciPy's rules (numba had imported SciPy).  Fix 3 below: pendulum_fit's first call
(imports apart) 1.90 -> 1.19 s.

Found and fixed:

1. A value that is a number before a loop and an array in it (``h = 0.0``, then ``h = z * h + ...``) whose
   adjoint's contributions meet in ``add_adjoints`` (srcdiff adds with it the adjoints of values whose kind
   it cannot tell, since wave 35i): numba refused "`h` is a number on one path and an array on another"
   (wave 35d's np.hsplit cells, pinned refused).  The number is made an array of ones' shape only where
   every value computed from it keeps its values (backend/numba/taints.py), and ``add_adjoints`` was not
   one of those uses: it is now, where neither operand can be a list (a value computed from the promoted
   one, an ``unbroadcast``, a ``full``, or arithmetic of one; a list is added item by item, not by ``+``).
   Variants: gated cells of np.split's and np.hsplit's pieces, an LSTM-like pair of states, a moving average,
   an integer start, a start read from a float argument, a state read after the loop.
2. Functions given as an argument in a ``functools.partial`` (``loss_fn=functools.partial(_huber, delta=0.5)``,
   a default or given at the call) or in a tuple (``acts=(np.tanh, np.sin)``): the compiled gradient was
   passed the argument itself, "non-precise type pyobject" (five rows of test_reach15 and test_wave33a's
   kw_acts_tuple, pinned refused).
   Lowering calls each function at its own name, its bound arguments written in, so the code never reads
   the argument but for a tuple's length: numba is given None for it, or zeros in a tuple's places
   (backend/jit.py, as it was given None for a bare function).
3. rules/rule_table.py: a built-in function of no optional library (``len``, ``math.sin``) looked up loads
   no optional library's rules (a Python function of none did not already).

Open: the gradient with respect to the float argument a state starts at (argument_start_s0) stays refused at
the user's line: the argument's adjoint is the promoted state's, returned (an array where a number is due).
The tree cell of a program given a partial refuses it at the user's line ("cannot tell which function
loss_fn is": the tree's wrapper passes it on), not numba's.
"""

from __future__ import annotations

import pytest

from . import corpus, matrix
from . import wave36e_programs as w


def _name(p):
    return p.name.partition(":")[2]


def programs():
    return corpus.from_table(w.PROGRAMS, "w36e", "wave36e_programs", 36)


#: refused by jit="numba" at the user's line (see Open)
NUMBA_REFUSED = {"argument_start_s0"}
#: refused by the tree cell at the user's line (see Open)
TREE_REFUSED = {"partial_given_w", "partial_default_w", "leading_partial_w"}
#: the rows the default run keeps
KEPT = {"gated_state_one_W", "partial_default_w"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_first_order(program):
    refused = _name(program) in TREE_REFUSED
    matrix.assert_ok(program, tuple(t for t in matrix.FIRST_ORDER if t != "tree" or not refused))
    if refused:
        matrix.assert_refused_at_the_line(program, ("tree",))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


def test_a_builtin_looked_up_loads_no_optional_rules():
    """numba imports SciPy: looking up ``len`` (no rule) then loaded SciPy's four sections of rules, their
    modules imported (most of a warm first call of a gradient calling ``len``: pendulum_fit's 1.9 s ->
    1.2 s, CPU).  A built-in of another library is no optional library's; a SciPy function still loads
    them."""
    import math

    import scipy.linalg  # noqa: F401  (imported, as numba imports it)

    from srcdiff.rules import builtin
    table = builtin.default_table()
    assert table.lookup(len) is None and table.lookup(math.sin) is not None
    assert table._lazy, "a built-in's lookup loaded the optional libraries' rules"
    assert table.lookup(scipy.linalg.det) is not None and not table._lazy
