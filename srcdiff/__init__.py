"""srcdiff: gradients of Python/NumPy functions as readable Python source.

    @srcdiff.grad
    def loss(w, X, y):
        r = X @ w - y
        return (r * r).mean()

    loss(w, X, y)        # the gradient with respect to w
    print(loss.source)   # the generated gradient function

The tools (`check`, `gradcheck`, `graph`, `trace`, `explain`, `export`) are imported on first use, so
``import srcdiff`` loads neither sympy nor any of them.
"""

import typing as _typing

from .api import (
    GradFunction,
    cache_info,
    clear_cache,
    grad,
    hessian,
    hvp,
    jacobian,
    jvp,
    jvp_function,
    value_and_grad,
    vjp,
    vmap,
)
from .api.custom import custom_jvp, custom_vjp
from .errors import PerExampleWarning, SrcDiffError
from .rules.register import register_adjoint
from .rules.runtime import stop_gradient
from .version import __version__ as __version__

if _typing.TYPE_CHECKING:  # the tools' signatures, for type checkers; at run time `__getattr__` imports them
    from .tools.check import check as check
    from .tools.explain import explain as explain
    from .tools.export import export as export
    from .tools.gradcheck import gradcheck as gradcheck
    from .tools.graph import graph as graph
    from .tools.trace import trace as trace

__all__ = ["GradFunction", "PerExampleWarning", "SrcDiffError", "cache_info", "check", "clear_cache", "custom_jvp",
           "custom_vjp", "explain", "export", "grad",
           "gradcheck", "graph", "hessian", "hvp", "jacobian", "jvp", "jvp_function", "register_adjoint",
           "stop_gradient", "trace", "value_and_grad", "vjp", "vmap"]


def __getattr__(name: str):
    """Import a tool the first time it is asked for (PEP 562); it then stays a module global."""
    found: _typing.Callable[..., _typing.Any]
    if name == "check":
        from .tools.check import check as found
    elif name == "gradcheck":
        from .tools.gradcheck import gradcheck as found
    elif name == "graph":
        from .tools.graph import graph as found
    elif name == "trace":
        from .tools.trace import trace as found
    elif name == "explain":
        from .tools.explain import explain as found
    elif name == "export":
        from .tools.export import export as found
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found
    return found


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
