"""Gradients of functions called with trees, of methods and partials, and with ``has_aux``.

The function is rewritten for the structure of its arguments (frontend/flatten.py): each
leaf becomes a parameter.  A call flattens the arguments into leaves, runs the gradient of
the rewritten function (an ordinary `GradFunction`, cached per structure), and builds each
gradient back into the structure of its `wrt` target: same dict keys and order, same
namedtuple and dataclass types (an object's attributes come back as a dict).
"""

from __future__ import annotations

import inspect

from ..errors import SrcDiffError
from ..frontend import callables, trees
from ..frontend.flatten import flat_function


class TreeCaller:
    """The tree-aware half of one `GradFunction`."""

    def __init__(self, target: callables.Target, targets: tuple, make_gradient, with_value: bool,
                 has_aux: bool, debug: bool, user_func):
        self.target, self.targets, self.make = target, targets, make_gradient
        self.with_value, self.has_aux, self.debug, self.user_func = with_value, has_aux, debug, user_func
        self.names = list(inspect.signature(target.func).parameters)
        self.roots = {root for root, _ in targets}
        self.cache: dict = {}  # structures -> (Flat, gradient, [(struct, leaf names)] per target)
        self.last = None

    def structures(self, values: list) -> tuple:
        out = []
        for name, value in zip(self.names, values):
            if name in self.target.hidden and trees.is_object(value):
                struct = trees.structure(value) if not callable(value) else _object_structure(value)
            elif trees.is_tree(value, sequences=name in self.roots):
                struct = trees.structure(value)
            else:
                struct = None
            out.append(struct)
        return tuple(out)

    def prepared(self, structs: tuple):
        found = self.cache.get(structs)
        flat = flat_function(self.target.func, {n: s for n, s in zip(self.names, structs) if s is not None},
                             self.has_aux)
        if found is not None and found[0] is flat:
            return found
        by_param = {name: (struct, leaf_names) for name, struct, leaf_names in flat.params}
        wrt, plan = [], []
        for root, path in self.targets:
            struct, leaf_names = by_param[root]
            if struct is None:
                if path:
                    raise SrcDiffError(f"wrt={_spelled(root, path)!r}: {root} is not a tree in this call")
                wrt.append(root)
                plan.append((None, [root]))
                continue
            paths = [(p, s) for p, s in trees.leaf_paths(struct) if s.kind in ("leaf", "data")]
            try:
                sub = trees.subtree(struct, path)
            except (ValueError, IndexError):
                raise SrcDiffError(f"wrt={_spelled(root, path)!r} names no part of {root} "
                                   f"(its keys are {list(struct.keys)})") from None
            named = [(p, n) for (p, s), n in zip(paths, leaf_names)]
            kinds = {p: s.kind for p, s in paths}
            chosen = [n for p, n in named if p[:len(path)] == path and (kinds[p] == "leaf" or p == path)]
            if not chosen:
                raise SrcDiffError(f"wrt={_spelled(root, path)!r} holds no number or array to differentiate")
            wrt += chosen
            plan.append((sub, chosen))
        gradient = self.make(flat.func, tuple(wrt))
        found = self.cache[structs] = (flat, gradient, plan)
        return found

    def leaves(self, structs, values) -> list:
        out = []
        for struct, value in zip(structs, values):
            if struct is None:
                out.append(value)
            else:
                trees.leaves(value, struct, out)
        return out

    def __call__(self, bound: dict, user_args: tuple, user_kwargs: dict):
        values = callables.full_arguments(self.target, self.names, bound)
        structs = self.structures(values)
        flat, gradient, plan = self.prepared(structs)
        self.last = gradient
        result = gradient(*self.leaves(structs, values))
        value, grads = result if self.with_value else (None, result)
        out = []
        it = iter(grads)
        for sub, chosen in plan:
            taken = [next(it) for _ in chosen]
            out.append(taken[0] if sub is None or not sub.is_container else trees.unflatten(sub, iter(taken)))
        grads = out[0] if len(self.targets) == 1 and not self.tuple_result else tuple(out)
        if self.has_aux:
            returned = self.user_func(*user_args, **user_kwargs)
            if not (isinstance(returned, tuple) and len(returned) == 2):
                raise SrcDiffError("with has_aux=True the function must return a pair (loss, aux)")
            return (value, returned[1]), grads
        return (value, grads) if self.with_value else grads

    tuple_result = False

    def parts(self, bound: dict) -> tuple:
        """(structures, Flat, the flat function's gradient, the output plan, the leaf arguments)
        for a call like this: what `export` writes out (tools/export_trees.py)."""
        values = callables.full_arguments(self.target, self.names, bound)
        structs = self.structures(values)
        flat, gradient, plan = self.prepared(structs)
        return structs, flat, gradient, plan, self.leaves(structs, values)

    def source_for(self, bound: dict):
        values = callables.full_arguments(self.target, self.names, bound)
        structs = self.structures(values)
        flat, gradient, _ = self.prepared(structs)
        return gradient.source_for(*self.leaves(structs, values))


def _object_structure(value) -> trees.Struct:
    attrs = tuple(a for a in vars(value) if not a.startswith("__"))
    return trees.Struct("object", attrs, tuple(trees.structure(getattr(value, a), 1, True) for a in attrs),
                        type(value))


def _spelled(root, path) -> str:
    return root + "".join(f"[{k!r}]" if isinstance(k, int) else f".{k}" for k in path)


__all__ = ["TreeCaller"]
