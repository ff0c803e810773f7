"""The batching transform in the driver: a lowered function becomes
``f_batched(*params)`` running over a leading batch axis of the parameters `Lowered.wrt`
names (ad/batching.py), each block under the user's line it comes from.

The code is compiled for a row's signature (the arguments without their batch axis), so a
new batch size reuses it.  It is not optimised: every statement is one the reader can match
to a line, and the optimiser's facts (which values are numbers) are a row's, not the batch's.
Only scatter-adds are made in place (`scatter_in_place`): ``index_add_rows`` copies its rows
each time, which for a Hessian's gradient (``x_bar`` built by a few scatters) was a third of
the time.
"""

from __future__ import annotations

import ast
from collections import Counter

import numpy as np

from ..ad.batched_scales import fold_scales
from ..ad.batching import BatchedProgram, batch
from ..backend import loader, render
from ..backend.codegen import backward_statements
from ..backend.optimize.liveness import is_pure, reads
from ..backend.optimize.statements import propagate_copies, remove_dead
from ..backend.optimize.tidy import tidy_comments
from ..backend.optimize.widths import narrows
from ..ir import memo, shapes
from ..rules import TEMPLATE_GLOBALS
from ..rules.batching_helpers import HELPERS
from .cache import Lowered
from .lowering import describe


def transform(found: Lowered, ir, namer, shape_of: dict, row: tuple | None = None):
    """(the batched function's AST, its `BatchedProgram`, its name) for `found`'s inlined `ir`;
    `row` (one example's arguments) tells the number of axes of values whose shapes the
    rules do not say (`probe`)."""
    parsed = found.parsed
    ndims, narrow = probe(found, ir, namer, shape_of, row) if row is not None else ({}, {})
    floats = frozenset(name for name, value in zip(found.params, row or ())
                       if name in found.wrt and np.asarray(value).dtype.kind == "f")  # (the variant's key says so)
    program = batch(ir, namer, found.wrt, shape_of, location=parsed.location, ndims=ndims, floats=floats,
                    select=not found.options.jit, narrow=narrow)
    name = namer.fresh(f"{parsed.name}_batched")
    func = build(program, parsed.tree, describe(parsed), name)
    scatter_in_place(func)
    drop_unread(func)
    if found.options.scales and row is not None and _double(row) and not narrows(func) \
            and fold_scales(func, program.rows, namer.fresh, lambda name: _row_dims(shape_of, name)):
        _drop_in_branches(func, program.rows)
    return func, program, name


def _double(row: tuple) -> bool:
    """Every argument a float64 array, a Python number or integers: a factor computed on a row is
    float64, as the rows it scales are."""
    return all(type(a) in (float, int, bool)
               or type(a) is np.ndarray and (a.dtype == np.float64 or a.dtype.kind in "biu") for a in row)


def _row_dims(shape_of: dict, name: str) -> tuple | None:
    """The dims of a row of the value `name` (`Shape.dims`), None where not known."""
    found = shape_of.get(name)
    return found.dims if found is not None and found.known else None


def _drop_in_branches(func: ast.FunctionDef, rows: frozenset) -> None:
    """The values nothing reads, inside the two branches `fold_scales` made (the steps its
    products replaced) and before them; and the fold undone where it does not pay: where the
    folded branch makes as many passes over rows as the other, less its guard's one per base
    (Rosenbrock's two products by row-free factors folded into two).  (Each chunk of rows runs
    the branch again: the guard is not free.)"""
    for at, stmt in enumerate(func.body):
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Call) \
                and getattr(stmt.test.func, "id", None) == "scales_hold":
            after = sorted({n for s in func.body[at + 1:] for n in reads(s)})
            for branch in (stmt.body, stmt.orelse):
                branch.append(ast.Expr(ast.Tuple([ast.Name(n, ast.Load()) for n in after], ast.Load())))
                remove_dead(branch, pure=_pure)
                branch.pop()
                tidy_comments(branch, lambda s: False)
            passes = [sum(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id in rows for t in s.targets)
                          for s in branch) for branch in (stmt.body, stmt.orelse)]
            # (a factor's statement is a pass over one row: a quarter of a pass over rows counted, the
            # batch of a Hessian worth folding being its parameters, several of them)
            factors = sum(isinstance(s, ast.Assign) and _target_name(s).endswith("_scale") for s in stmt.body)
            if passes[0] + len(stmt.test.args[0].elts) + factors / 4 >= passes[1]:
                func.body[at:at + 1] = stmt.orelse
            break
    remove_dead(func.body, pure=_pure)
    tidy_comments(func.body, lambda s: False)


