"""Programs of test_wave32g.py: wave 32's held-out recurrent cells read by slices, einsums of three
or more operands (backend/optimize/einsum_pairs.py) and small scalar polynomials.  The cells and
forms of benchmarks/variants32_heldout.py at small sizes, and einsum spellings a pair-at-a-time
contraction must keep exact: numbers among the operands, four operands, a list operand, a letter
summed over one operand alone, a 0-d result, a repeated letter (a diagonal: stays one einsum)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants32_heldout as v32  # noqa: E402


def four_operands(A, x, y, z):
    """'i,ij,jk,k->' : a chain of four, each pair's result a vector (wrt A)."""
    return np.einsum("i,ij,jk,k->", x, A, A.T, z) + np.einsum("i,i->", x, y)


def scaled_operands(A, x):
    """Numbers among the operands: ',i,ij,j->' and ',ij,ij->' (wrt A)."""
    return np.einsum(",i,ij,j->", 0.5, x, A, x) + np.einsum(",ij,ij->", 2.0, A, A)


def list_operand(A, x):
    """A list among three operands (wrt A)."""
    return np.sum(np.einsum("ij,jk,k->i", A, [[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], x) ** 2)


def summed_alone(A, B, v):
    """'ij,jk,l->k' : i summed over A alone, l over v alone (wrt A)."""
    return np.sum(np.sin(np.einsum("ij,jk,l->k", A, B, v)))


def diagonal_kept(A, x):
    """'ii,i,i->' : a diagonal, which no pair takes apart (wrt A)."""
    return np.einsum("ii,i,i->", A, x, x) + np.einsum("ij,jk,ki->", A, A, A)


def batched_forms(W, X, Y):
    """'bi,ij,bj->b' under a softplus, and 'bi,bj,ij->' (wrt W)."""
    f = np.einsum("bi,ij,bj->b", X, W, Y)
    return np.sum(np.log1p(np.exp(f))) + np.einsum("bi,bj,ij->", X, Y, W) ** 2


def _normal(rng, *shape):
    return rng.standard_normal(shape)


PROGRAMS = [
    ("lstm_quarters_W", v32.lstm_quarters, lambda r: v32.lstm_args(T=3, B=2, n_in=3, n_h=2, seed=1), 0),
    ("lstm_quarters_U", v32.lstm_quarters, lambda r: v32.lstm_args(T=3, B=2, n_in=3, n_h=2, seed=2), 1),
    ("lstm_quarters_b", v32.lstm_quarters, lambda r: v32.lstm_args(T=3, B=2, n_in=3, n_h=2, seed=3), 2),
    ("min_gru_split", v32.min_gru_split, lambda r: v32.min_gru_args(T=3, B=2, n_in=3, n_h=2), 0),
    ("gru_reset_Wx", v32.gru_reset, lambda r: v32.gru_reset_args(T=3, B=2, n_in=3, n_h=2), 0),
    ("gru_reset_Uh", v32.gru_reset, lambda r: v32.gru_reset_args(T=3, B=2, n_in=3, n_h=2, seed=4), 1),
    ("quad_form_x", v32.quad_form, lambda r: v32.quad_args(d=4), 0),
    ("quad_form_A", v32.quad_form, lambda r: v32.quad_args(d=4, seed=5), 1),
    ("bilinear_sum", v32.bilinear_sum, lambda r: v32.bilinear_args(n=5, d=3), 0),
    ("trilinear_T", v32.trilinear, lambda r: v32.trilinear_args(d=3, k=2), 0),
    ("trilinear_x", v32.trilinear, lambda r: v32.trilinear_args(d=3, k=2, seed=6), 1),
    ("cubic2_x", v32.cubic2, lambda r: v32.scalar_args(), 0),
    ("cubic2_y", v32.cubic2, lambda r: v32.scalar_args(), 1),
    ("horner3_a", v32.horner3, lambda r: v32.horner_args(), 1),
    ("four_operands", four_operands, lambda r: (_normal(r, 3, 3), _normal(r, 3), _normal(r, 3), _normal(r, 3)), 0),
    ("scaled_operands", scaled_operands, lambda r: (_normal(r, 3, 3), _normal(r, 3)), 0),
    ("list_operand", list_operand, lambda r: (_normal(r, 4, 3), _normal(r, 2)), 0),
    ("summed_alone", summed_alone, lambda r: (_normal(r, 2, 3), _normal(r, 3, 4), _normal(r, 2)), 0),
    ("diagonal_kept", diagonal_kept, lambda r: (_normal(r, 3, 3), _normal(r, 3)), 0),
    ("batched_forms", batched_forms, lambda r: (0.3 * _normal(r, 3, 2), _normal(r, 5, 3), _normal(r, 5, 2)), 0),
]
