"""Wave 34b's red team: programs in domains earlier waves had not covered the way these users write
them (chemistry, geodesy and astronomy, structures and fluids; econometrics, epidemiology and signals;
learning losses, operations research and rankings; graphics).  test_wave34b.py runs each through
every transformation against float64 central differences."""

from __future__ import annotations

from .wave34b_graphics import GRAPHICS
from .wave34b_learning import LEARNING
from .wave34b_science import SCIENCE
from .wave34b_series import SERIES_PROGRAMS

PROGRAMS = SCIENCE + SERIES_PROGRAMS + LEARNING + GRAPHICS
