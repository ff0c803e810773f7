"""Expressions of a function taking trees: leaf reads, constant keys, calls given trees.

`ExprRewriter.expr(node)` returns the expression with every tree access replaced by the leaf variable
it reads; `entry(node)` says what a tree-valued expression stands for.  Calls passing a tree to a helper,
``self.method(...)``, and callees srcdiff cannot read directly (``functools.partial`` objects,
``lru_cache`` wrappers) become calls of injected functions.
"""

from __future__ import annotations

import ast
import functools
import inspect
import types

from . import depends
from .callables import is_gradient_object
from .factory_objects import Factories
from .global_objects import GlobalObjects
from .gradient_trees import GradientTrees
from .lambdas import LambdaFn, Lambdas, lambda_as_written
from .memo_caches import memo_passed
from .module_constants import ModuleConstants
from .operator_objects import OperatorObjects
from .parse import ParsedFunction, parsed_at
from .partial_lists import Bound, PartialComp, PartialLists, bound_items, bound_struct, passed_bound
from .passed_sequences import SCOPES, PassedSequences
from .rewrites import cached_of_literals, installed, needs_rewrite, rule_call, unwrapped, user_function
from .super_calls import SuperCalls
from .tree_entries import Bad, Const, DictView, Leaf, Method, Names, Node, Read, Static, leaf_entries, node_struct
from .tree_reads import TreeReads
from .trees import Struct, name_part
from .varargs import bound_for_call, plain_parameters


