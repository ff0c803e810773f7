"""Rules for the helpers srcdiff's own generated code calls, so that a gradient can be
differentiated again (higher derivatives: ``srcdiff.grad(srcdiff.grad(f))``).

Each helper is linear in the adjoint it moves, so its rule moves the adjoint back the other
way.  The helpers that only check something (`ensure_scalar`) have no value to differentiate;
the higher-order driver drops their calls before lowering a gradient.  (`set_item` and
`zero_item` stand for index writes, a language construct with a rule of its own: they are not
table entries, whose facts lowering reads by function.)
"""

from ..ir.shapes import UNKNOWN_DIM
from . import join_helpers, list_edits, runtime, sort_ties, write_helpers
from . import list_helpers as lists
from .logistic import logistic
from .table import FORMS, LINEAR, nograd, rule, unary

#: Their own sympy counterparts: sums, selections and copies are exact on object arrays.
RUNTIME = "srcdiff.rules.runtime."
HELPER = "a helper of generated gradients (numbers only), checked numerically"
LISTS = "a helper of generated gradients moving lists, checked numerically"


def _like_shape(static, a, like):
    return like


def _first_shape(static, a, *rest):
    return a


def _second_shape(static, condition, value):
    return value


def _x_shape(static, a, x, *rest):
    return x


def _y_shape(static, a, x, y):
    return y


def _prod_expanded(static) -> str:
    """`a` (the adjoint of np.prod's value) with the reduced axes put back, to broadcast."""
    return "a" if static["keepdims"] or static["axis"] is None else "np.expand_dims(a, axis)"


def _prod_adjoint_templates(static, operand_shapes):
    return {"a": "unbroadcast(np.sum(g * prod_adjoint(np.ones(np.shape(a)), x, axis, keepdims), axis=axis, "
                 "keepdims=keepdims), a)",
            "x": f"prod_pairs(g * {_prod_expanded(static)}, x, axis)"}


def _prod_adjoint_tangents(static, operand_shapes):
    return {"a": "prod_adjoint(a_dot, x, axis, keepdims)",
            "x": f"{_prod_expanded(static)} * prod_pairs(x_dot, x, axis)"}


def _unbroadcast_templates(static, operand_shapes):
    a, like = operand_shapes["a"], operand_shapes["like"]
    if a.known and like.known and a == like and UNKNOWN_DIM not in a.dims:
        return {"a": "g"}  # nothing was summed (an axis of either length, "?", may have been)
    # g spread back over a's shape: a new, writable array, in g's floating dtype, whose shape
    # srcdiff reads from `a` when it differentiates this again
    return {"a": "g + zeros_like(a)"}


def _index_add_templates(static, operand_shapes):
    # the value may have been broadcast into the positions written (``np.add.at(A, rows, v)``, v one
    # row of A): what it reads back is summed to its shape (a no-op where the shapes agree, as in the
    # scatters srcdiff's own code writes)
    return {"base": "g", "value": "unbroadcast(index_read(g, index), value)"}


KINK = {"value": "kink(condition, g, x, y, axis)", "x": "kink_nan(condition, g, axis)",
        "y": "kink_nan(condition, g, axis)"}
KINK_TANGENTS = {"value": "kink(condition, value_dot, x, y, axis)", "x": "kink_nan(condition, x_dot, axis)",
                 "y": "kink_nan(condition, y_dot, axis)"}
# the share jumps where its value is not 0 (tie_nan); where it is 0, the share has a kink unless
# the value stands still (tie_still_nan: an entry np.triu leaves unused)
TIE = {"value": "tie(condition, g, x, y, persist) + tie_still_nan(condition, persist, g, value)",
       "x": "tie_nan(condition, persist, g, value)", "y": "tie_nan(condition, persist, g, value)"}
TIE_TANGENTS = {"value": "tie(condition, value_dot, x, y, persist)"
                         " + tie_still_nan(condition, persist, value_dot, value)",
                "x": "tie_nan(condition, persist, x_dot, value)", "y": "tie_nan(condition, persist, y_dot, value)"}

#: a kink's or a tie's value (`tied`): itself, NaN beyond it where the tie holds and an operand moves
TIED_VALUE = {"value": "g", "x": "tie_still_nan(condition, persist, g, 0.0)",
              "y": "tie_still_nan(condition, persist, g, 0.0)"}
