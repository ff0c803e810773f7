"""What a callable given to `grad` runs: a function, and the arguments bound before the user's.

``model.loss`` is ``Model.loss`` with ``self`` bound, ``model`` itself (with a ``__call__``)
is ``Model.__call__`` with ``self`` bound; ``functools.partial(f, a, k=v)`` is `f`
with `a` and ``k=v`` bound (a partial of a method, or of a partial, too).  The gradient is
built for the plain function; the API passes the bound values as its first arguments.
"""

from __future__ import annotations

import functools
import inspect
import types
from dataclasses import dataclass, field

from ..errors import SrcDiffError
from .parse import parse_function, unwrap


@dataclass
class Target:
    """`func` called as ``func(*prefix, <the user's arguments>, **keywords)``."""

    func: object
    prefix: tuple = ()
    keywords: dict = field(default_factory=dict)
    hidden: tuple = ()  # names of the parameters `prefix` fills (``self``)

    @property
    def plain(self) -> bool:
        return not self.prefix and not self.keywords


#: srcdiff's own transformed functions that another transformation does not take (a gradient does
#: go into vmap, jacobian, hessian and grad: those handle it before they read its parameters)
_TRANSFORMED = {"VmapFunction": "srcdiff.vmap", "Jacobian": "srcdiff.jacobian or srcdiff.hessian",
                "Hessian": "srcdiff.hessian", "NestedJacobian": "srcdiff.jacobian",
                "JvpFunction": "srcdiff.jvp_function"}


def refuse_transformed(func, what: str = "srcdiff") -> None:
    """Refuse a function made by one of srcdiff's transformations that `what` cannot transform
    again (``srcdiff.grad(srcdiff.vmap(f))``): its parameters are ``*args``, its code srcdiff's own."""
    kind = _TRANSFORMED.get(type(func).__name__)
    if kind is None or not type(func).__module__.startswith("srcdiff."):
        return
    name = getattr(func, "__qualname__", type(func).__name__)
    third = " (a derivative of a Hessian is a third derivative, which srcdiff does not compute)" \
        if type(func).__name__ == "Hessian" else ""
    raise SrcDiffError(f"{what} cannot transform {name}, a function made by {kind}{third}", user_def_line(func),
                       hint="transform your function itself and compose from the inside out: vmap(grad(f)), "
                            "jacobian(grad(f)), vjp(grad(f)) and hessian(f) are the compositions srcdiff takes")


def user_def_line(func):
    """The def line of the user's function inside `func`, one of srcdiff's transformations (a
    Jacobian, a Hessian, a gradient, a vmap of them), or None where there is none to read."""
    for _ in range(6):
        if isinstance(func, types.FunctionType):
            break
        front = getattr(func, "front", None)
        inner = front.target.func if front is not None else getattr(getattr(func, "pullbacks", None), "func", None)
        func = inner if inner is not None else getattr(func, "__func__", getattr(func, "func", None))
    if not isinstance(func, types.FunctionType):
        return None
    try:
        parsed = parse_function(func)
    except SrcDiffError:
        return None
    return parsed.location(parsed.tree)


def is_gradient_object(func) -> bool:
    """A srcdiff gradient (or value_and_grad) object: its type says what a call of it stands for
    inside a function srcdiff differentiates (``called_code``, lower/called_gradients.py)."""
    return callable(getattr(type(func), "called_code", None))


def resolve(func) -> Target:
    refuse_transformed(func)
    prefix, keywords = (), {}
    while True:
        if hasattr(type(func), "srcdiff_function"):  # @custom_vjp / @custom_jvp (api/custom.py)
            func = func.srcdiff_function()
        elif isinstance(func, functools.partial):
            prefix = tuple(func.args) + prefix
            keywords = {**func.keywords, **keywords}
            func = func.func
        elif isinstance(func, types.MethodType):
            prefix = (func.__self__,) + prefix
            func = func.__func__
        elif not isinstance(func, (types.FunctionType, type)) \
                and isinstance(inspect.getattr_static(type(func), "__call__", None), types.FunctionType):
            prefix = (func,) + prefix  # model(x): its class's __call__, with the model as self
            func = type(func).__call__
        else:
            break
    if not isinstance(func, types.FunctionType) and hasattr(func, "__wrapped__"):
        func = unwrap(func)
    if prefix and not isinstance(func, types.FunctionType):
        raise SrcDiffError(f"srcdiff differentiates Python functions; got {type(func).__name__} {func!r}",
                           hint="pass a function defined with `def`")
    hidden = ()
    if prefix:
        try:
            names = list(inspect.signature(func).parameters)
        except (TypeError, ValueError):
            names = []
        hidden = tuple(names[: len(prefix)])
    return Target(func, prefix, keywords, hidden)


def full_arguments(target: Target, names: list, bound: dict) -> list:
    """The values of every parameter `names` of `target.func`, in order."""
    values = dict(zip(target.hidden, target.prefix))
    values.update(bound)
    return [values[n] for n in names]


__all__ = ["Target", "full_arguments", "is_gradient_object", "resolve", "user_def_line"]
