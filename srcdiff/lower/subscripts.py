"""Lowering of indexing: ``x[i]``, ``x[1:n, None]``, and unpacking ``a, b = x``.

A subscript is one `getitem` node whose static ``index`` describes each component (an
integer, a slice with how many operand bounds, a new axis, an index operand), so its
adjoint can scatter the gradient back to the same place.
"""

from __future__ import annotations

import ast
from collections.abc import Hashable

from ..frontend.depends import MISSING, Dependency
from ..ir.nodes import Const, Global, Operand, Var, operand_ast
from ..rules.structural import GETITEM, NOGRAD
from .dict_loops import module_dict
from .effects import count_guard
from .emit import emit_rule
from .enum_members import enum_item, enum_member, is_enum_class
from .expressions import ExpressionLowerer
from .joins import index_join_kind, lower_index_join
from .list_item_slices import sliced_display
from .lists import as_array
from .opaque import opaque
from .range_index import lower_range_index
from .static_dicts import lower_dict_subscript
from .static_values import static_value


def lower_subscript(lower: ExpressionLowerer, node: ast.Subscript, target) -> Operand:
    read = lower_dict_subscript(lower, node, target)  # cfg["eps"] of a dict of constants
    if read is not None:
        return read
    member = enum_item(lower.state, node)  # Act[name]: a member, static
    if member is not MISSING:
        return Const(member)
    if is_enum_class(lower.state, node.value):
        return opaque(lower, node, target)  # (of a key known when the function runs: no gradient)
    keyed = _module_dict_at_a_key(lower, node)
    if keyed is not None:  # OBS[300.0], WEIGHTS[Term.FIT]: a number held, a constant (numba's too) the
        spelled, key = keyed  # gradient depends on by value; anything else read when run
        held = static_value(lower.state, node.value)
        if type(held.get(key)) in (int, float):
            lower.state.parsed.include([Dependency(held, key, held[key])])
            return Const(held[key])
        return opaque(lower, spelled, target)
    if isinstance(node.value, ast.Subscript) and _module_data_item(lower, node.value):
        known = _module_data_constant(lower, node)  # TABLE[i][j] of a table of tables, i and j known now
        if known is not MISSING:  # (an unrolled loop's keys): the number, as at constant indices
            return Const(known)
    key = _text_key(lower, node.slice)
    if key is not None and (isinstance(node.value, ast.Name) or of_a_module(lower.state, node.value)) \
            and (isinstance(lower.expr(node.value), Global) or module_dict(lower.state, node.value) is not None):
        # CONFIG["scale"]: data of the module, read when run (CONFIG[k] too, k a key of a loop over CONFIG)
        keyed = ast.copy_location(ast.Subscript(node.value, ast.copy_location(ast.Constant(key), node.slice),
                                                ast.Load()), node)
        return opaque(lower, keyed, target)
    if key is not None and _module_data_item(lower, node.value):
        # ARCH[i]["act"], LAYERS[0]["size"]: a key of a dict a module list holds, read when run too
        # (ARCH[0]["act"] at constant indices: the constant, the gradient built again if ARCH changes)
        known = _module_data_constant(lower, node)
        if known is not MISSING:
            return Const(known)
        keyed = ast.copy_location(ast.Subscript(node.value, ast.copy_location(ast.Constant(key), node.slice),
                                                ast.Load()), node)
        return opaque(lower, keyed, target)
    joined = index_join_kind(lower, node)
    if joined is not None:  # np.r_[a, b], np.c_[a, b]
        return lower_index_join(lower, node, joined, target)
    inputs, kinds, parts = index_parts(lower, node)
    index = parts[0] if len(parts) == 1 and not isinstance(node.slice, ast.Tuple) \
        else ast.Tuple(parts, ast.Load())
    return getitem(lower, inputs, tuple(kinds), index, target)


def _module_data_item(lower: ExpressionLowerer, node: ast.expr) -> bool:
    """Whether `node` is an item of module data (``ARCH[i]``, ``GROUPS[0][1]``: a chain of subscripts, no
    slices, rooted at a module list, tuple or dict), which holds no array srcdiff differentiates."""
    depth = 0
    while isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        node, depth = node.value, depth + 1
    if depth and of_a_module(lower.state, node):  # cfg.LAYERS[0]["size"]: data another module holds, read by its name
        return isinstance(static_value(lower.state, node, record=False), (list, tuple, dict))
    if not depth or not isinstance(node, ast.Name) or node.id in lower.state.env or node.id in lower.state.locals:
        return False
    return isinstance(static_value(lower.state, node, record=False), (list, tuple, dict))


