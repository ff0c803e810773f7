"""srcdiff.trace: every node's value, shape and adjoint, checked against central differences."""

import math

import numpy as np
import pytest
from modules import import_source
from numeric import assert_close, central_difference

import srcdiff

MODEL = """\
import math

import numpy as np


def shared(a, b, c):
    return (a + b) * (a + c)


def mse(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


def scalar(x, y):
    u = math.sin(x) * y
    return u * u + math.exp(y)


def broadcast(a, b):
    return np.sum(np.tanh(a * b))


def with_int(x, n):
    return x ** n
"""

rng = np.random.default_rng(7)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("trace"), MODEL, module_name="trace_model")


CASES = [
    ("shared", (2.0, 3.0, 5.0)),
    ("mse", (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5))),
    ("scalar", (0.7, 1.3)),
    ("broadcast", (rng.normal(size=(4, 1)), rng.normal(size=3))),
]


@pytest.mark.parametrize("name, args", CASES, ids=[c[0] for c in CASES])
def test_parameter_adjoints_match_central_differences(model, name, args):
    f = getattr(model, name)
    run = srcdiff.trace(f, *args)
    assert run.wrt == list(srcdiff.graph(f).params)
    for i, param in enumerate(run.wrt):
        assert_close(run[param].adjoint, central_difference(f, args, i), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name, args", CASES, ids=[c[0] for c in CASES])
def test_output_row_holds_the_value_and_the_seed(model, name, args):
    f = getattr(model, name)
    run = srcdiff.trace(f, *args)
    out = run[run.graph.output]
    assert_close(out.value, f(*args))
    assert out.adjoint == 1.0


def test_intermediate_values_and_adjoints(model):
    run = srcdiff.trace(model.shared, 2.0, 3.0, 5.0)
    # (a + b) * (a + c) at 2, 3, 5: t1 = 5, t2 = 7; d/dt1 = t2, d/dt2 = t1
    assert [(r.name, r.value, r.adjoint) for r in run.rows] == [
        ("a", 2.0, 12.0), ("b", 3.0, 7.0), ("c", 5.0, 5.0),
        ("t1", 5.0, 7.0), ("t2", 7.0, 5.0), ("shared", 35.0, 1.0)]


def test_a_shared_input_sums_one_contribution_per_path(model):
    run = srcdiff.trace(model.shared, 2.0, 3.0, 5.0)
    a = run["a"]
    assert sorted(c.origin for c in a.contributions) == ["t1", "t2"]
    assert sum(c.value for c in a.contributions) == a.adjoint
    lines = run.source.splitlines()
    for c in a.contributions:
        assert lines[c.line - 1].strip() == c.statement
        assert c.statement.startswith("a_bar = ")


def test_wrt_limits_the_adjoints(model):
    run = srcdiff.trace(model.shared, 2.0, 3.0, 5.0, wrt="c")
    assert run.wrt == ["c"]
    assert run["c"].adjoint == 5.0
    assert run["b"].adjoint is None and run["t1"].adjoint is None


def test_integer_arguments_are_not_differentiated_by_default(model):
    run = srcdiff.trace(model.with_int, 1.5, 3)
    assert run.wrt == ["x"]
    assert_close(run["x"].adjoint, central_difference(lambda x: model.with_int(x, 3), (1.5,), 0))


def test_table_lists_every_node_in_order(model):
    run = srcdiff.trace(model.mse, np.ones(3), np.eye(3), np.zeros(3))
    text = run.table()
    lines = text.splitlines()
    assert lines[0] == "trace of mse (adjoints with respect to w, X, y)"
    assert lines[1].split() == ["#", "line", "node", "expression", "shape", "value", "adjoint"]
    names = [line.split()[2] for line in lines[3:]]
    assert names == [r.name for r in run.rows]
    assert "model.py:11" in text and "X @ w - y" in text and "(3,)" in text
    assert "\033[" not in text and "\033[" in run.table(color=True)
    assert str(run) == text


def test_math_results_stay_python_floats(model):
    run = srcdiff.trace(model.scalar, 0.7, 1.3)
    assert isinstance(run["u"].value, float)
    assert math.isclose(run["u"].value, math.sin(0.7) * 1.3)


def test_no_float_argument_is_refused(model):
    with pytest.raises(srcdiff.SrcDiffError, match="float"):
        srcdiff.trace(model.with_int, 2, 3)


def test_command_line_prints_the_table(model, capsys):
    from srcdiff.tools.cli import main

    target = f"{model.__file__}:shared"
    assert main(["trace", target, "--args", "2.0, 3.0, 5.0"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "trace of shared (adjoints with respect to a, b, c)"
    assert out == str(srcdiff.trace(model.shared, 2.0, 3.0, 5.0)) + "\n"
    assert main(["trace", target, "--args", "2.0, 3.0, 5.0", "--wrt", "c"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "trace of shared (adjoints with respect to c)"


def test_calls_to_other_user_functions_are_traced_as_nested_frames(tmp_path):
    module = import_source(tmp_path, "def helper(x):\n    return x * x\n\n\ndef outer(x):\n    return helper(x) + x\n",
                           "calls", "trace_calls")
    run = srcdiff.trace(module.outer, 2.0)
    assert run["x"].adjoint == 5.0  # 2x + 1
    frame = run["t1"].frame
    assert frame.graph.name == "helper" and frame["x"].adjoint == 4.0
    assert "↳ helper" in run.table()
