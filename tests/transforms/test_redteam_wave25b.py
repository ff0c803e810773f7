"""Red-team wave 25b: the public API as a demanding user drives it (redteam_wave25b_programs.py
says what was found).  Every answer is checked against float64 central differences."""

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, matrix
from . import redteam_wave25b_programs as w

# ---- finding 1: 0-d array parameters under numba ---------------------------------------------------


def zero_d_programs(dtype=np.float64):
    found = corpus.from_table(w.ZERO_D, "wave25b", "test_redteam_wave25b", 25)

    def narrowed(a):
        if isinstance(a, dict):
            return {k: narrowed(v) for k, v in a.items()}
        return a.astype(dtype) if isinstance(a, np.ndarray) and a.ndim == 0 else a

    for p in found:
        p.args = tuple(narrowed(a) for a in p.args)
    return found


def _numeric(f, args):
    if isinstance(args[0], dict):
        return {
            k: central_difference(lambda v, k=k: f({**args[0], k: v}, *args[1:]), [np.array(args[0][k], float)], 0)
            for k in args[0]
        }
    return central_difference(f, [np.array(a, float) if isinstance(a, np.ndarray) else a for a in args], 0)


def _close(got, want, dtype):
    tol = 1e-6 if dtype == np.float64 else 2e-3
    if isinstance(want, dict):
        for k in want:
            _close(got[k], want[k], dtype)
        return
    assert np.asarray(got).dtype == dtype and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: d.__name__)
@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_numba_value_and_grad(program, dtype):
    """value_and_grad and vjp compile the 0-d parameter's sums with numba."""
    program = next(p for p in zero_d_programs(dtype) if p.name == program.name)
    f, args = program.func, program.args
    want = _numeric(f, args)
    value, got = srcdiff.value_and_grad(f, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-6)
    _close(got, want, dtype)
    _, pullback = srcdiff.vjp(f, *args, jit="numba")
    _close(pullback(1.0), want, dtype)


@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_numba_hessian(program):
    f, args = program.func, program.args
    if isinstance(args[0], dict):
        pytest.skip("a tree's Hessian is checked by test_zero_d_every_transformation")
    got = srcdiff.hessian(f, jit="numba")(*args)
    want = central_difference(lambda t: _numeric(f, (t, *args[1:])), [np.array(args[0], float)], 0, eps=1e-4)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow  # (numba compiles and sympy checks each program: seconds a row)
@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_every_transformation(program):
    matrix.assert_numba_included(program)


# ---- finding 2: per-example gradients of float32 data with a parameter that is a number ---------------


def _regression(rng, dtype):
    return rng.normal(size=3).astype(dtype), rng.normal(size=(6, 3)).astype(dtype), rng.normal(size=6).astype(dtype)


@pytest.mark.parametrize("bias", ["numpy", "python"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: d.__name__)
def test_per_example_gradients_with_a_number_parameter(dtype, bias):
    w, X, Y = _regression(np.random.default_rng(1), dtype)
    b = dtype(0.3) if bias == "numpy" else 0.3
    gw, gb = srcdiff.vmap(srcdiff.grad(_bias, wrt=(0, 1)), in_axes=(None, None, 0, 0))(w, b, X, Y)
    tol = 1e-6 if dtype == np.float64 else 2e-3
    wide = [a.astype(float) for a in (w, X, Y)]
    for i in range(6):
        args = [wide[0], 0.3, wide[1][i], wide[2][i]]
        np.testing.assert_allclose(gw[i], central_difference(_bias, args, 0), rtol=tol, atol=tol)
        np.testing.assert_allclose(gb[i], central_difference(_bias, args, 1), rtol=tol, atol=tol)
    assert gw.dtype == dtype


_bias = w.per_example_bias


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: d.__name__)
def test_per_example_gradients_of_a_batched_number(dtype):
    """The gradient with respect to a number batched with in_axes 0 (each example's own scale)."""
    wv, X, Y = _regression(np.random.default_rng(2), dtype)
    cs = np.linspace(0.5, 2.0, 6).astype(dtype)
    got = srcdiff.vmap(srcdiff.grad(w.per_example_scale, wrt=3), in_axes=(None, 0, 0, 0))(wv, X, Y, cs)
    tol = 1e-6 if dtype == np.float64 else 2e-3
    f = w.per_example_scale
    want = [
        central_difference(f, [wv.astype(float), X[i].astype(float), float(Y[i]), float(cs[i])], 3) for i in range(6)
    ]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert got.dtype == dtype


