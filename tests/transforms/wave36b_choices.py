"""Wave 36b: econometrics, games and rankings, written as economists and analysts write them
(GARCH(1,1) by a Python loop over returns, ARMA(1,1) conditional likelihood, probit by math.erf in a
comprehension, ordered logit, gravity model of trade in logs; softmax policies, regret matching over
repeated play, logit quantal response by fixed-point iteration, replicator dynamics, Cournot
best responses; Bradley-Terry by a dict of matches, Elo updates in a loop, Plackett-Luce by a
cumulative logsumexp written by hand, Glicko's g factor, Rasch / 2PL item response)
(test_wave36b.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

RETURNS = np.array([0.01, -0.02, 0.015, -0.03, 0.025, 0.002, -0.012, 0.018, -0.022, 0.009, 0.004, -0.016])
Y_BIN = np.array([1, 0, 1, 1, 0, 0, 1, 0])
X_PROBIT = np.array([[1.0, 0.5], [1.0, -1.2], [1.0, 0.8], [1.0, 1.5], [1.0, -0.3], [1.0, -0.9], [1.0, 0.2],
                     [1.0, -1.6]])


def garch_likelihood(params, r=RETURNS):
    omega, alpha, beta = params[0] ** 2, 1 / (1 + math.exp(-params[1])), 1 / (1 + math.exp(-params[2]))
    sigma2 = float(np.var(r))
    nll = 0.0
    for t in range(1, len(r)):
        sigma2 = omega + alpha * r[t - 1] ** 2 + beta * sigma2
        nll += 0.5 * (math.log(2 * math.pi * sigma2) + r[t] ** 2 / sigma2)
    return nll


def arma11_conditional(params, y=RETURNS * 10):
    """ARMA(1,1): innovations by recursion, e[0] = 0, Gaussian conditional likelihood."""
    phi, theta, log_s = params
    e_prev = 0.0
    sse = 0.0
    for t in range(1, len(y)):
        e = y[t] - phi * y[t - 1] - theta * e_prev
        sse += e * e
        e_prev = e
    s2 = np.exp(2 * log_s)
    n = len(y) - 1
    return 0.5 * n * np.log(2 * np.pi * s2) + sse / (2 * s2)


def probit_erf(beta, x=X_PROBIT, y=Y_BIN):
    """Probit by math.erf in a list comprehension over rows."""
    probs = [0.5 * (1 + math.erf(float(row @ beta) / math.sqrt(2))) for row in x]
    return -sum(yi * math.log(p) + (1 - yi) * math.log(1 - p) for yi, p in zip(y, probs))


def ordered_logit(params, x=X_PROBIT[:, 1], y=np.array([0, 1, 2, 2, 1, 0, 1, 0])):  # noqa: B008
    """Ordered logit: cutpoints made increasing by cumulative exp; integer index arrays pick the cells."""
    b, c0, log_gap = params
    cuts = np.array([-np.inf, c0, c0 + np.exp(log_gap), np.inf])
    eta = b * x
    upper = 1 / (1 + np.exp(-(cuts[y + 1] - eta)))
    lower = 1 / (1 + np.exp(-(cuts[y] - eta)))
    return -np.sum(np.log(upper - lower))


def gravity_trade(coef, gdp=np.array([2.0, 1.5, 3.0, 0.8]),  # noqa: B008
                  dist=np.array([[0, 1.0, 2.0, 1.5], [1.0, 0, 1.2, 2.2], [2.0, 1.2, 0, 0.9],  # noqa: B008
                                 [1.5, 2.2, 0.9, 0]])):
    """The gravity model in logs over ordered pairs, the diagonal left out by a boolean mask."""
    flows = np.exp(1.0 + 0.8 * np.log(gdp)[:, None] + 0.9 * np.log(gdp)[None, :] - 1.1 * np.log(dist + np.eye(4)))
    off = ~np.eye(4, dtype=bool)
    pred = coef[0] + coef[1] * np.log(gdp)[:, None] + coef[2] * np.log(gdp)[None, :] \
        - coef[3] * np.log(dist + np.eye(4))
    return np.mean((pred[off] - np.log(flows[off])) ** 2)


PAYOFF = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]) + np.array([[0.2], [0.0], [-0.1]])


def softmax_policy_gradient(logits, payoff=PAYOFF, opponent=np.array([0.5, 0.3, 0.2])):  # noqa: B008
    """Expected payoff of a softmax policy with an entropy bonus."""
    z = logits - np.max(logits)
    pi = np.exp(z) / np.sum(np.exp(z))
    return -(pi @ payoff @ opponent) - 0.1 * -np.sum(pi * np.log(pi))


def regret_matching(bias, rounds=12, payoff=PAYOFF):
    """Regret matching with softplus-smoothed positive regrets; the opponent plays a fixed mix."""
    regrets = np.zeros(3)
    opponent = np.array([0.4, 0.35, 0.25])
    avg = np.zeros(3)
    for _ in range(rounds):
        positive = np.log1p(np.exp(5.0 * (regrets + bias))) / 5.0
        strategy = positive / np.sum(positive)
        values = payoff @ opponent
        regrets = regrets + values - strategy @ values
        avg = avg + strategy
    avg = avg / rounds
    return np.sum((avg - np.array([0.5, 0.3, 0.2])) ** 2)


def logit_qre(lam, payoff_a=PAYOFF, payoff_b=-PAYOFF.T, iters=40):
    """Logit quantal response equilibrium by damped fixed-point iteration, rationality lam."""
    p = np.ones(3) / 3
    q = np.ones(3) / 3
    for _ in range(iters):
        ua = lam[0] * payoff_a @ q
        ub = lam[0] * payoff_b @ p
        p = 0.5 * p + 0.5 * np.exp(ua - ua.max()) / np.exp(ua - ua.max()).sum()
        q = 0.5 * q + 0.5 * np.exp(ub - ub.max()) / np.exp(ub - ub.max()).sum()
    return p[0] - q[2] + p @ payoff_a @ q


def replicator_dynamics(x0, payoff=PAYOFF + 1.0, dt=0.1, steps=30):
    x = np.exp(x0) / np.sum(np.exp(x0))
    for _ in range(steps):
        fitness = payoff @ x
        x = x + dt * x * (fitness - x @ fitness)
    return -np.sum(x * np.log(x))


def cournot_best_response(costs, a=10.0, b=1.0, iters=25):
    """Three firms' quantities by simultaneous best responses (Jacobi) to the others' total."""
    q = [1.0, 1.0, 1.0]
    for _ in range(iters):
        total = sum(q)
        q = [max((a - c - b * (total - qi)) / (2 * b), 0.0) for qi, c in zip(q, costs)]
    profits = [(a - b * sum(q) - c) * qi for qi, c in zip(q, costs)]
    return sum(profits)


MATCHES = {("ann", "bob"): (3, 1), ("bob", "cid"): (2, 2), ("ann", "cid"): (4, 1), ("cid", "dee"): (1, 3),
           ("bob", "dee"): (2, 1)}
PLAYERS = ["ann", "bob", "cid", "dee"]


def bradley_terry_dict(strength):
    """Bradley-Terry with strengths keyed by player (a dict comprehension), wins per pair."""
    s = {name: strength[k] for k, name in enumerate(PLAYERS)}
    nll = 0.0
    for (i, j), (wins_i, wins_j) in MATCHES.items():
        p = 1 / (1 + np.exp(s[j] - s[i]))
        nll -= wins_i * np.log(p) + wins_j * np.log(1 - p)
    return nll + 0.1 * np.sum(strength ** 2)


GAMES = [(0, 1, 1.0), (2, 3, 0.0), (0, 2, 1.0), (1, 3, 0.5), (3, 0, 1.0), (1, 2, 0.0), (0, 1, 0.0)]


def elo_updates(k_and_scale, games=GAMES):
    """Elo ratings updated game by game; the log loss of the predictions made before each game."""
    k, scale = k_and_scale[0], k_and_scale[1]
    ratings = [0.0, 0.0, 0.0, 0.0]
    loss = 0.0
    for a, b, result in games:
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[b] - ratings[a]) / scale))
        loss -= result * math.log(expected) + (1 - result) * math.log(1 - expected)
        ratings[a] += k * (result - expected)
        ratings[b] -= k * (result - expected)
    return loss


def plackett_luce_cumulative(scores, rankings=((2, 0, 3, 1), (0, 2, 1, 3), (2, 3, 0, 1))):
    """Plackett-Luce: the log-normaliser of each stage by a cumulative logsumexp from the back."""
    nll = 0.0
    for ranking in rankings:
        s = scores[list(ranking)]
        tail = np.zeros(len(s))
        acc = -np.inf
        for k in reversed(range(len(s))):
            acc = np.logaddexp(acc, s[k])
            tail[k] = acc
        nll += np.sum(tail - s)
    return nll


def glicko_expected(mu, phi=np.array([0.8, 0.5, 1.1]), outcomes=np.array([1.0, 0.0, 1.0])):  # noqa: B008
    """Glicko's g factor and expected scores of one player against three."""
    g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
    opponents = np.array([0.2, -0.4, 0.1])
    e = 1 / (1 + np.exp(-g * (mu[0] - opponents)))
    variance = 1 / np.sum(g ** 2 * e * (1 - e))
    return -np.sum(outcomes * np.log(e) + (1 - outcomes) * np.log(1 - e)) + 0.01 * variance


