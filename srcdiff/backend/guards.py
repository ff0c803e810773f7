"""The signature guard at the top of a compiled gradient's fast path.

A compiled variant is only right for arguments of the signature it was specialised for
(`shapes.signature`).  Its fast-path copy starts with a check of exactly that; any other
call goes to the slow path, which picks or compiles the right variant.  The check is cheap
for Python numbers (a type test) and exact for arrays (ndim, dtype kind, length-one axes).
It also checks the globals and closure variables the transform read statically
(srcdiff/depends.py; ``AXIS == 0``, ``ACT is np.tanh``, the signature of a global array the code
reads; a list the code was built from, by its items too: ``NAMES.append(k)``), so a rebinding
or a list changed in place re-transforms; a function that reads none gets no such test.  A
gradient specialised on the values of parameters used as static arguments (``axis=axis``,
srcdiff/lower.py) checks those values, type and all (``axis=1`` and ``axis=True`` are different variants).
"""

from __future__ import annotations

import ast
import types

import numpy as np

from ..frontend import depends
from ..ir import shapes
from ..ir.nodes import typed
from ..ir.shapes import signature

SLOW = "__srcdiff_slow__"
_TYPE, _SIGNATURE, _NDARRAY = "__srcdiff_type__", "__srcdiff_signature__", "__srcdiff_ndarray__"
_MISSING = "__srcdiff_missing__"


def prologue(params: list[str], key: tuple, depends=(), direct=frozenset(),
             statics=None, owner=None) -> tuple[list[ast.stmt], dict[str, object]]:
    """``if not <all arguments match key>: return __srcdiff_slow__(*params)``, and its cells.

    The test also checks that every dependency (srcdiff/depends.py: a global or closure
    variable the transform read statically) still holds its value; a dependency whose name
    is in `direct` is read by name (the generated code sees that name as the user's
    function does), any other through its globals dict or cell.  `statics` maps parameters
    to the values the code was specialised on; `owner`, (function, code), the function
    differentiated and the code it was parsed from (a module reloader replaces ``__code__``).
    """
    cells = {_TYPE: type, _SIGNATURE: signature}
    tests = []
    for i, (name, sig) in enumerate(zip(params, key)):
        expected = f"__srcdiff_k{i}__"
        cells[expected] = sig
        arg = ast.Name(name, ast.Load())
        if isinstance(sig, type):
            probe = ast.Call(ast.Name(_TYPE, ast.Load()), [arg], [])
            tests.append(ast.Compare(probe, [ast.Is()], [ast.Name(expected, ast.Load())]))
        elif _is_array_signature(sig):
            cells[_NDARRAY] = np.ndarray
            tests += _array_tests(name, sig, cells)
        else:
            probe = ast.Call(ast.Name(_SIGNATURE, ast.Load()), [arg], [])
            tests.append(ast.Compare(probe, [ast.Eq()], [ast.Name(expected, ast.Load())]))
            if getattr(sig, "kind", None) is tuple and sig.item in (float, int):
                tests[-1] = _seen_tuple_test(i, name, tests[-1], cells)
    for i, dep in enumerate(depends):
        tests.append(_dependency_test(i, dep, dep.name in direct, cells))
    for i, (name, value) in enumerate((statics or {}).items()):
        tests.append(_value_test(i, name, value, cells))
    if owner is not None:
        cells["__srcdiff_owner__"], cells["__srcdiff_code__"] = owner
        tests.append(ast.parse("__srcdiff_owner__.__code__ is __srcdiff_code__", mode="eval").body)
    if not tests:
        return [], cells
    slow_call = ast.Call(ast.Name(SLOW, ast.Load()), [ast.Name(p, ast.Load()) for p in params], [])
    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
    guard = ast.If(ast.UnaryOp(ast.Not(), test), [ast.Return(slow_call)], [])
    return [guard], cells


def _seen_tuple_test(i: int, name: str, test: ast.expr, cells: dict) -> ast.expr:
    """``name is <the last tuple that passed> or (test and <remember it>)``: a tuple of numbers cannot change,
    so the one last seen (kept alive by the guard, its id not reused) holds without reading its items: the
    same coefficients passed on each call of an optimiser's loop pay one identity test."""
    seen = f"__srcdiff_seen{i}__"
    cells[seen] = [None]
    text = f"{name} is {seen}[0] or (__srcdiff_test__ and {seen}.__setitem__(0, {name}) is None)"
    found = ast.parse(text, mode="eval").body
    found.values[1].values[0] = test
    return found


