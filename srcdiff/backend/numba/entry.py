"""The Python entry of a numba-compiled gradient: a generated function that checks the
arguments' signature with the guard the Python gradient's fast path has (backend/guards.py)
and then calls numba's dispatcher itself.

Calling the dispatcher costs about 0.2 µs for two floats; the general path around it (the
signature of every argument, the globals read as arguments, the dtype each gradient is given
back in) costs ten times that, more than a small gradient's whole work.  The entry goes
straight to the dispatcher when nothing of that general path is needed: the code reads no
global as an argument, and no differentiated argument has a floating dtype other than
float64 (whose gradient numba would compute in float64).  Anything the dispatcher raises
sends the call to the general path, which reports it as srcdiff does.
"""

from __future__ import annotations

import ast

import numpy as np

from ...ir import shapes
from .. import guards

#: argument types whose gradient numba gives back in the argument's own type
_SAME_TYPE = (float, int, bool, np.float64)
_FLOAT64 = "__srcdiff_float64__"
_DISPATCH, _RUN, _POSITIONAL = "__srcdiff_dispatch__", "__srcdiff_run__", "__srcdiff_positional_slow__"


def entry(run, key: tuple, depends: tuple, slow, positional, owner=None):
    """The function a GradFunction calls for arguments of signature `key`: `run` (jit.py's
    general path, with ``run.dispatcher``, ``run.env`` and ``run.positions``) behind the
    signature and dependency guard, the dispatcher directly where that is the same; other
    calls go to ``slow(*positional(args, kwargs))``.  The entry's code is made once per
    `run`, signature and dependencies (a GradFunction called alternately with two
    signatures, or with its defaults left out, asks for it on every call)."""
    factories = run.__dict__.setdefault("entry_factories", {})
    made_for = (key, tuple(map(id, depends)), id(owner[1]) if owner else None)
    found = factories.get(made_for)
    if found is None:
        found = factories[made_for] = _factory(run, key, depends, owner), depends, owner
    return found[0](slow, lambda args, kwargs: slow(*positional(args, kwargs)))


def _factory(run, key: tuple, depends: tuple, owner=None):
    """``make(slow, positional_slow) -> entry``: the entry's code compiled once, its guard's
    cells (guards.py), the general path and the dispatcher as its globals."""
    params = [f"a{i}" for i in range(len(key))]
    guard, cells = guards.prologue(params, key, depends, owner=owner)
    float64_tests = _float64_tests(key, getattr(run, "positions", None)) if not getattr(run, "env", True) else None
    name = _entry_name(run)
    call = ", ".join(params)
    head = [f"if kwargs or len(args) != {len(params)}:", f"    return {_POSITIONAL}(args, kwargs)"]
    if params:
        head.append(f"{call}, = args")
    if float64_tests is None:
        tail = [f"return {_RUN}({call})"]
    else:
        tail = [f"if not ({' and '.join(float64_tests)}):", f"    return {_RUN}({call})"] if float64_tests else []
        tail += ["try:", f"    return {_DISPATCH}({call})",
                 "except Exception:  # the general path reports it, or compiles what this dispatcher refused",
                 f"    return {_RUN}({call})"]
    tree = ast.parse(f"def make({guards.SLOW}, {_POSITIONAL}):\n"
                     f"    def {name}(*args, **kwargs):\n        pass\n    return {name}")
    tree.body[0].body[0].body = ast.parse("\n".join(head)).body + guard + ast.parse("\n".join(tail)).body
    ast.fix_missing_locations(tree)
    namespace = {**cells, _RUN: run, _FLOAT64: np.dtype(np.float64), _DISPATCH: getattr(run, "dispatcher", None)}
    exec(compile(tree, f"<srcdiff numba entry {name}>", "exec"), namespace)  # noqa: S102
    return namespace["make"]


def _entry_name(run) -> str:
    return f"{getattr(run, 'name', 'gradient')}_entry"


def _float64_tests(key: tuple, positions) -> list[str] | None:
    """Tests that make the dispatcher's result the general path's for arguments of `key`
    (each gradient in its argument's dtype): none needed for Python numbers and float64
    scalars, ``a.dtype is float64`` for a floating array; None where the general path is
    needed whatever the call (a float32 argument, a signature of another kind)."""
    if positions is None:
        return None
    tests = []
    for i in positions:
        if i >= len(key):
            return None
        sig = key[i]
        if isinstance(sig, type):
            if sig not in _SAME_TYPE:
                return None
        elif isinstance(sig, tuple) and len(sig) == 3 and isinstance(sig[2], str):
            if sig[2] == shapes.SINGLE:
                return None
            if sig[2] == "f":
                tests.append(f"a{i}.dtype is {_FLOAT64}")
        else:
            return None
    return tests


__all__ = ["entry"]
