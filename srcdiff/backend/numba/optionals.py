"""An index that may be None where numba types it: ``g[t20, e] = 0.0`` after ``t20 = None``.

The forward sweep presets a name a branch of a loop sets (``t20 = None`` before the loop) so
that the loop's stack holds it on every path; numba types it ``Optional(int64)``, and has no
``setitem`` or ``getitem`` with an optional in the index.  Where the code reads such a name
in an index, it reads ``present(t20)``: the value itself (numba's cast of an optional, which
raises ``TypeError`` if it is None: the Python gradient then runs and says what went wrong).
The backward sweep reads it only on the path that set it, so the values are unchanged.  The
same holds of a NumPy function's argument (``np.where(t11 == 0, 1.0, t11)``, a norm's adjoint
under an ``if`` in a loop): numba has no NumPy function of an optional.

A value first assigned in a loop (``v = None`` before it) has its adjoint reset by
``zeros_like(v)`` in the backward loop, where the value popped for the first iteration is None
(Python's zeros are then 0.0, read by nothing: no iteration comes before the first).  numba
first types such a call with ``v`` as None, then as ``Optional(array)``, and cannot join the
number and the array the two give.  ``zeros_like`` of a preset name is ``zeros_of_preset``,
which has no version for None alone (numba types it again once it knows the optional) and gives
an array with no element where the value is None, so the adjoint keeps one type.

A helper's pullback is a function apart from its forward function: it does not see the presets, so
every name it unpacks from a stack or from what the forward function saved may be such a None
(``present`` of a value that is not optional is the value itself).
"""

from __future__ import annotations

import ast

from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from . import kindflow
from .naming import overload
from .runtime import zeros_like


def present(value):
    """Outside numba: the value itself."""
    return value


@intrinsic
def _cast_present(typingctx, value):
    """An ``Optional(T)`` cast to ``T`` (numba raises ``TypeError`` where it holds None)."""
    def codegen(context, builder, signature, args):
        # (the cast borrows the optional's reference: an array given out is a reference of its own,
        # else numba frees it twice, a heap corrupted)
        return impl_ret_borrowed(context, builder, value.type, context.cast(builder, args[0], value, value.type))
    return value.type(value), codegen


@overload(present)
def _present(value):
    if isinstance(value, types.Optional):
        return lambda value: _cast_present(value)
    return lambda value: value


def zeros_of_preset(value):
    """Outside numba: ``zeros_like`` (0.0 of None)."""
    return zeros_like(value)


@overload(zeros_of_preset)
def _zeros_of_preset(value):
    if isinstance(value, types.NoneType):
        return None  # (numba's first guess of a name preset to None: typed again as an optional)
    return lambda value: zeros_like(value)  # (an optional array's None: an array with no element)


def rewrite(func: ast.FunctionDef) -> set:
    """Wrap, in place, the names `func` presets to None where an index or a NumPy function reads
    them, and spell their zeros ``zeros_of_preset``; the helpers it wrote."""
    preset = _maybe_none(func)
    if not preset:
        return set()
    changed, helpers = False, set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zeros_like" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in preset:
            node.func.id = "zeros_of_preset"
            helpers.add("zeros_of_preset")
        elif isinstance(node, ast.Subscript):
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
    return helpers | ({"present"} if changed else set())


def _maybe_none(func: ast.FunctionDef) -> set:
    """The names `func` presets to None, and those that may hold such a name's None: what a stack
    it is appended to gives back (``y_3 = stack[k]`` of ``stack.append(y)``: forward mode over a
    gradient's code reads its stack into a name of its own), and renames of them."""
    assigns = [node for node in ast.walk(func) if isinstance(node, ast.Assign)]
    found = {t.id for node in assigns if isinstance(node.value, ast.Constant) and node.value.value is None
             for t in node.targets if isinstance(t, ast.Name)}
    if _pullback(func):  # a helper's pullback: its forward function, apart, preset the names it saved and
        found |= {e.id for node in assigns if len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
                  and (kindflow.stack_of(node.value) is not None or _saved(node.value, func))
                  for e in node.targets[0].elts if isinstance(e, ast.Name)}  # stacked: any may be None
    if not found:
        return found
    while True:
        piled = set()  # (stack, position in the tuple appended; None: the item itself)
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Name) and len(node.args) == 1:
                item = node.args[0]
                if isinstance(item, ast.Name) and item.id in found:
                    piled.add((node.func.value.id, None))
                elif isinstance(item, ast.Tuple):
                    piled.update((node.func.value.id, i) for i, e in enumerate(item.elts)
                                 if isinstance(e, ast.Name) and e.id in found)
        grown = set(found)
        for node in assigns:
            if len(node.targets) != 1:
                continue
            target, stack = node.targets[0], kindflow.stack_of(node.value)
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Name) and node.value.id in found:
                grown.add(target.id)
            elif isinstance(target, ast.Name) and (stack, None) in piled:
                grown.add(target.id)
            elif isinstance(target, ast.Tuple) and stack is not None:
                grown.update(e.id for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and (stack, i) in piled)
        if grown == found:
            return found
        found = grown


def _pullback(func: ast.FunctionDef) -> bool:
    """Whether `func` is a helper's pullback, given what its forward function saved (``f_vjp__saved``:
    module.py's SAVED)."""
    return any(a.arg.endswith("__saved") for a in func.args.args)


def _saved(value: ast.expr, func: ast.FunctionDef) -> bool:
    """Whether `value` is the pullback's parameter holding what the forward function saved."""
    return isinstance(value, ast.Name) and value.id.endswith("__saved") \
        and any(a.arg == value.id for a in func.args.args)


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


HELPERS = ("present", "zeros_of_preset")
