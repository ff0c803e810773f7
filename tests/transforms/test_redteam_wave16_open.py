"""What the red team's sixteenth wave found that is still open and is not a wrong answer
(test_redteam_wave16_findings.py holds those): reasonable code refused, each at its line.  Each class is a
strict xfail naming it; references are float64 central differences of the function (or the closed form).
Refusals that are srcdiff's design (a write through an index array that repeats a position, a write into
an array another name shares, ``.fill`` / ``np.copyto``) are not listed: NumPy's own meaning is unclear there
or the refusal is the documented one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus
from .corpus import Program
from .matrix import OK, REFUSED, run
from .redteam_wave16 import WAVE16
from .redteam_wave16_trees import Gaussian, frozen_dataclass_nll

HERE = "test_redteam_wave16_open.py"
TABLE = {name: (func, make, wrt) for name, func, make, wrt in WAVE16}


def open_class(name: str, cases):
    """`cases` as pytest params, each a strict xfail naming the class."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=name)) for c in cases]


def _program(name: str) -> Program:
    """The wave's program `name`, with the arguments the matrix gives it (corpus.redteam's seed)."""
    func, make, wrt = TABLE[name]
    return Program(f"redteam:{name}", func, tuple(make(corpus._seed(f"redteam:{name}"))), wrt, HERE)


# ---- 1. reasonable code refused, each at the user's line (OPEN) ---------------------------------------------
# One program per class, from the wave; grad, value_and_grad, jvp, vjp, the tree call, numba and check refuse
# the same way (the matrix's counts: 16 of the 229 rows refused by grad, 0 unlocated; after reach16: 9, four of them
# the writes through repeated indices this file leaves out).
#   false alias       ``prev = np.array([R[i-1, j-1], R[i-1, j], R[i, j-1]])`` (soft-DTW) then ``R[i, j] = ...``:
#                     "prev shares its memory with R" (np.array of items read by index is a copy)
#   nested defaults   a nested helper ``def penalty(v, power=2)`` called with and without ``power``
#   list swap         ``y[j], y[j + 1] = y[j + 1], y[j]`` on ``y = list(x)`` (items of a vector are numbers)
#   einsum optimize   ``np.einsum("ij,jk,ki->", A, B, A, optimize=True)``: "unsupported arguments"
#   ufunc methods     ``np.add.outer``, ``np.subtract.outer``, ``np.logaddexp.accumulate``: "cannot tell which
#                     function np.add.outer is"
#   ediff1d ends      ``np.ediff1d(x, to_begin=0.0, to_end=x[0])``: "x[0] must be a constant here"
#   sliding windows   ``np.lib.stride_tricks.sliding_window_view(x, 3)``: no adjoint rule
#   reshape order     ``x.reshape((2, 3), order="F")``: unsupported keyword
#   np.vdot           no adjoint rule (np.inner and np.dot of the same vectors are differentiated)
#   where(cond)       ``np.where(x > 0)[0]`` as an index: "missing a required argument: 'x'"
#   f-string keys     ``params[f"W{i}"]`` / ``params["b" + str(i)]`` in ``for i in range(1, layers + 1)``
#   nested append     a nested ``def add(t): terms.append(t)`` with no return
#   list slices       ``sorted(x)[1:-1]``: "slicing a list is not supported"
#   iterators         ``itertools.accumulate(x)``, ``np.fromiter(gen, float)``, ``zip(*zip(a, b))``
#   default list      ``def f(x, seen=[]): seen.append(1)`` (the classic mistake; f still computes its value)
#   tolist            ``vals = x.tolist()`` then Python arithmetic on the floats

