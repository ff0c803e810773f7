"""Wave 36k (issue 26): CENSUS_AND_FINDINGS"""

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
KEPT = {"poly_tuple_arg", "series_module_list_x", "module_arrays", "mixed_items", "smooth_listcomp",
        "poly_list_arg"}


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
