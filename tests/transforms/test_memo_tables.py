"""Every piece of state srcdiff keeps between calls is emptied by `srcdiff.clear_cache()`.

Memo tables are made by `srcdiff.ir.memo.table`, which the driver's `Cache.clear` empties; a
module-level table made any other way would outlive `clear_cache` (and a changed global or
helper would then be read from a stale entry), so the package is scanned for them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import numpy as np
from numeric import central_difference

import srcdiff
from srcdiff.ir import memo

PACKAGE = Path(srcdiff.__file__).parent
EMPTY_CALLS = {"dict", "set", "list", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet", "OrderedDict",
               "defaultdict"}
#: module-level containers that are not memo tables: listeners of `clear_cache`, recursion guards,
#: the generators a running numba gradient opened (at most `random_draws.KEPT`, read during its call),
#: the ASTs of functions srcdiff compiled (a fact about each function while it lives)
NOT_MEMOS = {("srcdiff/frontend/parse.py", "_REWRITTEN"), ("srcdiff/backend/numba/random_draws.py", "GENERATORS"),
             ("srcdiff/api/forward.py", "_LIVE"), ("srcdiff/api/gradients.py", "_LIVE"),
             ("srcdiff/frontend/flatten.py", "_BUSY"), ("srcdiff/frontend/flatten.py", "_PENDING"),
             ("srcdiff/lower/callee_facts.py", "_IN_PROGRESS"),
             ("srcdiff/ir/memo.py", "_TABLES"), ("srcdiff/tools/symbolic_status.py", "STRUCTURAL_NOT_SYMBOLIC")}


def module_level_containers(package=PACKAGE):
    for path in sorted(package.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            value = node.value
            literal = ast.unparse(value) in ("{}", "[]")
            call = (isinstance(value, ast.Call) and not value.args and not value.keywords
                    and ast.unparse(value.func).rsplit(".", 1)[-1] in EMPTY_CALLS)
            if literal or call:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                yield f"srcdiff/{path.relative_to(package).as_posix()}", ast.unparse(target)


def test_every_module_level_table_is_a_memo_table():
    assert [found for found in module_level_containers() if found not in NOT_MEMOS] == []


def test_the_scan_finds_a_table_made_by_hand(tmp_path):
    # the scan itself can fail: a module with `_SEEN = {}` is reported
    fake = tmp_path / "srcdiff"
    fake.mkdir()
    (fake / "stale.py").write_text("import weakref\n_SEEN = {}\n_WEAK = weakref.WeakKeyDictionary()\nA = {1: 2}\n")
    assert list(module_level_containers(fake)) == [("srcdiff/stale.py", "_SEEN"), ("srcdiff/stale.py", "_WEAK")]


def _helper(x, k):
    return np.sum(np.sin(x) * k)


def loss(x, y):
    return _helper(x, 2.0) + np.sum(x * x * y)


def test_clear_cache_empties_every_memo_table_and_everything_works_after():
    x, y = np.linspace(0.1, 0.9, 4), np.linspace(1.0, 2.0, 4)
    v = np.ones(4)
    partial = functools.partial(loss, y=y)
    srcdiff.grad(loss)(x, y), srcdiff.grad(partial)(x), srcdiff.hvp(loss, x, v, y), srcdiff.hessian(loss)(x, y)
    srcdiff.jvp(loss, (x, y), (v, np.zeros(4)))
    assert sum(memo.sizes()) > 0
    srcdiff.clear_cache()
    assert memo.sizes() == [0] * len(memo.sizes())
    expected = central_difference(loss, (x, y), 0)
    np.testing.assert_allclose(srcdiff.grad(loss)(x, y), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.grad(partial)(x), expected, rtol=1e-6, atol=1e-8)
