"""numba/hoisting.py: a forward sweep split into the work no direction changes (done once per
Hessian) and the rest (per sweep).  The split itself is checked on sweep texts (which
statements move, which must stay); the compiled Hessians and Jacobians that use it against
float64 central differences of the gradient, on programs whose sweeps write into arrays the
direction-free part made."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.backend.numba.hoisting import split_sweep


def _split(body: str, tangents: int = 1):
    source = "def sweep(x, w, x_dot):\n" + "".join(f"    {line}\n" for line in body.strip().splitlines())
    found = split_sweep(source, "sweep", tangents)
    if found is None:
        return None
    first, second = (ast.parse(t).body[0] for t in found.texts)
    return [ast.unparse(s) for s in first.body], [ast.unparse(s) for s in second.body]


def test_direction_free_values_move_and_are_passed():
    first, second = _split("""
a = x @ w
h = np.tanh(a)
a_dot = x_dot @ w
h_dot = a_dot * (1.0 - h * h)
return (None, h_dot)
""")
    assert first == ["a = x @ w", "h = np.tanh(a)", "v0 = 1.0 - h * h", "return (v0,)"]
    assert second == ["v0, = sweep_values", "a_dot = x_dot @ w", "h_dot = a_dot * v0", "return (None, h_dot)"]


@pytest.mark.parametrize("write", [
    "z[0] = x_dot[0]",                    # an index write
    "z += x_dot",                         # in-place arithmetic
    "u = z\nu[1:] = x_dot[1:]",           # through another name
    "u = z[1:]\nu[0] = x_dot[0]",              # through a view
    "u = z.reshape(-1)\nadd_at(u, 0, x_dot[0])",  # a helper that writes into its argument
    "np.copyto(z, x_dot)",                # NumPy writing into an argument
    "for i in range(2):\n    z[i] = x_dot[i]",  # inside a loop
])
def test_values_the_directed_part_writes_into_stay(write):
    found = _split(f"""
z = np.zeros(x.shape)
k = x * 2.0
{write}
return (None, z * k + x_dot)
""")
    first, second = found
    assert not any(s.startswith("z =") for s in first) and "z = np.zeros(x.shape)" in second
    assert "k = x * 2.0" in first  # the value nothing writes into still moves


def test_a_direction_free_write_moves_with_its_array_unless_a_kept_line_read_it_first():
    first, second = _split("""
z = np.zeros(x.shape)
z[1:] += x[:-1] * w
return (None, z * x_dot)
""")
    assert first[:2] == ["z = np.zeros(x.shape)", "z[1:] += x[:-1] * w"] and "z[1:] += x[:-1] * w" not in second
    first, second = _split("""
z = np.zeros(x.shape)
k = x * 2.0
y_dot = z * x_dot
z[1:] += x[:-1] * w
return (None, y_dot + z * k)
""")
    assert second[1:3] == ["z = np.zeros(x.shape)", "y_dot = z * x_dot"] and "z[1:] += x[:-1] * w" in second


def test_names_bound_twice_and_values_read_after_a_tangent_stay():
    assert _split("""
a = x * 2.0
a = a + x_dot
b = np.sin(a)
return (None, b)
""") is None


def test_constants_stay_in_both_and_dels_of_moved_names_go():
    first, second = _split("""
n = 2
a = np.sum(x, axis=n - 1) * w
b = a * x_dot
del a
return (None, b)
""")
    assert first[0] == "n = 2" and second[1] == "n = 2"
    assert "del a" not in second and second[0] == "a, = sweep_values"


def test_calls_that_may_write_do_not_move():
    assert _split("""
a = unknown_helper(x)
b = a * x_dot
return (None, b)
""") is None


# ---- compiled: the Hessian's columns with the split sweep ------------------------------

pytest.importorskip("numba")


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def shifted(W, X):
    H = X @ W
    G = np.zeros(H.shape)  # made and written by index in the part no direction changes
    G[:, 1:] = H[:, :-1] * H[:, 1:]
    return np.sum(G * H) + np.sum(np.sin(W))


def _gradient_columns(f, args, index):
    g = srcdiff.grad(f, wrt=index)
    x = args[index]
    cols = [central_difference(lambda *a, k=k: g(*a).reshape(-1)[k], args, index) for k in range(x.size)]
    return np.array(cols).reshape(x.shape + x.shape)


def _cases():
    rng = np.random.default_rng(3)
    mlp_args = (rng.normal(size=(3, 4)) / 2, rng.normal(size=4), rng.normal(size=4), rng.normal(size=(5, 3)),
                rng.normal(size=5))
    # numba compiles each Hessian for about 10 s on a cold cache: the default run keeps the MLP
    return [(mlp, mlp_args), pytest.param(shifted, (rng.normal(size=(3, 4)), rng.normal(size=(5, 3))),
                                          marks=pytest.mark.slow)]


@pytest.mark.parametrize("f, args", _cases(), ids=["mlp", "shifted"])
def test_hessians_with_a_split_sweep_agree_with_differences(f, args):
    H = srcdiff.hessian(f, jit="numba")
    got = H(*args)
    assert "_invariant(" in H.source  # (the split sweep ran)
    assert_close(got, _gradient_columns(f, args, 0), rtol=1e-5, atol=1e-6)
    assert_close(got, srcdiff.hessian(f)(*args), rtol=1e-12, atol=1e-12)
    assert_close(H(*args), got, rtol=0, atol=0)  # a second call: the values the first left behind unchanged
