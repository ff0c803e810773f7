"""What every test file shares: the gradient checker, a seeded `rng` per test, and a loud
summary of skipped tests.

`tests/` is on ``sys.path`` through the ``pythonpath`` setting in pyproject.toml (so
``from numeric import ...`` works under every ``--import-mode``), but fixtures are the way to
reach what is defined here: ``def test_x(check_gradient, rng): ...``.
"""

from __future__ import annotations

import collections
import copy
import inspect
import os
import sys
import zlib

import costs
import numpy as np
import pytest
import sampling
from numeric import central_difference
from transforms import recording

import srcdiff

# Under pytest-xdist (`-n auto`), each worker keeps its own numba cache folder: two processes
# compiling the same generated module into one folder race on numba's index files.
if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("SRCDIFF_NUMBA_CACHE"):
    os.environ["SRCDIFF_NUMBA_CACHE"] = os.path.join(os.path.expanduser("~"), ".cache", "srcdiff",
                                                     f"numba-{os.environ['PYTEST_XDIST_WORKER']}")

# ---- the one gradient checker ----------------------------------------------------------


def _as_tuple(result, wrt):
    return result if isinstance(wrt, (tuple, list)) else (result,)


def _indices(f, wrt):
    """Positions of the `wrt` parameters (ints or names) among f's parameters."""
    names = list(inspect.signature(f).parameters)  # follows __wrapped__, as srcdiff does
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    return [names.index(w) if isinstance(w, str) else (w % len(names)) for w in items]


