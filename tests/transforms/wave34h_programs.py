"""Wave 34h: the red team's programs over NumPy's API breadth (test_wave34h.py), gathered from
wave34h_contract.py, wave34h_arrays.py and wave34h_elementwise.py.

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

from . import wave34h_arrays, wave34h_contract, wave34h_elementwise

PROGRAMS = [*wave34h_contract.PROGRAMS, *wave34h_arrays.PROGRAMS, *wave34h_elementwise.PROGRAMS]
