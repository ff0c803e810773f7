"""The core engine on straight-line code: API, accumulation, broadcasting, errors, caching."""

import math
import sys
import textwrap
import traceback

import numpy as np
import pytest
from numeric import assert_close

import srcdiff

# ---- functions under test (module level: srcdiff reads their source) ----

def seed_example(x, y, b):
    z = x * y
    return z + b


def shared_input(a, b, c):
    return np.sum((a + b) * (a + c))


def broadcast_square(a, b, c):
    return np.sum((a + b + c) ** 2)


def mse(w, b, X, y):
    return ((X @ w + b - y) ** 2).mean()


def scalar_mix(x, y):
    u = math.sin(x) * math.exp(y)
    v = x ** 3 / (1.0 + y * y)
    return u - v + math.sqrt(x * x + 1.0) - math.log(y) + math.tanh(x * y) + math.cos(y) / math.tan(x)


def reassigned(x):
    x = x * 2.0
    x = x * x
    return x


def with_defaults(x, scale=3.0, *, shift=1.0):
    return (x * scale + shift) ** 2


def ignores_second(x, y):
    return x * 2.0


def returns_array(x):
    return x * 2.0


def unknown_call(x):
    y = x * 2.0
    return np.spacing(y)  # (np.frexp has a rule now: rules/numpy_piecewise.py)


def docstring_first(x):
    """A docstring is not code."""
    return x * x


# ---- the generated source ----

def test_seed_example_source_is_golden():
    df = srcdiff.grad(seed_example, wrt=(0, 1, 2))
    assert df(2.0, 3.0, 1.0) == (3.0, 2.0, 1.0)
    line = seed_example.__code__.co_firstlineno
    expected = textwrap.dedent(f"""\
        def seed_example_grad(x, y, b):
            # backward
            # adjoint of test_core.py:{line + 2}  return z + b
            b_bar = 1.0
            # adjoint of test_core.py:{line + 1}  z = x * y
            x_bar = y
            y_bar = x
            return x_bar, y_bar, b_bar
        """)
    assert df.source == expected


def test_generic_source_before_any_call_handles_unknown_shapes():
    source = srcdiff.grad(seed_example).source
    assert "unbroadcast(z_bar * y, x)" in source
    assert "ensure_scalar(seed_example" in source
    assert "y_bar" not in source  # nothing computed that no wrt argument needs


def test_source_is_deterministic():
    args = np.ones(3), 0.5, np.ones((4, 3)), np.ones(4)
    first = srcdiff.grad(mse, wrt=(0, 1)).source_for(*args)
    srcdiff.clear_cache()  # the second source is generated anew, not read from the cache
    before = srcdiff.cache_info()
    second = srcdiff.grad(mse, wrt=(0, 1)).source_for(*args)
    after = srcdiff.cache_info()
    assert (after.transforms, after.variants) == (before.transforms + 1, before.variants + 1)
    assert first == second
    assert "def mse_grad(w, b, X, y):" in first


# ---- gradients against central differences ----

CASES = [
    (seed_example, lambda rng: (1.5, -0.7, 0.3), (0, 1, 2)),
    (shared_input, lambda rng: (rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)), (0, 1, 2)),
    (broadcast_square, lambda rng: (rng.normal(size=(3, 1)), rng.normal(size=3), 0.7), (0, 1, 2)),
    (mse, lambda rng: (rng.normal(size=3), 0.2, rng.normal(size=(5, 3)), rng.normal(size=5)), (0, 1)),
    (scalar_mix, lambda rng: (0.8, 1.3), (0, 1)),
    (reassigned, lambda rng: (0.9,), (0,)),
    (with_defaults, lambda rng: (0.4,), (0,)),
    (ignores_second, lambda rng: (0.4, 2.0), (0, 1)),
    (docstring_first, lambda rng: (float(rng.normal()),), (0,)),
]


