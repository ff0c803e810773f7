"""Red-team wave 24: code that landed in wave 23 attacked for silent wrong results.

* tie_shares.py's quick branch (``np.where(below, E(g), F(g))`` where nothing ties) assumed `g`
  and the shares `s` have one dtype whenever every argument is float64.  A function that makes
  a float32 value inside (``r.astype(np.float32)``, ``np.float32(0.3)``, ``dtype=np.float32``)
  broke it: a Python number's `g` times a float32 factor is float32, the float64 shares' product
  float64, so the gradient was rounded to float32 where the unoptimised one is not (1e-7
  relative).  Now code that names a narrower dtype keeps the three selections.
* Variants the attack ran without a wrong answer stay as rows: maximum of an (n, 1) side and an
  (n, m) side, the maximum's value read again, in a loop, in a helper, PReLU with an array
  slope, a ramp of two values of one array; exact ties and -0.0 against the unoptimised code.
"""

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff

from . import corpus, matrix


def pinball_cast(w, X, y):
    """The pinball loss of a residual made float32 inside, a float32 slope."""
    r = (y - X @ w).astype(np.float32)
    tau = np.float32(0.3)
    return np.mean(np.maximum(tau * r, (tau - 1.0) * r))


def pinball_dtype_keyword(w, X, y):
    """The slope an array made float32 by a dtype keyword."""
    r = (y - X @ w).astype(np.float32)
    tau = np.full(r.shape, 0.3, dtype=np.float32)
    return np.sum(np.minimum(tau * r, (tau - 1.0) * r))


def relu_cast(w, X, y):
    """np.maximum with a constant side of a float32 residual, squared."""
    r = (y - X @ w).astype(np.float32)
    return np.mean(np.maximum(r, 0.0) ** 2)


NARROWED = [pinball_cast, pinball_dtype_keyword, relu_cast]


def _regression(rng):
    X = rng.standard_normal((30, 3))
    return rng.standard_normal(3), X, rng.standard_normal(30)


@pytest.mark.parametrize("f", NARROWED, ids=lambda f: f.__name__)
def test_narrowed_inside_as_unoptimised(f):
    """The optimised gradient is the unoptimised one to float64's rounding, not float32's."""
    args = _regression(np.random.default_rng(24))
    got = srcdiff.grad(f)(*args)
    want = srcdiff.grad(f, debug=True)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("f", NARROWED, ids=lambda f: f.__name__)
def test_narrowed_inside_value_and_grad(f):
    args = _regression(np.random.default_rng(7))
    value, got = srcdiff.value_and_grad(f)(*args)
    np.testing.assert_allclose(got, srcdiff.grad(f, debug=True)(*args), rtol=1e-13, atol=1e-16)
    assert value == f(*args)


def broadcast_sides(r, T):
    """np.maximum of an (n, 1) side and an (n, m) side made from it."""
    return np.sum(np.maximum(r, T * r) ** 2)


def broadcast_slope(r, T):
    return np.sum(np.maximum(T * r, 0.5 * r) * T)


def read_again(r):
    m = np.maximum(0.3 * r, -0.7 * r)
    return np.sum(m * r) + np.sum(m)


def in_loop(r):
    s = 0.0
    for _ in range(3):
        m = np.maximum(0.3 * r, (0.3 - 1.0) * r)
        s = s + np.sum(m * m)
        r = r * 0.9 + 0.1
    return s


def in_helper(r):
    def act(z):
        return np.maximum(z, 0.1 * z)
    return np.sum(act(r) * act(2.0 * r))


def prelu(r, a):
    return np.sum(np.maximum(r, a * r) ** 2)


def ramp_of_one_array(r):
    return np.sum(np.minimum(np.maximum(r, 0.2 * r), 0.5 * r + 1.0))


def min_times_max(r):
    return np.sum(np.minimum(r, 0.5 * r) * np.maximum(r, 0.5 * r))


def _vector(rng):
    return (rng.standard_normal(6),)


def _column(rng):
    return rng.standard_normal((4, 1)), rng.standard_normal((4, 3))