def _target_name(stmt: ast.Assign) -> str:
    return stmt.targets[0].id if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) else ""


def drop_unread(func: ast.FunctionDef) -> None:
    """What the batched statements leave behind: a name that only renames another
    (``x_bar_3_bar = cotangent``) read as the other, and the values nothing reads any more
    (the index tuples ``t8 = t7,`` an index read written out as ``a[:, :-1]`` no longer
    needs, ``batch_size`` where no helper asks for it), with the comments over them."""
    propagate_copies(func.body)
    remove_dead(func.body, pure=_pure)
    tidy_comments(func.body, lambda stmt: False)


def _pure(value: ast.expr) -> bool:
    """Whether evaluating `value` does nothing but make it: liveness's pure expressions, and
    the ``slice(...)`` of an index's constant parts."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "slice":
        return not value.keywords and all(is_pure(a) for a in value.args)
    return is_pure(value)


def scatter_in_place(func: ast.FunctionDef) -> bool:
    """``y = index_add_rows(b, ...)`` becomes ``y = scatter_add_rows(b, ...)`` (no copy) where
    `b` is rows this function made (by ``index_add_rows``, ``scatter_add_rows``,
    ``zero_rows_with``) that no other statement mentions; with ``broadcast_rows(z, n)`` of zeros
    ``z = np.zeros(s)`` as the base it becomes ``zero_rows_with(z, n, ...)``, new rows written into.
    Top-level statements only."""
    uses = Counter(n.id for n in ast.walk(func) if isinstance(n, ast.Name))
    made, zeros, changed = set(), set(), False
    for stmt in func.body:
        stored = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        zeros -= stored  # (a name assigned again holds something else)
        made -= stored
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name, value = stmt.targets[0].id, stmt.value
        if _call_of(value, "zeros", module=True) and len(value.args) == 1 and not value.keywords:
            zeros.add(name)
        if not isinstance(value, ast.Call) or not value.args:
            continue
        base = value.args[0]
        if _call_of(value, "index_add_rows") and len(value.args) == 4:
            if _call_of(base, "broadcast_rows") and len(base.args) == 2 and isinstance(base.args[0], ast.Name) \
                    and base.args[0].id in zeros:  # new rows of zeros, nothing else holds them: written into
                stmt.value = ast.Call(ast.Name("zero_rows_with", ast.Load()), [*base.args, *value.args[1:]], [])
                made.add(name)
                changed = True
                continue
            if not (isinstance(base, ast.Name) and base.id in made and uses[base.id] == 2):
                made.add(name)
                continue
            value.func.id = "scatter_add_rows"
            changed = True
        if any(_call_of(value, helper) for helper in ("index_add_rows", "scatter_add_rows", "zero_rows_with")):
            made.add(name)
    return changed


def _call_of(value, name: str, module: bool = False) -> bool:
    """Whether `value` calls the helper `name` (``np.name`` with `module`)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if module:
        return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
            and func.value.id == "np"
    return isinstance(func, ast.Name) and func.id == name


_NOTE = "__srcdiff_note__"


def probe(found: Lowered, ir, namer, shape_of: dict, row: tuple) -> tuple[dict[str, int], dict[str, str]]:
    """The number of axes of every value the function computes for one example `row`: its
    statements run once, unbatched, each assignment noted.  A name whose values have several
    numbers of axes (a loop's ``v = None`` then ``v = g``, an adjoint zeroed as a number on the last
    iteration of a backward loop and an array on the others) is left out: its last value alone
    would batch the other iterations with the wrong axes.  Empty when they raise (the rules'
    shapes are used alone).  Beside them, the dtypes narrower than float64 (float32, complex64)
    of values always of that one dtype, and "number" for a name always a Python number: a loop
    carrying a Python number into float32 values (``nll = 0.0``, ``nll = nll + np.log(s)``) has
    float32 rows from the start, as NumPy gives one example float32 (ad/batching_dtypes.py)."""
    key = tuple(map(shapes.signature, row))
    made = _PROBES.setdefault(found, {}).get(key)
    if made is None:
        plain = batch(ir, namer.copy(), (), shape_of, location=found.parsed.location)
        names = ast.parse("{k: v for k, v in locals().items()}", mode="eval").body
        func = build(plain, found.parsed.tree, describe(found.parsed), f"{found.parsed.name}_probe", names)
        _note_assignments(func.body)
        made = _PROBES[found][key] = _Probe(found, render.render(func))
    return made.knowledge(row)


