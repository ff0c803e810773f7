"""Rules for the helpers srcdiff's own generated code calls, so that a gradient can be
differentiated again (higher derivatives: ``srcdiff.grad(srcdiff.grad(f))``).

Each helper is linear in the adjoint it moves, so its rule moves the adjoint back the other
way.  The helpers that only check something (`ensure_scalar`) have no value to differentiate;
the higher-order driver drops their calls before lowering a gradient.  (`set_item` and
`zero_item` stand for index writes, a language construct with a rule of its own: they are not
table entries, whose facts lowering reads by function.)
"""

from . import runtime
from .table import nograd, rule


def _like_shape(static, a, like):
    return like


def _first_shape(static, a, *rest):
    return a


def _second_shape(static, condition, value):
    return value


def _unbroadcast_templates(static, operand_shapes):
    a, like = operand_shapes["a"], operand_shapes["like"]
    if a.known and like.known and a == like:
        return {"a": "g"}  # nothing was summed
    return {"a": "np.broadcast_to(g, np.shape(a)) + 0.0"}  # + 0.0: a new, writable array


def _index_add_templates(static, operand_shapes):
    value = operand_shapes["value"]
    part = "index_read(g, index)"
    return {"base": "g", "value": part if value.known and not value.scalar else f"unbroadcast({part}, value)"}


RULES = [
    rule(runtime.unbroadcast, ("a", "like"), _unbroadcast_templates, shape=_like_shape,
         shape_only=("like",), tangents={"a": "unbroadcast(a_dot, like)"}, batching="unbroadcast"),
    rule(runtime.select, ("condition", "value"), {"value": "select(condition, g)"}, shape=_second_shape,
         tangents={"value": "select(condition, value_dot)"}),
    rule(runtime.select_whole, ("condition", "value"), {"value": "select_whole(condition, g)"},
         shape=_second_shape, tangents={"value": "select_whole(condition, value_dot)"}),
    rule(runtime.copy_array, ("x",), {"x": "g"}, shape=_first_shape, fresh=True, tangents={"x": "copy_array(x_dot)"},
         batching="like"),
    nograd(runtime.zeros_like, batching="like"),
    # the user's too: the identity whose value carries no gradient (srcdiff.stop_gradient)
    nograd(runtime.stop_gradient, shape=_first_shape,
           note="the identity with a zero derivative: nothing it guards is differentiated"),
    # a scatter-add (the adjoint of x[index]): value's adjoint is read back from where it went
    rule(runtime.index_add, ("base", "index", "value"), _index_add_templates, shape=_first_shape,
         fresh=True, array_result=True,
         tangents={"base": "base_dot", "value": "index_add(np.zeros(np.shape(base)), index, value_dot)"},
         batching="index_add"),
    rule(runtime.index_read, ("a", "index"), {"a": "index_add(np.zeros(np.shape(a)), index, g)"},
         tangents={"a": "index_read(a_dot, index)"}, batching="index_read"),
    nograd(slice, ("start", "stop", "step")),
]

#: The helpers whose index operand may be a list (a tuple index, as srcdiff reads one back).
TAKE_INDEX_LISTS = frozenset({runtime.index_add, runtime.index_read})
