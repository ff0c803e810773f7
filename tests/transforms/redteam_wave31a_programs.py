"""The red team's wave 31a: programs written the way modellers, quants, engineers and statisticians
write them, in six modules (pharmacokinetics and ecology; option Greeks and portfolios; robotics,
finite elements and pairwise energies; Bayesian posteriors, mixtures, survival and ranking; signal
processing; how users pass and shape parameters).  test_redteam_wave31a.py runs them through every
transformation against float64 central differences."""

from __future__ import annotations

from .redteam_wave31a_finance import FINANCE
from .redteam_wave31a_idioms import IDIOMS
from .redteam_wave31a_mechanics import MECHANICS
from .redteam_wave31a_pharma import PHARMA
from .redteam_wave31a_signals import SIGNALS
from .redteam_wave31a_stats import STATS

PROGRAMS = PHARMA + FINANCE + MECHANICS + STATS + SIGNALS + IDIOMS
