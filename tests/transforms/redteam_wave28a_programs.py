"""The red team's wave 28a: programs written the way scientists and engineers write them, in five
modules (signal processing; finance; chemistry, physics and geometry; statistics, econometrics and
optimisers' inner loops; the Python idioms around them).  test_redteam_wave28a.py runs them through
every transformation against float64 central differences."""

from __future__ import annotations

from .redteam_wave28a_finance import FINANCE
from .redteam_wave28a_idioms import IDIOMS
from .redteam_wave28a_physics import PHYSICS
from .redteam_wave28a_signal import SIGNAL
from .redteam_wave28a_stats import STATS

PROGRAMS = SIGNAL + FINANCE + PHYSICS + STATS + IDIOMS
