"""srcdiff: gradients of Python/NumPy functions as readable Python source.

    @srcdiff.grad
    def loss(w, X, y):
        r = X @ w - y
        return (r * r).mean()

    loss(w, X, y)        # the gradient with respect to w
    print(loss.source)   # the generated gradient function
"""

from .api import GradFunction, cache_info, clear_cache, grad, value_and_grad
from .errors import SrcDiffError
from .rules.register import register_adjoint
from .tools.check import check, gradcheck
from .tools.explain import explain
from .tools.graph import graph
from .tools.trace import trace

__all__ = ["GradFunction", "SrcDiffError", "cache_info", "check", "clear_cache", "explain", "grad", "gradcheck",
           "graph", "register_adjoint", "trace", "value_and_grad"]
__version__ = "0.1.0"