def test_vmap_of_casts_written_by_the_user():
    x = np.linspace(0.1, 1.0, 5)
    got = srcdiff.vmap(w.casts_inside)(x)
    np.testing.assert_allclose(got, [w.casts_inside(t) for t in x], rtol=1e-12)
    gradients = srcdiff.vmap(srcdiff.grad(w.casts_inside))(x)
    np.testing.assert_allclose(gradients, 2.0 + 2.0 * x, rtol=1e-6)  # d/dx (2x + x^2), the casts rounding x


# ---- finding 3: a float64 argument's gradient is float64 where the function makes float32 values -----


def narrowed_programs():
    return corpus.from_table(w.NARROWED_INSIDE, "wave25b", "test_redteam_wave25b", 253)


def _leaves(tree):
    return list(tree.values()) if isinstance(tree, dict) else [tree]


def _assert_float64_like(got, arg):
    for g, a in zip(_leaves(got), _leaves(arg)):
        assert np.asarray(g).dtype == np.float64, (type(g), np.asarray(g).dtype)
        assert isinstance(g, np.ndarray) == isinstance(a, np.ndarray) and np.shape(g) == np.shape(a)


def _twin_gradient(program):
    """Central differences of the function without its casts (the casts round x to float32: the
    gradient agrees with its twin's to float32's rounding)."""
    return _numeric(w.TWINS[program.func], program.args)


