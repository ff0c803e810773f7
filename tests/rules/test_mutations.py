"""The mutation audit, reproduced: each deliberate bug must make at least one test fail.

Each case applies one small source mutation to a copy of the package in a temporary folder
and runs a targeted subset of the tests against that copy; the subset must fail.  A last
case runs every subset against the unmutated copy, which must pass (so a "killed" mutant
is not a broken test).  Slow (minutes): deselected by default, run with

    python -m pytest -m slow tests/rules/test_mutations.py

docs/testing.md lists the mutations and the tool-driven mutation run (mutmut).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # inside srcdiff/
    old: str
    new: str
    tests: tuple[str, ...]  # pytest arguments: the targeted subset


M = Mutation
MUTATIONS = [
    # ---- rule templates off by a factor or a term ----
    M("sin adjoint off by a factor", "rules/numpy_elementwise.py",
      'unary(np.sin,          x="g * np.cos(x)",', 'unary(np.sin,          x="2.0 * g * np.cos(x)",',
      ("tests/rules/test_numpy_rules.py", "-k", "sin")),
    M("multiply adjoint with an extra term", "rules/numpy_elementwise.py",
      'binary(np.multiply,    x="g * y",', 'binary(np.multiply,    x="g * y + g",',
      ("tests/rules/test_numpy_rules.py", "-k", "multiply")),
    M("division's y adjoint with the wrong sign", "rules/operators.py",
      'binary(operator.truediv, x="g / y",                 y="-g * ans / y",',
      'binary(operator.truediv, x="g / y",                 y="g * ans / y",',
      ("tests/rules/test_numpy_rules.py", "-k", "truediv")),
    M("variance adjoint off by a factor", "rules/numpy_reductions.py",
      '* 2.0 * (x - np.mean(x, axis=axis, keepdims=True)) / {count}',
      '* 1.0 * (x - np.mean(x, axis=axis, keepdims=True)) / {count}', ("tests/rules/test_numpy_rules.py", "-k", "var")),
    # ---- accumulation, broadcasting, loops ----
    M("accumulation overwrites", "ad/sweep.py",
      "self.emit(AdjointStmt(name, expr, True, line))", "self.emit(AdjointStmt(name, expr, False, line))",
      ("tests/ad/test_core.py",)),
    M("exact broadcast sum over length-1 axes dropped", "ad/adjoints.py",
      "    if keep:\n        g = np_call(\"sum\"", "    if False:\n        g = np_call(\"sum\"",
      ("tests/ad/test_broadcasting.py",)),
    M("run-time unbroadcast returns the adjoint unsummed", "rules/runtime.py",
      "or np.shape(g) == (shape := np.shape(x)):\n        return g\n",
      "or True:\n        shape = np.shape(x)\n        return g\n",
      ("tests/ad/test_broadcasting.py",)),
    M("backward range loop runs forward", "ad/regions.py",
      'iterator = _call("reversed", _call("range", *[operand_ast(b) for b in loop.bounds]))',
      'iterator = _call("range", *[operand_ast(b) for b in loop.bounds])',
      ("tests/language/test_control_flow.py",)),
    M("loop stack read first-in first-out", "ad/regions.py",
      'body.append(Assign(list(saved), _call(f"{plan.stack}.pop")))',
      'body.append(Assign(list(saved), _call(f"{plan.stack}.pop", ast.Constant(0))))',
      ("tests/language/test_control_flow.py",)),
    M("np.where masks swapped", "rules/numpy_elementwise.py",
      '{"x": "np.where(condition, g, 0.0)", "y": "np.where(condition, 0.0, g)"}',
      '{"x": "np.where(condition, 0.0, g)", "y": "np.where(condition, g, 0.0)"}',
      ("tests/rules/test_numpy_rules.py", "-k", "where")),
    # ---- the checks' reports ----
    M("check accepts a difference that is a constant", "tools/check_compare.py",
      "    if difference == 0:\n", "    if difference == 0 or not difference.free_symbols:\n",
      ("tests/api/test_promises.py", "-k", "check")),
    M("check's numeric comparison within 1%", "tools/check_compare.py",
      "if abs(a - b) > rtol * max(abs(a), abs(b)) + max(ABS_TOL, share * scale):",
      "if abs(a - b) > 0.01 * max(abs(a), abs(b)) + max(ABS_TOL, share * scale):",
      ("tests/api/test_promises.py", "-k", "check")),
    M("gradcheck reports the largest value, not the worst error", "tools/gradcheck.py",
      "score = np.where(np.isnan(error), np.inf, error / allowed)", "score = np.abs(a)",
      ("tests/api/test_promises.py", "-k", "gradcheck")),
    M("gradcheck's tolerance relative to 100%", "tools/gradcheck.py",
      "allowed = atol + rtol * np.abs(n)", "allowed = atol + np.abs(n)",
      ("tests/api/test_promises.py", "-k", "gradcheck")),
    # ---- the cache key ----
    M("cache key ignores length-1 axes", "ir/shapes.py",
      "tuple([n == 1 for n in shape])", "tuple([False for n in shape])",
      ("tests/ad/test_core.py", "tests/ad/test_broadcasting.py")),
    M("cache key ignores static values", "driver/cache.py",
      "and all(typed(args[names.index(n)]) == typed(v) for n, v in self.statics.items())", "and True",
      ("tests/api/test_library_code.py", "tests/language/test_static_dependencies.py")),
    # ---- exact at special points ----
    M("fmax's NaN clause dropped", "rules/numpy_elementwise.py",
      'selects={"x": ("(x >= y) | np.isnan(y)", True), "y": ("(x <= y) | np.isnan(x)", True)},',
      'selects={"x": ("x >= y", True), "y": ("x <= y", True)},',
      ("tests/api/test_promises.py", "-k", "nan")),
    M("prod's adjoint as ans / x (NaN at zeros)", "rules/numpy_reductions.py",
      'return {"x": "prod_adjoint(g, x, axis, keepdims)"}',
      'return {"x": f"{_spread(\'g\', static)} * {_spread(\'ans\', static)} / x"}',
      ("tests/api/test_promises.py", "-k", "prod")),
    M("max ties shared as if there were never more than two", "rules/numpy_reductions.py",
      "/ np.sum({ties}, axis=axis, keepdims=True)", "/ np.minimum(np.sum({ties}, axis=axis, keepdims=True), 2)",
      ("tests/api/test_promises.py", "-k", "tie")),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A copy of the package and its tests, to copy again and mutate."""
    base = tmp_path_factory.mktemp("pristine")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("srcdiff", "tests", "docs", "examples"):
        if (ROOT / folder).exists():
            shutil.copytree(ROOT / folder, base / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, base / name)
    return base


