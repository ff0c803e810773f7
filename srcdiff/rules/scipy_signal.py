"""SciPy's convolutions and correlations (``scipy.signal``): ``convolve``, ``correlate``,
``convolve2d``, ``correlate2d``, ``fftconvolve``, ``oaconvolve``, N-D, modes full / same /
valid, with respect to both operands (rules/convolution.py derives the templates).

This module imports SciPy: the rule table loads it only once a program has imported SciPy
(`rules.builtin.LAZY_SECTIONS`).  Templates name the module ``scipy_signal`` (`lazy_modules`),
so a gradient of a gradient finds these rules again.  What a rule cannot honour — a boundary
other than zero fill, ``axes=`` of the FFT convolutions, an unknown ``method`` — is refused at
the user's line, never computed as if it were not there.
"""

import scipy.signal as signal

from ..errors import SrcDiffError
from .convolution import conv_rule

S = "scipy_signal."
METHODS = ("auto", "direct", "fft")


def _checked(rule, check):
    """`rule` whose templates first run `check(static)` (a refusal of an unsupported option)."""
    templates = rule.templates

    def checked(static, operand_shapes):
        check(static)
        return templates(static, operand_shapes)

    object.__setattr__(rule, "templates", checked)
    return rule


def _method(name):
    def check(static):
        if static["method"] not in METHODS:
            raise SrcDiffError(f"scipy.signal.{name} with method={static['method']!r} has no adjoint rule",
                               hint=f"use one of {', '.join(map(repr, METHODS))}")
    return check


def _no_axes(name):
    def check(static):
        if static["axes"] is not None:
            raise SrcDiffError(f"scipy.signal.{name} with axes= has no adjoint rule",
                               hint="leave axes out (every axis is convolved), or loop over the other axes")
    return check


def _fill(name):
    def check(static):
        if static["boundary"] not in ("fill", "pad") or static["fillvalue"] != 0:
            raise SrcDiffError(f"scipy.signal.{name} with boundary={static['boundary']!r}, "
                               f"fillvalue={static['fillvalue']!r} has no adjoint rule",
                               hint="only zero fill (the default) is supported: pad the array yourself (np.pad)")
    return check


def _rule(func, kind, same, statics, keywords, check, note):
    return _checked(conv_rule(func, kind, f"{S}convolve", f"{S}correlate", same, ("in1", "in2"), statics,
                              name=f"scipy.signal.{func.__name__}", keywords=keywords, note=note,
                              call=f"{S}{func.__name__}", not_symbolic=NOT_SYMBOLIC),
                    check(func.__name__))


NOTE = "real operands of one ndim; modes full, same, valid"
NOT_SYMBOLIC = "SciPy's N-D convolutions do not run on object arrays; checked against central differences"
FILL = {"mode": "full", "boundary": "fill", "fillvalue": 0}

RULES = [
    _rule(signal.convolve, "convolve", "scipy", {"mode": "full", "method": "auto"}, ", method=method", _method,
          NOTE),
    _rule(signal.correlate, "correlate", "scipy", {"mode": "full", "method": "auto"}, ", method=method", _method,
          NOTE),
    _rule(signal.fftconvolve, "convolve", "scipy", {"mode": "full", "axes": None}, ", method='fft'", _no_axes,
          NOTE + "; axes= is refused"),
    _rule(signal.oaconvolve, "convolve", "scipy", {"mode": "full", "axes": None}, ", method='fft'", _no_axes,
          NOTE + "; axes= is refused"),
    _rule(signal.convolve2d, "convolve", "scipy", FILL, "", _fill, NOTE + "; zero fill only"),
    _rule(signal.correlate2d, "correlate", "scipy_2d_correlate", FILL, "", _fill, NOTE + "; zero fill only"),
]
