"""srcdiff: gradients of Python/NumPy functions as readable Python source.

    @srcdiff.grad
    def loss(w, X, y):
        r = X @ w - y
        return (r * r).mean()

    loss(w, X, y)        # the gradient with respect to w
    print(loss.source)   # the generated gradient function
"""

from .api import GradFunction, cache_info, grad, value_and_grad
from .errors import SrcDiffError

__all__ = ["GradFunction", "SrcDiffError", "cache_info", "grad", "value_and_grad"]
__version__ = "0.1.0"
