"""Trees read the way people write them: ``d.get(k)``, ``d.get(k, default)``,
``list(p.values())``, ``tuple(p)``, ``layers[:-1]``, ``cfg or {}``.

Each stands for entries the rewrite already knows (a child, a constant, a smaller list), so
nothing new reaches the IR: the keys are constants, read when the function is transformed.
"""

from __future__ import annotations

import ast

from .tree_entries import Const, DictView, Leaf, Node, Read
from .trees import Struct


class TreeReads:
    """A mixin of ExprRewriter (flatten_exprs.py): `entry`, `constant`, `expr`, `error` come from it."""

    def tree_read(self, node: ast.Call):
        """The entry of ``d.get(...)``, ``list(view)``, ``tuple(tree)``, or None."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and not node.keywords \
                and 1 <= len(node.args) <= 2:
            base = self.entry(func.value)
            if isinstance(base, Node) and base.struct.kind == "dict":
                return self.dict_get(node, base)
        if isinstance(func, ast.Name) and func.id not in self.env and len(node.args) == 1 and not node.keywords:
            builtin = self.parsed.resolve(func.id)
            if builtin in (list, tuple):
                return self.sequence_of(self.entry(node.args[0]), "list" if builtin is list else "tuple")
        return None

    def spread(self, node: ast.Call) -> ast.Call:
        """``f(x, **opts)`` / ``f(*items)`` of a dict (list, tuple) whose keys srcdiff knows: the
        call with its keywords (arguments) written out, each reading the entry it holds."""
        args, keywords, changed = [], [], False
        for arg in node.args:
            found = self.entry(arg.value) if isinstance(arg, ast.Starred) else None
            if isinstance(found, Node) and found.struct.kind in ("list", "tuple") and self.plain(found):
                args += [self.as_ast(c, arg) for c in found.children.values()]
                changed = True
            else:
                args.append(arg)
        for k in node.keywords:
            found = self.entry(k.value) if k.arg is None else None
            if found is None and k.arg is None and isinstance(k.value, ast.Call):
                found = self.returned_entry(k.value)  # f(**stats(x)) of a helper returning a dict: returned_objects.py
            if isinstance(found, Node) and found.struct.kind == "dict" and self.plain(found) \
                    and all(isinstance(key, str) for key in found.children):
                keywords += [ast.keyword(key, self.as_ast(c, k.value)) for key, c in found.children.items()]
                changed = True
            else:
                keywords.append(k)
        return ast.copy_location(ast.Call(node.func, args, keywords), node) if changed else node

    @staticmethod
    def plain(found: Node) -> bool:
        return not any(isinstance(c, Node) for c in found.children.values())

    def chosen_operand(self, node: ast.BoolOp):
        """The operand ``a or b`` / ``a and b`` evaluates to when the truth of the operands before
        it is known here (a tree has keys or has none, a constant), else None."""
        settles = isinstance(node.op, ast.Or)
        for value in node.values[:-1]:
            truth = self.truth(value)
            if truth is None:
                return None
            if truth is settles:
                return value
        return node.values[-1]

    def truth(self, node) -> bool | None:
        """``bool(node)`` if known when the function is rewritten, else None."""
        if isinstance(node, ast.Constant):
            return bool(node.value)
        if isinstance(node, ast.Dict):
            return bool(node.keys)
        found = self.entry(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) else None
        if isinstance(found, Const) or isinstance(found, Read) and isinstance(found.expr, ast.Constant):
            return bool(found.value if isinstance(found, Const) else found.expr.value)  # p.get("k") of no key: None
        if isinstance(found, Node):
            if found.struct.kind in ("dict", "list", "tuple", "namedtuple"):
                return bool(found.children)
            cls = found.struct.cls
            return None if hasattr(cls, "__bool__") or hasattr(cls, "__len__") else True
        return None

    def cached_attribute(self, node: ast.Attribute, base: Node, func):
        """``self.sym`` of a ``functools.cached_property``: computed at its first read, as Python
        computes it, and kept in the object (a variable of its own) for the later reads, as Python keeps
        it; refused where that first read is inside a loop or branch the object was not made in (a
        variable there would be computed again at each pass, where Python's cache is not)."""
        if base.depth != self.depth or self.built is None:
            raise self.error(node, f"{ast.unparse(node)} is a functools.cached_property read first inside a "
                             "loop or branch (or its header) the object was not made in: srcdiff would compute "
                             "it again there, where Python answers from its cache",
                             f"read {ast.unparse(node)} once where the object is made")
        fake = ast.copy_location(ast.Call(node, [], []), node)
        name = self.names.fresh(f"{ast.unparse(node.value).replace('.', '_')}_{node.attr}")
        value = self.helper_call(fake, func, [base], {}, node.attr)
        self.built.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), node))
        base.children[node.attr] = Leaf(name)  # (Python stores it in the object's __dict__)
        return base.children[node.attr]

    def literal_entry(self, node):
        """The entry of ``cfg or {}`` when the rewrite decides it, of ``"k" in cfg`` of a dict
        tree, of a dict of constants (``helper(x, {"a": 3.0})``: a tree of constants), or None."""
        if isinstance(node, ast.BoolOp):
            return self.bool_entry(node)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            base, key = self.entry(node.comparators[0]), self.constant(node.left)  # "l2" in cfg: decided here
            if isinstance(base, Node) and base.struct.kind == "dict" and key is not None:
                return Const((key in base.children) == isinstance(node.ops[0], ast.In))
            spelled = getattr(node, "setdefault", None)  # (written d.setdefault(k, []): setdefault_calls.py)
            if isinstance(base, Node) and base.struct.kind == "dict" and spelled:
                raise self.error(node, f"`{spelled}` groups by keys computed when the function runs, in a dict "
                                 "srcdiff reads as a tree (constant keys only)",
                                 "loop over keys known when the gradient is built (a module-level tuple: for "
                                 "lab, v in zip(LABELS, x)), or group with a mask: np.sum(x[labels == lab])")
            if isinstance(base, Node) and base.struct.kind == "dict":
                raise self.error(node, f"`{ast.unparse(node)}` looks up a key computed when the function runs, in "
                                 "a dict srcdiff reads as a tree (constant keys only); a memo dict is read as a "
                                 "cache only in the form docs/supported-python.md gives (the key and the memo the "
                                 "function's only parameters, `if key in memo: return memo[key]` first, "
                                 "`memo[key] = v` just before `return v`)",
                                 "use functools.lru_cache on the helper, or compute without the dict")
            return None
        if not isinstance(node, ast.Dict) or any(k is None for k in node.keys):
            return None
        try:
            items = {ast.literal_eval(k): ast.literal_eval(v) for k, v in zip(node.keys, node.values)}
        except ValueError:
            return None
        if not all(isinstance(k, (str, int)) and (v is None or isinstance(v, (bool, int, float, str)))
                   for k, v in items.items()):
            return None
        children = {k: Const(v) for k, v in items.items()}
        return Node(Struct("dict", tuple(children)), children, local=True, depth=self.depth, literal=node)

    def bool_entry(self, node: ast.BoolOp):
        """The entry of ``cfg or {}`` when the rewrite decides it, or None."""
        chosen = self.chosen_operand(node)
        if chosen is None:
            return None
        found = self.entry(chosen)
        return found if found is not None else Read(self.expr(chosen))

    def dict_get(self, node: ast.Call, base: Node):
        key = self.constant(node.args[0])
        if key is None:
            raise self.error(node, f"{ast.unparse(node)} reads {ast.unparse(node.func.value)} (a parameter tree) "
                             "with a key srcdiff cannot tell when it transforms the function",
                             "use a constant key: p.get('W'), or loop over a constant tuple of keys")
        if key in base.children:
            return self.child(node, base, key)
        if len(node.args) == 1:
            return Read(ast.copy_location(ast.Constant(None), node))
        default = node.args[1]
        found = self.entry(default)
        return found if found is not None else Read(self.expr(default))

    def sequence_of(self, found, kind: str):
        """``list(p.values())``, ``list(p.keys())``, ``tuple(layers)``: a local list or tuple of the
        entries (keys are constants)."""
        if isinstance(found, DictView):
            source = found.node.children
            if found.which == "values":
                items = list(source.values())
            elif found.which == "keys":
                return None  # a list of constant strings: the lowering reads it as a constant
            else:
                items = [Node(Struct("tuple", (0, 1)), {0: Const(k), 1: v}, local=True, depth=self.depth)
                         for k, v in source.items()]
        elif isinstance(found, Node) and found.struct.kind in ("list", "tuple"):
            items = list(found.children.values())
        else:
            return None
        children = dict(enumerate(items))
        return Node(Struct(kind, tuple(children)), children, local=True, depth=self.depth)

    def view_list(self, view: DictView, node: ast.expr) -> ast.List:
        """``d.values()`` (``.keys()``, ``.items()``) used as a value, outside a ``for``
        (``sum(losses.values())``, ``np.stack(list(d.values()))``): the list of its entries, in
        the dict's order, which every later stage reads as a list written out."""
        children = view.node.children
        if view.which == "keys":
            elts = [ast.Constant(k) for k in children]
        elif view.which == "values":
            elts = [self.as_ast(v, node) for v in children.values()]
        else:
            elts = [ast.Tuple([ast.Constant(k), self.as_ast(v, node)], ast.Load()) for k, v in children.items()]
        made = ast.List(elts, ast.Load())
        for part in ast.walk(made):
            if not hasattr(part, "lineno"):
                ast.copy_location(part, node)
        return made

    def sliced(self, node: ast.Subscript, base: Node):
        """``layers[:-1]``, ``xs[1:]``, ``xs[::2]`` of a list or tuple tree with constant bounds:
        the smaller list (a new local node sharing the leaves)."""
        part = node.slice
        bounds = [None if b is None else self.constant(b) for b in (part.lower, part.upper, part.step)]
        if any(b is None and given is not None for b, given in zip(bounds, (part.lower, part.upper, part.step))) \
                or not all(b is None or isinstance(b, int) for b in bounds):
            raise self.error(node, f"{ast.unparse(node)} slices {base.struct.describe()} (a parameter tree) "
                             "with bounds srcdiff cannot tell when it transforms the function",
                             "slice with constant bounds: layers[:-1], layers[1:]")
        keys = list(base.children)[slice(*bounds)]
        children = {i: base.children[k] for i, k in enumerate(keys)}
        kind = base.struct.kind if base.struct.kind in ("list", "tuple") else "tuple"
        return Node(Struct(kind, tuple(children)), children, local=True, depth=self.depth)


__all__ = ["TreeReads"]
