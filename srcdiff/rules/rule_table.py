"""The rule table: rules looked up by the Python object user code calls, versioned so that
cached transforms notice a change, with the rules of optional libraries (SciPy) loaded on
the first lookup that needs them."""

from __future__ import annotations

import sys
import types
from typing import Callable, Mapping

from ..errors import SrcDiffError
from .table import Rule, validate


class RuleTable:
    """Rules looked up by the Python object user code calls (``np.sin``, ``operator.add``)."""

    def __init__(self, rules=(), lazy: Mapping[str, Callable[[], list]] | None = None):
        self._rules: dict[object, Rule] = {}
        #: rules of optional libraries, by the top-level module that must be imported already
        #: (``{"scipy": load}``): loaded on the first lookup that misses once it is
        self._lazy = dict(lazy or {})
        self._optional: dict[object, Rule] = {}  # their rules, once loaded (a `_rules` entry wins)
        self.version = 0  # bumped on every change, so cached transforms notice
        self.listeners = []  # called after every change (compiled gradients reset themselves)
        for r in rules:
            self.register(r)

    def register(self, new: Rule, replace: bool = False) -> Rule:
        validate(new)
        old = self._rules.get(new.func)
        if old is not None and not replace:
            raise SrcDiffError(
                f"{new.name} already has an adjoint rule", hint="pass replace=True to override it"
            )
        self._rules[new.func] = new
        self.version += 1
        for listener in self.listeners:
            listener()
        return old

    def remove(self, func) -> Rule | None:
        """Drop `func`'s rule (if any) and return it."""
        old = self._rules.pop(func, None)
        if old is not None:
            self.version += 1
        return old

    def lookup(self, func) -> Rule | None:
        try:
            found = self._rules.get(func) or self._optional.get(func)
        except TypeError:  # unhashable callables have no rule
            return None
        if found is None and self._lazy and not _foreign_function(func, self._lazy) \
                and self.load_lazy(imported_only=True):
            return self._optional.get(func)
        return found

    def load_lazy(self, imported_only: bool = False) -> bool:
        """Add the rules of optional libraries (all, or those a program has imported already:
        a user calling SciPy has imported it, so ``import srcdiff`` never does); True if any
        were added.  The table's version is kept: no compiled gradient used these rules."""
        added = False
        for module, load in list(self._lazy.items()):
            if imported_only and module not in sys.modules:
                continue
            del self._lazy[module]
            for new in load():
                self._optional[validate(new).func] = new
            added = True
        return added

    def functions_where(self, fact: Callable[[Rule], bool]) -> set:
        """The functions whose rule has `fact`: ``TABLE.functions_where(lambda r: r.fresh)``."""
        return {r.func for r in self if fact(r)}

    def __iter__(self):
        return iter([*self._rules.values(), *(r for f, r in self._optional.items() if f not in self._rules)])

    def __len__(self):
        return len(list(iter(self)))


def _foreign_function(func, libraries) -> bool:
    """Whether `func` is a Python function or a built-in one of none of the optional `libraries` (a
    user's helper, ``len``, ``math.sin``): no optional rule is for it, so looking it up need not import
    their rules (``scipy.stats`` takes a second to import, and numba imports SciPy: a first call under
    jit="numba" of code calling ``len`` paid it).  A built-in whose module is not known may be theirs."""
    if not isinstance(func, (types.FunctionType, types.BuiltinFunctionType)):
        return False
    package = (getattr(func, "__module__", None) or "").split(".")[0]
    return package not in libraries and (bool(package) or isinstance(func, types.FunctionType))