def of_a_module(state, node: ast.expr) -> bool:
    """Whether `node` is ``mod.NAME`` of a module the function's globals name `mod` (``cfg.WEIGHTS``): the
    generated code, which runs in those globals, reads it by that name, as it reads the module's own data."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)) or node.value.id in state.env \
            or node.value.id in state.locals:
        return False
    module = state.parsed.globals.get(node.value.id)
    return isinstance(module, type(ast)) and static_value(state, node.value, record=False) is module


def _module_data_constant(lower: ExpressionLowerer, node: ast.Subscript):
    """The number or string module data holds at indices known now (``ARCH[0]["act"]``), else MISSING."""
    keys = []
    while isinstance(node, ast.Subscript):
        bound = lower.state.env.get(node.slice.id) if isinstance(node.slice, ast.Name) else None
        key = node.slice.value if isinstance(node.slice, ast.Constant) else bound.value \
            if isinstance(bound, Const) else None
        if key is None or isinstance(key, bool) or not isinstance(key, (int, str)):
            return MISSING
        keys.append(key)
        node = node.value
    value = static_value(lower.state, node)  # (recorded: a list by its items, a dict by identity)
    held = []
    try:
        for key in reversed(keys):
            if type(value) is dict:  # CFG["z"]["s"] = 0.9 in place: each dict's item a dependency (by value at the end)
                held.append(Dependency(value, key, value[key]))
            value = value[key]
    except (LookupError, TypeError):
        return MISSING
    if type(value) not in (int, float, str):
        return MISSING
    lower.state.parsed.include(held)
    return value


def _module_dict_at_a_key(lower: ExpressionLowerer, node: ast.Subscript) -> tuple | None:
    """``OBS[300.0]``, ``WEIGHTS[Term.FIT]`` (or a loop's member ``WEIGHTS[k]``, the member written
    ``Term.FIT``): a module dict read at a float or an Enum member known when the gradient is built (not an
    index): (the read as the code spells it, the key); None for any other subscript.  The dict holds data,
    no gradient."""
    if not isinstance(node.value, ast.Name) or module_dict(lower.state, node.value) is None:
        return None
    key = node.slice
    if isinstance(key, ast.Constant) and type(key.value) is float:
        return node, key.value
    bound = lower.state.env.get(key.id) if isinstance(key, ast.Name) else None
    if isinstance(bound, Const) and type(bound.value) is float:
        return ast.copy_location(ast.Subscript(node.value, ast.copy_location(ast.Constant(bound.value), key),
                                               ast.Load()), node), bound.value
    member = enum_member(lower.state, key) if isinstance(key, (ast.Name, ast.Attribute)) else None
    if member is None:
        return None
    if isinstance(key, ast.Attribute):
        return node, member
    cls = type(member)  # (a loop's name bound to the member: the member spelled by its class, if the module has it)
    if static_value(lower.state, ast.Name(cls.__name__, ast.Load()), record=False) is not cls:
        return None
    spelled = ast.Attribute(ast.Name(cls.__name__, ast.Load()), member.name, ast.Load())
    return ast.copy_location(ast.Subscript(node.value, ast.fix_missing_locations(ast.copy_location(spelled, key)),
                                           ast.Load()), node), member


def lower_module_dict_get(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``WEIGHTS.get(Term.FIT, 0.0)``, ``OBS.get(300.0)`` of a module dict at a key written out (a constant, an
    Enum member) with a default written out: data read when the function runs, as ``WEIGHTS[Term.FIT]`` is;
    a default computed in the function is refused (its derivative would be lost); None for other calls."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "get"
            and (isinstance(func.value, ast.Name) or of_a_module(lower.state, func.value)) and not node.keywords
            and 1 <= len(node.args) <= 2 and module_dict(lower.state, func.value) is not None):
        return None
    key = node.args[0]
    if not (isinstance(key, ast.Constant) or isinstance(key, ast.Attribute) and enum_member(lower.state, key)):
        return None
    if len(node.args) == 2 and not isinstance(node.args[1], ast.Constant):
        raise lower.state.error(node, f"{ast.unparse(node)} reads a dict of the module with a default computed in "
                                "the function, whose derivative srcdiff would lose", f"write {ast.unparse(func.value)}"
                                f"[{ast.unparse(key)}] if {ast.unparse(key)} in {ast.unparse(func.value)} else ...")
    held = static_value(lower.state, func.value)
    known = key.value if isinstance(key, ast.Constant) else enum_member(lower.state, key)
    found = held.get(known, MISSING) if isinstance(known, Hashable) else None
    default = node.args[1].value if len(node.args) == 2 else None
    if type(found) in (int, float) or found is MISSING and type(default) in (int, float):
        lower.state.parsed.include([Dependency(held, known, found)])  # (a key added or removed: built again)
        return Const(default if found is MISSING else found)
    return opaque(lower, node, target)


def _text_key(lower: ExpressionLowerer, node: ast.expr) -> str | None:
    """The string `node` is when the gradient is built: ``"lo"``, or a loop's key bound to one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    bound = lower.state.env.get(node.id) if isinstance(node, ast.Name) else None
    return bound.value if isinstance(bound, Const) and isinstance(bound.value, str) else None


