"""Held-out variants: programs written the way other users write them (variants_programs.py),
none tuned on, each timed against its careful hand-written NumPy gradient.

    python benchmarks/variants.py                 # the markdown table (CPU clock, 7 rounds)
    python benchmarks/variants.py --quick         # fewer rounds, no numba, no JAX
    python benchmarks/variants.py --only lstm,gp  # some variants
    python benchmarks/variants.py --check         # gradients against hand and central differences
    python benchmarks/variants.py --peers-path DIR   # a site-packages holding JAX: a jax.jit column

Columns (medians over interleaved rounds of the ratios within a round, pinned to one core
like run.py): grad/hand, value_and_grad/hand, value_and_grad against a hand-written value and
gradient (where the program has one, ``NAME_value_and_grad``), hessian/grad (where the parameters
number at most 50), jit="numba"/hand and jit="numba"/jax.jit.
"""

# isort: off
if __name__ == "__main__":  # first: one core, one thread per library, before NumPy loads (not when tests import it)
    import single_core  # noqa: F401
# isort: on

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
import types
from dataclasses import dataclass, field

import numpy as np
import variants18_contract as v18c
import variants18_linalg as v18
import variants20_gated as v20g
import variants20_piecewise as v20
import variants21_masks as v21
import variants22_ties as v22
import variants30_heldout as v30f
import variants30_hessians as v30h
import variants31_einsum as v31e
import variants31_linalg as v31l
import variants31_signs as v31s
import variants32_gates as v32g
import variants32_heldout as v32h
import variants32_losses as v32
import variants33_gates as v33g
import variants33_piecewise as v33
import variants34_gates as v34g
import variants34_piecewise as v34
import variants34e_sums as v34e
import variants35_gates as v35g
import variants35_piecewise as v35
import variants36_cells as v36c
import variants36_heldout as v36h
import variants36_items as v36k
import variants36_piecewise as v36
import variants_programs as vp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # the working tree's srcdiff
import srcdiff  # noqa: E402


def _rng(seed):
    return np.random.default_rng(seed)


def _rnn_weights(rng, n_in, n_h):
    return (rng.standard_normal((n_in, n_h)) / math.sqrt(n_in),
            0.9 * rng.standard_normal((n_h, n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(n_h))


def rnn_args(T=50, B=32, n_in=32, n_h=128, seed=0, dict_weights=False, every_step=False, dt=None):
    rng = _rng(seed)
    Wx, Wh, b = _rnn_weights(rng, n_in, n_h)
    xs = rng.standard_normal((T, B, n_in))
    target = 0.5 * rng.standard_normal((T, B, n_h) if every_step else (B, n_h))
    h0 = np.zeros((B, n_h))
    if dict_weights:
        return {"Wx": Wx, "Wh": Wh, "b": b}, xs, h0, target
    return (Wx, Wh, b, xs, h0, target) + (() if dt is None else (dt,))


def lstm_args(T=20, B=16, n_in=16, n_h=64, seed=1):
    rng = _rng(seed)
    W = rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in)
    U = rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h)
    return W, U, 0.1 * rng.standard_normal(4 * n_h), rng.standard_normal((T, B, n_in)), \
        0.3 * rng.standard_normal((B, n_h))


def mlp_args(B=256, n_in=784, n_h=256, n_out=10, seed=2):
    rng = _rng(seed)
    return (rng.standard_normal((n_in, n_h)) / math.sqrt(n_in), 0.1 * rng.standard_normal(n_h),
            rng.standard_normal((n_h, n_out)) / math.sqrt(n_h), 0.1 * rng.standard_normal(n_out),
            rng.standard_normal((B, n_in)), np.eye(n_out)[rng.integers(0, n_out, B)])


def linear_args(n=10_000, d=100, seed=3, signs=False, extra=0.01):
    rng = _rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n)
    return 0.1 * rng.standard_normal(d), X, np.sign(y) if signs else y, extra


def polyfit_args(n=1000, deg=8, seed=4):
    rng = _rng(seed)
    x = rng.uniform(-1.0, 1.0, n)
    return rng.standard_normal(deg + 1), x, np.cos(3.0 * x)


def kmeans_args(n=2000, k=8, d=16, seed=5):
    rng = _rng(seed)
    return rng.standard_normal((k, d)), rng.standard_normal((n, d)), 2.0


def gp_args(n=200, d=3, seed=6):
    rng = _rng(seed)
    X = rng.uniform(-2.0, 2.0, (n, d))
    return -0.1, 0.2, -1.5, X, np.sin(X.sum(axis=1)) + 0.1 * rng.standard_normal(n)


def nbody_args(N=32, steps=20, seed=7):
    rng = _rng(seed)
    x = rng.uniform(-2.0, 2.0, (N, 2))
    return x, 0.1 * rng.standard_normal((N, 2)), x + 0.1, 0.01, steps


def heat_args(n=1000, steps=100, seed=8):
    rng = _rng(seed)
    return rng.standard_normal(n), 0.2, 0.1 * rng.standard_normal(n), steps


def ode_args(steps=100, seed=9, scale=(0.3, 4.0)):
    rng = _rng(seed)
    t = 0.05 * np.arange(1, steps + 1)
    return scale + (np.cos(2.0 * t) * np.exp(-0.1 * t) + 0.01 * rng.standard_normal(steps), steps)