def _arrays(value):
    """Every NumPy array inside a value (lists, tuples and dicts are searched)."""
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _arrays(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _arrays(item)


def assert_same_value(actual, expected, what="an input was changed"):
    """Equal in type, shape and every bit (NaN equals NaN)."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), what
        np.testing.assert_array_equal(actual, expected, err_msg=what, strict=True)
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected), what
        for a, e in zip(actual, expected):
            assert_same_value(a, e, what)
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), what
        for key in expected:
            assert_same_value(actual[key], expected[key], what)
    elif isinstance(expected, float) and expected != expected:
        assert actual != actual, what
    else:
        assert actual == expected and type(actual) is type(expected), what


def reference_gradient(f, args, index, eps=1e-6):
    """Float64 central differences of f; every evaluation gets fresh copies (f may mutate)."""
    return central_difference(lambda *a: f(*copy.deepcopy(a)), list(args), index, eps=eps)


def check_gradient(f, args, wrt=0, *, expected=None, gradient=None, debug=False, value=True,
                   rtol=1e-5, atol=1e-6):
    """srcdiff's gradient of ``f`` at ``args`` is right, and behaves as a user relies on.

    * it agrees with float64 central differences (or with `expected`, a hand-written
      gradient, at points where central differences do not give the documented convention);
    * it has the parameter's shape and a float type; an array parameter gets an array;
    * the inputs are left untouched, bit for bit;
    * no returned gradient shares memory with an input or with another returned gradient;
    * a second call (the fast path) gives the same numbers as the first (the slow path);
    * with `value`, ``value_and_grad`` returns f's value and the same gradient;
    * with `debug`, ``grad(f, debug=True)`` gives the same numbers.

    Returns the gradients as a tuple, one per `wrt` entry.
    """
    args = tuple(args)
    recording.record(f, args, wrt)  # SRCDIFF_RECORD_PROGRAMS: the corpus of the transformation matrix
    before = copy.deepcopy(args)
    gradient = gradient or srcdiff.grad(f, wrt=wrt)
    results = _as_tuple(gradient(*args), wrt)
    for arg, old in zip(args, before):
        assert_same_value(arg, old, "an input was changed by the gradient")
    indices = _indices(f, wrt)
    assert len(results) == len(indices), (len(results), len(indices))
    wanted = expected if expected is None or isinstance(wrt, (tuple, list)) else (expected,)
    for k, (index, result) in enumerate(zip(indices, results)):
        param = args[index]
        assert np.shape(result) == np.shape(param), (np.shape(result), np.shape(param))
        assert np.result_type(result).kind == "f", f"gradient is not a float: {result!r}"
        if isinstance(param, np.ndarray) and param.ndim:
            assert isinstance(result, np.ndarray), f"an array parameter got a {type(result).__name__}"
        if isinstance(param, float) and not isinstance(param, np.floating):
            assert not isinstance(result, np.ndarray), "a float parameter got an array"
        reference = reference_gradient(f, args, index) if wanted is None else wanted[k]
        np.testing.assert_allclose(result, reference, rtol=rtol, atol=atol,
                                   err_msg=f"gradient with respect to argument {index}")
        for array in _arrays(result):
            for other in [*_arrays(args), *_arrays(results[k + 1:])]:
                assert not np.shares_memory(array, other), "a gradient shares memory with an input or gradient"
    again = _as_tuple(gradient(*args), wrt)
    for first, second in zip(results, again):
        np.testing.assert_array_equal(first, second, err_msg="the fast path disagrees with the first call")
    for arg, old in zip(args, before):
        assert_same_value(arg, old, "an input was changed by the second call")
    if value:
        got, grads = srcdiff.value_and_grad(f, wrt=wrt)(*copy.deepcopy(args))
        np.testing.assert_allclose(got, f(*copy.deepcopy(args)), rtol=1e-12, atol=0,
                                   err_msg="value_and_grad's value is not f's")
        for a, b in zip(_as_tuple(grads, wrt), results):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300, err_msg="value_and_grad's gradient")
    if debug:
        checked = _as_tuple(srcdiff.grad(f, wrt=wrt, debug=True)(*copy.deepcopy(args)), wrt)
        for first, second in zip(results, checked):  # (the optimizer's exceptions to bitwise: a few ulps)
            np.testing.assert_allclose(first, second, rtol=1e-14, atol=0, err_msg="debug mode changed the gradient")
    return results


def pytest_configure(config):
    if recording.RECORDER is not None:
        config.pluginmanager.register(recording.RECORDER, "srcdiff-program-recorder")
    if (recorder := costs.recorder()) is not None:  # SRCDIFF_TEST_COSTS: measure the default run
        config.pluginmanager.register(recorder, "srcdiff-cost-recorder")


@pytest.fixture(name="check_gradient")
def check_gradient_fixture():
    """The shared gradient checker (see `check_gradient` in tests/conftest.py)."""
    return check_gradient


@pytest.fixture
def table():
    """The shared rule table, left as it was found (rules a test registers are removed)."""
    from srcdiff.rules import TABLE
    before = {r.func for r in TABLE}
    yield TABLE
    for r in list(TABLE):
        if r.func not in before:
            TABLE.remove(r.func)


@pytest.fixture
def rng(request):
    """A generator seeded from the test's own id: the same inputs whatever ran before."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(autouse=True)
def _fresh_gradients_under_mutmut():
    """Under mutmut, each test compiles its own gradients.

    mutmut maps each test to the functions it calls, and later runs only those tests on a
    mutant.  A test that reuses a gradient an earlier test compiled calls none of the code
    that built it, so it would never be run on a mutant of that code.
    """
    if os.environ.get("MUTANT_UNDER_TEST"):
        srcdiff.clear_cache()


@pytest.fixture(autouse=True)
def _forget_modules_from_temporary_folders(tmp_path_factory):
    """A module a test imports from a temporary folder (the command line's target file, a
    docs example) is forgotten afterwards, so that a later test's own file of the same name
    (``model.py``) is the one it imports, whatever the order."""
    before = set(sys.modules)
    yield
    base = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        if str(getattr(sys.modules[name], "__file__", "") or "").startswith(base):
            del sys.modules[name]


# ---- skipped tests, counted by reason ---------------------------------------------------

#: Skip reasons that mean a system package is missing, and the package.  In CI
#: (``SRCDIFF_REQUIRE_SYSTEM_PACKAGES=1``, set by .ci/run) such a skip fails the run.
SYSTEM_PACKAGES = {
    "graphviz": ("graphviz", "`dot`"),
    "chromium": ("chromium", "chromedriver"),
}


def _missing_package(reason: str) -> str | None:
    lowered = reason.lower()
    for package, words in SYSTEM_PACKAGES.items():
        if any(word.lower() in lowered for word in words) and "not installed" in lowered:
            return package
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons = collections.Counter()
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    terminalreporter.section("skips by reason")
    missing = collections.Counter()
    for reason, count in reasons.most_common():
        package = _missing_package(reason)
        if package:
            missing[package] += count
        tag = f"MISSING SYSTEM PACKAGE {package}: " if package else ""
        terminalreporter.write_line(f"{count:4d} skipped  {tag}{reason}")
    if missing:
        names = ", ".join(f"{p} ({n} tests)" for p, n in missing.items())
        terminalreporter.write_line(f"WARNING: test families skipped for a missing system package: {names}",
                                    red=True, bold=True)
        if os.environ.get("SRCDIFF_REQUIRE_SYSTEM_PACKAGES") == "1":
            terminalreporter.write_line("FAILED: SRCDIFF_REQUIRE_SYSTEM_PACKAGES=1 (set by .ci/run) requires them",
                                        red=True, bold=True)


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("SRCDIFF_REQUIRE_SYSTEM_PACKAGES") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if _missing_package(reason):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return


# ---- the default run's samples ---------------------------------------------------------


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection reads the marks
def pytest_collection_modifyitems(config, items):
    """The default run keeps a stable sample of the costly families; `-m slow` runs them all
    (tests/sampling.py)."""
    sampling.mark(config, items)
