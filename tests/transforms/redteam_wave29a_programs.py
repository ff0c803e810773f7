"""The red team's wave 29a: programs written the way scientists and engineers write them, in six
modules (robotics; graphics and vision; control; epidemiology and ecology; chemistry and materials;
optimal transport, Gaussian processes, geostatistics, hydrology and acoustics).
test_redteam_wave29a.py runs them through every transformation against float64 central
differences."""

from __future__ import annotations

from .redteam_wave29a_control import CONTROL
from .redteam_wave29a_ecology import ECOLOGY
from .redteam_wave29a_fields import FIELDS
from .redteam_wave29a_materials import MATERIALS
from .redteam_wave29a_robotics import ROBOTICS
from .redteam_wave29a_vision import VISION

PROGRAMS = ROBOTICS + VISION + CONTROL + ECOLOGY + MATERIALS + FIELDS
