"""The public functions, on one argument binder, `wrt` normaliser and tree flattener.

`grad` and `value_and_grad` (gradients.py), `jvp` (forward.py), `vjp`, `jacobian`,
`hessian` and `hvp` (jacobians.py); every one of them compiles through the driver.
"""

from .forward import JvpFunction, jvp, jvp_function
from .gradients import GradFunction, cache_info, clear_cache, grad, value_and_grad
from .jacobians import hessian, hvp, jacobian, vjp

__all__ = ["GradFunction", "JvpFunction", "cache_info", "clear_cache", "grad", "hessian", "hvp", "jacobian", "jvp",
           "jvp_function", "value_and_grad", "vjp"]
