"""Never silently wrong at special points (#24): the red team's third wave at zeros, ties,
one-element reductions, guarded overflow and masked branches, in every transformation,
against derivatives written by hand (redteam_wave3_points.py).

A transformation answers the exact value (to rounding) or refuses with a `SrcDiffError`
(only numba may refuse here: it compiles a subset of NumPy).  float32 arguments give float32
results, close to the same exact values at float32's precision."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import srcdiff

from . import trees_wrapped
from .corpus import Program
from .redteam_wave3_points import POINTS

IDS = [p.name for p in POINTS]
WITH_HESSIAN = [p for p in POINTS if p.hessian is not None]


def _close(got, want, rtol=1e-7, atol=1e-9):
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    assert np.all(np.isfinite(got)), f"non-finite where the derivative is {want}: {got}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale)


def _args(p):
    return copy.deepcopy(p.args)


def _direction(p):
    x = np.asarray(p.args[p.wrt], dtype=float)
    return np.linspace(-1.0, 1.3, x.size).reshape(x.shape) if x.ndim else 0.7


@pytest.mark.parametrize("p", POINTS, ids=IDS)
def test_grad_and_value(p):
    _close(srcdiff.grad(p.func, wrt=p.wrt)(*_args(p)), p.gradient)
    value, gradient = srcdiff.value_and_grad(p.func, wrt=p.wrt)(*_args(p))
    _close(value, p.func(*_args(p)), rtol=1e-12)
    _close(gradient, p.gradient)


@pytest.mark.parametrize("p", POINTS, ids=IDS)
def test_jvp_and_vjp(p):
    tangents = [None] * len(p.args)
    v = _direction(p)
    tangents[p.wrt] = v
    value, tangent = srcdiff.jvp(p.func, _args(p), tuple(tangents))
    _close(tangent, np.sum(np.asarray(p.gradient) * v))
    value, pullback = srcdiff.vjp(p.func, *_args(p), wrt=p.wrt)
    for seed in (1.5, -0.25):
        _close(pullback(seed), seed * np.asarray(p.gradient))


@pytest.mark.parametrize("p", POINTS, ids=IDS)
def test_tree_wrapped(p):
    wrapper, key = trees_wrapped.wrapper(Program(f"wave3:{p.name}", p.func, p.args, p.wrt, "wave3"))
    args = list(_args(p))
    args[p.wrt] = {key: args[p.wrt]}
    got = srcdiff.grad(wrapper, wrt=p.wrt)(*args)
    assert list(got) == [key]
    _close(got[key], p.gradient)


#: numba compiles for seconds per program: these points (each over 1.5 s of CPU, cold cache)
#: run under ``pytest -m slow``; the default run keeps the other nineteen.
NUMBA_SLOW = {"label_smoothing_one_class", "huberized_logistic_far", "sphere_sdf_centre", "contrastive_coincident",
              "triplet_at_margin", "zscore_constant", "grad_clip_zero_gradient", "kepler_at_zero",
              "focal_loss_saturated"}


@pytest.mark.parametrize("p", [pytest.param(p, id=i, marks=pytest.mark.slow if i in NUMBA_SLOW else ())
                               for p, i in zip(POINTS, IDS)])
def test_numba(p):
    pytest.importorskip("numba")
    try:
        got = srcdiff.grad(p.func, wrt=p.wrt, jit="numba")(*_args(p))
    except srcdiff.SrcDiffError as exc:
        assert "numba" in str(exc)
        return
    _close(got, p.gradient)


def _float32(value):
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return value.astype(np.float32)
    return value


@pytest.mark.parametrize("p", POINTS, ids=IDS)
def test_float32(p):
    args = tuple(_float32(a) for a in _args(p))
    got = srcdiff.grad(p.func, wrt=p.wrt)(*args)
    if isinstance(args[p.wrt], np.ndarray) and np.asarray(p.func(*args)).dtype == np.float32:
        assert got.dtype == np.float32, got.dtype  # computed in float32 where the function is
    _close(got, p.gradient, rtol=2e-3, atol=2e-3)
    _, pullback = srcdiff.vjp(p.func, *args, wrt=p.wrt)
    back = pullback(np.float32(1.0))
    _close(back, p.gradient, rtol=2e-3, atol=2e-3)
    tangents = [None] * len(args)
    tangents[p.wrt] = _float32(np.asarray(_direction(p))) if isinstance(args[p.wrt], np.ndarray) else _direction(p)
    _, tangent = srcdiff.jvp(p.func, args, tuple(tangents))
    _close(tangent, np.sum(np.asarray(p.gradient) * _direction(p)), rtol=2e-3, atol=2e-3)
    if isinstance(args[p.wrt], np.ndarray) and np.asarray(p.func(*args)).dtype == np.float32:
        assert (np.asarray(back).dtype, np.asarray(tangent).dtype) == (np.float32, np.float32)


@pytest.mark.parametrize("p", WITH_HESSIAN, ids=[p.name for p in WITH_HESSIAN])
def test_second_order(p):
    _close(srcdiff.hessian(p.func, wrt=p.wrt)(*_args(p)), p.hessian, atol=1e-8)
    v = _direction(p)
    want = np.tensordot(np.asarray(p.hessian), v, axes=np.ndim(v))
    tangents = [None] * len(p.args)
    tangents[p.wrt] = v
    _, got = srcdiff.jvp(srcdiff.grad(p.func, wrt=p.wrt), _args(p), tuple(tangents))
    _close(got, want, atol=1e-8)
    if p.wrt == 0:
        _close(srcdiff.hvp(p.func, p.args[0], v, *_args(p)[1:]), want, atol=1e-8)


# ---- wave-3 programs the matrix cannot compare (a dataclass argument, float32 throughout) ------

def test_dataclass_parameters_in_every_transformation():
    from numeric import central_difference

    from .redteam_wave3_library import Layer, dataclass_layer
    rng = np.random.default_rng(3)
    layer, X = Layer(rng.normal(size=(3, 2)), rng.normal(size=2)), rng.normal(size=(4, 3))
    want_W = central_difference(lambda W: dataclass_layer(Layer(W, layer.b), X), (layer.W,), 0)
    want_b = central_difference(lambda b: dataclass_layer(Layer(layer.W, b), X), (layer.b,), 0)
    got = srcdiff.grad(dataclass_layer)(layer, X)
    assert isinstance(got, Layer)
    _close(got.W, want_W, rtol=1e-6, atol=1e-7)
    _close(got.b, want_b, rtol=1e-6, atol=1e-7)
    back = srcdiff.vjp(dataclass_layer, layer, X)[1](2.0)
    _close(back.W, 2.0 * want_W, rtol=1e-6, atol=1e-7)
    direction = Layer(np.ones((3, 2)), np.zeros(2))
    _, tangent = srcdiff.jvp(dataclass_layer, (layer, X), (direction, None))
    _close(tangent, np.sum(want_W), rtol=1e-6, atol=1e-7)


def test_float32_network_in_every_transformation():
    from numeric import central_difference

    from .redteam_wave3_library import float32_mlp
    rng = np.random.default_rng(4)
    W, x = rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    want = central_difference(lambda W: float32_mlp(W, x.astype(float)), (W.astype(float),), 0)
    found = {"grad": srcdiff.grad(float32_mlp)(W, x), "vjp": srcdiff.vjp(float32_mlp, W, x)[1](np.float32(1.0)),
             "jacobian": srcdiff.jacobian(float32_mlp)(W, x),
             "jvp": srcdiff.jvp(float32_mlp, (W, x), (np.ones_like(W), None))[1],
             "hvp": srcdiff.hvp(float32_mlp, W, np.ones_like(W), x), "hessian": srcdiff.hessian(float32_mlp)(W, x)}
    for name, value in found.items():
        assert np.asarray(value).dtype == np.float32, name
    _close(found["grad"], want, rtol=1e-3, atol=1e-4)
    _close(found["vjp"], want, rtol=1e-3, atol=1e-4)
    _close(found["jvp"], np.sum(want), rtol=1e-3, atol=1e-4)


def test_namedtuple_parameters_in_every_transformation():
    from .redteam_wave3_library import Params, namedtuple_params
    x, p = np.array([0.3, -0.5, 1.0, 0.2]), Params(0.5, -0.2)
    e = np.exp(p.scale * x + p.shift)  # d/dscale = sum(e x), d/dshift = sum(e); the Hessian by hand
    got = srcdiff.grad(namedtuple_params)(p, x)
    assert isinstance(got, Params)
    _close([got.scale, got.shift], [np.sum(e * x), np.sum(e)])
    _, tangent = srcdiff.jvp(namedtuple_params, (p, x), (Params(1.0, -2.0), None))
    _close(tangent, np.sum(e * x) - 2.0 * np.sum(e))
    H = srcdiff.hessian(namedtuple_params)(p, x)
    _close([[H.scale.scale, H.scale.shift], [H.shift.scale, H.shift.shift]],
           [[np.sum(e * x * x), np.sum(e * x)], [np.sum(e * x), np.sum(e)]])