TIED_VALUE_TANGENTS = {"value": "value_dot", "x": "tie_still_nan(condition, persist, x_dot, 0.0)",
                       "y": "tie_still_nan(condition, persist, y_dot, 0.0)"}

#: a sort's value or its adjoint before the permutation back (`sorted_tied`): NaN where a tie of x parts
SORTED_TIED = {"value": "g", "x": "sort_tie_back(x, g, value, axis, own)"}
SORTED_TIED_TANGENTS = {"value": "value_dot", "x": "sort_tie_nan(x, x_dot, value, axis, own)"}

HELD = {"a": "select(np.not_equal(direction, 0.0), g)", "direction": "tie_still_nan(True, False, g, direction)"}
HELD_TANGENTS = {"a": "select(np.not_equal(direction, 0.0), a_dot)",
                 "direction": "tie_still_nan(True, False, direction_dot, direction)"}

RULES = [
    rule(runtime.unbroadcast, ("a", "like"), _unbroadcast_templates, shape=_like_shape,
         shape_only=("like",), tangents={"a": "unbroadcast(a_dot, like)"}, batching="unbroadcast",
         sympy=RUNTIME + "unbroadcast"),
    rule(runtime.select, ("condition", "value"), {"value": "select(condition, g)"}, shape=_second_shape,
         tangents={"value": "select(condition, value_dot)"}, batching="select", sympy=RUNTIME + "select"),
    rule(runtime.select_whole, ("condition", "value"), {"value": "select_whole(condition, g)"},
         shape=_second_shape, tangents={"value": "select_whole(condition, value_dot)"}, batching="select",
         sympy=RUNTIME + "select_whole"),
    # a first derivative's subgradient at a 0 / 0 (norm, hypot, std of zeros): NaN beyond it
    # wherever a direction moves an operand of a kinked group (runtime.kink)
    rule(runtime.kink, ("condition", "value", "x", "y"), KINK, elementwise=True, fresh=True,
         defaults={"y": 0.0}, static={"axis": ()}, tangents=KINK_TANGENTS,
         not_symbolic="its derivative is NaN at a kink by definition (no second derivative there)"),
    # a tie's half share (np.maximum at x == y): NaN beyond it where a direction moves x or y
    # (0 where `persist`: srcdiff proved the operands the same function near the point, ad/ties.py)
    rule(runtime.tie, ("condition", "value", "x", "y", "persist"), TIE, elementwise=True, fresh=True,
         defaults={"y": 0.0, "persist": False}, tangents=TIE_TANGENTS,
         not_symbolic="its derivative is NaN at a tie by definition (the share jumps there)"),
    rule(runtime.tied, ("value", "condition", "x", "y", "persist"), TIED_VALUE, elementwise=True, fresh=False,
         defaults={"y": 0.0, "persist": False}, tangents=TIED_VALUE_TANGENTS, shape=_first_shape,
         not_symbolic="its derivative is NaN at a tie by definition (the value's sides part there)"),
    rule(sort_ties.sorted_tied, ("value", "x"), SORTED_TIED, static={"axis": -1, "own": False}, fresh=False,
         tangents=SORTED_TIED_TANGENTS, shape=_first_shape,
         not_symbolic="its derivative is NaN at a tie of a sort by definition (the order's sides part there)"),
    nograd(sort_ties.sort_tie_nan, ("x", "direction", "value"), static={"axis": -1, "own": False},
           not_symbolic="NaN or 0 by definition (the derivative at a sort's tie): sympy has no counterpart"),
    nograd(sort_ties.sort_tie_back, ("x", "cotangent", "value"), static={"axis": -1, "own": False},
           not_symbolic="NaN or 0 by definition (the derivative at a sort's tie): sympy has no counterpart"),
    # a sigmoid written out, lowered as one call (lower/logistic_forms.py): s * (1 - s), 0 at saturation
    unary(logistic, x="g * ans * (1.0 - ans)", name="srcdiff.rules.logistic.logistic",
          note="a sigmoid written out, 1 / (1 + exp(-z)) (lowered as this call): the derivative s * (1 - s), "
               "0 at saturation, at every order", sympy="srcdiff.rules.scipy_forms.expit"),
    # forward mode's guard at an infinite slope (ad/tangent_node.py), and a still adjoint's before one
    # (ad/still_adjoints.py): where(direction == 0, 0.0, a).  Its derivatives select whatever they
    # are (a finite g must not pass on to a NaN the select held); where direction is 0 but moves,
    # the select jumps: NaN (tie_still_nan), 0 where it stands still
    rule(runtime.held_still, ("a", "direction"), HELD, elementwise=True, fresh=False,
         tangents=HELD_TANGENTS, batching="elementwise",
         not_symbolic="a selection by the value of a tangent: sympy has no counterpart"),
    nograd(runtime.kink_nan, ("condition", "direction"), static={"axis": ()}, elementwise=True,
           not_symbolic="NaN or 0 by definition (the derivative at a kink): sympy has no counterpart"),
    nograd(runtime.tie_nan, ("condition", "persist", "direction", "value"), defaults={"value": 1.0}, elementwise=True,
           not_symbolic="NaN or 0 by definition (the derivative at a tie): sympy has no counterpart"),
    nograd(runtime.tie_still_nan, ("condition", "persist", "direction", "value"), elementwise=True,
           not_symbolic="NaN or 0 by definition (the derivative at a tie): sympy has no counterpart"),
    rule(runtime.copy_array, ("x",), {"x": "g"}, shape=_first_shape, fresh=True, tangents={"x": "copy_array(x_dot)"},
         batching="like", sympy=RUNTIME + "copy_array"),
    nograd(runtime.zeros_like, batching="like", fresh=True, sympy=RUNTIME + "zeros_like"),
    # the user's too: the identity whose value carries no gradient (srcdiff.stop_gradient)
    nograd(runtime.stop_gradient, shape=_first_shape,
           note="the identity with a zero derivative: nothing it guards is differentiated",
           not_symbolic="its derivative is zero by definition, the identity's is one: sympy has no counterpart"),
    # a scatter-add (the adjoint of x[index]): value's adjoint is read back from where it went
    rule(runtime.index_add, ("base", "index", "value"), _index_add_templates, shape=_first_shape,
         fresh=True, array_result=True,
         tangents=LINEAR, batching="index_add", sympy=RUNTIME + "index_add"),
    rule(runtime.index_read, ("a", "index"), {"a": "index_add(zeros_like(a), index, g)"},
         tangents={"a": "index_read(a_dot, index)"}, batching="index_read", sympy=RUNTIME + "index_read"),
    nograd(slice, ("start", "stop", "step"), sympy="builtins.slice"),
    # the positions np.fill_diagonal writes (lower/in_place_calls.py)
    nograd(write_helpers.diagonal_range, ("a",), static={"wrap": False}, fresh=True, array_result=True,
           not_symbolic="positions (integers), not a value of the differentiated inputs"),
    # np.put_along_axis's indices, checked to have the array's number of axes (lower/in_place_calls.py)
    nograd(write_helpers.along_axis_indices, ("indices", "a"), shape=_first_shape,
           not_symbolic="positions (integers), not a value of the differentiated inputs"),
    # the adjoint of np.real: `a` itself for a real x (complex values are refused when run)
    rule(runtime.real_part, ("a", "x"), {"a": "real_part(g, x)"}, shape=_first_shape, shape_only=("x",),
         tangents={"a": "real_part(a_dot, x)"}, sympy=FORMS + "real_part"),
    # ---- the adjoints of products and of linear algebra, where shapes are known only when
    # run: each is linear in the adjoint `a` it moves, and the pairing <h, helper(a, ...)> is
    # the first-order pairing of the primitive it comes from, read the other way ----
    # <h, matmul_adjoint_x(a, x, y)> = <a, h @ y>
    rule(runtime.matmul_adjoint_x, ("a", "x", "y"), {"a": "np.matmul(g, y)", "y": "matmul_adjoint_y(a, g, y)"},
         shape=_x_shape, shape_only=("x",),
         tangents={"a": "matmul_adjoint_x(a_dot, x, y)", "y": "matmul_adjoint_x(a, x, y_dot)"},
         batching="matmul_adjoint", not_symbolic=HELPER),
    # <h, matmul_adjoint_y(a, x, y)> = <a, x @ h>
    rule(runtime.matmul_adjoint_y, ("a", "x", "y"), {"a": "np.matmul(x, g)", "x": "matmul_adjoint_x(a, x, g)"},
         shape=_y_shape, shape_only=("y",),
         tangents={"a": "matmul_adjoint_y(a_dot, x, y)", "x": "matmul_adjoint_y(a, x_dot, y)"},
         batching="matmul_adjoint", not_symbolic=HELPER),
    rule(runtime.dot_adjoint_x, ("a", "x", "y"), {"a": "np.dot(g, y)", "y": "dot_adjoint_y(a, g, y)"},
         shape=_x_shape, shape_only=("x",),
         tangents={"a": "dot_adjoint_x(a_dot, x, y)", "y": "dot_adjoint_x(a, x, y_dot)"},
         batching="matmul_adjoint", not_symbolic=HELPER),
    rule(runtime.dot_adjoint_y, ("a", "x", "y"), {"a": "np.dot(x, g)", "x": "dot_adjoint_x(a, x, g)"},
         shape=_y_shape, shape_only=("y",),
         tangents={"a": "dot_adjoint_y(a_dot, x, y)", "x": "dot_adjoint_y(a, x_dot, y)"},
         batching="matmul_adjoint", not_symbolic=HELPER),
    # <h, solve_adjoint_y(a, x, y)> = <a, solve(x, h)>
    rule(runtime.solve_adjoint_y, ("a", "x", "y"),
         {"a": "np.linalg.solve(x, g)", "x": "solve_adjoint_x(a, x, y, np.linalg.solve(x, g))"},
         shape=_y_shape, shape_only=("y",), batching="solve_adjoint",
         tangents={"a": "solve_adjoint_y(a_dot, x, y)",
                   "x": "-solve_adjoint_y(np.swapaxes(x_dot, -1, -2) @ ans, x, y)"}, not_symbolic=HELPER),
    # <h, solve_adjoint_x(a, x, y, r)> = -<solve(x.T, a), h @ r>
    rule(runtime.solve_adjoint_x, ("a", "x", "y", "r"),
         {"a": "-np.linalg.solve(x, g @ r)", "x": "-solve_adjoint_x(a, x, y, np.linalg.solve(x, g @ r))",
          "r": "-(np.swapaxes(g, -1, -2) @ solve_adjoint_y(a, x, y))"},
         shape=_x_shape, shape_only=("y",), batching="solve_adjoint",
         tangents={"a": "solve_adjoint_x(a_dot, x, y, r)", "r": "solve_adjoint_x(a, x, y, r_dot)",
                   "x": "solve_adjoint_x(-(np.swapaxes(x_dot, -1, -2) @ solve_adjoint_y(a, x, y)), x, y, r)"},
                   not_symbolic=HELPER),
    # <h, trace_adjoint(a, x, offset)> = <a, trace(h, offset)>
    rule(runtime.trace_adjoint, ("a", "x"), {"a": "np.trace(g, offset=offset)"}, static={"offset": 0},
         shape=_x_shape, shape_only=("x",), tangents={"a": "trace_adjoint(a_dot, x, offset)"}, not_symbolic=HELPER),
    rule(runtime.prod_adjoint, ("a", "x"), _prod_adjoint_templates, static={"axis": None, "keepdims": False},
         shape=_x_shape, tangents=_prod_adjoint_tangents, not_symbolic=HELPER),
    rule(runtime.cholesky_adjoint, ("a", "L"), {"a": "cholesky_adjoint_a(g, L)", "L": "cholesky_adjoint_l(g, a, L)"},
         shape=_x_shape, tangents={"a": "cholesky_adjoint(a_dot, L)", "L": "cholesky_adjoint_dot(L_dot, a, L)"},
         batching="stacked", not_symbolic=HELPER),
]

