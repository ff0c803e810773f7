"""In-place writes through views and second names (views14_programs.py): every transformation, numba
included, agrees with central differences (or numba refuses at the user's line), float32 stays
float32; NumPy's own semantics are kept where they are subtle (a reshape that copies, a view of a
view, fancy indexing, a list's slice, a number's second name, a view taken before the array's name
is rebound); and what srcdiff still cannot tell is refused at its line."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .views14_programs import PROGRAMS

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "views14", "views14_programs", 14)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED: dict = {}

#: first order, in the default run (value_and_grad and vjp, which share grad's code, in the slow set and
#: test_numba_included); second order and `srcdiff.check` (sympy) in a sampled family
FIRST = ("grad", "jvp", "tree")


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, FIRST)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_and_vjp(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


def _every_third_in_default_run(programs: list) -> list:
    return [p if i % 3 == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


@pytest.mark.parametrize("program", _every_third_in_default_run(matrix.with_array_argument(programs())), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- NumPy's semantics are kept ------------------------------------------------------------------------


def reshape_of_a_transpose_copies(X):
    Y = X.copy().T  # not C-contiguous: Y.reshape(-1) is a copy, the write does not reach Y
    flat = Y.reshape(-1)
    flat *= 3.0
    return np.sum(Y ** 2) + np.sum(flat)


def transpose_then_reshape_copies(X):
    Y = X.copy()
    flat = Y.T.reshape(-1)  # a copy: Y keeps its values
    flat[0] = 10.0 * flat[1]
    return np.sum(np.sin(Y)) + np.sum(flat ** 2)


def flatten_is_a_copy(X):
    Y = X.copy()
    flat = Y.flatten()
    flat[1] = 0.0
    return np.sum(Y.ravel() * flat)


def fancy_index_copies(x):
    z = x.copy()
    sel = z[[0, 2]]  # advanced indexing: a copy
    sel[0] = 5.0
    return np.sum(z ** 2) + np.sum(sel * x[:2])


def view_of_a_view(x):
    z = x.copy()
    tail = z[1:]
    every_other = tail[::2]  # z[1::2]
    every_other[:] = every_other ** 2
    return np.sum(z * x)


def list_slice_copies(x):
    xs = [x[0], x[1], x[2]]
    part = xs[::2]  # a new list: writing into it leaves xs alone
    part[0] = part[0] * 3.0
    return xs[0] + xs[2] * part[0]


def numbers_second_name(x):
    s = np.sum(x)
    t = s
    t += 1.0  # a number: t is a new one, s is unchanged
    return s * t


def view_before_the_name_is_rebound(x):
    z = x.copy()
    v = z.reshape(-1)
    z = z * 2.0  # a new array: v still shows the old one
    v *= 3.0
    return np.sum(z) + np.sum(v ** 2)


def alias_before_the_name_is_rebound(x):
    a = x.copy()
    b = a
    a = a + 1.0  # a new array: b is still the old one
    b += x
    return np.sum(a * b)


def write_through_view_then_alias_read(X):
    Y = np.zeros(X.shape)
    Y += X
    Yt = Y.T
    Yt[-1] = Yt[0] * 2.0  # Y's last column
    Z = Y
    return np.sum(Z * np.arange(1.0, 1.0 + X.size).reshape(X.shape))


def out_of_a_ufunc_broadcast(x):
    y = np.zeros((2, x.size))
    np.multiply(x, 2.0, out=y)  # the value broadcast into every row of y
    return np.sum(y * np.array([[1.0], [3.0]]) * x)


def _scale_in_place(v):
    v *= 2.0


def helper_writes_its_argument(x):
    u = x.copy()
    _scale_in_place(u)
    return np.sum(u ** 2)


def _add_one_to_a_number(s):
    s += 1.0  # a number: rebinds s inside the helper only


def helper_given_a_number(x):
    t = np.sum(x)
    _add_one_to_a_number(t)
    return t * x[0]


def zero_d_second_name(x):
    a = np.array(np.sum(x))  # a 0-d array: b += 1.0 changes a too
    b = a
    b += 1.0
    return a * x[0]


def cumsum_out_along_axis(X):
    Y = X.copy()
    np.cumsum(Y, axis=1, out=Y)
    return np.sum(Y ** 2)


@pytest.mark.parametrize("f, args", [
    (reshape_of_a_transpose_copies, (np.array([[0.3, -0.5, 0.2], [0.9, 0.1, -0.7]]),)),
    (transpose_then_reshape_copies, (np.array([[0.3, -0.5, 0.2], [0.9, 0.1, -0.7]]),)),
    (flatten_is_a_copy, (np.array([[0.3, -0.5], [0.9, 0.1]]),)),
    (fancy_index_copies, (np.array([0.3, -0.5, 0.8]),)),
    (view_of_a_view, (np.array([0.3, -0.5, 0.8, 1.1, -0.2]),)),
    (list_slice_copies, (np.array([0.3, -0.5, 0.8]),)),
    (numbers_second_name, (np.array([0.3, -0.5, 0.8]),)),
    (view_before_the_name_is_rebound, (np.array([0.3, -0.5, 0.8]),)),
    (alias_before_the_name_is_rebound, (np.array([0.3, -0.5, 0.8]),)),
    (write_through_view_then_alias_read, (np.array([[0.3, -0.5, 0.2], [0.9, 0.1, -0.7]]),)),
    (out_of_a_ufunc_broadcast, (np.array([0.3, -0.5, 0.8]),)),
    (cumsum_out_along_axis, (np.array([[0.3, -0.5, 0.2], [0.9, 0.1, -0.7]]),)),
    (helper_writes_its_argument, (np.array([0.3, -0.5, 0.8]),)),
    (helper_given_a_number, (np.array([0.3, -0.5, 0.8]),)),
    (zero_d_second_name, (np.array([0.3, -0.5, 0.8]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_semantics_or_a_refusal_at_the_line(f, args):
    """Either the gradient of what NumPy computes, or a refusal naming this file: never the
    gradient of a rewrite that changed the value."""
    want = central_difference(f, args, 0)
    try:
        got = srcdiff.grad(f)(*args)
    except srcdiff.SrcDiffError as exc:
        assert HERE in str(exc).splitlines()[0], str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_a_numbers_second_name_keeps_working():
    x = np.array([0.3, -0.5, 0.8])
    np.testing.assert_allclose(srcdiff.grad(numbers_second_name)(x), central_difference(numbers_second_name, (x,), 0),
                               rtol=1e-6, atol=1e-8)


def test_a_view_of_a_view_and_an_out_broadcast_are_differentiated():
    for f, x in [(view_of_a_view, np.array([0.3, -0.5, 0.8, 1.1, -0.2])),
                 (out_of_a_ufunc_broadcast, np.array([0.3, -0.5, 0.8])),
                 (helper_writes_its_argument, np.array([0.3, -0.5, 0.8])),
                 (write_through_view_then_alias_read, np.array([[0.3, -0.5, 0.2], [0.9, 0.1, -0.7]]))]:
        np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-8)


# ---- still refused at the line ---------------------------------------------------------------------------


def view_of_an_argument_written(x):
    flat = x.reshape(-1)
    flat[0] = 2.0  # would change the caller's array
    return np.sum(x ** 2)


def view_kept_in_a_list(x):
    z = x.copy()
    views = [z[:2]]
    z[0] = 3.0  # the list's view changes too
    return np.sum(views[0] ** 2) + np.sum(z)


def out_with_where(x):
    y = np.zeros_like(x)
    np.exp(x, out=y, where=x > 0)  # the places not selected keep y's values
    return np.sum(y)


def _rebinds_its_parameter(v):
    v = v * 2.0  # a new array: the caller's is unchanged (and srcdiff cannot tell the call does nothing)
    return


def helper_rebinds_its_parameter(x):
    u = x.copy()
    _rebinds_its_parameter(u)
    return np.sum(u ** 2)


def helper_writes_an_argument(x):
    _scale_in_place(x)  # the caller's own argument
    return np.sum(x ** 2)


@pytest.mark.parametrize("f, args", [
    (view_of_an_argument_written, (np.array([[0.3, -0.5], [0.9, 0.1]]),)),
    (view_kept_in_a_list, (np.array([0.3, -0.5, 0.8]),)),
    (out_with_where, (np.array([0.3, -0.5, 0.8]),)),
    (helper_rebinds_its_parameter, (np.array([0.3, -0.5, 0.8]),)),
    (helper_writes_an_argument, (np.array([0.3, -0.5, 0.8]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_still_refused_at_the_line(f, args):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f)(*args)
    assert HERE in str(caught.value).splitlines()[0]
