"""A ``try``/``except`` under numba: the path is decided by Python, the rest compiled.

The gradient reads a ``try`` as a branch (frontend/try_blocks.py): a probe, made from the
``try`` body, runs it on the current values and says which handler Python runs (0: none);
``if try_line_7(K) == 0:`` then takes that path.  numba cannot catch one exception class
and not another (it catches every exception or none), so the probe is not compiled: the
compiled code calls it through numba's object mode, ``probe_decision(key, K)``, with the
same values, and Python decides exactly as without jit (a ``np.linalg.LinAlgError`` from
``np.linalg.cholesky``, any other error raised as Python raises it).

A probe reaches the compiled code as a number, a leading parameter read on each call (the
key of the probe in this process's table), so the module's text, and numba's on-disk cache
of it, are the same in every process.  (This module imports no numba: module.py reads it;
try_decisions.py compiles ``probe_decision``.)
"""

from __future__ import annotations

import ast

from ...frontend.try_blocks import Probe
from ...ir import memo

#: the probes of this process, by key: a memo table, so `clear_cache` (which drops the compiled
#: modules reading them) empties it too
PROBES: dict[int, Probe] = memo.table()


def is_probe(value) -> bool:
    return isinstance(value, Probe)


def register(probe: Probe) -> int:
    """The key `probe` is read by in compiled code."""
    PROBES[id(probe)] = probe
    return id(probe)


def spell(tree: ast.AST, name: str) -> None:
    """Each call ``name(args)`` of a probe in `tree` as ``probe_decision(name, args)``, in place."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            node.args = [ast.Name(name, ast.Load()), *node.args]
            node.func = ast.Name("probe_decision", ast.Load())


def run_probe(key, args) -> int:
    return int(PROBES[key](*args))


def probe_decision(key, *args):
    return run_probe(key, args)


__all__ = ["PROBES", "is_probe", "probe_decision", "register", "run_probe", "spell"]