def _is_array_signature(sig) -> bool:
    return isinstance(sig, tuple) and len(sig) == 3 and isinstance(sig[0], int) \
        and isinstance(sig[1], tuple) and isinstance(sig[2], str)


#: the dtype most arrays of a kind have, tested by identity before the kind (a quicker test)
_USUAL_DTYPE = {"f": np.dtype(np.float64), "c": np.dtype(np.complex128), "i": np.dtype(np.int64),
                "b": np.dtype(np.bool_)}
_NARROW = {shapes.SINGLE: np.float32, shapes.HALF: np.float16}
_SHAPE = "__srcdiff_shape__"  # a local: the shape tuple, read once per argument


def _array_tests(name: str, sig: tuple, cells: dict) -> list[ast.expr]:
    """``signature(name) == sig`` for an ndarray signature, spelled out as attribute tests
    (no function call): type, dtype kind, ndim and each axis's length-one-ness.  Spelled for
    speed, as this runs on every call: ``x.dtype is float64`` is tested before the slower
    ``x.dtype.kind == 'f'``, and ``x.shape`` is read once (each read builds a tuple)."""
    ndim, ones, kind = sig
    text = [f"{_TYPE}({name}) is {_NDARRAY}"]  # first: the attributes below are ndarray's
    dtype = f"{name}.dtype.kind == {kind!r}"
    if kind in _NARROW:  # float32, float16: the signature tells them from float64
        usual = f"__srcdiff_dtype_{kind}__"
        cells[usual] = np.dtype(_NARROW[kind])
        dtype = f"({name}.dtype is {usual} or ({name}.dtype.kind == 'f' and {name}.dtype.itemsize == {kind[1]}))"
    elif kind in _USUAL_DTYPE:
        usual = f"__srcdiff_dtype_{kind}__"
        cells[usual] = _USUAL_DTYPE[kind]
        if kind == "f":  # not float32 nor float16, which have signatures of their own
            dtype = f"({dtype} and {name}.dtype.itemsize > 4)"
        dtype = f"({name}.dtype is {usual} or {dtype})"
    text.append(dtype)
    if ndim == 0:
        text.append(f"{name}.ndim == 0")
    elif all(ones):  # the shape is known exactly: (1,), (1, 1)...
        text.append(f"{name}.shape == {(1,) * ndim!r}")
    elif ndim == 1:
        text += [f"{name}.ndim == 1", f"{name}.shape[0] != 1"]
    else:
        compare = {True: "==", False: "!="}
        text.append(f"{name}.ndim == {ndim}")
        text.append(f"({_SHAPE} := {name}.shape)[0] {compare[ones[0]]} 1")
        text += [f"{_SHAPE}[{axis}] {compare[one]} 1" for axis, one in enumerate(ones) if axis]
    return [ast.parse(t, mode="eval").body for t in text]


def _value_test(i: int, name: str, value, cells: dict) -> ast.expr:
    """``type(name) is T and name == value`` (``typed(name) == typed(value)`` for a tuple)."""
    expected = f"__srcdiff_v{i}__"
    if isinstance(value, tuple) or typed(value) != (type(value), value):  # (a zero's sign too: -0.0 is not 0.0)
        cells[expected], cells["__srcdiff_typed__"] = typed(value), typed
        return ast.parse(f"__srcdiff_typed__({name}) == {expected}", mode="eval").body
    cells[expected], cells[f"__srcdiff_vt{i}__"] = value, type(value)
    return ast.parse(f"{_TYPE}({name}) is __srcdiff_vt{i}__ and {name} == {expected}", mode="eval").body