PROGRAMS = [
    ("broadcast_sides", broadcast_sides, _column, 0),
    ("broadcast_slope", broadcast_slope, _column, 0),
    ("read_again", read_again, _vector, 0),
    ("in_loop", in_loop, _vector, 0),
    ("in_helper", in_helper, _vector, 0),
    ("prelu_array_slope", prelu, lambda rng: (rng.standard_normal(6), rng.random(6)), 0),
    ("ramp_of_one_array", ramp_of_one_array, _vector, 0),
    ("min_times_max", min_times_max, _vector, 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "wave24", "test_redteam_wave24", 24)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_hessian(program):
    f, args = program.func, program.args
    got = srcdiff.hessian(f)(*args)
    assert_close(np.reshape(got, (args[0].size,) * 2), hessian_difference(f, args).reshape((args[0].size,) * 2),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_numba(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_ties_and_signed_zeros_as_unoptimised(program):
    """Every other element an exact tie (0.0), one -0.0: the shares are halves, as unoptimised."""
    args = list(program.args)
    r = args[0].copy()
    r.flat[::2] = 0.0
    r.flat[1] = -0.0
    args[0] = r
    got = srcdiff.grad(program.func)(*args)
    np.testing.assert_allclose(got, srcdiff.grad(program.func, debug=True)(*args), rtol=1e-13, atol=1e-15)


def test_pinball_cast_against_central_differences_of_float64_twin():
    """The float32 cast's gradient is that of the float64 loss to float32's precision."""
    w, X, y = _regression(np.random.default_rng(3))

    def twin(w):
        r = y - X @ w
        return np.mean(np.maximum(0.3 * r, -0.7 * r))
    assert_close(srcdiff.grad(pinball_cast)(w, X, y), central_difference(twin, [w], 0), rtol=1e-5, atol=1e-7)


# A list a nested function's default holds is the list itself (Python evaluates ``k=k`` once, when
# the ``def`` runs, to the one list object): an item written after the def is what the helper
# reads.  own_nodes (frontend/naming.py) did not see the default's read, so list_joins.py took k
# for a list of one name and wrote the item into a new list: the helper read the old items,
# value and gradient silently wrong in every transformation.  Now refused at the write.


def default_list_item_written(x):
    k = [x[0], x[1]]

    def g(u, k=k):
        return u * k[0] * k[1]
    k[0] = x[2]
    return np.sum(g(x))


def default_list_of_arrays_written(x):
    k = [x, x * 2.0]

    def g(u, k=k):
        return u * k[0]
    k[0] = x * 5.0
    return np.sum(g(x))


def default_list_extended_then_written(x):
    k = [x[0], x[1]]

    def g(u, k=k):
        return u * k[0]
    k += [x[2]]
    k[0] = x[1]
    return np.sum(g(x))


def lambda_default_list_written(x):
    k = [x[0], x[1]]
    g = lambda u, k=k: u * k[0]  # noqa: E731
    k[0] = x[2]
    return np.sum(g(x))


WRITTEN_DEFAULTS = [default_list_item_written, default_list_of_arrays_written, default_list_extended_then_written,
                    lambda_default_list_written]


@pytest.mark.parametrize("f", WRITTEN_DEFAULTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "jvp", "hessian"])
def test_default_list_written_after_def_refused_or_right(f, how):
    """Refused naming the write's line, or right against central differences: never the old items."""
    x = np.array([0.5, 0.7, -0.3])
    try:
        if how == "grad":
            got = srcdiff.grad(f)(x)
        elif how == "value_and_grad":
            value, got = srcdiff.value_and_grad(f)(x)
            assert value == pytest.approx(f(x))
        elif how == "jvp":
            value, tangent = srcdiff.jvp(f, (x,), (np.ones(3),))
            assert value == pytest.approx(f(x))
            assert tangent == pytest.approx(np.sum(central_difference(f, [x], 0)), rel=1e-6)
            return
        else:
            got = srcdiff.hessian(f)(x)
            assert_close(got, hessian_difference(f, [x]), rtol=1e-4, atol=1e-4)
            return
    except srcdiff.SrcDiffError as exc:
        assert "test_redteam_wave24.py:" in str(exc).splitlines()[0], str(exc)
        return
    assert_close(got, central_difference(f, [x], 0), rtol=1e-6, atol=1e-8)


def default_list_read_only(x):
    """The list only read through the default and after it: differentiated as before."""
    k = [x[0], x[1]]

    def g(u, k=k):
        return u * k[0]
    return np.sum(g(x)) + k[1]


def test_default_list_read_only_differentiated():
    x = np.array([0.5, 0.7, -0.3])
    assert_close(srcdiff.grad(default_list_read_only)(x), central_difference(default_list_read_only, [x], 0))
