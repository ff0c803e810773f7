"""Elements of float64 arrays read as Python floats where that changes no result.

``observed[i]`` of a float64 array is a NumPy float64, and so is everything computed from
it: in a scalar loop's gradient, the misfit's residual, the list of adjoints it is added to
and every adjoint of the backward sweep after it (a pendulum fit's gradient spent a third
of its time in NumPy scalar arithmetic, its Hessian's sweep two thirds).  A NumPy float64
and a Python float of the same value give the same results under ``+ - *``, unary minus,
comparisons and the `math` functions; they differ under ``/ // % **`` (Python raises where
NumPy returns inf or nan), beside float32 values (a NumPy float64 is a strong type, a
Python float a weak one), and in their attributes.  So ``float(observed[i])`` is written
only where every value computed from such reads (followed through names, lists, stacks
and tuples) meets nothing else: any other use leaves the function as it was.

Only reads in loops, where the arithmetic they feed repeats; only for code whose arguments
are all float64, integers or Python numbers (the caller checks the signature) and which
names no global value other than modules, functions and Python numbers, and no dtype: no
float32 value can meet a converted one.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from .liveness import nodes

#: arithmetic whose result does not depend on whether a float64 operand is NumPy's or Python's
_SAME = (ast.Add, ast.Sub, ast.Mult)
#: names of calls whose result holds the converted values of their argument (a list, an iterator)
_CARRY = {"reversed", "copy_array", "zeros_like", "list", "tuple"}
#: calls that only count or shape their argument (the result holds none of its values)
_COUNT = {"len", "zeros_list", "float"}
#: names whose presence may bring in a value of another float width
_WIDTHS = {"float32", "float16", "half", "single", "astype", "dtype", "view", "longdouble", "float128",
           "frombuffer", "csingle", "complex64"}


def python_floats(func: ast.FunctionDef, arrays: dict[str, int], plain_global: Callable[[str], bool]) -> bool:
    """Write ``float(a[i])`` for each element read of the float64 array parameters `arrays`
    (name -> ndim) when the analysis above allows it; True if anything changed.
    `plain_global(name)` says whether a global name is a module, a function or a number."""
    everything = nodes(func)
    stored = {n.id for n in everything if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    params = {a.arg for a in func.args.args}
    if any(isinstance(n, ast.Attribute) and n.attr in _WIDTHS or isinstance(n, ast.Name) and n.id in _WIDTHS
           for n in everything):
        return False
    local = stored | params
    if not all(plain_global(n.id) for n in everything
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local):
        return False
    _unshare(func)  # (codegen may place one expression node at two places: each read gets its parent)
    everything = nodes(func)
    counters = _range_targets(everything, func)
    in_loops = {id(n): n for loop in everything if isinstance(loop, (ast.For, ast.While))
                for stmt in loop.body for n in nodes(stmt)}  # (once, outside loops: not worth a call)
    reads = [n for n in in_loops.values() if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id in arrays and n.value.id not in stored
             and _int_index(n.slice, arrays[n.value.id], counters)]
    if not reads:
        return False
    parents = {id(child): node for node in everything for child in ast.iter_child_nodes(node)}
    if not _Taint(everything, parents).spread(reads):
        return False
    for read in reads:
        parent = parents[id(read)]
        converted = ast.Call(ast.Name("float", ast.Load()), [read], [])
        for field, value in ast.iter_fields(parent):
            if value is read:
                setattr(parent, field, converted)
            elif isinstance(value, list):
                value[:] = [converted if v is read else v for v in value]
    ast.fix_missing_locations(func)
    return True


def _unshare(tree: ast.AST) -> None:
    """Copy every node found a second time, so that each node has one parent."""
    seen: set[int] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if not isinstance(item, ast.AST) or isinstance(item, (ast.expr_context, ast.operator, ast.unaryop,
                                                                        ast.cmpop, ast.boolop)):
                    continue
                if id(item) in seen:
                    item = copy.deepcopy(item)
                    if isinstance(value, list):
                        value[k] = item
                    else:
                        setattr(node, field, item)
                seen.add(id(item))
                stack.append(item)


def _range_targets(everything: list, func: ast.FunctionDef) -> set[str]:
    """Names bound only as the plain target of ``for name in range(...)`` (or reversed): ints."""
    loops, other = set(), set()
    targets = set()
    for n in everything:
        if isinstance(n, ast.For) and isinstance(n.target, ast.Name):
            it = n.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and it.args:
                it = it.args[0]
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
                loops.add(n.target.id)
                targets.add(id(n.target))
    for n in everything:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in targets:
            other.add(n.id)
    return loops - other - {a.arg for a in func.args.args}


def _int_index(index: ast.expr, ndim: int, counters: set[str]) -> bool:
    """Whether `index` is `ndim` integers (constants or range counters): one element."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return len(parts) == ndim and all(_is_int(p, counters) for p in parts)


