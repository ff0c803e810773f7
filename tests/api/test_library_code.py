"""Library code as it is written: decorators, conversions, dtype checks, array namespaces,
and functions imported from an installed package."""

import functools
import importlib
import re
import sys
import textwrap
import warnings

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def array_namespace(*arrays):
    """Stands in for scipy._lib._array_api.array_namespace / array_api_compat's."""
    return np


@logged
def decorated(x, y):
    return np.sum(np.exp(x) * y)


def converts_input(x):
    x = np.asarray(x)
    y = np.array(x, dtype=float)
    z = y.astype(np.float64)
    return np.sum(z * z) + 0.0 * np.ndim(x)


def array_api_style(x, w):
    xp = array_namespace(x, w)
    x = xp.asarray(x, dtype=xp.float64)
    s = xp.sum(xp.exp(x) * w, axis=-1)
    return xp.mean(xp.sqrt(s + xp.ones_like(s)))


def dtype_query(x):
    ok = np.issubdtype(x.dtype, np.floating)
    return np.sum(x * x) * ok


def shape_constant(x):
    n = x.size
    return np.sum(x * x) / n + np.sum(np.zeros(x.shape) + x)


def truncates(x):
    return np.sum(x.astype(int))


def unknown_function(x):
    return np.sum(np.i0(x))


def test_decorated_function_follows_wrapped(rng):
    x, y = rng.normal(size=3), rng.normal(size=3)
    assert_close(srcdiff.grad(decorated)(x, y), central_difference(decorated, (x, y), 0))


def test_asarray_and_astype_on_the_input(rng):
    x = rng.normal(size=(2, 3))
    assert_close(srcdiff.grad(converts_input)(x), 2.0 * x)


def test_array_api_namespace_resolves_to_numpy_rules(rng):
    x, w = rng.normal(size=(3, 4)), rng.uniform(0.5, 1.0, size=4)
    dx, dw = srcdiff.grad(array_api_style, wrt=(0, 1))(x, w)
    assert_close(dx, central_difference(array_api_style, (x, w), 0))
    assert_close(dw, central_difference(array_api_style, (x, w), 1))
    source = srcdiff.grad(array_api_style).source_for(x, w)
    statements = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert not any(re.search(r"\bxp\b", line) for line in statements)
    assert "np.sum(" in source


def test_dtype_checks_and_shape_constants_carry_no_gradient(rng):
    x = rng.normal(size=(2, 3))
    assert_close(srcdiff.grad(dtype_query)(x), 2.0 * x)
    assert_close(srcdiff.grad(shape_constant)(x), 2.0 * x / x.size + 1.0)


def test_conversion_to_int_is_refused(rng):
    with pytest.raises(srcdiff.SrcDiffError, match="truncate the gradient"):
        srcdiff.grad(truncates)(rng.normal(size=3))


def test_unknown_numpy_function_names_it_the_line_and_how_to_register(rng):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(unknown_function)(rng.normal(size=3))
    message = str(info.value)
    assert "numpy.i0" in message
    assert "test_library_code.py:" in message and "np.i0(x)" in message
    assert "register_adjoint" in message


