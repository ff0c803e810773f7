"""srcdiff.grad(f, debug=True): the first NaN/inf raises SrcDiffError at the user's line."""


import numpy as np
import pytest
from modules import import_source
from numeric import assert_close, central_difference

import srcdiff

MODEL = """\
import math

import numpy as np


def log_of_zero(x):
    d = x - x
    return np.log(d) + x


def weighted_root(x, w):
    r = np.cbrt(x)
    return w * r


def weighted_root_sum(x, w):
    r = np.cbrt(x)
    return np.sum(w * r)


def math_root(x):
    r = math.sqrt(x)
    return 3.0 * r


def math_log(x):
    y = x * 0.0
    return math.log(y)


def smooth(x, y):
    u = np.sin(x) * y
    return u * u + np.exp(y)


def smooth_sum(x, y):
    return np.sum(np.sin(x) * y + np.exp(y))


def uses_global(x):
    return x * SCALE


def log_in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.log(x - i)
    return s


SCALE = float("nan")
"""

LINES = {"log": 8, "root": 12, "root_sum": 17, "math_root": 22, "math_log": 28, "loop": 47}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("debug"), MODEL, module_name="debug_model")


pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_log_of_zero_points_at_the_forward_line(model):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.log_of_zero, debug=True)(1.5)
    error = info.value
    assert (error.location.line, error.sweep) == (LINES["log"], "forward")
    assert error.location.filename.endswith("model.py")
    message = str(error)
    assert message.startswith(f"{error.location.filename}:{LINES['log']}: forward pass: np.log(d) is -inf")
    assert "np.log(0.0)" in message and "finite inputs d = 0.0" in message
    assert "return np.log(d) + x" in message  # the user's line itself


@pytest.mark.parametrize("args", [(0.0, 1.0), (np.float64(0.0), np.float64(1.0))])
def test_infinite_slope_only_in_the_backward_sweep(model, args):
    # forward: cbrt(0) = 0 and 1 * 0 = 0 are finite; backward: r_bar / (3 * r * r) = 1 / 0, cbrt's
    # infinite slope (at w = 0 the adjoint is an exact 0 instead: ad/zero_factors.py)
    assert np.isfinite(model.weighted_root(*args))
    assert np.isinf(srcdiff.grad(model.weighted_root)(*args))  # without debug: a silent inf
    assert srcdiff.grad(model.weighted_root, debug=True)(args[0], 0.0) == 0.0
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.weighted_root, debug=True)(*args)
    error = info.value
    assert (error.location.line, error.sweep, error.node) == (LINES["root"], "backward", "r")
    assert "backward pass: the adjoint of np.cbrt(x) is inf" in str(error)
    assert "r_bar = 1.0, r = 0.0" in str(error)


def test_non_finite_value_inside_a_loop_points_at_its_line(model):
    assert srcdiff.grad(model.log_in_loop, debug=True)(2.5, 2) == srcdiff.grad(model.log_in_loop)(2.5, 2)
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.log_in_loop, debug=True)(2.0, 3)  # the third pass takes log(0)
    assert (info.value.location.line, info.value.sweep) == (LINES["loop"], "forward")


def test_array_element_is_named(model):
    x, w = np.array([4.0, 0.0, 1.0]), np.array([1.0, 3.0, 2.0])
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.weighted_root_sum, debug=True)(x, w)
    error = info.value
    assert (error.location.line, error.sweep) == (LINES["root_sum"], "backward")
    assert "is inf at index (1,)" in str(error)


def test_python_float_division_by_zero_is_reported_at_the_line(model):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.math_root, debug=True)(0.0)
    error = info.value
    assert (error.location.line, error.sweep) == (LINES["math_root"], "backward")
    assert isinstance(error.__cause__, ZeroDivisionError)
    with pytest.raises(srcdiff.SrcDiffError) as plain:  # without debug: Python's error, located
        srcdiff.grad(model.math_root)(0.0)
    assert (plain.value.location.line, plain.value.sweep) == (LINES["math_root"], "backward")
    assert isinstance(plain.value.__cause__, ZeroDivisionError)


def test_math_domain_error_is_reported_at_the_line(model):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(model.math_log, debug=True)(2.0)
    assert (info.value.location.line, info.value.sweep) == (LINES["math_log"], "forward")


def test_non_finite_global_is_named_as_the_cause(model):
    with pytest.raises(srcdiff.SrcDiffError, match="non-finite input"):
        srcdiff.grad(model.uses_global, debug=True)(1.0)


@pytest.mark.parametrize("name, args", [
    ("smooth", (0.3, 1.1)),
    ("smooth_sum", (np.linspace(0.0, 1.0, 4), np.full(4, 0.5))),
])
def test_finite_gradients_are_unchanged(model, name, args):
    f = getattr(model, name)
    checked = srcdiff.grad(f, wrt=(0, 1), debug=True)
    plain = srcdiff.grad(f, wrt=(0, 1))
    for i, (got, want) in enumerate(zip(checked(*args), plain(*args))):
        assert_close(got, want)
        assert_close(got, central_difference(f, args, i), rtol=1e-5)


def test_debug_and_plain_variants_never_share_the_cache(model):
    plain = srcdiff.grad(model.smooth)
    checked = srcdiff.grad(model.smooth, debug=True)
    for first, second in ((plain, checked), (checked, plain)):
        first(0.3, 1.1)
        second(0.3, 1.1)
    assert "check_finite" not in plain.source
    assert "check_finite(u, 'forward', 'u'" in checked.source


def test_value_and_grad_in_debug_mode(model):
    value, gradient = srcdiff.value_and_grad(model.smooth, debug=True)(0.3, 1.1)
    assert_close(value, model.smooth(0.3, 1.1))
    assert_close(gradient, central_difference(model.smooth, (0.3, 1.1), 0), rtol=1e-5)


def test_numpy_warnings_give_way_to_the_clearer_error(model):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # any NumPy warning would fail here
        with pytest.raises(srcdiff.SrcDiffError) as info:
            srcdiff.grad(model.log_of_zero, debug=True)(1.5)
    assert info.value.sweep == "forward" and "np.log(d) is -inf" in str(info.value)
