"""Held-out programs for benchmarks/variants.py: each written the way a different user would,
none tuned on, each with a careful hand-written NumPy gradient (checked against central
differences by variants.py --check and benchmarks/test_benchmarks.py).

The user functions read NumPy as the module global ``np`` and ``math`` as ``math``, so that
variants.py can load this file again with jax.numpy in their place for the JAX column.
"""

import math

import numpy as np

# ---- a scalar loop with math.* and a while loop --------------------------------------------


def scalar_while(x, a, n):
    s = x
    total = 0.0
    i = 0
    while i < n:
        s = math.tanh(a * s) + 0.5 * math.cos(s)
        total += math.exp(-s * s)
        i += 1
    return total


def scalar_while_grad(x, a, n):
    s, saved = x, []
    for _ in range(n):
        t = math.tanh(a * s)
        saved.append((s, 1.0 - t * t))
        s = t + 0.5 * math.cos(s)
    s_bar = a_bar = 0.0
    for s_prev, dt in reversed(saved):
        s_bar -= 2.0 * s * math.exp(-s * s)
        a_bar += s_bar * dt * s_prev
        s_bar *= dt * a - 0.5 * math.sin(s_prev)
        s = s_prev
    return s_bar, a_bar


# ---- a scalar loop whose step is a helper returning a tuple --------------------------------


def pair_step(u, v, a):
    return a * math.sin(u) + 0.5 * v, 0.5 * math.tanh(u - v)


def scalar_tuple(u0, a, n):
    u, v = u0, 0.0
    total = 0.0
    for _ in range(n):
        u, v = pair_step(u, v, a)
        total = total + u * u
    return total


def scalar_tuple_grad(u0, a, n):
    u, v, saved = u0, 0.0, []
    for _ in range(n):
        saved.append((u, v))
        u, v = a * math.sin(u) + 0.5 * v, 0.5 * math.tanh(u - v)
    u_bar = v_bar = a_bar = 0.0
    for up, vp in reversed(saved):
        u_bar += 2.0 * u
        th = math.tanh(up - vp)
        dth = 0.5 * (1.0 - th * th) * v_bar
        a_bar += u_bar * math.sin(up)
        u_bar, v_bar = u_bar * a * math.cos(up) + dth, 0.5 * u_bar - dth
        u = up
    return u_bar, a_bar


# ---- RNNs written four ways -----------------------------------------------------------------


def rnn_dict(p, xs, h0, target):
    h = h0
    for x in xs:
        h = np.tanh(np.dot(x, p["Wx"]) + np.dot(h, p["Wh"]) + p["b"])
    return 0.5 * np.sum((h - target) ** 2)


def rnn_dict_grad(p, xs, h0, target):
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ p["Wx"] + hs[-1] @ p["Wh"] + p["b"]))
    h_bar = hs[-1] - target
    Wx_bar, Wh_bar, b_bar = np.zeros_like(p["Wx"]), np.zeros_like(p["Wh"]), np.zeros_like(p["b"])
    for t in range(len(xs) - 1, -1, -1):
        a_bar = h_bar * (1.0 - hs[t + 1] ** 2)
        Wx_bar += xs[t].T @ a_bar
        Wh_bar += hs[t].T @ a_bar
        b_bar += a_bar.sum(axis=0)
        h_bar = a_bar @ p["Wh"].T
    return {"Wx": Wx_bar, "Wh": Wh_bar, "b": b_bar}


def rnn_stack(Wx, Wh, b, xs, h0, targets):
    hs = []
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
        hs.append(h)
    H = np.stack(hs)
    return np.mean((H - targets) ** 2)


def rnn_stack_grad(Wx, Wh, b, xs, h0, targets):
    T = xs.shape[0]
    H = np.empty((T,) + h0.shape)
    h = h0
    for t in range(T):
        h = H[t] = np.tanh(xs[t] @ Wx + h @ Wh + b)
    H_bar = (2.0 / H.size) * (H - targets)
    A_bar = np.empty_like(H)
    h_bar = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        A_bar[t] = a_bar = (h_bar + H_bar[t]) * (1.0 - H[t] * H[t])
        h_bar = a_bar @ Wh.T
    prev = np.concatenate([h0[None], H[:-1]])
    n_in, n_h = Wx.shape
    return (xs.reshape(-1, n_in).T @ A_bar.reshape(-1, n_h), prev.reshape(-1, n_h).T @ A_bar.reshape(-1, n_h),
            A_bar.sum(axis=(0, 1)))


def rnn_residual(Wx, Wh, b, xs, h0, target, dt):
    h = h0
    for t in range(xs.shape[0]):
        h = h + dt * np.tanh(h @ Wh + xs[t] @ Wx + b)
    return np.mean((h - target) ** 2)


