"""graph, trace and explain on loops, branches and helper calls (issue 18): an RNN loop, a
`while` loop with `break`, an `if/else` on a computed value, a helper called twice."""

import numpy as np
import pytest
from modules import import_source

import srcdiff

MODEL = """\
import numpy as np


def rnn(h, W, xs):
    for t in range(3):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)


def newton(x):
    y = x
    while True:
        y = 0.5 * (y + x / y)
        if y * y - x < 1e-6:
            break
    return y


def piecewise(x):
    s = x * x
    if s > 1.0:
        z = np.sqrt(s)
    else:
        z = s * 0.5
    return z * x


def helper(u):
    return u * np.sin(u)


def twice(x):
    return helper(x) + helper(x * 2.0)
"""

PIECEWISE_DOT = r'''digraph "piecewise" {
  graph [rankdir=TB, fontname="Helvetica", fontsize=12];
  compound=true;
  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=12];
  edge [color="#555555", arrowsize=0.7];
  "x" [label="x\nparameter\nsum of 3 gradients", shape="ellipse", fillcolor="#fff3cd", color="#b26a00", penwidth="2"];
  "s" [label="s = x * x\nmodel.py:20"];
  "t1" [label="t1 = s > 1.0\nmodel.py:21", style="rounded,dashed", fontcolor="#777777"];
  subgraph "cluster_branch21" {
    label="if s > 1.0   (line 21)\ncondition: t1";
    labeljust=l; fontsize=11; style="rounded,filled"; color="#7a5db0"; fillcolor="#faf8fd";
    subgraph "cluster_then21" {
      label="taken when true";
      labeljust=l; fontsize=11; style="rounded,filled"; color="#7a5db0"; fillcolor="#ffffff";
      "z.then" [label="z.then = np.sqrt(s)\nmodel.py:22"];
    }
    subgraph "cluster_else21" {
      label="taken when false";
      labeljust=l; fontsize=11; style="rounded,filled"; color="#7a5db0"; fillcolor="#ffffff";
      "z.else" [label="z.else = s * 0.5\nmodel.py:24"];
    }
    "z" [label="z = z.then or z.else\nmodel.py:21", shape="invhouse", fillcolor="#efe9f8"];
  }
  "piecewise" [label="piecewise = z * x\nmodel.py:25", peripheries="2"];
  "x" -> "s";
  "s" -> "t1";
  "s" -> "z.then";
  "s" -> "z.else";
  "t1" -> "z" [style="dotted", arrowhead="odot"];
  "z.then" -> "z";
  "z.else" -> "z";
  "z" -> "piecewise";
  "x" -> "piecewise";
}
'''

NEWTON_TABLE = """\
trace of newton (adjoints with respect to x)
#   line         step   node                 expression                       shape  value    adjoint
--  -----------  -----  -------------------  -------------------------------  -----  -------  -----------------------
0   model.py:10         x                    (parameter)                      ()     2        0.353553  (sum of 6)
1   model.py:12  #0     y                    (carried: x at first, then y_1)  ()     2        3.60876e-11  (sum of 2)
2   model.py:13  #0     t1                   x / y                            ()     1        7.21752e-11
3   model.py:13  #0     t2                   y + x / y                        ()     3        7.21752e-11
4   model.py:13  #0     y_1                  0.5 * (y + x / y)                ()     1.5      1.4435e-10
5   model.py:14  #0     t3                   y_1 * y_1 - x < 1e-06            ()     False    -
    model.py:14  #0     if y * y - x < 1e-6  → false: the else side runs
6   model.py:14  #0     stop.else            False                            ()     False    -
7   model.py:14  #0     stop                 stop.then or stop.else           ()     False    -
                        …                    2 more iterations
8   model.py:12  #3     y                    (carried: x at first, then y_1)  ()     1.41422  1.50182e-06  (sum of 2)
9   model.py:13  #3     t1                   x / y                            ()     1.41421  0.5
10  model.py:13  #3     t2                   y + x / y                        ()     2.82843  0.5
11  model.py:13  #3     y_1                  0.5 * (y + x / y)                ()     1.41421  1
12  model.py:14  #3     t3                   y_1 * y_1 - x < 1e-06            ()     True     -
    model.py:14  #3     if y * y - x < 1e-6  → true: the then side runs
13  model.py:14  #3     stop.then            True                             ()     True     -
14  model.py:14  #3     stop                 stop.then or stop.else           ()     True     -
15  model.py:12  after  y                    (after the loop)                 ()     1.41421  1"""

TWICE_TABLE = """\
trace of twice (adjoints with respect to x)
#   line         step  node        expression                   shape  value     adjoint
--  -----------  ----  ----------  ---------------------------  -----  --------  -------------------
0   model.py:32        x           (parameter)                  ()     0.7       3.62641  (sum of 2)
1   model.py:33        t1          helper(x)                    ()     0.450952  1
                         ↳ helper  (its own graph)
2   model.py:28          u         (parameter)                  ()     0.7       1.17961  (sum of 2)
3   model.py:29          t1        np.sin(u)                    ()     0.644218  0.7
4   model.py:29          helper    u * np.sin(u)                ()     0.450952  1
5   model.py:33        t2          x * 2.0                      ()     1.4       1.2234
6   model.py:33        t3          helper(x * 2.0)              ()     1.37963   1
                         ↳ helper  (its own graph)
7   model.py:28          u         (parameter)                  ()     1.4       1.2234  (sum of 2)
8   model.py:29          t1        np.sin(u)                    ()     0.98545   1.4
9   model.py:29          helper    u * np.sin(u)                ()     1.37963   1
10  model.py:33        twice       helper(x) + helper(x * 2.0)  ()     1.83058   1"""

