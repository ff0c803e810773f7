"""Custom derivatives written in Python: ``@srcdiff.custom_vjp`` and ``@srcdiff.custom_jvp``.

JAX's shapes::

    @srcdiff.custom_vjp
    def log1pexp(x):
        return np.log(1.0 + np.exp(x))

    def log1pexp_fwd(x):
        return log1pexp(x), x                   # (value, residuals)

    def log1pexp_bwd(x, g):
        return (g / (1.0 + np.exp(-x)),)        # one cotangent per argument (None: no gradient)

    log1pexp.defvjp(log1pexp_fwd, log1pexp_bwd)

and ``custom_jvp`` with a rule ``(primals, tangents) -> (value, tangent)``.  srcdiff reads the
rules' *source* and writes it into the generated code (lower/custom_calls.py), so the gradient
stays printable, exportable, jit-able and differentiable again.  Calling the decorated
function runs the original function.
"""

from __future__ import annotations

import functools
import inspect

from ..backend import loader
from ..driver.cache import CACHE
from ..errors import SrcDiffError


class _Custom:
    """What custom_vjp and custom_jvp share: the original function, and the plain function
    srcdiff differentiates when the decorated function itself is given to a transform."""

    kind = ""

    def __init__(self, fun):
        if not inspect.isfunction(fun):
            raise SrcDiffError(f"custom_{self.kind} decorates a Python function, got {type(fun).__name__}",
                               hint=f"write @srcdiff.custom_{self.kind} above a `def`")
        self.fun = fun
        functools.update_wrapper(self, fun)
        del self.__wrapped__  # srcdiff must not read the original's source in its place
        self.__signature__ = inspect.signature(fun)
        self._function = None

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def srcdiff_function(self):
        """A plain function ``def f(x, ...): return <this object>(x, ...)`` with the original's
        parameters: what `grad(f)` differentiates when `f` is this object (the call is where
        lowering reads the rule)."""
        if self._function is None:
            if not self.has_rule():
                raise SrcDiffError(f"{self.fun.__qualname__} is a custom_{self.kind} function without its rule",
                                   hint=f"call {self.fun.__name__}.def{self.kind}(...) before differentiating it")
            sig = inspect.signature(self.fun)
            names, cells = [], {}
            for p in sig.parameters.values():
                if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    raise SrcDiffError(f"{self.fun.__qualname__}: a custom_{self.kind} function takes plain "
                                       "positional parameters", hint="remove *args, **kwargs and keyword-only "
                                       "parameters")
                names.append(p.name)
            name = self.fun.__name__
            own = f"{name}_custom_{self.kind}"
            source = f"def {name}({', '.join(names)}):\n    return {own}({', '.join(names)})\n"
            cells[own] = self
            self._function = loader.build_function(source, f"custom_{self.kind} {name}", self.fun.__globals__,
                                                   cells, defaults=self.fun.__defaults__)
            self._function.__qualname__ = self.fun.__qualname__
        return self._function

    def _changed(self) -> None:
        self._function = None
        CACHE.clear()  # gradients of callers were built from the previous rule


class custom_vjp(_Custom):  # noqa: N801  JAX's name
    """A function with a reverse-mode rule written in Python: ``f.defvjp(fwd, bwd)``.

    ``fwd(*args)`` returns ``(value, residuals)``; ``bwd(residuals, g)`` returns a tuple with
    one cotangent per argument of `f` (None for an argument that carries no gradient).  Both
    are straight-line code (assignments and a final ``return``) that srcdiff copies into the
    generated gradient.  Forward mode (`jvp`) refuses a custom_vjp function, as JAX does.
    """

    kind = "vjp"

    def __init__(self, fun):
        super().__init__(fun)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd) -> None:
        """Set the rule: `fwd` and `bwd` as described in the class docstring."""
        for role, rule in (("fwd", fwd), ("bwd", bwd)):
            if not inspect.isfunction(rule):
                raise SrcDiffError(f"{self.fun.__qualname__}.defvjp: {role} must be a Python function, "
                                   f"got {type(rule).__name__}", hint="define it with `def` in a .py file")
        self.fwd, self.bwd = fwd, bwd
        self._changed()

    def has_rule(self) -> bool:
        return self.fwd is not None


class custom_jvp(_Custom):  # noqa: N801  JAX's name
    """A function with a forward-mode rule written in Python: ``f.defjvp(rule)``.

    ``rule(primals, tangents)`` returns ``(value, tangent)``; usable as a decorator
    (``@f.defjvp``).  Reverse mode (`grad`) uses the rule too where its tangent is linear and
    elementwise in the tangents (``a * x_dot + b * y_dot``): srcdiff transposes it; otherwise
    it refuses at the line that calls the function.
    """

    kind = "jvp"

    def __init__(self, fun):
        super().__init__(fun)
        self.jvp = None

    def defjvp(self, rule):
        """Set the rule (see the class docstring); returns it, so it works as a decorator."""
        if not inspect.isfunction(rule):
            raise SrcDiffError(f"{self.fun.__qualname__}.defjvp: the rule must be a Python function, "
                               f"got {type(rule).__name__}", hint="define it with `def` in a .py file")
        self.jvp = rule
        self._changed()
        return rule

    def has_rule(self) -> bool:
        return self.jvp is not None


__all__ = ["custom_jvp", "custom_vjp"]