def _near(got, want):
    for g, v in zip(_leaves(got), _leaves(want)):
        np.testing.assert_allclose(g, v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("program", narrowed_programs(), ids=lambda p: p.name)
def test_float64_argument_float64_gradient(program):
    f, args = program.func, program.args
    want = _twin_gradient(program)
    for got in (srcdiff.grad(f)(*args), srcdiff.value_and_grad(f)(*args)[1], srcdiff.vjp(f, *args)[1](1.0)):
        _assert_float64_like(got, args[0])
        _near(got, want)


@pytest.mark.parametrize("program", narrowed_programs(), ids=lambda p: p.name)
def test_float64_argument_float64_gradient_numba(program):
    f, args = program.func, program.args
    try:
        got = srcdiff.grad(f, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:  # numba has no np.float32 of a 0-d array: refused at the line
        assert matrix.located(exc), str(exc)
        return
    _assert_float64_like(got, args[0])
    _near(got, _twin_gradient(program))


@pytest.mark.parametrize("program", narrowed_programs(), ids=lambda p: p.name)
def test_narrowed_inside_forward_mode(program):
    """jvp's tangent: the gradient's dot product with a direction, as the twin's."""
    f, args = program.func, program.args
    if isinstance(args[0], dict):
        pytest.skip("jvp takes no tree tangent")
    direction = np.linspace(-1.0, 1.0, np.size(args[0])).reshape(np.shape(args[0]))
    direction = direction if isinstance(args[0], np.ndarray) else float(direction)
    _, tangent = srcdiff.jvp(f, args, (direction,) + (None,) * (len(args) - 1))
    want = np.sum(np.asarray(_twin_gradient(program)) * direction)
    np.testing.assert_allclose(tangent, want, rtol=1e-5, atol=1e-6)


# ---- finding 4: transformations of transformed functions, refused in words the user can act on -----

_X, _XS = np.linspace(0.1, 0.9, 3), np.linspace(0.1, 0.9, 12).reshape(4, 3)

COMPOSITIONS = {
    "grad_of_vmap": (lambda: srcdiff.grad(srcdiff.vmap(w.cube))(_XS), "srcdiff.grad", "srcdiff.vmap"),
    "jacobian_of_vmap": (lambda: srcdiff.jacobian(srcdiff.vmap(w.rows))(_X), "srcdiff.jacobian", "srcdiff.vmap"),
    "hessian_of_vmap": (lambda: srcdiff.hessian(srcdiff.vmap(w.cube))(_X), "srcdiff.hessian", "srcdiff.vmap"),
    "jvp_of_vmap": (lambda: srcdiff.jvp(srcdiff.vmap(w.rows), (_X,), (_X,)), "srcdiff.jvp", "srcdiff.vmap"),
    "hvp_of_vmap": (lambda: srcdiff.hvp(srcdiff.vmap(w.cube), _X, _X), "srcdiff.hvp", "srcdiff.vmap"),
    # (vmap of a hessian or a jacobian runs it once per example since wave 29b: test_redteam_wave29b.py;
    # with jit="numba" it is refused as these are)
    "vmap_of_hessian_numba": (lambda: srcdiff.vmap(srcdiff.hessian(w.cube), jit="numba")(_XS), "srcdiff.vmap",
                              "srcdiff.hessian"),
    "grad_of_jvp_function": (
        lambda: srcdiff.grad(srcdiff.jvp_function(w.cube))((_X,), (_X,)),
        "srcdiff.grad",
        "srcdiff.jvp_function",
    ),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_composition_refused_in_words(name):
    call, outer, inner = COMPOSITIONS[name]
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        call()
    text = str(caught.value)
    assert f"{outer} cannot transform" in text and f"made by {inner}" in text, text
    assert "srcdiff/api" not in text and " at 0x" not in text, text
    assert "vmap(grad(f))" in caught.value.hint


def test_vmap_of_vmap_is_batched():
    # refused in words until wave 35g; now both batch axes merged into one batched call (api/vmap_nested.py)
    mapped = srcdiff.vmap(srcdiff.vmap(w.rows, per_example="refuse"), per_example="refuse")
    np.testing.assert_allclose(mapped(_XS), [[w.rows(x) for x in row] for row in _XS], rtol=1e-12)
    assert mapped.per_example is None


def test_vmap_of_value_and_grad_is_batched():
    # one example at a time since wave 26; since wave 29 one batched call (the value beside the gradient)
    gradient = srcdiff.value_and_grad(w.cube)
    mapped = srcdiff.vmap(gradient)
    got, want = mapped(_XS), [gradient(x) for x in _XS]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([v[k] for v in want]), rtol=1e-12)
    assert mapped.per_example is None


@pytest.mark.parametrize(
    "made, hint",
    [
        (lambda: srcdiff.grad(w.cube, jit="numba"), 'srcdiff.vmap(srcdiff.grad(f), jit="numba")'),
    ],
    ids=["jit"],
)
def test_vmap_of_a_gradient_that_is_not_plain(made, hint):
    # refused since wave 25 (in words); since wave 26 it runs one example at a time, the reason kept
    gradient = made()
    mapped = srcdiff.vmap(gradient)
    got, want = mapped(_XS), [gradient(x) for x in _XS]
    if isinstance(want[0], tuple):
        for k in range(len(want[0])):
            np.testing.assert_allclose(got[k], np.stack([v[k] for v in want]), rtol=1e-12)
    else:
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-12)
    assert "can be batched (srcdiff.vmap)" in mapped.per_example and "programs.py" in mapped.per_example
    assert hint in mapped.per_example


def test_compositions_srcdiff_takes_still_run():
    """What the hint names: vmap(grad(f)), jacobian(grad(f)), hessian(f), against central differences."""
    per_example = srcdiff.vmap(srcdiff.grad(w.cube))(_XS)
    np.testing.assert_allclose(per_example, [central_difference(w.cube, [x], 0) for x in _XS], rtol=1e-6)
    want = hessian_difference(w.cube, (_X,))
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(w.cube))(_X), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(srcdiff.hessian(w.cube)(_X), want, rtol=1e-4, atol=1e-6)


class _Params:
    def __init__(self):
        self.W, self.b = np.ones(3), 0.5


_W4 = np.linspace(0.5, 1.5, 12).reshape(4, 3)