def rnn_residual_grad(Wx, Wh, b, xs, h0, target, dt):
    hs, acts = [h0], []
    for t in range(xs.shape[0]):
        a = np.tanh(hs[-1] @ Wh + xs[t] @ Wx + b)
        acts.append(a)
        hs.append(hs[-1] + dt * a)
    h_bar = (2.0 / target.size) * (hs[-1] - target)
    Wx_bar, Wh_bar, b_bar = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    for t in range(xs.shape[0] - 1, -1, -1):
        z_bar = dt * h_bar * (1.0 - acts[t] * acts[t])
        Wx_bar += xs[t].T @ z_bar
        Wh_bar += hs[t].T @ z_bar
        b_bar += z_bar.sum(axis=0)
        h_bar = h_bar + z_bar @ Wh.T
    return Wx_bar, Wh_bar, b_bar


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm(W, U, b, xs, target):
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    for t in range(xs.shape[0]):
        z = xs[t] @ W + h @ U + b
        i = sigmoid(z[:, :n])
        f = sigmoid(z[:, n:2 * n])
        o = sigmoid(z[:, 2 * n:3 * n])
        g = np.tanh(z[:, 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum((h - target) ** 2)


def lstm_grad(W, U, b, xs, target):
    n, (T, B, _) = U.shape[0], xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        z = xs[t] @ W + h @ U + b
        gates = 1.0 / (1.0 + np.exp(-z[:, :3 * n]))
        g = np.tanh(z[:, 3 * n:])
        c_prev, h_prev = c, h
        c = gates[:, n:2 * n] * c + gates[:, :n] * g
        tc = np.tanh(c)
        h = gates[:, 2 * n:] * tc
        saved.append((h_prev, c_prev, gates, g, tc))
    h_bar, c_bar = 2.0 * (h - target), np.zeros((B, n))
    W_bar, U_bar, b_bar = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    z_bar = np.empty((B, 4 * n))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, gates, g, tc = saved[t]
        i, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:]
        c_bar = c_bar + h_bar * o * (1.0 - tc * tc)
        z_bar[:, :n] = c_bar * g * i * (1.0 - i)
        z_bar[:, n:2 * n] = c_bar * c_prev * f * (1.0 - f)
        z_bar[:, 2 * n:3 * n] = h_bar * tc * o * (1.0 - o)
        z_bar[:, 3 * n:] = c_bar * i * (1.0 - g * g)
        c_bar = c_bar * f
        W_bar += xs[t].T @ z_bar
        U_bar += h_prev.T @ z_bar
        b_bar += z_bar.sum(axis=0)
        h_bar = z_bar @ U.T
    return W_bar, U_bar, b_bar


# ---- classifiers and regressions -------------------------------------------------------------


def mlp_relu(W1, b1, W2, b2, X, Y):
    h = np.maximum(X @ W1 + b1, 0.0)
    z = h @ W2 + b2
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return np.mean(lse - np.sum(Y * z, axis=1))


def mlp_relu_grad(W1, b1, W2, b2, X, Y):
    a = X @ W1 + b1
    h = np.maximum(a, 0.0)
    z = h @ W2 + b2
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    z_bar = (p - Y) / X.shape[0]
    a_bar = (z_bar @ W2.T) * (a > 0.0)
    return X.T @ a_bar, a_bar.sum(axis=0), h.T @ z_bar, z_bar.sum(axis=0)


def logreg_l2(w, X, y, lam):
    m = y * (X @ w)
    return np.sum(np.log1p(np.exp(-m))) / X.shape[0] + lam * np.dot(w, w)


def logreg_l2_grad(w, X, y, lam):
    m = y * (X @ w)
    return X.T @ (-y / (1.0 + np.exp(m)) / X.shape[0]) + 2.0 * lam * w


def huber(w, X, y, delta):
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def huber_grad(w, X, y, delta):
    r = X @ w - y
    return X.T @ (np.clip(r, -delta, delta) / r.size)


def polyfit(coef, x, y):
    p = np.zeros_like(x)
    for i in range(len(coef)):
        p = p * x + coef[i]
    return np.mean((p - y) ** 2)


def polyfit_grad(coef, x, y):
    V = np.vander(x, len(coef))
    r_bar = (2.0 / x.size) * (V @ coef - y)
    return V.T @ r_bar


def soft_kmeans(C, X, beta):
    D = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    m = np.min(D, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(-beta * (D - m)), axis=1)) - beta * m[:, 0]
    return -np.sum(lse) / beta