@pytest.mark.parametrize("func, make_args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_central_differences(func, make_args, wrt, rng, check_gradient):
    grads = check_gradient(func, make_args(rng), wrt, rtol=1e-5, atol=1e-7)
    assert len(grads) == len(wrt)


def test_shared_input_accumulates_both_paths(rng):
    a, b, c = rng.normal(size=(3, 4))
    ga = srcdiff.grad(shared_input)(a, b, c)
    assert_close(ga, (a + c) + (a + b))  # d/da of (a+b)(a+c), by hand
    source = srcdiff.grad(shared_input).source
    assert "a_bar = a_bar + " in source


def test_broadcast_operands_get_their_own_shapes(rng):
    a, b, c = rng.normal(size=(3, 1)), rng.normal(size=3), 0.7
    ga, gb, gc = srcdiff.grad(broadcast_square, wrt=(0, 1, 2))(a, b, c)
    s = a + b + c
    assert_close(ga, 2 * s.sum(axis=1, keepdims=True))
    assert_close(gb, 2 * s.sum(axis=0))
    assert isinstance(gc, float) and math.isclose(gc, 2 * s.sum())


def test_linear_regression_mse_by_hand(rng):
    X, y, w, b = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=3), 0.3
    gw, gb = srcdiff.grad(mse, wrt=("w", "b"))(w, b, X, y)
    r = X @ w + b - y
    assert_close(gw, 2 * X.T @ r / len(y))
    assert math.isclose(gb, 2 * r.mean())


def test_scalar_code_stays_on_math_and_floats():
    df = srcdiff.grad(scalar_mix, wrt=(0, 1))
    gx, gy = df(0.8, 1.3)
    assert type(gx) is float and type(gy) is float
    assert "np." not in df.source and "unbroadcast" not in df.source


# ---- API ----

def test_wrt_by_index_name_and_tuple():
    args = (1.5, -0.7, 0.3)
    assert srcdiff.grad(seed_example)(*args) == -0.7
    assert srcdiff.grad(seed_example, wrt="y")(*args) == 1.5
    assert srcdiff.grad(seed_example, wrt=-1)(*args) == 1.0
    assert srcdiff.grad(seed_example, wrt=("b", 0))(*args) == (1.0, -0.7)


def test_decorator_forms():
    bare = srcdiff.grad(seed_example)
    with_args = srcdiff.grad(wrt="b")(seed_example)
    assert bare(2.0, 3.0, 1.0) == 3.0
    assert with_args(2.0, 3.0, 1.0) == 1.0


def test_keyword_and_default_arguments():
    df = srcdiff.grad(with_defaults)
    expected = 2 * (0.4 * 3.0 + 1.0) * 3.0
    assert math.isclose(df(0.4), expected)
    assert math.isclose(df(x=0.4, scale=3.0, shift=1.0), expected)
    assert math.isclose(df(0.4, 2.0, shift=0.0), 2 * (0.8) * 2.0)


def test_value_and_grad():
    value, grads = srcdiff.value_and_grad(seed_example, wrt=(0, 1))(2.0, 3.0, 1.0)
    assert value == 7.0 and grads == (3.0, 2.0)


def test_unused_parameter_has_zero_gradient():
    assert srcdiff.grad(ignores_second, wrt=1)(0.4, 2.0) == 0.0
    g = srcdiff.grad(shared_input, wrt=2)(np.ones(3), np.ones(3), np.ones(3))
    assert g.shape == (3,)


def test_inputs_are_left_untouched(rng):
    a, b, c = rng.normal(size=(3, 4))
    copies = a.copy(), b.copy(), c.copy()
    srcdiff.grad(shared_input, wrt=(0, 1, 2))(a, b, c)
    for before, after in zip(copies, (a, b, c)):
        assert np.array_equal(before, after)


def test_two_gradients_never_share_memory():
    def plus(a, b):
        return np.sum(a + b)
    ga, gb = srcdiff.grad(plus, wrt=(0, 1))(np.ones(3), np.ones(3))
    assert not np.shares_memory(ga, gb)


def test_second_call_does_not_transform_again(rng):
    df = srcdiff.grad(shared_input, wrt=1)
    args = rng.normal(size=(3, 5))
    df(*args)
    before = srcdiff.cache_info()
    df(*rng.normal(size=(3, 5)))
    df(*rng.normal(size=(3, 7)))  # a new length reuses the compiled variant too
    after = srcdiff.cache_info()
    assert (after.transforms, after.variants) == (before.transforms, before.variants)
    df(*rng.normal(size=(3, 1)))  # a length-1 axis broadcasts differently: a new variant
    assert srcdiff.cache_info().variants == after.variants + 1


def test_redefined_function_gets_a_new_transform(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "redefined_mod", raising=False)  # from an earlier run's tmp_path
    path = tmp_path / "redefined_mod.py"
    path.write_text("def f(x):\n    return x * x\n")
    import importlib

    import redefined_mod
    assert srcdiff.grad(redefined_mod.f)(3.0) == 6.0
    path.write_text("def f(x):\n    return x * x * x\n")
    import linecache
    linecache.checkcache(str(path))
    importlib.reload(redefined_mod)
    assert srcdiff.grad(redefined_mod.f)(3.0) == 27.0