def _like_second(static, a, like, *rest):
    return like


# ---- a derivable gradient's list adjoints (rules/list_helpers.py): new lists, never updated
# in place; each is linear, and its adjoint is its partner's (list_rows / rows_adjoint,
# list_repeat / list_total, list_drop / list_grow, split_like / split_adjoint) ----
RULES += [
    nograd(lists.zeros_list, ("xs",), tuple_result=True, not_symbolic=LISTS),
    rule(lists.list_add, ("xs", "i", "v"), {"xs": "g", "v": "g[i]"}, tuple_result=True, tangents=LINEAR,
         not_symbolic=LISTS),
    rule(lists.lists_add, ("a", "b"), {"a": "g", "b": "g"}, tuple_result=True, tangents=LINEAR, not_symbolic=LISTS),
    rule(lists.list_rows, ("a",), {"a": "rows_adjoint(g, a)"}, tuple_result=True, tangents=LINEAR, not_symbolic=LISTS),
    rule(lists.rows_adjoint, ("h", "a"), {"h": "list_rows(g)"}, shape=_like_second, shape_only=("a",),
         array_result=True, fresh=True, tangents={"h": "rows_adjoint(h_dot, a)"}, not_symbolic=LISTS),
    rule(lists.list_repeat, ("v", "xs"), {"v": "list_total(g, v)"}, shape_only=("xs",), tuple_result=True,
         tangents={"v": "list_repeat(v_dot, xs)"}, not_symbolic=LISTS),
    rule(lists.list_total, ("h", "like"), {"h": "list_repeat(g, h)"}, shape=_like_second, shape_only=("like",),
         tangents={"h": "list_total(h_dot, like)"}, not_symbolic=LISTS),
    rule(lists.list_drop, ("xs",), {"xs": "list_grow(g)"}, tuple_result=True, tangents=LINEAR, not_symbolic=LISTS),
    # (a list's adjoint made the array zero_item writes into: the same numbers, so the adjoint passes)
    rule(lists.items_array, ("xs",), {"xs": "g"}, shape=_first_shape, tangents=LINEAR, not_symbolic=LISTS),
    # (two adjoints of a value that may be a list added: item by item, so the adjoint passes to both)
    rule(lists.add_adjoints, ("a", "b"), {"a": "g", "b": "g"}, tangents=LINEAR, not_symbolic=LISTS),
    rule(lists.list_grow, ("h",), {"h": "list_drop(g)"}, tuple_result=True, tangents=LINEAR, not_symbolic=LISTS),
    rule(lists.split_like, ("h", "pieces"), {"h": "split_adjoint(g, pieces, axis)"}, static={"axis": 0},
         shape_only=("pieces",), tuple_result=True, tangents={"h": "split_like(h_dot, pieces, axis)"},
         not_symbolic=LISTS),
    rule(runtime.split_adjoint, ("parts", "pieces"), {"parts": "split_like(g, pieces, axis)"}, static={"axis": 0},
         shape_only=("pieces",), array_result=True, fresh=True,
         tangents={"parts": "split_adjoint(parts_dot, pieces, axis)"}, not_symbolic=LISTS),
]

