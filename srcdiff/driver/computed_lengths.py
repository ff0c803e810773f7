"""Widths computed from shapes (``n = b.shape[0] // 2``), compiled as not 1, behind a test.

A gradient is specialised on which axes of its arguments have length one (ir/shapes.py), so an
int read from a shape (``n = U.shape[0]``) says whether the arrays it sizes are of length one.
One computed from shapes (``b.shape[0] // 2``, ``W.shape[1] // 3``, ``2 * n``, ``len(b) - n``)
says nothing: it may be 1, and so may a slice of a parameter between such bounds (``W[:, n:]``,
``b[n:2 * n]``), so an array of that width may broadcast against another, and the gradient keeps an
``unbroadcast`` for every operand of every product with it, and a seed's fill, in each step of a
loop (gated recurrent cells: the gates' width from a bias's length).

Such a width is 1 rarely.  The gradient is compiled assuming each computed width is not 1 nor
negative (a slice ``x[:n]`` could be of length one then) and each such slice of a parameter not
of length one, and its first statement tests exactly that, from the arguments (``if b.shape[0] //
2 == 1 or ... or len(range(W.shape[1])[b.shape[0] // 2:]) == 1: return <the same gradient compiled
without the assumption>(...)``): the key of the code is in effect the signature and which computed
lengths are 1, as if they were axes of arguments, for every such length, at the price of one test
a call.  The other code is compiled on first use (`Fallback`).  Not for numba, code srcdiff reads
back (second order), forward mode or pullbacks: they keep the code that assumes nothing.
"""

from __future__ import annotations

import ast
import copy
import dataclasses

from ..backend import render
from ..ir import shapes
from ..ir.nodes import Const, Function, Node, Var, all_nodes
from ..ir.shape_inference import SPLIT_AXES, infer_shapes
from ..ir.shapes import Shape

#: the cell the test calls: the gradient compiled without the assumption (`Fallback`)
FALLBACK = "__srcdiff_lengths__"
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)
_MADE = ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full")  # (a shape, then a fill or a dtype)
_ARITHMETIC_RULES = ("nograd", "operator.add", "operator.sub", "operator.mul", "operator.floordiv")
#: splits into equal pieces, the axis each cuts along (np.array_split's pieces may differ by one)
_SPLITS = {name: axis for name, axis in SPLIT_AXES.items() if name != "numpy.array_split"}
#: arrays whose axes' lengths follow from their operands' (`Assumed._computed`)
_COMPUTED = ("operator.matmul", "operator.add", "operator.sub", "operator.mul", "operator.truediv")


def infer(ir: Function, param_shapes: dict[str, Shape], call_shape, options, foreign) -> tuple[dict, list]:
    """(the shapes of `ir`'s values, the tests of what they assume: `Assumed.tests`); `options`
    None: nothing assumed (the code the test falls back to)."""
    shape_of = infer_shapes(ir, param_shapes, call_shape)
    if options is None or options.mode != "reverse" or options.jit or options.derivable or options.debug \
            or options.pullback or foreign:
        return shape_of, []
    found = Assumed(ir, shape_of)
    if found.lengths:
        shape_of = infer_shapes(ir, param_shapes, call_shape, found.lengths)
    # (bounds read from shapes alone too: ``n = b.shape[0]``, ``W[:, n:]``; literal bounds only beside a
    # computed width: ``x[1:]`` alone assumes nothing worth a test, its code is the same either way)
    if found.slices(shape_of, literal=bool(found.lengths)):
        shape_of = infer_shapes(ir, param_shapes, call_shape, found.lengths)
    return (shape_of, found.tests) if found.lengths else (shape_of, [])


