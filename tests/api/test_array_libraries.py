"""The same generated gradient on Dask arrays and on array-API namespaces (array-api-strict).

A variant for arrays of another library is the NumPy variant's source with one line more,
``np = array_namespace(...)``; it is cached beside the NumPy one (the signature holds the
array type).  Every gradient here is checked against float64 central differences of the
loss on NumPy copies of the same data, never against srcdiff's own NumPy gradient alone.
"""

import re

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
xp = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")


# ---- losses of several shapes of computation ----

def mse(w, b, X, y):
    return np.mean((X @ w + b - y) ** 2)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def row_softmax_max(W, X):
    """Reductions along an axis with keepdims, a max with ties, broadcasting of a column."""
    logits = X @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(shifted), axis=1, keepdims=True)) - np.mean(shifted, axis=1, keepdims=True))


def column_scale(s, X):
    """A row vector broadcast over the rows; a mean along axis 0 and a sum of squares."""
    centred = X * s - np.mean(X * s, axis=0)
    return np.sum(np.tanh(centred) ** 2) / X.shape[0]


def mlp(params, X, Y):
    hidden = np.tanh(X @ params["W1"] + params["b1"])
    logits = hidden @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))


def _problems(rng):
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    labels = (rng.random(40) < 0.5).astype(float)
    return [
        (mse, (rng.normal(size=3), 0.3, X, y), (0, 1)),
        (logistic, (rng.normal(size=3), X, labels), 0),
        (row_softmax_max, (rng.normal(size=(3, 4)), X), 0),
        (column_scale, (rng.normal(size=3), X), 0),
    ]


def _assert_parts_close(found, expected):
    pairs = zip(found, expected) if isinstance(expected, tuple) else [(found, expected)]
    for part, reference in pairs:
        assert_close(part, reference)


def _reference(f, args, wrt):
    indices = wrt if isinstance(wrt, tuple) else (wrt,)
    found = tuple(central_difference(f, args, i) for i in indices)
    return found if isinstance(wrt, tuple) else found[0]


def _strict(value):
    return xp.asarray(value) if isinstance(value, np.ndarray) else value


def _chunked(value):
    """Data-sized arrays (rows) as Dask arrays of 4 chunks; parameters stay NumPy."""
    return da.from_array(value, chunks=(10,) + value.shape[1:]) if isinstance(value, np.ndarray) \
        and value.ndim and value.shape[0] == 40 else value


def _as_numpy(value):
    if isinstance(value, tuple):
        return tuple(_as_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_numpy(v) for k, v in value.items()}
    if isinstance(value, da.Array):
        return value.compute()
    return np.asarray(value) if not isinstance(value, float) else value


def _function_sums(source: str) -> str:
    """NumPy's source with a whole sum spelled as the array API does: the code is the same
    but for that (``g.sum()`` is faster than ``np.sum(g)``; the array API has no methods)."""
    return re.sub(r"\b(\w+)\.sum\(\)", r"np.sum(\1)", source)


def _without_namespace_line(source: str) -> str:
    lines = source.splitlines(keepends=True)
    assert lines[1].strip().startswith("np = array_namespace(")
    return lines[0] + "".join(lines[2:])


#: the problems whose NumPy code is another library's but for its sums: NumPy's own rewrites (sums of
#: products as contractions, fills dropped: backend/optimize/contract.py) change the other two
SAME_CODE = (0, 1)


@pytest.mark.parametrize("index", range(4))
def test_array_api_strict_gradients_match_central_differences(index, rng):
    f, args, wrt = _problems(rng)[index]
    gradient = srcdiff.grad(f, wrt=wrt)
    strict_args = tuple(map(_strict, args))
    found = gradient(*strict_args)
    for part in found if isinstance(found, tuple) else (found,):
        assert type(part).__module__.startswith("array_api_strict")
    _assert_parts_close(_as_numpy(found), _reference(f, args, wrt))
    if index in SAME_CODE:
        numpy_source = gradient.source_for(*args)
        assert _without_namespace_line(gradient.source_for(*strict_args)) == _function_sums(numpy_source)


