"""``try``/``except`` whose handler is an alternative computation, as a branch taken at run time.

    try:                                            if <probe>(K, y) == 0:
        L = np.linalg.cholesky(K + 1e-6 * I)            L = np.linalg.cholesky(K + 1e-6 * I)
    except np.linalg.LinAlgError:           ->      else:
        L = np.linalg.cholesky(K + 1e-3 * I)            L = np.linalg.cholesky(K + 1e-3 * I)

The probe is a function made from the ``try`` body itself (the user's lines): it runs the body
on the current values and says which handler Python would have run (0: none).  The branch
it selects is the path Python takes, so the forward pass records it and the adjoint follows
it, as for any ``if``; the probe has no gradient (its result is a decision, not a value).
The body runs twice on the path without an exception (once to probe, once to compute).

Only what keeps that program equal to Python's is accepted, else the ``try`` line is refused:
no ``finally``; no ``break``/``continue``/``yield``, no ``return`` but as the body's last
statement (``try: return a / b``: the probe evaluates its value), and no write in place in the
body (the probe would change a value, or leave early); a handler's ``as`` name unused; and,
when the body has several statements, what an exception may leave half done (the names its
earlier statements assign) is neither read by a handler nor left for after the ``try``
unless every handler assigns it too.
"""

from __future__ import annotations

import ast
import copy
import types

from .compiling import compile_function

_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await)


class Probe:
    """The probe of one ``try`` (a callable with no gradient): which handler its body reaches."""

    def __init__(self, func, line: int):
        self.func, self.line = func, line

    def __call__(self, *args) -> int:
        for a in args:  # a symbolic value (srcdiff.check) cannot say which path Python takes
            if str(getattr(a, "dtype", "")) == "object" or type(a).__module__.partition(".")[0] == "sympy":
                raise TypeError(f"the try at line {self.line} decides its path on numbers only")
        return self.func(*args)

    def __repr__(self) -> str:
        return f"<the try at line {self.line}>"


class TryBlocks:
    """A mixin of the statement rewriter (flatten_statements.py)."""

    def try_(self, s: ast.Try) -> list:
        self.check_try(s)
        reads = _reads_before_writes(s.body)
        local = self.local_names()
        params = [n for n in sorted(reads) if n in local]
        probe = self.probe_function(s, params)
        cell = self.names.fresh(f"try_line_{s.lineno}", f"the `try` block of line {s.lineno}")
        self.cells[cell] = types.CellType(probe)
        call = ast.Call(ast.Name(cell, ast.Load()), [ast.Name(p, ast.Load()) for p in params], [])
        branches = [h.body for h in s.handlers]
        chain = copy.deepcopy(branches[-1])
        for k in range(len(branches) - 1, 0, -1):  # handler k (1-based) when the probe says k
            test = ast.Compare(copy.deepcopy(call), [ast.Eq()], [ast.Constant(k)])
            chain = [ast.If(test, copy.deepcopy(branches[k - 1]), chain)]
        test = ast.Compare(call, [ast.Eq()], [ast.Constant(0)])
        returns = isinstance(s.body[-1], ast.Return)  # (an `else` after a body that returns never runs)
        made = ast.If(test, copy.deepcopy(s.body) + ([] if returns else copy.deepcopy(s.orelse)), chain)
        for node in ast.walk(made):
            if isinstance(node, (ast.stmt, ast.expr)) and not hasattr(node, "lineno"):
                ast.copy_location(node, s)
        ast.copy_location(made, s)
        ast.fix_missing_locations(made)
        return self.stmt(made)

    def local_names(self) -> set:
        tree = self.parsed.tree
        found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return found | {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}

    def check_try(self, s: ast.Try) -> None:
        def refuse(node, why, hint="test the condition yourself with if/else"):
            raise self.error(node, f"this `try` cannot be read as a branch taken at run time: {why}", hint)
        if s.finalbody:
            refuse(s, "it has a `finally`", "move the `finally` code after the try")
        for node in ast.walk(ast.Module(s.body, [])):
            if isinstance(node, _LEAVES) and not (node is s.body[-1] and isinstance(node, ast.Return)):
                refuse(node, "its body leaves early (return, break, continue, yield)",
                       "assign a value in the try and return after it")
            if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                refuse(node, "its body writes into an array or object in place, which srcdiff would do twice",
                       "compute a new value in the try")
        for h in s.handlers:
            if h.name and any(isinstance(n, ast.Name) and n.id == h.name for n in ast.walk(ast.Module(h.body, []))):
                refuse(h, f"the handler reads the exception {h.name}", "do not use the exception object")
        simple = isinstance(s.body[-1], (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return))
        early = s.body[:-1] if simple else s.body
        half_done = {n.id for st in early for n in ast.walk(st)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for h in s.handlers:
            assigned = {n.id for n in ast.walk(ast.Module(h.body, [])) if isinstance(n, ast.Name)
                        and isinstance(n.ctx, ast.Store)}
            read = _reads_before_writes(h.body)
            for name in sorted(half_done):
                if name in read or name not in assigned:
                    refuse(h, f"an exception may leave {name} assigned by the try body, and the handler "
                           f"{'reads it' if name in read else 'does not assign it'}",
                           "compute everything the handler needs before the try, or assign the same names "
                           "in the handler")

    def probe_function(self, s: ast.Try, params: list) -> Probe:
        handlers = []
        for k, h in enumerate(s.handlers, start=1):
            kind = h.type if h.type is not None else ast.Name("Exception", ast.Load())
            handlers.append(ast.ExceptHandler(copy.deepcopy(kind), None, [ast.Return(ast.Constant(k))]))
        tried = copy.deepcopy(s.body)
        if isinstance(tried[-1], ast.Return):  # ``return a / b``: what may raise is its value
            tried[-1] = ast.Expr(tried[-1].value) if tried[-1].value is not None else ast.Pass()
        body = [ast.Try(tried, handlers, [], []), ast.Return(ast.Constant(0))]
        name = f"{self.parsed.tree.name}_try_line_{s.lineno}"
        fdef = ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params],
                                                             vararg=None, kwonlyargs=[], kw_defaults=[],
                                                             kwarg=None, defaults=[]),
                               body=body, decorator_list=[], returns=None, type_comment=None)
        if hasattr(ast.FunctionDef, "type_params"):
            fdef.type_params = []
        ast.copy_location(fdef, s)
        for node in ast.walk(fdef):
            if isinstance(node, (ast.stmt, ast.expr, ast.excepthandler)) and not hasattr(node, "lineno"):
                ast.copy_location(node, s)
        ast.fix_missing_locations(fdef)
        free = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} - set(params)
        cells = {n: c for n, c in self.parsed.closure.items() if n in free}
        return Probe(compile_function(fdef, self.parsed, cells, ()), s.lineno)


def _reads_before_writes(stmts: list) -> set:
    """The names `stmts` read before they assign them (in statement order)."""
    written, read = set(), set()
    for st in stmts:
        loads = {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        # ``total += a / b`` reads total too, though its target is a Store (the probe needs it)
        loads |= {n.target.id for n in ast.walk(st) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
        read |= loads - written
        written |= {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return read


__all__ = ["Probe", "TryBlocks"]
