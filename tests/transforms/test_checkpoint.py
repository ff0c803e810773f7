"""srcdiff.grad(f, checkpoint=k): loops keep their state every k iterations and recompute
the iterations between in the backward sweep.  The gradient is the same computation in the
same order as without checkpoints: equal to the last bit (and to central differences)."""

import importlib.util
import math
import tracemalloc

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

HAS_NUMBA = importlib.util.find_spec("numba") is not None


def pendulum(damping, n):
    theta = 1.0
    omega = 0.0
    for _i in range(n):
        omega = omega - 0.01 * (math.sin(theta) + damping * omega)
        theta = theta + 0.01 * omega
    return theta


def stepped(x, n):
    s = x
    for i in range(2, n, 3):
        s = s + math.sin(s * 0.01 * i) * x * 0.1
    return s


def while_loop(x, n):
    s = 0.0
    k = 0
    while k < n:
        s = s + math.cos(s * x) * 0.1
        k = k + 1
    return s


def branchy(x, n):
    s = x
    for i in range(1, n):
        if s > 1.0:
            s = s * 0.5 + math.sin(x * i)
        else:
            s = s * s + x
    return s


def arrays(w, n):
    h = w * 1.0
    for i in range(n):
        h = np.tanh(h * w + 0.1 * i)
    return np.sum(h * h)


def breaks(x, n):
    s = x
    for _i in range(n):
        s = s * 1.1 + math.sin(s)
        if s > 20.0:
            break
    return s


def two_loops(x, n):
    s = x
    for _i in range(n):
        s = math.sin(s) + x
    t = s
    for _i in range(n):
        t = t * 0.9 + s * x
    return t


def written(x, n):
    a = np.zeros(n)
    s = x
    for i in range(n):
        s = math.sin(s) * x + 0.5
        a[i] = s * s
    return np.sum(a)


def nested(x, n):
    s = x
    for _i in range(n):
        for _j in range(2):
            s = math.sin(s) * x
    return s


def appends(x, n):
    xs = []
    s = x
    for _i in range(n):
        s = math.sin(s) + x
        xs.append(s)
    return sum(xs)


CASES = [
    (pendulum, (0.3, 50)), (pendulum, (0.3, 0)), (pendulum, (0.3, 1)),
    (stepped, (0.7, 40)), (while_loop, (0.7, 23)), (branchy, (0.9, 17)),
    (arrays, (np.array([0.3, -0.5, 0.9]), 9)), (breaks, (1.5, 100)), (breaks, (0.01, 7)),
    (two_loops, (0.4, 12)), (written, (0.6, 8)),
]


@pytest.mark.parametrize("k", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("f, args", CASES, ids=[f"{f.__name__}-{a[-1]}" for f, a in CASES])
def test_equal_to_the_plain_gradient(f, args, k):
    plain = srcdiff.grad(f)(*args)
    got = srcdiff.grad(f, checkpoint=k)(*args)
    assert np.array_equal(got, plain)
    assert_close(got, central_difference(f, args, 0), rtol=1e-5, atol=1e-6)


def test_value_and_grad():
    value, gradient = srcdiff.value_and_grad(pendulum, checkpoint=5)(0.3, 40)
    assert value == pendulum(0.3, 40)
    assert gradient == srcdiff.grad(pendulum)(0.3, 40)


def test_the_forward_sweep_keeps_state_every_k_steps_only():
    source = srcdiff.grad(pendulum, checkpoint=10).source
    assert "count % 10 == 0" in source and "checkpoints.append((theta, omega))" in source
    assert source.count("stack.append") == 1  # in the recomputation, not in the forward loop


def test_memory_grows_with_the_square_root_of_the_steps():
    def peak(gradient, n):
        gradient(0.3, n)
        tracemalloc.start()
        gradient(0.3, n)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top
    plain = srcdiff.grad(pendulum)
    n = 10_000
    checkpointed = srcdiff.grad(pendulum, checkpoint=100)
    assert peak(checkpointed, n) * 20 < peak(plain, n)


@pytest.mark.skipif(not HAS_NUMBA, reason="numba not installed")
def test_jit_numba():
    assert srcdiff.grad(pendulum, checkpoint=4, jit="numba")(0.3, 30) == srcdiff.grad(pendulum)(0.3, 30)


@pytest.mark.parametrize("f, why", [(nested, "holds another loop"), (appends, "appends to a list")])
def test_refused_at_the_loop_line(f, why):
    with pytest.raises(srcdiff.SrcDiffError, match=why) as info:
        srcdiff.grad(f, checkpoint=2)(0.5, 4)
    assert "for _i in range(n)" in info.value.location.code


def test_refused_when_differentiated_again():
    with pytest.raises(srcdiff.SrcDiffError, match="differentiates again"):
        srcdiff.grad(srcdiff.grad(pendulum, checkpoint=2))(0.3, 4)


@pytest.mark.parametrize("k", [0, -3, 2.5, "4"])
def test_a_bad_interval_is_refused(k):
    with pytest.raises(srcdiff.SrcDiffError, match="checkpoint="):
        srcdiff.grad(pendulum, checkpoint=k)
