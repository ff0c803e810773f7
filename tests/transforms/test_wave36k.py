"""Wave 36k (issue 26, the open findings of test_wave36h.py): numbers and arrays read from tuples and lists
whose items' kind the code did not know, and NumPy reductions of list comprehensions.  Held-out variants
written and measured first (benchmarks/variants36_items.py: Horner over a tuple argument, a series over a
module list read by index, Gaussian bumps over a zip of two tuple arguments, a soft distance to a tuple of
templates, a smoothness penalty and a mean of second differences as np.sum / np.mean of a list comprehension),
spelled beside the classes here (wave36k_programs.py), each through every transformation against float64
central differences.

What was found (the generated ``.source`` read beside the hand-written gradient):

1. A tuple or list of numbers (an argument, or a module constant such as ``COEFFS = (0.5, -1.0, ...)``)
   had the signature ``tuple``: an item read from it was of unknown kind, and so was every value computed
   from it (Horner's accumulator), so each adjoint went through ``unbroadcast`` / ``add_adjoints`` (horner_poly
   16x hand).  A tuple or list whose items all have one signature (Python floats, ints, float64 arrays of one
   ndim and length-one axes; at most 256 items) now has one of its own (ir/shapes.py `ItemsSignature`), which
   the guard checks on each call (another tuple: the code compiled for it, the general code for mixed items);
   a module tuple or list is a dependency on that signature (a list changed in place builds again).  A tuple
   of numbers passed again, or a module tuple, is tested by identity first (immutable: no item read).
2. Known numbers then met an older hold (ad/unused_elements.py: a weight read from a module list, 0 where an
   element is unused) emitted as the array helper ``held_still`` (a NumPy sum per item, series_module_list
   slower than before, 21x): a number's hold is now a select, ``0.0 if w == 0.0 else ...``.
3. The adjoint of np.sum / np.mean of a list comprehension of numbers gave its items as NumPy scalars
   (``list(np.full(...))``): they are now Python floats (``.tolist()``; np.sum's seed ``[1.0] * len(xs)``,
   no array made).  A list of arrays keeps its rows.
4. A helper returning a nested dict (or an object it was handed) was refused as "the differentiated function
   returns a tree" (of a function returning a number): it now names the helper ("the helper nested_rates
   returns a tree it cannot read") and says to return a tuple (a flat dict works too: heun_dict_helper).

Census of the 20 programs through grad, value_and_grad, hessian, jvp, vjp, tree, check, jacobian, hvp, float32
and numba (``-m slow`` runs every row), before -> after: 170 ok, 13 n/a (float32 and hvp of a number or of
another argument than the first), 10 refused at the user's line (nested_helper, every transformation) -> the
same, none WRONG, no crash (the change was speed, exactness kept: before, the rows ran the general code).
test_wave35b's hyd_bucket_spill (a module tuple of rain, ``q += k * s``), refused before by grad, is now
accepted and agrees in grad, value_and_grad, jvp, vjp and hessian; its tree row refuses ``q += k * s`` at
the line (q may be an array there).

Benchmarks (grad/hand, benchmarks/variants.py --quick --rounds 5, CPU clock; the tree before and after run
alternately in one run):

    horner_poly            16.6, 15.5, 15.8 -> 1.88, 1.96     rosen_listcomp_100   1.77, 1.86, 1.78 -> 1.62, 1.60
    poly_tuple_arg          9.2,  8.0,  9.1 -> 1.83            smooth_listcomp_100  1.78, 1.71, 1.68 -> 1.62, 1.62
    series_module_list      7.7,  7.2,  7.3 -> 2.11, 2.02      mean_listcomp_100    1.48, 1.48, 1.45 -> 1.42, 1.41
    bumps_zip               5.7,  5.5,  5.3 -> 1.69            nearest_templates    0.95, 0.98, 0.99 -> 0.75, 0.84

(the microsecond-sized rows' remaining 1.7x-2x is the call: the guard and the wrapper around the generated
function; poly_tuple_arg and bumps_zip before the guard read a tuple passed again by identity: 3.9x, 4.2x)

Open: rosen_listcomp (1.6x) and the two held-out comprehensions (1.4x-1.6x) pay a forward loop that builds
the list and a stack, then a backward loop, where the hand gradient is one loop; a loop over a dict state
rebuilt in each step is still unrolled (rk4_dict: 1091 lines at 10 steps); a helper returning a tuple of
two dicts is refused as "index 'x' is not an integer".
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, wave36k_programs

#: every transformation of the suite this module runs on each row (n/a where it does not apply: float32
#: of a row differentiated with respect to a number, hvp of another argument than the first)
CELLS = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", "check", "jacobian", "hvp", "float32")


def programs():
    return corpus.from_table(wave36k_programs.PROGRAMS, "wave36k", "test_wave36k", 3611)


#: the rows the default run keeps (`-m slow`: all)
KEPT = {"poly_tuple_arg", "module_arrays", "smooth_listcomp"}


def _rows(names=KEPT):
    return [corpus.slow_unless(p.name.partition(":")[2] in names, p) for p in programs()]


def _program(name):
    return next(p for p in programs() if p.name.endswith(":" + name))


@pytest.mark.parametrize("program", _rows(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, CELLS)


@pytest.mark.parametrize("program", _rows(set()), ids=lambda p: p.name)
def test_numba(program):
    matrix.assert_numba_agrees_or_refuses(program)


def _source(name):
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    g(*p.args)
    return g


@pytest.mark.parametrize("name", ["horner_poly", "poly_tuple_arg", "series_module_list_x", "bumps_zip",
                                  "poly_int_tuple", "poly_list_arg"])
def test_numbers_read_from_a_tuple_are_known_numbers(name):
    """No run-time helper: every item read from the tuple or list is known to be a number."""
    source = _source(name).source
    assert "unbroadcast" not in source and "add_adjoints" not in source, source


def test_arrays_of_one_shape_read_from_a_tuple_are_known():
    source = _source("module_arrays").source
    assert "unbroadcast" not in source, source


@pytest.mark.parametrize("name", ["smooth_listcomp", "rosen_listcomp", "sum_listcomp_floats_a"])
def test_a_list_of_numbers_gets_float_adjoints(name):
    """Python floats (``[1.0] * len(xs)`` for np.sum's seed, else ``.tolist()``), not ``list(array)``."""
    source = _source(name).source
    assert ("[1.0] * len(" in source or ".tolist()" in source) and "= list(" not in source, source


def test_a_list_of_rows_keeps_its_rows():
    source = _source("stack_listcomp_rows").source
    assert ".tolist()" not in source and "[1.0] * len(" not in source, source


def _central(f, x, *rest, eps=1e-6):
    return (f(x + eps, *rest) - f(x - eps, *rest)) / (2 * eps)


def test_a_tuple_of_other_items_takes_the_general_code():
    """The guard checks the items' kinds on each call: a tuple holding an int and a float, or an array,
    after a tuple of floats, gets code of its own (right at each)."""
    f = wave36k_programs.v36k.poly_tuple_arg
    g = srcdiff.grad(f)
    for coeffs in [(0.5, -1.0, 2.0), (1, 0.5, -2), (0.5, -1.0, 2.0)]:
        assert g(0.3, coeffs) == pytest.approx(_central(f, 0.3, coeffs), rel=1e-7)
    with pytest.raises(srcdiff.SrcDiffError, match="scalar"):
        g(0.3, (0.5, np.ones(2)))


def test_a_module_list_changed_in_place_builds_again(monkeypatch):
    """A module list of floats that gets an array appended: the guard sees it (no stale code)."""
    f = wave36k_programs.v36k.series_module_list
    g = srcdiff.grad(f)
    assert g(0.3, 0.8) == pytest.approx(_central(f, 0.3, 0.8), rel=1e-7)
    monkeypatch.setattr(wave36k_programs.v36k, "WEIGHTS", [*wave36k_programs.v36k.WEIGHTS[:3], 0.5])
    assert g(0.3, 0.8) == pytest.approx(_central(f, 0.3, 0.8), rel=1e-7)
    weights = wave36k_programs.v36k.WEIGHTS
    weights.append(np.full(2, 0.25))
    with pytest.raises((srcdiff.SrcDiffError, TypeError, ValueError)):
        g(0.3, 0.8)


def test_a_helper_returning_a_nested_dict_is_refused_saying_so():
    """Refused at the helper's return, the message naming the helper (it said "the differentiated
    function returns a tree", of a function that returns a number)."""
    p, = corpus.from_table(wave36k_programs.REFUSED, "wave36k", "test_wave36k", 3611)
    matrix.assert_refused_at_the_line(p, ("grad", "value_and_grad", "vjp", "jvp"))
    with pytest.raises(srcdiff.SrcDiffError, match="the helper nested_rates returns a tree"):
        srcdiff.grad(p.func)(*p.args)
