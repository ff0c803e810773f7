"""The same gradient on arrays of other libraries: Dask, and any array-API namespace.

Generated code spells array functions ``np.name``.  A variant whose arguments include
arrays of another library (`shapes.is_foreign_array`: its signature starts with the array
type, so it is compiled and cached apart from the NumPy one) gets one line more, first:

    np = array_namespace(X, y)

and is otherwise the very same source.  `array_namespace` is array_api_compat's: the
inputs' own namespace (``array_api_strict``, ``array_api_compat.dask.array``, CuPy's...);
NumPy arrays and Python numbers among the arguments are left out of the choice (Dask
takes them into its graphs).  The code's ``np.sum(x, axis=0)`` then builds a lazy Dask
array, or runs on the GPU.

Before such a variant runs, `check_portable` reads its code: every ``np.name`` it uses must
be in the namespace, no run-time helper (they are written for NumPy) may be called, and no
method or attribute the arrays lack may be used.  Anything else is refused with a
`SrcDiffError` naming the call and the user's line it comes from.
"""

from __future__ import annotations

import ast
import math

from ..errors import Location, SrcDiffError
from ..ir import memo
from ..ir.shapes import is_foreign_array

#: the name the generated code calls (a cell of the compiled function)
NAME = "array_namespace"
_INSTALL = 'pip install "srcdiff[dask]" (or array-api-compat) to differentiate arrays of other libraries'


def foreign_arrays(params: list[str], key) -> list[str]:
    """The parameters whose signature in `key` is an array of another library than NumPy."""
    if key is None:
        return []
    return [p for p, sig in zip(params, key) if isinstance(sig, tuple) and len(sig) == 4]


def array_namespace(*values):
    """The array-API namespace of the non-NumPy arrays among `values` (array_api_compat's)."""
    try:
        import array_api_compat
    except ImportError:
        raise SrcDiffError("array_api_compat is not installed", hint=_INSTALL) from None
    foreign = [v for v in values if is_foreign_array(v)]
    try:
        xp = array_api_compat.array_namespace(*foreign)
    except TypeError as exc:
        raise SrcDiffError(f"the arguments' arrays have no one array namespace: {exc}",
                           hint="pass arrays of one library (convert the others with its asarray)") from None
    found = _NAMESPACES.get(xp)
    if found is None:
        found = _NAMESPACES[xp] = Namespace(xp)
    return found


class Namespace:
    """An array-API namespace as generated code calls it: the library's own functions, and
    the two calls whose NumPy meaning the standard narrows taken in NumPy's sense.

    * ``full(shape, fill)`` with an array `fill` (a reduction's adjoint spread back over
      the reduced axes): a new array of `fill` broadcast to `shape`;
    * ``maximum(m, n)`` of two Python numbers (element counts): the larger one;
    * ``where(condition, a, b)`` of two Python numbers: as if `a` were an array;
    * ``shape(x)`` and ``size(x)``, which the standard has as attributes only.
    """

    def __init__(self, xp):
        own = set(vars(Namespace))  # full and maximum: the methods below, not the library's
        self.__dict__.update({name: getattr(xp, name) for name in dir(xp)
                              if not name.startswith("__") and name not in own})
        self.__name__ = xp.__name__
        self._xp = xp

    def full(self, shape, fill_value, **keywords):
        """A new array of `shape` filled with `fill_value` (a number, or an array broadcast to it)."""
        if isinstance(fill_value, (bool, int, float, complex)):
            return self._xp.full(shape, fill_value, **keywords)
        return self._xp.asarray(self._xp.broadcast_to(fill_value, tuple(shape)), copy=True, **keywords)

    def maximum(self, x1, x2):
        """The elementwise maximum; of two Python numbers, the larger one."""
        if isinstance(x1, (int, float)) and isinstance(x2, (int, float)):
            return max(x1, x2)
        return self._xp.maximum(x1, x2)

    def where(self, condition, x1, x2):
        """`x1` where `condition` holds, else `x2` (both may be Python numbers)."""
        if isinstance(x1, (int, float)) and isinstance(x2, (int, float)):
            x1 = self._xp.asarray(x1)
        return self._xp.where(condition, x1, x2)

    @staticmethod
    def shape(x) -> tuple:
        """`x`'s shape (``()`` for a number)."""
        return tuple(getattr(x, "shape", ()))

    @staticmethod
    def size(x) -> int:
        """`x`'s number of elements (1 for a number)."""
        return math.prod(getattr(x, "shape", ()))

    def __repr__(self) -> str:
        return f"<namespace {self.__name__}>"


