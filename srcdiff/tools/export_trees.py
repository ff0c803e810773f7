"""Exported gradients of functions that take parameter trees, and of methods and partials.

srcdiff differentiates such a function through a rewritten one that takes each leaf as a
parameter (frontend/flatten.py).  The exported module holds that gradient, renamed
``<name>_leaves``, and in front of it a function with the user's parameters that reads the
leaves out of the trees (``p["W1"]``, ``self.w``) and builds each gradient back into the
structure of its target: a dict with the same keys, a list, a tuple, the same namedtuple or
dataclass (an object's attributes come back as a dict, as from the gradient itself).
"""

from __future__ import annotations

import re

from ..frontend import trees

#: Builds a dataclass instance holding the gradients, as srcdiff's own result does (its
#: ``__init__``, which may validate or convert, is not run).
DATACLASS_HELPER = '''def _dataclass_of(cls, **fields):
    """An instance of dataclass `cls` holding the gradients `fields` (its __init__ is not run)."""
    made = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(made, name, value)
    return made
'''


def renamed(listing: str, name: str, new: str) -> str:
    """`listing` with the function `name` defined (and called) as `new`."""
    return re.sub(rf"\b{re.escape(name)}\b(?=\()", new, listing)


def wrapper(name: str, inner: str, names: list, structs: tuple, flat, plan, tuple_result: bool,
            module_of, refuse) -> tuple[str, set, bool]:
    """The source of ``name(<the user's parameters>)``, calling `inner` with the leaves;
    the imports it needs (classes it rebuilds, from ``module_of(cls)``); whether it uses
    `DATACLASS_HELPER`.  A method's ``self`` (a partial's bound arguments) is a parameter too.
    ``refuse(message, hint)`` makes the error for what cannot be exported (at the function's line)."""
    params = list(names)
    leaf_reads = []
    for pname, struct, leaf_names in flat.params:
        if struct is None:
            leaf_reads.append(pname)
            continue
        paths = [p for p, s in trees.leaf_paths(struct) if s.kind in ("leaf", "data")]
        if len(paths) != len(leaf_names):
            raise refuse(f"{pname} holds values srcdiff reads as constants of the code (functions, objects), "
                         "which an exported module cannot take as arguments",
                         f"export a function that takes the arrays of {pname} as its parameters")
        leaf_reads += [_read(pname, struct, path) for path in paths]
    imports, helper = set(), [False]
    results, k = [], 0
    for sub, chosen in plan:
        if sub is None or not sub.is_container:
            results.append(f"g[{k}]")
        else:
            results.append(_build(sub, iter(range(k, k + len(chosen))), imports, helper, module_of))
        k += len(chosen)
    result = results[0] if len(results) == 1 and not tuple_result else \
        "(" + ", ".join(results) + ("," if len(results) == 1 else "") + ")"
    lines = [f"def {name}({', '.join(params)}):",
             f'    """The gradient, with the arguments and results as trees (the leaves go to {inner})."""',
             f"    g = {inner}({', '.join(leaf_reads)})",
             f"    return {result}"]
    return "\n".join(lines), imports, helper[0]


def _read(root: str, struct, path: tuple) -> str:
    """``p["W1"]``, ``self.w``, ``layers[0]["b"]``: where a leaf is read from its parameter."""
    text, here = root, struct
    for key in path:
        text += f".{key}" if here.kind in ("namedtuple", "dataclass", "object") else f"[{key!r}]"
        here = here.child(key)
    return text


def _build(struct, indices, imports: set, helper: list, module_of) -> str:
    """The expression building `struct` with leaf gradients ``g[i]`` (None where nothing is
    differentiated)."""
    if struct.kind == "leaf":
        return f"g[{next(indices)}]"
    if not struct.is_container:
        return "None"
    items = [_build(c, indices, imports, helper, module_of) for c in struct.children]
    if struct.kind in ("dict", "object"):
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(struct.keys, items)) + "}"
    if struct.kind == "list":
        return "[" + ", ".join(items) + "]"
    if struct.kind == "tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    cls = struct.cls
    imports.add(f"from {module_of(cls)} import {cls.__name__}")
    if struct.kind == "namedtuple":
        return f"{cls.__name__}({', '.join(items)})"
    helper[0] = True
    return f"_dataclass_of({cls.__name__}, " + ", ".join(f"{k}={v}" for k, v in zip(struct.keys, items)) + ")"


__all__ = ["DATACLASS_HELPER", "renamed", "wrapper"]
