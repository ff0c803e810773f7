"""What keeps an exported gradient honest after it leaves srcdiff.

* The header carries a hash of the source it was generated from (the function and every
  user function it calls, copied in or with an adjoint of its own); `stale` recomputes it, so ``python -m srcdiff
  export --check`` tells whether the module still matches the code.
* The gradient function starts by checking each argument's kind against the example it was
  generated for (`guard`): a float where an array was expected fails there, naming the
  parameter, not with an ``AttributeError`` deep inside the module.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
import types
from pathlib import Path

import numpy as np

from ..errors import SrcDiffError
from ..frontend.parse import parse_function, unwrap

#: The header line that holds the hash (``Source sha256: 0123abcd...``).
HASH_LINE = "Source sha256: "
_HASH = re.compile(r"^Source sha256: ([0-9a-f]{64})$", re.MULTILINE)

#: The argument check the module defines (``check_argument``), written once per module.
CHECKER = '''def check_argument(function, name, value, ndim):
    """Refuse an argument of another kind than the example the module was generated for:
    `ndim` None means a number, else a NumPy array with that many axes."""
    if ndim is None:
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            return
        raise TypeError(f"{function}: {name} must be a number (the module was generated for one), "
                        f"not {type(value).__name__}")
    if not isinstance(value, np.ndarray) or value.ndim != ndim:
        got = f"an array of ndim {value.ndim}" if isinstance(value, np.ndarray) else type(value).__name__
        raise TypeError(f"{function}: {name} must be a NumPy array of ndim {ndim} (the module was "
                        f"generated for one), not {got}; regenerate it for other arguments")'''


def called_functions(func) -> list:
    """`func` and every Python function its source calls by a name, transitively: the code a
    gradient may have copied into itself (inlined helpers leave no adjoint of their own)."""
    found, todo = [], [unwrap(func)]
    while todo:
        current = todo.pop(0)
        if current in found:
            continue
        found.append(current)
        try:
            parsed = parse_function(current)
        except SrcDiffError:
            continue
        for node in ast.walk(parsed.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                target = parsed.resolve(node.func.id)
                if isinstance(target, types.FunctionType) and not target.__module__.startswith(("numpy", "srcdiff")):
                    try:
                        todo.append(unwrap(target))
                    except SrcDiffError:  # a library's wrapper (SciPy's solve_triangular): read by its rule, not copied
                        continue
    return found


def source_hash(functions) -> str:
    """The sha256 of the source of `functions` (in order), as 64 hex digits."""
    digest = hashlib.sha256()
    for func in functions:
        digest.update(inspect.getsource(unwrap(func)).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def recorded_hash(text: str) -> str | None:
    """The hash an exported module's header records, or None (a module from before hashes)."""
    found = _HASH.search(text)
    return found.group(1) if found else None


def stale(path: Path, current: str) -> str | None:
    """Why the module at `path` does not match the source whose hash is `current`, or None."""
    if not path.is_file():
        return f"{path} does not exist"
    recorded = recorded_hash(path.read_text())
    if recorded is None:
        return f"{path} records no source hash (exported by an older srcdiff)"
    if recorded != current:
        return (f"{path} was generated from another version of the source "
                f"(sha256 {recorded[:12]}..., now {current[:12]}...)")
    return None


#: The check of a static argument (``axis=0``, a flag, None for an optional array) and of a
#: global the code was built with: the module computes the gradient of that function only.
STATIC_CHECKER = '''def check_static(function, name, value, expected):
    """Refuse a value other than the one the module was generated for: it is built into the
    code (an axis, a flag, None for an optional array, a global read when it was generated)."""
    if value is expected or (type(value) is type(expected) and value == expected):
        return
    raise ValueError(f"{function}: {name} is {value!r}, but the module was generated for "
                     f"{name} = {expected!r} and computes that function's gradient; "
                     "regenerate it for this value")'''


def guard(listing: str, name: str, params: list[str], args: tuple, statics: set[str] = frozenset(),
          globals_: dict | None = None) -> str:
    """`listing` with ``check_argument`` calls at the top of the function `name`, one per
    parameter given a float or an array, and ``check_static`` calls for the parameters in
    `statics` (the code was specialised on their values) and the globals `globals_` (name ->
    the expression of the value the code was built with)."""
    checks = []
    for param, value in zip(params, args):
        if param in statics and (value is None or isinstance(value, (bool, int, str, tuple))):
            checks.append(f"check_static({name!r}, {param!r}, {param}, {value!r})")
        elif isinstance(value, np.ndarray):
            checks.append(f"check_argument({name!r}, {param!r}, {param}, {value.ndim})")
        elif isinstance(value, (float, np.floating)):
            checks.append(f"check_argument({name!r}, {param!r}, {param}, None)")
    for global_name, spelled in (globals_ or {}).items():
        checks.append(f"check_static({name!r}, {global_name!r}, {global_name}, {spelled})")
    if not checks:
        return listing
    tree = ast.parse(listing)
    func = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)
    lines = listing.splitlines(keepends=True)
    first = func.body[0].lineno - 1  # the function's first statement (its comment stays above)
    while first > 0 and lines[first - 1].strip().startswith("#"):
        first -= 1
    indent = " " * func.body[0].col_offset
    return "".join(lines[:first] + [f"{indent}{c}\n" for c in checks] + lines[first:])


def read_at_call_time(imports: list[str], listing: str) -> tuple[list[str], str]:
    """The user's globals read when the gradient is called, not copied when it is imported.

    ``from model import SCALE`` binds the value `SCALE` had when the exported module was
    imported: after ``model.SCALE = 5.0`` the function would use 5.0 and its gradient 2.0.  So
    the module imports ``model`` and each function starts with ``SCALE = model.SCALE`` (before
    the checks of what it was built on, which then see the current value)."""
    reads, kept = {}, []
    for line in imports:
        parts = line.split()
        if len(parts) == 4 and parts[0] == "from" and parts[2] == "import" and parts[3].isidentifier():
            reads[parts[3]] = parts[1]
            kept.append(f"import {parts[1]}")
        else:
            kept.append(line)
    if not reads:
        return imports, listing
    tree = ast.parse(listing)
    lines = listing.splitlines(keepends=True)
    for func in sorted((s for s in tree.body if isinstance(s, ast.FunctionDef)), key=lambda f: -f.lineno):
        used = [n.id for n in ast.walk(func) if isinstance(n, ast.Name) and n.id in reads]
        if not used:
            continue
        first = func.body[0].lineno - 1
        while first > 0 and lines[first - 1].strip().startswith("#"):
            first -= 1
        indent = " " * func.body[0].col_offset
        lines[first:first] = [f"{indent}{n} = {reads[n]}.{n}\n" for n in dict.fromkeys(used)]
    return list(dict.fromkeys(kept)), "".join(lines)
