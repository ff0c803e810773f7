"""The red team's twenty-fifth wave: programs ported from other AD libraries' examples and tests
(autograd's examples: Gaussian processes, mixture models, black-box SVI, neural nets, RNNs and
LSTMs, logistic regression, fluid simulation, ODE nets, Bayesian optimisation, natural gradient,
Rosenbrock, tanh, the sinusoid's Taylor series; tangent's test functions; lax_autodiff-style
primitives; functorch's per-example gradients and MAML), rewritten as plain NumPy functions.
test_redteam_wave25.py runs them through every transformation against float64 central
differences."""

import numpy as np
import scipy.linalg
from scipy import special, stats


def M(r, *shape):
    return r.normal(size=shape)


# ---- autograd examples --------------------------------------------------------------------------


def rbf_covariance(params, xa, xb):
    output_scale = np.exp(params[0])
    lengthscales = np.exp(params[1:])
    diffs = np.expand_dims(xa / lengthscales, 1) - np.expand_dims(xb / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs**2, axis=2))


def gp_log_marginal_likelihood(params, x, y):
    """A GP's log marginal likelihood: mean, log noise, then the kernel's parameters."""
    mean, noise_scale = params[0], np.exp(params[1]) + 0.0001
    cov_params = params[2:]
    cov_y_y = rbf_covariance(cov_params, x, x) + noise_scale * np.eye(len(y))
    r = y - mean
    sign, logdet = np.linalg.slogdet(cov_y_y)
    return -0.5 * r @ np.linalg.solve(cov_y_y, r) - 0.5 * logdet - 0.5 * len(y) * np.log(2 * np.pi)


def gp_cholesky_likelihood(params, x, y):
    """The same written with a Cholesky factor, as users who know it write it."""
    amp, ell, noise = np.exp(params)
    d = x[:, None] - x[None, :]
    K = amp * np.exp(-0.5 * d**2 / ell**2) + (noise + 1e-6) * np.eye(x.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return -0.5 * y @ alpha - np.sum(np.log(np.diag(L)))


def logsumexp_rows(a):
    m = np.max(a, axis=1, keepdims=True)
    return m[:, 0] + np.log(np.sum(np.exp(a - m), axis=1))


def gmm_log_likelihood(params, data):
    """A Gaussian mixture's log likelihood, parameters in a dict (log weights, means, log scales)."""
    log_w = params["log_proportions"] - special.logsumexp(params["log_proportions"])
    cluster_lls = []
    for lw, mean, log_s in zip(log_w, params["means"], params["log_scales"]):
        z = (data - mean) / np.exp(log_s)
        ll = -0.5 * np.sum(z**2, axis=1) - np.sum(log_s) - 0.5 * data.shape[1] * np.log(2 * np.pi)
        cluster_lls.append(lw + ll)
    return np.sum(logsumexp_rows(np.array(cluster_lls).T))


def gmm_args(r):
    params = {"log_proportions": M(r, 3), "means": M(r, 3, 2), "log_scales": 0.3 * M(r, 3, 2)}
    return params, M(r, 12, 2)


def diag_gaussian_entropy(log_std):
    D = log_std.shape[0]
    return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)


def banana_log_density(z):
    mu, log_sigma = z[:, 0], z[:, 1]
    sigma_density = stats.norm.logpdf(log_sigma, 0, 1.35)
    mu_density = stats.norm.logpdf(mu, 0, np.exp(log_sigma))
    return sigma_density + mu_density


def black_box_elbo(params, noise):
    """Black-box SVI's ELBO with its noise fixed (reparameterised samples of a diagonal Gaussian)."""
    D = noise.shape[1]
    mean, log_std = params[:D], params[D:]
    samples = noise * np.exp(log_std) + mean
    return diag_gaussian_entropy(log_std) + np.mean(banana_log_density(samples))


def init_layers(r, sizes):
    return [(0.3 * M(r, m, n), 0.1 * M(r, n)) for m, n in zip(sizes[:-1], sizes[1:])]


def neural_net_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - special.logsumexp(outputs, axis=1, keepdims=True)


def neural_net_log_posterior(params, inputs, targets, L2_reg=0.1):
    log_prior = -L2_reg * sum(np.sum(W**2) + np.sum(b**2) for W, b in params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def net_args(r):
    targets = np.eye(3)[r.integers(0, 3, size=8)]
    return init_layers(r, [4, 5, 3]), M(r, 8, 4), targets


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1.0)


def rnn_log_likelihood(params, inputs, targets):
    """An RNN over a sequence: hidden state updated from the concatenated input and state."""
    hiddens = np.ones((inputs.shape[1], 1)) * params["init_hiddens"]
    loglik = 0.0
    for t in range(inputs.shape[0]):
        cat = np.concatenate((inputs[t], hiddens), axis=1)
        hiddens = np.tanh(cat @ params["change"][:-1] + params["change"][-1])
        out = hiddens @ params["predict"][:-1] + params["predict"][-1]
        logprobs = out - special.logsumexp(out, axis=1, keepdims=True)
        loglik = loglik + np.sum(logprobs * targets[t])
    return loglik / (inputs.shape[0] * inputs.shape[1])


def rnn_repeat_state(params, inputs, targets):
    """autograd's RNN as written there: the initial state np.repeat-ed by the batch size read from
    an argument (refused at the line until wave 26: a count read when the function runs)."""
    hiddens = np.repeat(params["init_hiddens"], inputs.shape[1], axis=0)
    for t in range(inputs.shape[0]):
        hiddens = np.tanh(np.concatenate((inputs[t], hiddens), axis=1) @ params["change"][:-1])
    return np.sum(hiddens)


def rnn_args(r):
    T, B, D, H = 4, 2, 3, 4
    params = {"init_hiddens": 0.1 * M(r, 1, H), "change": 0.3 * M(r, D + H + 1, H), "predict": 0.3 * M(r, H + 1, D)}
    targets = np.eye(D)[r.integers(0, D, size=(T, B))]
    return params, M(r, T, B, D), targets


def lstm_log_likelihood(params, inputs):
    """An LSTM's gates from one stacked matrix, cell and hidden state threaded through the loop."""
    H = params["init"].shape[1]
    hiddens = np.ones((inputs.shape[1], 1)) * params["init"]
    cells = np.ones((inputs.shape[1], 1)) * params["init_cells"]
    loglik = 0.0
    for t in range(inputs.shape[0] - 1):
        cat = np.concatenate((inputs[t], hiddens, np.ones((inputs.shape[1], 1))), axis=1)
        gates = cat @ params["gates"]
        change = np.tanh(gates[:, :H])
        forget = sigmoid(gates[:, H : 2 * H])
        ingate = sigmoid(gates[:, 2 * H : 3 * H])
        outgate = sigmoid(gates[:, 3 * H :])
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        out = hiddens @ params["predict"]
        loglik = loglik + np.sum((out - special.logsumexp(out, axis=1, keepdims=True)) * inputs[t + 1])
    return loglik


