"""srcdiff.grad(f, jit="numba"): the generated gradient compiled by numba."""

import math
import subprocess
import sys

import numpy as np
import pytest

import srcdiff

numba = pytest.importorskip("numba")


def scalar_loop(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * math.sin(s)
        total = total + s * s
    return total


def rnn_seq(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean((h - target) ** 2)


def power(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def calls_a_looping_helper(x):
    return power(x, 3) + x


def test_scalar_loop_matches_the_python_gradient():
    args = (0.4, 0.6, 30)
    got = srcdiff.grad(scalar_loop, wrt=(0, 1), jit="numba")(*args)
    want = srcdiff.grad(scalar_loop, wrt=(0, 1))(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert isinstance(got[0], float)


def test_rnn_matches_the_python_gradient_and_the_fast_path_is_used_again():
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(3, 5)), rng.normal(size=(5, 5)) / 3, rng.normal(size=5),
            rng.normal(size=(4, 3)), np.zeros(5), rng.normal(size=5))
    df = srcdiff.grad(rnn_seq, wrt=(0, 1, 2), jit="numba")
    want = srcdiff.grad(rnn_seq, wrt=(0, 1, 2))(*args)
    for _ in range(2):
        for g, w in zip(df(*args), want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_per_step_outer_products_become_one_matmul_after_the_loop(check_gradient, rng):
    args = (rng.normal(size=(3, 5)), rng.normal(size=(5, 5)) / 3, rng.normal(size=5),
            rng.normal(size=(6, 3)), rng.normal(size=5), rng.normal(size=5))
    df = srcdiff.grad(rnn_seq, wrt=(0, 1, 2), jit="numba")
    check_gradient(rnn_seq, args, (0, 1, 2), gradient=df, value=False)
    assert "np.outer" not in df.source
    assert df.source.count("stack_rows(") == 3  # the adjoints, the states, the inputs
    # (under numba the product is spelled matmul_stacks, which also takes stacks of matrices)
    assert "matmul_stacks(Wh_bar_rows.T, b_bar_rows)" in df.source


def test_a_loop_that_does_not_run_leaves_the_accumulations_at_zero():
    args = (np.ones((3, 5)), np.eye(5), np.ones(5), np.zeros((0, 3)), np.full(5, 0.5), np.zeros(5))
    Wx_bar, Wh_bar, b_bar = srcdiff.grad(rnn_seq, wrt=(0, 1, 2), jit="numba")(*args)
    assert not Wx_bar.any() and not Wh_bar.any() and not b_bar.any()


def recursive_power(x, n):
    if n <= 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def calls_a_recursive_helper(x, n):
    return recursive_power(x, n) + x


def test_a_looping_helper_is_inlined_and_compiled():
    got = srcdiff.grad(calls_a_looping_helper, jit="numba")(1.5)
    assert got == pytest.approx(3 * 1.5 ** 2 + 1, rel=1e-13)


def test_a_recursive_helper_compiles_and_agrees():
    """(Refused before: each level now recomputes its values, backend/numba/recursion.py.)"""
    df = srcdiff.grad(calls_a_recursive_helper, jit="numba")
    assert abs(df(1.5, 3) - (3 * 1.5 ** 2 + 1.0)) < 1e-12


def softmax_max(z):
    z = z - np.max(z, axis=1, keepdims=True)
    return np.sum(np.exp(z))


def test_keepdims_reductions_are_compiled():
    z = np.arange(6.0).reshape(2, 3) / 7
    got = srcdiff.grad(softmax_max, jit="numba")(z)
    np.testing.assert_allclose(got, srcdiff.grad(softmax_max)(z), rtol=1e-13)


def contracts(a, b):
    c = np.linalg.svd(a @ b, compute_uv=False)  # a stack of matrices (one matrix compiles)
    return np.sum(c ** 2)


def test_a_call_numba_does_not_implement_is_refused_at_the_users_line():
    df = srcdiff.grad(contracts, jit="numba")
    with pytest.raises(srcdiff.SrcDiffError, match=r"(?s)test_jit.py:\d+.*numba'? cannot compile.*singular_values") \
            as info:
        df(np.ones((2, 2, 3)), np.ones((2, 3, 2)))
    assert info.value.location.line == contracts.__code__.co_firstlineno + 1


def test_unknown_jit_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="jit='cuda' is not supported"):
        srcdiff.grad(scalar_loop, jit="cuda")


def test_import_srcdiff_does_not_load_numba():
    code = "import sys, srcdiff; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
