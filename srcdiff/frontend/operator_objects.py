"""Operators on the user's objects: ``d * d + d`` of a little ``Dual`` class, ``-v``, ``2.0 * p``,
``A @ v``, ``poly[k]``, ``len(poly)``, ``isinstance(other, Dual)``.

An object the rewrite reads as a tree (an argument, or one built in the function: built_objects.py)
has no value of its own at run time, so an operator on it is read as Python runs it, a call of its
class's method: ``a * b`` is ``type(a).__mul__(a, b)``, or ``type(b).__rmul__(b, a)`` when `a` is not
such an object; ``-a`` is ``__neg__``; ``a[k]`` is ``__getitem__``; ``len(a)`` is ``__len__``.  The
method is flattened for the objects' structures like any helper (flatten_exprs.py); when each of its
``return`` lines builds a new object of a class the rewrite reads, the result is that object, its
fields fresh variables unpacked from the method's tuple (as returned_objects.py does for a helper)::

    e = d * d + d          ->   e_a, e_b = <Dual.__mul__>(d_a, d_b, d_a, d_b)
                                e_a_1, e_b_1 = <Dual.__add__>(e_a, e_b, d_a, d_b)

Refused at the line: a method that returns ``NotImplemented`` (Python would then try the other
operand's method, which the rewrite does not follow), an operator the object's class does not define
with ``def``, and an object-valued operator in the header of a branch or loop.

``isinstance(a, C)`` of such an object is decided here (its class is known), and so is
``isinstance(v, C)`` of a number or array for a class of the user's (False): a method that turns a
number into its class (``other = other if isinstance(other, Dual) else Dual(other, 0.0)``) works.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import types

import numpy as np

from .parse import parse_function
from .returned_objects import NotFields, object_class
from .tree_entries import Const, Leaf, Node, Read
from .trees import name_part

_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "matmul": "@", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "neg": "-", "pos": "+", "invert": "~"}
_OBJECT_KINDS = ("object", "dataclass")  # a namedtuple's operators are tuple's (concatenation)
#: values that are never an instance of a user's class: what a leaf of a tree can hold
_LEAF_TYPES = (numbers.Number, np.ndarray, np.generic, str, bytes, bool, type(None))


def _dunder(entry, name: str):
    """The function `entry`'s class defines as `name`, when `entry` is an object tree."""
    if not (isinstance(entry, Node) and entry.struct.kind in _OBJECT_KINDS):
        return None
    found = inspect.getattr_static(entry.struct.cls, name, None)
    return found if isinstance(found, types.FunctionType) else None


def _object(entry) -> bool:
    return isinstance(entry, Node) and entry.struct.kind in _OBJECT_KINDS


def _holds_object(entry, depth: int = 0) -> bool:
    """Whether `entry` is an object tree or a tree holding one (a list of Duals)."""
    return _object(entry) or isinstance(entry, Node) and depth < 4 and any(
        _holds_object(c, depth + 1) for c in entry.children.values())


def _with_operators(cls) -> bool:
    """Whether `cls` is a class defining (with `def`) an operator srcdiff reads."""
    return isinstance(cls, type) and any(
        isinstance(inspect.getattr_static(cls, f"__{op}__", None), types.FunctionType)
        for ops in (_BINARY.values(), _UNARY.values(), ("getitem", "len")) for op in ops) \
        or isinstance(cls, type) and any(
        isinstance(inspect.getattr_static(cls, f"__r{op}__", None), types.FunctionType) for op in _BINARY.values())


def _user_class(cls) -> bool:
    return isinstance(cls, type) and not issubclass(cls, _LEAF_TYPES) and cls.__module__ not in ("builtins", "numpy")


#: the Python class of a tree of each kind that has no class of its own
_BUILTIN = {"list": list, "tuple": tuple, "dict": dict}

