"""Module-level arrays and settings that wave34e_programs.py reads as ``wave34e_data.X`` (an
attribute of another module, not a name bound in the program's own module)."""

import numpy as np

X = np.random.default_rng(342).normal(size=(6, 3))
Y = np.cos(X[:, 0]) + 0.5 * X[:, 1]
W0 = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4]])
RAIN = np.array([0.0, 5.0, 12.0, 3.0, 0.0, 1.0])
SETTINGS = {"scale": 0.7, "shift": -0.1}
