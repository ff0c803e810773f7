"""``vmap(grad(loss), in_axes=(None, 0, 0))(params, X, Y)`` with `params` a tree (a dict, a tuple of
arrays, a namedtuple, a dataclass) batched as one call: the gradient of the function of the tree's
leaves (api/flatcall.py) is batched over the leaves of the arguments mapped, each leaf along its
argument's axis (or its own, where the in_axes entry is a tree shaped like the argument), and the
per-leaf gradients are built back into the tree (api/vmap.py)."""

from __future__ import annotations

import numpy as np

from ..errors import SharedDrawError, SrcDiffError
from ..frontend import trees
from ..frontend.rewrites import needs_rewrite
from .batched_code import batched_code
from .flatcall import EVERY, Front
from .gradients import GradFunction
from .jitting import runner
from .vmap_examples import example_of, is_axes_tree
from .vmap_selects import guarded, selects


def tree_leaves_batched(f, args: tuple, axes: list, jit: str | None):
    """(`f`'s results over `args` (trees among them), each argument mapped along its int axis (or
    shared: None), computed by one batched call of the function of the trees' leaves (of its gradient
    for a `GradFunction`); the batched `Variant` that ran)."""
    gradient = f if isinstance(f, GradFunction) else None
    front = gradient.front if gradient is not None else Front(f, EVERY, what="srcdiff.vmap")
    row = front.binder.bind(tuple(example_of(v, a, 0) for v, a in zip(args, axes)), {})
    if gradient is not None:
        func, call, several = gradient.derivable(row, batching=True)
    else:
        call = front.bound_call(row)
        func, several = call.func, False
    if call.flat is None or front.target.hidden:
        raise SrcDiffError("not a call of trees")
    full = front.full_values(front.binder.bind(tuple(args), {}))
    axis_of = dict(zip(front.names, list(axes) + [None] * (len(front.names) - len(axes))))
    leaves: list = []
    leaf_axes: list = []
    for (name, struct, leaf_names), value in zip(call.flat.params, full):
        axis = axis_of.get(name)
        found = [value] if struct is None else trees.leaves(value, struct, [])
        if len(found) != len(leaf_names):
            raise SrcDiffError("the tree's leaves do not match its structure")
        leaves += found
        leaf_axes += [axis] * len(found) if not is_axes_tree(axis) else _axes_of_leaves(axis, struct, [])
    if len(leaves) != len(call.args):
        raise SrcDiffError("the tree's leaves do not match the call's")
    moved = [v if a is None else np.moveaxis(np.asarray(v), a, 0) for v, a in zip(leaves, leaf_axes)]
    batched = tuple(n for n, a in zip(call.names, leaf_axes) if a is not None)
    found, made = batched_code(func, batched, tuple(call.args), jit=jit, exact=True)
    run = runner(made, found, jit)
    result = (guarded(run) if not jit and selects(made) else run)(*moved)
    if gradient is None:  # f's own value: one array (a tree it returns runs one example at a time)
        if not isinstance(result, np.ndarray):
            raise SrcDiffError("a result that is not one array")
        return result, made
    if gradient.options.with_value:  # (value_and_grad's code: the value, then the gradients)
        return call.rebuilt_valued(result), made
    return call.rebuild(list(result) if several else [result]), made


def rewritten(func, row: tuple) -> tuple:
    """(`func` as grad reads it, what that rewrite read), for vmap of the function itself: the function
    srcdiff rewrites (its dicts of computed values, helpers returning dicts, objects read as trees, partials:
    frontend/flatten.py) where it needs that rewrite and the rewrite takes the same arguments; else `func`
    (its batching then says what it cannot batch) and ().  vmap(grad(f)) batched such a function where
    vmap(f) ran one example at a time.  The plan of the batched code checks what the rewrite read on
    every call (api/plans.py): a module-level object changed, the code is made again."""
    try:
        if not needs_rewrite(func):
            return func, ()
        call = Front(func, EVERY, what="srcdiff.vmap").bound_call(tuple(row))
    except SrcDiffError:
        return func, ()
    return (call.func, tuple(call.flat.deps)) if call.flat is not None and call.batchable(tuple(row)) else (func, ())


def leaves_or_none(f, args: tuple, axes: list, jit: str | None):
    """`tree_leaves_batched` for a gradient whose code takes leaves though no argument is a tree to vmap
    (a list or tuple of numbers differentiated: one array's rows to vmap, a tree to grad), or None where
    it cannot be batched so (the caller says why at the user's line)."""
    try:
        return tree_leaves_batched(f, args, axes, jit)
    except SharedDrawError:
        raise
    except (SrcDiffError, ValueError, TypeError, IndexError):
        return None


def _axes_of_leaves(axes, struct, out: list) -> list:
    """Each leaf's axis (in `trees.leaves` order) from an in_axes tree shaped like the argument (checked
    against it by api/vmap_examples.py `sizes`): a dict's by key, a list's or tuple's by position, one
    int or None for every leaf below it."""
    if struct is None or struct.kind in ("leaf", "data"):
        if is_axes_tree(axes):
            raise SrcDiffError("an in_axes tree deeper than its argument")
        out.append(axes)
    elif struct.is_container:
        for position, (key, child) in enumerate(zip(struct.keys, struct.children)):
            if not is_axes_tree(axes):
                sub = axes
            elif isinstance(axes, dict) and struct.kind == "dict":
                sub = axes[key]
            elif isinstance(axes, (tuple, list)) and struct.kind in ("list", "tuple", "namedtuple"):
                sub = axes[position]
            else:
                raise SrcDiffError("an in_axes tree of another kind than its argument")
            _axes_of_leaves(sub, child, out)
    return out


__all__ = ["leaves_or_none", "tree_leaves_batched"]
