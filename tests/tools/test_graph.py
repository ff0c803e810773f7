"""srcdiff.graph: the DAG a user can inspect, and its Graphviz text (golden-pinned)."""

import shutil
import subprocess

import pytest
from modules import import_source

import srcdiff
from srcdiff.tools.graph import Graph

SEED = """\
def f(x, y, b):
    z = x * y + b
    return z
"""

SEED_DOT = r'''digraph "f" {
  graph [rankdir=TB, fontname="Helvetica", fontsize=12];
  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=12];
  edge [color="#555555", arrowsize=0.7];
  "x" [label="x\nparameter", shape="ellipse", fillcolor="#e8f0fe"];
  "y" [label="y\nparameter", shape="ellipse", fillcolor="#e8f0fe"];
  "b" [label="b\nparameter", shape="ellipse", fillcolor="#e8f0fe"];
  "t1" [label="t1 = x * y\nmodel.py:2"];
  "z" [label="z = x * y + b\nmodel.py:2", peripheries="2"];
  "x" -> "t1";
  "y" -> "t1";
  "t1" -> "z";
  "b" -> "z";
}
'''

SHARED = """\
import numpy as np


def shared(a, b, c):
    u = a + b
    v = a + c
    return np.sum(u * v)


def square(x):
    return x * x


def split(x, w):
    h = w * 2.0
    return x * h
"""


def load(tmp_path, source: str, name: str = "model"):
    """Import `source` as tmp_path/model.py, so file names and lines in labels are fixed."""
    return import_source(tmp_path, source, name)


def test_seed_dot_is_pinned(tmp_path):
    f = load(tmp_path, SEED).f
    assert srcdiff.graph(f).to_dot() == SEED_DOT


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("source, name", [(SEED, "f"), (SHARED, "shared"), (SHARED, "split")])
def test_dot_parses_with_graphviz(tmp_path, source, name):
    f = getattr(load(tmp_path, source), name)
    done = subprocess.run(["dot", "-Tsvg"], input=srcdiff.graph(f).to_dot(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "<svg" in done.stdout


def test_nodes_carry_source_expression_and_line(tmp_path):
    g = srcdiff.graph(load(tmp_path, SHARED).shared)
    assert isinstance(g, Graph)
    rows = {n.name: (n.kind, n.source, n.line) for n in g.nodes}
    assert rows["a"] == ("parameter", "a", 4)
    assert rows["u"] == ("operation", "a + b", 5)
    assert rows["v"] == ("operation", "a + c", 6)
    assert rows["shared"] == ("operation", "np.sum(u * v)", 7)
    assert g.output == "shared"
    assert g["shared"].output and not g["u"].output


def test_edges_follow_data_flow_in_topological_order(tmp_path):
    g = srcdiff.graph(load(tmp_path, SHARED).shared)
    assert set(g.edges) == {("a", "u"), ("b", "u"), ("a", "v"), ("c", "v"), ("u", "t1"), ("v", "t1"),
                            ("t1", "shared")}
    position = {n.name: i for i, n in enumerate(g.nodes)}
    assert all(position[tail] < position[head] for tail, head in g.edges)


@pytest.mark.parametrize("func, name, uses, marked", [
    ("shared", "a", 2, True),   # read by u and by v
    ("shared", "b", 1, False),
    ("shared", "u", 1, False),
    ("square", "x", 2, True),   # x * x reads x twice: two gradient contributions
])
def test_nodes_with_several_gradient_paths_are_marked(tmp_path, func, name, uses, marked):
    g = srcdiff.graph(getattr(load(tmp_path, SHARED), func))
    node = g[name]
    assert (node.uses, node.accumulates) == (uses, marked)
    assert (f"sum of {uses} gradients" in g.to_dot()) == marked


def test_wrt_decides_which_nodes_carry_gradients(tmp_path):
    split = load(tmp_path, SHARED).split
    assert all(n.active for n in srcdiff.graph(split).nodes)
    only_x = srcdiff.graph(split, wrt="x")
    assert not only_x["w"].active and not only_x["h"].active
    assert only_x["x"].active and only_x["split"].active
    assert 'style="rounded,dashed"' in only_x.to_dot()


def test_dot_quotes_names_that_are_graphviz_keywords(tmp_path):
    module = load(tmp_path, """\
        def f(node, edge):
            graph = node * edge
            return graph
        """)
    dot = srcdiff.graph(module.f).to_dot()
    assert '"node" -> "graph";' in dot and '"edge" -> "graph";' in dot


def test_unknown_wrt_is_refused(tmp_path):
    with pytest.raises(srcdiff.SrcDiffError, match="not a parameter"):
        srcdiff.graph(load(tmp_path, SEED).f, wrt="q")


def test_str_lists_nodes_with_lines(tmp_path):
    text = str(srcdiff.graph(load(tmp_path, SHARED).shared))
    assert "model.py:5  u = a + b" in text
    assert "a (parameter)  <- sum of 2 gradient paths" in text


def test_command_line_prints_and_writes_the_graph(tmp_path, capsys):
    from srcdiff.tools.cli import main

    load(tmp_path, SEED)
    target = f"{tmp_path / 'model.py'}:f"
    assert main(["graph", target]) == 0
    assert capsys.readouterr().out == SEED_DOT
    assert main(["graph", target, "-o", str(tmp_path / "g.dot")]) == 0
    assert (tmp_path / "g.dot").read_text() == SEED_DOT
    assert main(["graph", target, "-o", str(tmp_path / "walk.html"), "--args", "1.0, 2.0, 3.0"]) == 0
    assert 'id="node-t1"' in (tmp_path / "walk.html").read_text()
    if shutil.which("dot"):
        assert main(["graph", target, "-o", str(tmp_path / "g.svg")]) == 0
        assert "<svg" in (tmp_path / "g.svg").read_text()
    assert main(["graph", target, "-o", str(tmp_path / "g.png")]) == 2
    assert "end it in .dot, .svg or .html" in capsys.readouterr().err


def test_the_graph_model_reads_only_the_ir():
    # debug mode (backend) uses the model, so it sits in ir/ and imports nothing above it
    from transforms.test_structure import MODULES, imports

    assert {target for target, _ in imports("srcdiff.ir.graph")} <= {m for m in MODULES if m.startswith("srcdiff.ir.")}
    backend = [m for m in MODULES if m.startswith("srcdiff.backend")]
    assert not [(m, t) for m in backend for t, _ in imports(m) if t.startswith("srcdiff.tools")]


def test_debug_mode_and_graph_agree_on_the_nodes(tmp_path):
    from srcdiff.ir.graph import Graph as Model

    module = load(tmp_path, SHARED)
    g = srcdiff.graph(module.shared)
    assert isinstance(g, Model) and isinstance(g, Graph)
    debug = _debug_graph(module.shared)  # built from the same pieces by backend/debug.py
    assert {n.name: (n.source, n.line, n.temporary) for n in g.nodes} == \
        {n.name: (n.source, n.line, n.temporary) for n in debug.nodes}


def _debug_graph(f):
    from srcdiff.backend.debug import Checker
    from srcdiff.frontend.parse import parse_function
    from srcdiff.lower.lowerer import lower
    from srcdiff.rules import TABLE

    parsed = parse_function(f)
    function, _ = lower(parsed, TABLE)
    return Checker(parsed, function, "check_finite", "def f():\n    pass\n").graph
