"""A classmethod called on its class: ``Filter.smooth(x)``, ``Model.from_params(p)``, ``cls.helper(x)``.

The method is read as a function of its other parameters whose ``cls`` is the class, held in a
cell; a class attribute holding data that the body reads as ``cls.taps`` is a name of its own
holding that value (srcdiff reads a closure's arrays and numbers, not a class's):

    @classmethod                                   def smooth(x):         # cls: a cell holding Filter
    def smooth(cls, x):                    ->          return np.convolve(x, cls_taps_0, mode="same")
        return np.convolve(x, cls.taps, mode="same")

The function made is cached per (method, class) and made again when an attribute it read is
rebound on the class (`read` gives them; lowering records each as a dependency too).
"""

from __future__ import annotations

import ast
import copy
import inspect
import types
import weakref

from .compiling import compile_function
from .naming import assigned_names, names_in
from .parse import ParsedFunction, parse_function, register
from .spread_items import fresh_names

#: (method's function, class) -> (the function made, {attribute: the value read})
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def data_attribute(cls: type, name: str) -> bool:
    """Whether `name` of `cls` is data (an array, a number, a tuple), read as a value, rather than a
    function, a descriptor or a nested class."""
    found = inspect.getattr_static(cls, name, None)
    return found is not None and not callable(found) and not isinstance(
        found, (staticmethod, classmethod, property, types.MemberDescriptorType, types.GetSetDescriptorType))


def bound_classmethod(func: types.FunctionType, cls: type):
    """``(function, {attribute: value read})``: `func` (a classmethod's function) with its first
    parameter bound to `cls`, a plain function of the others (see the module docstring); None when
    the body rebinds its ``cls``."""
    by_class = _MADE.setdefault(func, {})
    found = by_class.get(cls)
    if found is not None and found[2] is func.__code__ and all(
            inspect.getattr_static(cls, n, None) is v for n, v in found[1].items()):
        return found[:2]
    made = _build(func, cls)
    if made is None:
        return None
    by_class[cls] = (*made, func.__code__)
    return made


def _build(func, cls: type):
    parsed = parse_function(func)
    tree = parsed.tree
    a = tree.args
    if not a.args or a.posonlyargs:
        return None
    name = a.args[0].arg
    body = [copy.deepcopy(s) for s in tree.body]
    if any(name in assigned_names(s) for s in body):
        return None  # (``cls = ...`` in the body: not the class throughout)
    taken = names_in(tree) | set(parsed.closure)
    reads = _DataReads(name, cls, taken)
    body = [reads.visit(s) for s in body]
    cells = {n: parsed.closure[n] for n in parsed.closure}
    cells[name] = types.CellType(cls)
    for fresh, (_attr, value) in reads.names.items():
        cells[fresh] = types.CellType(value)
    args = copy.deepcopy(a)
    args.args = args.args[1:]
    fdef = ast.FunctionDef(name=tree.name, args=args, body=body, decorator_list=[], returns=None,
                           type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    ast.copy_location(fdef, tree)
    fdef.end_lineno = tree.end_lineno
    ast.fix_missing_locations(fdef)
    made = compile_function(fdef, parsed, cells, func.__defaults__ or ())
    made.__kwdefaults__ = func.__kwdefaults__
    register(made, ParsedFunction(made, fdef, parsed.filename, parsed.file_lines, parsed.globals,
                                  {n: cells[n] for n in made.__code__.co_freevars}))
    return made, {attr: inspect.getattr_static(cls, attr) for attr, _ in reads.names.values()}


class _DataReads(ast.NodeTransformer):
    """``cls.taps`` of data the class holds: a fresh name (``cls_taps_0``) holding its value."""

    def __init__(self, name: str, cls: type, taken: set):
        self.name, self.cls, self.taken = name, cls, set(taken)
        self.names: dict[str, tuple] = {}  # fresh name -> (attribute, value)
        self.by_attr: dict[str, str] = {}

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.ctx, ast.Load) \
                and data_attribute(self.cls, node.attr):
            fresh = self.by_attr.get(node.attr)
            if fresh is None:
                fresh = self.by_attr[node.attr] = fresh_names(f"{self.name}_{node.attr}", 1, self.taken)[0]
                self.taken.add(fresh)
                self.names[fresh] = (node.attr, getattr(self.cls, node.attr))
            return ast.copy_location(ast.Name(fresh, ast.Load()), node)
        return self.generic_visit(node)


__all__ = ["bound_classmethod", "data_attribute"]
