"""Spec rows of rules/numpy_decompositions.py and of the matrix norms, in the form of
tests/rules/test_numpy_rules.py's `SPECS`; that file checks each against central differences.
Tuple results are read by index (each expression must give an array); ``sl`` is scipy.linalg."""

import numpy as np


def distinct(rng, shape):
    """A symmetric matrix (or a stack) with well separated eigenvalues."""
    q, _ = np.linalg.qr(rng.normal(size=shape))
    n = shape[-1]
    return q @ (np.arange(1.0, n + 1) * 1.5 * np.swapaxes(q, -1, -2))


def linalg_specs(S, REAL, well_conditioned):
    return [
        S("numpy.linalg.pinv", "np.linalg.pinv(x)", x=((3, 5), REAL)),
        S("numpy.linalg.pinv", "np.linalg.pinv(x)", x=((2, 4, 3), REAL)),
        S("numpy.linalg.matrix_power", "np.linalg.matrix_power(x, 3)", x=((3, 3), REAL)),
        S("numpy.linalg.matrix_power", "np.linalg.matrix_power(x, -2)", x=((2, 3, 3), well_conditioned)),
        S("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False)[1]", x=((3, 5), REAL)),
        S("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False)[0] ** 2", x=((2, 5, 3), REAL)),
        S("numpy.linalg.svd", "np.linalg.svd(x, compute_uv=False)", x=((4, 3), REAL)),
        S("numpy.linalg.eigh", "np.linalg.eigh(x)[0]", x=((4, 4), distinct)),
        S("numpy.linalg.eigh", "np.linalg.eigh(x, 'U')[1] ** 2", x=((2, 3, 3), distinct)),
        S("numpy.linalg.eigvalsh", "np.linalg.eigvalsh(x)", x=((2, 4, 4), distinct)),
        S("numpy.linalg.qr", "np.linalg.qr(x)[1]", x=((5, 3), REAL)),
        S("numpy.linalg.qr", "np.linalg.qr(x)[0]", x=((2, 4, 4), well_conditioned)),
        S("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[0]", x=((5, 3), REAL), y=((5,), REAL)),
        S("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[1] + np.linalg.lstsq(x, y)[3][:2]", x=((5, 2), REAL),
          y=((5, 2), REAL)),
        S("numpy.linalg.eig", "x * np.linalg.eig(np.diag([1.0, 2.0, 3.0]))[0]", x=((3,), REAL)),
        S("numpy.linalg.eigvals", "x * np.linalg.eigvals(np.diag([1.0, 2.0, 3.0]))", x=((3,), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord='nuc')", x=((3, 4), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord=3, axis=1)", x=((2, 4), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord=-np.inf)", x=((5,), REAL)),
        # ---- scipy.linalg ----
        S("scipy.linalg.solve_triangular", "sl.solve_triangular(x, y, lower=True)", x=((3, 3), well_conditioned),
          y=((3,), REAL)),
        S("scipy.linalg.solve_triangular", "sl.solve_triangular(x, y, trans='T', unit_diagonal=True)",
          x=((3, 3), well_conditioned), y=((3, 2), REAL)),
        S("scipy.linalg.sqrtm", "sl.sqrtm(x @ x.T + np.eye(3))", x=((3, 3), REAL)),
        S("scipy.linalg.svd", "sl.svd(x, full_matrices=False)[1]", x=((3, 4), REAL)),
        S("scipy.linalg.pinv", "sl.pinv(x)", x=((4, 2), REAL)),
        S("scipy.linalg.inv", "sl.inv(x)", x=((3, 3), well_conditioned)),
        S("scipy.linalg.det", "sl.det(x)", x=((3, 3), well_conditioned)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord=-2, axis=(0, 2))", x=((3, 2, 4), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord=np.inf, axis=(1, 2), keepdims=True)", x=((2, 3, 4), REAL)),
    ]
