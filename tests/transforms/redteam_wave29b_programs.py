"""The red team's wave 29b: programs written the way users write them (ML losses and layers;
small physics and statistics; Python idioms and srcdiff called inside srcdiff), for the
compositions and options of test_redteam_wave29b.py."""

from __future__ import annotations

from .redteam_wave29b_idioms import IDIOMS
from .redteam_wave29b_ml import ML
from .redteam_wave29b_science import SCIENCE

PROGRAMS = ML + SCIENCE + IDIOMS