def index_parts(lower: ExpressionLowerer, node: ast.Subscript):
    """The operands a subscript reads (the array first), each component's kind, and the
    components as they read those operands."""
    x = lower.expr(node.value)
    comps = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    inputs, kinds, parts = [x], [], []
    held = _held_tuple(lower, node.slice)
    if held is not None:  # idx = (rows, cols); x[idx]: NumPy reads x[rows, cols], one item per axis
        for item in held:
            if isinstance(item, Const):
                kinds.append(("int", 0))
            else:
                inputs.append(item)
                kinds.append(("op", 1))
            parts.append(operand_ast(item))
        return inputs, kinds, parts
    for comp in comps:
        if isinstance(comp, ast.Attribute) and static_value(lower.state, comp) is None:
            comp = ast.Constant(None)  # np.newaxis is None: a new axis, as NumPy reads it
        if isinstance(comp, ast.Slice):
            bounds = []
            for part in (comp.lower, comp.upper, comp.step):
                operand = None if part is None else lower.expr(part)
                if isinstance(operand, (Var, Global)):
                    inputs.append(operand)
                bounds.append(None if operand is None else operand_ast(operand))
            kinds.append(("slice", sum(isinstance(b, ast.Name) for b in bounds)))
            parts.append(ast.Slice(*bounds))
        elif isinstance(comp, ast.Constant) and comp.value is None:
            kinds.append(("newaxis", 0))
            parts.append(comp)
        elif isinstance(comp, ast.Constant) and comp.value is Ellipsis:
            kinds.append(("ellipsis", 0))  # the axes the other components do not name
            parts.append(comp)
        else:
            operand = lower_range_index(lower, comp)  # x[range(n), y]: np.arange(n)
            member = enum_member(lower.state, comp) if operand is None and isinstance(comp, ast.Attribute) else None
            if isinstance(member, int):  # p[Axis.X] of an IntEnum member: the number it stands for here
                operand = Const(int(member))
            operand = lower.expr(comp) if operand is None else operand
            if isinstance(operand, Var) and lower.state.is_list(operand) and not lower.state.is_list(x):
                # x[list(idx)]: NumPy reads a list index as the array it makes (and so does the
                # generated code, whose scatters and higher derivatives take arrays, not lists)
                operand = as_array(lower.state, operand)
            if isinstance(operand, Const):
                if not isinstance(operand.value, int):
                    raise lower.state.error(node, f"index {operand.value!r} is not an integer")
                kinds.append(("int", 0))
            else:
                inputs.append(operand)
                kinds.append(("op", 1))
            parts.append(operand_ast(operand))
    return inputs, kinds, parts


def _held_tuple(lower: ExpressionLowerer, index: ast.expr) -> tuple | None:
    """The items of a tuple built in the function and used whole as an index (``x[idx]``,
    ``idx = (rows, cols)``): NumPy indexes one axis per item, where a list index would be one
    array.  An item that is not an integer or an array (a slice, None) is refused."""
    if not isinstance(index, ast.Name) or index.id not in lower.state.env:
        return None
    operand = lower.expr(index)
    items = lower.state.tuple_items.get(operand.name) if isinstance(operand, Var) else None
    if items is None and isinstance(operand, Var) and operand.name in lower.state.tuples:
        # (a tuple rebound in a loop or on the sides of an ``if``: NumPy reads one item per axis, which
        # srcdiff can follow only knowing the items; read as one index array it would be wrong)
        raise lower.state.error(index, f"a tuple index held in a name ({index.id}) that a loop or an `if` gives "
                                "another tuple is not supported",
                                f"write the index out: x[{index.id}[0], {index.id}[1]]")
    if items is None:
        return None
    if not all(isinstance(i, Var) and not lower.state.is_list(i) or isinstance(i, Const) and type(i.value) is int
               for i in items):
        raise lower.state.error(index, f"a tuple index held in a name ({index.id}) with items other than integers "
                                "and arrays is not supported", f"write the index out: x[{index.id}[0], {index.id}[1]]")
    return items