def soft_kmeans_grad(C, X, beta):
    D = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    R = np.exp(-beta * (D - D.min(axis=1, keepdims=True)))
    R /= R.sum(axis=1, keepdims=True)
    return 2.0 * (C * R.sum(axis=0)[:, None] - R.T @ X)


def gp_nll(log_ell, log_sf, log_sn, X, y):
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    K = np.exp(2.0 * log_sf) * np.exp(-0.5 * D / np.exp(2.0 * log_ell)) + np.exp(2.0 * log_sn) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def gp_nll_grad(log_ell, log_sf, log_sn, X, y):
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    ell2 = math.exp(2.0 * log_ell)
    Kse = math.exp(2.0 * log_sf) * np.exp(-0.5 * D / ell2)
    n = X.shape[0]
    K = Kse + math.exp(2.0 * log_sn) * np.eye(n)
    Linv = np.linalg.inv(np.linalg.cholesky(K))
    Kinv = Linv.T @ Linv
    alpha = Kinv @ y
    W = Kinv - np.outer(alpha, alpha)            # d nll = 0.5 tr(W dK)
    WK = np.sum(W * Kse)
    return 0.5 * np.sum(W * Kse * D) / ell2, WK, math.exp(2.0 * log_sn) * np.trace(W)


# the simulations and scalar ODE fits live beside (a module of their own, under 400 lines)
from variants_simulations import (  # noqa: E402, F401, I001
    accel, forces, forces_vjp, heat_roll, heat_roll_grad, heat_slice, heat_slice_grad, heun, lotka, lotka_grad,
    lv_rhs, nbody, nbody_grad, oscillator, oscillator_grad)

# wave 18's linear-algebra likelihoods and gated cells (a module of their own)
from variants18_linalg import (  # noqa: E402, F401, I001
    gp_matern_slogdet, gp_matern_slogdet_grad, gp_tri_rbf, gp_tri_rbf_grad, gru, gru_grad, lstm_peephole,
    lstm_peephole_grad, lstm_split, lstm_split_grad, mvn_cho, mvn_cho_grad)
# gated cells held out from issue 26's speed work (benchmarks/variants20_gated.py)
from variants20_gated import ligru, ligru_grad, lstm_stacked, lstm_stacked_grad  # noqa: E402, F401, I001
# broadcast contractions and piecewise losses on a residual (benchmarks/variants18_contract.py)
from variants18_contract import (  # noqa: E402, F401, I001
    attention_scores, attention_scores_grad, broadcast_matvec, broadcast_matvec_grad, centroid_em, centroid_em_grad,
    eps_insensitive, eps_insensitive_grad, huber_minimum, huber_minimum_grad, pinball_l2, pinball_l2_grad,
    rbf_pairs, rbf_pairs_grad, smooth_l1_mask, smooth_l1_mask_grad)
# piecewise losses written after backend/optimize/cases.py, to check it was not tuned on the four above
from variants20_piecewise import (  # noqa: E402, F401, I001
    capped_l1, capped_l1_grad, hinge_l2, hinge_l2_grad, huber_clip, huber_clip_grad, huber_sq_hinge,
    huber_sq_hinge_grad, leaky_layer, leaky_layer_grad, smooth_l1_min, smooth_l1_min_grad, tukey_mask,
    tukey_mask_grad)
# losses and a layer written with 0/1 float masks after backend/optimize/masks.py, held out from it
from variants21_masks import (  # noqa: E402, F401, I001
    berhu_mask, berhu_mask_grad, dead_zone_mask, dead_zone_mask_grad, expectile_mask, expectile_mask_grad,
    relu_mask_layer, relu_mask_layer_grad)
# np.maximum / np.minimum of two values of one array, after backend/optimize/tie_shares.py, held out from it
from variants22_ties import (  # noqa: E402, F401, I001
    asym_laplace, asym_laplace_grad, leaky_abs, leaky_abs_grad, prelu_layer, prelu_layer_grad, ramp_loss,
    ramp_loss_grad, relu2_layer, relu2_layer_grad, sq_check_min, sq_check_min_grad, sq_hinge_margin,
    sq_hinge_margin_grad)
# Hessian costs, held out from ad/batched_scales.py and the numbers-first sweep (benchmarks/variants30_hessians.py)
from variants30_hessians import (  # noqa: E402, F401, I001
    abs_times_residual, abs_times_residual_grad, logcosh_clip, logcosh_clip_grad, logistic_growth,
    logistic_growth_grad, masked_square_margin, masked_square_margin_grad, squared_quantile, squared_quantile_grad)
