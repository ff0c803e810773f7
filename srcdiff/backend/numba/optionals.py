"""An index that may be None where numba types it: ``g[t20, e] = 0.0`` after ``t20 = None``.

The forward sweep presets a name a branch of a loop sets (``t20 = None`` before the loop) so
that the loop's stack holds it on every path; numba types it ``Optional(int64)``, and has no
``setitem`` or ``getitem`` with an optional in the index.  Where the code reads such a name
in an index, it reads ``present(t20)``: the value itself (numba's cast of an optional, which
raises ``TypeError`` if it is None: the Python gradient then runs and says what went wrong).
The backward sweep reads it only on the path that set it, so the values are unchanged.  The
same holds of a NumPy function's argument (``np.where(t11 == 0, 1.0, t11)``, a norm's adjoint
under an ``if`` in a loop): numba has no NumPy function of an optional.
"""

from __future__ import annotations

import ast

from numba import types
from numba.extending import intrinsic

from .naming import overload


def present(value):
    """Outside numba: the value itself."""
    return value


@intrinsic
def _cast_present(typingctx, value):
    """An ``Optional(T)`` cast to ``T`` (numba raises ``TypeError`` where it holds None)."""
    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], value, value.type)
    return value.type(value), codegen


@overload(present)
def _present(value):
    if isinstance(value, types.Optional):
        return lambda value: _cast_present(value)
    return lambda value: value


def rewrite(func: ast.FunctionDef) -> bool:
    """Wrap, in place, the names `func` presets to None where an index or a NumPy function reads
    them; whether any."""
    preset = {t.id for node in ast.walk(func) if isinstance(node, ast.Assign)
              and isinstance(node.value, ast.Constant) and node.value.value is None
              for t in node.targets if isinstance(t, ast.Name)}
    if not preset:
        return False
    changed = False
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript):
            node.slice, wrapped = _index(node.slice, preset)
            changed |= wrapped
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in INDEXED \
                and len(node.args) > 1:
            node.args[1], wrapped = _index(node.args[1], preset)
            changed |= wrapped
        elif isinstance(node, ast.Call) and _of_numpy(node.func):
            # np.where(t11 == 0, 1.0, t11): numba has no NumPy function of an optional; the Python
            # code never passes such a name None (NumPy would raise), so its value is there
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id in preset:
                    node.args[i], changed = _wrapped(arg), True
    return changed


def _of_numpy(func: ast.expr) -> bool:
    """Whether `func` is spelled ``np.name`` (or ``np.linalg.name``)."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id == "np"


#: run-time helpers whose second argument is an index (``zero_item(g, (e, t20))``)
INDEXED = {"zero_item", "set_item", "add_at"}


def _index(index: ast.expr, preset: set) -> tuple:
    """`index` with its preset names (alone, or items of a tuple) read through ``present``."""
    if isinstance(index, ast.Name) and index.id in preset:
        return _wrapped(index), True
    wrapped = False
    if isinstance(index, ast.Tuple):
        for i, item in enumerate(index.elts):
            if isinstance(item, ast.Name) and item.id in preset:
                index.elts[i], wrapped = _wrapped(item), True
    return index, wrapped


def _wrapped(name: ast.Name) -> ast.Call:
    return ast.copy_location(ast.Call(ast.Name("present", ast.Load()), [ast.Name(name.id, ast.Load())], []), name)


HELPERS = ("present",)
