"""A guard ``n > 0`` of a measure of several values (measure_guard_programs.py): every
transformation agrees with central differences away from the guarded point; at it each gives
the derivative where the other branch is the function there (``np.where(n > 0, x, 0.0)``,
``n ** 3``), and NaN where the derivative is the continuation's, which the code never evaluates
(Rodrigues' rotation at w = 0 had a silent 0) — never a wrong number."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .measure_guard_programs import PROGRAMS


def programs():
    return [corpus.Program(f"measure_guards:{name}", f, args, 0, "measure_guard_programs")
            for name, f, args, _, _ in PROGRAMS]


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation_away_from_the_point(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER + ("hessian",))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


def _nan_or(got, want):
    got = np.asarray(got, dtype=float)
    if want is None:
        assert np.isnan(got).any(), got  # the continuation's derivative: NaN, never a number
    else:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name, f, at, want", [(n, f, at, want) for n, f, _, at, want in PROGRAMS],
                         ids=[p[0] for p in PROGRAMS])
def test_at_the_guarded_point(name, f, at, want):
    _nan_or(srcdiff.grad(f)(*at), want)
    cotangents = srcdiff.vjp(f, *at)[1](1.0)
    _nan_or(cotangents[0] if isinstance(cotangents, tuple) else cotangents, want)
    direction = np.linspace(1.0, -0.5, at[0].size).reshape(at[0].shape)
    _, tangent = srcdiff.jvp(f, at, (direction, *(np.zeros_like(a) for a in at[1:])))
    _nan_or(tangent, None if want is None else np.sum(want * direction))


def test_a_flat_branch_at_the_point_second_order_is_exact_or_nan():
    from .measure_guard_programs import norm_cubed

    got = srcdiff.hessian(norm_cubed)(np.zeros(3))  # (the norm's own second derivative at 0 is NaN)
    assert np.isnan(got).all() or np.allclose(got, 0.0, atol=1e-12), got


@pytest.mark.slow  # (a numba compile)
def test_the_rotation_at_the_point_under_numba_is_nan_too():
    from .measure_guard_programs import rodrigues_if

    got = srcdiff.grad(rodrigues_if, jit="numba")(np.zeros(3), np.array([0.3, -0.5, 0.8]))
    assert np.isnan(got).any(), got


@pytest.mark.parametrize("name", ["norm_cubed", "dot_scaled", "sinc_radius"])
def test_vmap_of_the_gradient_guards_each_row_on_its_own(name):
    from numeric import central_difference

    _, f, away, at, want = next(p for p in PROGRAMS if p[0] == name)
    got = srcdiff.vmap(srcdiff.grad(f))(np.stack([at[0], away[0]]))
    _nan_or(got[0], want)
    np.testing.assert_allclose(got[1], central_difference(f, away, 0), rtol=1e-6, atol=1e-9)