def lstm_args(r):
    D, H, B, T = 3, 2, 2, 4
    params = {
        "init": 0.1 * M(r, 1, H),
        "init_cells": 0.1 * M(r, 1, H),
        "gates": 0.3 * M(r, D + H + 1, 4 * H),
        "predict": 0.3 * M(r, H, D),
    }
    return params, np.eye(D)[r.integers(0, D, size=(T, B))]


def logistic_training_loss(weights, inputs, targets):
    """autograd's README example: the label probabilities' negative log."""
    preds = sigmoid(np.dot(inputs, weights))
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities))


def logistic_args(r):
    return M(r, 3), M(r, 6, 3), (r.random(6) > 0.5).astype(float)


def tanh_by_hand(x):
    y = np.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def tanh_sum(x):
    return np.sum(tanh_by_hand(x))


def sin_taylor(x):
    """The sinusoid example: Taylor series summed until the term is small (a while on the value)."""
    ans = currterm = x
    i = 0
    while np.abs(currterm) > 0.001:
        currterm = -currterm * x**2 / ((2 * i + 3) * (2 * i + 2))
        ans = ans + currterm
        i += 1
    return ans


def sin_taylor_fixed(x):
    """The same summed for a fixed number of terms (vector argument)."""
    ans = currterm = x
    for i in range(8):
        currterm = -currterm * x**2 / ((2 * i + 3) * (2 * i + 2))
        ans = ans + currterm
    return np.sum(ans)


def rosenbrock(x):
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2


def rosenbrock_nd(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def project(vx, vy):
    """fluidsim's projection: divergence and pressure by Jacobi steps on a periodic grid."""
    h = 1.0 / vx.shape[0]
    div = (
        -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0) + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
    )
    p = np.zeros(vx.shape)
    for _ in range(4):
        p = (
            div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0) + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)
        ) / 4.0
    vx = vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy = vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """fluidsim's semi-Lagrangian advection: bilinear interpolation at floored positions."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix = np.mod(left_ix, rows)
    right_ix = np.mod(left_ix + 1, rows)
    top_ix = np.mod(top_ix, cols)
    bot_ix = np.mod(top_ix + 1, cols)
    flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) + rw * (
        (1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix]
    )
    return np.reshape(flat_f, (rows, cols))


def fluid_simulate(vx, vy, smoke):
    """Two steps of fluidsim: project, advect the velocity and the smoke; the smoke's squared error."""
    for _ in range(2):
        vx, vy = project(vx, vy)
        vx_new = advect(vx, vx, vy)
        vy = advect(vy, vx, vy)
        vx = vx_new
        smoke = advect(smoke, vx, vy)
    return np.sum((smoke - 0.5) ** 2)


def fluid_args(r):
    return 0.4 * M(r, 5, 5), 0.4 * M(r, 5, 5), r.random((5, 5))


def ode_mlp(params, y):
    h = np.tanh(y @ params[0] + params[1])
    return h @ params[2] + params[3]


def ode_net_loss(params, y0, target):
    """ode_net: an MLP's dynamics integrated by RK4 steps, the end point's squared error."""
    y = y0
    dt = 0.1
    for _ in range(5):
        k1 = ode_mlp(params, y)
        k2 = ode_mlp(params, y + 0.5 * dt * k1)
        k3 = ode_mlp(params, y + 0.5 * dt * k2)
        k4 = ode_mlp(params, y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum((y - target) ** 2)


def ode_args(r):
    params = (0.5 * M(r, 2, 4), 0.1 * M(r, 4), 0.5 * M(r, 4, 2), 0.1 * M(r, 2))
    return params, M(r, 3, 2), M(r, 3, 2)


def expected_improvement(x, X, y, ell):
    """Bayesian optimisation's acquisition: a GP posterior's mean and std, then EI by norm's cdf/pdf."""
    k = np.exp(-0.5 * (x[:, None] - X[None, :]) ** 2 / ell**2)
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / ell**2) + 1e-3 * np.eye(X.shape[0])
    Kinv_y = np.linalg.solve(K, y)
    mean = k @ Kinv_y
    var = 1.0 - np.sum(k * np.linalg.solve(K, k.T).T, axis=1)
    std = np.sqrt(np.maximum(var, 1e-9))
    best = np.min(y)
    z = (best - mean) / std
    return np.sum(std * (z * stats.norm.cdf(z) + stats.norm.pdf(z)))


def bayesopt_args(r):
    return np.array([0.35, -0.8, 1.7]), np.linspace(-2.0, 2.0, 5), M(r, 5), 0.9


def natural_gradient_objective(params, inputs, targets):
    """natural_gradient's logistic model: loss plus a Fisher-weighted step length."""
    p = sigmoid(inputs @ params)
    loss = -np.sum(targets * np.log(p) + (1 - targets) * np.log(1 - p))
    fisher = (inputs * (p * (1 - p))[:, None]).T @ inputs + 0.1 * np.eye(params.shape[0])
    g = inputs.T @ (p - targets)
    return loss - 0.05 * g @ np.linalg.solve(fisher, g)


