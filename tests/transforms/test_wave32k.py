"""Wave 32k: wave 32's new code combined the way users write it (wave32k_programs.py): einsums of three
or more operands (einsum_pairs.py), the optimizer's zero_ties / hyperbolic / like_terms /
joined_selections rewrites at ties, ±0, ±inf and large magnitudes, tuple-keyed dict trees, loops over
zip / enumerate of module lists of functions, keyed writes, module constants as keys, numba's module
lists, dicts and cached calls, and a function's ``__code__`` replaced; each through grad,
value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32, check and jit="numba" against float64
central differences, and (CHANGED) called once, changed, called again.

Census, before -> after (ok / n/a / refused at the user's line / WRONG / BAD; cells):

    PROGRAMS (36 rows x 11 transformations: grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a
        tree, float32, check, numba; at smooth points)
        before: 336 ok, 10 n/a, 50 refused (5 rows: four zips of numbers and functions, tuple_keyed_tree),
                0 WRONG, 0 BAD
        after:  379 ok,  6 n/a, 11 refused (tuple_keyed_tree: open), 0 WRONG, 0 BAD
    TIES (13 rows at ties, ±0, ±inf data, |x| 300 and 1e150; grad, value_and_grad, vjp, jvp, numba):
        0 WRONG before and after; where the function has one-sided derivatives against central
        differences (the tie's half share), at a selection's jump or a cusp against the debug gradient
    CHANGED (20 rows x 10 transformations: called once, changed, called again)
        before: 150 ok, 4 n/a, 30 refused (3 rows: zip(WEIGHTS, FUNCS)), 16 WRONG (2 rows), 0 BAD
        after:  196 ok, 4 n/a,  0 refused,                               0 WRONG,          0 BAD
    a pass-through wrapper given other code (grad, value_and_grad, hessian, numba): 4 WRONG -> 4 ok

Found and fixed (each a class; the old value or derivative returned silently in 1. and 3.):

1. A helper under ``functools.lru_cache`` / ``cache`` called with constants (``cached_coefficient(3)``)
   is computed when the gradient is built (lower/cached_calls.py), and only the helper's identity was a
   dependency.  Once what the helper reads changed and the user cleared its cache (``SCALE_K[0] = 5.0;
   cached_coefficient.cache_clear()``), Python's function computed the new value and every
   transformation but hessian/hvp (numba and vmap(grad) included) kept the old value and gradient.  Now
   the call's value is itself a dependency, asked again on every call of the gradient (a hit of the
   helper's cache): a cleared cache gives the new value and the gradient is built again.  Variants: a
   tuple of weights with a keyword argument, read in a helper the function calls.
2. Refused ("cannot tell which function f is"): ``for w, f in zip(WEIGHTS, FUNCS)`` and
   ``sum(w * f(x) for w, f in zip(WEIGHTS, (np.tanh, np.cos)))``, a module list of numbers zipped with
   functions (lower/static_loops.py took columns of functions and the function's own arrays only).  A
   module list or tuple of numbers is now a column of constants, a dependency compared by its items
   (changed in place or shortened: built again).  Variants: three columns (functions, a tuple of ints
   and floats, an argument differentiated), a display of functions, WEIGHTS changed, FUNCS popped.
3. A pass-through wrapper srcdiff reads through (``functools.wraps`` around ``fn(*args, **kwargs)``)
   whose own ``__code__`` is replaced (``loss.__code__ = doubling(None).__code__``, a reloader): the
   gradient watched the wrapped function's code only (code_swaps.py, and the per-call test where
   there are no audit events), so grad, value_and_grad, the Hessian's plan and numba kept the
   unwrapped function's derivative.  The wrapper's ``__code__`` is now a dependency of what is parsed
   through it (frontend/parse.py): given other code, every transformation is built again.

Checked and right (rows kept): einsum's pairs with a relu at its ties, a trace of four, one operand
thrice, a permuted output, a batch of one row, an int operand, a Python int and a 0-d float64 among
the operands, a computed 0-d operand, upper-case letters, 'bi,bi,bi->b', an outer product of three,
in a loop; two hinges tied at different points (a factor zero at one tie is not zero at the other:
zero_ties keeps the other's share), Huber exactly at ±d and ±0, a power 1.5 of a hinge, log cosh at
|x| 300, sinh / cosh by hand and over a rebound or written-into name (hyperbolic reads a name bound
once only), math's, 2 s and 4.0 * (e * x) at 1e150 and with 1e-300, np.clip with equal bounds, the
user's nested np.where, a selection of what vanishes already, ±inf data; module lists of keys
(``SIZES.append``, ``Net.DEPTH``, ``Net.KEYS.reverse()``), a table of functions and its list of names,
enumerate(FUNCS).append, a tuple-keyed module dict changed or given a key, a tuple-keyed default
changed in place, LABELS of keyed writes appended or reversed, x[KEEP] in an einsum with KEEP changed,
RATES[name] (numba's dict_items) changed or given a key.  A function's ``__code__`` replaced
(code_swaps.py: a helper's, through functools.wraps inside and out, a method's, a closure's, many
gradients of one function, after the gradient was collected, swapped back, in another thread, numba):
the new derivative each time (checked while writing this wave; wave 32g's tests pin the mechanism).

Open: a loop over a module dict keyed by pairs that reads the differentiated tree at its keys (``for
(i, j), w in COUPLINGS.items(): p[i, j]``) is refused at the line ("reads it with constant keys only";
REFUSED).  Pre-existing, not of wave 32's code: the Hessian where a first derivative jumps (a hinge of
``np.abs(r) - d`` at ``|r| = d``, Huber's linear part) is NaN for the kink's whole column, entries whose
true value is 0 too (hvp and jvp of the
gradient in another direction are exact): fixed in wave 33b (test_wave33b.py).  ``np.log(x * x)`` at x = 0
(value -inf) has gradient 0 there (a product's zero factor wins over 1 / 0), also under debug=True.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave32k_programs as w
from .test_wave31m import TRANSFORMS as CHANGED_TRANSFORMS
from .test_wave31m import census as changed_census

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"einsum_python_int_scale", "zip_three_columns_c", "hinge_pair_ties"}
TIES_KEPT = {"hinge_pair_ties", "einsum_relu_bilinear", "clip_band_equal_bounds", "tanh_by_hand"}
CHANGED_KEPT = {"cached_coefficient_cleared", "cached_tuple_cleared", "zip_weights_setitem"}
#: numba has no einsum of these spellings: refused at the line
NUMBA_REFUSED = {"einsum_trace_of_four", "einsum_python_int_scale"}


#: refused at the user's line by every transformation (open: a loop over a module dict keyed by pairs
#: reading the differentiated tree at its keys, ``for (i, j), w in COUPLINGS.items(): p[i, j]``)
REFUSED = {"tuple_keyed_tree"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w32k", "wave32k_programs", 32)


def changed():
    return list(zip(corpus.from_table([r[:4] for r in w.CHANGED], "w32k", "wave32k_programs", 32),
                    [r[4] for r in w.CHANGED]))


def _name(p):
    return p.name.partition(":")[2]


TABLE = table_tests.Table(programs, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_every_transformation = TABLE.every_transformation(ALL, kept=KEPT)
test_numba = TABLE.numba()


def _first_order(f, args, jit=None):
    """grad, value_and_grad, vjp and jvp (each direction) of f in its first argument."""
    other = copy.deepcopy(args[-1])  # (every row takes one or two arguments)

    def g(v):
        return f(v, other)

    x, g = args[0], f if len(args) == 1 else g
    out = {"grad": srcdiff.grad(f, jit=jit)(*copy.deepcopy(args)) if jit else srcdiff.grad(f)(*copy.deepcopy(args))}
    if jit:
        return out
    out["value_and_grad"] = srcdiff.value_and_grad(f)(*copy.deepcopy(args))[1]
    out["vjp"] = srcdiff.vjp(g, x.copy())[1](1.0)
    out["vjp"] = out["vjp"][0] if isinstance(out["vjp"], tuple) else out["vjp"]
    out["jvp"] = np.array([srcdiff.jvp(g, (x.copy(),), (e,))[1] for e in np.eye(x.size)])
    return out


def _check_ties(name, f, args, central, jit=None):
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        got = _first_order(f, args, jit)
        debug = srcdiff.grad(f, debug=True)(*copy.deepcopy(args))
        want = central_difference(f, args, 0) if central else debug
    for what, value in got.items():
        if central:
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {what}")
        else:
            np.testing.assert_allclose(value, want, rtol=1e-13, atol=0.0, err_msg=f"{name}: {what} against debug")


test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(
    (*table_tests.REFUSED_CELLS, "hvp"), kept=REFUSED)


@pytest.mark.parametrize("row", [corpus.slow_unless(r[0] in TIES_KEPT, r) for r in w.TIES], ids=lambda r: r[0])
def test_at_ties_and_large_magnitudes(row):
    """At ties, ±0, ±inf data and |x| 300 or 1e150: the first-order transformations against central
    differences where the function has one-sided derivatives (the tie's half share), else against the
    debug gradient (the rewrites' own promise: the same bits)."""
    _check_ties(*row)


@pytest.mark.slow
@pytest.mark.parametrize("row", w.TIES, ids=lambda r: r[0])
def test_at_ties_numba(row):
    name, f, args, central = row
    if name in NUMBA_REFUSED:
        pytest.skip("numba: no einsum of this spelling")
    _check_ties(name, f, args, central, jit="numba")


def _assert_never_the_old_one(pair, transforms) -> None:
    bad = {k: v for k, v in changed_census([pair], transforms).items()
           if v[0] not in (matrix.OK, matrix.NA, matrix.REFUSED)}
    assert not bad, bad


@pytest.mark.parametrize("pair", [corpus.slow_unless(False, pair) for pair in changed()],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call_every_transformation(pair):
    """Called once, changed, called again: the new derivative or a refusal at the line, never the old one."""
    _assert_never_the_old_one(pair, CHANGED_TRANSFORMS)


@pytest.mark.parametrize("pair", [pair for pair in changed() if _name(pair[0]) in CHANGED_KEPT],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call(pair):
    _assert_never_the_old_one(pair, ("grad", "value_and_grad"))


def test_a_cleared_cache_gives_the_new_value():
    """``SCALE_K[0] = 5.0; cached_coefficient.cache_clear()``: the gradient and value of the new
    coefficient; without the clear, Python's function keeps the cached value, and so does the gradient."""
    x = np.array([0.3, -0.7, 1.1])
    vg = srcdiff.value_and_grad(w.cached_coefficient_call)
    assert vg(x)[0] == pytest.approx(w.cached_coefficient_call(x))
    try:
        w.SCALE_K[0] = 5.0
        assert vg(x)[0] == pytest.approx(6.0 * np.sum(np.sin(x) ** 2))  # (not cleared: the cache's 6.0)
        w.cached_coefficient.cache_clear()
        value, grad = vg(x)
        assert value == pytest.approx(15.0 * np.sum(np.sin(x) ** 2))
        np.testing.assert_allclose(grad, 15.0 * 2 * np.sin(x) * np.cos(x))
    finally:
        w.SCALE_K[0] = 2.0
        w.cached_coefficient.cache_clear()


def test_hessian_at_a_kink_is_nan_in_its_entry_only():
    def f(r):
        return np.sum(0.5 * np.maximum(np.abs(r) - 0.5, 0.0)) + np.sum(np.abs(r[1:]) ** 3)

    H = srcdiff.hessian(f)(np.array([0.5, 1.0, -2.0]))
    assert np.isnan(H[0, 0])
    np.testing.assert_array_equal(H[1:, 0], [0.0, 0.0])


def _hessian_diagonal(f):
    hessian = srcdiff.hessian(f)
    return lambda x: np.diag(hessian(x))


def _gradient_of_value_and_grad(f):
    value_and_grad = srcdiff.value_and_grad(f)
    return lambda x: value_and_grad(x)[1]


@pytest.mark.parametrize("make", [srcdiff.grad, _gradient_of_value_and_grad, _hessian_diagonal,
                                  corpus.slow_unless(False, lambda f: srcdiff.grad(f, jit="numba"))],
                         ids=["grad", "value_and_grad", "hessian", "numba"])
def test_a_pass_through_wrapper_given_other_code(make):
    """``loss.__code__ = doubling(None).__code__`` of a functools.wraps pass-through wrapper srcdiff read
    through: the derivative of the doubled function (the gradient watched the wrapped function's code
    only: the old derivative, silently, in every transformation and numba)."""
    f = w.wrapped_cubes()
    x = np.array([0.5, -1.0, 2.0])
    derivative = make(f)
    first = derivative(x)
    f.__code__ = w.doubling(None).__code__
    np.testing.assert_allclose(f(x), 2.0 * np.sum(x ** 3))
    np.testing.assert_allclose(derivative(x), 2.0 * first)
