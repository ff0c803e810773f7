"""Calls numba has no code for whose values hold no derivative, made by Python itself through
numba's object mode (a block the compiled code leaves to the interpreter):

* ``int(s)`` and ``float(s)`` of a string (``int(node[1:])`` in an evaluator of expression
  trees, ``float(weight)`` of a configuration string split in the function): overloads of
  the builtins for strings, so Python's own parsing decides (signs, spaces, underscores,
  ``"inf"``, exponents; an invalid string raises Python's ValueError, and the Python gradient
  then raises it at the user's line);
* the Gauss quadrature nodes and weights of ``numpy.polynomial`` (``leggauss``, ``hermgauss``,
  ``hermegauss``, ``laggauss``, ``chebgauss`` of a count, spelled through the module
  attribute as users write them): ``gauss_nodes(kind, n)``, NumPy's own arrays.

Only the values of these calls cross into object mode; they depend on a string or a count,
never on a differentiated argument, so the gradient's code around them stays compiled.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import objmode, types

from .naming import overload

#: numpy.polynomial's quadrature functions: (module, function) -> the kind gauss_nodes takes
GAUSS = {("legendre", "leggauss"): 0, ("hermite", "hermgauss"): 1, ("hermite_e", "hermegauss"): 2,
         ("laguerre", "laggauss"): 3, ("chebyshev", "chebgauss"): 4}
_MAKERS = (np.polynomial.legendre.leggauss, np.polynomial.hermite.hermgauss, np.polynomial.hermite_e.hermegauss,
           np.polynomial.laguerre.laggauss, np.polynomial.chebyshev.chebgauss)


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.polynomial.legendre.leggauss(n)`` (``numpy.`` too): ``gauss_nodes(0, n)``."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "polynomial"
            and isinstance(func.value.value.value, ast.Name) and func.value.value.value.id in ("np", "numpy")
            and len(node.args) == 1 and not node.keywords):
        return None
    kind = GAUSS.get((func.value.attr, func.attr))
    return None if kind is None else ("gauss_nodes", [ast.Constant(kind), node.args[0]])


def python_int(s) -> int:
    return int(s)


def python_float(s) -> float:
    return float(s)


def gauss_nodes(kind, n):
    """NumPy's quadrature nodes and weights of the family `kind` (GAUSS's numbers), as float64."""
    nodes, weights = _MAKERS[kind](n)
    return np.asarray(nodes, dtype=np.float64), np.asarray(weights, dtype=np.float64)


@overload(int)
def _int_of_string(s):
    if not isinstance(s, types.UnicodeType):
        return None  # numbers: numba's own int()

    def parse(s):
        with objmode(value="int64"):
            value = python_int(s)
        return value
    return parse


@overload(float)
def _float_of_string(s):
    if not isinstance(s, types.UnicodeType):
        return None

    def parse(s):
        with objmode(value="float64"):
            value = python_float(s)
        return value
    return parse


@overload(gauss_nodes)
def _gauss_nodes(kind, n):
    if not isinstance(n, types.Integer):
        return None

    def nodes(kind, n):
        with objmode(t="float64[:]", w="float64[:]"):
            t, w = gauss_nodes(kind, n)
        return t, w
    return nodes


HELPERS = ("gauss_nodes",)

__all__ = ["HELPERS", "gauss_nodes", "spell"]