def subscript(lower: ExpressionLowerer, x: Operand, index: Operand, target=None) -> Operand:
    """``x[index]`` for one integer index operand."""
    kinds = (("int", 0),) if isinstance(index, Const) else (("op", 1),)
    inputs = [x] + ([index] if isinstance(index, Var) else [])
    return getitem(lower, inputs, kinds, operand_ast(index), target)


def getitem(lower: ExpressionLowerer, inputs, kinds, index: ast.expr, target) -> Operand:
    x = inputs[0]
    state = lower.state
    items = state.tuple_items.get(x.name) if isinstance(x, Var) else None
    if items is not None and list(kinds) == [("int", 0)] and isinstance(index, ast.Constant) \
            and -len(items) <= index.value < len(items):
        return items[index.value]  # an item of a tuple built here is the value put into it
    shown = state.returned_displays.get(x.name) if isinstance(x, Var) else None
    if shown is not None and list(kinds) == [("slice", 0)]:
        made = sliced_display(lower, x, shown, index, target)  # m[1:3] of a helper's list: [m[1], m[2]]
        if made is not None:
            return made
    nograd = state.nograd_items.get(x.name, ()) if isinstance(x, Var) else ()
    if list(kinds) == [("int", 0)] and isinstance(index, ast.Constant) and index.value in nograd:
        expr = ast.Subscript(operand_ast(x), index, ast.Load())  # an index array a helper returns
        return emit_rule(lower.state, NOGRAD, (x,), {}, expr, target)
    sliced = state.is_list(x) and any(kind == "slice" for kind, _ in kinds)
    static = {"index": kinds}
    bounds = slice_bounds(index)
    if bounds:
        static["slices"] = bounds
    if state.is_list(x) and x.name in state.nested:
        if not generated_code(state):
            raise state.error(state.line, "reading an item of a list of lists (or of tuples) is not "
                              "supported: the adjoints of its items cannot be added up",
                              "make each item an array (np.array([a, b])), or keep one list per "
                              "field and loop over zip(as_, bs)")
        # a generated gradient's stack of lists (np.split's parts, kept for their shapes): refused
        # where the item's adjoint is needed (ad/regions.py)
        static["nested"] = True
    expr = ast.Subscript(operand_ast(x), index, ast.Load())
    out = emit_rule(lower.state, GETITEM, tuple(inputs), static, expr, target)
    if sliced and isinstance(out, Var):
        sliced_list(state, x, out)
    if isinstance(x, Var) and list(kinds) == [("int", 0)] and isinstance(index, ast.Constant) \
            and index.value in state.fresh_items.get(x.name, ()):
        state.sharing.fresh(out.name)  # a new array a called function returned
    guard = state.guarded_items.get(x.name) if isinstance(x, Var) else None
    return guard(out) if guard is not None and isinstance(out, Var) else out  # (measure_guards.guard_call)


def sliced_list(state, x: Var, out: Var) -> None:
    """``xs[a:b:c]`` of a list is a new list of the same items (its adjoint, a list, is added back
    item by item: list_add of a slice, rules/list_helpers.py), holding lists where `xs` does."""
    state.lists.add(out.name)
    if x.name in state.nested:
        state.nested.add(out.name)
    for loop in state.loops:
        loop.created.add(out.name)  # a new list in every iteration


def slice_bounds(index: ast.expr) -> tuple:
    """Per slice of `index`, its (start, stop, step), each None (left out), an int written in
    the code, or "op" (a value): what the shape of ``x[:n]`` or ``x[:, :]`` can be known from."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]

    def bound(b):
        if b is None or (isinstance(b, ast.Constant) and b.value is None):
            return None
        return b.value if isinstance(b, ast.Constant) and type(b.value) is int else "op"

    return tuple((bound(p.lower), bound(p.upper), bound(p.step)) for p in parts if isinstance(p, ast.Slice))


def generated_code(state) -> bool:
    """Whether the function lowered is a gradient srcdiff generated, differentiated again."""
    return getattr(state.parsed.func, "__srcdiff_generated__", False)


def unpack(lower: ExpressionLowerer, value: ast.expr, count: int, names=None) -> list[Operand]:
    """``a, b = value``: one subscript per name (named after it, when given)."""
    x = lower.expr(value)
    count_guard(lower.state, x, count, f"expected {count} values to unpack")
    names = names or [None] * count
    return [subscript(lower, x, Const(j), target=names[j]) for j in range(count)]