class ExprRewriter(OperatorObjects, PartialLists, PassedSequences, Lambdas, Factories, TreeReads, GlobalObjects,
                   SuperCalls, GradientTrees, ModuleConstants):
    """The expression half of the rewrite (the statements are in flatten_statements.py)."""
    parsed: ParsedFunction
    names: Names
    env: dict
    cells: dict
    deps: list

    def error(self, node, message, hint=""):
        return self.parsed.error(node, message, hint, self.names.spellings)  # (d_a said as d['a'])

    def entry(self, node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return self.env[node.id] if node.id in self.env else self.global_entry(node)  # MODEL: a tree
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            if isinstance(node, ast.Attribute) and self.super_call(node.value):
                return self.super_attribute(node)  # super().penalty(w): super_calls.py
            base = self.entry(node.value) or self.returned_entry(node.value)  # layer(p, x)["h"]: returned_objects.py
            if isinstance(base, Bad):
                raise self.error(node, base.reason)
            if not isinstance(base, Node):
                return self.class_held_entry(node) if isinstance(node, ast.Attribute) else None  # Outer.inner
            if isinstance(node, ast.Attribute):
                return self.attribute(node, base)
            found = self.item_entry(node, base)  # poly[k]: its __getitem__ (operator_objects.py)
            if found is not None:
                return found
            return self.sliced(node, base) if isinstance(node.slice, ast.Slice) \
                else self.child(node, base, self.key(node.slice, node, base))
        if isinstance(node, ast.Call):
            return self.local_def_entry(node) or self.tree_read(node) or self.call_entry(node) \
                or self.constructed_entry(node) or self.factory_entry(node) or self.replaced_entry(node)
        # d * d of objects (operator_objects.py); cfg or {}, decided here; {"a": 3.0} given to a helper
        return self.operator_entry(node) or self.literal_entry(node)

    def child(self, node, base: Node, key):
        if key not in base.children:
            raise self.error(node, f"{ast.unparse(node.value)} is {base.struct.describe()} without "
                             f"the key {key!r} (it has {list(base.children)})",
                             "read one of the keys it has; srcdiff reads trees with constant keys")
        found = base.children[key]
        if isinstance(found, Bad):
            raise self.error(node, found.reason)
        return found

    def attribute(self, node: ast.Attribute, base: Node):
        kind, attr = base.struct.kind, node.attr
        if kind in ("namedtuple", "dataclass", "object") and attr in base.children:
            return self.child(node, base, attr)
        cls = base.struct.cls
        found = inspect.getattr_static(cls, attr, None) if kind in ("namedtuple", "dataclass", "object") else None
        if isinstance(found, (types.FunctionType, staticmethod, property, functools.cached_property)):
            self.deps.extend(depends.class_dependency(cls, attr, found))  # (rebound, or its code replaced)
        if isinstance(found, types.FunctionType):  # self.method(...): the function, given self's tree
            return Method(getattr(cls, attr), base, attr)
        if isinstance(found, staticmethod):  # self.scale(x): a plain function, held in a cell
            return Static(self.inject(found.__func__, attr).name, found.__func__)
        if isinstance(found, property) and isinstance(found.fget, types.FunctionType):
            fake = ast.copy_location(ast.Call(node, [], []), node)  # self.w2 is Model.w2.fget(self)
            return Read(self.helper_call(fake, found.fget, [base], {}, attr))
        if isinstance(found, functools.cached_property) and isinstance(found.func, types.FunctionType):
            return self.cached_attribute(node, base, found.func)
        if found is not None and not callable(found) and not isinstance(found, (property, types.MemberDescriptorType)):
            return self.class_attribute(node, cls, attr, found)
        if kind == "dict" and attr in ("items", "keys", "values"):
            return DictView(base, attr)
        found = self.dynamic_attribute(node)  # OPTS.scale of a module object's __getattr__: global_objects.py
        if found is not None:
            return found
        if isinstance(inspect.getattr_static(cls, "__getattr__", None), types.FunctionType):
            raise self.error(node, f"{ast.unparse(node)}: {ast.unparse(node.value)} is {base.struct.describe()} whose "
                             f"__getattr__ computes .{attr}, which srcdiff reads only of an object held by a module "
                             "name", f"pass the value itself, or read the attribute it holds ({list(base.children)})")
        raise self.error(node, f"{ast.unparse(node.value)} is {base.struct.describe()}: srcdiff reads its "
                         f"{'fields' if kind != 'dict' else 'keys'} {list(base.children)}, not .{attr}",
                         "read the arrays you need (p['W'], p.W) and compute with them")

    def call_entry(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.env and node.args and not node.keywords \
                and self.parsed.resolve(func.id) in (len, isinstance, sum):
            found = self.object_builtin(self.parsed.resolve(func.id), self.entry(node.args[0]), node)
            if found is not None:
                return found
        if isinstance(func, ast.Attribute) and not node.args and not node.keywords:
            owner = self.entry(func.value) or (self.returned_entry(func.value) if isinstance(func.value, ast.Call)
                                               else None)  # helper(x).items() of a helper returning a dict
            view = self.entry(func) if isinstance(owner, Node) else None
            if isinstance(view, DictView):
                return view
        if isinstance(func, ast.Name) and func.id not in self.env and len(node.args) == 1 and not node.keywords:
            builtin = self.parsed.resolve(func.id)
            arg = self.entry(node.args[0])
            if builtin is len and isinstance(arg, Node):
                return Const(len(arg.children))
            if builtin is len and isinstance(arg, PartialComp):
                return self.partials_length(node, arg)
            if builtin is dict and isinstance(arg, Node) and arg.struct.kind == "dict":
                return Node(arg.struct, dict(arg.children), local=True, depth=self.depth)
            if isinstance(arg, (Node, DictView)) or arg is None:  # ``names = list(ASSETS)``: keys (display_items.py)
                return self.dict_keys_of(node, builtin, arg)
        return None

    def key(self, node, where, base: Node):
        value = self.key_constant(node)  # (a tuple too: couplings[(i, j)], module_constants.py)
        if value is None and base.local and base.struct.kind == "dict":
            raise self.error(where, f"{ast.unparse(where.value)} is a dict the function makes (keys "
                             f"{list(base.children)}), read here at a key computed as it runs, "
                             f"{ast.unparse(where.slice)}: srcdiff reads such a dict at constant keys only",
                             "number the keys and keep the values in a list read at ints: a module table of int "
                             "tuples (``EDGES = [(0, 1, 0), ...]``; ``for u, v, e in EDGES: dist[v] = dist[u] + "
                             "w[e]``, ``dist = [0.0] * n``), and a list of bools for ``key in dist``")
        if value is None:  # (a module name: a module dict; else an argument, a parameter tree)
            tree = "a module dict" if isinstance(where.value, ast.Name) and where.value.id not in self.env else \
                "a parameter tree"
            raise self.error(where, f"{ast.unparse(where.value)} is {base.struct.describe()} of arrays "
                             f"({tree}): srcdiff reads it with constant keys only",
                             "write p['W1'], or loop over the dict itself, list(p) or a constant tuple: "
                             "for k in ('W1', 'W2'): p[k]")
        if isinstance(value, int) and base.struct.kind in ("list", "tuple", "namedtuple") and value < 0:
            value += len(base.children)
        if base.struct.kind == "namedtuple" and isinstance(value, int):
            value = list(base.children)[value] if 0 <= value < len(base.children) else value
        return value

    # ---- rewriting an expression ----

    def as_ast(self, entry, node):
        if isinstance(entry, Leaf):
            return ast.copy_location(ast.Name(entry.name, ast.Load()), node)
        if isinstance(entry, Const):
            return ast.copy_location(ast.Constant(entry.value), node)
        if isinstance(entry, Static):
            return ast.copy_location(ast.Name(entry.name, ast.Load()), node)
        if isinstance(entry, Read):
            return entry.expr
        if isinstance(entry, LambdaFn):
            return lambda_as_written(entry, self.as_ast, node)
        if isinstance(entry, Bad):
            raise self.error(node, entry.reason)
        if isinstance(entry, Node) and entry.literal is not None:
            return entry.literal  # a dict of constants used as a value: as written ({"a": 3.0})
        if isinstance(entry, Node):
            raise self.error(node, f"{ast.unparse(node)} is {entry.struct.describe()} (a parameter tree): "
                             "srcdiff flattens trees into their arrays and cannot use one whole here",
                             "read the arrays it holds (p['W'], p.W, a, b = p), pass it to a function "
                             "of yours, or loop over its keys: for k in ('W1', 'W2'): p[k]")
        if isinstance(entry, Method):
            raise self.error(node, f"the method {ast.unparse(node)} is supported only when called")
        if isinstance(entry, DictView):  # sum(d.values()), max(d.values()): a list of its entries
            return self.view_list(entry, node)
        raise self.error(node, f"{ast.unparse(node)} is supported only as the iterable of a for loop")

    def expr(self, node):
        if node is None:
            return None
        found = self.entry(node)
        if found is not None:
            return self.as_ast(found, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            made = self.comprehension_of_partials(node)  # [f(x) for f in fs] (partial_lists.py)
            made = made or (self.unrolled_comprehension(node) if not isinstance(node, (ast.SetComp, ast.DictComp))
                            else None)
            if made is not None:
                return made
        if isinstance(node, ast.Lambda):
            return node
        if isinstance(node, ast.IfExp):  # pts[0] if len(pts) == 1 else ...: the side Python takes
            taken = self.length_decided(node.test)
            if taken is None:  # params["b"] if "b" in params else 0.0: the keys decide it (operator_objects.py)
                taken = getattr(self.missing_key(node.test), "value", None)
            if taken is not None:
                return self.expr(node.body if taken else node.orelse)
        return self.hidden_expr(node) if isinstance(node, SCOPES) else self.visit_other(node)

    def visit_other(self, node):
        """Any other node (keywords, comprehensions, slices' parts): a copy, expressions rewritten."""
        if not isinstance(node, ast.AST):
            return node
        new = type(node)()
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                value = [self.expr(v) if isinstance(v, ast.expr) else self.visit_other(v) for v in value]
            elif isinstance(value, ast.expr):
                value = self.expr(value)
            elif isinstance(value, ast.AST):
                value = self.visit_other(value)
            setattr(new, name, value)
        if hasattr(node, "lineno"):
            ast.copy_location(new, node)
        return new

    # ---- calls ----

    def call(self, node: ast.Call):
        node, target = self.spread(node), self.entry(node.func)
        if isinstance(target, Method):
            return self.helper_call(node, target.func, [target.owner], {}, f"{target.name}")
        if isinstance(target, Node) and target.struct.kind in ("namedtuple", "dataclass", "object") \
                and isinstance(inspect.getattr_static(target.struct.cls, "__call__", None), types.FunctionType):
            self.deps.extend(depends.class_dependency(cls := target.struct.cls, "__call__", call := cls.__call__))
            return self.helper_call(node, call, [target], {}, f"{cls.__name__}_call")  # model(x): its __call__
        if isinstance(target, Bound):  # a partial made here of computed values
            return self.helper_call(node, target.func, target.prefix, target.keywords, target.func.__name__)
        if isinstance(target, LambdaFn):  # a lambda made here: its body (lambdas.py)
            return self.lambda_call(node, target)
        if isinstance(target, Static):
            value = target.obj
            if isinstance(value, functools.partial):  # a partial made in the function
                found = self.resolved_call(node, value)
                if found is not None:
                    return found
            if user_function(value) and self.any_tree(node):
                return self.helper_call(node, value, [], {}, value.__name__)
            return self.plain_call(node, ast.Name(target.name, ast.Load()))
        if isinstance(node.func, ast.Name) and target is None:
            value = self.parsed.resolve(node.func.id)
            if value is not depends.MISSING and value is not None:
                found = self.resolved_call(node, value)
                if found is not None:
                    self.deps.append(self.parsed_dependency(node.func.id, value))
                    return found
        module = self.static_object(node.func.value) if isinstance(node.func, ast.Attribute) else None
        if isinstance(module, types.ModuleType) and user_function(value := getattr(module, node.func.attr, None)) \
                and not installed(value) and self.any_tree(node):  # model.loss(params, x) of ``import model``
            self.deps.append(depends.Dependency(vars(module), node.func.attr, value))
            return self.helper_call(node, value, [], {}, value.__name__)
        return self.plain_call(node, self.expr(node.func))

    def parsed_dependency(self, name, value):
        return depends.Dependency(self.parsed.closure.get(name) or self.parsed.globals, name, value)

    def resolved_call(self, node, value):
        prefix, keywords = [], {}
        while isinstance(value, functools.partial):
            prefix = [self.inject(a, f"{value.func.__name__ if hasattr(value.func, '__name__') else 'arg'}_arg")
                      for a in value.args] + prefix
            keywords = {**{k: self.inject(v, k) for k, v in value.keywords.items()}, **keywords}
            value = value.func
        if isinstance(value, types.MethodType):  # loss = model.loss, a bound method held by a name
            return self.bound_method_call(node, value, prefix, keywords)
        if not isinstance(value, types.FunctionType) and hasattr(value, "__wrapped__"):
            if cached_of_literals(value, node, prefix, keywords):  # lower/cached_calls.py computes it
                return None
            inner = unwrapped(value)
            if user_function(inner):
                value = inner
        if not (prefix or keywords) and rule_call(value, node):  # logsumexp(a, axis=1): its rule, not its source
            return None
        if is_gradient_object(value) and not (prefix or keywords) and self.given_trees(node):
            value = self.gradient_helper(node, value)  # dtl(p, x): a helper building its gradient (gradient_trees.py)
        if not user_function(value):
            if prefix or keywords:
                raise self.error(node, f"{ast.unparse(node.func)} is a functools.partial of "
                                 f"{getattr(value, '__name__', value)!r}, which is not a Python "
                                 "function srcdiff can read",
                                 "call the function itself with all its arguments")
            return None
        direct = self.parsed.resolve(node.func.id) is value
        if direct and not prefix and not keywords and not self.any_tree(node) and not needs_rewrite(value) \
                and not self.gives_sequence(node, value):
            return None
        if not plain_parameters(value):  # *args, **opts, keyword-only: bound to this call (frontend/varargs.py)
            if not (prefix or keywords or self.any_tree(node)):
                return None
            value = bound_for_call(self.parsed, node, value, len(prefix), tuple(keywords))
        return self.helper_call(node, value, prefix, keywords, value.__name__)

    def inject(self, value, base: str) -> Leaf:
        name = self.names.fresh(name_part(base))
        self.cells[name] = types.CellType(value)
        return Leaf(name)

    def any_tree(self, node: ast.Call) -> bool:
        values = list(node.args) + [k.value for k in node.keywords]
        return any(isinstance(self.entry(v), (Node, Static, Method, Bound))
                   for v in values if not isinstance(v, ast.Starred))

    def plain_call(self, node: ast.Call, func):
        raised = self.parsed.resolve(node.func.id) if isinstance(node.func, ast.Name) else None
        if (keys := self.dict_keys(node, raised)) is not None:  # list(d) of a dict tree: its keys (passed_sequences.py)
            return keys
        if isinstance(raised, type) and issubclass(raised, BaseException):
            # ValueError(cfg): the message names the tree (its text, not its repr: an error's words only)
            node = ast.copy_location(ast.Call(node.func, [ast.Constant(ast.unparse(a)) if isinstance(
                self.entry(a), Node) else a for a in node.args], node.keywords), node)
        for v in list(node.args) + [k.value for k in node.keywords]:
            found = self.entry(v) if not isinstance(v, ast.Starred) else None
            if isinstance(found, Node) and found.struct.kind in ("list", "tuple") \
                    and all(isinstance(c, (Leaf, Const)) for c in found.children.values()):
                continue  # np.stack(xs) of a list of arrays: the list of its leaves (as_list)
            if isinstance(found, Node) and found.literal is None:  # ({} of constants: passed as written)
                raise self.tree_passed_whole(node, v)  # (passed_sequences.py)
        return ast.copy_location(ast.Call(func, [self.as_list(a) for a in node.args],
                                          [ast.keyword(k.arg, self.as_list(k.value)) for k in node.keywords]), node)

    def helper_call(self, node: ast.Call, func, prefix: list, keywords: dict, label: str, returns_object=False):
        """A call of user function `func` (given leading entries `prefix` and `keywords`) through its flattened
        version, injected as a closure cell; ``(call, flat)`` with `returns_object` (returned_objects.py)."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.error(node, "*args and **kwargs in a call are not supported")
        sig = inspect.signature(func)
        given = [("entry", e) for e in prefix] + [("node", a) for a in node.args]
        kw = {k: ("entry", e) for k, e in keywords.items()}
        kw.update({k.arg: ("node", k.value) for k in node.keywords}, **self.default_trees(func, len(given), kw))
        try:
            bound = sig.bind(*given, **kw)
        except TypeError as exc:
            raise self.error(node, f"cannot call {func.__name__} this way: {exc}") from None
        memo_passed(self.parsed, node, func, parsed_at(func, self.parsed.location(node)).tree, bound.arguments)
        structs, values = {}, {}
        for name, (kind, item) in bound.arguments.items():
            entry = item if kind == "entry" else self.entry(item)
            if entry is None and kind == "node" and self.mine(func):
                entry = self.passed_sequence(item, node)  # _h((a, b)), _h([f(p) for p in ps]): passed_sequences.py
            entry = passed_bound(entry) or entry  # integrate(m.step, x): partial_lists.py
            if isinstance(entry, (Node, Bad, Static)) and not isinstance(entry, Node):
                entry = None if kind == "node" else entry
            if isinstance(entry, Node):
                structs[name] = node_struct(entry)
            elif kind == "node" and isinstance(item, ast.Constant) and type(item.value) is str:
                structs[name] = Struct("key", cls=item.value)  # _clamped(params, "w"): `key in params` decided
            elif (key := self.passed_key(func, name, entry, item if kind == "node" else None)) is not None:
                structs[name] = key  # _layers(params, n): a count or labels it iterates (key_parameters.py)
            if isinstance(entry, Bound):
                structs[name] = bound_struct(entry, node_struct)
            values[name] = (entry if isinstance(entry, (Node, Bound)) or kind == "entry" else None, item)
        for name, p in sig.parameters.items():  # (a count or labels left to its default)
            if name not in bound.arguments and (key := self.passed_key(func, name, Const(p.default), None)) is not None:
                structs[name] = key
        flat = self.flatten(func, structs, returns_object=bool(returns_object), helper=True)
        self.deps.extend(flat.deps)  # what the helper read statically (self.factor) decides ours too
        callee = self.names.fresh(name_part(label))
        self.cells[callee] = getattr(flat.func, "cell", None) or types.CellType(flat.func)  # (flatten._itself)
        args, kws, positional = [], [], True
        for pname, _struct, leaf_names in flat.params:
            if pname not in values:
                positional = False
                continue
            entry, item = values[pname]
            if isinstance(entry, (Node, Bound)):
                items = bound_items(entry) if isinstance(entry, Bound) else [entry]
                exprs = [self.as_ast(e, node) for i in items for e in leaf_entries(i)]
            elif entry is not None:
                exprs = [self.as_ast(entry, node)]
            else:
                exprs = [self.expr(item)]
            if positional:
                args += exprs
            else:
                kws += [ast.keyword(n, e) for n, e in zip(leaf_names, exprs)]
        call = ast.copy_location(ast.Call(ast.Name(callee, ast.Load()), args, kws), node)
        return (call, flat) if returns_object else call


__all__ = ["ExprRewriter"]
