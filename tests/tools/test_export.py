"""`srcdiff.export`: the gradient as a standalone module that needs only NumPy.

Every function of tests/export_set.py is exported; the modules are then imported by a
separate Python started with ``-I -S`` and a path holding only NumPy and the user's module
folder (no srcdiff, sympy or astor), and must return the same gradients as srcdiff.
"""

import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from export_set import SET
from export_trees_set import TREE_SET
from modules import import_source

import srcdiff
from srcdiff.tools.cli import main as cli_main

HERE = Path(__file__).parents[1]  # tests/, where export_set.py is
RUFF = Path(sys.executable).with_name("ruff")


def numpy_only_path(folder: Path) -> Path:
    """A folder holding NumPy (linked) and nothing else from site-packages."""
    site = Path(np.__file__).parent.parent
    only = folder / "numpy_only"
    only.mkdir()
    for name in ("numpy", "numpy.libs"):
        if (site / name).exists():
            (only / name).symlink_to(site / name)
    return only


DRIVER = textwrap.dedent("""
    import importlib, pickle, sys
    sys.path[:0] = sys.argv[1:4]
    for banned in ("srcdiff", "sympy", "astor"):
        try:
            importlib.import_module(banned)
        except ImportError:
            pass
        else:
            raise SystemExit(f"{banned} is importable")
    cases = pickle.load(open(sys.argv[4], "rb"))
    results = {}
    for name, args in cases.items():
        module = importlib.import_module(f"{name}_grad")
        results[name] = getattr(module, f"{name}_grad")(*args)
    assert not [m for m in sys.modules if m.split(".")[0] in ("srcdiff", "sympy", "astor")]
    pickle.dump(results, open(sys.argv[5], "wb"))
""")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exported")
    for name, func, args, wrt in SET:
        srcdiff.export(func, *args, wrt=wrt, path=folder / f"{name}_grad.py")
    return folder