# Now differentiated, tested in test_reach16.py (reach16_programs.py): einsum_optimize (w16_einsum_trace_optimize),
# ufunc_outer (w16_add_outer), ediff1d_to_end_value (w16_ediff1d_ends), reshape_order_f (w16_reshape_order_f),
# vdot (w16_inner_vdot), where_one_argument (w16_where_one_argument), itertools_accumulate
# (w16_accumulate_running), fromiter_generator (w16_fromiter_generator), nested_function_with_defaults
# (w16_nested_helper_defaults), list_item_swap (w16_bubble_sort_pairs), zip_star (w16_zip_star),
# slice_of_a_list (w16_sorted_builtin), nested_function_appending (w16_nested_append), sliding_window_view
# (w16_sliding_windows); since wave 33a fstring_keys_of_a_tree (w16_cs231n_params: params[f"W{i}"] over range of
# an int argument, test_wave33a.py).
REFUSED_CODE = [
    ("false_alias_of_items_read_by_index", "w16_soft_dtw"),
    ("mutable_default_append", "w16_mutable_default"),
    ("tolist_then_python", "w16_tolist_sum"),
]


def _row(case):
    _, name = case
    return run(_program(name), ("grad",))


@pytest.mark.parametrize("case", open_class("reasonable code refused", [(c,) for c in REFUSED_CODE]),
                         ids=lambda c: c[0])