def test_generated_lines_show_in_tracebacks():
    def global_array(x):
        return x * np.asarray(WEIGHT_LIST)  # the output's shape is known only when it runs

    df = srcdiff.grad(global_array)
    with pytest.raises(srcdiff.SrcDiffError, match="scalar output") as info:
        df(2.0)
    assert line_of(global_array, 1) in str(info.value)
    # the helper's error is raised again at the user's line, chained to the original
    failed = info.value.__cause__ or info.value
    generated = [frame for frame in traceback.extract_tb(failed.__traceback__) if frame.filename.startswith("<srcdiff")]
    assert generated, "no frame of the generated gradient in the traceback"
    frame = generated[-1]
    assert frame.name == "global_array_grad"
    assert frame.line and frame.line.startswith("ensure_scalar(global_array")  # linecache knows the source
    assert frame.line == df.source.splitlines()[frame.lineno - 1].strip()


# ---- errors ----

def line_of(func, offset):
    return f"test_core.py:{func.__code__.co_firstlineno + offset}"


def test_non_scalar_output_is_an_error_with_its_line():
    with pytest.raises(srcdiff.SrcDiffError, match="scalar output") as info:
        srcdiff.grad(returns_array)(np.ones(3))
    assert line_of(returns_array, 1) in str(info.value)


def test_non_scalar_output_of_unknown_shape_is_caught_at_run_time():
    def global_array(x):
        return x * np.asarray(WEIGHT_LIST)
    df = srcdiff.grad(global_array)
    with pytest.raises(srcdiff.SrcDiffError, match="scalar output"):
        df(2.0)
    assert "ensure_scalar(" in df.source


def test_non_scalar_output_with_a_global_array_is_refused_before_it_runs():
    def global_array(x):
        return x * WEIGHTS  # the transform is guarded on the global's shape: known
    with pytest.raises(srcdiff.SrcDiffError, match="scalar output"):
        srcdiff.grad(global_array)(2.0)


WEIGHTS = np.ones(3)
#: a list of an int and floats: what np.asarray makes of it is known only when it runs (a list of floats
#: alone has a signature of its own, shapes.ItemsSignature, and np.asarray of it is known a vector)
WEIGHT_LIST = [1, 1.0, 1.0]


def test_unknown_call_names_function_line_and_registration():
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(unknown_call)(1.0)
    message = str(info.value)
    assert "numpy.spacing" in message and line_of(unknown_call, 2) in message
    assert "register_adjoint" in message


@pytest.mark.parametrize("value", [3, True, np.arange(3), "text"])
def test_non_float_wrt_argument_is_refused(value):
    with pytest.raises(srcdiff.SrcDiffError, match="cannot differentiate"):
        srcdiff.grad(returns_array)(value)


def test_list_wrt_argument_used_whole_is_refused_at_its_line():
    # a list differentiated is a parameter tree: its items are read, never the list whole
    with pytest.raises(srcdiff.SrcDiffError, match="a parameter tree") as info:
        srcdiff.grad(returns_array)([1.0, 2.0])
    assert "test_core.py:" in str(info.value)


def test_bad_wrt_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="out of range"):
        srcdiff.grad(seed_example, wrt=3)
    with pytest.raises(srcdiff.SrcDiffError, match="not a parameter"):
        srcdiff.grad(seed_example, wrt="q")


def test_lambda_without_source_is_refused():
    namespace = {}
    exec("f = lambda x: x * x", namespace)
    with pytest.raises(srcdiff.SrcDiffError, match="cannot read the source"):
        srcdiff.grad(namespace["f"])(1.0)


def test_lambda_with_source_works():
    square = lambda x: x * x  # noqa: E731
    assert srcdiff.grad(square)(3.0) == 6.0


def test_generator_is_refused_without_touching_it():
    def gen(x):
        yield x
    with pytest.raises(srcdiff.SrcDiffError, match="generator") as info:
        srcdiff.grad(gen)(1.0)  # (refused when it is given: a helper's generator is read as its list)
    assert f"test_core.py:{gen.__code__.co_firstlineno}" in str(info.value)


def test_builtin_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="Python functions"):
        srcdiff.grad(math.sin)(1.0)


def local_named_like_a_module(x):
    math = np.sin(x)
    return math * 2.0


def test_a_local_named_like_a_template_module_does_not_shadow_it():
    df = srcdiff.grad(local_named_like_a_module)
    assert math.isclose(df(0.5), 2 * math.cos(0.5))
    assert "math_1 = np.sin(x)" in srcdiff.grad(local_named_like_a_module).source  # shape-generic
    assert "    math = " not in df.source
