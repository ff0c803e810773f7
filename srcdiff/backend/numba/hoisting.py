"""The work of a forward sweep that no direction changes, done once for all of a Hessian's columns.

``hessian(f, jit="numba")`` (and the forward Jacobian) calls one forward sweep per group of
directions from a compiled loop (columns.py).  Most of that sweep is the gradient's own
values, ``t1 = X @ W1``, ``h = tanh(t1 + b1)``, the same for every direction: recomputed per
call they cost a direction's work again at every call.  This pass splits the sweep into

* ``<sweep>_invariant(*env, *params)``: the top-level assignments that read no tangent, in
  their order, returning the values the rest reads, as one tuple;
* ``<sweep>_directed(*env, *params, invariants, *tangents)``: everything else, as written
  (the invariants unpacked first), with the parts of its expressions that read invariants
  only (``t2_dot * (1.0 - h * h)``: ``1.0 - h * h``) computed once too.

and the loop calls the first once and the second per sweep.  It is an optimisation only:
what it cannot prove safe stays in the directed part.  A value moves only if its name is
bound once in the whole function, its expression calls nothing that may write into an
argument, and nothing in the directed part may write into it or into a name that may hold
it (a view of it, an alias): the directed part is run many times, and must find every
invariant as the first run did.  Numbers written as constants stay where they are (numba
reads some of them as literals: an axis, a tuple index).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from ..optimize.liveness import is_pure_method, nodes
from ..optimize.memory import escaping_reads

#: numba helpers of the generated code that never write into an argument
_PURE_HELPERS = frozenset({"matmul_stacks", "inner_product", "unbroadcast", "zeros_like", "copy_array", "index_add",
                           "stop_gradient", "full", "zeros_shaped",
                           # and the batching transform's (rules/batching_helpers.py): batched rows split
                           # the same way (driver/hoisted_rows.py); scatter_add_rows writes into its rows
                           "broadcast_rows", "copy_rows", "expand_rows", "reshape_rows", "full_rows",
                           "unbroadcast_rows", "rows_index", "index_read_rows", "index_add_rows", "zero_rows",
                           "zero_rows_with", "sum_last", "set_item_rows", "select_rows", "measure_nan_rows"})
#: and the families of them (ufuncs.py's ``vector_tanh``, reductions.py's ``reduce_sum``), by
#: name: this module is read without importing numba
_PURE_PREFIXES = ("vector_", "reduce_")
#: builtins that only read their arguments
_PURE_BUILTINS = frozenset({"len", "range", "float", "int", "bool", "abs", "min", "max", "tuple", "enumerate", "zip",
                            "round", "sum", "slice"})
#: NumPy functions that write into an argument
_NUMPY_WRITES = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "at"})
_MODULES = frozenset({"np", "math"})
#: attributes that read an array's description, never its memory
_MEASURES = frozenset({"shape", "size", "ndim", "dtype"})


@dataclass(frozen=True)
class Split:
    """The two functions of a split sweep: their names and texts."""

    invariant: str
    directed: str
    texts: tuple[str, str]


def split_sweep(source: str, main: str, tangent_count: int) -> Split | None:
    """The sweep `main` of the module `source` (whose last `tangent_count` parameters are the
    tangents) split as the module docstring says; None where nothing moves."""
    module = ast.parse(source)
    func = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == main), None)
    if func is None or func.args.vararg or func.args.kwarg or func.args.kwonlyargs or tangent_count <= 0:
        return None
    params = [a.arg for a in func.args.args]
    if len(params) < tangent_count:
        return None
    tangents, primals = params[-tangent_count:], params[:-tangent_count]
    bound = _binding_counts(func)
    forced: set[str] = set()
    while True:
        moved, kept = _classify(func.body, set(tangents), set(params), bound, forced)
        if all(_is_constant(s.value) for s in moved):
            return None
        written = _written_holders(kept, {n for s in moved for n in _targets(s)})
        if not written:
            break
        forced |= written
    names = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | set(params)
    moved_names = {n for s in moved for n in _targets(s)} - {n for s in kept for n in _targets(s)}
    extra = _hoist_parts(kept, moved_names | set(primals), names)
    moved = moved + extra
    moved_names |= {n for s in extra for n in _targets(s)}
    exported = [n for n in _ordered_targets(moved) if n in moved_names and n in _loaded(kept)]
    for stmt in kept:
        if isinstance(stmt, ast.Delete):
            stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in moved_names)]
    kept = [s for s in kept if not (isinstance(s, ast.Delete) and not s.targets)]
    invariant, directed = f"{main}_invariant", f"{main}_directed"
    values = f"{main}_values"
    while values in names:
        values += "_"
    first = _function(invariant, primals, [*moved, ast.Return(_tuple(exported))])
    unpack = [ast.Assign([_tuple(exported, ast.Store())], ast.Name(values, ast.Load()))] if exported else []
    second = _function(directed, [*primals, values, *tangents], [*unpack, *kept])
    return Split(invariant, directed, (ast.unparse(first), ast.unparse(second)))


def _classify(body: list[ast.stmt], tangents: set[str], params: set[str], bound: dict, forced: set[str]):
    """(the statements that move, those that stay), in order."""
    dependent = set(tangents)
    moved, kept = [], []
    shares: dict[str, set[str]] = {}  # a moved name -> the moved names that may share its memory
    touched: set[str] = set()  # the names the statements kept so far mention
    for stmt in body:
        targets = _targets(stmt)
        if targets and not (_loaded(stmt) & dependent) and not (targets & (forced | params)) \
                and all(bound.get(n, 0) == 1 for n in targets) and _pure(stmt.value):
            moved.append(stmt)
            group = set(targets).union(*(shares.get(n, set()) for n in _escaping(stmt)))
            shares.update(dict.fromkeys(group, group))
            if _is_constant(stmt.value):  # in both parts: numba may need it as a literal
                kept.append(stmt)
            continue
        root = _written_root(stmt)
        if root in shares and root not in params and not (_loaded(stmt) & dependent) and _pure(stmt.value) \
                and not (shares[root] & touched):  # a write into a moved array no kept statement read yet
            moved.append(stmt)
            continue
        kept.append(stmt)
        touched |= {n.id for n in nodes(stmt) if isinstance(n, ast.Name)}
        if not isinstance(stmt, ast.Delete):
            dependent |= {n.id for n in nodes(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return moved, kept


def _targets(stmt: ast.stmt) -> set[str]:
    """The names a top-level ``name = expr`` (or ``a, b = expr``) binds; empty for any other statement."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return set()
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts):
        return {e.id for e in target.elts}
    return set()


