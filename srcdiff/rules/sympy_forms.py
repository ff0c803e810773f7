"""The sympy counterparts of NumPy's elementwise functions that sympy has no function for.

Each computes one element (numbers or sympy symbols), as the rule's `sympy` fact promises;
rules name them (``sympy="srcdiff.rules.sympy_forms.log1p"``), and only a consumer that asks
for the counterpart (`Rule.sympy_function`) imports this module, and sympy with it.
"""

import sympy as sp


def exp2(x):
    return 2 ** x


def expm1(x):
    return sp.exp(x) - 1


def log2(x):
    return sp.log(x) / sp.log(2)


def log10(x):
    return sp.log(x) / sp.log(10)


def log1p(x):
    return sp.log(1 + x)


def logaddexp(x, y):
    return sp.log(sp.exp(x) + sp.exp(y))


def hypot(x, y):
    return sp.sqrt(x * x + y * y)


def square(x):
    return x * x


def reciprocal(x):
    return 1 / x


def clip(x, a_min, a_max):
    """``np.clip`` of one element; a missing bound is None (at least one is given)."""
    if a_min is None:
        return sp.Min(x, a_max)
    return sp.Min(sp.Max(x, a_min), a_max) if a_max is not None else sp.Max(x, a_min)