class Assumed:
    """The ints of `ir` computed from its parameters' shapes (their text over the
    parameters alone), those assumed not 1 (`lengths`: name -> ``shapes.MANY``), and the axes of
    slices of parameters assumed not of length one (`lengths`: name -> those axes)."""

    def __init__(self, ir: Function, shape_of: dict[str, Shape]):
        self.params = {p.name for p in ir.params}
        self.ir, self.shape_of = ir, shape_of
        self.ints: dict[str, ast.expr] = {}  # name -> its value's text over the parameters
        self.tuples: dict[str, ast.expr] = {}  # name -> ``x.shape`` of a parameter x
        self.lengths: dict[str, object] = {}
        self.tests: list[ast.expr] = []
        self.pieces: dict[str, tuple] = {}  # a list made by ``np.split(x, k, axis)`` -> (axis, x's axes, k)
        # name -> the text of each axis's length (None: not known): parameters' ``x.shape[k]``, arrays
        # made of such lengths (``np.zeros((B, 2 * n))``) and written into (``set_item``)
        self.axes: dict[str, list] = {p: [ast.parse(f"{p}.shape[{k}]", mode="eval").body for k in range(s.ndim)]
                                      for p in self.params if (s := shape_of.get(p, shapes.UNKNOWN)).known
                                      and not s.scalar}
        for node in all_nodes(ir):  # (in a loop too: a text over the parameters has one value)
            if type(node) is Node:
                self._read(node)

    def _read(self, node: Node) -> None:
        name, expr = node.out.name, node.expr
        inputs = [v.name if isinstance(v, Var) else None for v in node.inputs]
        if node.rule.name == "nograd" and isinstance(expr, ast.Attribute) and expr.attr == "shape" \
                and self._array(expr.value, inputs):
            self.tuples[name] = expr
        elif node.rule.name == "getitem" and inputs and inputs[0] in self.tuples and isinstance(expr, ast.Subscript) \
                and isinstance(expr.slice, ast.Constant) and type(expr.slice.value) is int:
            self.ints[name] = ast.Subscript(self.tuples[inputs[0]], expr.slice, ast.Load())
        elif node.rule.name in _MADE and isinstance(expr, ast.Call) and expr.args:
            size = expr.args[0]
            self.axes[name] = [self._text(e, set(inputs), False) if not isinstance(e, ast.Constant) or type(e.value)
                               is not int else e for e in (size.elts if isinstance(size, ast.Tuple) else [size])]
        elif node.rule.name == "setitem" and inputs and inputs[0] in self.axes:
            self.axes[name] = self.axes[inputs[0]]
        elif node.rule.name in _SPLITS and inputs and inputs[0] in self.axes:
            self._split(node)
        elif node.rule.name == "getitem" and inputs and inputs[0] in self.axes and self._rows(node):
            self.axes[name] = self.axes[inputs[0]][len(node.static["index"]):]  # (``xs[t]``: a step's rows)
        elif node.rule.name in _ARITHMETIC_RULES and isinstance(expr, ast.BinOp):
            text = self._text(expr, set(inputs))
            if text is not None:
                self.ints[name] = text
                if self.shape_of.get(name, shapes.UNKNOWN).length is None:
                    self.lengths[name] = shapes.MANY
                    self.tests.append(ast.parse(f"({ast.unparse(text)}) == 1 or ({ast.unparse(text)}) < 0",
                                                mode="eval").body)

        if node.rule.name in _COMPUTED and name not in self.ints:
            self._computed(node, inputs)

    def _split(self, node: Node) -> None:
        """``np.split(x, k, axis)`` (hsplit, vsplit, dsplit) of an array of `axes` into a literal number
        of pieces: each piece, ``t[i]``, is x along its other axes and ``x.shape[axis] // k`` along that
        one (else the call raises, as the user's does)."""
        k, lengths = node.static.get("indices_or_sections"), self.axes[node.inputs[0].name]
        if type(k) is not int or k <= 0 or any(isinstance(v, Var) for v in node.inputs[1:]):
            return
        axis = _SPLITS[node.rule.name](node.static, len(lengths))
        if type(axis) is int and -len(lengths) <= axis < len(lengths) and lengths[axis] is not None:
            self.pieces[node.out.name] = (axis % len(lengths), lengths, k)

    def _rows(self, node: Node) -> bool:
        """``xs[t]``, ``xs[i, j]``: ints (of no array) index the leading axes, nothing else."""
        kinds, out = node.static.get("index", ()), self.shape_of.get(node.out.name, shapes.UNKNOWN)
        return bool(kinds) and all(kind in ("int", "op") for kind, _ in kinds) and all(
            isinstance(v, Const) or self.shape_of.get(v.name, shapes.UNKNOWN).scalar for v in node.inputs[1:]) \
            and out.known and not out.scalar and len(out.dims) == len(self.axes[node.inputs[0].name]) - len(kinds)

    def _computed(self, node: Node, inputs: list) -> None:
        """The axes' lengths of a product of two matrices (``x @ W``: x's rows, W's columns) and of
        arithmetic broadcasting arrays (``x @ W + b``: each axis the largest of its operands' lengths,
        ``max(W.shape[1], b.shape[0])``; the product ``a[:, n:]`` slices is then a computed array:
        wrong only where an operand's length is 0 and the other's 1, when every slice is empty)."""
        shape = self.shape_of.get(node.out.name, shapes.UNKNOWN)
        if not shape.known or shape.scalar:
            return
        known = [self.axes.get(n) if n is not None else None for n in inputs]
        ranks = [self.shape_of.get(n, shapes.UNKNOWN) if n is not None else shapes.of_constant(v.value)
                 if isinstance(v, Const) else shapes.UNKNOWN for n, v in zip(inputs, node.inputs)]
        if any(not r.known for r in ranks):
            return
        ranks = [0 if r.scalar else len(r.dims) for r in ranks]
        axes = [k if k is not None else [None] * r for k, r in zip(known, ranks)]
        if node.rule.name == "operator.matmul":
            if ranks == [2, 2] and len(shape.dims) == 2:
                self.axes[node.out.name] = [axes[0][0], axes[1][1]]
            return
        out = []
        for axis in range(-len(shape.dims), 0):
            texts = [a[axis] for a in axes if len(a) >= -axis]
            if not texts or any(t is None for t in texts):
                out.append(None)
                continue
            text = texts[0]
            for other in texts[1:]:
                if ast.dump(other) != ast.dump(text):
                    text = ast.Call(ast.Name("max", ast.Load()), [text, other], [])
            out.append(text)
        if any(t is not None for t in out):
            self.axes[node.out.name] = out

    def _array(self, e: ast.expr, inputs) -> bool:
        """A parameter of an array of known ndim."""
        shape = self.shape_of.get(e.id, shapes.UNKNOWN) if isinstance(e, ast.Name) and e.id in self.params \
            and e.id in inputs else None
        return shape is not None and shape.known and not shape.scalar

    def _text(self, e: ast.expr, names: set, top: bool = True) -> ast.expr | None:
        """`e`, int arithmetic (+, -, *, // by a literal) of ints of `ints`, axis lengths of parameters
        (``x.shape[k]``, ``len(x)``) and int literals, over the parameters alone; else None."""
        if isinstance(e, ast.BinOp) and isinstance(e.op, _ARITHMETIC):
            if isinstance(e.op, ast.FloorDiv) and not (isinstance(e.right, ast.Constant) and type(e.right.value) is int
                                                       and e.right.value):
                return None  # (a division by a value: the user's line says it is zero)
            left, right = self._text(e.left, names, False), self._text(e.right, names, False)
            return None if left is None or right is None else ast.BinOp(left, e.op, right)
        if isinstance(e, ast.Constant) and type(e.value) is int:
            return None if top else e
        if isinstance(e, ast.Name) and e.id in names and e.id in self.ints:
            return self.ints[e.id]
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(e.slice, ast.Constant) and type(e.slice.value) is int \
                and self._array(e.value.value, names) \
                and -self.shape_of[e.value.value.id].ndim <= e.slice.value < self.shape_of[e.value.value.id].ndim:
            return e
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1 \
                and not e.keywords and "len" not in names and self._array(e.args[0], names) \
                and self.shape_of[e.args[0].id].ndim:
            return e
        return None

    def slices(self, shape_of: dict[str, Shape], literal: bool = True) -> bool:
        """Assume each slice between bounds of `ints` (``W[:, n:]``; `literal`: literal bounds too) of an
        array of `axes` not of length one along each axis of a known length where `shape_of` does not
        know it; whether there was one."""
        found = False
        for node in all_nodes(self.ir):
            if type(node) is not Node or node.rule.name != "getitem":
                continue
            expr, kinds = node.expr, node.static.get("index", ())
            if [kind for kind, _ in kinds] == ["int"] and isinstance(node.inputs[0], Var) \
                    and node.inputs[0].name in self.pieces:
                found = self._piece(node, shape_of) or found
                continue
            if not kinds or any(kind != "slice" for kind, _ in kinds) or not isinstance(node.inputs[0], Var) \
                    or not isinstance(expr, ast.Subscript):
                continue
            lengths, out = self.axes.get(node.inputs[0].name), shape_of.get(node.out.name)
            parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            names = {v.name for v in node.input_vars}
            if lengths is None or out is None or not out.known or len(parts) != len(out.dims) \
                    or len(parts) > len(lengths):
                continue
            axes = []
            for axis, part in enumerate(parts):
                test = self._slice_test(lengths[axis], part, names) \
                    if out.dims[axis] == shapes.UNKNOWN_DIM and lengths[axis] is not None \
                    and (literal or not _literal(part)) else None
                if test is not None:
                    axes.append(axis)
                    if all(ast.dump(test) != ast.dump(t) for t in self.tests):
                        self.tests.append(test)
            if axes:
                self.lengths[node.out.name] = tuple(axes)
                found = True
        return found


    def _piece(self, node: Node, shape_of: dict[str, Shape]) -> bool:
        """Assume a piece of `pieces` (``t1[0]`` of ``t1 = np.split(W, 3, axis=1)``) not of length one
        along the axis split, testing ``W.shape[1] // 3 == 1``; whether it was."""
        axis, lengths, k = self.pieces[node.inputs[0].name]
        out = shape_of.get(node.out.name)
        if out is None or not out.known or len(out.dims) != len(lengths) or out.dims[axis] != shapes.UNKNOWN_DIM:
            return False
        width = ast.BinOp(lengths[axis], ast.FloorDiv(), ast.Constant(k))
        self.axes[node.out.name] = [width if a == axis else length for a, length in enumerate(lengths)]
        self.lengths[node.out.name] = (axis,)
        test = ast.parse(f"({ast.unparse(width)}) == 1", mode="eval").body
        if all(ast.dump(test) != ast.dump(t) for t in self.tests):
            self.tests.append(test)
        return True

    def _slice_test(self, length: ast.expr, part: ast.Slice, names: set) -> ast.expr | None:
        """``len(range(length)[lo:hi:step]) == 1``, the bounds over the parameters (None where one
        is not an int of `ints` or a literal)."""
        given = (part.lower, part.upper, part.step)
        bounds = [b if b is None or isinstance(b, ast.Constant) and type(b.value) is int
                  else self._text(b, names, False) for b in given]
        if any(b is None and g is not None for b, g in zip(bounds, given)):
            return None
        return ast.parse(f"len(range({ast.unparse(length)})[{ast.unparse(ast.Slice(*bounds))}]) == 1", mode="eval").body


