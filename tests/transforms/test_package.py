"""A package people can depend on: the wheel installs and runs, and the public API type-checks.

The wheel is built with ``python -m build`` (the dev extra installs it; it fetches the build
backend pyproject.toml names, setuptools>=77, into an isolated environment) from a copy of the
project's files, installed into a fresh virtual environment with nothing else in it, and
runs examples/quickstart.py from outside the repository.  Its dependencies come from the
running interpreter, linked in one by one (numpy, sympy and its mpmath, astor): offline,
and so fast enough for every run; `Requires-Dist` is checked to name them.  mypy (dev extra)
checks a user's typed code against srcdiff's public signatures (srcdiff ships py.typed).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPENDENCIES = ("numpy", "sympy", "mpmath", "astor")


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    if not _has("build"):
        pytest.skip("`build` is not installed (pip install -e '.[dev]')")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "srcdiff", source / "srcdiff", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"),
                           str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (found,) = (work / "dist").glob("srcdiff-*.whl")
    return found


def test_the_wheel_holds_the_package_its_license_and_its_type_marker(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "srcdiff/py.typed" in names
    assert "srcdiff/__init__.py" in names and "srcdiff/tools/cli.py" in names
    assert any(n.startswith("srcdiff/tools/assets/") and n.endswith(".html") for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    required = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    for dependency in ("numpy", "sympy", "astor"):
        assert any(r.startswith(dependency) and "extra ==" not in r for r in required), (dependency, required)
    assert any(r.startswith("scipy") and 'extra == "scipy"' in r for r in required)


@pytest.mark.slow  # a venv and a pip install: seconds of subprocesses (the slow set)
def test_the_wheel_installs_in_a_clean_venv_and_runs_the_quickstart(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    # the dependencies, and nothing else, from this interpreter (the venv cannot download)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    linked = tmp_path / "dependencies"
    linked.mkdir()
    for name in DEPENDENCIES:
        (linked / name).symlink_to(Path(importlib.util.find_spec(name).origin).parent)
    (site / "dependencies.pth").write_text(str(linked) + "\n")
    script = tmp_path / "quickstart.py"  # outside the repository: only the installed srcdiff is importable
    shutil.copy(ROOT / "examples" / "quickstart.py", script)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([str(python), str(script)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "gradient at w = 0:" in done.stdout and "def loss_grad(w, X, y):" in done.stdout
    where = subprocess.run([str(python), "-c", "import srcdiff; print(srcdiff.__file__)"], capture_output=True,
                           text=True, cwd=tmp_path, env=env, check=True).stdout.strip()
    assert Path(where).is_relative_to(venv), where


USER_CODE = textwrap.dedent('''\
    """A user's typed code: mypy checks it against srcdiff's public signatures."""
    import numpy as np

    import srcdiff
    from srcdiff import GradFunction, SrcDiffError


    def loss(w: np.ndarray, x: np.ndarray) -> float:
        return float(np.sum(np.tanh(x @ w) ** 2))


    df: GradFunction = srcdiff.grad(loss)
    dfs = srcdiff.grad(loss, wrt=(0, "x"), debug=False, jit=None)
    value_and_gradient = srcdiff.value_and_grad(loss, wrt="w")
    source: str = df.source
    jac = srcdiff.jacobian(np.sin, wrt=0)
    hess = srcdiff.hessian(loss)
    out = srcdiff.jvp(np.sin, (1.0,), (1.0,))
    pair = srcdiff.vjp(loss, np.ones(2), np.ones((3, 2)))
    product = srcdiff.hvp(loss, np.ones(2), np.ones(2), np.ones((3, 2)))
    frozen = srcdiff.stop_gradient(np.ones(3))
    srcdiff.register_adjoint(np.tanh, x="g * (1 - ans ** 2)", replace=True)
    srcdiff.clear_cache()
    info = srcdiff.cache_info()
    try:
        df(np.ones(2), np.ones((3, 2)))
    except SrcDiffError as exc:
        print(exc)
''')


@pytest.mark.slow  # mypy in a subprocess, ~20 s; the default run type-checks a user's script in test_public_types.py
def test_the_public_api_type_checks_for_a_user(tmp_path):
    if not _has("mypy"):
        pytest.skip("mypy is not installed (pip install -e '.[dev]')")
    (tmp_path / "user_code.py").write_text(USER_CODE)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental",
                           "--cache-dir", os.devnull, "user_code.py"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # mypy in a subprocess: seconds (the slow set)
def test_mypy_rejects_a_misuse_of_the_public_api(tmp_path):
    """The check above can fail: a misuse the signatures forbid is reported."""
    if not _has("mypy"):
        pytest.skip("mypy is not installed (pip install -e '.[dev]')")
    (tmp_path / "misuse.py").write_text("import srcdiff\n\nsource: int = srcdiff.grad(abs).source\n"
                                        "srcdiff.grad(abs, debug='yes')\n")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental",
                           "--cache-dir", os.devnull, "misuse.py"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "misuse.py:4" in done.stdout  # debug is annotated bool
