"""Jupyter display: a notebook run by nbclient shows a gradient as HTML and a graph as SVG."""

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]

CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport numpy as np\nimport srcdiff",
    "def f(x, y):\n    for _ in range(3):\n        x = np.sin(x) * y\n    return x",
    "df = srcdiff.grad(f)\ndf(0.5, 2.0)\ndf",
    "srcdiff.graph(f)",
    "srcdiff.explain(f, 0.5, 2.0)",
]


def test_notebook_outputs_have_the_right_mime_types(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / "srcdiff-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({  # the kernel runs this very interpreter
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "srcdiff", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))  # where the kernel spec above is found
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="srcdiff-test",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [cell.outputs for cell in notebook.cells]
    assert not [o for out in outputs for o in out if o.output_type == "error"]
    gradient, graph, page = (outputs[i][-1]["data"] for i in (2, 3, 4))
    assert "text/html" in gradient and "f_grad" in gradient["text/html"]
    assert "image/svg+xml" in graph and "<svg" in graph["image/svg+xml"]
    assert "text/html" in page and "<iframe" in page["text/html"]
