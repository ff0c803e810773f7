"""The red team's wave 32h: programs in five modules (reinforcement learning; graphics and optics;
geostatistics, epidemiology, chemistry and ecology; audio, control and queueing; econometrics and NLP;
everyday idioms).  test_wave32h.py runs them through every transformation against float64
central differences."""

from __future__ import annotations

from .wave32h_econ_nlp import ECON_NLP
from .wave32h_graphics import GRAPHICS
from .wave32h_idioms import IDIOMS
from .wave32h_rl import RL
from .wave32h_science import SCIENCE
from .wave32h_signals import SIGNALS

PROGRAMS = RL + GRAPHICS + SCIENCE + SIGNALS + ECON_NLP + IDIOMS