# ---- a list of indices changed in place, in a gradient differentiated again (rules/list_edits.py): no
# gradient, as in the user's code (whose lowering refused a list of numbers that carry one) ----
_EDITED = "a list of indices changed in place carries no gradient"
RULES += [nograd(edit, params, tuple_result=True, not_symbolic=LISTS, refuses_active=_EDITED)
          for edit, params in ((list_edits.list_removed, ("xs", "value")), (list_edits.list_popped, ("xs", "index")),
                               (list_edits.list_inserted, ("xs", "index", "value")))]

#: The helpers whose index operand may be a list (a tuple index, as srcdiff reads one back).
TAKE_INDEX_LISTS = frozenset({runtime.index_add, runtime.index_read})

#: Library functions (by rule name: SciPy's load lazily) whose operand is a pair the program builds:
#: ``scipy.linalg.lu_solve((lu, piv), b)``; its rule's adjoint for it is a pair too.
TAKE_LIST_NAMES = frozenset({"scipy.linalg.lu_solve"})

#: The helpers that take lists (the adjoints of lists, and tuple indices).
TAKE_LISTS = TAKE_INDEX_LISTS | {lists.zeros_list, lists.list_add, lists.lists_add, lists.rows_adjoint,
                                 lists.items_array, lists.add_adjoints, lists.list_repeat, lists.list_total,
                                 lists.list_drop, lists.list_grow, lists.split_like, runtime.split_adjoint,
                                 join_helpers.tiles_summed, join_helpers.repeats_summed,  # (their counts: tuples)
                                 list_edits.list_removed, list_edits.list_popped, list_edits.list_inserted}
