"""What the red team's fourteenth wave found and fixed, each a class with variants of its own, through
every transformation.  References are float64 central differences of the function (tests/numeric.py,
and the matrix's own through `matrix.run`)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, matrix
from .corpus import Program
from .matrix import assert_every_transformation

HERE = "test_redteam_wave14_findings.py"


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w14_findings:{f.__name__}", f, args, wrt, HERE)


def _first_by_default(cases: list, name=lambda case: case[0].__name__) -> list:
    """`cases` as pytest parameters, every one but the first marked slow (second derivatives compile
    for a second each: the default run keeps one variant of a class)."""
    return [pytest.param(*c, id=name(c), marks=() if k == 0 else pytest.mark.slow) for k, c in enumerate(cases)]


# ---- 1. SILENT WRONG: second derivatives through a broadcast whose axes the gradient's code cannot see --------
# ``np.sum((y[None, :] - x[:, :1]) ** 2)``: the gradient sums ``-2 * (t1 - t2)`` (n, m) back to the column's
# shape (n, 1) with ``unbroadcast``.  Differentiating that gradient again (hessian, vjp of grad, jacobian of
# grad), the shapes of its code are read from the signature, and a slice's axis (``:1``) is of a length not
# known ("?"): the rule for ``unbroadcast`` read two shapes of unknown axes as equal and took the adjoint to
# pass through unchanged, where it must be spread over the m columns.  The Hessian was silently m times too
# small (a reparameterised ELBO's: -14.7 for -20.8).  hvp (forward over reverse) was right.  FIXED:
# rules/generated_code.py takes the adjoint as passing through only where no axis is of unknown length.


def column_slice(x, y):
    return np.sum((y[None, :] - x[:, :1]) ** 2)


def first_row_broadcast(x, y):
    return np.sum((x[:1, :] - y[:, None]) ** 2)


def elbo_first_column(log_sigma, mu, eps, y):
    z = mu + np.exp(log_sigma) * eps
    loglik = np.sum(-0.5 * (y[None, :] - z[:, :1]) ** 2, axis=1)
    return np.mean(loglik - 0.5 * np.sum(z ** 2, axis=1)) + np.sum(log_sigma)


def column_slice_scaled(x, y):
    d = 3.0 * (x[:, 1:2] - y) + 1.0
    return np.sum(d ** 2)


_R = np.random.default_rng(14)
BROADCAST = [(column_slice, (_R.normal(size=(3, 2)), _R.normal(size=4))),
             (first_row_broadcast, (_R.normal(size=(3, 2)), _R.normal(size=4))),
             (elbo_first_column, (0.3 * _R.normal(size=3), _R.normal(size=3), _R.normal(size=(5, 3)),
                                  _R.normal(size=4))),
             (column_slice_scaled, (_R.normal(size=(2, 3)), _R.normal(size=4)))]


@pytest.mark.parametrize("f, args", _first_by_default(BROADCAST))
def test_second_derivative_through_a_sliced_broadcast(f, args):
    """hessian, the Jacobian of the gradient and vjp of the gradient against second differences."""
    want = hessian_difference(f, args)
    x = args[0]
    n = x.size
    np.testing.assert_allclose(srcdiff.hessian(f)(*args).reshape(n, n), want.reshape(n, n), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(*args).reshape(n, n), want.reshape(n, n),
                               rtol=1e-5, atol=1e-5)
    v = _R.normal(size=x.shape)
    pulled = srcdiff.vjp(srcdiff.grad(f), *args)[1](v)
    pulled = pulled[0] if isinstance(pulled, tuple) else pulled
    np.testing.assert_allclose(pulled.ravel(), want.reshape(n, n) @ v.ravel(), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("f, args", BROADCAST[:3], ids=[f.__name__ for f, _ in BROADCAST[:3]])
def test_sliced_broadcast_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


# ---- 2. CRASH: a function looked up in a dict by a loop variable over a flattened tuple -------------------------
# ``for W, name in zip(Ws, names): h = ACTS[name](h @ W)`` with ``names=("tanh", "softplus")``: jvp flattens
# the tuple into parameters ``names_0, names_1`` and unrolls the loop (``name = names_0``); the key `name`
# was then taken for a static parameter of that name, which the function does not have (ValueError: 'name'
# is not in list).  FIXED: lower/static_values.py gives the parameter the name is bound to, and
# lower/calls.py spells the key as its value in the generated code.  (grad refuses the loop, unflattened,
# at the line: "cannot tell which function ACTS[name] is".)

ACTS = {"tanh": np.tanh, "sin": np.sin, "softplus": lambda z: np.logaddexp(0.0, z)}


def activation_by_name(Ws, X, names=("tanh", "sin")):
    h = X
    for W, name in zip(Ws, names):
        h = ACTS[name](h @ W)
    return np.sum(h)


def activation_by_name_lambda(Ws, X, names=("softplus", "tanh")):
    h = X
    for W, name in zip(Ws, names):
        h = ACTS[name](h @ W)
    return np.sum(h ** 2)


@pytest.mark.parametrize("f", _first_by_default([(activation_by_name,), (activation_by_name_lambda,)]))
def test_function_of_a_flattened_tuple_item_jvp(f):
    Ws = [0.5 * _R.normal(size=(3, 3)), 0.5 * _R.normal(size=(3, 2))]
    X = _R.normal(size=(4, 3))
    dWs = [_R.normal(size=(3, 3)), _R.normal(size=(3, 2))]
    try:
        value, tangent = srcdiff.jvp(f, (Ws, X), (dWs, np.zeros_like(X)))
    except srcdiff.SrcDiffError as exc:  # a refusal is allowed: at the user's line
        assert HERE in str(exc), exc
        return
    eps = 1e-6
    want = (f([W + eps * d for W, d in zip(Ws, dWs)], X) - f([W - eps * d for W, d in zip(Ws, dWs)], X)) / (2 * eps)
    np.testing.assert_allclose(value, f(Ws, X))
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.jvp(f, (Ws, X), ([np.zeros_like(W) for W in Ws], X))[1],
                               np.sum(central_difference(f, (Ws, X), 1) * X), rtol=1e-6, atol=1e-8)


# ---- 3. REFUSED BEYOND GRAD: np.hstack whose later operands' ndim is not known ---------------------------------
# ``np.hstack([np.ones((n, 1)), x.reshape(n, 1)])``: grad took it, but its adjoint split the joined array at
# positions computed from each operand's ndim when run, and a second derivative refused that split (its
# positions must be constants).  np.hstack's axis is decided by its first operand alone (two axes or more:
# axis 1), so the first operand's ndim decides every operand's piece.  FIXED: rules/numpy_shape.py.


def design_ones_column(x, y):
    n = len(x)
    X = np.hstack([np.ones((n, 1)), x.reshape(n, 1), (x ** 2).reshape(n, 1)])
    beta = np.linalg.inv(X.T @ X + 0.1 * np.eye(3)) @ X.T @ y
    return np.sum((X @ beta - y) ** 2)


def hstack_list_shape(x, y):
    n = len(x)
    X = np.hstack([np.ones([n, 1]), np.sin(x).reshape(-1, 1)])
    return np.sum((X @ np.array([0.5, 2.0]) - y) ** 2)


def hstack_vectors(x, y):
    z = np.hstack([np.array([1.0]), x, x[:2] * y[:2]])
    return np.sum(z ** 3)


HSTACKS = [(design_ones_column, (_R.normal(size=5), _R.normal(size=5))),
           (hstack_list_shape, (_R.normal(size=4), _R.normal(size=4))),
           (hstack_vectors, (_R.normal(size=3), _R.normal(size=3)))]


@pytest.mark.parametrize("f, args", _first_by_default(HSTACKS[::-1]))
def test_hstack_second_derivative(f, args):
    want = hessian_difference(f, args)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), want, rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("f, args", HSTACKS, ids=[f.__name__ for f, _ in HSTACKS])
def test_hstack_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


# ---- 4. REFUSED: a row written as a list (``J[i] = [math.cos(t), math.sin(t)]``) ------------------------------
# Filling a design matrix or a Jacobian made by np.empty((n, 2)) row by row with a list or tuple of numbers
# was refused, naming a generated name: "the list t7 cannot be used here: setitem does not take a list".
# NumPy writes the array the list makes.  FIXED: lower/array_updates.py writes ``np.asarray`` of the list
# (its adjoint is the list of the rows), in every transformation.


def rows_as_lists(theta, t):
    J = np.empty((len(t), 2))
    for i in range(len(t)):
        J[i] = [np.cos(theta * t[i]), np.sin(theta * t[i])]
    return np.linalg.slogdet(J.T @ J)[1]


def rows_mixed_constant(x):
    A = np.zeros((len(x), 2))
    for i in range(len(x)):
        A[i, :] = [x[i] ** 2, 1.0]
    return np.sum(A @ A.T)


def rows_as_tuples(x):
    A = np.empty((len(x), 2))
    for i in range(len(x)):
        A[i] = (np.sin(x[i]), x[i] * x[0])
    return np.linalg.slogdet(A.T @ A)[1]


def rows_from_comprehension(x):
    A = np.zeros((3, len(x)))
    for i in range(3):
        A[i] = [v ** (i + 1) for v in x]
    return np.sum(np.tanh(A))


def slice_from_list(x):
    y = np.zeros(4)
    y[:2] = [x[0] * x[1], np.exp(x[2])]
    y[2:] = x[:2]
    return np.sum(y ** 2)


LIST_ROWS = [(rows_as_lists, (0.8, np.linspace(0.1, 2.0, 5)), 0),
             (rows_mixed_constant, (np.array([0.3, -1.2, 0.7]),), 0),
             (rows_as_tuples, (np.array([0.3, -1.2, 0.7]),), 0),
             (rows_from_comprehension, (np.array([0.3, -1.2, 0.7]),), 0),
             (slice_from_list, (np.array([0.3, -1.2, 0.7]),), 0)]


@pytest.mark.parametrize("f, args, wrt", LIST_ROWS, ids=[f.__name__ for f, _, _ in LIST_ROWS])
def test_row_written_as_a_list(f, args, wrt):
    np.testing.assert_allclose(srcdiff.grad(f, wrt=wrt)(*args), central_difference(f, args, wrt), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("f, args, wrt", _first_by_default(LIST_ROWS[1:3]))
def test_row_written_as_a_list_hessian(f, args, wrt):
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("f, args, wrt", LIST_ROWS, ids=[f.__name__ for f, _, _ in LIST_ROWS])
def test_row_written_as_a_list_every_transformation(f, args, wrt):
    assert_every_transformation(_program(f, *args, wrt=wrt))


# ---- 5. SILENT WRONG: np.add.at with a value broadcast into the positions it adds to -------------------------
# ``np.add.at(A, [0, 2, 2], v)`` with v one row of A (NumPy broadcasts it into each row written): the
# gradient with respect to v read the rows back without summing them: a (3, 2) "gradient" for a v of shape
# (2,), silently, its values the rows' (grad, value_and_grad, vjp); ``np.add.at(A, (slice(None), 0), v)``
# with v of shape (1,) likewise; hessian crashed.  FIXED: rules/generated_code.py sums what index_add's
# value reads back to the value's shape (a no-op where they agree, as in srcdiff's own scatters).


def add_at_row_broadcast(v):
    A = np.zeros((3, 2))
    np.add.at(A, [0, 2, 2], v)
    return np.sum(np.sin(A) * np.arange(6.0).reshape(3, 2))


def add_at_column_one(v):
    A = np.ones((3, 2))
    np.add.at(A, (slice(None), 0), v)
    return np.sum(A ** 3)


def subtract_at_repeated_one(v):
    a = np.ones(4)
    np.subtract.at(a, [0, 3, 3], v[:1] * v[1])
    return np.sum(a ** 3)


ADD_AT = [(add_at_row_broadcast, (np.array([0.3, -0.8]),)), (add_at_column_one, (np.array([0.5]),)),
          (subtract_at_repeated_one, (np.array([0.5, 0.2]),))]


@pytest.mark.parametrize("f, args", _first_by_default(ADD_AT))
def test_add_at_broadcast_value(f, args):
    want = central_difference(f, args, 0)
    got = srcdiff.grad(f)(*args)
    assert got.shape == args[0].shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.vjp(f, *args)[1](1.0), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("f, args", ADD_AT, ids=[f.__name__ for f, _ in ADD_AT])
def test_add_at_broadcast_value_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


# ---- float32: every program of the wave differentiated with respect to an array, in single precision ---------
# (no finding: each gradient stays float32 and agrees with the float64 one to float32's precision; a program
# grad refuses is refused at the user's line alike)


def _wave14_arrays():
    from .redteam_wave14 import WAVE14  # the programs as corpus.redteam() makes them, without the other waves
    made = [Program(f"redteam:{name}", func, tuple(make(corpus._seed(f"redteam:{name}"))), wrt, "redteam")
            for name, func, make, wrt in WAVE14]
    programs = matrix.with_array_argument(made)
    return [p if k % 25 == 0 else pytest.param(p, marks=pytest.mark.slow) for k, p in enumerate(programs)]


@pytest.mark.parametrize("program", _wave14_arrays(), ids=lambda p: p.name.partition(":")[2])
def test_float32_gradients_stay_float32(program):
    try:
        matrix.assert_float32_stays_float32(program)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and "redteam_wave14" in str(exc), exc


# ---- 6. REFUSED: an index made a list by ``list(idx)`` ------------------------------------------------------
# ``out[list(idx)] += x`` (idx a tuple parameter) was refused naming a generated list ("the list t8 cannot be
# used here: setitem does not take a list"), and the Hessian of ``X[:, list(idx)]`` met the list inside the
# scatter's index tuple.  NumPy reads a list index as the array it makes; FIXED: lower/subscripts.py does so
# too (an index that repeats a position is then refused as NumPy's own trap, at the line), and so does
# lower/ufunc_at.py for np.add.at's index parts (``np.add.at(A, list(rows), v)`` met a list in a list).


def list_index_write(x, idx=(0, 2, 1)):
    out = np.zeros(4)
    out[list(idx)] += x * x
    return np.sum(np.sin(out) * np.arange(1.0, 5.0))


def list_index_columns(X, idx=(0,)):
    cols = X[:, list(idx)]
    return np.sum((X - cols) ** 2 + X * cols)


def list_index_repeated(x, idx=(0, 2, 2)):
    out = np.zeros(4)
    out[list(idx)] += x
    return np.sum(out ** 2)


def list_index_add_at(v, rows=(0, 2, 2)):
    A = np.zeros((3, 2))
    np.add.at(A, list(rows), v)
    np.add.at(A, [r for r in rows if r > 0], 0.5 * v)
    return np.sum(np.sin(A) * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("f, args", _first_by_default([(list_index_write, (np.array([0.3, -1.1, 0.7]),)),
                                                        (list_index_columns, (_R.normal(size=(3, 3)),)),
                                                        (list_index_add_at, (np.array([0.3, -0.8]),))]))
def test_list_made_index(f, args):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)


def test_list_made_index_repeating_a_position_is_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError, match="repeats a position") as info:
        srcdiff.grad(list_index_repeated)(np.array([0.3, -1.1, 0.7]))
    assert HERE in str(info.value)


# ---- 7. CRASH: a static parameter read through another name (``ax = axis``, ``f = act``) ------------------------
# The class of finding 2, without a loop: ``ax = axis`` then ``np.sum(x, axis=ax)``, or ``f = act`` then
# ``f(x)``, crashed every transformation (ValueError: 'ax' is not in list): the alias was taken for a
# parameter of its own name.  FIXED with finding 2: the parameter the name is bound to is specialised on.


def _soft(z):
    return np.logaddexp(0.0, z)


def alias_axis(x, axis=1):
    ax = axis
    return np.sum(np.sum(x ** 2, axis=ax) ** 2)


def alias_function(x, act=np.tanh):
    f = act
    return np.sum(f(x) ** 2)


def alias_user_function(x, act=_soft):
    g = act
    return np.sum(g(x) ** 2)


def alias_keepdims(X, keep=True, axis=0):
    k, a = keep, axis
    return np.sum((X - X.mean(axis=a, keepdims=k)) ** 2)


ALIASES = [alias_axis, alias_function, alias_user_function, alias_keepdims]


@pytest.mark.parametrize("f", ALIASES)
def test_static_parameter_through_an_alias(f):
    x = _R.normal(size=(3, 2))
    want = central_difference(f, (x,), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-6, atol=1e-8)
    v = _R.normal(size=x.shape)
    np.testing.assert_allclose(srcdiff.jvp(f, (x,), (v,))[1], np.sum(want * v), rtol=1e-6, atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("f", ALIASES)
def test_static_parameter_through_an_alias_every_transformation(f):
    assert_every_transformation(_program(f, _R.normal(size=(3, 2))))
