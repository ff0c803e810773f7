"""Wave 36b: programs of domains the red team had not written (epidemiology with ages and
vaccination schedules, survival by risk sets, acoustics, optics, graphics, chemistry, structures,
traffic, geostatistics, econometrics, games, rankings) and the idioms users shape them with, in five
modules.  test_wave36b.py runs them through every transformation against float64 central
differences."""

from __future__ import annotations

from .wave36b_choices import CHOICES
from .wave36b_health import HEALTH
from .wave36b_idioms import IDIOMS
from .wave36b_matter import MATTER
from .wave36b_waves import WAVES

PROGRAMS = HEALTH + WAVES + MATTER + CHOICES + IDIOMS