def _is_int(node: ast.expr, counters: set[str]) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    return isinstance(node, ast.Name) and node.id in counters


class _Taint:
    """The values computed from the converted reads, followed to every use."""

    def __init__(self, everything: list, parents: dict):
        self.parents = parents
        self.loads: dict[str, list[ast.Name]] = {}
        for n in everything:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                self.loads.setdefault(n.id, []).append(n)
        self.augmented: dict[str, list[ast.AugAssign]] = {}
        for n in everything:
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                self.augmented.setdefault(n.target.id, []).append(n)
        self.names: set[str] = set()
        self.seen: set[int] = set()
        self.work: list[ast.AST] = []

    def spread(self, reads: list) -> bool:
        """Follow every use; False at the first that a Python float could change."""
        self.work = list(reads)
        while self.work:
            node = self.work.pop()
            if id(node) in self.seen:
                continue
            self.seen.add(id(node))
            if not self._use(node, self.parents.get(id(node))):
                return False
        return True

    def _name(self, name: str) -> bool:
        if name not in self.names:
            self.names.add(name)
            self.work += self.loads.get(name, [])
            if any(not isinstance(a.op, _SAME) for a in self.augmented.get(name, [])):
                return False
        return True

    def _target(self, target: ast.expr) -> bool:
        """A tainted value stored into `target`: names (a list written into by index) tainted."""
        if isinstance(target, ast.Name):
            return self._name(target.id)
        if isinstance(target, (ast.Tuple, ast.List)):
            return all(self._target(t) for t in target.elts)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return self._name(target.value.id)
        return False

    def _use(self, node: ast.AST, parent: ast.AST | None) -> bool:  # noqa: C901 - one case per context
        if parent is None:
            return False
        if isinstance(parent, ast.BinOp):
            if not isinstance(parent.op, _SAME):
                return False
            self.work.append(parent)
        elif isinstance(parent, ast.UnaryOp):
            if not isinstance(parent.op, (ast.USub, ast.UAdd)):
                return False
            self.work.append(parent)
        elif isinstance(parent, (ast.Compare, ast.Expr, ast.Return, ast.If, ast.While)):
            pass  # a truth value, a value dropped, the function's result
        elif isinstance(parent, (ast.Tuple, ast.List)):
            self.work.append(parent)
        elif isinstance(parent, ast.IfExp):
            if node is not parent.test:
                self.work.append(parent)
        elif isinstance(parent, ast.Subscript):
            if node is not parent.value:
                return False  # an index
            if isinstance(parent.ctx, ast.Store):  # ``xs[i] = v`` (``xs[i] += v``): any value fits
                statement = self.parents.get(id(parent))
                return isinstance(statement, ast.Assign) or isinstance(statement, ast.AugAssign) \
                    and isinstance(statement.op, _SAME)
            if isinstance(parent.ctx, ast.Load):
                self.work.append(parent)  # an item of a list or tuple holding converted values
        elif isinstance(parent, ast.Attribute):
            call = self.parents.get(id(parent))
            if not (isinstance(call, ast.Call) and call.func is parent and parent.attr in ("pop", "append")):
                return False
            if parent.attr == "pop":
                self.work.append(call)
        elif isinstance(parent, ast.Call):
            return self._call(node, parent)
        elif isinstance(parent, ast.Assign):
            return all(self._target(t) for t in parent.targets)
        elif isinstance(parent, ast.AugAssign):
            return node is parent.value and isinstance(parent.op, _SAME) and self._target(parent.target)
        elif isinstance(parent, ast.For):
            return node is parent.iter and self._target(parent.target)
        else:
            return False
        return True

    def _call(self, node: ast.AST, call: ast.Call) -> bool:
        if node not in call.args:
            return False
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in _CARRY:
                self.work.append(call)
                return True
            return func.id in _COUNT
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == "math":
                return True  # a Python float of the same value either way
            if func.attr == "append":
                return self._name(func.value.id)
        return False


__all__ = ["python_floats"]