@pytest.mark.parametrize("index", range(4))
def test_dask_gradients_match_central_differences_and_stay_lazy(index, rng):
    f, args, wrt = _problems(rng)[index]
    gradient = srcdiff.grad(f, wrt=wrt)
    dask_args = tuple(map(_chunked, args))

    def no_compute(*a, **k):
        raise AssertionError("the gradient computed a Dask array while building it")

    with dask.config.set(scheduler=no_compute):
        found = gradient(*dask_args)
    parts = found if isinstance(found, tuple) else (found,)
    assert all(isinstance(p, da.Array) for p in parts)
    computed = dask.compute(*parts)  # one compute for every gradient
    _assert_parts_close(computed if isinstance(wrt, tuple) else computed[0], _reference(f, args, wrt))
    if index in SAME_CODE:
        assert _without_namespace_line(gradient.source_for(*dask_args)) == _function_sums(gradient.source_for(*args))


def _std(x):
    return np.std(x)


def _where(x):
    return np.sum(np.where(x > 0, x, 0.0) * np.mean(x, axis=0))


def _softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return np.sum(e / np.sum(e, axis=1, keepdims=True) * x)


@pytest.mark.parametrize("f", [_std, _where, _softmax])
@pytest.mark.parametrize("library", ["array_api_strict", "dask"])
def test_more_losses_on_both_libraries(f, library, rng):
    x = rng.normal(size=(6, 3)) + 0.05
    converted = xp.asarray(x) if library == "array_api_strict" else da.from_array(x, chunks=(2, 3))
    found = srcdiff.grad(f)(converted)
    found = found.compute() if library == "dask" else np.asarray(found)
    assert_close(found, central_difference(f, (x,), 0))


def test_mlp_gradient_on_array_api_strict_is_the_numpy_source_with_a_namespace(rng):
    params = {"W1": rng.normal(size=(2, 5)), "b1": rng.normal(size=5), "W2": rng.normal(size=(5, 3)),
              "b2": rng.normal(size=3)}
    X, Y = rng.normal(size=(12, 2)), np.eye(3)[rng.integers(0, 3, 12)]
    gradient = srcdiff.grad(mlp, wrt="params")
    strict_params = {k: xp.asarray(v) for k, v in params.items()}
    found = gradient(strict_params, xp.asarray(X), xp.asarray(Y))
    strict_source = gradient.source
    numpy_found = gradient(params, X, Y)
    numpy_source = gradient.source
    assert "array_namespace" not in numpy_source
    assert _without_namespace_line(strict_source) == numpy_source
    for name, value in params.items():
        def loss_of(v, name=name):
            return mlp({**params, name: v}, X, Y)
        expected = central_difference(loss_of, (value,), 0)
        assert isinstance(found[name], xp.asarray(0.0).__class__)
        assert_close(np.asarray(found[name]), expected)
        assert_close(numpy_found[name], expected)


def test_numpy_and_dask_variants_are_separate_and_both_cached(rng):
    def logistic_again(w, X, y):  # a function of its own: nothing compiled for it yet
        z = X @ w
        return np.mean(np.logaddexp(0.0, z) - y * z)

    w, X, y = rng.normal(size=3), rng.normal(size=(40, 3)), rng.normal(size=40)
    gradient = srcdiff.grad(logistic_again)
    dX, dy = _chunked(X), _chunked(y)
    before = srcdiff.cache_info().variants
    gradient(w, X, y)
    gradient(w, dX, dy)
    assert srcdiff.cache_info().variants == before + 2
    assert "array_namespace" not in gradient.source_for(w, X, y)
    assert gradient.source_for(w, dX, dy).splitlines()[1].strip() == "np = array_namespace(X, y)"
    for _ in range(2):  # back and forth: both variants are reused, nothing compiled again
        assert isinstance(gradient(w, X, y), np.ndarray)
        assert isinstance(gradient(w, dX, dy), da.Array)
        assert isinstance(gradient(xp.asarray(w), xp.asarray(X), xp.asarray(y)), xp.asarray(0.0).__class__)
    assert srcdiff.cache_info().variants == before + 3  # the array-api-strict one is the third


