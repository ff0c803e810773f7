"""The state of the backward walk: adjoint names, what holds a value, and loop plans."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..frontend.naming import Namer
from ..ir import shapes
from ..ir.nodes import Const, Operand, Var
from ..ir.program import AdjointStmt
from ..ir.shapes import Shape


@dataclass
class LoopPlan:
    """How the forward sweep of one loop saves what its backward sweep reads."""

    stack: str | None = None
    saved: list[str] = field(default_factory=list)
    count: str | None = None  # iterations run, when the backward loop cannot recount them
    preset: list[str] = field(default_factory=list)  # saved names some iteration may not set
    #: one stack per saved name, read by position rather than popped (`Sweep.derivable`)
    stacks: list[str] = field(default_factory=list)
    #: checkpointing (ad/checkpoint.py): every `checkpoint` iterations the forward loop pushes
    #: the carried `state` on `checkpoints`; the backward sweep's `recompute` loop reruns a segment
    checkpoint: int | None = None
    checkpoints: str | None = None
    state: list[str] = field(default_factory=list)
    recompute: object = None
    recompute_target: list = field(default_factory=list)


@dataclass
class Sweep:
    """State of the backward walk: adjoint names, which adjoints hold a value, the output."""

    namer: Namer
    shapes: dict[str, Shape]
    active: set[str]
    lists: frozenset
    location: object
    names: dict[str, str] = field(default_factory=dict)  # primal -> adjoint name (one per primal)
    defined: set[str] = field(default_factory=set)  # primals whose adjoint holds a value here
    owned: set[str] = field(default_factory=set)  # ... whose adjoint array no other name shares
    alias: dict[str, str] = field(default_factory=dict)  # adjoint name -> adjoint it is
    stmts: list = field(default_factory=list)
    plans: dict[int, LoopPlan] = field(default_factory=dict)  # id(loop) -> plan
    pullbacks: dict[int, str] = field(default_factory=dict)  # UserCall node id -> pullback name
    calls: dict = field(default_factory=dict)  # vjp name -> CallSpec
    #: primal -> where its adjoint is certainly zero: the conditions (expression, polarity)
    #: that must all hold for it to be nonzero (a chain below ``np.where``, rules.table.Rule.selects)
    masks: dict[str, tuple] = field(default_factory=dict)  # primal -> tuple of masks.Mask
    loops: int = 0  # how many loops this sweep's statements are nested in
    #: where shapes are read from instead of forward values (ad/shape_sources.py): the
    #: sources by value, and the parameter names; None for a sweep built without them
    shape_sources: tuple | None = None
    fills: object = None  # adjoints.Fills: where a filled array may flow as its number
    #: loops save one list per value and the backward loop reads them by position (no pop,
    #: no list of tuples): the form srcdiff can differentiate again (driver/higher.py)
    derivable: bool = False
    once: bool = False  # (derivable) never differentiated again: first-order selects kept (Options.once)
    #: (derivable) where a nested loop's read positions start (``k = len(stack)``): shared by
    #: the child sweeps, emitted before the outermost loop, whose iterations all read them
    positions: list = field(default_factory=list)
    #: primals whose adjoint is an item popped from a list's adjoint, which may be the 0.0
    #: of a list of zeros, or a number standing for a filled array (ad/adjoints.py): a write by
    #: index into it first makes an array of the primal's shape
    popped: set = field(default_factory=set)
    checkpoint: int | None = None  # loops keep their state every `checkpoint` iterations (ad/checkpoint.py)
    #: the primitive calls of the block being swept, by the name they assign (ad/ties.py)
    definitions: dict = field(default_factory=dict)
    #: values whose adjoint may be inf or NaN where the function is finite (ad/zero_factors.py)
    non_finite: frozenset = frozenset()
    #: products that are a number times a power of one value, by node id (ad/powers.py)
    powers: dict = field(default_factory=dict)
    #: ... of them, those that may be the NaN of a kink or tie of the generated code differentiated
    #: again (ad/zero_factors.py): only a factor that carries no gradient selects 0 there
    kinked: frozenset = frozenset()
    #: values raised to a power above 1, whose adjoint is 0 where they are (ad/zero_factors.py)
    vanishing: frozenset = frozenset()
    #: outputs of primitives of infinite slope whose adjoint stands still (ad/still_adjoints.py)
    still: frozenset = frozenset()
    #: values whose adjoint is 0 somewhere by the code's structure: their use masks
    #: (ad/unused_elements.py)
    used: dict = field(default_factory=dict)
    #: values whose every adjoint path ends in a hold (ad/unused_elements.held_values)
    held: frozenset = frozenset()
    #: values that may be infinite where their operands are finite (ad/unbounded_values.py)
    unbounded: frozenset = frozenset()
    #: values of ties read only as a power above 2, flat where they are 0 (ad/flat_ties.py)
    flat: frozenset = frozenset()
    #: roots of a power of one value, and of sums of even powers (ad/roots.py)
    roots: object = None

    @property
    def adjoint(self) -> dict[str, str]:
        """Primal name -> adjoint name, for the adjoints that hold a value."""
        return {p: self.names[p] for p in self.names if p in self.defined}

    def name(self, primal: str) -> str:
        if primal not in self.names:
            self.names[primal] = self.namer.adjoint(primal)
        return self.names[primal]

    def child(self) -> Sweep:
        """A sweep for a nested block: same names, its own statements."""
        other = copy.copy(self)
        other.defined, other.owned, other.alias = set(self.defined), set(self.owned), dict(self.alias)
        other.stmts = []
        return other

    def emit(self, stmt) -> None:
        self.stmts.append(stmt)

    def contribute(self, primal: str, expr: ast.expr, line: int | None) -> None:
        name = self.name(primal)
        if primal in self.defined:
            self.masks.pop(primal, None)  # a sum with another contribution: zero no longer known
            if primal in self.lists:  # adjoints of a list's elements add up one by one, lengths checked
                total = ast.Call(ast.Name("lists_add", ast.Load()), [ast.Name(name, ast.Load()), expr], [])
                self.emit(AdjointStmt(name, total, False, line))
            elif self._maybe_list(primal):  # ``dist = [10.0] * 5``: two lists added with + would concatenate
                self.emit(AdjointStmt(name, ast.Call(ast.Name("add_adjoints", ast.Load()), [ast.Name(name, ast.Load()),
                                                                                         expr], []), False, line))
                self._owns_new_value(primal)
            else:
                self.emit(AdjointStmt(name, expr, True, line))
                self._owns_new_value(primal)
            self.alias.pop(name, None)
            return
        self.defined.add(primal)
        self.emit(AdjointStmt(name, expr, False, line))
        self.alias.pop(name, None)
        if isinstance(expr, ast.Name):
            self.alias[name] = self.alias.get(expr.id, expr.id)
        if primal in self.lists:
            self.owned.add(primal)
        elif isinstance(expr, (ast.BinOp, ast.UnaryOp)):
            self._owns_new_value(primal)
        else:
            self.owned.discard(primal)

    def _maybe_list(self, primal: str) -> bool:
        """Whether `primal` may be a list srcdiff does not know is one (a constant list repeated, then
        written by index): its shape is not known, so its adjoint may be a list too.  A parameter's adjoint
        keeps ``+`` (a list parameter is a known list, ``self.lists``)."""
        params = self.shape_sources[1] if self.shape_sources else ()
        return primal not in params and not self.shapes.get(primal, shapes.UNKNOWN).known

    def _owns_new_value(self, primal: str) -> None:
        """An adjoint just assigned an arithmetic result: a new array, written into by index
        as it is — except in a derivable gradient, where lowering it again cannot tell that
        result (an array, or a number) is a new array: there a write copies it first
        (`copy_array`, known to be new), after an O(n) sum anyway."""
        if self.derivable:
            self.owned.discard(primal)
        else:
            self.owned.add(primal)

    def zero(self, primal: str) -> ast.expr:
        """A zero adjoint for `primal`, of its type and shape."""
        if primal in self.lists:
            return ast.parse(f"zeros_list({primal})" if self.derivable else f"[0.0] * len({primal})", mode="eval").body
        shape = self.shapes.get(primal, shapes.UNKNOWN)
        if shape.known and shape.ndim == 0 and shape.scalar:
            return ast.Constant(0.0)
        if shape.known:
            return ast.parse(f"np.zeros(np.shape({primal}))", mode="eval").body
        return ast.parse(f"zeros_like({primal})", mode="eval").body

    def ensure(self, primal: str, line=None, own: bool = False) -> None:
        """Give `primal`'s adjoint a value (zero) if it has none; with `own`, a private copy."""
        if primal not in self.defined:
            self.defined.add(primal)
            self.owned.add(primal)
            self.alias.pop(self.name(primal), None)
            self.emit(AdjointStmt(self.name(primal), self.zero(primal), False, line))
        elif own and primal not in self.owned and primal not in self.lists:
            name = self.name(primal)
            own = f"zeros_like({primal}) + {name}" if primal in self.popped else f"copy_array({name})"
            self.emit(AdjointStmt(name, ast.parse(own, mode="eval").body, False, line))
            self.owned.add(primal)
            self.alias.pop(name, None)


def operand_shape(operand: Operand, shape_of: dict[str, Shape]) -> Shape:
    if isinstance(operand, Var):
        return shape_of.get(operand.name, shapes.UNKNOWN)
    if isinstance(operand, Const):
        return shapes.of_constant(operand.value)
    return getattr(operand, "shape", None) or shapes.UNKNOWN  # a Global's, where guarded