class _Probe:
    """A batched function's probe (`probe`), made once per signature: its runs on several examples tell
    whether the code one example's knowledge made is the code another's makes (`knowledge_of`)."""

    def __init__(self, found: Lowered, source: str):
        self.seen: dict[str, set] = {}
        self.kinds: dict[str, set] = {}
        cells = {**TEMPLATE_GLOBALS, **HELPERS, **found.parsed.closure, _NOTE: self.note}
        try:
            self.run = loader.build_function(source, f"{found.parsed.name}_probe", found.parsed.func.__globals__,
                                             cells)
        except Exception:  # noqa: BLE001 - the probe only adds knowledge; the batched code decides
            self.run = None

    def note(self, name: str, value) -> None:
        if isinstance(value, (np.ndarray, np.generic, float, int, complex)):
            self.seen.setdefault(name, set()).add(np.ndim(value))
            self.kinds.setdefault(name, set()).add(_kind(value))

    def knowledge(self, row: tuple) -> tuple[dict[str, int], dict[str, str]]:
        self.seen, self.kinds = {}, {}
        try:
            values = self.run(*row)
        except Exception:  # noqa: BLE001 - the probe only adds knowledge; the batched code decides
            return {}, {}
        ndims = {k: np.ndim(v) for k, v in values.items()
                 if isinstance(v, (np.ndarray, np.generic, float, int, complex))}
        narrow = {k: next(iter(found)) for k, found in self.kinds.items() if len(found) == 1 and None not in found}
        return {k: n for k, n in ndims.items() if len(self.seen.get(k, {n})) == 1}, narrow


#: each batched `Lowered`'s probes, by signature (weakly: a Lowered replaced takes its probes with it)
_PROBES = memo.table(weak=True)


def knowledge_of(found: Lowered, row: tuple):
    """What the probe of `found` tells of one example `row`, hashable (None before `found` was compiled for
    arguments like `row`): the batched code is compiled from it, so that two examples of one signature
    telling the same make the same code, and two telling otherwise (a branch's other side taken, whose
    values' axes the probe then saw) make each its own."""
    made = _PROBES.get(found, {}).get(tuple(map(shapes.signature, row)))
    if made is None:
        return None
    ndims, narrow = made.knowledge(row)
    return frozenset(ndims.items()), frozenset(narrow.items())


def _kind(value) -> str | None:
    """"number" for a Python number, the dtype's name of a float32 or complex64 NumPy value (None otherwise)."""
    if type(value) in (float, int, complex):
        return "number"
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind in "fc" and dtype.itemsize < (8 if dtype.kind == "f" else 16):
        return dtype.name
    return None


def _note_assignments(body: list) -> None:
    """After each assignment to names in `body` (nested blocks too), a call noting their values."""
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                _note_assignments(block)
    at = 0
    while at < len(body):
        stmt = body[at]
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        assigned = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        notes = [ast.Expr(ast.Call(ast.Name(_NOTE, ast.Load()), [ast.Constant(name), ast.Name(name, ast.Load())], []))
                 for name in assigned]
        if isinstance(stmt, ast.For):  # the loop's target, at the top of each iteration
            stmt.body[:0] = notes
        else:
            body[at + 1:at + 1] = notes
            at += len(notes)
        at += 1
    ast.fix_missing_locations(ast.Module(body, []))


def build(program: BatchedProgram, tree: ast.FunctionDef, describe_line, name: str,
          output: ast.expr | None = None) -> ast.FunctionDef:
    """``name(*params) -> value`` with a batch axis first (or `output`)."""
    body = backward_statements(program.body, describe_line, label="")
    body.append(ast.Return(program.output if output is None else output))
    args = tree.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    func = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    return ast.fix_missing_locations(func)


__all__ = ["HELPERS", "build", "drop_unread", "knowledge_of", "probe", "scatter_in_place", "transform"]
