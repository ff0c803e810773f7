"""The public API type-checks: mypy over srcdiff/api and the package root (the configuration
in pyproject.toml) is clean, and a user's script sees the real signatures (py.typed)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mypy", reason="mypy is in the dev extra")


def mypy(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("mypy_cache")


def test_the_public_api_type_checks(cache):
    done = mypy(cache=cache)  # files and options from pyproject.toml's [tool.mypy]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues found" in done.stdout


def test_a_users_script_sees_the_signatures(cache, tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""\
        import srcdiff


        def f(x):
            return x * x


        g = srcdiff.grad(f)
        text: str = g.source
        wrong: int = srcdiff.jacobian(f).source
        report = srcdiff.gradcheck(f, 1.0)
        srcdiff.explain(f, 1.0, html=3, nonsense_keyword_is_fine=1)
        srcdiff.jacobian(f, wrt=0).source.upper()
        srcdiff.grad(f, wrt=0, unknown_option=True)
        """))
    done = mypy("--follow-imports=silent", "--ignore-missing-imports", str(script), cache=cache)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    # the two mistakes, and nothing else: a Jacobian's source is a str, not an int; grad
    # takes no such keyword
    assert len(errors) == 2, done.stdout
    assert 'user_script.py:10: error: Incompatible types in assignment (expression has type "str"' in errors[0]
    assert "user_script.py:14: error: Unexpected keyword argument \"unknown_option\"" in errors[1]