@pytest.fixture
def installed_package(tmp_path, monkeypatch):
    """A tiny package on sys.path, imported like any installed one."""
    pkg = tmp_path / "tinystats"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .losses import huberish, weighted_rms\n")
    (pkg / "losses.py").write_text(textwrap.dedent('''\
        import numpy as np


        def weighted_rms(x, w):
            """Root mean square of x, weighted."""
            x = np.asarray(x, dtype=float)
            return np.sqrt(np.mean(w * x ** 2))


        def huberish(r, delta=1.0):
            a = np.abs(r)
            return np.sum(np.where(np.less_equal(a, delta), 0.5 * r * r, delta * (a - 0.5 * delta)))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("tinystats")
    yield module
    for name in [n for n in sys.modules if n == "tinystats" or n.startswith("tinystats.")]:
        del sys.modules[name]


def test_function_from_an_installed_package(installed_package, rng):
    x, w = rng.normal(size=5), rng.uniform(0.5, 1.5, size=5)
    f = installed_package.weighted_rms
    dx, dw = srcdiff.grad(f, wrt=(0, 1))(x, w)
    assert_close(dx, central_difference(f, (x, w), 0))
    assert_close(dw, central_difference(f, (x, w), 1))
    h = installed_package.huberish
    r = rng.normal(size=6) * 2.0
    assert_close(srcdiff.grad(h)(r), central_difference(h, (r,), 0))


try:
    from scipy.special import softmax  # array-API style: xp = array_namespace(x); xp.max...
except ImportError:  # scipy is a dev dependency only
    softmax = None


def softmax_loss(x, w):
    return np.sum(softmax(x, axis=-1) * w)


def test_array_api_function_from_scipy(rng):
    if softmax is None:
        pytest.skip("scipy is not installed")
    x, w = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    assert_close(srcdiff.grad(softmax_loss)(x, w), central_difference(softmax_loss, (x, w), 0))


# ---- a parameter used as a static argument: one transform per value ----

def max_shifted(x, w, axis=None):
    m = np.max(x, axis=axis, keepdims=True)
    return np.sum(np.exp(x - m) * w) + np.sum(np.sum(x * x, axis=axis) ** 2)


def needs_axis(x, axis):
    return np.sum(np.sum(x, axis=axis) ** 2)


def reassigned_axis(x, axis):
    axis = axis - 1
    return np.sum(np.sum(x, axis=axis) ** 2)


def softmax_like(x, axis=None):
    x_max = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_rows(x, w):
    return np.sum(softmax_like(x, axis=1) * w)


def softmax_through(x, w, axis):
    return np.sum(softmax_like(x, axis=axis) * w)


AXES = [0, 1, None, -1, 0, 1, (0, 1), None]


def test_static_parameter_values_alternate_on_one_gradient(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    gradient = srcdiff.grad(max_shifted)
    for axis in AXES + AXES:  # the second round runs through the fast path's guard
        expected = central_difference(max_shifted, (x, w, axis), 0)
        assert_close(gradient(x, w, axis), expected)
        assert_close(gradient(x, w, axis=axis), expected)
    assert_close(gradient(x, w), central_difference(max_shifted, (x, w), 0))


def test_static_parameter_one_transform_and_variant_per_value(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    srcdiff.clear_cache()  # transforms are shared by every gradient of max_shifted
    gradient = srcdiff.grad(max_shifted)
    before = srcdiff.cache_info()
    for _ in range(3):
        gradient(x, w, 0)
        gradient(x, w, 1)
    gradient(rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), 1)  # another batch size: same variant
    after = srcdiff.cache_info()
    assert (after.transforms - before.transforms, after.variants - before.variants) == (2, 2)


def test_static_parameter_fast_path_checks_value_and_type(rng):
    x, w = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    gradient = srcdiff.grad(max_shifted)
    gradient(x, w, 0)
    gradient(x, w, 0)  # the fast path is now the axis=0 variant
    assert_close(gradient(x, w, 1), central_difference(max_shifted, (x, w, 1), 0))
    assert_close(gradient(x, w, (1,)), central_difference(max_shifted, (x, w, (1,)), 0))
    assert_close(gradient(x, w, 0), central_difference(max_shifted, (x, w, 0), 0))


def test_static_parameter_source_shows_the_value(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    source = srcdiff.grad(max_shifted).source_for(x, w, 1)
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert any("np.max(x, axis=1, keepdims=True)" in line for line in code)
    assert not any("axis=axis" in line for line in code)
    assert "axis=None" in srcdiff.grad(max_shifted).source  # before any call: the default


@pytest.mark.parametrize("axis, shown", [
    (np.int64(0), f"axis={np.int64(0)!r}"),
    (float("nan"), "axis=nan"),
])
def test_static_parameter_values_srcdiff_cannot_specialise_on_are_refused(axis, shown, rng):
    x = rng.normal(size=(3, 4))
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(needs_axis)(x, axis)
    message = str(info.value)
    assert "test_library_code.py:" in message and "np.sum(x, axis=axis)" in message
    assert shown in message and "static argument" in message


def test_a_static_list_numpy_refuses_fails_at_the_line_as_numpy_does(rng):
    # a list of numbers is a static value (np.split(x, indices) with indices=[1, 3]): where
    # NumPy takes no list (axis=[0]), the call fails as the function itself does, at its line
    x = rng.normal(size=(3, 4))
    with pytest.raises(TypeError):
        needs_axis(x, [0])
    with pytest.raises(srcdiff.SrcDiffError, match="TypeError") as info:
        srcdiff.grad(needs_axis)(x, [0])
    assert "test_library_code.py:" in str(info.value) and "np.sum(x, axis=axis)" in str(info.value)


def test_differentiated_parameter_used_as_static_argument_is_refused(rng):
    x = rng.normal(size=(3, 4))
    with pytest.raises(srcdiff.SrcDiffError, match="axis is differentiated") as info:
        srcdiff.grad(needs_axis, wrt=(0, "axis"))(x, 1.0)
    assert "np.sum(x, axis=axis)" in str(info.value)


def test_static_parameter_without_a_value_or_changed_is_refused(rng):
    with pytest.raises(srcdiff.SrcDiffError, match="depends on the value of axis"):
        _ = srcdiff.grad(needs_axis).source
    with pytest.raises(srcdiff.SrcDiffError, match="axis must be a constant here"):
        srcdiff.grad(reassigned_axis)(rng.normal(size=(3, 4)), 1)


def test_helper_with_a_static_parameter_given_a_constant(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    assert_close(srcdiff.grad(softmax_rows)(x, w), central_difference(softmax_rows, (x, w), 0))


def test_helper_with_a_static_parameter_given_the_callers(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    gradient = srcdiff.grad(softmax_through)
    for axis in AXES:
        assert_close(gradient(x, w, axis), central_difference(softmax_through, (x, w, axis), 0))


# ---- library functions through their own source (issue: "Done when") ----

def _library(name):
    import importlib as _importlib
    module, _, attr = name.rpartition(".")
    try:
        return getattr(_importlib.import_module(module), attr)
    except ImportError:
        pytest.skip(f"{module} is not installed")


def _weighted(func):
    def weighted(x, w):
        return np.sum(func(x) * w)
    return weighted


def _poly_weighted(func):
    def poly(x, c, w):
        return np.sum(func(x, c) * w)
    return poly


# Each failing entry names the class of the failure (all in lowering, not in the frontend).
LIBRARY = [
    ("scipy.optimize.rosen", 1, None),
    ("scipy.spatial.distance.sqeuclidean", 2, None),
    ("scipy.spatial.distance.correlation", 2, None),
    ("scipy.special.logsumexp", 1, None),
    ("scipy.special.softmax", "weighted", None),
    ("scipy.special.log_softmax", "weighted", None),
    ("numpy.polynomial.polynomial.polyval", "poly", None),
    ("numpy.polynomial.hermite.hermval", "poly", None),
    ("numpy.polynomial.chebyshev.chebval", "poly", None),
]


@pytest.mark.parametrize("name, kind, failure", [
    pytest.param(n, k, f, marks=pytest.mark.xfail(raises=srcdiff.SrcDiffError, strict=True, reason=f))
    if f else (n, k, f) for n, k, f in LIBRARY], ids=[n.rsplit(".", 1)[-1] for n, _, _ in LIBRARY])
def test_library_function_through_its_own_source(name, kind, failure, rng):
    func = _library(name)
    x, w = rng.uniform(0.2, 1.5, size=5), rng.normal(size=5)
    if kind == "weighted":
        f, args, wrt = _weighted(func), (x, w), (0,)
    elif kind == "poly":
        f, args, wrt = _poly_weighted(func), (x, rng.normal(size=4), w), (0, 1)
    else:
        f, args, wrt = func, (x, w)[:kind], tuple(range(kind))
    grads = srcdiff.grad(f, wrt=wrt)(*args)
    for index, g in zip(wrt, grads):
        assert_close(g, central_difference(f, args, index), rtol=1e-5, atol=1e-7)


# ---- the classes behind those library functions, as users write them ----

def outer_powers(x, c):  # numpy.polynomial's tensor evaluation
    c = c.reshape(c.shape + (1,) * x.ndim)
    return np.sum(c[0] + c[1] * x + c[2] * x * x)


def scale_rows(x, w):
    return np.sum(np.sin(x) * np.reshape(w, w.shape + (1,) * (x.ndim - 1)))


def flatten_tail(x):
    y = x.reshape(x.shape[:1] + (-1,))
    return np.sum(y[0] * y[-1])


@pytest.mark.parametrize("func, make", [
    (outer_powers, lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=3))),
    (outer_powers, lambda rng: (rng.normal(size=4), rng.normal(size=3))),
    (scale_rows, lambda rng: (rng.normal(size=(3, 2, 2)), rng.normal(size=3))),
    (flatten_tail, lambda rng: (rng.normal(size=(2, 2, 3)),)),
], ids=["outer-2d", "outer-1d", "scale-rows", "flatten-tail"])
def test_shape_tuple_arithmetic_computed_when_run(func, make, rng):
    args = make(rng)
    for index in range(len(args)):
        assert_close(srcdiff.grad(func, wrt=index)(*args), central_difference(func, args, index))


def _as_vector(u, dtype=None):
    u = np.asarray(u, dtype=dtype)
    if u.ndim == 1:
        return u
    raise ValueError("Input vector should be 1-D.")


def dtype_local(x):
    utype = None
    if not np.issubdtype(x.dtype, np.inexact):
        utype = np.float64
    u = _as_vector(x, dtype=utype)
    return np.sum(u * u)


def dtype_builtin_passed(x):
    dt = float
    return np.sum(_as_vector(x, dt) ** 3)


def dtype_of_the_array(x, w):
    return np.sum(np.sum(x * w, axis=0, dtype=x.dtype) ** 2)


def dtype_truncating(x):
    return np.sum(_as_vector(x, np.int64) * 1.0)


@pytest.mark.parametrize("func, make", [
    (dtype_local, lambda rng: (rng.normal(size=4),)),
    (dtype_builtin_passed, lambda rng: (rng.normal(size=4),)),
    (dtype_of_the_array, lambda rng: (rng.normal(size=(3, 2)), rng.normal(size=(3, 2)))),
], ids=["local", "builtin", "x.dtype"])
def test_dtype_objects_as_values(func, make, rng):
    args = make(rng)
    assert_close(srcdiff.grad(func)(*args), central_difference(func, args, 0))


def test_dtype_held_by_a_name_is_checked_where_the_conversion_runs(rng):
    with pytest.raises(TypeError, match="would truncate the gradient") as info:
        srcdiff.grad(dtype_truncating)(rng.normal(size=3))
    assert "test_library_code.py:" in str(info.value) and "np.asarray(u, dtype=dtype)" in str(info.value)


def xp_promote(*args, broadcast=False, force_floating=False, xp=None):
    """Stands in for scipy._lib._array_api.xp_promote (read by name, not through its source)."""
    arrays = [a for a in args if a is not None]
    dtype = np.result_type(*arrays, *([1.0] if force_floating else []))
    out = [None if a is None else np.asarray(a, dtype=dtype) for a in args]
    if broadcast:
        shaped = iter(np.broadcast_arrays(*[a for a in out if a is not None]))
        out = [None if a is None else next(shaped) for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def promoted_one(x):
    xp = array_namespace(x)
    x = xp_promote(x, force_floating=True, xp=xp)
    return xp.sum(x[1:] * x[:-1] ** 2)


def promoted_two(a, b):
    xp = array_namespace(a, b)
    a, b = xp_promote(a, b, xp=xp)
    return xp.sum(xp.exp(a) * b)


def promoted_with_none(a):
    a, b = xp_promote(a, None, broadcast=True, force_floating=True)
    return np.sum(a * a) if b is None else np.sum(a)


def promoted_broadcast(a, b):
    a, b = xp_promote(a, b, broadcast=True)
    return np.sum(a * b)


@pytest.mark.parametrize("func, make", [
    (promoted_one, lambda rng: (rng.normal(size=5),)),
    (promoted_two, lambda rng: (rng.normal(size=3), rng.normal(size=3))),
    (promoted_with_none, lambda rng: (rng.normal(size=3),)),
], ids=["one", "two", "none"])
def test_promoting_helpers_pass_arrays_through(func, make, rng):
    args = make(rng)
    assert_close(srcdiff.grad(func)(*args), central_difference(func, args, 0))


@pytest.mark.parametrize("shape_a, shape_b", [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2))])
def test_promoting_with_broadcast_of_two_arrays(shape_a, shape_b, rng):
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    da, db = srcdiff.grad(promoted_broadcast, wrt=(0, 1))(a, b)
    assert_close(da, central_difference(promoted_broadcast, (a, b), 0))
    assert_close(db, central_difference(promoted_broadcast, (a, b), 1))


try:
    from scipy._lib import array_api_extra as xpx
except ImportError:  # scipy is a dev dependency only
    xpx = None


def at_mask(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    m = xpx.at(m, ~np.isfinite(m)).set(0)
    return np.sum(np.exp(x - m) * w)


def at_index(x):
    y = xpx.at(x, 1).set(x[0] * 3.0, copy=True)
    return np.sum(y * y * x)


def at_slice(x):
    y = xpx.at(np.sin(x))[1:].set(x[0], copy=True)
    return np.sum(y * np.cos(x))


def at_in_place(x):
    y = np.sin(x)
    y = xpx.at(y, 0).set(1.0, copy=False)
    return np.sum(y)


def at_writes_through(x):
    y = np.sin(x)
    z = xpx.at(y, 1).set(x[0] * 3.0)  # NumPy writes into y (copy=None): y is z now
    return np.sum(y * z * x)


def at_argument(x):
    y = xpx.at(x, 1).set(2.0)
    return np.sum(y * x)


@pytest.mark.parametrize("func, make", [
    (at_mask, lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=(2, 3)))),
    (at_index, lambda rng: (rng.normal(size=4),)),
    (at_slice, lambda rng: (rng.normal(size=4),)),
    (at_writes_through, lambda rng: (rng.normal(size=4),)),
], ids=["mask", "index", "slice", "writes-through"])
def test_array_api_at_set_is_a_new_array(func, make, rng):
    if xpx is None:
        pytest.skip("scipy is not installed")
    args = make(rng)
    assert_close(srcdiff.grad(func)(*args), central_difference(func, args, 0))


def test_array_api_at_set_in_place_is_refused(rng):
    if xpx is None:
        pytest.skip("scipy is not installed")
    with pytest.raises(srcdiff.SrcDiffError, match="copy=False") as info:
        srcdiff.grad(at_in_place)(rng.normal(size=3))
    assert "test_library_code.py:" in str(info.value)
    with pytest.raises(srcdiff.SrcDiffError, match="x is an argument") as info:
        srcdiff.grad(at_argument)(rng.normal(size=3))
    assert "copy=True" in str(info.value)


def quiet_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
        if np.all(x > 0):
            return np.sum(y * y)
    return np.sum(x)


def quiet_warnings(x):
    with warnings.catch_warnings():
        z = np.sqrt(x) * x
    return np.sum(z)


@pytest.mark.parametrize("func", [quiet_log, quiet_warnings])
def test_blocks_that_only_silence_warnings(func, rng):
    x = rng.uniform(0.5, 1.5, size=3)
    assert_close(srcdiff.grad(func)(x), central_difference(func, (x,), 0))


# ---- scipy.special.logsumexp with its options: static None/bool arguments, ndim facts ----

try:
    from scipy.special import logsumexp
except ImportError:  # scipy is a dev dependency only
    logsumexp = None


@pytest.fixture
def needs_scipy():
    if logsumexp is None:
        pytest.skip("scipy is not installed")


def lse_axis(x, w):
    return np.sum(logsumexp(x, axis=1) * w[:, 0])


def lse_keepdims(x, w):
    return np.sum(logsumexp(x, axis=0, keepdims=True) * w[:1])


def lse_axes(x):
    return logsumexp(x, axis=(0, 1))


def lse_weights(x, b):
    return logsumexp(x, b=b)


def lse_weights_axis(x, b, w):
    return np.sum(logsumexp(x, axis=-1, b=b) * w[:, 0])


def lse_sign(x, b):
    value, sign = logsumexp(x, axis=1, b=b, return_sign=True)
    return np.sum(value * sign)


@pytest.mark.parametrize("func, wrt", [
    (lse_axis, (0,)), (lse_keepdims, (0,)), (lse_axes, (0,)), (lse_weights, (0, 1)),
    (lse_weights_axis, (0, 1)), (lse_sign, (0, 1)),
], ids=["axis", "keepdims", "axes", "b", "b-axis", "return_sign"])
def test_logsumexp_options(func, wrt, rng, needs_scipy):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    b = rng.uniform(0.5, 2.0, size=(3, 4)) * np.where(rng.uniform(size=(3, 4)) < 0.2, -0.1, 1.0)
    args = {lse_axis: (x, w), lse_keepdims: (x, w), lse_axes: (x,), lse_weights: (x, b),
            lse_weights_axis: (x, b, w), lse_sign: (x, b)}[func]
    grads = srcdiff.grad(func, wrt=wrt)(*args)
    for index, g in zip(wrt, grads):
        assert_close(g, central_difference(func, args, index), rtol=1e-5, atol=1e-7)


def test_logsumexp_differentiated_directly_with_its_options(rng, needs_scipy):
    x = rng.normal(size=(3, 4))
    gradient = srcdiff.grad(logsumexp)
    for axis in (None, (0, 1)):
        expected = central_difference(logsumexp, (x, axis), 0)
        assert_close(gradient(x, axis), expected)
    with pytest.raises(srcdiff.SrcDiffError, match="needs a scalar output") as info:
        gradient(x, 1)
    assert "_logsumexp.py:" in str(info.value)


def optional_weights(x, w=None, squared=False):
    if w is None:
        w = np.ones(x.shape)
    y = x * x if squared else x
    return np.sum(np.sin(y) * w)


def test_none_and_bool_arguments_decide_branches_per_call(rng):
    x, w = rng.normal(size=4), rng.normal(size=4)
    gradient = srcdiff.grad(optional_weights)
    for args in [(x,), (x, w), (x, None, True), (x, w, True), (x,), (x, w, False)]:
        assert_close(gradient(*args), central_difference(optional_weights, args, 0))
    source = gradient.source_for(x, None, True)
    code = [line for line in source.splitlines()[1:] if not line.strip().startswith("#")]
    assert not any("is None" in line or "squared" in line for line in code), source


def helper_tests_none(x, scale=None):
    return x * 2.0 if scale is None else x * scale


def calls_with_none_and_array(x, s):
    return np.sum(helper_tests_none(x) * helper_tests_none(x, s))


def test_a_callee_is_specialised_on_the_none_it_is_passed(rng):
    x, s = rng.normal(size=3), rng.normal(size=3)
    for index in (0, 1):
        got = srcdiff.grad(calls_with_none_and_array, wrt=index)(x, s)
        assert_close(got, central_difference(calls_with_none_and_array, (x, s), index))


def first_and_mask(x):
    m = np.max(x)
    return m, x == m


def uses_returned_mask(x):
    m, mask = first_and_mask(x)
    y = x.copy()
    y[mask] = 0.0
    return np.sum(y * y) + m


def test_a_mask_returned_by_a_helper_carries_no_gradient(rng):
    x = rng.normal(size=5)
    assert_close(srcdiff.grad(uses_returned_mask)(x), central_difference(uses_returned_mask, (x,), 0))


def lse_complex_branch_taken(x):
    return logsumexp(x + 0.0j).real


def test_a_branch_srcdiff_cannot_lower_is_refused_when_taken(rng, needs_scipy):
    x = rng.normal(size=3)
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(lse_complex_branch_taken)(x)
    assert "_logsumexp.py:" in str(info.value) or "test_library_code.py:" in str(info.value)


def sign_branch(x, w):
    if np.sum(x) > 0:
        return np.sum(x * w)
    return np.sum(np.i0(x) * w)


def test_a_side_that_cannot_be_lowered_raises_only_when_it_runs(rng):
    w = rng.normal(size=3)
    x = rng.uniform(0.1, 1.0, size=3)
    gradient = srcdiff.grad(sign_branch)
    assert_close(gradient(x, w), central_difference(sign_branch, (x, w), 0))
    with pytest.raises(srcdiff.SrcDiffError, match="numpy.i0") as info:
        gradient(-x, w)
    assert "test_library_code.py:" in str(info.value) and "np.i0(x)" in str(info.value)