# other spellings of the losses and layers above, written after wave 30's speed work, held out from it
from variants30_heldout import (  # noqa: E402, F401, I001
    capped_sq, capped_sq_grad, cubed_hinge, cubed_hinge_grad, dead_zone_max, dead_zone_max_grad, quartic_huber,
    quartic_huber_grad, rbf_pairs_len, rbf_pairs_len_grad, relu6_layer, relu6_layer_grad, smooth_l1_abs,
    smooth_l1_abs_grad, tukey_where, tukey_where_grad)
# Cholesky likelihoods, gated cells and attention written before wave 31's speed work (benchmarks/variants31_linalg.py)
from variants31_linalg import (  # noqa: E402, F401, I001
    attention_einsum, attention_einsum_grad, gated_writes, gated_writes_grad, gru_concat, gru_concat_grad,
    mvn_cho_solve, mvn_cho_solve_grad, mvn_scaled_solve, mvn_scaled_solve_grad, mvn_tri, mvn_tri_grad)
# einsum contractions written after wave 31's einsum work (benchmarks/variants31_einsum.py)
from variants31_einsum import (  # noqa: E402, F401, I001
    batched_attention, batched_attention_grad, bilinear_einsum, bilinear_einsum_grad, row_dot_logistic,
    row_dot_logistic_grad)
# np.sign, abs, minimum / maximum and np.where bands in other spellings, held out from wave 31's speed work
from variants31_signs import (  # noqa: E402, F401, I001
    eps_band_where, eps_band_where_grad, fair_abs, fair_abs_grad, huber_minmax, huber_minmax_grad, huber_where_abs,
    huber_where_abs_grad, l1_sign_ridge, l1_sign_ridge_grad, winsor_sq, winsor_sq_grad)
# Huber, smooth L1, hinge, clipped, log-cosh, Fair and Tukey losses, held out from wave 32's speed work
from variants32_losses import (  # noqa: E402, F401, I001
    clipped_l1, clipped_l1_grad, fair_log, fair_log_grad, huber_abs_where, huber_abs_where_grad, huber_split_abs,
    huber_split_abs_grad, logcosh_plain, logcosh_plain_grad, logcosh_stable, logcosh_stable_grad, smooth_l1_where,
    smooth_l1_where_grad, sq_hinge_where, sq_hinge_where_grad, tukey_min, tukey_min_grad, huber_twice, huber_twice_grad,
    sq_relu_margin, sq_relu_margin_grad, clipped_square, clipped_square_grad, logcosh_logaddexp,
    logcosh_logaddexp_grad, berhu_where, berhu_where_grad)
# wave 32's held-out cells by slices, einsums of three operands, scalar polynomials (benchmarks/variants32_heldout.py)
from variants32_heldout import (  # noqa: E402, F401, I001
    bilinear_sum, bilinear_sum_grad, cubic2, cubic2_grad, gru_reset, gru_reset_grad, horner3, horner3_grad,
    lstm_quarters, lstm_quarters_grad, min_gru_split, min_gru_split_grad, quad_form, quad_form_grad, trilinear,
    trilinear_grad)
# gated cells by per-gate products, held out from wave 32l's speed work (benchmarks/variants32_gates.py)
from variants32_gates import (  # noqa: E402, F401, I001
    biased_gates, biased_gates_grad, named_gates, named_gates_grad, three_gates, three_gates_grad)
# gated cells held out from wave 33f's speed work (benchmarks/variants33_gates.py)
from variants33_gates import (  # noqa: E402, F401, I001
    glu_recurrence, glu_recurrence_grad, highway_time, highway_time_grad, hstack_gru, hstack_gru_grad, mgu_cell,
    mgu_cell_grad, peephole_named, peephole_named_grad)
# gated cells held out from wave 34c's speed work (benchmarks/variants34_gates.py)
from variants34_gates import (  # noqa: E402, F401, I001
    cifg_lstm, cifg_lstm_grad, dict_bias_cell, dict_bias_cell_grad, gru_reset_after, gru_reset_after_grad, mgu_bias,
    mgu_bias_grad, split_gates, split_gates_grad)
# gated cells held out from wave 35d's speed work (benchmarks/variants35_gates.py)
from variants35_gates import (  # noqa: E402, F401, I001
    highway_depth, highway_depth_grad, indrnn_gated, indrnn_gated_grad, list_gates, list_gates_grad,
    lstm_forget_bias, lstm_forget_bias_grad, stacked_gates, stacked_gates_grad)
# gated cells held out from wave 36d's speed work (benchmarks/variants36_cells.py)
from variants36_cells import (  # noqa: E402, F401, I001
    dict_gates, dict_gates_grad, indrnn_relu, indrnn_relu_grad, peephole_vectors, peephole_vectors_grad, split_gru,
    split_gru_grad, state_array, state_array_grad)