RESPONSES = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [1, 0, 0, 1], [0, 1, 1, 0]])


def item_response_2pl(params, responses=RESPONSES):
    """2PL item response: abilities per person, discriminations and difficulties per item."""
    n_people, n_items = responses.shape
    theta = params[:n_people]
    a = np.exp(params[n_people:n_people + n_items])
    b = params[n_people + n_items:]
    logits = a[np.newaxis, :] * (theta[:, np.newaxis] - b[np.newaxis, :])
    ll = responses * logits - np.logaddexp(0.0, logits)
    return -np.sum(ll) + 0.5 * np.sum(theta ** 2) + 0.5 * np.sum(b ** 2)


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


CHOICES = [
    ("econ_garch", garch_likelihood, _vec(0.005, -1.5, 1.5), 0),
    ("econ_arma11", arma11_conditional, _vec(0.3, -0.2, -1.5), 0),
    ("econ_probit_erf", probit_erf, _vec(0.1, 0.7), 0),
    ("econ_ordered_logit", ordered_logit, _vec(0.8, -0.5, 0.3), 0),
    ("econ_gravity", gravity_trade, _vec(0.8, 0.7, 1.0, 1.0), 0),
    ("game_softmax_policy", softmax_policy_gradient, _vec(0.2, -0.1, 0.4), 0),
    ("game_regret_matching", regret_matching, _vec(0.1, -0.2, 0.05), 0),
    ("game_logit_qre", logit_qre, _vec(1.5), 0),
    ("game_replicator", replicator_dynamics, _vec(0.1, 0.4, -0.3), 0),
    ("game_cournot", cournot_best_response, lambda rng: ([1.0, 1.5, 2.0],), 0),
    ("rank_bradley_terry_dict", bradley_terry_dict, _vec(0.3, -0.1, 0.2, -0.4), 0),
    ("rank_elo", elo_updates, _vec(24.0, 400.0), 0),
    ("rank_plackett_luce", plackett_luce_cumulative, _vec(0.5, -0.2, 1.0, 0.1), 0),
    ("rank_glicko", glicko_expected, _vec(0.3), 0),
    ("rank_item_response_2pl", item_response_2pl, lambda rng: (0.3 * rng.normal(size=13),), 0),
]
