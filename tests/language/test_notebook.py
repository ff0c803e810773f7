"""Jupyter display: a notebook run by nbclient shows a gradient as HTML and a graph as SVG."""

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]

CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport numpy as np\nimport srcdiff",
    "def f(x, y):\n    for _ in range(3):\n        x = np.sin(x) * y\n    return x",
    "df = srcdiff.grad(f)\ndf(0.5, 2.0)\ndf",
    "srcdiff.graph(f)",
    "srcdiff.explain(f, 0.5, 2.0)",
]


def run_notebook(cells, tmp_path, monkeypatch):
    """Execute `cells` in a fresh IPython kernel (this interpreter); the cells' outputs."""
    spec = tmp_path / "kernels" / "srcdiff-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({  # the kernel runs this very interpreter
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "srcdiff", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))  # where the kernel spec above is found
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="srcdiff-test",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    return [cell.outputs for cell in notebook.cells]


def test_notebook_outputs_have_the_right_mime_types(tmp_path, monkeypatch):
    outputs = run_notebook(CELLS, tmp_path, monkeypatch)
    assert not [o for out in outputs for o in out if o.output_type == "error"]
    gradient, graph, page = (outputs[i][-1]["data"] for i in (2, 3, 4))
    assert "text/html" in gradient and "f_grad" in gradient["text/html"]
    assert "image/svg+xml" in graph and "<svg" in graph["image/svg+xml"]
    assert "text/html" in page and "<iframe" in page["text/html"]


CELL_FUNCTIONS = [
    CELLS[0],
    "def loss(params, x):\n    h = np.tanh(x @ params['W'] + params['b'])\n    return np.sum(h ** 2)",
    "class Model:\n    def __init__(self):\n        self.w = np.array([0.5, -1.0, 2.0])\n"
    "    def loss(self, x):\n        return np.sum(np.sin(self.w * x))",
    "rng = np.random.default_rng(0)\n"
    "params = {'W': rng.normal(size=(3, 2)), 'b': rng.normal(size=2)}\nx = rng.normal(size=3)\n"
    "g = srcdiff.grad(loss)(params, x)\n"
    "def fd(name, i, eps=1e-6):\n"
    "    up = {k: v.copy() for k, v in params.items()}; down = {k: v.copy() for k, v in params.items()}\n"
    "    up[name].flat[i] += eps; down[name].flat[i] -= eps\n"
    "    return (loss(up, x) - loss(down, x)) / (2 * eps)\n"
    "ok = all(abs(g[n].flat[i] - fd(n, i)) < 1e-6 for n in params for i in range(params[n].size))\n"
    "m = Model()\ngw = srcdiff.grad(m.loss, wrt='self.w')(x)\n"
    "print('trees', ok, 'method', bool(np.allclose(gw, x * np.cos(m.w * x))))",
]


def test_functions_defined_in_cells_differentiate(tmp_path, monkeypatch):
    outputs = run_notebook(CELL_FUNCTIONS, tmp_path, monkeypatch)
    errors = [o for out in outputs for o in out if o.output_type == "error"]
    assert not errors, errors[0]["evalue"] if errors else ""
    printed = "".join(o.get("text", "") for o in outputs[-1] if o.output_type == "stream")
    assert "trees True method True" in printed


CHECK_CELLS = [
    CELLS[0],
    "def f(x, y):\n    return np.sin(x) * y",
    "srcdiff.check(f, 0.5, 2.0, wrt=(0, 1))",
    "srcdiff.register_adjoint(np.tanh, x='g * 2.0', replace=True)\n"
    "def t(x):\n    return np.tanh(x)\nsrcdiff.check(t, 0.3)",
]


def test_a_check_report_displays_as_html(tmp_path, monkeypatch):
    outputs = run_notebook(CHECK_CELLS, tmp_path, monkeypatch)
    errors = [o for out in outputs for o in out if o.output_type == "error"]
    assert not errors, errors[0]["evalue"] if errors else ""
    proved, wrong = outputs[2][-1]["data"], outputs[3][-1]["data"]
    for data in (proved, wrong):
        assert "text/html" in data and "<table>" in data["text/html"]
        assert "CheckReport(" not in data["text/html"]
    assert "proved" in proved["text/html"] and "cos(x)" in proved["text/html"] and "MISMATCH" not in proved["text/html"]
    assert "MISMATCH" in wrong["text/html"]


def test_a_report_checked_numerically_shows_why_in_html():
    from srcdiff.tools.check_report import CheckReport

    report = CheckReport("f", ("x",), not_symbolic="np.foo has no sympy counterpart <here>")
    text = report._repr_html_()
    assert "<pre>" in text and "np.foo has no sympy counterpart &lt;here&gt;" in text
