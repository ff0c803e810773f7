"""The red team's wave 30a: programs written the way scientists and ML engineers write them, in five
modules (survival, reliability and measurement; markets and risk; signals and queues; small networks,
recommenders, mixtures and robust losses; pharmacokinetics, neurons, astronomy, climate, power,
genetics, graph Laplacians, integrators, Gaussian processes and transport).
test_redteam_wave30a.py runs them through every transformation against float64 central
differences."""

from __future__ import annotations

from .redteam_wave30a_markets import MARKETS
from .redteam_wave30a_nets import NETS
from .redteam_wave30a_sciences import SCIENCES
from .redteam_wave30a_signals import SIGNALS
from .redteam_wave30a_survival import SURVIVAL

PROGRAMS = SURVIVAL + MARKETS + SIGNALS + NETS + SCIENCES
