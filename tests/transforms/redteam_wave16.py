"""The red team's sixteenth wave: programs as users write them, by theme.  Code ported from textbooks and
papers (a Kalman filter, the HMM forward algorithm in log space, soft-DTW, a Gibbs energy, a 1D FEM
assembly, Black-Scholes Greeks by a helper, a Lotka-Volterra fit with RK4, a spring-mass chain, Ising mean
field) in redteam_wave16_textbook.py; maps R^n -> R^m for jacobian / jvp / vjp in redteam_wave16_vector.py;
"novice" code (index loops, ``+=`` on Python floats, math.*, ``while`` with a tolerance, early returns,
nested helpers, defaults, ``*args``, globals, recursion on an int) in redteam_wave16_novice.py, and values
that leave NumPy (tolist, sorted, math.fsum, functools.reduce) or an argument changed in place in
redteam_wave16_idioms.py; Python's gotchas (late-binding lambdas, shadowed builtins, a view read after a
write) in redteam_wave16_gotchas.py; parameter trees (nested dicts, lists of layer dicts, dataclasses, NamedTuples) in
redteam_wave16_trees.py; special
points and float32 in redteam_wave16_points.py; NumPy spellings (einsum with ellipsis, tensordot axes,
take_along_axis, cumsum / cumprod with axis, diff n=2, roll, pad, tile / repeat, norms with ord and axis,
mask and fancy writes, sort gathers, triu / tril, outer, kron) in redteam_wave16_numpy.py.

`WAVE16` holds all eight: ``(name, function, make, wrt)`` as in redteam_programs.py, every name ``w16_…``.
"""

from __future__ import annotations

from .redteam_wave16_gotchas import GOTCHAS16
from .redteam_wave16_idioms import IDIOMS16
from .redteam_wave16_novice import NOVICE16
from .redteam_wave16_numpy import NUMPY16
from .redteam_wave16_points import POINTS16
from .redteam_wave16_textbook import TEXTBOOK16
from .redteam_wave16_trees import TREES16
from .redteam_wave16_vector import VECTOR16

WAVE16 = TEXTBOOK16 + VECTOR16 + NOVICE16 + IDIOMS16 + GOTCHAS16 + TREES16 + POINTS16 + NUMPY16