# piecewise losses held out from wave 33's speed work (benchmarks/variants33_piecewise.py)
from variants33_piecewise import (  # noqa: E402, F401, I001
    dead_zone_clip, dead_zone_clip_grad, eps_linear_max, eps_linear_max_grad, huber_bool_mask, huber_bool_mask_grad,
    huber_clip_excess, huber_clip_excess_grad, huber_where_chain, huber_where_chain_grad, logcosh_minmax,
    logcosh_minmax_grad, pinball_where, pinball_where_grad, smooth_hinge, smooth_hinge_grad)
# piecewise losses held out from wave 34's speed work (benchmarks/variants34_piecewise.py)
from variants34_piecewise import (  # noqa: E402, F401, I001
    asym_huber, asym_huber_grad, capped_l1_where, capped_l1_where_grad, cauchy_capped, cauchy_capped_grad,
    hardtanh_mlp, hardtanh_mlp_grad, pinball_bool, pinball_bool_grad, relu_mlp, relu_mlp_grad, sq_hinge_zero_first,
    sq_hinge_zero_first_grad, tukey_window, tukey_window_grad)
# full sums beside tanh / sqrt chains held out from wave 34e's numba work (benchmarks/variants34e_sums.py)
from variants34e_sums import (  # noqa: E402, F401, I001
    logcosh_bias, logcosh_bias_grad, margin_logaddexp, margin_logaddexp_grad, pseudo_huber_bias,
    pseudo_huber_bias_grad, sigmoid_tanh_nll, sigmoid_tanh_nll_grad, tanh_output_mse, tanh_output_mse_grad)
# piecewise losses held out from wave 35's speed work (benchmarks/variants35_piecewise.py)
from variants35_piecewise import (  # noqa: E402, F401, I001
    berhu_hinge, berhu_hinge_grad, capped_abs_square, capped_abs_square_grad, eps_two_hinges, eps_two_hinges_grad,
    interval_sq_hinge, interval_sq_hinge_grad, quantile_huber, quantile_huber_grad, soft_threshold_sq,
    soft_threshold_sq_grad)
# piecewise losses held out from wave 36's speed work (benchmarks/variants36_piecewise.py)
from variants36_piecewise import (  # noqa: E402, F401, I001
    cauchy_mask, cauchy_mask_grad, cauchy_mask_value_and_grad, logcosh_clipped, logcosh_clipped_grad,
    logcosh_clipped_value_and_grad, pinball_two, pinball_two_grad, pinball_two_value_and_grad, sq_hinge_labels,
    sq_hinge_labels_grad, sq_hinge_labels_value_and_grad, truncated_l1, truncated_l1_grad,
    truncated_l1_value_and_grad, tukey_scaled_where, tukey_scaled_where_grad, tukey_scaled_where_value_and_grad)
# hand-written values and gradients of piecewise rows tuned on by wave 36c (value_and_grad against them)
from variants33_piecewise import huber_bool_mask_value_and_grad, smooth_hinge_value_and_grad  # noqa: E402, F401, I001
from variants35_piecewise import (  # noqa: E402, F401, I001
    eps_two_hinges_value_and_grad, interval_sq_hinge_value_and_grad, quantile_huber_value_and_grad)
# wave 36's held-out spellings of the set's nine problems (benchmarks/variants36_heldout.py)
from variants36_heldout import (  # noqa: E402, F401, I001
    branchy_recursion, branchy_recursion_grad, horner_poly, horner_poly_grad, logistic_log1p, logistic_log1p_grad,
    logistic_sigmoid, logistic_sigmoid_grad, mlp_layers, mlp_layers_grad, mse_einsum, mse_einsum_grad, mse_norm,
    mse_norm_grad, mse_square, mse_square_grad, pendulum_class, pendulum_class_grad, powers_fit, powers_fit_grad,
    rk4_dict, rk4_dict_grad, rnn_list, rnn_list_grad, rosen_dot, rosen_dot_grad, rosen_listcomp, rosen_listcomp_grad,
    rosen_pairs, rosen_pairs_grad)
# wave 36k's held-out reads of tuples and lists (benchmarks/variants36_items.py)
from variants36_items import (  # noqa: E402, F401, I001
    bumps_zip, bumps_zip_grad, mean_listcomp, mean_listcomp_grad, nearest_templates, nearest_templates_grad,
    poly_tuple_arg, poly_tuple_arg_grad, series_module_list, series_module_list_grad, smooth_listcomp,
    smooth_listcomp_grad)
