"""srcdiff: gradients of Python/NumPy functions as readable Python source.

    @srcdiff.grad
    def loss(w, X, y):
        r = X @ w - y
        return (r * r).mean()

    loss(w, X, y)        # the gradient with respect to w
    print(loss.source)   # the generated gradient function
"""

from .api import GradFunction, cache_info, clear_cache, grad, value_and_grad
from .check import check, gradcheck
from .errors import SrcDiffError
from .explain import explain
from .graph import graph
from .register import register_adjoint
from .trace import trace

__all__ = ["GradFunction", "SrcDiffError", "cache_info", "check", "clear_cache", "explain", "grad", "gradcheck",
           "graph", "register_adjoint", "trace", "value_and_grad"]
__version__ = "0.1.0"