def _literal(part: ast.expr) -> bool:
    """A slice whose bounds are literal ints or absent (``1:``, ``:-1``, ``::2``)."""
    return isinstance(part, ast.Slice) and all(b is None or isinstance(b, ast.Constant) or isinstance(
        b, ast.UnaryOp) and isinstance(b.operand, ast.Constant) for b in (part.lower, part.upper, part.step))


def guard(func: ast.FunctionDef, params: list[str], tests: list[ast.expr]) -> bool:
    """Put the test of what the code assumes first in the generated `func` (its parameters those
    of the lowered function, `params`); False (nothing changed) where they differ."""
    args = func.args
    if args.vararg or args.kwarg or [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] != list(params):
        return False
    call = ast.Call(ast.Name(FALLBACK, ast.Load()), [ast.Name(a.arg, ast.Load()) for a in args.posonlyargs + args.args],
                    [ast.keyword(a.arg, ast.Name(a.arg, ast.Load())) for a in args.kwonlyargs])
    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), list(tests))
    func.body.insert(0, ast.If(copy.deepcopy(test), [ast.Return(call)], []))
    ast.fix_missing_locations(func)
    return True


def listed(made, listing) -> str:
    """`listing(made)`, and where `made` tests computed widths (it calls no other adjoint then), the
    code it falls back to after it, named ``<name>_any_width``, which the test then calls: one
    listing that defines every name it reads (an exported module's too)."""
    text = listing(made)
    fallback = made.cells.get(FALLBACK)
    if fallback is None:
        return text
    other = fallback.variant()
    name = f"{made.name}_any_width"
    return render.rename(text, {FALLBACK: name}).rstrip("\n") + "\n\n\n" + render.rename(listing(other),
                                                                                     {other.name: name})


@dataclasses.dataclass
class Fallback:
    """The gradient compiled without assuming the computed widths are not 1, made on first call."""

    compile: object  # () -> Variant
    made: object = None

    def variant(self):
        """The gradient compiled without the assumption (a `Variant`), compiled once."""
        if self.made is None:
            self.made = self.compile()
        return self.made

    def __call__(self, *args, **kwargs):
        return self.variant().function(*args, **kwargs)