def _dependency_test(i: int, dep, direct: bool, cells: dict) -> ast.expr:
    """``NAME is <value>`` (or ``type(NAME) is T and NAME == <value>`` for a constant)."""
    value, scope = f"__srcdiff_d{i}__", f"__srcdiff_s{i}__"
    cells[value] = dep.value
    if direct:
        read = dep.name
    elif isinstance(dep.scope, types.CellType):
        cells[scope] = dep.scope  # shared as the generated function's own cell
        read = scope
    else:
        cells[scope], cells[_MISSING] = dep.scope, depends.MISSING
        if type(dep.name) in (str, int, float, bool):
            key = repr(dep.name)
        else:  # a key of another kind (an enum member, ACTS[Act.TANH]): read from a cell
            key = f"__srcdiff_k{i}__"
            cells[key] = dep.name
        read = f"{scope}.get({key}, {_MISSING})"
    if dep.of_signature:  # a global the code reads when it runs: only its shape is baked in
        cells[_SIGNATURE] = signature
        text = f"{_SIGNATURE}({read}) == {value}"
        if dep.state is not None:  # a tuple of numbers: the one seen is read by identity first
            cells[f"__srcdiff_o{i}__"] = dep.state
            text = f"({read} is __srcdiff_o{i}__ or {text})"
    elif dep.by_value:
        cells[f"__srcdiff_t{i}__"] = type(dep.value)
        text = f"{_TYPE}({read}) is __srcdiff_t{i}__ and {read} == {value}"
        if typed(dep.value) != (type(dep.value), dep.value):  # a zero of a sign (or a tuple holding one): the sign too
            cells[f"__srcdiff_tv{i}__"], cells["__srcdiff_typed__"] = typed(dep.value), typed
            text += f" and __srcdiff_typed__({read}) == __srcdiff_tv{i}__"
        if type(dep.value) is tuple:  # (immutable: the one seen holds by identity, before it is compared)
            text = f"({read} is {value} or {text})"
    else:
        text = f"{read} is {value}"
        if isinstance(dep.value, types.FunctionType):  # a helper whose code a module reloader replaced
            cells[f"__srcdiff_c{i}__"] = dep.value.__code__
            text += f" and {read}.__code__ is __srcdiff_c{i}__"
            wrapped = depends.wrapped_codes(dep.value)
            if wrapped:  # a decorated helper: the code of the function it wraps (whose source is read)
                cells[f"__srcdiff_w{i}__"], cells["__srcdiff_same_codes__"] = wrapped, same_codes
                text += f" and __srcdiff_same_codes__({read}, __srcdiff_w{i}__)"
            # (and its defaults, given a new tuple: a parameter not passed takes the one it has now)
            cells[f"__srcdiff_df{i}__"] = dep.value.__defaults__
            text += f" and {read}.__defaults__ is __srcdiff_df{i}__"
            if dep.value.__kwdefaults__ is not None:  # (a dict: changed in place too; each value by identity)
                cells[f"__srcdiff_kw{i}__"], cells["__srcdiff_same_items__"] = \
                    tuple(dep.value.__kwdefaults__.items()), same_items
                text += f" and __srcdiff_same_items__({read}.__kwdefaults__, __srcdiff_kw{i}__)"
            else:
                text += f" and {read}.__kwdefaults__ is None"
        state = getattr(dep, "state", None)
        if isinstance(dep.value, depends.DESCRIBED) and state is not None:  # its function replaced, or its code
            cells[f"__srcdiff_state{i}__"], cells["__srcdiff_state_of__"] = state, depends.state_of
            text += f" and __srcdiff_state_of__({read}) == __srcdiff_state{i}__"
        elif depends.changes_in_place(state):  # a helper's dict default, baked in: changed in place, lowered again
            cells[f"__srcdiff_state{i}__"], cells["__srcdiff_state_of__"] = state, depends.state_of
            text += f" and __srcdiff_state_of__({read}) == __srcdiff_state{i}__"
    return ast.parse(text, mode="eval").body


def same_items(found, items: tuple) -> bool:
    """Whether the dict `found` holds the (key, value) `items` and nothing else, each value the
    same object (a helper's keyword-only defaults, which can change in place)."""
    return found is not None and len(found) == len(items) \
        and all(key in found and found[key] is value for key, value in items)


def same_codes(func, codes: tuple) -> bool:
    """Whether the functions `func` wraps (``__wrapped__``, in order) have the code objects `codes`."""
    found = depends.wrapped_codes(func)
    return len(found) == len(codes) and all(a is b for a, b in zip(found, codes))