def _same(got, want):
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for key in want:
            _same(got[key], want[key])
        return
    if isinstance(want, list) or hasattr(want, "_fields") or hasattr(want, "__dataclass_fields__"):
        assert type(got) is type(want)
        fields = want if isinstance(want, list) else [getattr(want, f) for f in
                                                        (getattr(want, "_fields", None) or want.__dataclass_fields__)]
        mine = got if isinstance(got, list) else [getattr(got, f) for f in
                                                   (getattr(got, "_fields", None) or got.__dataclass_fields__)]
        _same(tuple(mine), tuple(fields))
        return
    if want is None:
        assert got is None
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want) or (np.ndim(got) == np.ndim(want) == 0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_exported_modules_need_only_numpy_and_give_srcdiffs_gradients(exported, tmp_path):
    only = numpy_only_path(tmp_path)
    cases = {name: args for name, _, args, _ in SET}
    (tmp_path / "cases.pkl").write_bytes(pickle.dumps(cases))
    (tmp_path / "driver.py").write_text(DRIVER)
    done = subprocess.run([sys.executable, "-I", "-S", str(tmp_path / "driver.py"), str(only), str(exported),
                           str(HERE), str(tmp_path / "cases.pkl"), str(tmp_path / "out.pkl")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = pickle.loads((tmp_path / "out.pkl").read_bytes())
    for name, func, args, wrt in SET:
        _same(results[name], srcdiff.grad(func, wrt=wrt)(*args))


def test_trees_methods_and_objects_are_exported_with_their_structure(tmp_path):
    """A function of dicts, namedtuples and dataclasses, a bound method (``self`` comes
    first), an unbound one: the module takes the trees and returns gradients shaped like them."""
    folder = tmp_path / "exported"
    folder.mkdir()
    for name, func, args, wrt, _ in TREE_SET:
        srcdiff.export(func, *args, wrt=wrt, path=folder / f"{name}_grad.py")
    only = numpy_only_path(tmp_path)
    cases = {name: (f"{func.__name__}_grad", args if bound is None else bound + args)
             for name, func, args, _, bound in TREE_SET}
    (tmp_path / "cases.pkl").write_bytes(pickle.dumps(cases))
    driver = DRIVER.replace("for name, args in cases.items():", "for name, (function, args) in cases.items():")
    (tmp_path / "driver.py").write_text(driver.replace('getattr(module, f"{name}_grad")', "getattr(module, function)"))
    done = subprocess.run([sys.executable, "-I", "-S", str(tmp_path / "driver.py"), str(only), str(folder),
                           str(HERE), str(tmp_path / "cases.pkl"), str(tmp_path / "out.pkl")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = pickle.loads((tmp_path / "out.pkl").read_bytes())
    for name, func, args, wrt, _ in TREE_SET:
        _same(results[name], srcdiff.grad(func, wrt=wrt)(*args))
    text = (folder / "bound_method_grad.py").read_text()
    assert "def loss_grad(self, x):" in text and "self.w" in text
    if RUFF.exists():
        files = sorted(str(p) for p in folder.glob("*_grad.py"))
        lint = subprocess.run([str(RUFF), "check", "--isolated", "--select", "E,F,W,B", "--line-length", "120",
                               *files], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout


def test_exported_modules_pass_ruff(exported):
    if not RUFF.exists():
        pytest.skip("ruff is not installed")
    files = sorted(str(p) for p in exported.glob("*_grad.py"))
    done = subprocess.run([str(RUFF), "check", "--isolated", "--select", "E,F,W,B", "--line-length", "120",
                           *files], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_the_header_says_what_the_module_comes_from(exported):
    text = (exported / "mlp_grad.py").read_text()
    assert text.startswith('"""Gradient of export_set.mlp with respect to W1, b1, W2, b2.')
    assert "from export_set.py:27" in text and "mlp_grad(W1, b1, W2, b2, X, y) returns" in text
    assert "srcdiff" not in "".join(line for line in text.splitlines() if line.startswith(("import", "from")))


def test_a_module_constant_is_read_from_the_users_module_when_called(exported):
    text = (exported / "global_constant_grad.py").read_text()
    assert "import export_set" in text and "    SCALE = export_set.SCALE" in text  # not copied when imported


def test_small_helpers_are_inlined_in_the_module(exported):
    text = (exported / "helper_two_shapes_grad.py").read_text()
    defined = [line for line in text.splitlines() if line.startswith(("def step", "def helper"))]
    assert defined == ["def helper_two_shapes_grad(x, v):"]


def test_callee_adjoints_are_in_the_module(tmp_path):
    from modules import import_source

    module = import_source(tmp_path, """
        import numpy as np


        def bent_with(scale):
            def bent(y, k):  # a closure: the helper keeps an adjoint of its own
                if k > 0.0:
                    return scale * y * np.cos(k * y)
                return y
            return bent


        bent = bent_with(1.0)


        def two_shapes(x, v):
            return bent(x, 2.0) + np.sum(bent(v, 2.0))
        """, "bent_export")
    path = tmp_path / "two_shapes_grad.py"
    srcdiff.export(module.two_shapes, 0.5, np.ones(3), path=str(path))
    defined = [line for line in path.read_text().splitlines()
               if line.startswith("def ") and not line.startswith("def check_argument(")]  # the kinds' check
    assert defined[:2] == ["def two_shapes_grad(x, v):", "def bent_vjp(y, k):"]
    assert all(line.startswith("def bent_vjp") for line in defined[1:])
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    expected = srcdiff.grad(module.two_shapes)(0.5, np.ones(3))
    assert namespace["two_shapes_grad"](0.5, np.ones(3)) == expected


def test_command_line_export(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text("import numpy as np\n\n\ndef loss(w, x):\n    return np.sum(np.tanh(x @ w) ** 2)\n")
    out = tmp_path / "loss_grad.py"
    status = cli_main(["export", f"{model}:loss", "--args", "np.ones(3), np.ones((4, 3))", "-o", str(out)])
    assert status == 0, capsys.readouterr()
    text = out.read_text()
    assert "import srcdiff" not in text and "from srcdiff" not in text
    namespace = {}
    exec(compile(text, str(out), "exec"), namespace)
    w, x = np.linspace(-0.5, 0.5, 3), np.arange(12.0).reshape(4, 3) / 10
    t = np.tanh(x @ w)
    np.testing.assert_allclose(namespace["loss_grad"](w, x), x.T @ (2 * t * (1 - t * t)), rtol=1e-12)


def _model(tmp_path, body="np.sum(np.tanh(x @ w) ** 2)"):
    model = tmp_path / "stale_model.py"
    model.write_text(f"import numpy as np\n\n\ndef loss(w, x):\n    return {body}\n")
    return model


def test_export_check_reports_a_stale_module(tmp_path, capsys):
    model, out = _model(tmp_path), tmp_path / "loss_grad.py"
    argv = ["export", f"{model}:loss", "--args", "np.ones(3), np.ones((4, 3))", "-o", str(out)]
    assert cli_main(argv) == 0
    header = out.read_text().split('"""')[1]
    assert re.search(r"^Source sha256: [0-9a-f]{64}$", header, re.MULTILINE)
    capsys.readouterr()
    assert cli_main(argv + ["--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    _model(tmp_path, "np.sum(np.sin(x @ w) ** 2)")  # the source changes: the module is stale
    sys.modules.pop("stale_model", None)
    assert cli_main(argv + ["--check"]) == 1
    assert "stale" in capsys.readouterr().out
    assert cli_main(argv) == 0 and cli_main(argv + ["--check"]) == 0  # regenerated: up to date again


def test_export_check_without_a_module_or_without_a_hash(tmp_path, capsys):
    model, out = _model(tmp_path), tmp_path / "loss_grad.py"
    argv = ["export", f"{model}:loss", "--args", "np.ones(3), np.ones((4, 3))", "-o", str(out), "--check"]
    assert cli_main(argv) == 1 and "does not exist" in capsys.readouterr().out
    out.write_text('"""An old export."""\n')
    assert cli_main(argv) == 1 and "no source hash" in capsys.readouterr().out


def test_the_hash_covers_called_user_functions(tmp_path):
    from srcdiff.tools.export import module_source
    from srcdiff.tools.export_check import recorded_hash

    module = tmp_path / "hash_callees.py"
    helper = "def helper(v):\n    s = 0.0\n    for i in range(3):\n        s = s + np.sin(v * i)\n    return s\n"
    main = "\n\ndef outer(x):\n    return helper(x) * x\n"
    module.write_text("import numpy as np\n\n\n" + helper + main)
    first = recorded_hash(module_source(import_source(tmp_path, module.read_text(), "hash_a").outer, 0.5))
    changed = helper.replace("np.sin", "np.cos")
    second = recorded_hash(module_source(import_source(tmp_path, "import numpy as np\n\n\n" + changed + main,
                                                       "hash_b").outer, 0.5))
    assert first and second and first != second


@pytest.mark.parametrize("args, bad, message", [
    ((np.ones(3), np.ones((4, 3))), (2.0, np.ones((4, 3))), "w must be a NumPy array of ndim 1"),
    ((np.ones(3), np.ones((4, 3))), ([1.0, 1.0, 1.0], np.ones((4, 3))), "not list"),
    ((np.ones(3), np.ones((4, 3))), (np.ones(3), np.ones(3)), "x must be a NumPy array of ndim 2"),
    ((np.ones(3), 2.0), (np.ones(3), np.ones(2)), "x must be a number"),
])
def test_a_wrong_argument_kind_is_a_clear_error(tmp_path, args, bad, message):
    from srcdiff.tools.export import module_source

    module = import_source(tmp_path, "import numpy as np\n\n\ndef kinds(w, x):\n    return np.sum(x * w) ** 2\n",
                           f"kinds_{len(message)}")
    namespace = {}
    exec(compile(module_source(module.kinds, *args), "kinds_grad.py", "exec"), namespace)
    good = namespace["kinds_grad"](*args)
    np.testing.assert_allclose(good, srcdiff.grad(module.kinds)(*args))
    with pytest.raises(TypeError, match=re.escape(message)):
        namespace["kinds_grad"](*bad)