def convnet_loss(params, images, labels):
    """A small convnet: valid 3x3 convolution by a loop over offsets, 2x2 max pool by reshape, softmax."""
    filters, W = params
    n, h, w = images.shape
    conv = np.zeros((n, filters.shape[0], h - 2, w - 2))
    for i in range(3):
        for j in range(3):
            conv = conv + filters[None, :, i, j, None, None] * images[:, None, i : i + h - 2, j : j + w - 2]
    act = np.maximum(conv, 0.0)
    pooled = act.reshape(n, filters.shape[0], (h - 2) // 2, 2, (w - 2) // 2, 2).max(axis=(3, 5))
    logits = pooled.reshape(n, -1) @ W
    return -np.sum(labels * (logits - special.logsumexp(logits, axis=1, keepdims=True)))


def convnet_args(r):
    images = M(r, 2, 6, 6)
    return (0.5 * M(r, 2, 3, 3), 0.3 * M(r, 8, 3)), images, np.eye(3)[[0, 2]]


def vae_elbo(params, data, eps):
    """A VAE's ELBO: an encoder's mean and log std, a reparameterised sample, a Bernoulli decoder."""
    enc_W, enc_b, dec_W, dec_b = params
    h = data @ enc_W + enc_b
    L = h.shape[1] // 2
    mean, log_std = h[:, :L], h[:, L:]
    z = mean + np.exp(log_std) * eps
    logits = z @ dec_W + dec_b
    log_lik = np.sum(data * logits - np.logaddexp(0.0, logits), axis=1)
    kl = 0.5 * np.sum(np.exp(2 * log_std) + mean**2 - 1.0 - 2 * log_std, axis=1)
    return np.mean(log_lik - kl)


def vae_args(r):
    params = [0.3 * M(r, 5, 4), 0.1 * M(r, 4), 0.3 * M(r, 2, 5), 0.1 * M(r, 5)]
    return params, (r.random((3, 5)) > 0.5).astype(float), M(r, 3, 2)


def negbin_log_likelihood(params, data):
    """negative_binomial_maxlike: the log pmf by gammaln, r and p from unconstrained parameters."""
    r = np.exp(params[0])
    p = 1.0 / (1.0 + np.exp(-params[1]))
    return np.sum(
        special.gammaln(r + data)
        - special.gammaln(data + 1.0)
        - special.gammaln(r)
        + r * np.log(1 - p)
        + data * np.log(p)
    )


def hmm_log_partition(log_pi, log_A, log_obs):
    """hmm_em: the forward algorithm in log space (its gradient is the expected counts)."""
    alpha = log_pi + log_obs[0]
    for t in range(1, log_obs.shape[0]):
        alpha = special.logsumexp(alpha[:, None] + log_A, axis=0) + log_obs[t]
    return special.logsumexp(alpha)


def hmm_args(r):
    return M(r, 3), M(r, 3, 3), M(r, 5, 3)


def ica_log_likelihood(W, X):
    """ICA with a logistic source density: log |det W| + sum of log densities."""
    S = X @ W.T
    _, logdet = np.linalg.slogdet(W)
    return X.shape[0] * logdet + np.sum(-S - 2 * np.log1p(np.exp(-S)))


def gan_losses(gen_params, dsc_params, noise, real):
    """GAN: the generator's loss through the discriminator's logistic output."""
    fake = np.tanh(noise @ gen_params[0] + gen_params[1])

    def disc(x):
        return x @ dsc_params[0] + dsc_params[1]

    log_p_real = -np.logaddexp(0.0, -disc(real))
    log_p_fake = -np.logaddexp(0.0, disc(fake))
    return np.mean(log_p_real) + np.mean(log_p_fake) - np.mean(-np.logaddexp(0.0, -disc(fake)))


def gan_args(r):
    return (0.5 * M(r, 2, 3), 0.1 * M(r, 3)), (0.5 * M(r, 3), 0.1), M(r, 4, 2), M(r, 4, 3)


# ---- tangent's test functions ---------------------------------------------------------------------


def multiarg_if(a):
    if a * a / 3.0 > 0:
        b = 3.0
    else:
        b = 4.0
    a = a * b
    if a < b - a * b:
        a = a * a
    elif a > b + 3.0 * a:
        if a / 2.0 < 0:
            a = a / b
        else:
            a = a * b
    else:
        a = -a
    return a


def serial_for(a, n):
    for _ in range(n):
        a = a * a
    a = 2.0 * a
    for _ in range(n + 1):
        a = a * 3.0
    return a


def cond_iterpower(a):
    for _ in range(3):
        if a < 20:
            a = a * a
    return a


def subscript_written(x):
    y = x**2.0
    x[0] = y[1] * y[2]
    return np.sum(x * y)


def rnn_rows_written(inputs, W):
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = np.dot(inputs[t], W) + h[t]
    return np.sum(np.tanh(h[1:]))


def augassign_square(a):
    x = a * a
    x *= x
    return np.sum(x)


def while_big(a):
    while np.abs(a) > 0.1:
        a = a * 0.5
    return a


def passthru_pack(a, b, c, i):
    x = a, b, c
    return x[i] * a


def nested_dict(p):
    return np.sum(p["i"]["j"] * p["i"]["k"])


def extended_slice(x):
    return np.sum(x[::2, np.newaxis] ** 2)


def chain_of_mults(a):
    b = a
    b = a * a
    c = b * b
    d = c * c
    return d


def iterpower_nested_def(a, n):
    def _fn(a, n):
        return a * n

    for _ in range(n):
        a = _fn(a, a)
    return a


def listcomp_sum(a):
    return np.sum([i * 3 for i in a]) + np.sum([i * i for i in a])


# ---- lax_autodiff-style primitives -----------------------------------------------------------------


def cumprod_of(x):
    return np.sum(np.cumprod(x) * np.arange(1, x.size + 1))


def cummax_of(x):
    return np.sum(np.maximum.accumulate(x) * np.arange(1.0, x.size + 1))


def sort_weighted(x):
    return np.sum(np.sort(x) * np.arange(x.size))


def top_k_sum(x):
    return np.sum(np.sort(x)[-3:] ** 2)


def clamp_pow(x):
    return np.sum(np.clip(x, -0.5, 0.8) ** 3)


def integer_powers(x):
    return np.sum(x**0) + np.sum(x**1) + np.sum(x**2 * x**3)


def rem_and_round(x):
    return np.sum(np.fmod(x, 0.7) * x + np.round(x) * x**2)


def atan2_polar(x):
    return np.sum(np.arctan2(x[1:], x[:-1]) + np.hypot(x[1:], x[:-1]))


def scatter_add(x, idx):
    out = np.zeros(4)
    np.add.at(out, idx, x**2)
    return np.sum(out * np.arange(1.0, 5.0))


def dynamic_update_slice(x, y):
    z = x.copy()
    z[1:3] = y * x[1:3]
    return np.sum(z**2)


def reduce_window_max(x):
    windows = np.stack([x[:-2], x[1:-1], x[2:]])
    return np.sum(np.max(windows, axis=0))


def expm1_log1p(x):
    return np.sum(np.log1p(np.expm1(x) ** 2))


def erfinv_of(x):
    return np.sum(special.erfinv(np.tanh(x) * 0.9))


def select_n(x):
    return np.sum(np.select([x < -0.5, x < 0.5], [x**2, np.sin(x)], default=np.exp(-x)))


# ---- functorch examples -----------------------------------------------------------------------------


def per_example_loss(w, x, t):
    """functorch's per-sample gradient: one example's squared error of a tiny model."""
    h = np.tanh(x @ w[:6].reshape(3, 2))
    return (h @ w[6:] - t) ** 2


def maml_loss(w, xs, ys, xq, yq):
    """MAML: an inner gradient step by hand (the model's gradient written out), the query loss."""
    inner = w
    for _ in range(2):
        pred = np.sin(xs * inner[0]) * inner[1]
        r = pred - ys
        gw0 = np.mean(2 * r * np.cos(xs * inner[0]) * xs * inner[1])
        gw1 = np.mean(2 * r * np.sin(xs * inner[0]))
        inner = inner - 0.1 * np.array([gw0, gw1])
    return np.mean((np.sin(xq * inner[0]) * inner[1] - yq) ** 2)


def maml_args(r):
    return np.array([1.1, 0.7]), M(r, 5), M(r, 5), M(r, 4), M(r, 4)


def ensemble_predictions(params, x):
    """Model ensembling: a stack of models' weights, each applied, the predictions averaged."""
    preds = [np.tanh(x @ params[k]) for k in range(params.shape[0])]
    return np.sum(np.mean(np.stack(preds), axis=0) ** 2)


# ---- special points --------------------------------------------------------------------------------


def rosenbrock_at_minimum(x):
    return rosenbrock(x)


def relu_net_zero_input(w, x):
    return np.sum(np.maximum(x @ w, 0.0) ** 2 + x @ w)


def power_zero_exponent(x, p):
    return np.sum(x**p * np.exp(x))


def where_untaken_log(x):
    return np.sum(np.where(x > -10.0, x**2, np.log(x)))


def softplus_stable(x):
    return np.sum(np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0)))))