ARGS = {
    "rnn": (np.full(2, 0.1), np.eye(2) * 0.5, np.ones((3, 2))),
    "newton": (2.0,),
    "piecewise": (1.5,),
    "twice": (0.7,),
}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("regions"), MODEL, "model", "regions_visual_model")


def test_branch_dot_is_pinned(model):
    assert srcdiff.graph(model.piecewise).to_dot() == PIECEWISE_DOT


def test_while_loop_table_is_pinned_with_a_limit(model):
    assert srcdiff.trace(model.newton, 2.0, limit=2).table() == NEWTON_TABLE


def test_helper_frames_table_is_pinned(model):
    assert srcdiff.trace(model.twice, 0.7).table() == TWICE_TABLE


@pytest.mark.parametrize("name", sorted(ARGS))
def test_trace_adjoints_are_the_gradient(model, name):
    f, args = getattr(model, name), ARGS[name]
    run = srcdiff.trace(f, *args)
    expected = srcdiff.grad(f, wrt=tuple(range(len(args))))(*args)
    for param, want in zip(run.wrt, expected):
        np.testing.assert_allclose(run[param].adjoint, want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_dot_is_deterministic_and_parses(model, name):
    import shutil
    import subprocess

    f = getattr(model, name)
    text = srcdiff.graph(f).to_dot()
    assert text == srcdiff.graph(f).to_dot()
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_rnn_loop_is_a_region_with_carried_values_and_stack(model):
    g = srcdiff.graph(model.rnn)
    (loop,) = g.regions
    assert (loop.kind, loop.label, loop.carried) == ("loop", "for t in range(3)", ["h_1"])
    assert loop.stack  # what the forward pass saves for the backward pass
    assert g.back_edges == [("h_2", "h_1")]
    assert g["h_1"].kind == "carried" and g["t"].kind == "counter"
    assert 'subgraph "cluster_loop5"' in g.to_dot() and "next iteration" in g.to_dot()
    assert "[loop] for t in range(3)" in str(g)


def test_rnn_trace_has_a_row_per_iteration(model):
    run = srcdiff.trace(model.rnn, *ARGS["rnn"])
    assert [r.iteration for r in run.rows_of("h_2")] == [(0,), (1,), (2,)]
    assert run.iterations == {("loop5", ()): 3}
    assert "t=2" in run.table()
    assert "1 more iteration" in run.table(limit=2)


def test_while_with_break_counts_its_iterations_and_marks_the_branch(model):
    run = srcdiff.trace(model.newton, 2.0)
    assert run.iterations[("loop12", ())] == 4
    assert [run.taken[("branch14", (i,))] for i in range(4)] == ["else", "else", "else", "then"]


def test_branch_marks_the_taken_side(model):
    run = srcdiff.trace(model.piecewise, 1.5)
    assert run.taken == {("branch21", ()): "then"}
    assert run.rows_of("z.else") == []
    small = srcdiff.trace(model.piecewise, 0.5)
    assert small.taken == {("branch21", ()): "else"}
    assert "the else side runs" in small.table()


def test_helper_called_twice_is_two_nested_frames(model):
    g = srcdiff.graph(model.twice)
    assert [r.kind for r in g.regions] == ["call", "call"]
    assert set(g.calls) == {"t1", "t3"} and g.calls["t1"].name == "helper"
    dot = g.to_dot()
    assert '"t1/u"' in dot and '"t3/u"' in dot and '"x" -> "t1/u"' in dot
    run = srcdiff.trace(model.twice, 0.7)
    assert run["t1"].frame.graph.name == "helper"
    assert run["t1"].frame["u"].value == 0.7 and run["t3"].frame["u"].value == pytest.approx(1.4)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_explain_pages_step_forward_then_backward(model, name, tmp_path):
    import json
    import re

    path = srcdiff.explain(getattr(model, name), *ARGS[name], html=tmp_path / "walk.html", engine="layered")
    text = path.read_text()
    data = json.loads(re.search(r'<script id="walk-data" type="application/json">(.*?)</script>', text, re.S)[1])
    phases = [s["phase"] for s in data["steps"]]
    assert phases == sorted(phases, key=["forward", "backward"].index) and "backward" in phases
    if name in ("rnn", "newton"):
        sizes = [len(s["stack"]) for s in data["steps"]]
        assert max(sizes) > 0 and sizes[-1] == 0  # the stack fills, then empties
        assert any(s["head"].startswith("pop ") for s in data["steps"])
    if name == "twice":
        assert {s["frame"] for s in data["steps"]} >= {"t1", "t3"}
    if name == "piecewise":
        assert any("then side runs" in s["what"] for s in data["steps"])
