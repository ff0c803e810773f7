"""Factories of another module than the functions calling them (reach15_closures.py): a closure made
here is written out at the caller's line."""

import numpy as np


def make_softplus(beta):
    inv = 1.0 / beta

    def softplus(v):
        return inv * np.logaddexp(0.0, beta * v)
    return softplus


def make_untranslatable(c):
    def bessel(v):
        return np.i0(v) * c  # no adjoint rule: refused at the caller's line (reach15's refusals)
    return bessel