class OperatorObjects:
    """A mixin of the expression rewriter (flatten_exprs.py)."""

    def operator_entry(self, node):
        """The entry of an operator on an object tree (its method's result), of a conditional
        expression whose test the rewrite decides (``other if isinstance(other, Vec) else Vec(other)``:
        the arm Python takes), or None."""
        if isinstance(node, ast.IfExp) and self.may_hold_object(node):
            test = self.entry(node.test)
            if isinstance(test, Const):
                chosen = node.body if test.value else node.orelse
                return self.entry(chosen) or Read(self.expr(chosen))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY and self.may_hold_object(node):
            op = _BINARY[type(node.op)]
            left, right = self.entry(node.left), self.entry(node.right)
            if _object(left) and _object(right) and right.struct.cls is not left.struct.cls \
                    and issubclass(right.struct.cls, left.struct.cls) \
                    and _dunder(right, f"__r{op}__") not in (None, _dunder(left, f"__r{op}__")):
                # Python asks a subclass's reflected method first
                return self.dunder_call(node, _dunder(right, f"__r{op}__"), right, [node.left], f"r{op}")
            func = _dunder(left, f"__{op}__")
            if func is not None:
                return self.dunder_call(node, func, left, [node.right], op)
            func = _dunder(right, f"__r{op}__") if not _object(left) else None
            if func is not None:
                return self.dunder_call(node, func, right, [node.left], f"r{op}")
            if _object(left) or _object(right):
                cls = (left if _object(left) else right).struct.cls
                raise self.error(node, f"`{ast.unparse(node)}`: {cls.__name__} defines no __{op}__"
                                 f"{'' if _object(left) else f' / __r{op}__'} srcdiff can read (a `def` of the class)",
                                 f"define the operator {_SYMBOL[op]} in {cls.__name__} with `def`, or compute "
                                 "with its fields")
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY and self.may_hold_object(node):
            op = _UNARY[type(node.op)]
            operand = self.entry(node.operand)
            func = _dunder(operand, f"__{op}__")
            if func is not None:
                return self.dunder_call(node, func, operand, [], op)
            if _object(operand):
                raise self.error(node, f"`{ast.unparse(node)}`: {operand.struct.cls.__name__} defines no __{op}__ "
                                 "srcdiff can read", "define it with `def`, or compute with the fields")
        return None

    def decided_if(self, s: ast.If):
        """An `if` whose test the rewrite decides (``if isinstance(other, Vec):``): only the side Python
        takes is read (the other may build another tree), as ``if True:``; else None."""
        calls = isinstance(s.test, ast.Call) and isinstance(s.test.func, ast.Name) \
            and s.test.func.id not in self.env and self.parsed.resolve(s.test.func.id) is isinstance
        decided = self.entry(s.test) if calls or self.may_hold_object(s.test) else self.missing_key(s.test)
        if decided is None and self.length_decided(s.test) is not None:  # if len(pts) == 1: passed_sequences.py
            decided = Const(self.length_decided(s.test))
        if not (isinstance(decided, Const) and isinstance(decided.value, bool)):
            return None
        side = s.body if decided.value else s.orelse
        taken = self.body(side)  # (as deep as the `if`: the one side always runs, ``d[k] = []`` may add a key)
        self.returned_here = bool(side) and isinstance(side[-1], ast.Return)
        return [ast.copy_location(ast.If(ast.Constant(True), taken or [ast.Pass()], []), s)]

    def missing_key(self, test):
        """Const(True/False) for ``"k" in cfg and cfg["k"] == "huber" and ...`` of a dict tree cfg, when
        its keys and constant items decide it (a mapping pattern of ``match``, desugar_match.py:
        the items its body reads may not be there), else None."""
        parts = [test]
        while any(isinstance(p, ast.BoolOp) and isinstance(p.op, ast.And) for p in parts):  # (a guard: nested)
            parts = [q for p in parts for q in (p.values if isinstance(p, ast.BoolOp) and isinstance(p.op, ast.And)
                                                else [p])]
        found = [self.tree_fact(p) for p in parts]
        return Const(False) if False in found else Const(True) if all(found) and found else None

    def tree_fact(self, part):
        """True/False for ``"k" in cfg`` (``not in``; ``key in cfg`` of a key the caller passed as a constant:
        flatten_exprs.helper_call) or ``cfg["k"] == c`` of a dict tree and a constant, else None."""
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.comparators[0],
                                                                                   (ast.Name, ast.Constant))):
            return None
        right = part.comparators[0]
        tree = self.env.get(right.id) if isinstance(right, ast.Name) else None
        if isinstance(part.ops[0], (ast.In, ast.NotIn)) and isinstance(tree, Node) and tree.struct.kind == "dict":
            key = self.constant(part.left)
            if key is not None:
                return (key in tree.children) == isinstance(part.ops[0], ast.In)
        left = part.left
        if isinstance(part.ops[0], (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) \
                and isinstance(left, ast.Subscript) and isinstance(left.value, ast.Name) \
                and isinstance(left.slice, ast.Constant) and isinstance(self.env.get(left.value.id), Node) \
                and self.env[left.value.id].struct.kind == "dict":
            item = self.env[left.value.id].children.get(left.slice.value)
            if isinstance(item, Const) and isinstance(item.value, (str, int, float)):
                return (item.value == right.value) == isinstance(part.ops[0], ast.Eq)
        return None

    def object_without_inplace(self, entry, op) -> bool:
        """Whether ``name op= v`` of object tree `entry` is ``name = name op v``: its class defines
        the operator but not the in-place one (as Python then does)."""
        name = _BINARY.get(type(op))
        return name is not None and _object(entry) and _dunder(entry, f"__i{name}__") is None \
            and _dunder(entry, f"__{name}__") is not None

    def may_hold_object(self, node) -> bool:
        """Whether an operand of `node` may be an object tree with operators (a cheap test: a name
        holding an object, or a call of a class defining one), so plain arithmetic is not read twice."""
        for n in ast.walk(node):
            if not isinstance(n, ast.Name):
                continue
            if _holds_object(self.env.get(n.id)):  # d, or ds of ds[0] * ds[1]
                return True
            if n.id not in self.env and _with_operators(self.parsed.resolve(n.id)):
                return True
        return False

    def item_entry(self, node: ast.Subscript, base: Node):
        """``poly[k]`` of an object whose class defines ``__getitem__``: its result; else None."""
        func = _dunder(base, "__getitem__")
        return None if func is None else self.dunder_call(node, func, base, [node.slice], "getitem")

    def object_builtin(self, builtin, arg, node):
        """``len(obj)`` of an object tree (its ``__len__``, or refused: Python raises without one), and
        ``isinstance(v, C)`` decided where the rewrite knows `v`'s class; else None."""
        if builtin is len and _object(arg):
            func = _dunder(arg, "__len__")
            if func is None:
                raise self.error(node, f"{ast.unparse(node)}: {arg.struct.describe()} has no __len__ (Python raises)")
            return self.dunder_call(node, func, arg, [], "len")
        if builtin is sum and isinstance(arg, Node) and arg.struct.kind in ("list", "tuple") and arg.children \
                and all(_object(c) for c in arg.children.values()) and len(node.args) <= 2:
            return self.object_sum(node, list(arg.children.values()))
        if builtin is isinstance and len(node.args) == 2:
            classes = self.static_classes(node.args[1])
            if classes is None:
                return None
            if isinstance(arg, Node) and arg.struct.cls is not None and isinstance(arg.struct.cls, type):
                return Const(issubclass(arg.struct.cls, classes))
            if isinstance(arg, Node) and arg.struct.kind in _BUILTIN:  # isinstance(tree, list) of a list tree
                return Const(issubclass(_BUILTIN[arg.struct.kind], classes))
            plain = isinstance(arg, Leaf) or (arg is None and isinstance(node.args[0], ast.Name)
                                              and node.args[0].id in self.plain_parameters())
            if plain and all(_user_class(c) for c in classes):
                return Const(False)  # a leaf holds a number or an array, never an object of the user's
        return None

    def object_sum(self, node: ast.Call, items: list):
        """``sum(ds)`` of a list of objects, as Python adds them: ``start + ds[0]`` (the start's ``+``
        declines an object, so ``ds[0].__radd__(start)``), then each next item through ``__add__``."""
        start = node.args[1] if len(node.args) == 2 else ast.copy_location(ast.Constant(0), node)
        if isinstance(self.entry(start), Node):
            raise self.error(node, f"{ast.unparse(node)} starts from an object", "start from a number")
        total = None
        for item in items:
            method = "__radd__" if total is None else "__add__"
            owner = item if total is None else total
            func = _dunder(owner, method)
            if func is None:
                raise self.error(node, f"{ast.unparse(node)}: {owner.struct.cls.__name__} defines no {method} srcdiff "
                                 "can read (Python adds the items to the start through it)",
                                 f"define {method} with `def`, or add the items with +")
            given = start if total is None else self.named(item, node)
            total = self.dunder_call(node, func, owner, [given], method.strip("_"))
        return total

    def named(self, entry, where) -> ast.Name:
        """A fresh name standing for `entry` (an operand of a method the rewrite calls)."""
        name = self.names.fresh("item")
        self.env[name] = entry
        return ast.copy_location(ast.Name(name, ast.Load()), where)

    def plain_parameters(self) -> set:
        """The parameters of the function being rewritten that hold no tree (numbers, arrays)."""
        args = self.parsed.tree.args
        return {a.arg for a in args.args + args.kwonlyargs if a.arg not in self.env}

    def static_classes(self, node):
        found = self.static_object(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if isinstance(found, type):
            return (found,)
        if isinstance(node, ast.Tuple):
            parts = [self.static_classes(e) for e in node.elts]
            return None if any(p is None for p in parts) else tuple(c for p in parts for c in p)
        return None

    def dunder_call(self, node, func, owner: Node, operands: list, op: str):
        """`func` (a method of `owner`'s class) called with `owner` and `operands`: the new object it
        returns (its fields unpacked into fresh variables, before the statement), or a `Read` of the
        call's value."""
        if any(isinstance(n, ast.Name) and n.id == "NotImplemented" for n in ast.walk(self.method_tree(func))):
            raise self.error(node, f"`{ast.unparse(node)}` calls {func.__qualname__}, which may return "
                             "NotImplemented (Python then tries the other operand's method): srcdiff does not "
                             "follow that", f"make {func.__qualname__} handle every operand it is given here")
        written = self.method_written_out(func, owner, list(operands), node)  # return self.layers[i] (local_defs.py)
        if written is not None:
            return written
        label = name_part(f"{owner.struct.cls.__name__}_{op}")
        fake = ast.copy_location(ast.Call(ast.Name(label, ast.Load()), list(operands), []), node)
        if object_class(func, operators=True) is not None:
            if self.built is None:
                raise self.error(node, f"`{ast.unparse(node)}` makes a new {owner.struct.cls.__name__} in the header "
                                 "of a branch or loop", "compute it in an assignment before this line")
            try:
                call, flat = self.helper_call(fake, func, [owner], {}, label, returns_object=True)
            except NotFields:
                call, flat = None, None
            if flat is not None:
                struct = flat.returns
                base = getattr(self, "target_base", None) or "obj"
                leaves = {k: Leaf(self.names.fresh(f"{base}_{name_part(k)}")) for k in struct.keys}
                store = ast.Tuple([ast.Name(c.name, ast.Store()) for c in leaves.values()], ast.Store())
                self.built.append(ast.copy_location(ast.Assign([store], call), node))
                return Node(struct, leaves, local=False, depth=self.depth)
        return Read(self.helper_call(fake, func, [owner], {}, label))

    @staticmethod
    def method_tree(func):
        return parse_function(func).tree


__all__ = ["OperatorObjects"]
