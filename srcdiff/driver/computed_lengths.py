"""Widths computed from shapes (``n = b.shape[0] // 2``), compiled as not 1, behind a test.

A gradient is specialised on which axes of its arguments have length one (ir/shapes.py), so an
int read from a shape (``n = U.shape[0]``) says whether the arrays it sizes are of length one.
One computed from a shape (``b.shape[0] // 2``, ``W.shape[1] // 3``, ``2 * k + 1``) says
nothing: it may be 1, so an array of width n may broadcast against another, and the gradient
keeps an ``unbroadcast`` for every operand of every product with it, and a seed's fill, in each
step of a loop (gated recurrent cells: the gates' width from a bias's length).

Such a width is 1 rarely.  The gradient is compiled assuming each computed width is not 1 (nor
negative: then a slice ``x[:n]`` could be of length one), and tests it where it is computed
(``if n == 1 or n < 0: return <the same gradient compiled without the assumption>(...)``), so
the key of the code is in effect the signature and which computed widths are 1, as if they were
axes of an argument, for every such width the function computes, at the price of one test a
call.  The other code is compiled on first use (`Fallback`).  Not for numba, code srcdiff reads
back (second order), forward mode or pullbacks: they keep the code that assumes nothing.
"""

from __future__ import annotations

import ast
import dataclasses

from ..ir import shapes
from ..ir.nodes import Function, Node
from ..ir.shape_inference import infer_shapes
from ..ir.shapes import Shape

#: the cell the test calls: the gradient compiled without the assumption (`Fallback`)
FALLBACK = "__srcdiff_lengths__"
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)


def infer(ir: Function, param_shapes: dict[str, Shape], call_shape, options, foreign) -> tuple[dict, dict]:
    """(the shapes of `ir`'s values, the widths assumed not 1 in them: `assumed`); `options`
    None: none assumed (the code the test falls back to)."""
    shape_of = infer_shapes(ir, param_shapes, call_shape)
    lengths = assumed(ir, shape_of, options, foreign) if options is not None else {}
    return (infer_shapes(ir, param_shapes, call_shape, lengths) if lengths else shape_of), lengths


def assumed(ir: Function, shape_of: dict[str, Shape], options, foreign) -> dict[str, str]:
    """The computed widths of `ir`'s top level to compile as not 1: name -> ``shapes.MANY``
    (none for the transformations that keep code assuming nothing)."""
    if options.mode != "reverse" or options.jit or options.derivable or options.debug or options.pullback \
            or foreign:
        return {}
    found: dict[str, str] = {}
    for node in ir.body.nodes:
        if isinstance(node, Node) and type(node) is Node and node.rule.name == "nograd" \
                and shape_of.get(node.out.name, shapes.UNKNOWN).length is None and _is_width(node, shape_of, found):
            found[node.out.name] = shapes.MANY
    return found


def _is_width(node: Node, shape_of: dict[str, Shape], widths: dict) -> bool:
    """``b.shape[0] // 2``: int arithmetic (+, -, *, //) of an array's axis lengths (``x.shape[k]``,
    ``len(x)``), ints read from shapes or computed so, and int literals, at least one not a literal."""
    names = {v.name for v in node.input_vars}
    expr = node.expr
    if not isinstance(expr, ast.BinOp):
        return False
    read = False
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.BinOp) and isinstance(e.op, _ARITHMETIC):
            stack += [e.left, e.right]
        elif isinstance(e, ast.Constant) and type(e.value) is int:
            pass
        elif (isinstance(e, ast.Name) and e.id in names
              and (e.id in widths or shape_of.get(e.id, shapes.UNKNOWN).length)) or _axis_read(e, names, shape_of):
            read = True
        else:
            return False
    return read


def _axis_read(e: ast.expr, names: set[str], shape_of: dict[str, Shape]) -> bool:
    """``x.shape[k]`` (k a literal int within x's axes) or ``len(x)``, x an array of known ndim."""
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
            and isinstance(e.slice, ast.Constant) and type(e.slice.value) is int:
        array, axis = e.value.value, e.slice.value
    elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1 \
            and not e.keywords and "len" not in names:
        array, axis = e.args[0], 0
    else:
        return False
    shape = shape_of.get(array.id, shapes.UNKNOWN) if isinstance(array, ast.Name) and array.id in names else None
    return shape is not None and shape.known and not shape.scalar and -shape.ndim <= axis < shape.ndim


def guard(func: ast.FunctionDef, lengths: dict[str, str]) -> bool:
    """Put the test of each assumed width after its one top-level assignment in the generated
    `func`; False (nothing changed) where a width has no such assignment, or is read before it,
    or the parameters the test passes on are rebound or deleted before it."""
    args = func.args
    if args.vararg or args.kwarg:
        return False
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    places = {}
    for name in lengths:
        stores = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name
                  and isinstance(n.ctx, (ast.Store, ast.Del))]
        at = [i for i, s in enumerate(func.body) if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
        if len(stores) != 1 or len(at) != 1:
            return False
        places[name] = at[0]
    last = max(places.values())
    touched = {n.id for s in func.body[:last + 1] for n in ast.walk(s)
               if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    read_early = {n.id for name, i in places.items() for s in func.body[:i] for n in ast.walk(s)
                  if isinstance(n, ast.Name) and n.id == name}
    if touched & set(params) or read_early:
        return False
    call = ast.Call(ast.Name(FALLBACK, ast.Load()), [ast.Name(a.arg, ast.Load()) for a in args.posonlyargs + args.args],
                    [ast.keyword(a.arg, ast.Name(a.arg, ast.Load())) for a in args.kwonlyargs])
    for name, i in sorted(places.items(), key=lambda item: -item[1]):
        test = ast.parse(f"{name} == 1 or {name} < 0", mode="eval").body
        func.body.insert(i + 1, ast.If(test, [ast.Return(call)], []))
    ast.fix_missing_locations(func)
    return True


@dataclasses.dataclass
class Fallback:
    """The gradient compiled without assuming the computed widths are not 1, made on first call."""

    compile: object  # () -> Variant
    function: object = None

    def __call__(self, *args, **kwargs):
        if self.function is None:
            self.function = self.compile().function
        return self.function(*args, **kwargs)
