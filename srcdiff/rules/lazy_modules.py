"""Optional libraries as generated code names them, imported only when first used.

SciPy is an optional extra (``srcdiff[scipy]``): ``import srcdiff`` must not import it, yet
the adjoint of ``gammaln`` reads ``scipy_special.digamma(x)``.  `LazyModule` is the name
``scipy_special`` in generated code: a module object whose attributes import SciPy the first
time one is read, which happens only in a gradient of a function that already called SciPy.
"""

from __future__ import annotations

import importlib
import types

from ..errors import SrcDiffError


class LazyModule(types.ModuleType):
    """A stand-in for module `target`, imported on the first attribute read."""

    def __init__(self, name: str, target: str, extra: str):
        super().__init__(name)
        self.__dict__["_target"] = target
        self.__dict__["_extra"] = extra

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        try:
            module = importlib.import_module(self.__dict__["_target"])
        except ImportError:
            raise SrcDiffError(f"{self.__dict__['_target']} is not installed",
                               hint=f'pip install "srcdiff[{self.__dict__["_extra"]}]"') from None
        return getattr(module, attr)

    def __repr__(self):
        return f"<lazy module {self.__dict__['_target']!r}>"


#: ``scipy.special`` as adjoint templates name it.
SCIPY_SPECIAL = LazyModule("scipy_special", "scipy.special", "scipy")

#: ``scipy.linalg`` as adjoint templates name it.
SCIPY_LINALG = LazyModule("scipy_linalg", "scipy.linalg", "scipy")

#: ``scipy.signal`` as adjoint templates name it (the convolutions' adjoints).
SCIPY_SIGNAL = LazyModule("scipy_signal", "scipy.signal", "scipy")

#: The optional modules templates may name, by the name generated code uses.
LAZY = {"scipy_special": SCIPY_SPECIAL, "scipy_linalg": SCIPY_LINALG, "scipy_signal": SCIPY_SIGNAL}
