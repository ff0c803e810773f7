"""What a row of the rule spec table (tests/rules/specs.py) is made of.

A row, ``Spec(rule name, expression, tol=..., sym=..., **inputs)``, says everything the tests
of one rule need:

* the expression that calls the rule, over named inputs, each ``name=(shape, domain)`` (shape
  None: a Python float; a domain draws values where the rule is smooth);
* the tolerance of its comparisons with float64 central differences (gradient and tangent);
* what `srcdiff.check` must conclude on the rule (`sym`).  Whether sympy has a counterpart at
  all is the rule's own record (`Rule.sympy`, or `Rule.not_symbolic` saying why not); a rule
  with one has one row carrying a `Sym`: the function the symbolic check runs (small, so
  sympy is quick) and the verdicts it accepts — proved, or numeric only and why.
"""

import numpy as np


def sampler(low=None, high=None):
    """A domain: standard normal values, or uniform ones in [low, high)."""
    def draw(rng, shape):
        if low is None:
            return rng.normal(size=shape)
        return rng.uniform(low, high, size=shape)
    return draw


def spd(rng, shape):
    """A domain of symmetric positive definite matrices."""
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def well_conditioned(rng, shape):
    """A domain of matrices far from singular."""
    return rng.normal(size=shape) + 3.0 * np.eye(shape[-1])


REAL, POS, UNIT, ABOVE1 = sampler(), sampler(0.5, 2.0), sampler(-0.9, 0.9), sampler(1.2, 3.0)
NONZERO = sampler(0.3, 1.5)  # keeps |x| away from the kinks (abs, sign) and from 0
SPD = spd

# ---- what srcdiff.check must conclude (its report's status strings) ----

PROVED, NUMERIC, NOT_SYMBOLIC = "proved", "agrees numerically", "not symbolic"
EXACT = frozenset({PROVED})
#: proved, or agreeing numerically where sympy cannot simplify srcdiff's form into its own: a
#: constant written as a float (pi, log 2), a guard at a special point that sympy cannot drop on
#: array elements, an equal but different form (a sigmoid written with tanh)
EITHER = frozenset({PROVED, NUMERIC})
NUMERIC_ONLY = frozenset({NUMERIC})  # a kink: sympy's Heaviside vs srcdiff's comparison differ at the tie only
REFUSED = frozenset({NOT_SYMBOLIC})  # the adjoint floors or truncates, which sympy cannot differentiate

#: The values symbolic checks run at, by the names `Sym.args` uses.
SAMPLES = {
    "V": np.array([0.3, 0.5, 0.8]),
    "W": np.array([1.2, 0.4, 1.4]),
    "A": np.array([[0.5, -1.0, 0.8], [1.2, 0.3, -0.6]]),
    "B": np.array([[0.9, 0.2, -0.4], [0.1, 1.1, 0.7]]),
    "SQ": np.array([[2.0, 0.5], [-0.3, 1.5]]),
    "SQ2": np.array([[1.0, 0.2], [0.4, -0.8]]),
}


class Sym:
    """The symbolic check of a rule: ``def f(<params>): return <body>`` at `args` (Python
    expressions over `SAMPLES` and ``np``), differentiated in its first two parameters; the
    check's status must be one of `verdict`."""

    def __init__(self, body: str, args: str, verdict=EXACT, params: str = "x, y"):
        self.body, self.args_text, self.verdict, self.params = body, args, verdict, params

    @property
    def args(self) -> tuple:
        value = eval(f"({self.args_text},)", {"np": np, **SAMPLES})
        return tuple(value)

    def __repr__(self):
        return f"Sym({self.body!r}, {self.args_text!r})"


class NoSym:
    """A rule with a sympy counterpart whose spec cannot be checked symbolically, and why."""

    def __init__(self, why: str):
        self.why = why


class Spec:
    """One row of the table: see the module's docstring."""

    def __init__(self, rule, expr, tol=1e-6, sym=None, **inputs):
        self.rule, self.expr, self.inputs, self.tol, self.sym = rule, expr, inputs, tol, sym

    def __repr__(self):
        return f"{self.rule}: {self.expr}"


S = Spec
