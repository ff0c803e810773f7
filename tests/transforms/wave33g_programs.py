"""Wave 33g's red team: programs in domains earlier waves had not covered (image losses and graphs;
attention, flows, recommenders and sequence cells; physics and control rollouts; Gaussian
processes, survival and likelihoods; configuration-driven models; the same written with in-place
writes, sorts, accumulations, einsum and early returns).  test_wave33g.py runs each through
every transformation against float64 central differences."""

from __future__ import annotations

from .wave33g_config import CONFIG
from .wave33g_edges import EDGES
from .wave33g_nets import NETS
from .wave33g_physics import PHYSICS
from .wave33g_stats import STATS
from .wave33g_vision import VISION

PROGRAMS = VISION + NETS + PHYSICS + STATS + CONFIG + EDGES
