"""Gradients of functions called with trees, of methods and partials, and with ``has_aux``.

The function is rewritten for the structure of its arguments (api/flatcall.py,
frontend/flatten.py): each leaf becomes a parameter.  A call flattens the arguments into
leaves, runs the gradient of the rewritten function (an ordinary `GradFunction`, cached per
structure), and builds each gradient back into the structure of its `wrt` target: same dict
keys and order, same namedtuple and dataclass types (an object's attributes come back as a dict).
"""

from __future__ import annotations

from ..errors import SrcDiffError
from .flatcall import FlatCall, Front


class TreeCaller:
    """The tree-aware half of one `GradFunction`."""

    def __init__(self, front: Front, make_gradient, with_value: bool, debug: bool):
        self.front, self.make = front, make_gradient
        self.with_value, self.has_aux, self.debug = with_value, front.has_aux, debug
        self.target, self.names = front.target, front.inner_names
        self.cache: dict = {}  # flattened function -> its gradient
        self.last = None

    def gradient_of(self, call: FlatCall):
        """The gradient of the flattened function of `call` (made once per structure)."""
        found = self.cache.get(call.func)
        if found is None:
            found = self.cache[call.func] = self.make(call.func, call.wrt)
        return found

    def prepared(self, structs: tuple):
        """(Flat, the flat function's gradient, the output plan) for arguments of these structures."""
        flat, wrt, plan = self.front.prepared(structs)
        found = self.cache.get(flat.func)
        if found is None:
            found = self.cache[flat.func] = self.make(flat.func, wrt)
        return flat, found, plan

    def __call__(self, positional: tuple, user_args: tuple, user_kwargs: dict):
        call = self.front.bound_call(positional)
        gradient = self.last = self.gradient_of(call)
        result = gradient(*call.args)
        value, grads = result if self.with_value else (None, result)
        grads = call.rebuild(grads)
        if self.has_aux:
            returned = self.front.func(*user_args, **user_kwargs)
            if not (isinstance(returned, tuple) and len(returned) == 2):
                raise SrcDiffError("with has_aux=True the function must return a pair (loss, aux)",
                                   hint="return (loss, aux), or leave has_aux out")
            if not self.with_value:
                return grads, returned[1]
            return (value, returned[1]), grads
        return (value, grads) if self.with_value else grads

    def tree_gradient(self, structs: tuple) -> tuple:
        """(the flattened function's parameters, its gradient of leaves, the output plan, whether a tuple
        of gradients, whether the value first) for arguments of `structs`: what a call with trees stands
        for inside a function srcdiff differentiates (frontend/gradient_trees.py)."""
        if self.has_aux or self.debug or not self.target.plain:
            why = "has_aux=True" if self.has_aux else "debug=True" if self.debug else "a method or partial"
            raise SrcDiffError(f"{self.front.qualname} is a gradient of {why}, and srcdiff differentiates a call "
                               "of a plain gradient (or value_and_grad) of a function only",
                               hint="call srcdiff.grad(f) of a plain function inside the function")
        flat, gradient, plan = self.prepared(structs)
        return flat.params, gradient, plan, self.front.tuple_result, self.with_value

    def parts(self, positional: tuple) -> tuple:
        """(structures, Flat, the flat function's gradient, the output plan, the leaf arguments)
        for a call like this: what `export` writes out (tools/export_trees.py)."""
        call = self.front.bound_call(positional)
        flat, gradient, plan = self.prepared(call.structs)
        return call.structs, flat, gradient, plan, list(call.args)

    def generic(self):
        """The gradient of the function rewritten for arguments that are no trees (its dicts and
        lists of computed values read as names): what ``.source`` shows before the first call;
        None for a method or partial, or where the rewritten function needs its arguments' trees."""
        if not self.target.plain:
            return None
        gradient = self.prepared((None,) * len(self.names))[1]
        return None if gradient.front.always else gradient

    def source_for(self, positional: tuple):
        call = self.front.bound_call(positional)
        return self.gradient_of(call).source_for(*call.args)


__all__ = ["TreeCaller"]
