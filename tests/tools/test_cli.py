"""The command line: python -m srcdiff show|check FILE.py:FUNC."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from srcdiff.rules import TABLE, unary
from srcdiff.tools import cli

ROOT = Path(__file__).resolve().parents[2]

MODEL = textwrap.dedent('''\
    import numpy as np

    DATA = np.array([1.0, 2.0, 3.0])


    def scale(x, y):
        return x * y


    def smooth(x, y=2.0):
        return np.sum(np.sin(x) * y)


    def weighted(w):
        return np.sum(w * DATA)
''')


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "cli_model.py"
    path.write_text(MODEL)
    return path


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_show_prints_the_generated_source(capsys, model):
    status, out, _ = run(capsys, "show", f"{model}:scale", "--wrt", "x,y")
    assert status == 0
    assert out.splitlines()[0] == "def scale_grad(x, y):"
    assert "x_bar = " in out and "return x_bar, y_bar" in out


def test_show_with_args_prints_the_specialised_source(capsys, model):
    status, generic, _ = run(capsys, "show", f"{model}:smooth")
    status, special, _ = run(capsys, "show", f"{model}:smooth", "--args", "np.ones(3), 2.0")
    assert status == 0
    assert "unbroadcast" in generic and "unbroadcast" not in special


def test_check_prints_both_reports_and_succeeds(capsys, model):
    status, out, _ = run(capsys, "check", f"{model}:scale", "--args", "1.5, -2.0", "--wrt", "0,y")
    assert status == 0
    assert "srcdiff.check scale wrt x, y: proved equal to sympy's derivative" in out
    assert "srcdiff.gradcheck scale: agrees with float64 central differences" in out


def test_check_uses_defaults_when_every_parameter_has_one(capsys, tmp_path):
    path = tmp_path / "defaults.py"
    path.write_text("import numpy as np\n\ndef f(x=0.5, y=2.0):\n    return np.sin(x) * y\n")
    status, out, _ = run(capsys, "check", f"{path}:f")
    assert status == 0 and "proved" in out


def test_check_without_args_or_defaults_is_a_clear_error(capsys, model):
    status, out, err = run(capsys, "check", f"{model}:smooth")
    assert status == 2 and out == ""
    assert "check needs argument values" in err and "no default for x" in err and "--args" in err


def test_args_may_use_numpy_and_the_files_names_and_ints_mean_floats(capsys, model):
    status, out, _ = run(capsys, "check", f"{model}:weighted", "--args", "DATA * 2")
    assert status == 0 and "proved" in out
    status, out, _ = run(capsys, "check", f"{model}:scale", "--args", "1, 2")
    assert status == 0 and "proved" in out


def test_check_exits_1_on_a_wrong_rule(capsys, model):
    old = TABLE.register(unary(np.sin, x="-g * np.cos(x)"), replace=True)
    try:
        status, out, _ = run(capsys, "check", f"{model}:smooth", "--args", "np.array([0.3, 0.9])")
    finally:
        TABLE.register(old, replace=True)
    assert status == 1
    assert "MISMATCH with sympy's derivative in x" in out and "MISMATCH in x" in out


STEPPED = textwrap.dedent('''\
    import numpy as np


    def stepped(x):
        return np.sum(np.sin(x) * np.floor(x))
''')


def test_check_exits_0_when_sympy_cannot_evaluate_and_central_differences_agree(capsys, tmp_path):
    path = tmp_path / "stepped.py"  # np.floor has no sympy counterpart: not symbolic
    path.write_text(STEPPED)
    status, out, _ = run(capsys, "check", f"{path}:stepped", "--args", "np.array([0.3, 1.9])")
    assert "srcdiff.check stepped wrt x: not symbolic" in out
    assert "srcdiff.gradcheck stepped: agrees with float64 central differences" in out
    assert status == 0


def test_check_exits_1_when_sympy_cannot_evaluate_and_central_differences_disagree(capsys, tmp_path):
    path = tmp_path / "stepped.py"
    path.write_text(STEPPED)
    old = TABLE.register(unary(np.sin, x="-g * np.cos(x)"), replace=True)
    try:
        status, out, _ = run(capsys, "check", f"{path}:stepped", "--args", "np.array([0.3, 1.9])")
    finally:
        TABLE.register(old, replace=True)
    assert "not symbolic" in out and "MISMATCH in x" in out
    assert status == 1


def test_show_does_not_import_sympy(model):
    code = ("import runpy, sys\n"
            f"sys.argv = ['srcdiff', 'show', {str(model) + ':scale'!r}]\n"
            "try:\n    runpy.run_module('srcdiff', run_name='__main__')\n"
            "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
            "print('sympy' in sys.modules, 'mpmath' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.splitlines()[-1] == "False False", done.stdout


@pytest.mark.parametrize("target, message", [
    ("no_colon.py", "is not of the form FILE.py:FUNC"),
    ("missing.py:f", "no such file"),
])
def test_bad_targets_are_clear_errors(capsys, tmp_path, target, message):
    status, _, err = run(capsys, "show", tmp_path / target)
    assert status == 2 and message in err


def test_unknown_function_is_a_clear_error(capsys, model):
    status, _, err = run(capsys, "show", f"{model}:nope")
    assert status == 2 and "has no function 'nope'" in err


def test_a_subcommand_is_one_entry_in_commands(capsys, model, monkeypatch):
    def setup(parser):
        cli.add_target_arguments(parser)

    def run_names(ns):
        print(cli.load_target(ns).func.__name__)
        return 0

    monkeypatch.setitem(cli.COMMANDS, "name", cli.Command("print the function's name", setup, run_names))
    assert run(capsys, "name", f"{model}:scale") == (0, "scale\n", "")


def test_python_dash_m_checks_the_quickstart():
    quickstart = ROOT / "examples" / "quickstart.py"
    if not quickstart.exists():
        pytest.skip("examples/quickstart.py is not written yet")
    done = subprocess.run(
        [sys.executable, "-m", "srcdiff", "check", f"{quickstart}:loss", "--args",
         "np.zeros(3), np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0])"],
        capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "srcdiff.check loss wrt w: proved equal to sympy's derivative" in done.stdout


RK4 = textwrap.dedent('''\
    import numpy as np


    def rk4(y0, k=0.3, h=0.1, steps=3):
        y = y0
        for _ in range(steps):
            k1 = -k * y * y + np.sin(y)
            a = y + 0.5 * h * k1
            k2 = -k * a * a + np.sin(a)
            b = y + 0.5 * h * k2
            k3 = -k * b * b + np.sin(b)
            c = y + h * k3
            k4 = -k * c * c + np.sin(c)
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return np.sum(y * y)
''')


def test_check_exits_0_when_sympy_gives_up_and_central_differences_agree(capsys, tmp_path):
    path = tmp_path / "cli_ode.py"  # (a module name no other test or page imports)
    path.write_text(RK4)
    status, out, err = run(capsys, "check", f"{path}:rk4", "--args", "np.array([0.5, 1.0])", "--timeout", "1")
    assert status == 0, out
    assert "srcdiff.check rk4 wrt y0: gave up symbolically after 1 s, checked numerically" in out
    assert out.count("srcdiff.gradcheck rk4: agrees with float64 central differences") == 1
    assert "srcdiff.check rk4: gave up symbolically after 1 s" in err  # progress, on standard error


def test_check_exits_1_when_the_float_gradient_fails_where_sympy_proves_the_formula(capsys, model):
    old = TABLE.register(unary(np.sin, x="g * np.cos(x) * (x / x)"), replace=True)  # NaN at x == 0
    try:
        status, out, _ = run(capsys, "check", f"{model}:smooth", "--args", "np.array([0.3, 0.0])")
    finally:
        TABLE.register(old, replace=True)
    assert status == 1
    assert "MISMATCH at element [1], at your arguments" in out and "is nan where smooth is finite" in out


LOOPS = textwrap.dedent('''\
    import math


    def power(x, n):
        s = x
        for i in range(n):
            s = s * x
        return s


    def summed(x, n):
        s = 0.0
        for i in range(n):
            s = s + math.sin(x * i)
        return s * 2.0
''')


@pytest.fixture
def loops(tmp_path):
    path = tmp_path / "cli_loops.py"
    path.write_text(LOOPS)
    return path


@pytest.mark.parametrize("func, args, adjoint", [
    ("power", "1.5, 4", 5 * 1.5 ** 4),                       # d/dx x**5
    ("power", "2.0, 0", 1.0),
    ("summed", "0.5, 3", 2 * sum(i * np.cos(0.5 * i) for i in range(3))),
])
def test_trace_keeps_an_integer_argument_an_integer(capsys, loops, func, args, adjoint):
    status, out, err = run(capsys, "trace", f"{loops}:{func}", "--args", args)
    assert status == 0, err
    assert out.splitlines()[0] == f"trace of {func} (adjoints with respect to x)"  # n is not differentiated
    x_row = next(line for line in out.splitlines() if line.split()[2:4] == ["x", "(parameter)"])
    assert np.isclose(float(x_row.split()[-1] if "(sum" not in x_row else x_row.split()[-4]), adjoint, rtol=1e-3)
    assert "Const(" not in out  # constants print as written
    if func == "summed":
        assert "(carried: 0.0 at first" in out


@pytest.mark.parametrize("func", ["power", "summed"])
def test_graph_walk_through_keeps_an_integer_argument_an_integer(capsys, loops, tmp_path, func):
    out_file = tmp_path / "walk.html"
    status, out, err = run(capsys, "graph", f"{loops}:{func}", "--args", "1.25, 3", "-o", out_file)
    assert status == 0, err
    assert out_file.read_text().startswith("<!DOCTYPE html>") or "<html" in out_file.read_text()[:500]


def test_trace_and_graph_integers_with_wrt_given(capsys, loops):
    status, out, err = run(capsys, "trace", f"{loops}:power", "--args", "2, 3", "--wrt", "x")
    assert status == 0, err  # a differentiated integer means a float, as in show and check
    assert "adjoints with respect to x" in out.splitlines()[0]
