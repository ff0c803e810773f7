"""Wave 35b's red team: programs in domains earlier waves had not covered the way these users write
them (hydrology and power systems; robotics and control; finance; language, recommendation, vision,
statistics and physics).  test_wave35b.py runs each through every transformation against float64
central differences."""

from __future__ import annotations

from .wave35b_learn import LEARN
from .wave35b_money import MONEY
from .wave35b_motion import MOTION
from .wave35b_water import WATER

PROGRAMS = WATER + MOTION + MONEY + LEARN
