"""A helper called for its effect on the caller's array, written out where it is called (desugar.py).

``_normalise_(u)``, with ``def _normalise_(v): v /= np.linalg.norm(v)``, changes the array ``u``
holds: Python binds ``v`` to that very array, and ``v /= ...`` writes into it.  Lowering cannot
see into such a call (it returns None), so the call is rewritten, right after parsing, as the
helper's body with each parameter read as the caller's array::

    u = x.copy()                        u = x.copy()
    _normalise_(u)              ==>     u[:] = u / np.linalg.norm(u)

An update of a parameter (``v op= e``) is the write ``u[:] = u op e`` into the caller's array (so
a number passed, which ``op=`` would only rebind inside the helper, is refused by lowering rather
than changed), a write by index ``v[i] = e`` is ``u[i] = e``, and the helper's other names get
fresh names of their own.  Written out only when that is exactly the call: a statement
``helper(a, b)`` with one argument per parameter, a name of the caller's for each parameter the
helper writes (another argument is bound to a fresh name first, as Python binds it once); the helper a plain
function of positional parameters, of the caller's module (its free names mean what they mean
to the caller, and its lines are in the caller's file, for errors), with no closure, no
``return`` (or only a bare one last), no nested scope, and parameters never rebound.  Any other
call for effect is left for lowering to refuse at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import textwrap
import types

from .naming import assigned_names
from .views import statement_blocks

_SCOPES = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef,
           ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Try)
_DEPTH = 4  # helpers calling helpers for their effect, written out this deep


def inline_effect_helpers(tree: ast.FunctionDef, names) -> None:
    """Write out, in place, each call of `tree` made for the effect of a helper on its arguments."""
    caller_locals = assigned_names(tree) | {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    for _ in range(_DEPTH):
        changed = False
        for block in statement_blocks(tree):
            k = 0
            while k < len(block):
                written = _written_out(block[k], names, caller_locals)
                if written is None:
                    k += 1
                    continue
                block[k:k + 1] = written
                k += len(written)
                changed = True
        if not changed:
            break
    ast.fix_missing_locations(tree)


def has_effect_calls(tree: ast.FunctionDef) -> bool:
    """A cheap test: a statement that is only a call of a plain name (not a builtin's, ``print``)."""
    return any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
               and not hasattr(builtins, n.value.func.id) for n in ast.walk(tree))


def _written_out(stmt: ast.stmt, names, caller_locals: set) -> list | None:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)):
        return None
    call = stmt.value
    helper = names.resolve(call.func)
    if not isinstance(helper, types.FunctionType) or call.keywords \
            or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    func = names.func
    if helper.__globals__ is not func.__globals__ or helper.__closure__ \
            or helper.__code__.co_filename != func.__code__.co_filename:
        return None
    tree = _parsed(helper, func)
    if tree is None or not _plain(tree, len(call.args)):
        return None
    params = [a.arg for a in tree.args.args]
    local = assigned_names(ast.Module(tree.body, [])) | set(params)
    free = {n.id for n in ast.walk(ast.Module(tree.body, [])) if isinstance(n, ast.Name)} - local
    if free & caller_locals:
        return None  # a global of the helper's that the caller's own name hides
    written = _written_parameters(tree)
    values = {p: a for p, a in zip(params, call.args) if not isinstance(a, ast.Name)}
    if set(values) & written:
        return None  # a write into a value the caller has no name for: nothing to follow it by
    fresh = {n: names.namer.fresh(f"{n}_{helper.__name__}") for n in sorted(local - set(params) | set(values))}
    fresh.update({p: a.id for p, a in zip(params, call.args) if p not in values})
    bound = [ast.copy_location(ast.Assign([ast.Name(fresh[p], ast.Store())], v), stmt) for p, v in values.items()]
    body = [s for s in tree.body if not (isinstance(s, ast.Return) or _docstring(s))]
    return bound + [_Rename(fresh, set(params)).visit(copy.deepcopy(s)) for s in body] \
        or [ast.copy_location(ast.Pass(), stmt)]


def _written_parameters(tree: ast.FunctionDef) -> set[str]:
    """Parameters the helper updates (``p op= e``) or writes by index (``p[i] = e``)."""
    found = set()
    for node in ast.walk(tree):
        target = node.target if isinstance(node, ast.AugAssign) else None
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            target = node
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name):
            found.add(target.id)
    return found


def _parsed(helper: types.FunctionType, caller) -> ast.FunctionDef | None:
    """The helper's tree, its lines counted as the caller's are while it is rewritten (from the
    caller's first line, so before it for a helper above the caller: parse.py moves them all to
    the file's lines afterwards)."""
    try:
        lines, first = inspect.getsourcelines(helper.__code__)
        caller_first = inspect.getsourcelines(caller.__code__)[1]
        module = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    tree = module.body[0] if module.body else None
    if not isinstance(tree, ast.FunctionDef) or tree.decorator_list:
        return None
    ast.increment_lineno(tree, first - caller_first)
    return tree


def _plain(tree: ast.FunctionDef, arity: int) -> bool:
    """Positional parameters only, one per argument; no nested scope, no return but a bare last
    one; parameters rebound only by ``op=`` (an update of the caller's array)."""
    a = tree.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or len(a.args) != arity:
        return False
    params = {p.arg for p in a.args}
    augmented = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)}
    last = tree.body[-1]
    for node in ast.walk(ast.Module(tree.body, [])):
        if isinstance(node, _SCOPES) or isinstance(node, ast.Return) and (node is not last or node.value is not None):
            return False
        if isinstance(node, ast.Name) and node.id in params and not isinstance(node.ctx, ast.Load) \
                and id(node) not in augmented:
            return False
    return True


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


class _Rename(ast.NodeTransformer):
    """The helper's names as the caller's: parameters as the arguments, locals fresh; ``p op= e``
    of a parameter as the write ``a[:] = a op e`` into the caller's array."""

    def __init__(self, fresh: dict, params: set):
        self.fresh, self.params = fresh, params

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self.fresh.get(node.id, node.id), node.ctx), node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if isinstance(node.target, ast.Name) and node.target.id in self.params:
            name = self.fresh[node.target.id]
            value = ast.BinOp(ast.Name(name, ast.Load()), node.op, self.visit(node.value))
            target = ast.Subscript(ast.Name(name, ast.Load()), ast.Slice(), ast.Store())
            return ast.copy_location(ast.Assign([target], value), node)
        return self.generic_visit(node)


__all__ = ["has_effect_calls", "inline_effect_helpers"]
