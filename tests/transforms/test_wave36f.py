"""Wave 36f: the test harness without registration by import, and the table tests written once.

Before, tests/transforms/matrix.py held a module-level CELLS dict that other modules filled when they
were imported: closure_cells.py (jacobian, hvp, float32), redteam_wave27b_cells.py (vmap),
redteam_wave29b_cells.py (19 composed cells, and ``vmap_grad`` again, another function), and 23 test
modules (``vmap_grad``, from test_redteam_wave27a, a test module imported for it; test_redteam_wave30h's
three cells; test_wave35e's two).  Which cells existed depended on what the process had imported, and
in which order ("vmap_grad" was whichever module wrote last): a test module run alone failed with
KeyError 'jacobian' when it did not import closure_cells.  Now:

* cell_table.STANDARD lists every cell of the suite, explicitly, in one place; ``matrix.run`` and every
  ``matrix.assert_*`` take ``cells=`` (None: the standard table), so a module run alone has them all.
  The reference and its comparisons are in reference.py, the first eight cells in base_cells.py, the
  cells test modules defined in vmap_cells.py, numba_cells.py and redteam_wave30h_cells.py.
* table_tests.Table writes the tests a wave's program table repeated in each module (first order,
  every transformation, numba, refused at the line, still open); 19 modules bind them.

Census (tests/), before -> after:

    modules writing into matrix.CELLS when imported                      26 -> 0
    modules importing a cell from a test module (test_redteam_wave27a)  25 -> 0
    skeleton test functions written by hand (first order / every
      transformation / numba / refused at the line, tests/transforms)  321 -> 255 (19 modules, -290 lines)
    tests parametrized over nothing (a NOTSET skip that cannot fail)      4 -> 0
    shadowing duplicate test names (ruff F811, and a test module
      importing another's test_* functions)                               0 -> 0
    collected test ids and marks of the 52 wave 26-35 modules     unchanged (but the 4 above)

Found (what the test below keeps so; the rest is open):

1. Registration by import (above): fixed; `test_no_module_writes_into_another_modules_globals` fails on
   a module that writes into another module's global when imported (``matrix.CELLS[...] = ...``).
   matrix.CELLS stays, a copy of the table, so that a module written the old way still runs.
2. Tests that could not fail: four parametrized over an empty list (test_wave33g's and
   test_redteam_wave27a's refused-at-the-line over an empty REFUSED, test_redteam_wave13_open's two over
   rows all fixed since): removed (the now-differentiated test of wave 13 takes every row, so a row
   added later is tested).  No test function asserts nothing (an AST scan: the three it names delegate
   to another test or to warnings raised as errors).
3. Open: seven modules put benchmarks/ on sys.path when imported (wave32g/33e/34d/35c_programs,
   test_speed20/21/22): allowed below by name; test modules import helpers from other test modules
   (changed_cell and census of test_wave31m, judge of test_wave33b and test_wave35f, test_reach28's
   checks): no registration, but each import runs the other module's table building.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from . import (
    base_cells,
    cell_table,
    closure_cells,
    corpus,
    matrix,
    numba_cells,
    redteam_wave27b_cells,
    redteam_wave29b_cells,
    redteam_wave30h_cells,
    table_tests,
    vmap_cells,
)

ROOT = Path(__file__).resolve().parents[2]
MUTATING = {"update", "append", "extend", "insert", "setdefault", "add", "pop", "popitem", "clear", "remove",
            "discard", "__setitem__"}
#: a module none of whose lines matches cannot write at import time (the scan parses the others only):
#: a statement at the left margin assigning to a dotted or indexed name or calling a mutating method,
#: a block at the left margin (its body runs at import), setattr
MAY_WRITE = re.compile(r"^(?:[A-Za-z_]\w*(?:\.\w+|\[[^\]\n]*\])+\s*(?:=(?!=)|[-+*/|&]=)|"
                       r"[A-Za-z_]\w*(?:\.\w+|\[[^\]\n]*\])*\.(?:" + "|".join(sorted(MUTATING)) + r")\(|"
                       r"(?:for|while|if|with|try|del)\b)|setattr\(", re.M)
#: the modules that put benchmarks/ on sys.path when imported (open, above)
ON_SYS_PATH = {"tests/transforms/wave32g_programs.py", "tests/transforms/wave33e_programs.py",
               "tests/transforms/wave34d_programs.py", "tests/transforms/wave35c_programs.py",
               "tests/transforms/wave36c_programs.py", "tests/transforms/wave36h_programs.py",
               "tests/transforms/test_speed20_piecewise.py", "tests/transforms/test_speed21_masks.py",
               "tests/transforms/test_speed22_ties.py", "tests/transforms/matrix_report.py"}


def _base(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _module_level(statements):
    """The nodes of `statements` that run when the module is imported (not in a def, class or lambda)."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack = [statement]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for child in ast.iter_child_nodes(node)
                         if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)))


