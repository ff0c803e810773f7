"""What the red team's seventeenth wave found, each class with variants of its own, through the transformations
that show it; fixed unless marked (the open ones: test_redteam_wave17_open.py).  References are float64 central
differences of the function (tests/numeric.py) or NumPy's own value of it; never srcdiff.

The wave's programs (redteam_wave17*.py: 227 rows; sciences, numerical methods by hand, images and robots,
callables and containers, argument kinds and points, hand-written likelihoods, economics, graphs and text, vector
maps) ran through grad, value_and_grad, hessian, jvp, vjp and trees, 44% of them through ``jit="numba"``; hand
probes added vmap of each row and of its gradient, hvp, and jacobian / jvp / vjp / vmap of the vector maps.
After the fixes, of the 226 rows with a stable reference (one sits on a kink): grad, value_and_grad, jvp and
vjp 202 agree, 24 refused at the user's line, no crash, nothing wrong; hessian 199 agree (the rest have no
gradient or a kink); numba on 100 rows: 84 agree, 16 refused at the line (5 by numba only); vmap 102 of 196
agree, vmap of the gradient 63, the rest refused.  Classes 1-3 are here; 4-7 in test_redteam_wave17_findings_more.py.

1. SILENT (vmap) / refused (every derivative): ``np.abs(z) ** 2`` (``abs(z) ** 4``, ``np.linalg.norm(z) ** 2``)
   of a complex value the function computes from its data (``H = 1 / (1 + 1j * w)``, a transfer function) was
   lowered as ``z * z``, an identity of real numbers: vmap returned complex numbers, and every derivative refused
   ``x * np.sum(np.abs(H) ** 2)`` ("a differentiated value meets a complex number") though no complex value
   meets x.  Fixed in lower/smooth_squares.py: the identity is used for values known to be real.
2. Refused at the wrong subject (jvp): ``x[seq[t]] = 1.0`` (a one-hot row) where ``seq`` is a list argument
   srcdiff reads as a tree was refused as "writing into seq[t] changes an argument", and with that check
   passed the assignment forgot ``seq`` and ``t``, which its index only reads.  Fixed in
   frontend/flatten_statements.py: the names an assignment rebinds are its targets' roots, not what an index
   reads.
3. Refused, reasonable: an array a helper of the user's builds and returns (``A = adjacency()`` of
   ``A = np.zeros((n, n)); A[i, j] = 1.0; return A``, ``return np.outer(x, x)``) could not be written by the
   caller ("A is not known to be a new array"), though srcdiff knew it of the items of a returned tuple.
   Fixed in lower/callee_facts.py and lower/user_calls.py: a helper's value made new on every path is as
   writable as an array the function makes itself (a second name for it, a view, an argument, a global or
   an array that may be any of them is still refused at the write).
(4-7: test_redteam_wave17_findings_more.py.)
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference
from scipy.special import logsumexp

import srcdiff

from .redteam_wave17_graphs import char_rnn
from .redteam_wave17_points import rlc_impedance, transfer_magnitude

# ---- 1. |z| ** 2 of a complex value computed from data --------------------------------------------------------


def response_power(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return x * np.sum(np.abs(H) ** 2)


def response_power_inside(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return np.sum(x * np.abs(H) ** 2)


def response_norm_squared(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return x * np.linalg.norm(H) ** 2


def response_fourth_power(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return x * np.abs(H[0]) ** 4


def builtin_abs_squared(x, w):
    z = complex(1.0, 0.5) / (2.0 + 1j * w[0])
    return x * abs(z) ** 2 + x ** 2


def power_plus_quadratic(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return np.sum(x ** 2) + np.sum(np.abs(H) ** 2)


COMPLEX_DATA = [response_power, response_power_inside, response_norm_squared, response_fourth_power,
                builtin_abs_squared]
W = np.array([0.5, 2.0, 1.0])


@pytest.mark.parametrize("f", COMPLEX_DATA, ids=lambda f: f.__name__)
def test_a_complex_square_of_data_is_differentiated(f):
    x = 1.5
    want = central_difference(f, (x, W), 0)
    assert np.isclose(srcdiff.grad(f)(x, W), want, rtol=1e-6)
    value, got = srcdiff.value_and_grad(f)(x, W)
    assert np.isreal(value) and np.isclose(value, f(x, W), rtol=1e-12) and np.isclose(got, want, rtol=1e-6)
    value, tangent = srcdiff.jvp(f, (x, W), (1.0, None))
    assert np.isreal(tangent) and np.isclose(tangent, want, rtol=1e-6)


@pytest.mark.parametrize("f", [*COMPLEX_DATA, power_plus_quadratic], ids=lambda f: f.__name__)
def test_vmap_of_a_complex_square_is_real(f):
    xs = np.array([1.5, -0.5, 2.0])
    if f is power_plus_quadratic:
        xs = np.stack([np.full(3, v) for v in xs])
    got = srcdiff.vmap(f, in_axes=(0, None))(xs, W)
    want = np.array([f(x, W) for x in xs])
    assert not np.iscomplexobj(got)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_vmap_of_a_transfer_function_magnitude():
    C = np.array([[1.0, 0.3, 0.4, 0.05], [0.9, 0.2, 0.1, 0.02]])
    omegas = np.logspace(-1, 1, 6)
    got = srcdiff.vmap(transfer_magnitude, in_axes=(0, None))(C, omegas)
    np.testing.assert_allclose(got, [transfer_magnitude(c, omegas) for c in C], rtol=1e-12)
    rlc = np.array([[2.0, 0.5, 0.1], [1.0, 0.2, 0.3]])
    # builtin abs: refused at its line, then one example at a time, batched (elementwise) since commit 9c918c8
    mapped = srcdiff.vmap(rlc_impedance, in_axes=(0, None), per_example="refuse")
    np.testing.assert_allclose(mapped(rlc, [1.0, 3.0]), [rlc_impedance(r, [1.0, 3.0]) for r in rlc], rtol=1e-12)
    assert mapped.per_example is None


def real_square(x):
    return np.sum(np.abs(x) ** 2) + np.abs(x[0]) ** 4


def test_the_square_of_a_real_value_stays_smooth_at_zero():
    # the identity the rewrite exists for: |x| ** 2 has second derivative 2 at 0 (through sign(x) ** 2: 0)
    x = np.array([0.0, 1.0])
    np.testing.assert_allclose(srcdiff.hessian(real_square)(x), np.diag([2.0, 2.0]), atol=1e-12)


# ---- 2. a write whose index reads a list argument ---------------------------------------------------------------


def one_hot_scores(W, seq):
    loss = 0.0
    for t in range(len(seq) - 1):
        x = np.zeros(4)
        x[seq[t]] = 1.0
        y = W @ x
        loss += logsumexp(y) - y[seq[t + 1]]
    return loss


def one_hot_first(W, seq):
    x = np.zeros(4)
    x[seq[0]] = 1.0
    y = W @ x
    return logsumexp(y) - y[seq[1]]


def one_hot_pair(W, seq):
    x = np.zeros((2, 4))
    x[0, seq[0]], x[1, seq[1]] = 1.0, 2.0
    return np.sum(np.tanh(x @ W.T)) + W[0, seq[2]]


@pytest.mark.parametrize("f", [one_hot_scores, one_hot_first, one_hot_pair], ids=lambda f: f.__name__)
@pytest.mark.parametrize("seq", [[0, 2, 1, 2], (3, 1, 0, 0)], ids=["list", "tuple"])
def test_an_index_reading_a_list_argument_in_jvp(f, seq):
    W = np.random.default_rng(17).normal(size=(3, 4))
    V = np.random.default_rng(18).normal(size=(3, 4))
    want = central_difference(f, (W, seq), 0)
    value, tangent = srcdiff.jvp(f, (W, seq), (V, None))
    assert np.isclose(value, f(W, seq), rtol=1e-12)
    assert np.isclose(tangent, np.sum(want * V), rtol=1e-6)
    np.testing.assert_allclose(srcdiff.grad(f)(W, seq), want, rtol=1e-6, atol=1e-9)


def test_the_character_rnn_in_jvp():
    rng = np.random.default_rng(5)
    args = (0.5 * rng.normal(size=(3, 4)), 0.5 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(4, 3)),
            [0, 2, 1, 3, 3, 0])
    V = rng.normal(size=(3, 3))
    want = central_difference(char_rnn, args, 1)
    _, tangent = srcdiff.jvp(char_rnn, args, (None, V, None, None))
    assert np.isclose(tangent, np.sum(want * V), rtol=1e-6)


# ---- 3. a write into an array a helper returns -----------------------------------------------------------------

EDGES = np.array([[0, 1], [1, 2], [2, 0]])
TABLE = np.array([1.0, 2.0, 3.0])


def adjacency(n=3):
    A = np.zeros((n, n))
    A[EDGES[:, 0], EDGES[:, 1]] = 1.0
    return A


def dangling_node(x):
    A = adjacency()
    A[:, 2] = 0.0
    return x @ A @ x + np.sum(A * np.outer(x, x))


def outer_of(x):
    return np.outer(x, x)


def outer_zeroed(x):
    A = outer_of(x)
    A[:, 2] = 0.0
    return np.sum(A * np.exp(-x))


def exp_of(x):
    return np.exp(x)


def exp_written(x):
    A = exp_of(x)
    A[0] = x[1] ** 2
    return np.sum(A * x) + np.sum(A)


def rebuilt_in_a_loop(x):
    total = 0.0
    for k in range(3):
        A = outer_of(x * (k + 1))
        A[k] = 0.0
        total = total + np.sum(A)
    return total


@pytest.mark.parametrize("f", [dangling_node, outer_zeroed, exp_written, rebuilt_in_a_loop], ids=lambda f: f.__name__)
def test_a_helpers_new_array_is_written_by_its_caller(f):
    x = np.array([0.7, -1.3, 0.4])
    want = central_difference(f, (x,), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-6, atol=1e-9)
    _, tangent = srcdiff.jvp(f, (x,), (np.ones(3),))
    assert np.isclose(tangent, np.sum(want), rtol=1e-6)


def global_table(x):
    return TABLE


def identity(y):
    return y


def slice_of(y):
    return y[:2]


def writes_global(x):
    A = global_table(x)
    A[0] = x[0]
    return np.sum(A * x)


def writes_argument_through_identity(x):
    y = x * 1.0
    A = identity(y)
    A[0] = 0.0
    return np.sum(y * x)


def writes_through_a_view(x):
    y = x * 2.0
    A = slice_of(y)
    A[0] = 5.0
    return np.sum(y * x)


def writes_a_shared_new_array(x):
    A = outer_of(x)
    B = A
    A[2] = x * 5.0
    return np.sum(B)


@pytest.mark.parametrize("f", [writes_global, writes_argument_through_identity, writes_through_a_view,
                               writes_a_shared_new_array], ids=lambda f: f.__name__)
def test_a_helpers_array_that_is_not_new_is_still_refused(f):
    with pytest.raises(srcdiff.SrcDiffError, match="not known to be a new array|shares its memory") as info:
        srcdiff.grad(f)(np.array([0.7, -1.3, 0.4]))
    assert "test_redteam_wave17_findings.py" in str(info.value)