@pytest.mark.parametrize(
    "f, axes, args, example",
    [
        (w.tree_loss, (None, 0), ({"w": np.ones(3), "c": 0.5}, _XS), lambda i: ({"w": np.ones(3), "c": 0.5}, _XS[i])),
        (w.tree_loss, (0, 0), ({"w": _W4, "c": np.arange(4.0)}, _XS), lambda i: ({"w": _W4[i], "c": float(i)}, _XS[i])),
        (w.config_scale, (0, None), (_XS, {"k": 2.0}), lambda i: (_XS[i], {"k": 2.0})),
        (w.attribute_loss, (None, 0, 0), (_Params(), _XS, np.arange(4.0)), lambda i: (_Params(), _XS[i], float(i))),
        (srcdiff.grad(w.tree_loss), (None, 0), ({"w": np.ones(3), "c": 0.5}, _XS),
         lambda i: ({"w": np.ones(3), "c": 0.5}, _XS[i])),
    ],
    ids=["dict_shared", "dict_batched", "config_dict", "object", "gradient_of_dict"],
)
def test_vmap_of_a_tree_maps_each_leaf(f, axes, args, example):
    # refused by its argument since wave 25; since wave 26 each leaf is mapped along its axis (JAX's in_axes)
    got = srcdiff.vmap(f, in_axes=axes)(*args)
    want = [f(*example(i)) for i in range(4)]
    if isinstance(want[0], dict):
        for key in want[0]:
            np.testing.assert_allclose(got[key], np.stack([v[key] for v in want]), rtol=1e-12)
    else:
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-12)


def test_vmap_with_a_shared_list_still_runs():
    """A list of arrays with in_axes None (a sequence a loop reads) is not a tree vmap refuses."""
    xs = [np.linspace(-0.5, 0.5, 3), np.linspace(0.2, 0.4, 3)]
    got = srcdiff.vmap(w.rnn_like, in_axes=(0, None))(_XS, xs)
    np.testing.assert_allclose(got, [w.rnn_like(h, xs) for h in _XS], rtol=1e-12)


# ---- finding 5: jacobian with jit of float32 arguments; jvp through np.prod keeps float32 ------------


def _jacobian_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    columns = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        columns.append((np.asarray(f(x + e), dtype=float) - np.asarray(f(x - e), dtype=float)) / (2 * eps))
    return np.stack(columns, axis=-1).reshape(np.shape(f(x)) + x.shape)


@pytest.mark.parametrize("jit", [None, "numba"])
@pytest.mark.parametrize("f", w.VECTOR_FLOAT32, ids=lambda f: f.__name__)
def test_jacobian_of_float32_arguments(f, jit):
    x = np.linspace(0.3, 1.4, 5)
    got = srcdiff.jacobian(f, jit=jit)(x.astype(np.float32))
    assert got.dtype == np.float32
    want = _jacobian_difference(f, x)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.max(np.abs(want)))))


@pytest.mark.parametrize("jit", [None, "numba"])
def test_jacobian_of_float32_arguments_wrt_two(jit):
    x, y = np.linspace(0.3, 1.4, 4), np.linspace(-1.0, 1.0, 4)
    gx, gy = srcdiff.jacobian(w.scaled_rows, wrt=(0, 1), jit=jit)(x.astype(np.float32), y.astype(np.float32))
    assert gx.dtype == gy.dtype == np.float32
    np.testing.assert_allclose(gx, _jacobian_difference(lambda t: w.scaled_rows(t, y), x), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(gy, _jacobian_difference(lambda t: w.scaled_rows(x, t), y), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("jit", [None, "numba"])
@pytest.mark.parametrize("f", w.VECTOR_FLOAT32, ids=lambda f: f.__name__)
def test_jvp_of_float32_keeps_float32(f, jit):
    x = np.linspace(0.3, 1.4, 5)
    v = np.linspace(-1.0, 1.0, 5)
    value, tangent = srcdiff.jvp(f, (x.astype(np.float32),), (v.astype(np.float32),), jit=jit)
    assert value.dtype == tangent.dtype == np.float32
    want = _jacobian_difference(f, x) @ v
    np.testing.assert_allclose(tangent, want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.max(np.abs(want)))))
