"""An array another module holds, read by its attribute: ``import data; data.X @ w``.

The generated code spells the read as the user did (``data.X``): it runs in the user's module
globals, where ``data`` is the module, so the array is read when the gradient runs, as an array
of the function's own module is.  Its signature (shape, dtype) is baked into the gradient, so the
attribute is a dependency by signature, as a global array is (frontend/depends.py): rebinding
``data.X`` to an array of another shape or dtype builds the gradient again, changing its values
does not need to.  A list, tuple or dict another module holds is read so too, as the module's own are
(``cfg.WEIGHTS[name]``, name a loop's key); an object is refused at the user's line by the caller.
"""

from __future__ import annotations

import ast
import types

import numpy as np

from ..frontend.depends import Dependency
from ..ir import shapes
from ..ir.nodes import Global


def module_array(state, node: ast.Attribute, module, value) -> Global | None:
    """The `Global` read of ``module.attr`` (`node`, `value` the array it holds now), or None when it is not
    an array of numbers, or a list, tuple or dict (``cfg.WEIGHTS``, read as the module's own dicts are:
    frontend/depends.py), of a module named directly (``data.X``, data a module the function's globals hold)."""
    array = isinstance(value, np.ndarray) and value.dtype.kind in "biufc"
    if not (isinstance(module, types.ModuleType) and isinstance(node.value, ast.Name)
            and (array or isinstance(value, (list, tuple, dict)))):
        return None
    if node.value.id not in state.parsed.globals or state.parsed.globals[node.value.id] is not module:
        return None  # (a module a closure holds, or an import in the body: not read by that name when run)
    if not array:
        return Global(f"{node.value.id}.{node.attr}", complex=shapes.holds_complex(value))
    state.parsed.include([Dependency(vars(module), node.attr, shapes.signature(value), of_signature=True)])
    return Global(f"{node.value.id}.{node.attr}", shapes.of_constant(value), shapes.holds_complex(value))


__all__ = ["module_array"]