def _ordered_targets(stmts: list[ast.stmt]) -> list[str]:
    found = []
    for stmt in stmts:
        if _targets(stmt):
            target = stmt.targets[0]
            found += [target.id] if isinstance(target, ast.Name) else [e.id for e in target.elts]
    return found


def _written_root(stmt: ast.stmt) -> str | None:
    """The array ``a[...] = e`` or ``a[...] += e`` writes into (a name), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign):
        target = stmt.target
    else:
        return None
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return target.value.id
    return None


def _binding_counts(func: ast.FunctionDef) -> dict:
    counts: dict = {}
    for node in nodes(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _loaded(node) -> set[str]:
    items = node if isinstance(node, list) else [node]
    return {n.id for item in items for n in nodes(item) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _is_constant(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.UnaryOp):
        return _is_constant(expr.operand)
    return isinstance(expr, ast.Tuple) and all(_is_constant(e) for e in expr.elts)


def _pure(expr: ast.expr) -> bool:
    """Whether `expr` writes into nothing (and draws no random number)."""
    for node in nodes(expr):
        if isinstance(node, (ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                             ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(node, ast.Call) and _call_writes(node) is not None:
            return False
    return True


def _call_writes(call: ast.Call) -> set[str] | None:
    """None where `call` writes into nothing; else the names it may write into."""
    func = call.func
    arguments = [*call.args, *(k.value for k in call.keywords)]
    everything = {n.id for a in arguments for n in nodes(a) if isinstance(n, ast.Name)}
    if any(k.arg == "out" for k in call.keywords):
        return everything
    if isinstance(func, ast.Name):
        pure = func.id in _PURE_HELPERS or func.id in _PURE_BUILTINS or func.id.startswith(_PURE_PREFIXES)
        return None if pure else everything
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id in _MODULES:
            return None if func.attr not in _NUMPY_WRITES and func.attr != "random" else everything
        root = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in _MODULES:  # np.linalg.solve; np.add.at writes
            return None if func.attr not in _NUMPY_WRITES and "random" not in ast.dump(func) else everything
        if is_pure_method(func.attr):
            return None
        return everything | ({root.id} if isinstance(root, ast.Name) else set())
    return everything


def _written_holders(kept: list[ast.stmt], moved: set[str]) -> set[str]:
    """The moved names that the directed part `kept` may write into, itself or through a
    name that may hold it (each such name traced to the moved names it may hold)."""
    holds: dict[str, set[str]] = {n: {n} for n in moved}
    written: set[str] = set()

    def held_by(names) -> set[str]:
        return set().union(*(holds.get(n, set()) for n in names))

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if not _compound(stmt):
                simple(stmt)
                continue
            for header in [getattr(stmt, "test", None), getattr(stmt, "iter", None)]:
                for node in nodes(header) if header is not None else ():
                    if isinstance(node, ast.Call):
                        written.update(held_by(_call_writes(node) or set()))
            if isinstance(stmt, (ast.For, ast.AsyncFor)):  # the loop variable may be a view of what it walks
                for name in _bound(stmt.target):
                    holds.setdefault(name, set()).update(held_by(_loaded(stmt.iter)))
                written.update(held_by(_roots(stmt.target)) if not isinstance(stmt.target, (ast.Name, ast.Tuple))
                               else set())
            elif not isinstance(stmt, (ast.If, ast.While)):  # with, try, match, nested defs: everything
                inner = {n.id for n in nodes(stmt) if isinstance(n, ast.Name)}
                written.update(held_by(inner))
                continue
            for _ in range(2):  # twice: what one iteration makes a name hold, the next may write through
                visit(stmt.body)
                visit(stmt.orelse)

    def simple(stmt: ast.stmt) -> None:
        for node in nodes(stmt):
            roots: set[str] = set()
            if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
                roots = _roots(node)
            elif isinstance(node, ast.AugAssign):
                roots = _roots(node.target)
            elif isinstance(node, ast.Call):
                roots = _call_writes(node) or set()
            written.update(held_by(roots))
        held = held_by(_escaping(stmt))
        if held:
            for node in nodes(stmt):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    holds.setdefault(node.id, set()).update(held)

    visit(kept)
    return written


def _escaping(stmt: ast.stmt) -> set[str]:
    """`escaping_reads` but for names read only for their shape, size, ndim or dtype."""
    counts: dict = {}
    for node in nodes(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.Attribute) and node.attr in _MEASURES and isinstance(node.value, ast.Name):
            counts[node.value.id] = counts.get(node.value.id, 0) - 1  # (its Name is counted too)
    return {n for n in escaping_reads(stmt) if counts.get(n, 0) > 0}


def _bound(target: ast.expr) -> set[str]:
    return {n.id for n in nodes(target) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _compound(stmt: ast.stmt) -> bool:
    return not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Delete,
                                 ast.Pass))


def _roots(node: ast.expr) -> set[str]:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    if isinstance(node, ast.Name):
        return {node.id}
    return {n.id for n in nodes(node) if isinstance(n, ast.Name)}


def _hoist_parts(kept: list[ast.stmt], invariant: set[str], taken: set[str]) -> list[ast.stmt]:
    """Operands of arithmetic in the directed part's top-level assignments that read
    invariant names only (and do arithmetic or call something pure): each one becomes an
    invariant name of its own, computed once (`taken`: names in use, extended)."""
    made: list[ast.stmt] = []
    seen: dict[str, str] = {}  # an operand's text -> its name: one value per distinct operand

    def name_for(expr: ast.expr) -> ast.Name:
        text = ast.unparse(expr)
        if text not in seen:
            name = f"v{len(made)}"
            while name in taken:
                name += "_"
            taken.add(name)
            seen[text] = name
            made.append(ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(expr), lineno=0))
        return ast.Name(seen[text], ast.Load())

    class Operands(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
            for side in ("left", "right"):
                operand = getattr(node, side)
                if _movable(operand, invariant):
                    setattr(node, side, name_for(operand))
                else:
                    setattr(node, side, self.visit(operand))
            return node

        def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
            node.operand = name_for(node.operand) if _movable(node.operand, invariant) else self.visit(node.operand)
            return node

        def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
            return node  # (evaluated on one side only: nothing moves out of it)

        def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
            return node

        def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
            return node

    for stmt in kept:
        if isinstance(stmt, ast.Assign) and not (_loaded(stmt.value) <= invariant):
            stmt.value = Operands().visit(stmt.value)
    return made


def _movable(expr: ast.expr, invariant: set[str]) -> bool:
    """An operand worth computing once: it does arithmetic or calls, on invariant names only, purely."""
    if not isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.Call)) or _is_constant(expr):
        return False
    names = {n.id for n in nodes(expr) if isinstance(n, ast.Name)}
    if isinstance(expr, ast.Call):
        names -= _loaded(expr.func)
    return names <= invariant and _pure(expr) and not any(
        isinstance(n, (ast.IfExp, ast.BoolOp, ast.Lambda)) for n in nodes(expr))


def _tuple(names: list[str], ctx=None) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ctx or ast.Load()) for n in names], ctx or ast.Load())


def _function(name: str, params: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    func = ast.FunctionDef(name=name, args=arguments, body=copy.deepcopy(body) or [ast.Pass()], decorator_list=[],
                           returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    return ast.fix_missing_locations(func)


__all__ = ["Split", "split_sweep"]
