"""The tree column's programs: the user's function called with its parameter taken from a dict.

For ``def f(x, y)`` differentiated in `x` the matrix writes, to a module file of its own
(srcdiff reads source from files),

    def f_with_x_in_a_dict(params, y):
        return target(params["x"], y)

and differentiates it with respect to `params`: the gradient must be ``{"x": df/dx}``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import tempfile
from pathlib import Path

from .corpus import Program

#: removed when the test process exits (srcdiff reads the wrappers' source from these files)
_FOLDER: list[tempfile.TemporaryDirectory] = []


class NotWrapped(Exception):
    """A function the matrix does not wrap (keyword-only or starred parameters)."""

_MADE: dict = {}


def wrapper(p: Program):
    """The wrapper function for `p`, and the dict key that holds the parameter."""
    names = list(inspect.signature(p.func).parameters)
    kinds = {q.kind for q in inspect.signature(p.func).parameters.values()}
    if kinds - {inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY}:
        raise NotWrapped("the matrix wraps functions of positional parameters only")
    key = names[p.wrt]
    params = ["params" if i == p.wrt else f"a{i}" for i in range(len(p.args))]
    call = [f"params[{key!r}]" if i == p.wrt else f"a{i}" for i in range(len(p.args))]
    name = "".join(c if c.isalnum() else "_" for c in getattr(p.func, "__name__", "f"))
    func_name = f"{name}_with_{key}_in_a_dict"
    source = f"def {func_name}({', '.join(params)}):\n    return target({', '.join(call)})\n"
    # the function itself is in the key: two corpus programs may share a name (the red teams'
    # quaternion_rotate) and must not share a wrapper
    where = f"{p.func.__module__}.{getattr(p.func, '__qualname__', name)}"
    digest = hashlib.sha1(f"{p.name}\n{where}\n{source}".encode()).hexdigest()[:12]
    found = _MADE.get(digest)
    if found is None:
        if not _FOLDER:
            _FOLDER.append(tempfile.TemporaryDirectory(prefix="srcdiff-matrix-trees-"))
        path = Path(_FOLDER[0].name) / f"tree_{digest}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"matrix_tree_{digest}", path)
        module = importlib.util.module_from_spec(spec)
        module.target = p.func
        spec.loader.exec_module(module)
        found = _MADE[digest] = getattr(module, func_name)
    return found, key
