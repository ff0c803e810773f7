"""Hessians of code the batching transform refuses (loops that keep a stack, lists of states,
helpers returning tuples): forward mode over the gradient's code, one sweep per
differentiated element.  References: second differences of the user's function
(numeric.hessian_difference) or closed forms; the per-row pullbacks agree too."""

import math

import numpy as np
import pytest
from numeric import assert_close, hessian_difference

import srcdiff
from srcdiff.api.forward import JvpFunction
from srcdiff.api.hessian_forward import VectorForward

RNG = np.random.default_rng(261)


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def step(theta, omega, c, k, h):
    a1, b1 = rhs(theta, omega, c, k)
    a2, b2 = rhs(theta + 0.5 * h * a1, omega + 0.5 * h * b1, c, k)
    return theta + h * a2, omega + h * b2


def pendulum(p, observed):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(len(observed)):
        theta, omega = step(theta, omega, p[0], p[1], 0.1)
        states.append(theta)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def scalar_loop(x):
    s = x[0]
    total = 0.0
    for _ in range(6):
        s = 0.9 * s + x[1] * math.sin(s)
        total = total + s * s
    return total


def array_loop(x):
    h = x
    for _ in range(4):
        h = np.tanh(h * 1.3 + 0.1)
    return np.sum(h ** 3)


def pair(u, v):
    return u * np.cos(v), v + 0.1 * u * u


def tuple_loop(x):
    u, v = x[:2], x[2:]
    for _ in range(3):
        u, v = pair(u, v)
    return np.sum(u * v)


CASES = [
    (pendulum, (np.array([0.3, 4.0]), np.cos(0.3 * np.arange(1, 9)))),
    (scalar_loop, (np.array([0.4, 0.7]),)),
    (array_loop, (RNG.normal(size=4),)),
    (tuple_loop, (RNG.normal(size=4),)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_by_forward_over_reverse(f, args):
    H = srcdiff.hessian(f)
    found = H(*args)
    # (vector forward mode: several columns per sweep; one sweep per column where it refuses)
    assert isinstance(H._last, (JvpFunction, VectorForward)), "batching refuses these: forward mode ran"
    assert_close(found, hessian_difference(f, args), rtol=1e-5, atol=1e-6)
    assert_close(found, found.T, rtol=1e-12, atol=1e-12)
    assert "_dot" in H.source


def separate(c, k, n):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(n):
        theta, omega = step(theta, omega, c, k, 0.1)
        states.append(theta)
    return states[-1] ** 2 + states[0] * c


def test_hessian_of_two_float_parameters_is_a_tuple_of_tuples():
    H = srcdiff.hessian(separate, wrt=(0, 1))
    c, k = 0.3, 2.0
    found = H(c, k, 6)

    def f(p):
        return separate(p[0], p[1], 6)
    expected = hessian_difference(f, (np.array([c, k]),))
    assert isinstance(H._last, (JvpFunction, VectorForward))
    for i in range(2):
        for j in range(2):
            assert np.shape(found[i][j]) == ()
            assert_close(float(found[i][j]), expected[i, j], rtol=1e-5, atol=1e-6)


def test_float32_leaves_keep_their_dtype():
    x = np.array([0.4, 0.7], dtype=np.float32)
    found = srcdiff.hessian(scalar_loop)(x)
    assert found.dtype == np.float32


def _pull(pos, masses):
    diff = pos[None, :, :] - pos[:, None, :]
    inv3 = (np.sum(diff ** 2, axis=-1) + 0.01) ** -1.5
    return np.sum(diff * (inv3 * masses[None, :])[:, :, None], axis=1)


def leapfrog(pos, vel, masses, steps):
    acc = _pull(pos, masses)
    for _ in range(steps):
        vel = vel + 0.005 * acc
        pos = pos + 0.01 * vel
        acc = _pull(pos, masses)
        vel = vel + 0.005 * acc
    return np.sum(pos[:, 0] * pos[:, 1]) + 0.5 * np.sum(masses[:, None] * vel ** 2)


def test_a_shape_check_does_not_stop_several_directions_a_sweep():
    """The gradient's code checks that operands broadcast (``raise ValueError`` where f raises
    too): a statement of values, kept once; it used to send the Hessian to one sweep per column."""
    rng = np.random.default_rng(2)
    pos, vel, masses = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)) * 0.1, rng.uniform(1.0, 2.0, 3)
    H = srcdiff.hessian(leapfrog)
    found = H(pos, vel, masses, 4)
    expected = hessian_difference(lambda p: leapfrog(p.reshape(3, 2), vel, masses, 4), (pos.ravel(),))
    assert_close(found.reshape(6, 6), expected, rtol=1e-5, atol=1e-5)
    assert isinstance(H._last, VectorForward) and "raise ValueError" in H.source, H.source
