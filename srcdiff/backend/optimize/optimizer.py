"""Stage 5: the optimizer, run on the generated function's Python AST before it is rendered.

Working on the generated code rather than on the IR keeps it independent of how codegen
spells control flow: loops, branches and loop stacks are whatever statements codegen emits,
and every pass treats them conservatively (see `liveness`).  The passes, in order:

0. `writes.write_in_place` — ``y_1 = set_item(y, i, v)`` written into `y` where nothing else sees it;
1. `simplify` — constant arithmetic, ``1.0 * e -> e``, ``e ** 2 -> e * e``, signs outward (``a + -b -> a - b``);
2. `statements.propagate_copies` — the seed ``f_bar = 1.0`` and identity adjoints
   (``t7_bar = f_bar``) replaced by what they copy, so step 1 can fold the ``1.0``;
3. `statements.remove_dead` — assignments nothing reads; 4. `statements.inline_single_use` — for numbers,
   a temporary read once moves into its use, merging ``x_bar = a; x_bar = x_bar + b`` into ``x_bar = a + b``;
   (with them, `logistic.logistic_factors`: a sigmoid's adjoint ``g * s / d * e`` read from its
   value, ``g * s * (1.0 - s)``, which rounds differently and is 0, not NaN, where it saturates);
   (with them, `wheres.fold_decided_wheres`: a ``np.where(c, ...)`` inside a branch another one on `c`
   already chose, kept to that branch, a zero adjoint's hold ``held_still`` whose direction is a nonzero
   number there dropped; `wheres.inline_decided`: such a selection, or chain, held in a temporary there);
   (with them, `writes.read_around_zeroed`: an adjoint read only around the positions a write zeroed reads
   the unzeroed one; after them, `writes.zero_on_copies`: the remaining zeroings on a copy, in plain NumPy);
   `triangular_solves` — ``np.linalg.solve`` with a Cholesky factor a triangular solve (not
   bitwise: it rounds differently; not for numba or code srcdiff reads back), then
   `repeated_solves`: a backward solve of a forward solve's right-hand side scaled is its
   answer scaled (a quadratic form's adjoint); then `cholesky_pairs`: the terms of a Cholesky
   factor's adjoint that depend on it through its matrix alone (a ``cho_solve``'s two solves, a
   sum of squares of one) folded into the matrix's adjoint, one product where there were two;
   (once they find nothing more, `masks.select_masks`: arithmetic of a 0/1 float mask made of a
   comparison, ``m * X + (1.0 - m) * Y``, is ``np.where(c, X, Y)`` of its branches simplified with
   m = 1 and m = 0, like terms collected; then steps 2-4 again; only where every argument is float64
   or a Python number (the float64 mask widened nothing then), not for numba nor another library's arrays);
   (with them, `mask_products`: a 0/1 float mask ``np.where(c, 0.0, 1.0)`` read only as a factor, or a boolean
   one or a selected number as any, each product the selection of its other factors; then `wheres.merge_complements`:
   ``x = np.where(c, a, 0.0); x = x + np.where(c, 0.0, b)`` is ``x = np.where(c, a, b)``, and
   `cases.drop_zero_cases`: a selection added to an array of its shape whose branches are zero case
   by case, dropped; `selected_extrema`: an extremum read only where a selection decided it, its
   operand (not in code read back); `zero_ties`: a tie's share of a gradient zero at the tie, the
   gradient; `hyperbolic`: sinh over cosh, tanh; `like_terms`: ``s + s``, numbers into selections,
   powers of two joined; after them, `contract.contract_sums`: a sum of a broadcast product is
   ``np.einsum`` or ``@`` of the arrays it broadcasts, with keepdims or not; then `fills`:
   ``a + np.full(t.shape, b)`` is ``a + b`` where `a` has `t`'s dims);
   (with them, what arrays of one shape buy (`shape_classes`, `sameshape`; a loop-carried array
   rebuilt from its own slices keeps its shape): slices of known bounds, ``unbroadcast`` dropped (`long_axes`
   too: to an operand whose every axis is longer than one, from as many axes),
   ``a + (zeros_like(t) + b)`` made ``a + b``, an adjoint's pieces put back where they were cut
   (`reassembly`, `zero_restore`), a join of an array's own ends and a write into a carried array
   made in place (`joined_writes`, `carried_writes`), a loop's copy moved before it (`row_writes`: rows the
   loop keeps views of never written again), stack items
   nothing reads dropped (`stack_items`), dead statements of loop bodies);
4b. `splits` — ``np.split(x, k, axis=a)`` the list of its k slices (``np.split`` only where the length does
   not divide, to raise as it does), its adjoint's pieces given to ``split_adjoint`` as one list, then
   read as blocks, added into the whole's adjoint (`split_blocks`); `adjacent_products` — the products of
   adjacent column blocks of one matrix (``U[:, :n]``, ``U[:, n:2 * n]``) joined, two matmuls where there were
   four, and `joined_scatters` — two products by one left factor scattered into adjacent column blocks of one
   adjoint, one, and the blocks' bias sums one sum of that join (`joined_sums`); `joined_products`: a left
   operand's products with blocks tiling one matrix, one product sliced; an input's adjoint through adjacent blocks'
   transposes, one product (`joined_transposes`); `nested_joins`; `whole_arrays`: a join of an array's two ends,
   or a slice of all of it, the array (NumPy code only);
4b'. `clip_cases` — an operand of ``@`` that is, piece by piece in one array, ``k * np.clip(r, lo, hi)``
   (plus a slope outside), one clip; a weight that jumps times a clip; else a chain of selections of lines
   (piece_lines.py), its thresholds' order and its ties checked where it runs (rounds otherwise);
4c. `dot_sums` — a sum or mean of products of vectors of one shape as dot products (NumPy code,
   float64 only); `tie_shares` — a tie's half shares (``np.maximum(a, b)`` of two values of one array) kept
   for the rare case, one selection where no element is tied or NaN (NumPy code, float64 only);
5. `memory.accumulate_in_place` — ``x_bar += c`` where `x_bar` is an array no other name can hold;
6. `memory.release` — ``del`` arrays as soon as nothing needs them (peak memory);
7. `tidy.drop_empty` — loops and branches left with nothing to do; 8. `tidy.tidy_comments` — drop comments
   whose code was folded away.

Steps 2–4 repeat while they find something. No step changes the value of an expression: the gradient
is bitwise the same as unoptimised (``e ** 2 -> e * e`` aside, which rounds once instead of through
``pow``; ``e ** 3`` and ``e ** 4`` of a float, products within an ulp or two; the contractions,
which sum in another order; the sign of a zero an adjoint's piece put back keeps where ``0.0 +
-0.0`` gave ``0.0``; and the order of the terms added to positions of an adjoint zeroed then given
back, which the terms now meet first: `zero_restore`; a selection `cases` proves zero, which
unfolded was the rounding error around zero, or NaN where an operand is inf or NaN; a mask's
branches, which round once where the products by 0 and 1 rounded several times, and drop a term 0
times an array that is NaN unfolded where the array is inf; the sign of a zero a tie's one selection
keeps where ``0.0 + -0.0`` gave ``0.0``: `tie_shares`; the dot products, which sum in another order:
`dot_sums`; a product by a mask's 0, NaN where the factor is inf: `mask_products`; tanh for sinh
over cosh, within an ulp, and ±1 past their overflow: `hyperbolic`; a product by a power of two
moved to the numbers, but out of the normal range: `like_terms`; the sign of a zero a selection of
a value already zero off its condition gave as ``+0.0``: `joined_selections`, which also joins nested
selections bit for bit, before `selections`; a zero's sign where an extremum's sides tie as zeros:
`selected_extrema`; a clip for the pieces that equal it, a real number rounded once: `clip_cases`, by the
rule of docs/how-it-works.md, "Rewrites that round differently").  In debug mode only step 1 runs: the
debug checks match the statements one to one.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...ir import shapes
from ...ir.program import GradProgram
from ...ir.shapes import Shape
from . import (
    adjacent_products,
    carried_writes,
    cases,
    cholesky_pairs,
    clip_cases,
    contract,
    dot_sums,
    einsum_matmuls,
    factor,
    factored_branches,
    fresh_loop_writes,
    hyperbolic,
    joined_products,
    joined_scatters,
    joined_selections,
    joined_transposes,
    joined_writes,
    like_terms,
    logistic,
    long_axes,
    loops,
    mask_products,
    masks,
    memory,
    nested_joins,
    reassembly,
    repeated_solves,
    row_writes,
    sameshape,
    selected_extrema,
    selections,
    slice_joins,
    split_blocks,
    splits,
    stack_items,
    stacks,
    statements,
    tidy,
    tie_shares,
    transposed_factors,
    triangular_solves,
    wheres,
    whole_arrays,
    widths,
    writes,
    zero_restore,
    zero_ties,
)
from .known_names import Bindings, grow
from .liveness import is_comment, vocabulary
from .scalars import is_scalar_expr, shape_items
from .shape_classes import shape_classes
from .simplify import is_float, simplify

HEADERS = ("forward", "backward")


@dataclass(frozen=True)
class OptimizeInfo:
    """What the optimizer knows about the names in the generated function.

    `shapes` maps forward values and parameters to their `Shape`; `adjoints` maps an
    adjoint's name to its primal's (an adjoint has its primal's shape, and is a float);
    `wrt` are the differentiated parameters (floats, checked by the API).
    """

    shapes: Mapping[str, Shape] = field(default_factory=dict)
    adjoints: Mapping[str, str] = field(default_factory=dict)
    params: frozenset[str] = frozenset()
    wrt: frozenset[str] = frozenset()
    statements: bool = True  # False: expression folding only (debug mode)
    python_loops: bool = True  # False (numba): stacks popped, not iterated; rows stacked by stack_rows
    batch_loops: bool = True  # False (code srcdiff reads back): per-iteration accumulations stay
    derivable: bool = False  # code srcdiff reads back (driver/higher.py): no ``del``, which it cannot read
    portable: bool = False  # arrays of another library: the array API's functions only (no np.einsum)
    weak: frozenset[str] = frozenset()  # parameters whose arguments are Python numbers (int, float, bool)
    double: bool = False  # every argument a float64 array or a Python number, no narrower dtype named inside
    mixed: bool = False  # float values of two widths may meet (widths.py): no sums written in place

    @classmethod
    def of(cls, program: GradProgram, shape_of: Mapping[str, Shape] | None = None,
           wrt=(), *, statements: bool = True) -> OptimizeInfo:
        """The info for `program`, whose values have the shapes `shape_of`."""
        function = program.function
        return cls(dict(shape_of or {}),
                   {adjoint: primal for primal, adjoint in getattr(program, "adjoints", {}).items()},
                   frozenset(p.name for p in function.params), frozenset(wrt), statements)

    def shape(self, name: str) -> Shape:
        return self.shapes.get(self.adjoints.get(name, name), shapes.UNKNOWN)

    def is_scalar(self, name: str) -> bool:
        """A Python or NumPy number: immutable, so sharing it is harmless."""
        return self.shape(name).scalar

    def is_array(self, name: str) -> bool:
        shape = self.shape(name)
        return shape.known and not shape.scalar


def optimize_function(func: ast.FunctionDef, info: OptimizeInfo) -> ast.FunctionDef:
    """Optimise the generated gradient function `func` in place and return it."""
    if not info.derivable:
        tidy.drop_point_guards(func)
    bound = Bindings.of(func, info.params)
    is_float_name = float_names(bound, info).__contains__
    is_scalar = scalar_names(bound, info).__contains__
    simplify(func, is_float_name, is_scalar)
    if not info.statements:
        return func
    bound = Bindings.of(func, info.params)
    floats = float_names(bound, info).__contains__
    writes.write_in_place(func, scalar_names(bound, info).__contains__, lambda e: is_float(e, floats))
    writes.write_in_place_in_loops(func, scalar_names(func, info).__contains__, lambda e: is_float(e, floats))
    if info.python_loops and not info.derivable and not info.portable and "einsum" in vocabulary(func):
        einsum_matmuls.einsum_matmuls(func, _ndim_of(info))  # (while the operands are names: arrays known)
    masked = False
    for _ in range(8):
        bound = Bindings.of(func, info.params)  # the names' bindings, read once for both facts
        spelled = vocabulary(func)  # (read each round: a call a pass spells is seen by the next)
        is_float_name = float_names(bound, info).__contains__
        is_scalar = scalar_names(bound, info).__contains__
        classes = shape_classes(func, is_scalar, info.params, info.shape)
        changed = sameshape.constant_bounds(func, classes)
        changed |= sameshape.drop_unbroadcasts(func, classes) | long_axes.drop_long_unbroadcasts(func, classes)
        changed |= sameshape.drop_zero_fills(func, classes)
        changed |= reassembly.reassemble(func, classes)
        changed |= reassembly.sink_copies(func)
        changed |= reassembly.copy_before_loops(func, rows=not info.derivable)  # (views of rows: code not read back)
        if one_width(func, info):  # (a float32 partner would hold the float64 terms written into it)
            changed |= zero_restore.fold_zero_sums(func, classes, info.python_loops)
        changed |= zero_restore.restore_zeroed(func, info.is_array, is_float_name)
        changed |= zero_restore.drop_copies_of_copies(func)
        changed |= carried_writes.writes_into_copies(func, is_scalar, is_float_name, info.is_array)
        if not info.derivable:  # (code srcdiff reads back keeps its writes into copies)
            changed |= fresh_loop_writes.fresh_writes(func, is_scalar)
        changed |= joined_writes.joins_as_writes(func, classes, is_float_name, info.weak.__contains__)
        changed |= carried_writes.add_in_place(func)
        changed |= carried_writes.carry_copies(func)
        changed |= sameshape.scalar_fills(func, classes)
        changed |= sameshape.earliest_shape_reads(func, classes)
        changed |= writes.read_around_zeroed(func)
        changed |= wheres.fold_decided_wheres(func, is_float_name)
        changed |= wheres.inline_decided(func, is_float_name)
        changed |= zero_ties.drop_zero_shares(func, info.is_array)  # (a share of what is 0 at its tie)
        if not info.derivable and "sinh" in spelled:
            changed |= hyperbolic.tangents(func)
        if info.double:  # (IEEE's exact doublings and scalings, of one width)
            changed |= like_terms.collect(func, is_float_name, is_scalar)
        if info.python_loops and not info.portable and info.double:  # (float64: a selection keeps a product's dtype)
            changed |= mask_products.select_mask_products(func, is_float_name, classes)
        changed |= wheres.merge_complements(func, is_float_name)
        if cases.CALLS & spelled:
            changed |= cases.drop_zero_cases(func, classes, is_float_name)
            changed |= not info.derivable and selected_extrema.selected_extrema(func, is_float_name)
        changed |= statements.reuse_common(func.body)
        changed |= statements.sink_constants(func.body)
        changed |= statements.propagate_copies(func.body)
        simplify(func, is_float_name, is_scalar)
        changed |= statements.remove_dead(func.body)
        changed |= statements.remove_unread(func)
        changed |= statements.remove_dead_in_loops(func.body)
        changed |= stack_items.drop_unread_items(func)
        changed |= statements.remove_overwritten(func.body)
        changed |= statements.inline_single_use(func, is_scalar, _inline_arrays(info))
        changed |= logistic.logistic_factors(func)
        simplify(func, is_float_name, is_scalar)
        # masks once the rest is folded (the adjoints they read are numbers by then), then again
        if not changed and not masked and info.python_loops and not info.portable and info.double:
            masked = True
            # (every argument float64 or a Python number: a parameter is never a bool or int array)
            floats = float_names(Bindings.of(func, info.params), info) | info.params
            changed = masks.select_masks(func, shape_classes(func, is_scalar, info.params, info.shape),
                                         floats.__contains__)
        if not changed:
            break
    # a gradient equal case by case to a clip of one array, one clip (NumPy code, float64; rounds otherwise)
    if info.python_loops and not info.derivable and not info.portable and info.double and clip_cases.CALLS \
            & vocabulary(func) and clip_cases.clip_cases(func, scalar_names(func, info).__contains__):
        statements.remove_dead(func.body)
    # np.split's pieces as slices, their adjoints joined in one list (code NumPy runs as it is)
    if info.python_loops and not info.derivable and not info.portable:
        if splits.CALLS & vocabulary(func):
            splits.join_adjoints(func)
            splits.slice_sections(func, info.shape)
            split_blocks.pieces_as_blocks(func) if one_width(func, info) else None  # (adds in place)
        if adjacent_products.join_adjacent_products(func, info.shape, info.adjoints.get) \
                | joined_scatters.join_scatters(func, info.shape, info.adjoints.get) \
                | joined_products.join_products(func, info.shape) | joined_transposes.join_transposes(func, info.shape):
            nested_joins.join_nested(func)  # (joins of joins flat, a join made twice once)
            whole_arrays.whole_arrays(func, lambda n: info.shape(n).dims if info.is_array(n) and not is_scalar(n)
                                      else None)  # (an array rebuilt from its two ends, the array)
            statements.remove_dead_in_loops(func.body)
            statements.remove_dead(func.body)
    # einsum and @ for sums of broadcast products; not in code numba compiles (no np.einsum there), nor in
    # code srcdiff differentiates again, nor for another library's arrays
    if info.python_loops and not info.derivable and not info.portable and contract.contract_sums(
            func, info.shape, is_scalar, lambda e: is_float(e, is_float_name),
            lambda n: info.adjoints.get(n, n)):
        statements.remove_dead(func.body)
        statements.remove_unread(func)
        simplify(func, is_float_name, is_scalar)
    # einsum matrix products as ``@`` (BLAS; NumPy code, read back by no one)
    if info.python_loops and not info.derivable and not info.portable and "einsum" in vocabulary(func):
        einsum_matmuls.einsum_matmuls(func, _ndim_of(info))
    if info.python_loops and not info.derivable and not info.portable and contract.drop_fills(
            func, info.shape, is_scalar, lambda n: info.adjoints.get(n, n)):
        statements.remove_dead(func.body)
        statements.remove_dead_in_loops(func.body)
        statements.remove_unread(func)
    if factored_branches.factor_branches(func, is_scalar, is_float_name):
        simplify(func, is_float_name, is_scalar)
    row_writes.zero_after_reads(func, info.is_array) if not info.derivable else None  # (a row read, then zeroed)
    writes.zero_on_copies(func, info.is_array)
    if factor.factor_backward(func, ("backward",)):
        simplify(func, is_float_name, is_scalar)
    if info.batch_loops and loops.batch_accumulations(func, info.shape,
                                                      "np.array" if info.python_loops else "stack_rows"):
        statements.remove_dead(func.body)
    # numba takes no reversed() of a list; a while loop's count the backward loop no longer reads goes with it
    if info.python_loops and stacks.iterate_stacks(func):
        statements.remove_unread(func)
    # (numba has no SciPy; code read back keeps NumPy's calls; another library's arrays keep the array API's)
    if info.python_loops and not info.derivable and not info.portable \
            and (triangular_solves.CALLS | repeated_solves.CALLS) & vocabulary(func):
        if transposed_factors.CALLS & vocabulary(func) and transposed_factors.transposed_factors(func):
            statements.remove_dead(func.body)  # a transpose only the solves read
        if triangular_solves.triangular_solves(func):
            statements.remove_dead(func.body)  # a transpose only a solve read
        repeated_solves.repeated_solves(func)
    if info.python_loops and not info.derivable and not info.portable and cholesky_pairs.CALLS & vocabulary(func):
        if cholesky_pairs.cholesky_pairs(func):  # a Cholesky factor's adjoint through its matrix alone
            statements.remove_dead(func.body)  # the shapes only the terms' reshapes read
    if info.python_loops and not info.derivable and not info.portable and info.double:
        floats = float_names(Bindings.of(func, info.params), info)
        dot_sums.dot_sums(func, shape_classes(func, is_scalar, info.params, info.shape),
                          lambda e: is_float(e, floats.__contains__))
    # a tie's shares as the rare case (code NumPy runs as it is; float64 throughout)
    if info.python_loops and not info.derivable and not info.portable and info.double:
        tie_shares.fast_ties(func)
        tie_shares.guard_shares(func)
    # zeros written slice by slice, every place once: one join (NumPy code; one float width)
    if info.python_loops and not info.derivable and not info.portable and one_width(func, info) \
            and slice_joins.join_slice_writes(func, shape_classes(func, is_scalar, info.params, info.shape)):
        statements.remove_dead(func.body)
    # selections against 0.0 by a bit mask, nested and repeated ones joined first (helpers NumPy code alone reads)
    if info.python_loops and not info.derivable and not info.portable:
        joined_selections.join_selections(func, scalar_names(func, info).__contains__)
        selections.bit_selections(func)
    is_scalar = scalar_names(func, info).__contains__
    # in loops: NumPy only (numba's ``x += c`` does not check that c's shape fits x's: a mismatch passes silently)
    in_loops = info.adjoints.__contains__ if info.python_loops and not info.derivable else None
    if one_width(func, info):  # (x += c keeps x's dtype where x + c may take c's wider one)
        memory.accumulate_in_place(func.body, info.is_array, in_loops)
    memory.first_scatter_assigns(func.body)
    if not info.derivable:  # memory is freed when the derivable code's own derivative runs
        memory.release(func.body, lambda n: n not in info.params and not is_scalar(n))
    # (not of a 0-d array: numba's arithmetic on them gives a number, which has no ``.sum()``)
    tidy.method_sums(func, lambda name: bool(info.is_array(name) and info.shape(name).ndim))
    tidy.drop_empty(func)
    tidy.tidy_comments(func.body, _is_header)
    return func


def _ndim_of(info: OptimizeInfo):
    """A name's ndim where it is known to hold an array, else None."""
    return lambda name: info.shape(name).ndim if info.is_array(name) else None


def one_width(func: ast.FunctionDef, info: OptimizeInfo) -> bool:
    """Whether every float value of `func` has one width (widths.py): no float32 argument beside float64
    values and no narrower dtype named inside (nor by the function `func` is the pullback of: the driver's
    `mixed` says so); an array's dtype is then its sum's, and ``x = x + c`` may be ``x += c``."""
    return not info.mixed and not widths.narrows(func)


def _is_header(stmt: ast.stmt) -> bool:
    return is_comment(stmt) and stmt.value.args and getattr(stmt.value.args[0], "value", None) in HEADERS


def float_names(func: ast.FunctionDef | Bindings, info: OptimizeInfo) -> set[str]:
    """Names certainly holding floats: adjoints, wrt parameters, and values every assignment
    of which computes a float (``t8 = math.exp(t7)``)."""
    seed = set(info.adjoints) | set(info.wrt)
    return grow(func, seed, info.params, lambda value, known: is_float(value, known.__contains__))


def scalar_names(func: ast.FunctionDef | Bindings, info: OptimizeInfo) -> set[str]:
    """Names certainly holding numbers, not arrays: those the shapes say so, and values every
    assignment of which is arithmetic on numbers (adjoints inside loops, say)."""
    bound = func if isinstance(func, Bindings) else Bindings.of(func, info.params)  # (a shape's items: ints)
    seed = {name for name in set(info.shapes) | set(info.adjoints) if info.is_scalar(name)} | shape_items(bound)
    return grow(bound, seed, info.params, is_scalar_expr)


def _inline_arrays(info: OptimizeInfo):
    """Arrays `inline_single_use` may move into the next statement: those of known shape, and
    the adjoints of such arrays codegen named after them (``t33_bar``, an intermediate of an
    inlined helper the adjoint table does not list): ``t = -(a / b); u = t * c; v = -u``
    becomes one expression, its signs then folded."""
    def inlinable(name: str) -> bool:
        return info.is_array(name) or (name.endswith("_bar") and info.is_array(name[:-4]))
    return inlinable
