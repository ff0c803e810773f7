"""Wave 36g: a module of data another module's losses read by attribute (``cfg.WEIGHTS["l2"]``,
``cfg.LAYERS[i]["scale"]``, ``cfg.TABLE[i]``), as applications keep their settings in a module."""

import numpy as np

WEIGHTS = {"fit": 1.0, "l2": 0.05, "prior": np.array([0.5, -1.0, 0.25])}
LAYERS = [{"scale": 1.5, "shift": 0.1}, {"scale": 0.5, "shift": -0.2}]
TABLE = [0.5, 1.5, -2.0]
GRID = [[1.0, 0.5, 0.0], [0.25, -1.0, 2.0]]
TARGET = np.array([0.3, -0.2, 0.9, 0.1])