PROGRAMS = [
    ("rnn_repeat_state", rnn_repeat_state, rnn_args, 0),
    (
        "gp_log_marginal_likelihood",
        gp_log_marginal_likelihood,
        lambda r: (np.array([0.2, -1.0, 0.3, -0.2, 0.1]), M(r, 6, 2), M(r, 6)),
        0,
    ),
    ("gp_cholesky_likelihood", gp_cholesky_likelihood, lambda r: (np.array([0.1, -0.3, -1.0]), M(r, 6), M(r, 6)), 0),
    ("gmm_log_likelihood", gmm_log_likelihood, gmm_args, 0),
    ("black_box_elbo", black_box_elbo, lambda r: (np.array([0.3, -0.5, -0.2, 0.1]), M(r, 7, 2)), 0),
    ("neural_net_log_posterior", neural_net_log_posterior, net_args, 0),
    ("rnn_log_likelihood", rnn_log_likelihood, rnn_args, 0),
    ("lstm_log_likelihood", lstm_log_likelihood, lstm_args, 0),
    ("logistic_training_loss", logistic_training_loss, logistic_args, 0),
    ("tanh_sum", tanh_sum, lambda r: (M(r, 5),), 0),
    ("sin_taylor", sin_taylor, lambda r: (1.3,), 0),
    ("sin_taylor_fixed", sin_taylor_fixed, lambda r: (M(r, 4),), 0),
    ("rosenbrock", rosenbrock, lambda r: (np.array([-1.2, 1.0]),), 0),
    ("rosenbrock_nd", rosenbrock_nd, lambda r: (M(r, 5),), 0),
    ("fluid_simulate", fluid_simulate, fluid_args, 2),
    ("fluid_simulate_vx", fluid_simulate, fluid_args, 0),
    ("ode_net_loss", ode_net_loss, ode_args, 0),
    ("expected_improvement", expected_improvement, bayesopt_args, 0),
    (
        "natural_gradient_objective",
        natural_gradient_objective,
        lambda r: (0.3 * M(r, 3), M(r, 8, 3), (r.random(8) > 0.5).astype(float)),
        0,
    ),
    ("convnet_loss", convnet_loss, convnet_args, 0),
    ("vae_elbo", vae_elbo, vae_args, 0),
    (
        "negbin_log_likelihood",
        negbin_log_likelihood,
        lambda r: (np.array([0.7, -0.3]), np.array([0.0, 3.0, 1.0, 7.0])),
        0,
    ),
    ("hmm_log_partition", hmm_log_partition, hmm_args, 1),
    ("hmm_log_partition_obs", hmm_log_partition, hmm_args, 2),
    ("ica_log_likelihood", ica_log_likelihood, lambda r: (np.eye(3) + 0.3 * M(r, 3, 3), M(r, 10, 3)), 0),
    ("gan_losses", gan_losses, gan_args, 0),
    ("gan_losses_dsc", gan_losses, gan_args, 1),
    ("multiarg_if", multiarg_if, lambda r: (1.3,), 0),
    ("multiarg_if_negative", multiarg_if, lambda r: (-0.4,), 0),
    ("serial_for", serial_for, lambda r: (0.9, 2), 0),
    ("cond_iterpower", cond_iterpower, lambda r: (1.7,), 0),
    ("rnn_rows_written", rnn_rows_written, lambda r: (M(r, 3, 2), M(r, 2, 3)), 1),
    ("rnn_rows_written_inputs", rnn_rows_written, lambda r: (M(r, 3, 2), M(r, 2, 3)), 0),
    ("augassign_square", augassign_square, lambda r: (M(r, 3),), 0),
    ("while_big", while_big, lambda r: (1.7,), 0),
    ("passthru_pack", passthru_pack, lambda r: (0.5, 1.5, -0.7, 1), 0),
    ("nested_dict", nested_dict, lambda r: ({"i": {"j": M(r, 3), "k": M(r, 3)}},), 0),
    ("extended_slice", extended_slice, lambda r: (M(r, 5),), 0),
    ("chain_of_mults", chain_of_mults, lambda r: (0.9,), 0),
    ("iterpower_nested_def", iterpower_nested_def, lambda r: (1.1, 2), 0),
    ("listcomp_sum", listcomp_sum, lambda r: (M(r, 4),), 0),
    ("cumprod_of", cumprod_of, lambda r: (M(r, 5),), 0),
    ("cummax_of", cummax_of, lambda r: (M(r, 5),), 0),
    ("sort_weighted", sort_weighted, lambda r: (M(r, 5),), 0),
    ("top_k_sum", top_k_sum, lambda r: (M(r, 6),), 0),
    ("clamp_pow", clamp_pow, lambda r: (M(r, 6),), 0),
    ("integer_powers", integer_powers, lambda r: (M(r, 4),), 0),
    ("rem_and_round", rem_and_round, lambda r: (np.array([0.3, 1.2, -0.9, 2.2]),), 0),
    ("atan2_polar", atan2_polar, lambda r: (M(r, 5),), 0),
    ("scatter_add", scatter_add, lambda r: (M(r, 5), np.array([0, 2, 2, 3, 0])), 0),
    ("dynamic_update_slice", dynamic_update_slice, lambda r: (M(r, 5), M(r, 2)), 0),
    ("reduce_window_max", reduce_window_max, lambda r: (M(r, 7),), 0),
    ("expm1_log1p", expm1_log1p, lambda r: (M(r, 4),), 0),
    ("erfinv_of", erfinv_of, lambda r: (M(r, 4),), 0),
    ("select_n", select_n, lambda r: (np.array([-1.2, -0.1, 0.3, 0.9]),), 0),
    ("per_example_loss", per_example_loss, lambda r: (M(r, 8), M(r, 3), 0.4), 0),
    ("maml_loss", maml_loss, maml_args, 0),
    ("ensemble_predictions", ensemble_predictions, lambda r: (M(r, 3, 4, 2), M(r, 5, 4)), 0),
    ("rosenbrock_at_minimum", rosenbrock_at_minimum, lambda r: (np.array([1.0, 1.0]),), 0),
    ("relu_net_zero_input", relu_net_zero_input, lambda r: (M(r, 3, 2), np.zeros((4, 3))), 0),
    ("power_zero_exponent", power_zero_exponent, lambda r: (np.array([0.0, 0.5, 2.0]), 0.0), 0),
    ("power_zero_exponent_p", power_zero_exponent, lambda r: (np.array([0.3, 0.5, 2.0]), 0.0), 1),
    ("where_untaken_log", where_untaken_log, lambda r: (M(r, 4),), 0),
    ("softplus_stable", softplus_stable, lambda r: (np.array([-3.0, 0.0, 25.0, 1.0]),), 0),
]


# ==== the libraries' own tests of NumPy and SciPy functions, ported ====================================


def spd(r, n):
    A = M(r, n, n)
    return A @ A.T + n * np.eye(n)


# ---- linear algebra (jax linalg_test / autograd test_linalg) ------------------------------------------
def det_of(A):
    return np.linalg.det(A)


def inv_trace(A):
    return np.trace(np.linalg.inv(A) @ A.T)


def eigh_top(A):
    w = np.linalg.eigvalsh(A + A.T)
    return w[-1] + 0.5 * w[0]