def test_reasonable_code_refused(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message


#: refused here until a later wave (np.logaddexp.accumulate: a rule since wave 36m, test_wave36m.py)
NOW_DIFFERENTIATED = [("ufunc_accumulate", "w16_logaddexp_reduce")]


@pytest.mark.parametrize("case", NOW_DIFFERENTIATED, ids=lambda c: c[0])
def test_reasonable_code_now_differentiated(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message


@pytest.mark.parametrize("case", REFUSED_CODE, ids=lambda c: c[0])
def test_reasonable_code_refused_names_the_users_line(case):
    row = _row(case)
    assert not row.excluded, row.excluded
    cell = row.cells["grad"]
    assert cell.outcome == REFUSED and cell.located, cell.message


# ---- 2. refused by hand probes (OPEN): random draws, max of three, vmap, dataclasses.replace ------------------
# A draw from a generator used in arithmetic (the reparameterisation trick, a fixed-noise Monte Carlo
# estimate) is refused, "the method .normal() of rng has no adjoint rule", though the draw does not depend on
# the input and docs/jit.md lists ``rng = np.random.default_rng(0)`` then ``rng.normal(size=x.shape)`` as
# supported (it is, when the draw only feeds a comparison: a dropout mask); ``np.random.seed(0)`` inside
# the function is refused as "called for its effect only".  Builtin ``max(a, b, c)`` of three values is
# refused ("max() is supported with one sequence or two values").  ``srcdiff.vmap`` of a map that builds its
# result with ``np.array([...])`` or a list (an ODE right-hand side, a residual) is refused ("stack(list) of a
# tuple of batched values has no batching rule", "lists cannot be batched"), and ``vmap(jacobian(f))`` was
# refused ("got Jacobian") without naming a line (since run once per example: test_vmap_of_a_jacobian).
# ``dataclasses.replace(g, mu=...)`` of a tree argument is refused ("g is a parameter tree, passed whole to
# dataclasses.replace").


def reparameterised(mu, log_sigma):
    rng = np.random.default_rng(0)
    eps = rng.normal(size=mu.shape)
    z = mu + np.exp(log_sigma) * eps
    return np.sum(z ** 2)


def seeded_monte_carlo(x):
    np.random.seed(0)
    eps = np.random.randn(4, 3)
    return np.mean(np.exp(0.3 * eps @ x))


def lorenz(u):
    x, y, z = u
    return np.array([10.0 * (y - x), x * (28.0 - z) - y, x * y - 8.0 / 3.0 * z])


def replaced_dataclass(g, x):
    g2 = dataclasses.replace(g, mu=g.mu * 2.0)
    return frozen_dataclass_nll(g2, x)


_MU, _LS = np.array([0.3, -0.2]), np.array([0.1, -0.4])
# builtin_max_of_three (max(a * b, a + b, 0.5)): differentiated, tested in test_reach16.py (max_of_three)
BY_HAND = [
    ("seed_inside_the_function", lambda: srcdiff.grad(seeded_monte_carlo)(np.array([0.5, -1.0, 2.0])),
     lambda: central_difference(seeded_monte_carlo, (np.array([0.5, -1.0, 2.0]),), 0)),
]
# vmap(jacobian(lorenz)) was refused here until the strict xfail passed (wave 32 found it): vmap runs a
# Jacobian srcdiff made once per example (its rows are one batched call already), test_vmap_of_a_jacobian below


@pytest.mark.parametrize("name, call, want", open_class("reasonable code refused (hand probe)", BY_HAND),
                         ids=[c[0] for c in BY_HAND])
def test_reasonable_code_refused_by_hand(name, call, want):
    np.testing.assert_allclose(call(), want(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name, call, want", BY_HAND[:1], ids=[c[0] for c in BY_HAND[:1]])
def test_reasonable_code_refused_by_hand_names_the_line(name, call, want):
    with pytest.raises(srcdiff.SrcDiffError, match=HERE):
        call()


def test_vmap_of_a_jacobian():
    # (a strict xfail of BY_HAND until wave 32: now one Jacobian per example, each row by central differences)
    xs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    got = srcdiff.vmap(srcdiff.jacobian(lorenz), per_example="allow")(xs)
    want = [[central_difference(lambda u, i=i: lorenz(u)[i], (x,), 0) for i in range(3)] for x in xs]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-6, atol=1e-9)
    # jit="numba" has no loop over examples to compile: refused at the function's line, saying how to compose
    with pytest.raises(srcdiff.SrcDiffError, match="compose from the inside out") as info:
        srcdiff.vmap(srcdiff.jacobian(lorenz), jit="numba")(xs)
    assert info.value.location.line == lorenz.__code__.co_firstlineno


def test_a_draw_of_a_generator_seeded_inside_is_a_constant():
    # (open since wave 16: "the method .normal() of rng has no adjoint rule"; since wave 27 the draws of a
    # generator the function seeds itself are constants of the function, lower/generator_draws.py)
    want = central_difference(reparameterised, (_MU, _LS), 0)
    np.testing.assert_allclose(srcdiff.grad(reparameterised)(_MU, _LS), want, rtol=1e-6, atol=1e-9)


def test_vmap_of_an_array_display_is_batched():
    # (open since wave 16: refused at the line; since wave 26 a list of batched numbers is a list of rows)
    xs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    mapped = srcdiff.vmap(lorenz)
    np.testing.assert_allclose(mapped(xs), np.stack([lorenz(x) for x in xs]), rtol=1e-12)
    assert mapped.per_example is None


@pytest.mark.xfail(strict=True, reason="dataclasses.replace of a tree argument refused")
def test_dataclasses_replace_of_a_tree():
    g, x = Gaussian(np.array([0.1, -0.3]), np.array([0.2, 0.0])), np.array([[0.5, 1.0], [-1.0, 0.3]])
    got = srcdiff.grad(replaced_dataclass)(g, x)
    want = central_difference(lambda mu: replaced_dataclass(Gaussian(mu, g.log_sigma), x), (g.mu,), 0)
    np.testing.assert_allclose(got.mu, want, rtol=1e-6)


# ---- 3. jit="numba" refuses a right gradient, giving a wrong reason (OPEN) ------------------------------------
# A dropout mask drawn from a Generator argument (``rng.random(h.shape) > p``): the compiled gradient draws from
# the generator, and the first-call check then runs the Python gradient on the same, already advanced,
# generator: other numbers, so the check disagrees and refuses "numba's integers are 64-bit and wrap around
# where Python's do not".  The compiled gradient was right (a call whose two masks happen to agree passes, and
# later calls agree with central differences of f at each seed).


def dropout(W, x, rng, p=0.5):
    h = np.tanh(W @ x)
    mask = rng.random(h.shape) > p
    return np.sum((h * mask / (1 - p)) ** 2)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, raises=srcdiff.SrcDiffError,
                   reason="numba's first-call check draws again from the user's generator: a false refusal")
def test_numba_dropout_with_a_generator_argument():
    W, x = np.random.default_rng(2).normal(size=(4, 3)), np.array([0.5, -1.0, 2.0])
    got = srcdiff.grad(dropout, jit="numba")(W, x, np.random.default_rng(7))
    want = central_difference(lambda V: dropout(V, x, np.random.default_rng(7)), (W,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
