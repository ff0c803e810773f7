"""Library code as it is written: decorators, conversions, dtype checks, array namespaces,
and functions imported from an installed package."""

import functools
import importlib
import re
import sys
import textwrap

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
    return np.sum(np.sinc(x))


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
    assert "numpy.sinc" in message
    assert "test_library_code.py:" in message and "np.sinc(x)" in message
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
    ([0], "axis=[0]"),
    (np.int64(0), f"axis={np.int64(0)!r}"),
    ((0, [1]), "axis=(0, [1])"),
    (float("nan"), "axis=nan"),
])
def test_static_parameter_values_srcdiff_cannot_specialise_on_are_refused(axis, shown, rng):
    x = rng.normal(size=(3, 4))
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(needs_axis)(x, axis)
    message = str(info.value)
    assert "test_library_code.py:" in message and "np.sum(x, axis=axis)" in message
    assert shown in message and "static argument" in message


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