def eigh_vectors(A):
    w, V = np.linalg.eigh(A + A.T)
    return np.sum(V[:, -1] ** 2 * np.arange(1.0, A.shape[0] + 1)) + w[-1]


def nuclear_norm(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


def pinv_of(A):
    return np.sum(np.linalg.pinv(A) ** 2)


def qr_diag(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q[:, 0] * np.arange(A.shape[0]))


def matrix_power_of(A):
    return np.sum(np.linalg.matrix_power(A, 3))


def expm_of(A):
    return np.sum(scipy.linalg.expm(0.3 * A))


def lstsq_residual(A, b):
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    return np.sum((A @ x - b) ** 2) + np.sum(x**2)


def slogdet_negative(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet


def mvn_logpdf(x, mean, cov):
    return np.sum(stats.multivariate_normal.logpdf(x, mean, cov))


def solve_triangular_of(A, b):
    L = np.tril(A) + 3.0 * np.eye(A.shape[0])
    return np.sum(scipy.linalg.solve_triangular(L, b, lower=True) ** 2)


# ---- NumPy reshaping and indexing (autograd test_numpy, jax lax_numpy_test) -----------------------------
def reshape_fortran(x):
    return np.sum(x.reshape(2, 3, order="F") * np.arange(6.0).reshape(2, 3))


def ravel_fortran(x):
    return np.sum(np.ravel(x, order="F") * np.arange(6.0))


def flatten_fortran(x):
    return np.sum(x.flatten("F") * np.arange(6.0))


def kron_of(x, y):
    return np.sum(np.kron(x, y) * np.arange(1.0, x.size * y.size + 1).reshape(np.kron(x, y).shape))


def cross_of(x, y):
    return np.sum(np.cross(x, y) ** 2)


def trace_offset(A):
    return np.trace(A, offset=1) + np.sum(np.diagonal(A, offset=-1) ** 2)


def tensordot_pairs(A, B):
    return np.sum(np.tensordot(A, B, axes=([0, 2], [1, 0])) ** 2)


def einsum_ellipsis(A, B):
    return np.sum(np.einsum("...ij,...jk->...ik", A, B) ** 2)


def rot90_flip(A):
    return np.sum(np.rot90(A) * np.arange(A.size).reshape(A.shape[::-1])) + np.sum(np.flip(A, 0)[0] ** 3)


def cumsum_reversed(x):
    return np.sum(np.cumsum(x[::-1], axis=0)[::-1] ** 2)


def diff_twice(x):
    return np.sum(np.diff(x, n=2) ** 2)


def interp_of(x):
    xp = np.array([-2.0, -0.5, 0.5, 2.0])
    fp = np.array([1.0, -1.0, 2.0, 0.5])
    return np.sum(np.interp(x, xp, fp) * x)


def polyval_of(c, x):
    return np.sum(np.polyval(c, x) ** 2)


def convolve_modes(x, k):
    return np.sum(np.convolve(x, k, mode="full") ** 2) + np.sum(np.convolve(x, k, mode="valid"))


def correlate_of(x, k):
    return np.sum(np.correlate(x, k, mode="same") * np.arange(x.size))


def pad_reflect_edge(x):
    return np.sum(np.pad(x, 2, mode="reflect") * np.arange(x.size + 4)) + np.sum(np.pad(x, (1, 2), mode="edge") ** 2)


def take_along_sorted(x, w):
    order = np.argsort(w, axis=1)
    return np.sum(np.take_along_axis(x, order, axis=1) * np.arange(x.shape[1]))


def average_weighted(x, w):
    return np.average(x**2, weights=w) + np.average(x, axis=0, weights=np.arange(1.0, x.shape[0] + 1)).sum()


def var_ddof(x):
    return np.var(x, ddof=1) + np.std(x, axis=0, ddof=1).sum()


def repeated_fancy(x):
    return np.sum(x[[0, 0, 1, 3, 3, 3]] ** 2)


def boolean_mask(x):
    return np.sum(x[x > 0] ** 2) + np.sum(x[np.array([True, False, True, False, True])])


def ellipsis_newaxis(A):
    return np.sum(A[..., 1] * A[:, None, 0].sum())


def add_into_duplicates(x):
    z = np.zeros(4)
    z[np.array([0, 2, 0])] += x
    return np.sum(z * np.arange(1.0, 5.0))


def set_into_duplicates(x):
    z = np.ones(4)
    z[[1, 3, 1]] = x**2
    return np.sum(z * np.arange(1.0, 5.0))


def add_into_duplicates_unread(x):
    # (the array written is never read again: the write's check of repeated positions had gone
    # with it, and the gradient was silently [1, 1, 1])
    z = np.zeros(4)
    z[np.array([0, 2, 0])] += x
    return np.sum(z)


def set_into_duplicates_unread(x):
    z = np.zeros(4)
    z[np.array([1, 1])] = x[:2] * 3.0
    return np.sum(z * 2.0)


def negative_step_slices(x):
    return np.sum(x[::-2] * x[-3::-1][:5]) + np.sum(x[-2:] ** 3)


def take_axis(A):
    return np.sum(np.take(A, [2, 0, 2], axis=1) ** 2)


def broadcast_binary(a, b):
    return np.sum((a - b) ** 2 / (1.0 + a * b))


def matmul_3d(A, B):
    return np.sum(np.matmul(A, B) ** 2) + np.sum(np.inner(A[0], B[0].T)) + np.vdot(A[0], A[1])


def outer_dot1d(x, y):
    return np.sum(np.outer(x, y) @ y) + np.dot(x, np.outer(x, y) @ y)


def array_of_expressions(x):
    v = np.array([x[0] * x[1], np.sin(x[2]), x[0] ** 2])
    return np.sum(v * v[::-1])


def transpose_axes(A):
    return np.sum(np.transpose(A, (2, 0, 1)) * np.arange(A.size).reshape(A.shape[2], A.shape[0], A.shape[1]))


def swap_squeeze(A):
    return np.sum(np.squeeze(np.swapaxes(A[None], 1, 2)) * np.arange(A.size).reshape(A.shape[::-1]))


# ---- scipy (autograd test_scipy) -------------------------------------------------------------------------
def dirichlet_logpdf(a, x):
    return stats.dirichlet.logpdf(x, np.exp(a))


def t_logpdf(x, df):
    return np.sum(stats.t.logpdf(x, df, loc=0.3, scale=1.7))


def poisson_gamma(lam, k):
    return np.sum(stats.poisson.logpmf(k, np.exp(lam))) + np.sum(stats.gamma.logpdf(np.exp(lam), 2.0))


def beta_logpdf(x):
    return np.sum(stats.beta.logpdf(special.expit(x), 2.0, 3.0))


def logsumexp_weights(x, b):
    return special.logsumexp(x, b=b) + special.logsumexp(x.reshape(2, 3), axis=1).sum()


def special_mix(x):
    return np.sum(special.digamma(np.exp(x)) + special.polygamma(1, np.exp(x)) + special.betaln(np.exp(x), 2.0))


def erf_family(x):
    return np.sum(special.erf(x) * special.erfc(0.5 * x) + special.log_ndtr(x) + special.ndtri(special.expit(x)))


def logit_expit(x):
    return np.sum(special.logit(special.expit(x) * 0.8 + 0.1) ** 2)


def xlogy_entr(x):
    p = special.softmax(x)
    return np.sum(special.xlogy(p, p)) + np.sum(special.entr(p)) + np.sum(special.xlog1py(p, p))


def bessel_i(x):
    return np.sum(special.i0(x) + special.i1e(x) + special.iv(1.5, np.abs(x) + 0.1))


# ---- elementwise, special points -----------------------------------------------------------------------
def sinc_at_zero(x):
    return np.sum(np.sinc(x) * x)


def logaddexp2_of(x, y):
    return np.sum(np.logaddexp2(x, y))


def float_power_of(x):
    return np.sum(np.float_power(np.abs(x) + 0.5, 2.5))


def copysign_heaviside(x):
    return np.sum(np.copysign(x**2, x - 0.1) + np.heaviside(x, 0.5) * x)


def norm_orders(x):
    return (
        np.linalg.norm(x, ord=1)
        + np.linalg.norm(x, ord=3)
        + np.linalg.norm(x.reshape(2, 3), axis=1).sum()
        + np.linalg.norm(x.reshape(2, 3), "fro")
    )


def prod_of(x):
    return np.prod(x) + np.prod(x.reshape(2, 3), axis=0).sum()


LIBRARY_TESTS = [
    ("det_of", det_of, lambda r: (M(r, 3, 3),), 0),
    ("inv_trace", inv_trace, lambda r: (M(r, 3, 3) + 3 * np.eye(3),), 0),
    ("eigh_top", eigh_top, lambda r: (M(r, 3, 3),), 0),
    ("eigh_vectors", eigh_vectors, lambda r: (M(r, 3, 3),), 0),
    ("nuclear_norm", nuclear_norm, lambda r: (M(r, 3, 4),), 0),
    ("pinv_of", pinv_of, lambda r: (M(r, 4, 3),), 0),
    ("qr_diag", qr_diag, lambda r: (M(r, 4, 3),), 0),
    ("matrix_power_of", matrix_power_of, lambda r: (M(r, 3, 3),), 0),
    ("expm_of", expm_of, lambda r: (M(r, 3, 3),), 0),
    ("lstsq_residual", lstsq_residual, lambda r: (M(r, 5, 3), M(r, 5)), 0),
    ("slogdet_negative", slogdet_negative, lambda r: (np.diag([-1.0, 2.0, 3.0]) + 0.1 * M(r, 3, 3),), 0),
    ("mvn_logpdf", mvn_logpdf, lambda r: (M(r, 4, 2), M(r, 2), spd(r, 2)), 1),
    ("solve_triangular_of", solve_triangular_of, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("reshape_fortran", reshape_fortran, lambda r: (M(r, 6),), 0),
    ("ravel_fortran", ravel_fortran, lambda r: (M(r, 2, 3),), 0),
    ("flatten_fortran", flatten_fortran, lambda r: (M(r, 3, 2),), 0),
    ("kron_of", kron_of, lambda r: (M(r, 2, 2), M(r, 2, 3)), 0),
    ("kron_of_y", kron_of, lambda r: (M(r, 2, 2), M(r, 2, 3)), 1),
    ("cross_of", cross_of, lambda r: (M(r, 4, 3), M(r, 4, 3)), 0),
    ("trace_offset", trace_offset, lambda r: (M(r, 3, 4),), 0),
    ("tensordot_pairs", tensordot_pairs, lambda r: (M(r, 2, 3, 4), M(r, 4, 2, 3)), 0),
    ("einsum_ellipsis", einsum_ellipsis, lambda r: (M(r, 2, 3, 2), M(r, 2, 2, 3)), 1),
    ("rot90_flip", rot90_flip, lambda r: (M(r, 2, 3),), 0),
    ("cumsum_reversed", cumsum_reversed, lambda r: (M(r, 5, 2),), 0),
    ("diff_twice", diff_twice, lambda r: (M(r, 6),), 0),
    ("interp_of", interp_of, lambda r: (np.array([-1.0, 0.1, 1.3, 3.0]),), 0),
    ("polyval_of", polyval_of, lambda r: (M(r, 3), M(r, 4)), 0),
    ("polyval_of_x", polyval_of, lambda r: (M(r, 3), M(r, 4)), 1),
    ("convolve_modes", convolve_modes, lambda r: (M(r, 6), M(r, 3)), 1),
    ("correlate_of", correlate_of, lambda r: (M(r, 6), M(r, 3)), 0),
    ("pad_reflect_edge", pad_reflect_edge, lambda r: (M(r, 5),), 0),
    ("take_along_sorted", take_along_sorted, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("average_weighted", average_weighted, lambda r: (M(r, 3, 2), r.random((3, 2))), 0),
    ("average_weighted_w", average_weighted, lambda r: (M(r, 3, 2), r.random((3, 2))), 1),
    ("var_ddof", var_ddof, lambda r: (M(r, 4, 2),), 0),
    ("repeated_fancy", repeated_fancy, lambda r: (M(r, 5),), 0),
    ("boolean_mask", boolean_mask, lambda r: (M(r, 5),), 0),
    ("ellipsis_newaxis", ellipsis_newaxis, lambda r: (M(r, 3, 2),), 0),
    ("negative_step_slices", negative_step_slices, lambda r: (M(r, 9),), 0),
    ("take_axis", take_axis, lambda r: (M(r, 2, 3),), 0),
    ("broadcast_binary", broadcast_binary, lambda r: (r.random((3, 1)), r.random((1, 4))), 1),
    ("matmul_3d", matmul_3d, lambda r: (M(r, 2, 3, 3), M(r, 2, 3, 3)), 0),
    ("outer_dot1d", outer_dot1d, lambda r: (M(r, 3), M(r, 3)), 0),
    ("array_of_expressions", array_of_expressions, lambda r: (M(r, 3),), 0),
    ("transpose_axes", transpose_axes, lambda r: (M(r, 2, 3, 4),), 0),
    ("swap_squeeze", swap_squeeze, lambda r: (M(r, 2, 3),), 0),
    ("dirichlet_logpdf", dirichlet_logpdf, lambda r: (M(r, 3), np.array([0.2, 0.5, 0.3])), 0),
    ("t_logpdf", t_logpdf, lambda r: (M(r, 4), 3.5), 0),
    ("t_logpdf_df", t_logpdf, lambda r: (M(r, 4), 3.5), 1),
    ("poisson_gamma", poisson_gamma, lambda r: (M(r, 3), np.array([0, 2, 5])), 0),
    ("beta_logpdf", beta_logpdf, lambda r: (M(r, 3),), 0),
    ("logsumexp_weights", logsumexp_weights, lambda r: (M(r, 6), r.random(6)), 0),
    ("logsumexp_weights_b", logsumexp_weights, lambda r: (M(r, 6), r.random(6)), 1),
    ("special_mix", special_mix, lambda r: (M(r, 3),), 0),
    ("erf_family", erf_family, lambda r: (M(r, 4),), 0),
    ("logit_expit", logit_expit, lambda r: (M(r, 4),), 0),
    ("xlogy_entr", xlogy_entr, lambda r: (M(r, 4),), 0),
    ("bessel_i", bessel_i, lambda r: (M(r, 4),), 0),
    ("sinc_at_zero", sinc_at_zero, lambda r: (np.array([0.0, 0.5, -1.3]),), 0),
    ("logaddexp2_of", logaddexp2_of, lambda r: (M(r, 4), M(r, 4)), 0),
    ("float_power_of", float_power_of, lambda r: (M(r, 4),), 0),
    ("copysign_heaviside", copysign_heaviside, lambda r: (np.array([0.5, -0.7, 1.3]),), 0),
    ("norm_orders", norm_orders, lambda r: (M(r, 6),), 0),
    ("prod_of", prod_of, lambda r: (M(r, 6),), 0),
    ("prod_of_zero", prod_of, lambda r: (np.array([0.0, 1.5, -2.0, 0.7, 0.0, 1.1]),), 0),
    ("prod_of_one_zero", prod_of, lambda r: (np.array([0.0, 1.5, -2.0, 0.7, 0.3, 1.1]),), 0),
]


def average_literal_weights(x):
    return np.sum(np.average(x, axis=1, weights=np.array([1.0, 2.0, 3.0])))


def average_listcomp_weights(x):
    w = np.asarray([k + 1.0 for k in range(x.shape[0])])
    return np.sum(np.average(x, axis=0, weights=w) ** 2)


def take_along_broadcast(x):
    order = np.argsort(x[:, 0])
    return np.sum(np.take_along_axis(x, order[:, None], axis=0) * np.arange(1.0, x.shape[0] + 1)[:, None])


def take_along_broadcast_rows(x, w):
    top = np.argmax(w, axis=1)
    return np.sum(np.take_along_axis(x, top[None, :], axis=0) ** 2)


LIBRARY_TESTS += [
    ("average_literal_weights", average_literal_weights, lambda r: (M(r, 4, 3),), 0),
    ("average_listcomp_weights", average_listcomp_weights, lambda r: (M(r, 4, 3),), 0),
    ("take_along_broadcast", take_along_broadcast, lambda r: (M(r, 4, 3),), 0),
    ("take_along_broadcast_rows", take_along_broadcast_rows, lambda r: (M(r, 3, 4), M(r, 4, 3)), 0),
]

# ==== autograd's test_numpy / test_graphs and JAX's control-flow tests, ported ==========================


def index_slice_fanout(A):
    B = A[1:3]
    return np.sum(B * B[::-1] + B)


def multi_index(A):
    return np.sum(A[[0, 0, 2], [1, 2, 1]] ** 2) + np.sum(A[np.array([1, 2]), :][:, [0, 2]])


def index_dot_slices(A):
    return np.dot(A[:2, 1], A[1:3, 0]) + A[0][1] * A[-1][-1]


def reshape_varargs(A):
    return np.sum(A.reshape(2, 6) @ np.arange(6.0)) + np.sum(np.reshape(A, [3, -1]) ** 2)


def append_and_concatenate(x, y):
    a = np.append(x, y * 2.0)
    b = np.concatenate([x[:, None], y[:, None]], axis=1)
    c = np.hstack([x, y])
    d = np.vstack([x, y])
    e = np.column_stack([x, y])
    return np.sum(a**2) + np.sum(b * d.T) + np.sum(c[::2]) + np.sum(e[:, 0] * e[:, 1])


def split_parts(A):
    top, bottom = np.vsplit(A, 2)
    left, mid, right = np.hsplit(A, [1, 3])
    parts = np.array_split(A.ravel(), 5)
    return np.sum(top * bottom) + np.sum(left) * np.sum(right**2) + np.sum(mid) + sum(np.sum(p**2) for p in parts)


def diag_tri(A):
    return (
        np.sum(np.diag(np.diag(A)))
        + np.sum(np.triu(A, 1) ** 2)
        + np.sum(np.tril(A, -1) * 3.0)
        + np.sum(np.diagflat(A[0]))
    )


def tril_3d(T):
    return np.sum(np.tril(T) ** 2) + np.sum(np.triu(T, -1))


def rollaxis_moveaxis(T):
    return np.sum(np.rollaxis(T, 2) * np.arange(T.size).reshape(4, 2, 3)) + np.sum(np.moveaxis(T, 0, -1)[..., 0] ** 2)


def atleast(x):
    return np.sum(np.atleast_2d(x) @ np.atleast_2d(x).T) + np.sum(np.atleast_3d(x) ** 3) + np.sum(np.atleast_1d(x[0]))


def einsum_sublist(A, B):
    return np.sum(np.einsum(A, [0, 1], B, [1, 2]) ** 2) + np.einsum(A, [0, 1], A, [0, 1])


def einsum_three(A, B, C):
    return np.einsum("ij,jk,ki->", A, B, C) + np.sum(np.einsum("ij,jk->ik", A, B) * C.T)


def einsum_ellipsis_tail(T, v):
    return np.sum(np.einsum("i...,i->...", T, v) ** 2)


def repeat_axes(A):
    return (
        np.sum(np.repeat(A, 2, axis=1) * np.arange(A.shape[0] * A.shape[1] * 2).reshape(A.shape[0], -1))
        + np.sum(np.repeat(A[0], 3) ** 2)
        + np.sum(np.repeat(A, [1, 2, 3], axis=0)[:, 0])
    )


def tensordot_positional(A, B):
    return np.sum(np.tensordot(A, B, 1) ** 2) + np.sum(np.tensordot(A, A, ((0, 1), (0, 1))))


def max_axis_keepdims(A):
    return np.sum(np.max(A, axis=1, keepdims=True) * A) + np.sum(np.min(A, axis=0) ** 2) + np.ptp(A)


def nan_to_num_of(x):
    return np.sum(np.nan_to_num(np.log(x)) * x)


def linspace_ends(b):
    return np.sum(np.linspace(b[0], b[1], 5) ** 2) + np.sum(np.logspace(0.0, b[1], 4))


def gradient_of(y):
    return np.sum(np.gradient(y) ** 2) + np.sum(np.gradient(y, 0.5)[1:-1])


def astype_float(x):
    return np.sum(x.astype(np.float64) ** 2 + np.float64(x[0]) * x)


def builtin_sum_list(x):
    terms = [x[0] * x[1], np.sin(x[2]), x[3] ** 2]
    return sum(terms) + sum(t * t for t in terms)


def closure_over_argument(x):
    def inner(y):
        return x * y + y**2

    return np.sum(inner(x) * inner(2.0 * x))


def fanout_mutated(x):
    y = x * 1.0
    z = y + y
    y = y * z
    return np.sum(y + z * x)


def abs_at_zero(x):
    return np.sum(np.abs(x) * x + np.abs(x) ** 2)


def power_arg_negative(x):
    return np.sum(np.power(x, 2.0) + x**3.0 + np.power(x, 4))


def mul_by_zero(x):
    return np.sum(0.0 * x + x * 0.0 * np.exp(x)) + np.sum(x**2)


def scan_carry(xs, c0):
    """lax.scan as a loop: a carry and stacked outputs."""
    c = c0
    ys = []
    for x in xs:
        c = 0.9 * c + np.tanh(x * c + 1.0)
        ys.append(c * x)
    return np.sum(np.stack(ys) ** 2) + c


def fori_dynamic(x, n):
    """lax.fori_loop with the trip count an argument."""
    for i in range(n):
        x = x + 0.1 * np.sin(x * (i + 1))
    return np.sum(x**2)


def while_doubling(x):
    """lax.while_loop: doubled until large (piecewise, differentiable between switches)."""
    while x < 10.0:
        x = x * 2.0
    return x * x


def cond_closure(x, y):
    """lax.cond with closures over another argument."""

    def true_fun(z):
        return np.sin(z) * y

    def false_fun(z):
        return np.cos(z) + y

    return true_fun(x) if x > 0 else false_fun(x)


def select_where(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), x**2)) + np.sum(
        np.select([x > 0.5, x < -0.5], [x, -x], 0.5 * x * x)
    )


def logsumexp_stable(x):
    """autograd's define_gradient example: logsumexp written by hand."""
    max_x = np.max(x)
    return max_x + np.log(np.sum(np.exp(x - max_x)))


def softmax_cross_entropy(logits, labels):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))


