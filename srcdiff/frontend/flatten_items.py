"""What a ``for`` loop of a function taking trees unrolls over (flatten_statements.py).

A loop over a tree (``for W, b in layers``, ``for k, v in p.items()``), a tuple of constants (``for k in
("W1", "W2")``), ``range`` of constants when the body reads a tree, or a module-level tuple of functions
(``for act in ACTS``), also in the order ``sorted``/``reversed`` give (``for k in sorted(params)``), is
unrolled: the body is repeated once per item, each item bound to a name as an entry (tree_entries.py).
"""

from __future__ import annotations

import ast
import copy
import inspect
import operator
import types

from ..errors import SrcDiffError
from .display_items import DisplayItems
from .global_objects import Items, object_struct, user_class, user_object
from .module_constants import as_entry, entry_value
from .parse import parse_function
from .tree_entries import Const, DictView, Node, Read, Static
from .trees import Struct

#: the methods that change a list or an array in place
_CHANGING = frozenset({"sort", "fill", "append", "extend", "insert", "pop", "remove", "reverse", "clear", "put",
                       "resize", "itemset"})


def _written_names(tree: ast.AST) -> set[str]:
    """The names `tree` assigns, writes into by index (``xs[0] = v``, ``xs += v``) or changes by a
    method (``xs.sort()``)."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.Subscript) and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.Call) \
                and isinstance(n.func, ast.Attribute) and n.func.attr in _CHANGING:
            inner = n.value if isinstance(n, ast.Subscript) else n.func.value
            out |= {m.id for m in ast.walk(inner) if isinstance(m, ast.Name)}
    return out


class LoopItems(DisplayItems):
    """The part of the rewriter (an `ExprRewriter`) that lists a loop's items."""

    #: the lists ``list(xs)`` made for zip_guards: their length is known only when the function runs
    zipped: frozenset = frozenset()
    #: the ``zip(...)`` a ``for`` statement unrolls: its iterations are guarded (not a comprehension's)
    zip_loop: ast.expr | None = None

    def zipped_with_a_tree(self, node: ast.Call, inner: list):
        """``zip(xs, theta)`` of a tree and a sequence srcdiff does not list (an array, a list): the
        sequence's items read by index from ``list(xs)``, made before the loop as zip reads it (Python
        reads each item as the loop reaches it: the same, as nothing in the function writes xs); None
        (the loop is kept, and the tree refused where it is passed) for anything else.

        xs may be shorter than the tree: zip then stops at its end.  A ``for`` statement's iterations
        are each run only if xs reaches them (zip_guards); a comprehension's elements are built
        together, so there a shorter xs is refused when the function runs."""
        trees = [i is not None for i in inner]  # (a tree, a dict's view, constants a loop reading trees unrolls)
        written = _written_names(self.parsed.tree)
        if not any(trees) or not self.reads_displays() or self.parsed.resolve("list") is not list \
                or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        records = [self.module_records(a) if i is None else None for a, i in zip(node.args, inner)]  # zip(ARCH, ws)
        displayed = [len(a.elts) for a in node.args if _displayed(a)] + [len(r) for r in records if r]
        count = min([len(i) for i in inner if i is not None] + displayed)
        out = []
        for a, items, held in zip(node.args, inner, records):
            if items is not None or held:  # (a module list of dicts: read by index, ARCH[k])
                out.append(items or self.record_entries(a, held, count, Read))
                continue
            if any(isinstance(n, ast.Name) and n.id in written for n in ast.walk(a)):
                return None  # (an item read at the snapshot where Python reads it later)
            name = self.names.fresh("zipped")
            made = ast.Call(ast.Name("list", ast.Load()), [self.expr(copy.deepcopy(a))], [])
            self.built.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], made), node))
            if _displayed(a):
                pass  # (zip stops at count, no more than its length)
            elif node is self.zip_loop:
                self.zipped = self.zipped | {name}
            else:
                self.built.append(self.at_least(name, count, node))
            out.append([Read(ast.copy_location(ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(k), ast.Load()),
                                               node)) for k in range(count)])
        return out

    def at_least(self, name: str, count: int, where: ast.AST) -> ast.stmt:
        """``if len(name) < count: raise SrcDiffError(...)``: a comprehension's zip of a tree with a
        shorter sequence (srcdiff builds its elements for the tree's length), refused when the
        function runs, at the user's line (backend/origins.py names it)."""
        short = ast.Compare(ast.Call(ast.Name("len", ast.Load()), [ast.Name(name, ast.Load())], []),
                            [ast.Lt()], [ast.Constant(count)])
        refusal = self.names.fresh("SrcDiffError")
        self.cells[refusal] = types.CellType(SrcDiffError)
        located = self.error(where, f"this comprehension (or loop filling a dict) zips a tree of {count} items "
                             "with a shorter sequence, which srcdiff does not differentiate",  # (its text names
                             "zip sequences as long as the tree, or build the list with a for loop")  # the line)
        error = ast.Raise(ast.Call(ast.Name(refusal, ast.Load()), [ast.Constant(str(located))], []), None)
        return ast.fix_missing_locations(ast.copy_location(ast.If(short, [error], []), where))

    def loop_items(self, node: ast.expr, force: bool):
        """items_of for a ``for`` statement over `node`: a zip of a tree with a sequence in it is
        guarded (zip_guards) rather than checked to be as long as the tree."""
        zipped = node.args[0] if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "enumerate" and node.args else node  # (for i, (a, w) in enumerate(zip(...)))
        outer, self.zip_loop = self.zip_loop, zipped
        try:
            return self.items_of(node, force)
        finally:
            self.zip_loop = outer

    def zip_guards(self, items: list, where: ast.AST) -> list:
        """For each item of an unrolled loop, the test that zip reaches it (``len(zipped_1) > 2``
        for the third item read from a zipped_with_a_tree list), or None if it always does."""
        out = []
        for k, item in enumerate(items):
            read = {n.value.id for n in _reads(item) if isinstance(n, ast.Subscript)
                    and isinstance(n.value, ast.Name) and n.value.id in self.zipped}
            tests = [ast.Compare(ast.Call(ast.Name("len", ast.Load()), [ast.Name(name, ast.Load())], []),
                                 [ast.Gt()], [ast.Constant(k)]) for name in sorted(read)]
            test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
            out.append(ast.fix_missing_locations(ast.copy_location(test, where)) if tests else None)
        return out

    def functions_of(self, node: ast.Name):
        """``for act in ACTS`` over a module-level tuple (or list) of functions: unrolled, each
        item a callee known when the gradient is built (rebinding ACTS builds it again)."""
        found = self.parsed.resolve(node.id)
        if not isinstance(found, (tuple, list)) or not found or not all(callable(f) for f in found):
            return None
        self.deps.append(self.parsed_dependency(node.id, found))
        items = []
        for k, func in enumerate(found):
            if user_object(func):  # a layer object: a tree whose call is its class's __call__
                items.append(self.object_tree(func, f"{node.id}_{k}", object_struct(func), Items(found), k))
                continue
            cell = self.names.fresh(f"{node.id}_{k}")
            self.cells[cell] = types.CellType(func)
            items.append(Static(cell, func))
        return items

    def constants_of(self, node: ast.Name):
        """``for k in NAMES`` over a module-level string, or tuple (or list) of strings and
        integers (the keys a dict comprehension builds): unrolled, each item a constant
        (rebinding NAMES builds the gradient again)."""
        found = self.parsed.resolve(node.id)
        if not isinstance(found, (str, tuple, list)) or not found \
                or not all(isinstance(c, (str, int)) and not isinstance(c, bool) for c in found):
            return None
        self.deps.append(self.parsed_dependency(node.id, found))
        return [Const(c) for c in found]

    def items_of(self, node, force: bool):
        """The entries a `for` over `node` binds, when srcdiff unrolls it; None to keep the loop."""
        if isinstance(node, ast.ListComp) and self.built is not None:
            pending, self.pending = getattr(self, "pending", None), self.built  # (made before the loop)
            try:  # for layer in [Layer(W) for W in Ws]; zip([ps[k] for k in range(...)], ...) (passed_sequences.py)
                made = self.comprehended_list(node, node) if self.makes_tree(node.elt) \
                    else self.comprehended_items(node, node)
            finally:
                self.pending = pending
            if isinstance(made, Node):
                return list(made.children.values())
            if made is not None:
                return list(made.values())
        found = self.entry(node)
        if isinstance(found, Node):
            kind = found.struct.kind
            if kind == "dict":
                return [as_entry(k) for k in found.children]
            if kind in ("list", "tuple", "namedtuple"):
                return list(found.children.values())
            held = found.children.get(iterated_attribute(found.struct.cls)) if kind == "object" else None
            if isinstance(held, Node) and held.struct.kind in ("list", "tuple"):
                return list(held.children.values())  # ``for layer in net`` of ``__iter__: return iter(self.layers)``
            raise self.error(node, f"looping over {found.struct.describe()} is not supported",
                             "read its fields by name")
        if isinstance(found, DictView):
            children = found.node.children
            if found.which == "keys":
                return [as_entry(k) for k in children]
            if found.which == "values":
                return list(children.values())
            return [Node(Struct("tuple", (0, 1)), {0: as_entry(k), 1: v}) for k, v in children.items()]
        if isinstance(found, Const) and isinstance(found.value, tuple) and found.value and force:
            return [as_entry(v) for v in found.value]  # labels=("a", "b"), a parameter's keys (key_parameters.py)
        if isinstance(node, ast.Name) and node.id not in self.env:
            return self.functions_of(node) or (self.constants_of(node) or self.constant_items(node, force)
                                               or self.display_items(node, force) if force else None)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and force:
            return [Const(c) for c in node.value]  # for k in "abc": its characters
        if isinstance(node, (ast.Tuple, ast.List)):  # (a float too: for t in (0.5, 1.5))
            consts = [e.value if isinstance(e, ast.Constant) and type(e.value) is float else self.constant(e)
                      for e in node.elts]
            if all(c is not None for c in consts) and force:
                return [Const(c) for c in consts]
            return self.constant_items(node, force) or self.display_items(node, force)  # (x ** 2, np.sin(x))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in self.env:
            func = self.parsed.resolve(node.func.id)
            if func is enumerate and len(node.args) == 1 and not node.keywords:
                inner = self.items_of(node.args[0], force)
                return None if inner is None else [
                    Node(Struct("tuple", (0, 1)), {0: Const(i), 1: v}) for i, v in enumerate(inner)]
            if func is zip and node.args and not node.keywords:
                inner = [self.items_of(a, force) for a in node.args]
                if any(i is None for i in inner):
                    inner = self.zipped_with_a_tree(node, inner)
                if inner is None:
                    return None
                return [Node(Struct("tuple", tuple(range(len(t)))), dict(enumerate(t))) for t in zip(*inner)]
            if func in (sorted, reversed, list, tuple) and len(node.args) == 1:
                return self.ordered_items(node, func, force)
            if func is range and force and not node.keywords:
                bounds = [self.constant(a) for a in node.args]
                if bounds and all(isinstance(b, int) for b in bounds):
                    return [Const(i) for i in range(*bounds)]
        # GROUPS, Cfg.NAMES, [["a", "b"], ["c"]], GRAPH.get(u, []) (none): module_constants.py; WEIGHTS.items()
        return found if (found := self.constant_items(node, force)) is not None else self.display_items(node, force)

    def ordered_items(self, node: ast.Call, func, force: bool):
        """``sorted(p)``, ``sorted(p.items())``, ``reversed(layers)``, ``list(p)`` of a tree: its
        items in that order (keys are constants; items are ordered by key); None otherwise."""
        reverse = False
        for k in node.keywords:
            if func is not sorted or k.arg != "reverse" or not isinstance(k.value, ast.Constant):
                return None  # sorted(p, key=...): not unrolled
            reverse = bool(k.value.value)
        inner = self.items_of(node.args[0], force)
        if inner is None or func in (list, tuple):
            return inner
        if func is reversed:
            return inner[::-1]
        if all(entry_value(i) is not None for i in inner):  # (keys: strings, numbers, tuples of them)
            return sorted(inner, key=entry_value, reverse=reverse)
        if all(isinstance(i, Node) and i.struct.kind == "tuple" and entry_value(i.children.get(0)) is not None
               for i in inner):  # (key, value) pairs of p.items(): by key (keys differ)
            return sorted(inner, key=lambda i: entry_value(i.children[0]), reverse=reverse)
        return None


    def unrolled_comprehension(self, node):
        """``[f(p[k]) for k in ('a', 'b')]`` over a tree or constants: a list of the items (those
        whose conditions the keys decide: ``for k, v in p.items() if k.startswith("W")``)."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            return None
        gen = node.generators[0]
        uses = any(isinstance(self.env.get(n.id), Node) for n in ast.walk(node.elt) if isinstance(n, ast.Name)) \
            or self.gives_sequence_inside(node.elt)  # sum(_h((x * t, x)) for t in ts): passed_sequences.py
        items = self.items_of(gen.iter, force=uses)
        if items is None or not isinstance(gen.target, (ast.Name, ast.Tuple)):
            return None
        saved = dict(self.env)
        elts = []
        try:
            for item in items:
                self.bind_entry(gen.target, item, node, emit=None)
                kept = [self.decided(test) for test in gen.ifs]
                if any(k is None for k in kept):
                    return None  # a condition on values: the comprehension runs as a loop
                if all(kept):
                    elts.append(self.expr(node.elt))
        finally:
            self.env = saved
        return ast.copy_location(ast.List(elts, ast.Load()), node)

    def comprehended_list(self, node: ast.ListComp, where) -> Node | None:
        """``[Layer(W) for W in Ws]`` over a tree or constants, of objects of a class of the user's (or
        of dicts written out): a list tree of them, one per item; None to leave it."""
        gen = node.generators[0]
        if len(node.generators) != 1 or gen.ifs or gen.is_async or not self.makes_tree(node.elt):
            return None
        items = self.items_of(gen.iter, force=True)
        if items is None or not isinstance(gen.target, (ast.Name, ast.Tuple)):
            return None
        saved, children = dict(self.env), {}
        try:
            for k, item in enumerate(items):
                self.bind_entry(gen.target, item, node, emit=None)
                children[k] = self.element(copy.deepcopy(node.elt), k, where)
        finally:
            self.env = saved
        return self.owning(Node(Struct("list", tuple(children)), children, local=True, depth=self.depth))

    def makes_tree(self, elt: ast.expr) -> bool:
        """Whether `elt` builds a tree: a dict display, or an object of a class of the user's."""
        if isinstance(elt, ast.Dict):
            return True
        made = self.parsed.resolve(elt.func.id) if isinstance(elt, ast.Call) and isinstance(elt.func, ast.Name) \
            and elt.func.id not in self.env else None
        return isinstance(made, type) and user_class(made)

    def comprehended_dict(self, node: ast.DictComp, where) -> Node | None:
        """``{k: 2.0 * v for k, v in p.items() if k != "b"}`` over a tree or constants: a dict
        built with one entry per item whose condition the keys decide; None to leave it."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            return None
        gen = node.generators[0]
        items = self.items_of(gen.iter, force=True)
        if items is None or not isinstance(gen.target, (ast.Name, ast.Tuple)):
            return None
        saved, children = dict(self.env), {}
        try:
            for item in items:
                self.bind_entry(gen.target, item, node, emit=None)
                kept = [self.decided(test) for test in gen.ifs]
                if any(k is None for k in kept):
                    raise self.error(where, "a dict comprehension over a tree needs conditions its keys "
                                     "decide (k != 'b', k in ('W1', 'W2'))", "build the dict with a for loop")
                if not all(kept):
                    continue
                key = self.constant(node.key)
                if key is None:
                    raise self.error(where, "a dict comprehension over a tree needs keys srcdiff knows "
                                     "(the tree's keys, strings, numbers)", "build the dict with a for loop")
                children[key] = self.element(node.value, key, where)
        finally:
            self.env = saved
        return self.owning(Node(Struct("dict", tuple(children)), children, local=True, depth=self.depth))

    def decided(self, test: ast.expr):
        """The value of a condition of constants (keys, literals): ``k != "b"``, ``k in ("a",)``,
        ``k.startswith("W")``, joined by and/or/not; None if it is not one."""
        if isinstance(test, ast.BoolOp):
            values = [self.decided(v) for v in test.values]
            if any(v is None for v in values):
                return None
            return all(values) if isinstance(test.op, ast.And) else any(values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.decided(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and len(test.args) == 1 \
                and test.func.attr in ("startswith", "endswith") and not test.keywords:
            base, arg = self.constant(test.func.value), test.args[0]
            arg = tuple(self.constant(e) for e in arg.elts) if isinstance(arg, ast.Tuple) else self.constant(arg)
            if isinstance(base, str) and (isinstance(arg, str) or isinstance(arg, tuple)
                                          and all(isinstance(a, str) for a in arg)):
                return getattr(base, test.func.attr)(arg)
            return None
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = self.constant(test.left), test.comparators[0]
            if isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                right = [self.constant(e) for e in right.elts]
                if any(r is None for r in right):
                    return None
            else:
                right = self.constant(right)
            if left is None or right is None:
                return None
            ops = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b,
                   ast.NotIn: lambda a, b: a not in b, ast.Lt: operator.lt, ast.Gt: operator.gt,
                   ast.LtE: operator.le, ast.GtE: operator.ge}
            op = ops.get(type(test.ops[0]))
            try:
                return None if op is None else bool(op(left, right))
            except TypeError:
                return None
        return None


def _displayed(node: ast.expr) -> bool:
    """Whether `node` is a list or tuple display of a known length (no ``*xs`` in it)."""
    return isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts)


def _reads(entry) -> list:
    """The expressions of the `Read` entries in `entry` (a tree of entries)."""
    if isinstance(entry, Read):
        return [entry.expr]
    if isinstance(entry, Node):
        return [e for child in entry.children.values() for e in _reads(child)]
    return []


def iterated_attribute(cls) -> str | None:
    """The attribute ``cls.__iter__`` iterates (``return iter(self.layers)``, ``yield from self.layers``),
    or None."""
    func = inspect.getattr_static(cls, "__iter__", None) if isinstance(cls, type) else None
    if not isinstance(func, types.FunctionType):
        return None
    try:
        tree = parse_function(func).tree
    except Exception:  # noqa: BLE001  (no source: a loop over it stays refused)
        return None
    body = [s for s in tree.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    me = tree.args.args[0].arg if tree.args.args else None
    value = body[0].value if len(body) == 1 and isinstance(body[0], (ast.Return, ast.Expr)) else None
    if isinstance(value, ast.YieldFrom):
        value = value.value
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "iter" \
            and len(value.args) == 1 and isinstance(body[0], ast.Return):
        value = value.args[0]
    else:
        return None
    return value.attr if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
        and value.value.id == me else None


__all__ = ["LoopItems", "iterated_attribute"]