def writes_into_imported_names(source: str) -> list[str]:
    """What a module's import-time code writes into a name it imported (another module or its global):
    an assignment to an attribute or item of it, a mutating method called on one, setattr of it."""
    tree = ast.parse(source)
    imported = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).partition(".")[0] for a in node.names}
    found = []
    for node in _module_level(tree.body):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else \
            node.targets if isinstance(node, ast.Delete) else []
        found += [ast.unparse(t) for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))
                  and _base(t) in imported]
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in MUTATING and _base(f.value) in imported \
                    and isinstance(f.value, (ast.Attribute, ast.Subscript)):
                found.append(ast.unparse(f))
            if isinstance(f, ast.Name) and f.id == "setattr" and node.args and _base(node.args[0]) in imported:
                found.append(ast.unparse(node)[:80])
    return found


def test_no_module_writes_into_another_modules_globals():
    """No module of tests/ (nor a test module of benchmarks/: the others are scripts) registers anything
    by being imported: a table of cells is
    written where it is defined (cell_table.py) and passed (``matrix.run(..., cells=...)``); a module
    that writes ``matrix.CELLS[name] = ...`` (the way before wave 36) fails here: delete the line, the
    cell is in cell_table.STANDARD, or pass ``cells={**cell_table.STANDARD, name: cell}``.  The conftest
    files set the test process up (that is what they are for)."""
    bad = {}
    for path in sorted([*ROOT.joinpath("tests").rglob("*.py"), *ROOT.joinpath("benchmarks").glob("test_*.py")]):
        where = path.relative_to(ROOT).as_posix()
        source = path.read_text()
        if path.name == "conftest.py" or not MAY_WRITE.search(source):
            continue
        found = [w for w in writes_into_imported_names(source)
                 if not (w == "sys.path.insert" and where in ON_SYS_PATH)]
        if found:
            bad[where] = found
    assert not bad, bad


def test_the_scan_sees_each_way_of_registering():
    """The scan (and its prefilter) finds each way a module registered something when imported."""
    source = ("from . import matrix\nimport sys\nmatrix.CELLS['v'] = 1\nmatrix.CELLS.update(v=1)\n"
              "setattr(matrix, 'X', 1)\nfor k in 'ab':\n    matrix.SAMPLE[k] = 1\nsys.path.insert(0, 'x')\n"
              "def f():\n    matrix.CELLS['w'] = 2\nLOCAL = {}\nLOCAL['k'] = 1\n")
    assert MAY_WRITE.search(source) and not MAY_WRITE.search("import x\n\n\ndef f():\n    x.A[1] = 2\n")
    assert writes_into_imported_names(source) == ["matrix.CELLS['v']", "matrix.CELLS.update",
                                                  "setattr(matrix, 'X', 1)", "matrix.SAMPLE[k]", "sys.path.insert"]


CELL_MODULES = (base_cells, closure_cells, vmap_cells, redteam_wave27b_cells, redteam_wave29b_cells,
                redteam_wave30h_cells, numba_cells)


