"""Checks of the benchmark suite itself (fast; run with ``pytest benchmarks``).

* every hand-written gradient agrees with float64 central differences on a
  small instance of its problem;
* every peer's version of a problem (when the peer is installed) gives the
  hand-written gradient on the same small instance;
* srcdiff gives the hand-written gradient on every problem (a SrcDiffError on a
  benchmark problem fails the test: a regression that refuses a problem is red);
* ``run.py --quick`` runs end to end on one problem.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import peers
import problems
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

NAMES = [p.name for p in problems.PROBLEMS]


def central_differences(f, args, index, eps=1e-6):
    """d f / d args[index] by central differences, same shape as the argument."""
    arg = args[index]

    def f_at(value):
        return f(*args[:index], value, *args[index + 1:])

    if isinstance(arg, float):
        return (f_at(arg + eps) - f_at(arg - eps)) / (2 * eps)
    grad = np.zeros_like(arg)
    for i in np.ndindex(arg.shape):
        plus, minus = arg.copy(), arg.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (f_at(plus) - f_at(minus)) / (2 * eps)
    return grad


def as_tuple(grad):
    return grad if isinstance(grad, tuple) else (grad,)


def assert_close(actual, expected, rtol=1e-6, atol=1e-8):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert np.shape(a) == np.shape(e)
        np.testing.assert_allclose(np.asarray(a, dtype=float), e, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", NAMES)
def test_hand_written_gradient_matches_central_differences(name):
    problem = problems.by_name(name)
    f, grad = problem.functions(problems)
    args = problem.args(small=True)
    expected = tuple(central_differences(f, args, i) for i in problem.wrt)
    assert_close(as_tuple(grad(*args)), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["scalar_loop", "mse_128x1"])
def test_hand_written_gradient_matches_at_benchmark_size(name):
    problem = problems.by_name(name)
    f, grad = problem.functions(problems)
    args = problem.args()
    expected = tuple(central_differences(f, args, i) for i in problem.wrt)
    assert_close(as_tuple(grad(*args)), expected, rtol=1e-5, atol=1e-7)


def test_problem_table_is_consistent():
    assert len(set(NAMES)) == len(NAMES)
    for problem in problems.PROBLEMS:
        f, grad = problem.functions(problems)
        assert callable(f) and callable(grad)
        assert problem.memory == (problem.name == "rosenbrock_1e6")


@pytest.mark.parametrize("peer_name", [p.name for p in peers.PEERS])
def test_peer_versions_match_hand_written(peer_name):
    peer = peers.by_name(peer_name)
    reason = peer.unavailable()
    if reason:
        pytest.skip(reason)
    failures = []
    for problem in problems.PROBLEMS:
        if peer.checked and problem.name not in peer.checked:
            continue
        args = problem.args(small=True)
        _, grad = problem.functions(problems)
        try:
            converted = peer.convert_args(args, problem)
            df = peer.make_grad(problem, problems, converted)
            got = peer.to_numpy(df(*converted))
        except Exception as exc:  # noqa: BLE001  tangent may refuse a problem: run.py reports it
            if peer.may_fail:
                continue
            failures.append(f"{problem.name}: {type(exc).__name__}: {exc}")
            continue
        try:
            assert_close(got, as_tuple(grad(*args)), rtol=1e-6, atol=1e-9)
        except AssertionError as exc:
            failures.append(f"{problem.name}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", NAMES)
def test_srcdiff_matches_hand_written(name):
    reason = peers.SRCDIFF.unavailable()
    if reason:
        pytest.skip(reason)
    import srcdiff

    problem = problems.by_name(name)
    args = problem.args(small=True)
    _, grad = problem.functions(problems)
    try:
        df = peers.SRCDIFF.make_grad(problem, problems, args)
        got = peers.SRCDIFF.to_numpy(df(*args))
    except srcdiff.SrcDiffError as exc:
        pytest.fail(f"srcdiff refuses benchmark problem {name}: {peers.first_line(exc)}")
    assert_close(got, as_tuple(grad(*args)), rtol=1e-6, atol=1e-9)


def test_runner_quick_smoke(tmp_path):
    out = tmp_path / "table.md"
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "run.py"), "--quick", "--problems", "poly",
         "--contenders", "hand,srcdiff", "--markdown", str(out)],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "poly" in result.stdout and "hand" in result.stdout
    assert "| poly |" in out.read_text()


def test_runner_runs_without_any_peer_installed(tmp_path):
    """Every peer is optional: with none importable, the run still succeeds and says why."""
    blocked = tmp_path / "blocked"
    for name in ("autograd", "jax", "torch", "tangent", "numba"):
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(
            f'raise ModuleNotFoundError("No module named {name!r}", name={name!r})\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "run.py"), "--quick", "--problems", "poly"],
        check=False, capture_output=True, text=True, timeout=120, env=env,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("poly ")]
    for contender in ("autograd", "jax", "jax-jit", "torch", "tangent", "srcdiff-numba"):
        row = next(r for r in rows if r.split()[1] == contender)
        assert "not installed" in row
    assert any(r.split()[1] == "srcdiff" and "n/a" not in r for r in rows)


@pytest.mark.parametrize("page", ["README.md", "docs/comparison.md"])
def test_the_table_in_the_docs_is_the_summary_of_the_results(page):
    import summarize

    table = summarize.summary(summarize.read_rows(Path(HERE) / "RESULTS.md"))
    text = (Path(HERE).parent / page).read_text()
    assert table in text, f"paste the output of `python benchmarks/summarize.py` into {page}"


def test_second_order_benchmark_smoke():
    # tiny sizes: every contender's result is checked against srcdiff's inside the script
    result = subprocess.run([sys.executable, os.path.join(HERE, "second_order.py"), "--small", "--rounds", "1"],
                            check=False, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "hvp, Rosenbrock n=50" in result.stdout and "Hessian, MLP" in result.stdout


def test_batching_benchmark_smoke(tmp_path):
    # small sizes: every srcdiff result is checked against a reference inside the script
    out = tmp_path / "results.md"
    out.write_text("# results\n")
    result = subprocess.run([sys.executable, os.path.join(HERE, "batching.py"), "--quick", "--rounds", "1",
                             "--markdown", str(out)], check=False, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.startswith("# results\n") and text.count("<!-- batching: begin -->") == 1
    for case in ("| rosenbrock | 100 |", "pendulum fit hessian 2x2", "jacobian 50->50", "vmap(grad)"):
        assert case in text


@pytest.mark.slow  # a child process compiles with numba until it is killed: 10-15 s
def test_runner_caps_a_compiling_contenders_first_call():
    """A compilation over --budget seconds (tried in a child process, which is killed) makes the
    row n/a with the reason, and the run goes on."""
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "run.py"), "--quick", "--problems", "poly",
         "--contenders", "hand,srcdiff,srcdiff-numba", "--budget", "0.001"],
        check=False, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("poly ")]
    numba_row = next(r for r in rows if r.split()[1] == "srcdiff-numba")
    if "not installed" not in numba_row:
        assert "n/a: compile over 0.001 s" in numba_row
    assert any(r.split()[1] == "srcdiff" and "n/a" not in r for r in rows)
    assert "compile budget: 0.001 s" in result.stdout


def test_hessians_beside_jax_smoke():
    # without JAX each srcdiff Hessian is checked against second differences inside the script
    result = subprocess.run([sys.executable, os.path.join(HERE, "hessians_beside_jax.py"), "--quick"],
                            check=False, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    for program in ("logistic regression", "softmax regression", "Gaussian likelihood", "tanh MLP"):
        assert program in result.stdout