def kernel_lsq_steps(w, X, y):
    """jax's kernel_lsq example: a few gradient steps of kernel least squares written inside f."""
    K = np.exp(-0.5 * np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2))
    for _ in range(3):
        r = K @ w - y
        w = w - 0.05 * (K.T @ r + 0.1 * w)
    return np.sum((K @ w - y) ** 2)


def ntk_entry(params, x1, x2):
    """functorch's neural tangent kernel: the dot product of two Jacobian rows of a tiny net, by hand."""
    W, v = params[:3], params[3:]
    h1, h2 = np.tanh(W * x1), np.tanh(W * x2)
    j1 = np.concatenate([v * (1 - h1**2) * x1, h1])
    j2 = np.concatenate([v * (1 - h2**2) * x2, h2])
    return np.dot(j1, j2)


CONTROL_AND_ARRAYS = [
    ("index_slice_fanout", index_slice_fanout, lambda r: (M(r, 4, 3),), 0),
    ("multi_index", multi_index, lambda r: (M(r, 3, 3),), 0),
    ("index_dot_slices", index_dot_slices, lambda r: (M(r, 3, 3),), 0),
    ("reshape_varargs", reshape_varargs, lambda r: (M(r, 3, 4),), 0),
    ("append_and_concatenate", append_and_concatenate, lambda r: (M(r, 4), M(r, 4)), 0),
    ("append_and_concatenate_y", append_and_concatenate, lambda r: (M(r, 4), M(r, 4)), 1),
    ("split_parts", split_parts, lambda r: (M(r, 4, 5),), 0),
    ("diag_tri", diag_tri, lambda r: (M(r, 4, 4),), 0),
    ("tril_3d", tril_3d, lambda r: (M(r, 2, 3, 3),), 0),
    ("rollaxis_moveaxis", rollaxis_moveaxis, lambda r: (M(r, 2, 3, 4),), 0),
    ("atleast", atleast, lambda r: (M(r, 3),), 0),
    ("einsum_sublist", einsum_sublist, lambda r: (M(r, 2, 3), M(r, 3, 4)), 0),
    ("einsum_three", einsum_three, lambda r: (M(r, 2, 3), M(r, 3, 4), M(r, 4, 2)), 1),
    ("einsum_ellipsis_tail", einsum_ellipsis_tail, lambda r: (M(r, 3, 2, 2), M(r, 3)), 0),
    ("repeat_axes", repeat_axes, lambda r: (M(r, 3, 2),), 0),
    ("tensordot_positional", tensordot_positional, lambda r: (M(r, 2, 3), M(r, 3, 4)), 0),
    ("max_axis_keepdims", max_axis_keepdims, lambda r: (M(r, 3, 4),), 0),
    ("nan_to_num_of", nan_to_num_of, lambda r: (np.array([0.5, 1.5, 2.5]),), 0),
    ("linspace_ends", linspace_ends, lambda r: (np.array([-0.3, 1.2]),), 0),
    ("gradient_of", gradient_of, lambda r: (M(r, 6),), 0),
    ("astype_float", astype_float, lambda r: (M(r, 3),), 0),
    ("builtin_sum_list", builtin_sum_list, lambda r: (M(r, 4),), 0),
    ("closure_over_argument", closure_over_argument, lambda r: (M(r, 3),), 0),
    ("fanout_mutated", fanout_mutated, lambda r: (M(r, 3),), 0),
    ("abs_at_zero", abs_at_zero, lambda r: (np.array([0.0, 0.5, -1.5]),), 0),
    ("power_arg_negative", power_arg_negative, lambda r: (np.array([-1.3, -0.2, 0.7]),), 0),
    ("mul_by_zero", mul_by_zero, lambda r: (M(r, 3),), 0),
    ("scan_carry", scan_carry, lambda r: (M(r, 5), 0.3), 0),
    ("scan_carry_c0", scan_carry, lambda r: (M(r, 5), 0.3), 1),
    ("fori_dynamic", fori_dynamic, lambda r: (M(r, 3), 4), 0),
    ("while_doubling", while_doubling, lambda r: (1.3,), 0),
    ("cond_closure", cond_closure, lambda r: (0.7, 1.5), 0),
    ("cond_closure_y", cond_closure, lambda r: (-0.7, 1.5), 1),
    ("select_where", select_where, lambda r: (np.array([0.3, -0.7, 1.2, -0.1]),), 0),
    ("logsumexp_stable", logsumexp_stable, lambda r: (M(r, 5),), 0),
    ("softmax_cross_entropy", softmax_cross_entropy, lambda r: (M(r, 4, 3), np.eye(3)[[0, 2, 1, 1]]), 0),
    ("kernel_lsq_steps", kernel_lsq_steps, lambda r: (M(r, 5), M(r, 5, 2), M(r, 5)), 0),
    ("ntk_entry", ntk_entry, lambda r: (M(r, 6), 0.7, -1.2), 0),
]


#: refused at the user's line in every first-order transformation (what to do is in the message): an
#: np.repeat count read from an argument's shape, a write into an argument (tangent's test writes x[0]),
#: a covariance the multivariate normal's rule gives no gradient, a write through an index that repeats a
#: position (NumPy keeps one of the values: jax's scatter tests ported to NumPy's `z[idx] += v`)
REFUSED = [
    ("subscript_written", subscript_written, lambda r: (M(r, 4),), 0),
    ("mvn_logpdf_cov", mvn_logpdf, lambda r: (M(r, 4, 2), M(r, 2), spd(r, 2)), 2),
    ("add_into_duplicates", add_into_duplicates, lambda r: (M(r, 3),), 0),
    ("set_into_duplicates", set_into_duplicates, lambda r: (M(r, 3),), 0),
    ("add_into_duplicates_unread", add_into_duplicates_unread, lambda r: (M(r, 3),), 0),
    ("set_into_duplicates_unread", set_into_duplicates_unread, lambda r: (M(r, 3),), 0),
]
