"""Module-level arrays wave35e_programs.py reads as ``wave35e_data.X`` (an attribute of another module)."""

import numpy as np

X = np.random.default_rng(351).normal(size=(5, 3))
Y = np.sin(X[:, 0]) - 0.3 * X[:, 2]
KERNEL = np.array([0.25, 0.5, 0.25])
SCALE = np.array(0.7)
SETTINGS = {"scale": 0.7}