_NAMESPACES: dict = memo.table()


def takes_numpy(namespace) -> bool:
    """Whether arrays of `namespace` mix with NumPy arrays in one computation (Dask's do)."""
    return namespace.__name__.partition(".")[0] == "dask" or ".dask." in f".{namespace.__name__}."


def add_namespace_line(func: ast.FunctionDef, arrays: list[str]) -> None:
    """Put ``np = array_namespace(a, b)`` first in `func`'s body (after nothing else)."""
    if NAME in {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}:
        raise SrcDiffError(f"the gradient's code uses the name {NAME!r}, which it needs for the arrays' namespace",
                           hint=f"rename your {NAME!r}")
    call = ast.Call(ast.Name(NAME, ast.Load()), [ast.Name(a, ast.Load()) for a in arrays], [])
    func.body.insert(0, ast.Assign([ast.Name("np", ast.Store())], call, lineno=0))
    function_sums(func)


def function_sums(func: ast.FunctionDef) -> None:
    """``a.sum()`` (NumPy's spelling, tidy.method_sums) back to ``np.sum(a)``: the array API's."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sum" \
                and not node.args and not node.keywords:  # of a name or of arithmetic (``(a * b).sum()``)
            node.args = [node.func.value]
            node.func = ast.Attribute(ast.Name("np", ast.Load()), "sum", ast.Load())


def check_portable(source: str, namespace, array_types: list[type], helpers, where) -> None:
    """Refuse code that `namespace` and its arrays cannot run: an ``np.name`` not in the
    namespace, a run-time helper (NumPy only), or a method the arrays do not have.

    `where(line)` gives the user's `Location` a line of `source` comes from."""
    lines = source.splitlines()
    others = (list, tuple, dict, float, int)  # loop stacks and numbers: names srcdiff's code also calls
    for node in ast.walk(ast.parse(source)):
        problem = None
        path = _np_path(node)
        if path:
            if _lookup(namespace, path[1:]) is None:
                problem = f"{'.'.join(path)} is not in the namespace {namespace.__name__} of the arrays"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            problem = f"srcdiff's run-time helper {node.func.id}() works on NumPy arrays only"
        elif isinstance(node, ast.Attribute) and not _is_module(node.value) and not node.attr.startswith("__") \
                and not any(hasattr(t, node.attr) for t in array_types) \
                and not any(hasattr(t, node.attr) for t in others):
            problem = f".{node.attr} is not an attribute of {' or '.join(t.__name__ for t in array_types)} arrays"
        if problem:
            code = lines[node.lineno - 1].strip()
            raise SrcDiffError(f"{problem}; the gradient's code says `{code}` for this line",
                               where(node.lineno),
                               "write the line with functions of the array API standard "
                               "(https://data-apis.org/array-api/latest/), or pass NumPy arrays")


def _np_path(node: ast.expr) -> list[str] | None:
    """``["np", "linalg", "norm"]`` for the outermost attribute of ``np.linalg.norm``."""
    names = []
    while isinstance(node, ast.Attribute):
        names.insert(0, node.attr)
        node = node.value
    return ["np", *names] if isinstance(node, ast.Name) and node.id == "np" and names else None


def _lookup(namespace, names: list[str]):
    for name in names:
        namespace = getattr(namespace, name, None)
    return namespace


def _is_module(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("np", "math") or \
        isinstance(node, ast.Attribute) and _is_module(node.value)


def located(origin_lines: dict, location) -> object:
    """``where(line)`` for `check_portable`: the user's `Location` of a generated line."""
    def where(line: int) -> Location | None:
        place = origin_lines.get(line)
        return location(place[0]) if place else None
    return where


__all__ = ["NAME", "Namespace", "add_namespace_line", "array_namespace", "check_portable", "foreign_arrays",
           "located", "takes_numpy"]
