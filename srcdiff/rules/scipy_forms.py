"""The sympy counterparts of SciPy's special functions that sympy has no function for.

Each computes one element (numbers or sympy symbols), as `Rule.sympy` promises; only a
consumer that asks for the counterpart imports this module, and sympy with it.
"""

import sympy as sp


def rgamma(x):
    return 1 / sp.gamma(x)


def betaln(a, b):
    return sp.log(sp.beta(a, b))


def gammainc(a, x):
    return sp.lowergamma(a, x) / sp.gamma(a)


def gammaincc(a, x):
    return sp.uppergamma(a, x) / sp.gamma(a)


def ndtr(x):
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


def erfcx(x):
    return sp.exp(x ** 2) * sp.erfc(x)


def log_ndtr(x):
    return sp.log(ndtr(x))


def ndtri(p):
    return sp.sqrt(2) * sp.erfinv(2 * p - 1)


def expit(x):
    return 1 / (1 + sp.exp(-x))


def logit(p):
    return sp.log(p / (1 - p))


def log_expit(x):
    return -sp.log(1 + sp.exp(-x))


def xlogy(x, y):
    return x * sp.log(y)


def xlog1py(x, y):
    return x * sp.log(1 + y)


def entr(x):
    return -x * sp.log(x)


def rel_entr(x, y):
    return x * sp.log(x / y)


def i0(x):
    return sp.besseli(0, x)


def i1(x):
    return sp.besseli(1, x)


def i0e(x):
    return sp.exp(-sp.Abs(x)) * sp.besseli(0, x)


def i1e(x):
    return sp.exp(-sp.Abs(x)) * sp.besseli(1, x)


def ive(v, x):
    return sp.exp(-sp.Abs(x)) * sp.besseli(v, x)


def j0(x):
    return sp.besselj(0, x)


def j1(x):
    return sp.besselj(1, x)


def y0(x):
    return sp.bessely(0, x)


def y1(x):
    return sp.bessely(1, x)


def erfcinv(x):
    return sp.erfinv(1 - x)


def remainder(x, y):
    return x - y * sp.floor(x / y)


def fmod(x, y):
    return x - y * sp.sign(x / y) * sp.floor(sp.Abs(x / y))


def deg2rad(x):
    return x * sp.pi / 180


def rad2deg(x):
    return x * 180 / sp.pi


def logaddexp2(x, y):
    return sp.log(2 ** x + 2 ** y) / sp.log(2)


def sinc(x):
    return sp.sin(sp.pi * x) / (sp.pi * x)
