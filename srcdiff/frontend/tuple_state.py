"""A tuple of arrays carried as state and passed to a helper of the user's:

    state = (np.zeros(n), np.zeros(n))
    for t in range(T):
        state = _lstm_cell(xs[t], state, W, b)     # _lstm_cell: h, c = state ... return h, c
    h, _ = state

The name (``state``) is a tuple tree of local variables (``state_item0``, ``state_item1``):
the helper is flattened for that structure (it takes the two arrays), and assigning the name
a new value of the helper's unpacks it into the same variables, which the loop then carries
like any plain variable:

        state_item0, state_item1 = _lstm_cell(xs[t], state_item0, state_item1, W, b)

A name is read so when the function assigns it a tuple or list literal and passes it whole
to a function of the user's.  Reassigning the same variables is only right while nothing
else holds them: another name for the same tuple (``prev = state``) gets copies of them first;
another tree holding its items is refused at the line.  A value of another length fails
when the code runs, as in Python.

An object built in the function (``s = State(q0, p0)``, a dataclass or namedtuple of the
user's) and rebuilt in a loop (``s = State(s.q + dt * p, p)``, every assignment to it there a
new object of its class) is carried the same way: before the loop its fields are copied into
variables of its own (``s_q, s_p = q0, p0``), and each new object assigns them again
(``s_q, s_p = s_q_1, p``) once its fields are computed.
"""

from __future__ import annotations

import ast
import copy

from .naming import assigned_names
from .rewrites import tuple_state_names
from .tree_entries import Const, Leaf, Node, Read, Static
from .trees import Struct, name_part

_OBJECTS = ("object", "namedtuple")


