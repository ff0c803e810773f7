"""Random draws from a stream the whole process shares.

``np.random.rand(n)`` (NumPy's global stream) and ``random.random()`` (Python's) give other numbers
each time they are called.  A gradient run once draws what the function draws, call for call; a
transformation that runs the function's code twice (a Jacobian's value and its rows), or in
another runtime (numba, whose ``np.random`` is a stream of its own), would differentiate other
draws.  Such calls are marked (`Rule.draws`) and those transformations refuse them at the line
(driver/lowering.py).
"""

from __future__ import annotations

import random

import numpy as np


def shared_stream(func) -> bool:
    """Whether `func` draws from a random stream the process shares: NumPy's global one
    (``np.random.rand``, ``np.random.normal``) or Python's (``random.random``)."""
    owner = getattr(func, "__self__", None)
    return owner is not None and (owner is getattr(np.random.mtrand, "_rand", None) or owner is random._inst)


#: what makes a random generator (lower/generator_draws.py: the draws of one the function seeds are constants)
GENERATORS = (np.random.default_rng, np.random.RandomState, np.random.Generator)

__all__ = ["GENERATORS", "shared_stream"]
