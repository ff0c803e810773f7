"""The public functions, on one argument binder, `wrt` normaliser and tree flattener.

`grad` and `value_and_grad` (gradients.py), `jvp` (forward.py), `vjp` (vjps.py, pullbacks.py),
`jacobian` and `hessian` (jacobians.py), `hvp` (hvp.py), on the front they share (binding.py,
flatcall.py); every one of them compiles through the driver.
"""

from .forward import JvpFunction, jvp, jvp_function
from .gradients import GradFunction, cache_info, clear_cache, grad, value_and_grad
from .hvp import hvp
from .jacobians import hessian, jacobian
from .vjps import vjp
from .vmap import vmap

__all__ = ["GradFunction", "JvpFunction", "cache_info", "clear_cache", "grad", "hessian", "hvp", "jacobian", "jvp",
           "jvp_function", "value_and_grad", "vjp", "vmap"]