class TupleState:
    """A mixin of the statement rewriter: `carried` maps a name to the tuple node it keeps."""

    def state_names(self) -> set:
        found = self.__dict__.get("_state_names")
        if found is None:
            found = self._state_names = tuple_state_names(self.parsed.tree, self.parsed.resolve)
        return found

    def state_literal(self, target, value, where):
        """The tuple tree of ``state = (a, b)`` for a state name, or None."""
        if not (isinstance(target, ast.Name) and target.id in self.state_names()):
            return None
        if not isinstance(value, (ast.Tuple, ast.List)):  # a comprehension, tuple(e): passed_sequences.py
            return self.sequence_node(value, where)
        if not value.elts or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        kind = "list" if isinstance(value, ast.List) else "tuple"
        children = {i: self.element(e, f"item{i}", where) for i, e in enumerate(value.elts)}
        if not all(isinstance(c, Leaf) for c in children.values()):
            return None
        return self.owning(Node(Struct(kind, tuple(children)), children, local=True, depth=self.depth))

    def pairwise(self, target, value, where) -> list:
        """``a, b = p, q`` where an item is a tree: each item's entry bound to its name."""
        out, entries = [], []
        for e in value.elts:
            found = self.tree_value(e, where)
            if found is None:
                tmp = self.names.fresh("tmp")
                out.append(self.emit(tmp, self.expr(e), where))
                found = Leaf(tmp)
            entries.append(found)
        for t, e in zip(target.elts, entries):
            out += self.bind_entry(t, e, where, emit=True)
        return out

    def carry_objects(self, loop) -> list:
        """Before `loop`: the copies of the fields of each object the loop rebuilds (see above)."""
        out, carried = [], self.__dict__.setdefault("_carried", {})
        plain = {id(n.targets[0]): n for n in ast.walk(loop) if isinstance(n, ast.Assign) and len(n.targets) == 1}
        for name in sorted(assigned_names(loop)):
            node = self.env.get(name)
            stores = [n for n in ast.walk(loop) if isinstance(n, ast.Name) and n.id == name
                      and isinstance(n.ctx, ast.Store)]
            if not (isinstance(node, Node) and node.struct.kind in _OBJECTS and node.children
                    and all(isinstance(c, Leaf) for c in node.children.values())
                    and all(id(n) in plain and isinstance(plain[id(n)].value, ast.Call) for n in stores)):
                continue
            copies = {k: Leaf(self.names.fresh(f"{name}_{name_part(k)}")) for k in node.children}
            out.append(ast.copy_location(ast.Assign(
                [ast.Tuple([ast.Name(c.name, ast.Store()) for c in copies.values()], ast.Store())],
                ast.Tuple([ast.Name(c.name, ast.Load()) for c in node.children.values()], ast.Load())), loop))
            self.env[name] = carried[name] = self.owning(Node(node.struct, copies, local=True, depth=self.depth))
        return out

    def object_assign(self, target, value, where):
        """``s = State(...)`` of an object the loop carries: its fields computed, then its
        variables assigned them; None for any other assignment."""
        node = self.__dict__.get("_carried", {}).get(getattr(target, "id", None))
        if node is None or self.env.get(target.id) is not node:
            return None
        found = self.tree_value(value, where)
        if not (isinstance(found, Node) and found.struct.kind == node.struct.kind
                and found.struct.cls is node.struct.cls and list(found.children) == list(node.children)
                and all(isinstance(c, Leaf) for c in found.children.values())):
            raise self.error(where, f"{target.id} holds an object the loop carries, and srcdiff reads a new value "
                             "of it only as a new object of the same class", f"write {target.id} = <its class>(...)")
        names = [c.name for c in node.children.values()]
        if any(self.shared_elsewhere(n, node) for n in names) or self.nested_elsewhere(node) \
                or any(v is node and k != target.id for k, v in self.env.items()):
            raise self.error(where, f"{target.id} holds an object another name or tree also holds, so srcdiff cannot "
                             "give it a new value here", f"copy the fields you need first: a = {target.id}.field")
        store = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
        fields = ast.Tuple([ast.Name(c.name, ast.Load()) for c in found.children.values()], ast.Load())
        return list(self.pending) + [ast.copy_location(ast.Assign([store], fields), where)]

    def keeps_state(self, name: str, loop=None) -> bool:
        """Whether `name`, rebound in `loop`, keeps its tuple node (its items carried by the loop):
        only when every assignment to it there is a plain ``name = value``."""
        node = self.env.get(name)
        if node is not None and self.__dict__.get("_carried", {}).get(name) is node:
            return True  # an object the loop rebuilds (carry_objects)
        if loop is not None:
            plain = {id(n.targets[0]) for n in ast.walk(loop) if isinstance(n, ast.Assign) and len(n.targets) == 1}
            if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and id(n) not in plain
                   for n in ast.walk(loop)):
                return False
        return name in self.state_names() and isinstance(node, Node) and node.local \
            and node.struct.kind in ("tuple", "list") \
            and all(isinstance(c, Leaf) and self.owned.get(c.name) == id(node) for c in node.children.values())

    def state_assign(self, target, value, where):
        """``state = helper(...)`` of a state name: its items' variables unpacked again, or None."""
        again = self.object_assign(target, value, where)
        if again is not None or not (isinstance(target, ast.Name) and self.keeps_state(target.id)):
            return again
        node = self.env[target.id]
        names = [c.name for c in node.children.values()]
        if any(self.shared_elsewhere(n, node) for n in names) or self.nested_elsewhere(node):
            raise self.error(where, f"{target.id} holds a tuple of arrays that another tree also holds, so "
                             "srcdiff cannot give it a new value here",
                             f"copy the items you need first: a, b = {target.id}")
        out = []
        for other in sorted(k for k, v in self.env.items() if v is node and k != target.id):
            copies = {k: Leaf(self.names.fresh(f"{other}_item{k}")) for k in node.children}  # prev = state
            out.append(ast.copy_location(ast.Assign([ast.Tuple([ast.Name(c.name, ast.Store()) for c in copies.values()],
                                                               ast.Store())],
                                                    ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())),
                                         where))
            self.env[other] = self.owning(Node(node.struct, copies, local=True, depth=self.depth))
        store = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
            rhs = ast.Tuple([self.expr(e) for e in value.elts], ast.Load())
        else:
            rhs = self.expr(value)
        return out + [ast.copy_location(ast.Assign([store], rhs), where)]

    def read_unpacked(self, target, entry: Read | Const | Static, where) -> list:
        """``for name, (a, b, c) in TABLE.items()`` unrolled (a dict the function builds read at the key in
        its body): the item unpacked from the module's value as written, ``a, b, c = TABLE["benzene"]``
        (a tuple of constants: the constants, ``src, dst = 0, 1``), which the lowering unpacks and counts
        as Python does (as in the loop not unrolled)."""
        entry = Const(entry.obj) if isinstance(entry, Static) else entry  # (a tuple of numbers, in a cell)
        if isinstance(entry, Const):
            if len(entry.value) == len(target.elts) and not any(isinstance(t, ast.Starred) for t in target.elts):
                return [s for t, v in zip(target.elts, entry.value) for s in self.bind_entry(t, Const(v), where, True)]
            value = ast.Constant(entry.value)  # (another count: Python's ValueError, raised where it runs)
        else:
            value = copy.deepcopy(entry.expr)
        for name in assigned_names(target):
            self.env.pop(name, None)
        return [ast.copy_location(ast.Assign([self.store(target)], value), where)]

    def nested_elsewhere(self, node: Node) -> bool:
        stack = [v for v in self.env.values() if isinstance(v, Node) and v is not node]
        seen = set()
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for child in current.children.values():
                if child is node:
                    return True
                if isinstance(child, Node):
                    stack.append(child)
        return False


__all__ = ["TupleState"]