def test_a_function_outside_the_standard_is_refused_naming_the_call_and_line(rng):
    def spread(x):
        return np.sum(np.arcsinh(x) ** 2)

    x = rng.normal(size=4)
    gradient = srcdiff.grad(spread)
    assert_close(gradient(x), central_difference(spread, (x,), 0))  # NumPy has it
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        gradient(xp.asarray(x))
    message = str(caught.value)
    assert "np.arcsinh is not in the namespace array_api_strict" in message
    assert f"test_array_libraries.py:{spread.__code__.co_firstlineno + 1}" in message
    assert "return np.sum(np.arcsinh(x) ** 2)" in message


def test_a_method_the_arrays_lack_is_refused(rng):
    def total(x):
        return np.sum(np.sin(x.clip(-1.0, 1.0)))

    with pytest.raises(srcdiff.SrcDiffError, match=r"\.clip is not an attribute of Array arrays"):
        srcdiff.grad(total)(xp.asarray(rng.normal(size=4)))


def test_a_run_time_helper_is_refused_naming_the_line(rng):
    def first_column(W, X):
        logits = X @ W
        # (a column times a number of W's: its adjoint sums the column back, which unbroadcast does)
        return np.sum(np.log(np.sum(np.exp(logits), axis=1, keepdims=True)) - logits[:, 0:1] * W[0, :1])

    with pytest.raises(srcdiff.SrcDiffError, match=r"run-time helper unbroadcast\(\) works on NumPy arrays only") \
            as caught:
        srcdiff.grad(first_column)(rng.normal(size=(3, 4)), _chunked(rng.normal(size=(40, 3))))
    assert f"test_array_libraries.py:{first_column.__code__.co_firstlineno + 3}" in str(caught.value)


def test_numpy_arrays_mixed_with_array_api_strict_ones_are_refused(rng):
    mixed = "w are NumPy arrays and other arguments are arrays of array_api_strict"
    with pytest.raises(srcdiff.SrcDiffError, match=mixed):
        srcdiff.grad(logistic)(rng.normal(size=3), xp.asarray(rng.normal(size=(4, 3))), xp.asarray(np.ones(4)))


def test_integer_arrays_of_another_library_are_not_differentiated():
    with pytest.raises(srcdiff.SrcDiffError, match="not a floating-point array"):
        srcdiff.grad(logistic)(xp.asarray([1, 2, 3]), xp.asarray(np.ones((4, 3))), xp.asarray(np.ones(4)))


def test_debug_mode_needs_numpy_arrays(rng):
    with pytest.raises(srcdiff.SrcDiffError, match="debug=True needs NumPy arrays"):
        srcdiff.grad(logistic, debug=True)(rng.normal(size=3), _chunked(rng.normal(size=(40, 3))),
                                           _chunked(rng.normal(size=40)))


def test_mlp_gradient_on_a_gpu_with_cupy(rng):
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no GPU")
    params = {"W1": rng.normal(size=(2, 5)), "b1": rng.normal(size=5), "W2": rng.normal(size=(5, 3)),
              "b2": rng.normal(size=3)}
    X, Y = rng.normal(size=(12, 2)), np.eye(3)[rng.integers(0, 3, 12)]
    found = srcdiff.grad(mlp, wrt="params")({k: cupy.asarray(v) for k, v in params.items()},
                                            cupy.asarray(X), cupy.asarray(Y))
    for name, value in params.items():
        expected = central_difference(lambda v, name=name: mlp({**params, name: v}, X, Y), (value,), 0)
        assert_close(cupy.asnumpy(found[name]), expected)