def run_tests(folder: Path, arguments) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "SRCDIFF_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly",
               "-m", "not slow", *arguments]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def mutated_copy(pristine: Path, where: Path, mutation: Mutation) -> Path:
    shutil.copytree(pristine, where)
    path = where / "srcdiff" / mutation.path
    text = path.read_text()
    assert text.count(mutation.old) == 1, f"{mutation.path}: the text to mutate is not there once"
    path.write_text(text.replace(mutation.old, mutation.new))
    return where


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_every_mutation_finds_its_text_once(mutation):
    """Fast, in the default run: a rule reworded must not leave a mutation that no longer
    applies to be found only by the slow set."""
    text = (ROOT / "srcdiff" / mutation.path).read_text()
    assert text.count(mutation.old) == 1, f"{mutation.path}: {mutation.old!r} is not there exactly once"


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_mutation_fails_a_test(mutation, pristine, tmp_path):
    folder = mutated_copy(pristine, tmp_path / "copy", mutation)
    result = run_tests(folder, mutation.tests)
    assert result.returncode == 1, (f"the mutant survived (exit {result.returncode}):\n"
                                    f"{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
    assert " failed" in result.stdout.splitlines()[-1]


@pytest.mark.slow
def test_the_targeted_tests_pass_without_a_mutation(pristine):
    subsets = {}
    for mutation in MUTATIONS:
        files = tuple(a for a in mutation.tests if a.startswith("tests/"))
        keyword = mutation.tests[mutation.tests.index("-k") + 1] if "-k" in mutation.tests else None
        for file in files:
            subsets.setdefault(file, set()).add(keyword)
    for file, keywords in sorted(subsets.items()):
        arguments = [file] if None in keywords else [file, "-k", " or ".join(sorted(keywords))]
        result = run_tests(pristine, arguments)
        assert result.returncode == 0, f"{arguments}:\n{result.stdout[-3000:]}"
