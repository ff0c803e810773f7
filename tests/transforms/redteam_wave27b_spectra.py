"""Wave 27b's fourth finding: the Hessian (and the Jacobian of a gradient) of values read off a matrix's
singular values or eigenvalues (test_redteam_wave27b.py).  ``np.linalg.norm(W, 2)``, ``"nuc"``, ``-2``,
``np.linalg.svd(W, compute_uv=False)`` and ``np.linalg.eigvalsh(W @ W.T)`` have gradients every
transformation computes, but the Hessian's batched code (every column in one call) put its batch axis
twice: a ValueError ("cannot reshape array of size 729 into shape (3,3,3,3)") or a refusal naming a
broadcast inside srcdiff's own code.  The batched rows are now checked (api/batched_rows.py), and
batched code that fails or gives rows of another size leaves the Hessian to its columns (forward mode
over the gradient), which compute it right."""

from __future__ import annotations

import numpy as np


def spectral_penalty(W, X):
    return np.sum(np.tanh(X @ W) ** 2) + 0.01 * np.linalg.norm(W, 2)


def spectral_norm(W):
    return np.linalg.norm(W, 2)


def smallest_singular_value(W):
    return np.linalg.norm(W, -2)


def nuclear_norm(W):
    return np.linalg.norm(W, "nuc")


def singular_values_squared(W):
    return np.sum(np.linalg.svd(W, compute_uv=False) ** 2)


def top_eigenvalue_of_gram(W):
    return np.linalg.eigvalsh(W @ W.T)[-1]


def M(r, *shape):
    return r.standard_normal(shape)


PROGRAMS = [
    ("spectral_penalty", spectral_penalty, lambda r: (M(r, 3, 3), M(r, 4, 3)), 0),
    ("top_eigenvalue_of_gram", top_eigenvalue_of_gram, lambda r: (M(r, 3, 3),), 0),
    ("spectral_norm", spectral_norm, lambda r: (M(r, 3, 2),), 0),
    ("smallest_singular_value", smallest_singular_value, lambda r: (M(r, 3, 3),), 0),
    ("nuclear_norm", nuclear_norm, lambda r: (M(r, 2, 3),), 0),
    ("singular_values_squared", singular_values_squared, lambda r: (M(r, 3, 2),), 0),
]
