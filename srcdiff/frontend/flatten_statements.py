"""Statements of a function taking trees (see flatten.py): assignments that alias, unpack or
build trees, loops over trees unrolled, branches merged, `return` of ``(loss, aux)``."""

from __future__ import annotations

import ast
import copy
import types

from .branch_tails import BranchTails
from .counter_reach import reads_trees
from .dict_merges import DictMerges
from .entry_spellings import EntrySpellings
from .flatten_exprs import ExprRewriter
from .flatten_items import LoopItems
from .keyed_writes import KeyedWrites
from .lambdas import LambdaFn
from .local_defs import LocalDefs
from .naming import assigned_names
from .parse import ParsedFunction
from .partial_lists import Bound, PartialComp, bound_entry
from .returned_objects import ReturnedObjects
from .state_writes import StateWrites, base_name, bound_names
from .tree_entries import Bad, Const, DictView, Leaf, Method, Names, Node, Read, Static
from .trees import Struct, name_part
from .try_blocks import TryBlocks
from .tuple_state import TupleState

#: statements after whose assignments an object built in them may be computed
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr)


class Rewriter(EntrySpellings, BranchTails, DictMerges, ReturnedObjects, TupleState, TryBlocks, StateWrites, LoopItems,
               LocalDefs, KeyedWrites, ExprRewriter):
    def __init__(self, parsed: ParsedFunction, names: Names, has_aux: bool, flatten):
        self.parsed, self.names, self.has_aux, self.flatten = parsed, names, has_aux, flatten
        self.env, self.cells, self.owned = {}, {}, {}  # entries by name, closure cells, key variables' nodes
        self.deps: list = []
        self.depth = 0
        self.helper = False  # a helper of another rewritten function (flatten.flat_function)

    def param_entry(self, name: str, struct: Struct, path: tuple = ()):
        label = name + "".join(f"[{k!r}]" if isinstance(k, (str, int)) and struct.kind != "object" else f".{k}"
                               for k in path)
        if struct.kind in ("leaf", "data"):
            return Leaf(self.names.fresh("_".join([name] + [name_part(k) for k in path]), label))
        if struct.kind == "static":
            obj = struct.cls.obj
            cell = self.names.fresh("_".join([name] + [name_part(k) for k in path]))
            self.cells[cell] = types.CellType(obj)
            return Static(cell, obj)
        if struct.kind == "opaque":
            return Bad(f"{label} holds a {getattr(struct.cls, '__name__', 'value')}, which srcdiff cannot "
                       "differentiate or read as a constant")
        if struct.kind == "bound":  # a method or partial passed by the caller (partial_lists.py)
            return bound_entry(struct, lambda k, c: self.param_entry(name, c, path + (k,)))
        return Node(struct, {k: self.param_entry(name, c, path + (k,)) for k, c in zip(struct.keys, struct.children)})

    # ---- statements ----

    def body(self, stmts: list) -> list:
        return self.block(stmts)  # (branch_tails.py)

    def stmt(self, s) -> list:
        """`s` rewritten, after the assignments of the objects it builds (built_objects.py): only a simple one may."""
        # (a `for`'s iterable and an `if`'s test run once, before: objects they build are made just before too)
        outer, self.built = self.built, [] if isinstance(s, _SIMPLE + (ast.For, ast.If)) else None
        try:
            out = self.statement(s)
            return self.built + out if self.built else out
        finally:
            self.built = outer

    def statement(self, s) -> list:
        if isinstance(s, ast.Assign):  # (v, g = vg(p, x) of a value_and_grad given trees: gradient_trees.py)
            return self.split_value_and_gradient(s) or self.assign(s.targets, s.value, s)
        if isinstance(s, ast.AnnAssign):
            return self.assign([s.target], s.value, s) if s.value is not None else []
        if isinstance(s, ast.AugAssign):
            return self.augassign(s)
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, ast.If):
            return self.if_(s)
        if isinstance(s, ast.While):
            return self.while_(s)
        if isinstance(s, ast.Return):  # a helper read for the object it returns: returned_objects.py
            return self.object_return(s) if self.returns_object else [self.return_(s)]
        if isinstance(s, ast.FunctionDef):
            return [self.remember_def(s)]  # called with a tree: written out there (local_defs.py)
        if isinstance(s, (ast.AsyncFunctionDef, ast.ClassDef)):
            return [s]
        if isinstance(s, ast.Try):  # an alternative computation: a branch taken at run time (try_blocks.py)
            return self.try_(s)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and self.local_def_entry(s.value) is not None:
            return []  # ``obj.step(dt)``: its body, written out before it (local_defs.py), is all it does
        return [self.generic(s)]

    def generic(self, s):
        new = type(s)()
        for name, value in ast.iter_fields(s):
            if isinstance(value, list):
                value = [self.stmt_one(v) if isinstance(v, ast.stmt) else
                         self.expr(v) if isinstance(v, ast.expr) else self.visit_other(v) for v in value]
            elif isinstance(value, ast.expr):
                value = self.expr(value)
            elif isinstance(value, ast.AST):
                value = self.visit_other(value)
            setattr(new, name, value)
        return ast.copy_location(new, s)

    def stmt_one(self, s):
        out = self.stmt(s)
        return out[0] if len(out) == 1 else ast.copy_location(ast.If(ast.Constant(True), out or [ast.Pass()], []), s)

    def emit(self, target: str, value, where) -> ast.stmt:
        return ast.copy_location(ast.Assign([ast.Name(target, ast.Store())], value), where)

    # ---- assignments ----

    def tree_value(self, value, where):
        """The entry a right-hand side is (or builds) as a tree, else None (`self.pending`: its leaves' statements)."""
        if isinstance(value, ast.BoolOp):
            chosen = self.chosen_operand(value)  # cfg = cfg or {}: the operand Python picks
            if chosen is not None:
                return self.tree_value(chosen, where)
        if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                            and value.func.id not in self.env and not value.args
                                            and self.parsed.resolve(value.func.id) is dict):
            return self.built_dict(value, where)
        if isinstance(value, ast.DictComp):
            return self.comprehended_dict(value, where)
        if isinstance(value, ast.ListComp) and self.makes_tree(value.elt):  # [Layer(W) for W in Ws]
            return self.comprehended_list(value, where)
        copied = self.copied_dict(value, where)  # q = dict(p): its own variables (a write into q leaves p)
        if copied is not None:
            return copied
        if isinstance(value, (ast.List, ast.Tuple)) and any(isinstance(self.entry(e), (Node, Static))
                                                           or self.partial_parts(e) or isinstance(e, ast.Lambda)
                                                           for e in value.elts if not isinstance(e, ast.Starred)):
            kind = "list" if isinstance(value, ast.List) else "tuple"
            children = {i: self.element(e, f"item{i}", where, i) for i, e in enumerate(value.elts)}
            return self.owning(Node(Struct(kind, tuple(children)), children, local=True, depth=self.depth))
        found = self.returned_object(value, where) or self.entry(value)  # s = step(s, dt): returned_objects.py
        if isinstance(found, (Node, Static, Bad, Method, DictView)):
            return found
        if found is None and self.length_constant(value) is not None:
            return self.length_constant(value)  # mid = len(xs) // 2 of a list tree (passed_sequences.py)
        base = self.target_base  # partial_lists.py, lambdas.py
        return self.local_partial(value) or self.partial_list(value, where) \
            or self.bound_partial(value, where, base) or self.lambda_value(value, where, base)

    def built_dict(self, value, where) -> Node:
        if isinstance(value, ast.Dict):
            if any(k is None for k in value.keys):
                return self.merged_dict(value, where)  # {**defaults, **overrides} (dict_merges.py)
            keys = [self.constant(k) for k in value.keys]
            if None in keys:  # (a float or Enum key, or one computed: module_constants.py)
                return self.other_keyed_dict(value, where)
            pairs = list(zip(keys, value.values))
        else:
            pairs = [(k.arg, k.value) for k in value.keywords]
        children = {k: self.element(v, k, where) for k, v in pairs}
        return self.owning(Node(Struct("dict", tuple(children)), children, local=True, depth=self.depth))

    def assign(self, targets, value, where) -> list:
        self.pending, self.target_base = [], base_name(targets[0])
        self.spell_entries_of(targets)
        if len(targets) == 1 and self.setter_written(targets[0], value, where):
            return []  # m.scale = v of a property: its setter, written out before (local_defs.py)
        again = self.state_assign(targets[0], value, where) if len(targets) == 1 else None
        if again is not None:  # state = helper(x, state): its items' variables again (tuple_state.py)
            return again
        found = (self.state_literal(targets[0], value, where) if len(targets) == 1 else None) \
            or self.tree_value(value, where)
        if found is None:
            target = targets[0]
            if len(targets) == 1 and isinstance(target, (ast.Subscript, ast.Attribute)) \
                    and isinstance(self.entry(target.value), Node):
                base = self.entry(target.value)
                if not base.local:
                    self.check_target(target, where)  # (raises: an argument's tree)
                key = self.written_key(target)
                name = self.names.fresh(f"{base_name(target)}_{name_part(key)}", ast.unparse(target))
                out = [self.emit(name, self.expr(value), where)]
                return out + self.write(target, base, Leaf(name), where, fresh=False)
            if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) \
                    and isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(targets[0].elts) \
                    and any(isinstance(self.entry(e), (Node, Static)) for e in value.elts):
                return self.pairwise(targets[0], value, where)
            for t in targets:
                self.check_target(t, where)
            rhs = self.expr(value)
            for t in targets:
                for name in bound_names(t):
                    self.env.pop(name, None)
            return [ast.copy_location(ast.Assign([self.store(t) for t in targets], rhs), where)]
        out = list(self.pending)
        for t in targets:
            out += self.bind_entry(t, found, where, emit=True)
        return out

    def bind_entry(self, target, entry, where, emit) -> list:
        """Bind assignment target `target` to `entry` (unpacking a tree for a tuple target)."""
        if isinstance(target, ast.Name):
            if isinstance(entry, (Leaf, Const)) and emit:
                if isinstance(entry, Const):
                    self.env[target.id] = entry
                else:
                    self.env.pop(target.id, None)
                return [self.emit(target.id, self.as_ast(entry, where), where)]
            self.env[target.id] = entry
            return []
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(entry, Node) and entry.struct.kind in ("list", "tuple", "namedtuple"):
                items = list(entry.children.values())
            elif isinstance(entry, Node):
                raise self.error(where, f"unpacking {entry.struct.describe()} is not supported",
                                 "read its items by key: a, b = p['a'], p['b']")
            elif isinstance(entry, Read) and emit or type(getattr(entry, "value", getattr(entry, "obj", 0))) is tuple:
                return self.read_unpacked(target, entry, where)  # ``(a, b) = TABLE["k"]`` of an unrolled loop
            else:
                raise self.error(where, "this unpacking needs a tuple or list whose length srcdiff knows")
            if len(items) != len(target.elts) or any(isinstance(t, ast.Starred) for t in target.elts):
                raise self.error(where, f"cannot unpack {len(items)} values into {len(target.elts)} names")
            return [s for t, item in zip(target.elts, items) for s in self.bind_entry(t, item, where, emit)]
        if isinstance(target, ast.Subscript) and isinstance(self.entry(target.value), Node):
            return self.write(target, self.entry(target.value), entry, where)
        if isinstance(target, ast.Attribute) and isinstance(self.entry(target.value), Node):
            if self.entry(target.value).local:  # an object built in the function (built_objects.py)
                return self.write(target, self.entry(target.value), entry, where)
            raise self.error(where, f"assigning {ast.unparse(target)} changes an argument, which srcdiff "
                             "does not support", "compute a new value in a local variable")
        what = entry.struct.describe() if isinstance(entry, Node) else "a tree"
        raise self.error(where, f"cannot assign {what} to {ast.unparse(target)}", "assign it to a plain name")

    def check_target(self, target, where) -> None:
        """Raise where assigning `target` writes into an argument's tree (not where its index reads one)."""
        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            node = element.value if isinstance(element, ast.Starred) else element
            while isinstance(node, (ast.Subscript, ast.Attribute)):  # p["W"][0]: p's key; x[seq[t]]: x
                if isinstance(self.entry(node.value), Node):
                    self.bind_entry(node, Leaf("_"), where, emit=False)  # raises: an argument tree
                node = node.value

    def store(self, target):
        if isinstance(target, ast.Name):
            return target
        if isinstance(target, (ast.Tuple, ast.List)):
            return ast.copy_location(type(target)([self.store(t) for t in target.elts], ast.Store()), target)
        if isinstance(target, ast.Subscript):
            sub = ast.Subscript(self.expr(target.value), self.expr(target.slice), ast.Store())
            return ast.copy_location(sub, target)
        return self.generic(target) if isinstance(target, ast.stmt) else target

    def augassign(self, s: ast.AugAssign) -> list:
        target = s.target
        if isinstance(target, ast.Name) and self.object_without_inplace(self.env.get(target.id), s.op):
            value = ast.copy_location(ast.BinOp(ast.Name(target.id, ast.Load()), s.op, s.value), s)
            return self.assign([ast.Name(target.id, ast.Store())], value, s)  # d += e: d = d + e (operator_objects)
        if isinstance(target, ast.Name) and isinstance(self.env.get(target.id), (Node, Static)):
            raise self.error(s, f"{target.id} is a tree here: `{ast.unparse(s)}` is not supported")
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            base = self.entry(target.value)
            if isinstance(base, Node):
                if not base.local:
                    raise self.error(s, f"`{ast.unparse(s)}` changes an argument (a parameter tree), which "
                                     "srcdiff does not support", "compute a new value in a local variable")
                old = self.entry(target)
                if isinstance(old, Leaf) and self.owned.get(old.name) == id(base):
                    self.plain_attribute(target, base, s)  # the key's own variable, updated as NumPy updates it
                    return [ast.copy_location(ast.AugAssign(ast.Name(old.name, ast.Store()), s.op,
                                                            self.expr(s.value)), s)]
                value = ast.copy_location(ast.BinOp(self.as_ast(old, s), s.op, self.expr(s.value)), s)
                name = self.names.fresh(f"{base_name(target)}_{name_part(self.written_key(target))}",
                                        ast.unparse(target))
                out = [self.emit(name, value, s)]
                return out + self.write(target, base, Leaf(name), s, fresh=False)
        self.env.pop(getattr(target, "id", None), None)
        return [ast.copy_location(ast.AugAssign(self.store(target), s.op, self.expr(s.value)), s)]

    # ---- control flow ----

    def return_(self, s: ast.Return):
        value = s.value
        if self.has_aux:
            if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
                raise self.error(s, "with has_aux=True the function must return a pair (loss, aux)",
                                 "write `return loss, aux`")
            value = value.elts[0]
        found = self.entry(value) if value is not None else None
        if isinstance(found, Node) and self.helper and found.struct.kind in ("list", "tuple") \
                and all(isinstance(c, Leaf) for c in found.children.values()):
            return ast.copy_location(ast.Return(self.as_list(value)), s)  # a helper's list of arrays (return pts)
        if isinstance(found, Node) or isinstance(value, ast.Dict):
            if self.helper:  # (a flat dict or list it returns is read back: this one is nested)
                raise self.error(s, f"the helper {self.parsed.name} returns a tree it cannot read", "return a tuple")
            raise self.error(s, "the differentiated function returns a tree; srcdiff differentiates a number",
                             "return the loss, or use value_and_grad(f, has_aux=True) and return (loss, aux)")
        return ast.copy_location(ast.Return(self.expr(value) if value is not None else None), s)

    def if_(self, s: ast.If) -> list:
        decided = self.decided_if(s)  # if isinstance(other, Vec): (operator_objects.py)
        if decided is not None:
            return decided
        test = self.expr(s.test)
        before = dict(self.env)
        self.depth += 1
        body = self.body(s.body)
        after_body, self.env = self.env, dict(before)
        orelse = self.body(s.orelse)
        self.depth -= 1
        self.env = _merge(after_body, self.env, s.lineno)
        return [ast.copy_location(ast.If(test, body or [ast.Pass()], orelse), s)]

    def loop_start(self, s) -> set:
        assigned = assigned_names(s)
        for name in assigned:
            if self.keeps_state(name, s):  # its items are variables the loop carries (tuple_state.py)
                continue
            if isinstance(self.env.get(name), _HELD):
                self.env[name] = Bad(f"{name} is rebound in the loop at line {s.lineno}, and srcdiff "
                                     "cannot tell which tree it holds here")
            else:
                self.env.pop(name, None)
        return assigned

    def loop_end(self, assigned: set, s) -> None:
        for name in assigned:
            if self.keeps_state(name, s):
                continue
            if isinstance(self.env.get(name), _HELD):
                self.env[name] = Bad(f"{name} holds a tree only inside the loop at line {s.lineno}")
            elif not isinstance(self.env.get(name), Bad):
                self.env.pop(name, None)

    def while_(self, s: ast.While) -> list:
        before, assigned = self.carry_objects(s), self.loop_start(s)
        self.depth += 1
        test, body, orelse = self.expr(s.test), self.body(s.body), self.body(s.orelse)
        self.depth -= 1
        self.loop_end(assigned, s)
        return before + [ast.copy_location(ast.While(test, body or [ast.Pass()], orelse), s)]

    def for_(self, s: ast.For) -> list:
        over_partials = self.loop_over_partials(s)  # for loss in losses (partial_lists.py)
        if over_partials is not None:
            return over_partials
        items = self.for_items(s)  # (a loop filling a dict at its keys: keyed_writes.py)
        if items is None:
            before, assigned = self.carry_objects(s), self.loop_start(s)
            self.depth += 1
            loop = ast.For(self.store(s.target), self.expr(s.iter), self.body(s.body), self.body(s.orelse))
            self.depth -= 1
            self.loop_end(assigned, s)
            if not loop.body:
                loop.body = [ast.Pass()]
            return before + [ast.copy_location(loop, s)]
        jumps = [n for n in ast.walk(ast.Module(s.body, [])) if isinstance(n, (ast.Break, ast.Continue, ast.Return))]
        if jumps or s.orelse:
            raise self.error(jumps[0] if jumps else s, "this loop over a tree is unrolled by srcdiff, so "
                             "`break`, `continue`, `return` and `else` are not supported in it",
                             "use a flag variable, or return after the loop")
        out = []
        for item, reached in zip(items, self.zip_guards(items, s)):
            before, self.depth = dict(self.env), self.depth + (reached is not None)
            run = self.bind_entry(s.target, item, s, emit=True) + self.body(copy.deepcopy(s.body))
            if reached is None:
                out += run
                continue  # (else zip of a tree with a shorter array: the iteration runs if zip reaches it)
            self.depth -= 1
            self.env = _merge(self.env, before, s.lineno, f"the tree of the last item zip reaches in the loop at line "
                              f"{s.lineno}, which the lengths of its sequences decide when the function runs "
                              f"(keep the arrays you need from it in names of their own in the loop)")
            out.append(ast.copy_location(ast.If(reached, run or [ast.Pass()], []), s))
        return out

    def uses_trees(self, stmts, loop=None) -> bool:  # (a range's counter must reach one: counter_reach.py)
        return reads_trees(stmts, self.env, _HELD[:3], loop)


_HELD = (Node, Static, Method, DictView, Bound, PartialComp, LambdaFn)  # what a name may stand for
_TREEISH = _HELD + (Bad,)


def _merge(a: dict, b: dict, line: int, held: str = "") -> dict:
    held = held or f"a different tree on each side of the `if` at line {line}"  # (what a name holds then)
    out = {}
    for name in set(a) | set(b):
        x, y = a.get(name), b.get(name)
        if x is y:
            out[name] = x
        elif isinstance(x, _TREEISH) or isinstance(y, _TREEISH):
            out[name] = Bad(f"{name} holds {held}")
    return out


__all__ = ["Rewriter"]

