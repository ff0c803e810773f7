"""Wave 36h (issue 26, speed on held-out variants): the benchmark set's nine problems written the way
other users write them (benchmarks/variants36_heldout.py: Horner over a module tuple, a generator's
sum over powers, a scalar recursion with a branch, Rosenbrock by np.dot / a loop over pairs / np.sum
of a list comprehension, MSE by np.square / np.linalg.norm / np.einsum, logistic losses by log1p
and a sigmoid helper, an MLP over a list of (W, b) tuples, an RNN keeping its states in a list, RK4
on a dict state, a pendulum whose parameters an object holds), written and measured before any
change, and the spellings of the classes fixed (wave36h_programs.py), each through every
transformation against float64 central differences.

What was found (the generated ``.source`` read beside the hand-written gradient):

1. An RNN keeping its states in a list (``hs.append(np.tanh(... hs[-1] @ Wh ...))``) took 2.2x its
   hand gradient: a list grown while read in its loop became a new list each step (list_joins.py),
   O(T²) copies forward and a backward loop over every copy (1275 ``zeros_like(h) + ...`` of the
   state at T = 50).  When the loop reads the list only at ``[-1]`` and grows it by appends of its
   own body, the last item is now carried in a name of its own (``hs_last``), exact at every point,
   and the list is only appended to (frontend/last_items.py); [-2], an append in a branch, a list
   made otherwise: as before.
2. An object built from the parameters whose method was called in a ``range`` loop (``pend =
   Pendulum(c, k)``; ``pend.accel(theta, omega)``) unrolled the loop: every method call on a tree was
   taken for a change of it.  At 100 steps the gradient was 1200 lines built in 106 s; a method
   that assigns no attribute or item, calls no method of ``self`` and hands ``self`` to no call only
   reads it, and the loop is now kept (37 lines; frontend/reading_methods.py).
3. A crash (RecursionError, not a SrcDiffError) building the gradient of a loop that is unrolled
   for a dict state rebuilt in each step (RK4 on ``s = {"u": ..., "v": ...}``, 10 steps) and of (2)
   at 100 steps: each contribution deep-copied its value's use mask (ad/unused_elements.py), an
   expression as deep as the unrolled loop, even where none of it is emitted.  The copy is now made
   only where the mask is emitted.

Open (not speed, found on the way): a helper returning a dict (``return {"u": ..., "v": ...}``) is
refused at its line as "the differentiated function returns a tree"; a loop over a dict state
rebuilt in each step is still unrolled (rk4_dict: 1091 lines at 10 steps, 26 s to build).

Census of the 31 programs below (grad, value_and_grad, hessian, jvp, vjp, tree, check, numba;
``-m slow`` runs them all), before -> after: none WRONG; 1 crash (rk4_dict_deep: RecursionError)
-> 0; numba refuses at the user's line the programs NUMBA_REFUSES names, before and after.

Benchmarks (grad/hand, benchmarks/variants.py --quick, CPU clock, same run; before -> after):
see the report of wave 36h (the table is also in the commit message).
"""

import pytest

import srcdiff

from . import corpus, matrix, speed_checks, wave36h_programs


def programs():
    return corpus.from_table(wave36h_programs.PROGRAMS, "wave36h", "test_wave36h", 36)


#: the rows the default run keeps (the classes this wave changed; `-m slow`: all)
KEPT = {"euler_history", "two_items_first", "with_break", "decay_object_a"}

#: numba types a list's items alike (a number beside the arrays), and its compiler fails inside on an append in a
#: branch of a list read in the loop: refused at the user's line, before and after this wave
NUMBA_REFUSES = {"two_items_first": "a list holding a number and arrays", "append_in_branch": "numba's compiler"}


def _kept(names=KEPT, trees=True):
    """The rows (rk4_dict_deep apart: test_a_deeply_unrolled_loop_builds); with `trees` False, not the
    one differentiated with respect to a list of (W, b) tuples (speed_checks compares arrays)."""
    return [corpus.slow_unless(p.name.partition(":")[2] in names, p) for p in programs()
            if not p.name.endswith("rk4_dict_deep") and (trees or not isinstance(p.args[p.wrt], list))]


def _program(name):
    return next(p for p in programs() if p.name.endswith(":" + name))


@pytest.mark.parametrize("program", _kept(trees=False), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", _kept(trees=False), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("program", _kept(set()), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_numba_included(program, NUMBA_REFUSES)


def _source(name):
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    g(*p.args)
    return g.source


@pytest.mark.parametrize("name", ["rnn_list_Wh", "euler_history", "scalar_history", "two_items_first",
                                  "read_before_and_after", "with_break"])
def test_a_history_read_at_its_end_is_carried(name):
    """No list is rebuilt in each step: the last item is a name of its own."""
    source = _source(name)
    assert "_grown" not in source and "_last" in source, source


@pytest.mark.parametrize("name", ["two_back", "append_in_branch"])
def test_other_reads_keep_the_new_lists(name):
    assert "_last" not in _source(name)


def test_an_object_read_by_its_method_keeps_the_loop():
    """decay_object: the loop stays a loop (one copy of its body whatever the number of steps)."""
    p = _program("decay_object_a")
    g = srcdiff.grad(p.func, wrt=p.wrt)
    g(*p.args)
    few = len(g.source.splitlines())
    g(p.args[0], p.args[1], 40)
    assert "for " in g.source and len(g.source.splitlines()) == few, g.source


@pytest.mark.parametrize("name", ["counter_object", "chain_object"])
def test_a_method_that_may_change_its_object_unrolls(name):
    """A method writing ``self.total``, or calling another method of self: the loop is unrolled (as before)."""
    assert "for " not in _source(name).split("# backward")[0]


@pytest.mark.slow
def test_a_deeply_unrolled_loop_builds():
    """rk4_dict over 10 steps (unrolled for its dict state): built, no RecursionError, exact."""
    p = _program("rk4_dict_deep")
    speed_checks.assert_near_central_differences(p)