def test_the_standard_table_lists_every_cell_once():
    """Each cell function of the cell modules is in the table, under one name; every name a module's
    tuple of transformations gives (TRANSFORMS, EXTRA, COMPOSED, NUMBA) is a key; matrix.CELLS is a
    copy of it, unchanged by what the process imported."""
    defined = {getattr(m, n) for m in CELL_MODULES for n in dir(m) if n.startswith("cell_")}
    listed = list(cell_table.STANDARD.values())
    assert defined == set(listed) and len(listed) == len(set(listed))
    named = {*matrix.TRANSFORMS, *closure_cells.EXTRA, *redteam_wave29b_cells.COMPOSED, *redteam_wave29b_cells.NUMBA}
    assert named <= set(cell_table.STANDARD)
    assert matrix.CELLS == dict(cell_table.STANDARD)
    with pytest.raises(TypeError):
        cell_table.STANDARD["mine"] = None  # read-only: a module with a cell of its own passes cells=


def test_a_module_alone_runs_every_cell(tmp_path):
    """The failure of wave 35 (KeyError 'jacobian' in a module run alone): a fresh process that imports
    matrix and nothing else runs the cells closure_cells.py and the vmap module define."""
    tmp_path.joinpath("squares.py").write_text("import numpy as np\n\n\ndef square(x):\n    return np.sum(x * x)\n")
    code = ("import numpy as np\nfrom squares import square\nfrom transforms import corpus, matrix\n"
            "p = corpus.Program('t:square', square, (np.array([0.5, -1.0]),), 0, 'here')\n"
            "row = matrix.run(p, ('jacobian', 'float32', 'vmap_grad'))\n"
            "print(sorted((k, c.outcome) for k, c in row.cells.items()))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "tests"), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[('float32', 'ok'), ('jacobian', 'ok'), ('vmap_grad', 'ok')]", out.stdout


def _square(x):
    return (x * x).sum()


ROWS = [(name, _square, lambda rng: (rng.normal(size=3),), 0) for name in ("a", "b", "c", "d")]


def _params(test):
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    return mark.args[1], mark.kwargs["ids"]


def _shown(test):
    values, ids = _params(test)
    return [(ids(v.values[0]), any(m.name == "slow" for m in v.marks)) for v in values]


def test_a_table_makes_the_tests_modules_wrote_by_hand():
    """Ids are the rows' short names; the default run keeps `kept` rows only; refused rows go to the
    refused-at-the-line test (its first in the default run), not to the others; `apart` rows to none."""
    table = table_tests.Table.of(ROWS, "t", "here", 1, kept={"a"}, refused={"c", "d"}, apart={"b"})
    assert _shown(table.first_order()) == [("a", False)]
    assert _shown(table.every_transformation(matrix.EVERY)) == [("a", True)]
    assert _shown(table.every_transformation(matrix.EVERY, kept={"a"})) == [("a", False)]
    assert _shown(table.numba()) == [("a", True)]
    assert _shown(table.refused_at_the_line()) == [("c", False), ("d", True)]
    assert _shown(table.refused_at_the_line(kept=())) == [("c", True), ("d", True)]
    still = table.still_open({"a"}, ("hvp",), "why")
    assert _shown(still) == [("a", True)]
    assert [m.kwargs for m in still.pytestmark if m.name == "xfail"] == [{"strict": True, "reason": "why"}]
    assert table.first_order().__name__ == "test_first_order"
    assert table_tests.name(table.programs()[0]) == "a" and isinstance(table.programs()[0], corpus.Program)


def test_each_call_makes_the_programs_again():
    """No two tests share a program's arrays (a test that changes one changes no other's)."""
    table = table_tests.Table.of(ROWS, "t", "here", 1)
    first, second = table.programs(), table.programs()
    assert first[0].args[0] is not second[0].args[0]
    assert (first[0].args[0] == second[0].args[0]).all()
