"""The red team's seventeenth wave, continued: economics and games as a course's problem sets write them.
CES and Cobb-Douglas utilities and production, a logit demand system with an outside good, Bertrand
prices found by a best-response fixed point, Cournot quantities by a ``while`` loop with a tolerance,
value iteration of a small cake-eating problem with np.max over a grid of choices, a consumption-savings
Euler residual, an Elo rating pass over a match list, Bradley-Terry by a log-likelihood over pairs, a
newsvendor's expected cost by sampled demand, the Erlang C waiting probability with math.factorial,
an (s, S) inventory simulation, a first-price auction's expected revenue, a mean-variance portfolio with a
log-barrier for a budget, a progressive tax by brackets in a loop, a loan paid off by a ``while
balance > 0`` loop, a Gini coefficient by sorting, a Lorenz curve by cumsum, replicator dynamics, a
quantal response equilibrium by damped iteration, and Nash bargaining.  See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def ces_utility(x, shares, rho=0.5):
    return np.sum(shares * x ** rho) ** (1.0 / rho)


def cobb_douglas_profit(inputs, prices, alpha=(0.3, 0.5), p_out=3.0):
    K, L = inputs
    output = K ** alpha[0] * L ** alpha[1]
    return -(p_out * output - prices @ inputs)


def logit_demand_revenue(prices, quality, beta=1.2):
    u = quality - beta * prices
    shares = np.exp(u) / (1.0 + np.sum(np.exp(u)))
    return -np.sum(prices * shares)


def bertrand_fixed_point(costs, quality=np.array([1.0, 1.3]), beta=1.0):  # noqa: B008  a default array, as users write it
    p = costs + 1.0
    for _ in range(60):
        u = quality - beta * p
        s = np.exp(u) / (1.0 + np.sum(np.exp(u)))
        p = costs + 1.0 / (beta * (1.0 - s))
    return np.sum(p * s)


def cournot_while(costs, a=10.0, b=1.0, tol=1e-12):
    q = np.ones(2)
    gap = 1.0
    while gap > tol:
        new = np.array([(a - costs[0] - b * q[1]) / (2 * b), (a - costs[1] - b * q[0]) / (2 * b)])
        gap = np.max(np.abs(new - q))
        q = new
    price = a - b * q.sum()
    return (price - costs) @ q


def cake_eating_value(beta, grid_n=8, iters=40):
    grid = np.linspace(0.1, 1.0, grid_n)
    V = np.zeros(grid_n)
    for _ in range(iters):
        cons = grid[:, None] - grid[None, :]
        util = np.where(cons > 0, np.log(np.maximum(cons, 1e-10)), -1e10)
        V = np.max(util + beta * V[None, :], axis=1)
    return V[-1]


def euler_residual(c, r=0.03, beta=0.96, gamma=2.0):
    res = beta * (1 + r) * (c[1:] / c[:-1]) ** (-gamma) - 1.0
    return np.sum(res ** 2)


def elo_pass(ratings, matches, k=24.0):
    r = ratings.copy()
    for a, b, score in matches:
        expected = 1.0 / (1.0 + 10 ** ((r[b] - r[a]) / 400.0))
        r[a] += k * (score - expected)
        r[b] -= k * (score - expected)
    return np.sum((r - 1500.0) ** 2) / 1e4


def bradley_terry(strength, wins):
    ll = 0.0
    n = len(strength)
    for i in range(n):
        for j in range(n):
            if i != j and wins[i][j] > 0:
                ll += wins[i][j] * (strength[i] - np.logaddexp(strength[i], strength[j]))
    return -ll + 0.01 * np.sum(strength ** 2)


def newsvendor_cost(order, demand, h=1.0, p=4.0):
    over = np.maximum(order - demand, 0.0)
    under = np.maximum(demand - order, 0.0)
    return np.mean(h * over + p * under)


def erlang_c(rate, servers=3, mu=1.0):
    a = rate / mu
    top = a ** servers / math.factorial(servers) * servers / (servers - a)
    bottom = sum(a ** k / math.factorial(k) for k in range(servers)) + top
    return top / bottom


def s_S_inventory(params, demand):
    s, S = params
    level = S
    cost = 0.0
    for d in demand:
        level -= d
        if level < s:
            cost += 5.0 + 0.1 * (S - level)
            level = S
        cost += 0.05 * level ** 2
    return cost


def first_price_revenue(shade, values):
    bids = shade * values
    top = np.sort(bids, axis=1)[:, -1]
    return -np.mean(top)


def portfolio_barrier(w, mu, cov, risk=3.0, t=50.0):
    ret = mu @ w
    var = w @ cov @ w
    barrier = -np.sum(np.log(w)) / t - np.log(1.0 - np.sum(w)) / t
    return -(ret - 0.5 * risk * var) + barrier


BRACKETS = [(0.0, 10.0, 0.1), (10.0, 40.0, 0.2), (40.0, float("inf"), 0.35)]


def progressive_tax(incomes):
    total = 0.0
    for income in incomes:
        for lo, hi, rate in BRACKETS:
            if income > lo:
                total += rate * (min(income, hi) - lo)
    return total


def loan_payoff(payment, principal=1000.0, rate=0.01):
    balance = principal
    paid = 0.0
    months = 0
    while balance > 0 and months < 600:
        interest = balance * rate
        balance = balance + interest - payment
        paid += payment
        months += 1
    return paid + balance


def gini(x):
    xs = np.sort(x)
    n = len(xs)
    idx = np.arange(1, n + 1)
    return (2 * np.sum(idx * xs) / (n * np.sum(xs))) - (n + 1) / n


def lorenz_area(x):
    shares = np.cumsum(np.sort(x)) / np.sum(x)
    return np.trapezoid(np.concatenate([[0.0], shares]), dx=1.0 / len(x))


def replicator(payoff, steps=50, dt=0.1):
    p = np.ones(payoff.shape[0]) / payoff.shape[0]
    for _ in range(steps):
        f = payoff @ p
        p = p + dt * p * (f - p @ f)
        p = p / p.sum()
    return p @ payoff @ p


def quantal_response(A, lam=2.0, damping=0.5, iters=80):
    p = np.ones(A.shape[0]) / A.shape[0]
    q = np.ones(A.shape[1]) / A.shape[1]
    for _ in range(iters):
        up = np.exp(lam * (A @ q))
        uq = np.exp(-lam * (A.T @ p))
        p = damping * p + (1 - damping) * up / up.sum()
        q = damping * q + (1 - damping) * uq / uq.sum()
    return p @ A @ q


def nash_bargaining(split, d=(0.2, 0.1)):
    u1 = np.sqrt(split)
    u2 = np.log1p(1.0 - split)
    return -(np.log(u1 - d[0]) + np.log(u2 - d[1]))


ECON17 = [
    ("w17_ces_utility", ces_utility, lambda r: (r.uniform(0.5, 2.0, 4), r.dirichlet(np.ones(4))), 0),
    ("w17_ces_shares", ces_utility, lambda r: (r.uniform(0.5, 2.0, 4), r.dirichlet(np.ones(4))), 1),
    ("w17_cobb_douglas_profit", cobb_douglas_profit, lambda r: (np.array([2.0, 3.0]), np.array([0.4, 0.6])), 0),
    ("w17_logit_demand_revenue", logit_demand_revenue, lambda r: (np.array([1.0, 1.5, 0.8]), M(r, 3)), 0),
    ("w17_bertrand_fixed_point", bertrand_fixed_point, lambda r: (np.array([0.5, 0.7]),), 0),
    ("w17_cournot_while", cournot_while, lambda r: (np.array([1.0, 1.5]),), 0),
    ("w17_cake_eating_value", cake_eating_value, lambda r: (0.9,), 0),
    ("w17_euler_residual", euler_residual, lambda r: (1.0 + 0.05 * np.cumsum(r.uniform(size=6)),), 0),
    ("w17_elo_pass", elo_pass,
     lambda r: (1500 + 100 * M(r, 4), [(0, 1, 1.0), (2, 3, 0.0), (1, 2, 0.5), (3, 0, 1.0), (0, 2, 0.0)]), 0),
    ("w17_bradley_terry", bradley_terry,
     lambda r: (M(r, 3), [[0, 3, 1], [2, 0, 4], [5, 1, 0]]), 0),
    ("w17_newsvendor_cost", newsvendor_cost, lambda r: (10.3, r.uniform(5, 15, 20)), 0),
    ("w17_erlang_c", erlang_c, lambda r: (2.2,), 0),
    ("w17_s_S_inventory", s_S_inventory, lambda r: (np.array([3.3, 12.7]), r.uniform(0, 4, 12).round(1)), 0),
    ("w17_first_price_revenue", first_price_revenue, lambda r: (0.7, r.uniform(size=(10, 3))), 0),
    ("w17_portfolio_barrier", portfolio_barrier,
     lambda r: (np.array([0.2, 0.3, 0.25]), np.array([0.05, 0.08, 0.03]), 0.01 * (np.eye(3) + 0.3)), 0),
    ("w17_progressive_tax", progressive_tax, lambda r: (np.array([5.0, 25.0, 60.0]),), 0),
    ("w17_loan_payoff", loan_payoff, lambda r: (47.3,), 0),
    ("w17_gini", gini, lambda r: (r.uniform(1, 10, 7),), 0),
    ("w17_lorenz_area", lorenz_area, lambda r: (r.uniform(1, 10, 7),), 0),
    ("w17_replicator", replicator, lambda r: (np.array([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]]) + 0.2 * M(r, 3, 3),), 0),
    ("w17_quantal_response", quantal_response, lambda r: (M(r, 3, 2),), 0),
    ("w17_nash_bargaining", nash_bargaining, lambda r: (0.45,), 0),
]