@dataclass(frozen=True)
class Variant:
    name: str
    func: str
    wrt: tuple
    make_args: object
    small: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)
    jax: bool = True   # False: jax.jit's compilation of the unrolled loop takes minutes (np.roll, concatenate)

    def args(self, small=False):
        return self.make_args(**(self.small if small else self.sizes))


def _arguments(fn, **fixed):
    return lambda **sizes: fn(**{**fixed, **sizes})


VARIANTS = [
    Variant("scalar_while_100", "scalar_while", (0, 1), lambda n=100: (0.4, 0.7, n), {"n": 6}),
    Variant("scalar_tuple_100", "scalar_tuple", (0, 1), lambda n=100: (0.4, 0.9, n), {"n": 6}),
    Variant("rnn_dict_T50_h128", "rnn_dict", (0,), _arguments(rnn_args, dict_weights=True),
            {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("rnn_stack_T50_h128", "rnn_stack", (0, 1, 2), _arguments(rnn_args, every_step=True),
            {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("rnn_residual_T50_h128", "rnn_residual", (0, 1, 2), _arguments(rnn_args, dt=0.1),
            {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("lstm_T20_h64", "lstm", (0, 1, 2), lstm_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("mlp_relu_256x784x256x10", "mlp_relu", (0, 1, 2, 3), mlp_args,
            {"B": 5, "n_in": 6, "n_h": 4, "n_out": 3}),
    Variant("logreg_l2_1e4x100", "logreg_l2", (0,), _arguments(linear_args, signs=True),
            {"n": 9, "d": 4}),
    Variant("huber_1e4x20", "huber", (0,), _arguments(linear_args, d=20, extra=1.0), {"n": 9, "d": 4}),
    Variant("polyfit_horner_deg8", "polyfit", (0,), polyfit_args, {"n": 7}),
    Variant("soft_kmeans_2000x8x16", "soft_kmeans", (0,), kmeans_args, {"n": 7, "k": 3, "d": 2}),
    Variant("gp_nll_n200", "gp_nll", (0, 1, 2), gp_args, {"n": 6}),
    Variant("nbody_verlet_N32_T20", "nbody", (0, 1), nbody_args, {"N": 4, "steps": 3}),
    Variant("heat_roll_n1000_T100", "heat_roll", (0, 1), heat_args, {"n": 8, "steps": 4}, jax=False),
    Variant("heat_slice_n1000_T100", "heat_slice", (0, 1), heat_args, {"n": 8, "steps": 4}, jax=False),
    Variant("oscillator_euler_100", "oscillator", (0, 1), ode_args, {"steps": 6}),
    Variant("lotka_heun_100", "lotka", (0, 1), _arguments(ode_args, scale=(1.1, 0.9)), {"steps": 6}, jax=False),
    Variant("gp_matern_slogdet_n200", "gp_matern_slogdet", (0, 1, 2), v18.gp_args, {"n": 6}),
    Variant("mvn_cho_500x60", "mvn_cho", (0, 1), v18.mvn_args, {"n": 7, "d": 3}),
    Variant("gp_tri_rbf_n300", "gp_tri_rbf", (0, 1, 2), _arguments(v18.gp_args, n=300), {"n": 6}),
    Variant("gru_T25_h48", "gru", (0, 1, 2), v18.gru_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("lstm_split_T20_h64", "lstm_split", (0, 1, 2, 3), v18.lstm_split_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("lstm_peephole_T20_h64", "lstm_peephole", (0, 1, 2, 3), v18.lstm_peephole_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("lstm_stacked_T20_h48", "lstm_stacked", (0, 1, 2), v20g.lstm_stacked_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("ligru_T25_h48", "ligru", (0, 1), v20g.ligru_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("rbf_pairs_400x50x8", "rbf_pairs", (0,), v18c.pairs_args, {"n": 5, "m": 4, "d": 2}),
    Variant("broadcast_matvec_256x64x32", "broadcast_matvec", (0,), v18c.matvec_args, {"B": 4, "n_in": 3, "n_out": 2}),
    Variant("centroid_em_6x1500x12", "centroid_em", (0,), v18c.em_args, {"k": 3, "n": 7, "d": 2}),
    Variant("attention_scores_64x32", "attention_scores", (0, 1), v18c.attention_args, {"n": 4, "d": 3, "d_v": 2}),
    Variant("huber_minimum_1e4x20", "huber_minimum", (0,), v18c.residual_args, {"n": 9, "d": 4}),
    Variant("smooth_l1_mask_5000x30x5", "smooth_l1_mask", (0,), _arguments(v18c.residual_args, n=5000, d=30, m=5,
            extra=(0.5,)), {"n": 9, "d": 4, "m": 2}),
    Variant("pinball_l2_1e4x50", "pinball_l2", (0,), _arguments(v18c.residual_args, d=50, extra=(0.3, 0.01)),
            {"n": 9, "d": 4}),
    Variant("eps_insensitive_2e4x10", "eps_insensitive", (0,), _arguments(v18c.residual_args, n=20_000, d=10,
            extra=(0.5,)), {"n": 9, "d": 4}),
    Variant("hinge_l2_1e4x20", "hinge_l2", (0,), _arguments(v20.residual_args, signs=True, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("huber_clip_1e4x20", "huber_clip", (0,), v20.residual_args, {"n": 9, "d": 4}),
    Variant("huber_sq_hinge_1e4x20", "huber_sq_hinge", (0,), v20.residual_args, {"n": 9, "d": 4}),
    Variant("leaky_layer_2000x30x40", "leaky_layer", (0,), v20.layer_args, {"n": 9, "d": 4, "h": 3}),
    Variant("tukey_mask_1e4x20", "tukey_mask", (0,), _arguments(v20.residual_args, extra=(2.5,)), {"n": 9, "d": 4}),
    Variant("smooth_l1_min_1e4x20", "smooth_l1_min", (0,), v20.residual_args, {"n": 9, "d": 4}),
    Variant("capped_l1_1e4x20", "capped_l1", (0,), _arguments(v20.residual_args, extra=(2.0,)), {"n": 9, "d": 4}),
    Variant("expectile_mask_1e4x20", "expectile_mask", (0,), _arguments(v21.residual_args, extra=(0.8,)),
            {"n": 9, "d": 4}),
    Variant("berhu_mask_1e4x20", "berhu_mask", (0,), _arguments(v21.residual_args, extra=(0.7,)), {"n": 9, "d": 4}),
    Variant("relu_mask_layer_2000x30x40", "relu_mask_layer", (0,), v21.layer_args, {"n": 9, "d": 4, "h": 3}),
    Variant("dead_zone_mask_1e4x20", "dead_zone_mask", (0,), _arguments(v21.residual_args, extra=(0.5,)),
            {"n": 9, "d": 4}),
    Variant("asym_laplace_1e4x50", "asym_laplace", (0,), _arguments(v22.residual_args, extra=(0.7, 1.3)),
            {"n": 9, "d": 4}),
    Variant("prelu_layer_2000x30x40", "prelu_layer", (0,), v22.layer_args, {"n": 9, "d": 4, "h": 3}),
    Variant("sq_check_min_1e4x50", "sq_check_min", (0,), _arguments(v22.residual_args, extra=(0.25,)),
            {"n": 9, "d": 4}),
    Variant("leaky_abs_1e4x50", "leaky_abs", (0,), _arguments(v22.residual_args, extra=(0.2,)), {"n": 9, "d": 4}),
    Variant("sq_hinge_margin_1e4x50", "sq_hinge_margin", (0,), _arguments(v22.signs_args, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("relu2_layer_2000x30x40", "relu2_layer", (0,), lambda **k: v22.layer_args(**k)[:4],
            {"n": 9, "d": 4, "h": 3}),
    Variant("ramp_loss_1e4x50", "ramp_loss", (0,), v22.signs_args, {"n": 9, "d": 4}),
    Variant("logcosh_clip_1e4x30", "logcosh_clip", (0,), v30h.residual_args, {"n": 9, "d": 4}),
    Variant("abs_times_residual_1e4x30", "abs_times_residual", (0,), v30h.residual_args, {"n": 9, "d": 4}),
    Variant("squared_quantile_1e4x30", "squared_quantile", (0,), _arguments(v30h.residual_args, extra=(0.3,)),
            {"n": 9, "d": 4}),
    Variant("masked_square_margin_1e4x30", "masked_square_margin", (0,), v30h.signs_args, {"n": 9, "d": 4}),
    Variant("logistic_growth_100", "logistic_growth", (0, 1), lambda steps=100: (1.3, 0.2, steps), {"steps": 6}),
    # wave 30's held-out spellings (benchmarks/variants30_heldout.py)
    Variant("tukey_where_1e4x30", "tukey_where", (0,), _arguments(v30f.residual_args, extra=(2.5,)), {"n": 9, "d": 4}),
    Variant("quartic_huber_1e4x30", "quartic_huber", (0,), _arguments(v30f.residual_args, extra=(1.5,)),
            {"n": 9, "d": 4}),
    Variant("relu6_layer_2000x30x40", "relu6_layer", (0,), v30f.layer_args, {"n": 9, "d": 4, "h": 3}),
    Variant("smooth_l1_abs_1e4x30", "smooth_l1_abs", (0,), v30f.residual_args, {"n": 9, "d": 4}),
    Variant("cubed_hinge_1e4x30", "cubed_hinge", (0,), _arguments(v30f.residual_args, signs=True, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("capped_sq_1e4x30", "capped_sq", (0,), _arguments(v30f.residual_args, extra=(4.0,)), {"n": 9, "d": 4}),
    Variant("rbf_pairs_len_300x60x8", "rbf_pairs_len", (0,), v30f.pairs_args, {"n": 5, "m": 4, "d": 2}),
    Variant("dead_zone_max_1e4x30", "dead_zone_max", (0,), _arguments(v30f.residual_args, extra=(0.5,)),
            {"n": 9, "d": 4}),
    # wave 31's Cholesky likelihoods, gated cells and attention (benchmarks/variants31_linalg.py)
    Variant("mvn_tri_500x60", "mvn_tri", (0, 1), v31l.mvn_args, {"n": 7, "d": 3}),
    Variant("mvn_cho_solve_500x60", "mvn_cho_solve", (0, 1), v31l.mvn_args, {"n": 7, "d": 3}),
    Variant("mvn_scaled_solve_500x60", "mvn_scaled_solve", (0, 1), v31l.mvn_scaled_args, {"n": 7, "d": 3}),
    Variant("gated_writes_T25_h48", "gated_writes", (0, 1), v31l.gated_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("gru_concat_T25_h48", "gru_concat", (0, 1), v31l.concat_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    # gated cells by per-gate products, held out from wave 32l's speed work (benchmarks/variants32_gates.py)
    Variant("named_gates_T25_h48", "named_gates", (0, 1), v32g.named_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("three_gates_T25_h48", "three_gates", (0, 1), v32g.three_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("biased_gates_T25_h48", "biased_gates", (0, 1), v32g.biased_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("attention_einsum_64x32", "attention_einsum", (0, 1), v31l.attention_args, {"n": 4, "d": 3, "d_v": 2}),
    # einsum contractions written after wave 31's einsum work, measured only (benchmarks/variants31_einsum.py)
    Variant("batched_attention_8x32x16", "batched_attention", (0, 1), v31e.batched_args, {"b": 2, "n": 3, "d": 2}),
    Variant("row_dot_logistic_2000x30", "row_dot_logistic", (0,), v31e.row_dot_args, {"n": 7, "d": 3}),
    Variant("bilinear_einsum_2000x30", "bilinear_einsum", (0,), v31e.bilinear_args, {"n": 7, "d": 3}),
    # wave 31's held-out signs, abs, minimum / maximum and np.where bands (benchmarks/variants31_signs.py)
    Variant("huber_where_abs_1e4x30", "huber_where_abs", (0,), v31s.residual_args, {"n": 9, "d": 4}),
    Variant("l1_sign_ridge_1e4x30", "l1_sign_ridge", (0,), _arguments(v31s.residual_args, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("fair_abs_1e4x30", "fair_abs", (0,), _arguments(v31s.residual_args, extra=(1.3,)), {"n": 9, "d": 4}),
    Variant("winsor_sq_1e4x30", "winsor_sq", (0,), _arguments(v31s.residual_args, extra=(1.5,)), {"n": 9, "d": 4}),
    Variant("huber_minmax_1e4x30", "huber_minmax", (0,), v31s.residual_args, {"n": 9, "d": 4}),
    Variant("eps_band_where_1e4x30", "eps_band_where", (0,), _arguments(v31s.residual_args, extra=(0.5,)),
            {"n": 9, "d": 4}),
    # wave 32's held-out losses, written before its speed work (benchmarks/variants32_losses.py)
    Variant("huber_abs_where_1e4x30", "huber_abs_where", (0,), v32.residual_args, {"n": 9, "d": 4}),
    Variant("huber_split_abs_1e4x30", "huber_split_abs", (0,), _arguments(v32.residual_args, extra=(0.8,)),
            {"n": 9, "d": 4}),
    Variant("smooth_l1_where_1e4x30", "smooth_l1_where", (0,), _arguments(v32.residual_args, extra=(0.6,)),
            {"n": 9, "d": 4}),
    Variant("sq_hinge_where_1e4x30", "sq_hinge_where", (0,), _arguments(v32.residual_args, signs=True, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("clipped_l1_1e4x30", "clipped_l1", (0,), _arguments(v32.residual_args, extra=(1.5,)), {"n": 9, "d": 4}),
    Variant("logcosh_plain_1e4x30", "logcosh_plain", (0,), _arguments(v32.residual_args, extra=()), {"n": 9, "d": 4}),
    Variant("logcosh_stable_1e4x30", "logcosh_stable", (0,), _arguments(v32.residual_args, extra=()),
            {"n": 9, "d": 4}),
    Variant("fair_log_1e4x30", "fair_log", (0,), _arguments(v32.residual_args, extra=(0.9,)), {"n": 9, "d": 4}),
    Variant("tukey_min_1e4x30", "tukey_min", (0,), _arguments(v32.residual_args, extra=(2.0,)), {"n": 9, "d": 4}),
    # and five written after wave 32's rewrites, their sources not read before measuring
    Variant("huber_twice_1e4x30", "huber_twice", (0,), _arguments(v32.residual_args, extra=(0.7,)), {"n": 9, "d": 4}),
    Variant("sq_relu_margin_1e4x30", "sq_relu_margin", (0,), _arguments(v32.residual_args, signs=True, extra=(0.5,)),
            {"n": 9, "d": 4}),
    Variant("clipped_square_1e4x30", "clipped_square", (0,), _arguments(v32.residual_args, extra=(2.5,)),
            {"n": 9, "d": 4}),
    Variant("logcosh_logaddexp_1e4x30", "logcosh_logaddexp", (0,), _arguments(v32.residual_args, extra=()),
            {"n": 9, "d": 4}),
    Variant("berhu_where_1e4x30", "berhu_where", (0,), _arguments(v32.residual_args, extra=(0.8,)), {"n": 9, "d": 4}),
    # wave 32's held-out cells, three-operand einsums and scalar polynomials (benchmarks/variants32_heldout.py)
    Variant("lstm_quarters_T20_h48", "lstm_quarters", (0, 1, 2), v32h.lstm_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("min_gru_split_T25_h48", "min_gru_split", (0,), v32h.min_gru_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("gru_reset_T25_h48", "gru_reset", (0, 1), v32h.gru_reset_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("quad_form_300", "quad_form", (0, 1), v32h.quad_args, {"d": 4}),
    Variant("bilinear_sum_2000x30", "bilinear_sum", (0,), v32h.bilinear_args, {"n": 7, "d": 3}),
    Variant("trilinear_30x40", "trilinear", (0, 1), v32h.trilinear_args, {"d": 3, "k": 2}),
    Variant("cubic2", "cubic2", (0, 1), v32h.scalar_args),
    Variant("horner3", "horner3", (0, 1, 2), v32h.horner_args),
    # gated cells held out from wave 33f's speed work (benchmarks/variants33_gates.py)
    Variant("mgu_cell_T25_h48", "mgu_cell", (0, 1), v33g.mgu_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("peephole_named_T25_h48", "peephole_named", (0, 1, 2), v33g.peephole_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("highway_time_T25_h48", "highway_time", (0, 1, 2, 3), v33g.highway_args, {"T": 3, "B": 2, "n_h": 2}),
    Variant("glu_recurrence_T25_h48", "glu_recurrence", (0, 1, 2), v33g.glu_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("hstack_gru_T25_h48", "hstack_gru", (0, 1), v33g.hstack_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    # gated cells held out from wave 34c's speed work (benchmarks/variants34_gates.py)
    Variant("cifg_lstm_T25_h48", "cifg_lstm", (0, 1, 2), v34g.cifg_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("mgu_bias_T25_h48", "mgu_bias", (0, 1, 2), v34g.mgu_bias_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("gru_reset_after_T25_h48", "gru_reset_after", (0, 1, 2), v34g.reset_after_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("dict_bias_cell_T25_h48", "dict_bias_cell", (0, 1), v34g.dict_bias_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("split_gates_T25_h48", "split_gates", (0, 1), v34g.split_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    # gated cells held out from wave 35d's speed work (benchmarks/variants35_gates.py)
    Variant("lstm_forget_bias_T25_h48", "lstm_forget_bias", (0, 1, 2), v35g.forget_bias_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("indrnn_gated_T25_h48", "indrnn_gated", (0, 1, 2), v35g.indrnn_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("highway_depth_L10_d48", "highway_depth", (0, 1, 2, 3), v35g.highway_args, {"L": 3, "B": 2, "d": 2}),
    Variant("list_gates_T25_h48", "list_gates", (0, 1), v35g.list_gates_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("stacked_gates_T25_h48", "stacked_gates", (0, 1, 2), v35g.stacked_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    # gated cells held out from wave 36d's speed work (benchmarks/variants36_cells.py)
    Variant("split_gru_T25_h48", "split_gru", (0, 1, 2), v36c.split_gru_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("peephole_vectors_T25_h48", "peephole_vectors", (0, 1, 2, 3, 4), v36c.peephole_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("indrnn_relu_T25_h48", "indrnn_relu", (0, 1, 2, 3), v36c.indrnn_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("dict_gates_T25_h48", "dict_gates", (0, 1), v36c.dict_gates_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    Variant("state_array_T25_h48", "state_array", (0, 1, 2, 3), v36c.state_array_args,
            {"T": 3, "B": 2, "n_in": 3, "n_h": 2}),
    # wave 33's held-out piecewise losses, written before its speed work (benchmarks/variants33_piecewise.py)
    Variant("pinball_where_1e4x30", "pinball_where", (0,), _arguments(v33.residual_args, extra=(0.3,)),
            {"n": 9, "d": 4}),
    Variant("eps_linear_max_1e4x30", "eps_linear_max", (0,), _arguments(v33.residual_args, extra=(2.0,)),
            {"n": 9, "d": 4}),
    Variant("huber_bool_mask_1e4x30", "huber_bool_mask", (0,), _arguments(v33.residual_args, extra=(3.0,)),
            {"n": 9, "d": 4}),
    Variant("huber_where_chain_1e4x30", "huber_where_chain", (0,), _arguments(v33.residual_args, extra=(3.0,)),
            {"n": 9, "d": 4}),
    Variant("logcosh_minmax_1e4x30", "logcosh_minmax", (0,), _arguments(v33.residual_args, extra=(4.0,)),
            {"n": 9, "d": 4}),
    Variant("huber_clip_excess_1e4x30", "huber_clip_excess", (0,), _arguments(v33.residual_args, extra=(3.0,)),
            {"n": 9, "d": 4}),
    Variant("smooth_hinge_1e4x30", "smooth_hinge", (0,), _arguments(v33.residual_args, signs=True, extra=(0.01,)),
            {"n": 9, "d": 4}),
    Variant("dead_zone_clip_1e4x30", "dead_zone_clip", (0,), _arguments(v33.residual_args, extra=(2.0,)),
            {"n": 9, "d": 4}),
    # wave 34's held-out piecewise losses, written before its speed work (benchmarks/variants34_piecewise.py)
    Variant("tukey_window_1e4x30", "tukey_window", (0,), _arguments(v34.residual_args, extra=(6.0,)), {"n": 9, "d": 4}),
    Variant("cauchy_capped_1e4x30", "cauchy_capped", (0,), _arguments(v34.residual_args, extra=(25.0,)),
            {"n": 9, "d": 4}),
    Variant("asym_huber_1e4x30", "asym_huber", (0,), _arguments(v34.residual_args, extra=(2.0, 4.0)),
            {"n": 9, "d": 4}),
    Variant("sq_hinge_zero_first_1e4x30", "sq_hinge_zero_first", (0,),
            _arguments(v34.residual_args, signs=True, extra=(0.01,)), {"n": 9, "d": 4}),
    Variant("relu_mlp_2000x20x32", "relu_mlp", (0, 1), v34.mlp_args, {"n": 9, "d": 3, "h": 4}),
    Variant("pinball_bool_1e4x30", "pinball_bool", (0,), _arguments(v34.residual_args, extra=(0.3,)),
            {"n": 9, "d": 4}),
    Variant("capped_l1_where_1e4x30", "capped_l1_where", (0,), _arguments(v34.residual_args, extra=(5.0,)),
            {"n": 9, "d": 4}),
    Variant("hardtanh_mlp_2000x20x32", "hardtanh_mlp", (0, 1), v34.mlp_args, {"n": 9, "d": 3, "h": 4}),
    # wave 35's held-out piecewise losses, written before its speed work (benchmarks/variants35_piecewise.py)
    Variant("eps_two_hinges_1e4x30", "eps_two_hinges", (0,), _arguments(v35.residual_args, extra=(1.5,)),
            {"n": 9, "d": 4}),
    Variant("berhu_hinge_1e4x30", "berhu_hinge", (0,), _arguments(v35.residual_args, extra=(2.0,)), {"n": 9, "d": 4}),
    Variant("quantile_huber_1e4x30", "quantile_huber", (0,), _arguments(v35.residual_args, extra=(0.3, 2.0)),
            {"n": 9, "d": 4}),
    Variant("capped_abs_square_1e4x30", "capped_abs_square", (0,), _arguments(v35.residual_args, extra=(3.0,)),
            {"n": 9, "d": 4}),
    Variant("soft_threshold_sq_1e4x30", "soft_threshold_sq", (0,), _arguments(v35.residual_args, extra=(1.5,)),
            {"n": 9, "d": 4}),
    Variant("interval_sq_hinge_1e4x30", "interval_sq_hinge", (0,), _arguments(v35.residual_args, extra=(1.5,)),
            {"n": 9, "d": 4}),
    # wave 36's held-out piecewise losses, written before its speed work (benchmarks/variants36_piecewise.py)
    Variant("tukey_scaled_where_1e4x30", "tukey_scaled_where", (0,), _arguments(v36.residual_args, extra=(6.0,)),
            {"n": 9, "d": 4}),
    Variant("logcosh_clipped_1e4x30", "logcosh_clipped", (0,), _arguments(v36.residual_args, extra=(4.0,)),
            {"n": 9, "d": 4}),
    Variant("cauchy_mask_1e4x30", "cauchy_mask", (0,), _arguments(v36.residual_args, extra=(3.0, 1.0)),
            {"n": 9, "d": 4}),
    Variant("sq_hinge_labels_1e4x30", "sq_hinge_labels", (0,), _arguments(v36.residual_args, signs=True,
            extra=(0.01,)), {"n": 9, "d": 4}),
    Variant("pinball_two_1e4x30", "pinball_two", (0,), _arguments(v36.residual_args, extra=(0.1, 0.9)),
            {"n": 9, "d": 4}),
    Variant("truncated_l1_1e4x30", "truncated_l1", (0,), _arguments(v36.residual_args, extra=(5.0,)),
            {"n": 9, "d": 4}),
    # full sums beside tanh / sqrt chains, held out from wave 34e's numba work (benchmarks/variants34e_sums.py)
    Variant("logcosh_bias_1e4x100", "logcosh_bias", (0, 1), v34e.sums_args, {"n": 9, "d": 4}),
    Variant("tanh_output_mse_1e4x100", "tanh_output_mse", (0, 1), v34e.sums_args, {"n": 9, "d": 4}),
    Variant("pseudo_huber_bias_1e4x100", "pseudo_huber_bias", (0, 1), _arguments(v34e.sums_args, extra=(1.5,)),
            {"n": 9, "d": 4}),
    Variant("sigmoid_tanh_nll_1e4x100", "sigmoid_tanh_nll", (0, 1), v34e.binary_args, {"n": 9, "d": 4}),
    Variant("margin_logaddexp_1e4x100", "margin_logaddexp", (0, 1), _arguments(v34e.sums_args, signs=True),
            {"n": 9, "d": 4}),
    # wave 36's held-out spellings of the set's nine problems, measured before tuning (benchmarks/variants36_heldout.py)
    Variant("horner_poly", "horner_poly", (0, 1), v36h.scalar_args),
    Variant("powers_fit_deg8", "powers_fit", (0,), v36h.powers_args, {"n": 7}),
    Variant("branchy_recursion_100", "branchy_recursion", (0, 1), v36h.recursion_args, {"n": 7}),
    Variant("rosen_dot_1e3", "rosen_dot", (0,), v36h.rosen_args, {"n": 6}),
    Variant("rosen_dot_1e6", "rosen_dot", (0,), _arguments(v36h.rosen_args, n=1_000_000), {"n": 6}),
    Variant("rosen_pairs_100", "rosen_pairs", (0,), _arguments(v36h.rosen_args, n=100), {"n": 6}),
    Variant("rosen_listcomp_100", "rosen_listcomp", (0,), _arguments(v36h.rosen_args, n=100), {"n": 6}),
    Variant("mse_square_1e4x100", "mse_square", (0, 1), v36h.regression_args, {"n": 9, "d": 4}),
    Variant("mse_norm_1e4x100", "mse_norm", (0,), _arguments(v36h.regression_args, bias=False), {"n": 9, "d": 4}),
    Variant("mse_einsum_1e4x100", "mse_einsum", (0,), _arguments(v36h.regression_args, bias=False),
            {"n": 9, "d": 4}),
    Variant("mse_square_128x1", "mse_square", (0, 1), _arguments(v36h.regression_args, n=128, d=1), {"n": 9, "d": 1}),
    Variant("logistic_log1p_1e4x100", "logistic_log1p", (0, 1), _arguments(v36h.logistic_args, signs=True),
            {"n": 9, "d": 4}),
    Variant("logistic_sigmoid_1e4x100", "logistic_sigmoid", (0, 1), v36h.logistic_args, {"n": 9, "d": 4}),
    Variant("mlp_layers_256x784x128x64x10", "mlp_layers", (0,), v36h.mlp_args, {"B": 5, "sizes": (6, 4, 3, 3)}),
    Variant("rnn_list_T50_h128", "rnn_list", (0, 1, 2), v36h.rnn_args, {"T": 3, "B": 2, "n_in": 3, "n_h": 4}),
    Variant("rk4_dict_100x10", "rk4_dict", (0, 1), v36h.rk4_dict_args, {"n": 4, "steps": 3}),
    Variant("pendulum_class_100", "pendulum_class", (0, 1), v36h.pendulum_args, {"steps": 6}),
    # wave 36k's held-out reads of tuples and lists of numbers and arrays (benchmarks/variants36_items.py)
    Variant("poly_tuple_arg", "poly_tuple_arg", (0,), v36k.poly_args),
    Variant("series_module_list", "series_module_list", (0, 1), v36k.series_args),
    Variant("bumps_zip", "bumps_zip", (0,), v36k.bumps_args),
    Variant("nearest_templates_50x5", "nearest_templates", (0,), v36k.templates_args, {"n": 6, "k": 3}),
    Variant("smooth_listcomp_100", "smooth_listcomp", (0,), v36k.signal_args, {"n": 6}),
    Variant("mean_listcomp_100", "mean_listcomp", (0,), v36k.signal_args, {"n": 6}),
]


def by_names(words):
    if not words:
        return VARIANTS
    chosen = [v for v in VARIANTS if any(w in v.name for w in words.split(","))]
    if not chosen:
        sys.exit(f"no variant matches {words!r}")
    return chosen


# ---- checking ---------------------------------------------------------------------------------


def leaves(value):
    """The arrays of a gradient (a tuple, a dict or one value), in a fixed order."""
    if isinstance(value, dict):
        return [np.asarray(value[k], dtype=float) for k in sorted(value)]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in leaves(v)]
    return [np.asarray(value, dtype=float)]


def single(wrt):
    return wrt[0] if len(wrt) == 1 else wrt


def rel_err(got, want):
    g, w = leaves(got), leaves(want)
    assert [a.shape for a in g] == [a.shape for a in w], ([a.shape for a in g], [a.shape for a in w])
    return max(float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(b))), 1e-300) for a, b in zip(g, w))


def _paths(value):
    """The paths of a tree's leaves (dict keys sorted, list and tuple items in order), as leaves() orders them."""
    if isinstance(value, dict):
        return [(k,) + p for k in sorted(value) for p in _paths(value[k])]
    if isinstance(value, (tuple, list)):
        return [(k,) + p for k, v in enumerate(value) for p in _paths(v)]
    return [()]


def _replaced(tree, path, leaf):
    if not path:
        return leaf
    key, rest = path[0], path[1:]
    if isinstance(tree, dict):
        return {**tree, key: _replaced(tree[key], rest, leaf)}
    items = [_replaced(v, rest, leaf) if k == key else v for k, v in enumerate(tree)]
    return items if isinstance(tree, list) else tuple(items)


def _leaf(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def central_differences(f, args, wrt, eps=1e-6):
    """The hand gradient's check: float64 central differences, leaf by leaf (an argument may be a
    tree of dicts, lists and tuples)."""
    out = []
    for i in wrt:
        base = args[i]
        for path in _paths(base):
            arr = np.array(_leaf(base, path), dtype=float)
            g = np.zeros_like(arr)
            for j in np.ndindex(arr.shape):
                vals = []
                for step in (eps, -eps):
                    moved = arr.copy()
                    moved[j] += step
                    a = list(args)
                    a[i] = _replaced(base, path, moved if arr.ndim else float(moved))
                    vals.append(f(*a))
                g[j] = (vals[0] - vals[1]) / (2 * eps)
            out.append(g)
    return out


def check(variants):
    worst = 0.0
    for v in variants:
        args = v.args(small=True)
        f, hand = getattr(vp, v.func), getattr(vp, v.func + "_grad")
        fd = central_differences(f, args, v.wrt)
        e_hand = rel_err(hand(*args), fd)
        e_src = rel_err(srcdiff.grad(f, wrt=single(v.wrt))(*args), hand(*args))
        big = v.args()
        e_big = rel_err(srcdiff.grad(f, wrt=single(v.wrt))(*big), hand(*big))
        print(f"{v.name:28s} hand~fd {e_hand:.1e}  srcdiff~hand {e_src:.1e}  (benchmark size {e_big:.1e})")
        worst = max(worst, e_hand, e_src, e_big)
    return worst


# ---- timing ---------------------------------------------------------------------------------


def time_call(fn, number):
    start = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - start) / number


def timed(calls, rounds, target):
    numbers = {}
    for name, fn in calls.items():
        fn()
        once = time_call(fn, 1)
        numbers[name] = max(1, int(target / max(once, 1e-7)))
    times = {n: [] for n in calls}
    names = list(calls)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(time_call(calls[name], numbers[name]))
    return times


def ratio(times, a, b):
    if a not in times or b not in times:
        return None
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


def parameter_count(args, wrt):
    return sum(sum(np.size(x) for x in leaves(args[i])) for i in wrt)


def jax_grad(v, jax):
    """The variant's function with jax.numpy in place of NumPy, jax.grad + jax.jit."""
    source = sys.modules[getattr(vp, v.func).__module__].__file__  # (variants_programs.py or its simulations)
    spec = importlib.util.spec_from_file_location("_variants_jax", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    jnp = jax.numpy
    module.np = jnp
    module.math = types.SimpleNamespace(**{n: getattr(jnp, n) for n in ("sin", "cos", "tanh", "exp")})
    args = v.args()
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    df = jax.jit(jax.grad(getattr(module, v.func), argnums=single(v.wrt)), static_argnums=static)
    jargs = tuple(jax.tree_util.tree_map(jnp.asarray, a) if not isinstance(a, (int, float)) else a
                  for a in args)
    return lambda: jax.block_until_ready(df(*jargs))


def measure(v, rounds, target, use_numba, jax):
    args = v.args()
    f, hand = getattr(vp, v.func), getattr(vp, v.func + "_grad")
    want = hand(*args)
    calls, notes = {"hand": lambda: hand(*args)}, []
    g = srcdiff.grad(f, wrt=single(v.wrt))
    calls["grad"] = lambda: g(*args)
    vg = srcdiff.value_and_grad(f, wrt=single(v.wrt))
    calls["vg"] = lambda: vg(*args)
    errors = [rel_err(g(*args), want), rel_err(vg(*args)[1], want)]
    hand_vg = getattr(vp, v.func + "_value_and_grad", None)  # (a hand-written value and gradient, where written)
    if hand_vg is not None:
        calls["hand_vg"] = lambda: hand_vg(*args)
        errors.append(rel_err(hand_vg(*args)[1], want))
        errors.append(abs(vg(*args)[0] - hand_vg(*args)[0]) / max(abs(hand_vg(*args)[0]), 1e-300))
    if parameter_count(args, v.wrt) <= 50:
        try:
            h = srcdiff.hessian(f, wrt=single(v.wrt))
            h(*args)
            calls["hessian"] = lambda: h(*args)
        except srcdiff.SrcDiffError as exc:
            notes.append(f"hessian refused: {str(exc).splitlines()[0][:80]}")
    if use_numba:
        try:
            gn = srcdiff.grad(f, wrt=single(v.wrt), jit="numba")
            errors.append(rel_err(gn(*args), want))
            calls["numba"] = lambda: gn(*args)
        except srcdiff.SrcDiffError as exc:
            notes.append(f"numba refused: {str(exc).splitlines()[0][:80]}")
    if jax is not None and not v.jax:
        notes.append("jax-jit not timed: its compilation takes minutes")
    elif jax is not None:
        try:
            calls["jax"] = jax_grad(v, jax)
            calls["jax"]()
        except Exception as exc:  # noqa: BLE001  the JAX version of a program may not trace
            calls.pop("jax", None)
            notes.append(f"jax: {type(exc).__name__}")
    t = timed(calls, rounds, target)
    return {"grad": ratio(t, "grad", "hand"), "vg": ratio(t, "vg", "hand"), "vg_hand": ratio(t, "vg", "hand_vg"),
            "hessian": ratio(t, "hessian", "grad"), "numba": ratio(t, "numba", "hand"),
            "numba_jax": ratio(t, "numba", "jax"), "jax": ratio(t, "jax", "hand"),
            "hand": statistics.median(t["hand"]), "err": max(errors), "note": "; ".join(notes)}


COLUMNS = ("grad/hand", "value_and_grad/hand", "value_and_grad/hand value_and_grad", "hessian/grad", "numba/hand",
           "numba/jax-jit", "jax-jit/hand")
KEYS = ("grad", "vg", "vg_hand", "hessian", "numba", "numba_jax", "jax")


def fmt(x):
    return "" if x is None else f"{x:.2f}x"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--only")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--peers-path", action="append", default=[])
    opts = parser.parse_args(argv)
    variants = by_names(opts.only)
    if opts.check:
        worst = check(variants)
        print(f"worst relative error {worst:.1e}")
        return 0 if worst < 1e-5 else 1
    sys.path.extend(opts.peers_path)
    jax = None
    if opts.peers_path and not opts.quick:
        import jax
        jax.config.update("jax_enable_x64", True)
    rounds = opts.rounds or (3 if opts.quick else 7)
    target = 0.01 if opts.quick else 0.04
    print("| variant | hand per call | " + " | ".join(COLUMNS) + " | max rel err | note |")
    print("|" + "---|" * (len(COLUMNS) + 4))
    for v in variants:
        r = measure(v, rounds, target, not (opts.quick or opts.no_numba), jax)
        cells = " | ".join(fmt(r[k]) for k in KEYS)
        print(f"| {v.name} | {r['hand'] * 1e6:.0f} µs | {cells} | {r['err']:.0e} | {r['note']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
