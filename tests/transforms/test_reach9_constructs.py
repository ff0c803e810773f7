"""Constructs grad used to refuse (reach9_programs.py): every transformation agrees with
central differences (matrix.py), numba agrees or refuses at the user's line, float32 stays
float32."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, reach9_programs
from .reach9_programs import PROGRAMS


def programs():
    return corpus.from_table(PROGRAMS, "reach9", "reach9_programs", 9)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def _as32(value):
    return value.astype(np.float32) if isinstance(value, np.ndarray) and value.dtype == np.float64 else value


@pytest.mark.parametrize("program", [p for p in programs() if isinstance(p.args[p.wrt], np.ndarray)], ids=_name)
def test_float32_gradient_is_float32(program):
    g = srcdiff.grad(program.func, wrt=program.wrt)
    single = g(*map(_as32, program.args))
    double = g(*program.args)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, double, rtol=2e-3, atol=2e-3 * max(1.0, float(np.max(np.abs(double)))))


@pytest.mark.parametrize("f, words", [
    (reach9_programs.generator_returning_early, "a `return` inside its body"),
    # `yield from` is read since wave 11: the generator it delegates to is refused at its own `return`
    (reach9_programs.generator_yield_from, "_early_return is a generator function with a `return` inside"),
    (reach9_programs.generator_sent_values, "a `yield` used as a value"),
])
def test_generators_srcdiff_cannot_list_are_refused_at_the_line(f, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(f)(np.array([0.5, 1.5]))
    assert info.value.location.filename == reach9_programs.__file__
    assert "yield" in info.value.location.code or "return" in info.value.location.code


@pytest.mark.parametrize("f, words", [
    (reach9_programs.view_of_int_index, "B shares its memory with row"),  # B[i]: a matrix row, or a number
    (reach9_programs.view_kept_in_a_list, "rows shares its memory with acc"),
])
def test_views_srcdiff_cannot_read_as_their_array_are_refused_at_the_line(f, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(f)(np.ones((3, 3)))
    assert info.value.location.filename == reach9_programs.__file__
    assert "=" in info.value.location.code


def test_a_complex_value_used_otherwise_is_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError, match="complex") as info:
        srcdiff.grad(reach9_programs.complex_log)(np.array([0.5, 1.5]))
    assert info.value.location.filename == reach9_programs.__file__


def test_complex_parts_are_real_code():
    source = srcdiff.grad(reach9_programs.complex_rotation).source_for(np.array([0.3, 0.4]), 0.3)
    code = "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))
    assert "z_re" in code and "z_im" in code and "1j" not in code and "0.5j" not in code


def test_add_reduceat_at_first_order_and_refused_at_the_line_at_second():
    program = corpus.from_table([("reduceat_segments", reach9_programs.reduceat_segments,
                                  lambda r: (r.normal(size=5),), 0)], "reach9", "reach9_programs", 9)[0]
    row = matrix.run(program, ("grad", "value_and_grad", "jvp", "vjp", "hessian"))
    assert all(row.cells[t].outcome == matrix.OK for t in ("grad", "value_and_grad", "jvp", "vjp")), row.cells
    hessian = row.cells["hessian"]  # the last run's length is np.shape(x)[0] - 3 in the adjoint: not a constant
    assert hessian.outcome in (matrix.OK, matrix.REFUSED) and hessian.located, hessian.message


def test_a_generator_kept_in_a_name_is_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError, match="makes a generator") as info:
        srcdiff.grad(reach9_programs.generator_kept_in_a_name)(np.array([0.5, 1.5]))
    assert info.value.location.filename == reach9_programs.__file__
    assert "squares = _early_return(x)" in info.value.location.code


def test_an_index_array_view_is_a_copy_and_stays_one():
    """``A[idx, :]`` is a copy: never rewritten into a write of A (refused, or right)."""
    A, idx = np.arange(6.0).reshape(3, 2) / 5.0, np.array([0, 2])
    f = reach9_programs.view_of_an_index_array
    try:
        got = srcdiff.grad(f)(A, idx)
    except srcdiff.SrcDiffError as exc:
        assert exc.location.filename == reach9_programs.__file__ and "rows *= 2.0" in exc.location.code
        return
    h, want = 1e-6, np.zeros_like(A)
    for k in np.ndindex(A.shape):
        e = np.zeros_like(A)
        e[k] = h
        want[k] = (f(A + e, idx) - f(A - e, idx)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_a_parameter_made_complex_is_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError, match="complex") as info:
        srcdiff.grad(reach9_programs.complex_parameter)(np.array([0.5, 1.5]))
    assert info.value.location.filename == reach9_programs.__file__
