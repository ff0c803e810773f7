"""Programs of test_wave34d.py: wave 34's held-out piecewise losses (benchmarks/variants34_piecewise.py)
at small sizes, the two losses of wave 33 its rewrites were tuned on, and the shapes the rewrites read,
some at exact ties and kinks:

* HELD OUT: Tukey's biweight by np.where, a Cauchy loss of a capped square, Huber with two deltas, the
  squared hinge np.maximum(0, 1 - y f) ** 2, a ReLU and a hard-tanh network, the pinball loss by a
  boolean in the arithmetic, an L1 capped by np.where;
* TUNED ON: Huber by a chain of two np.where, the smoothed hinge by a np.where chain;
* CHAINS: a selection chain's adjoint held in a temporary and read where every condition it needs is
  decided (backend/optimize/wheres.py inline_decided), three pieces deep, broadcast against a column,
  read outside its decided branch too (it stays); a difference of complementary selections
  (merge_complements), its first term negated;
* BOOLEAN MASKS: a comparison's boolean mask and its negation ``~m`` as factors of products
  (mask_products.py), inside a chain, and Huber by masks on a vector.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants33_piecewise as v33  # noqa: E402
import variants34_piecewise as v34  # noqa: E402

# ---- CHAINS ----


def three_pieces(x, a, b):
    """Four pieces by three nested np.where: the adjoint's chain is three conditions deep."""
    return np.sum(np.where(x > b, 2.0 * x, np.where(x > a, x * x, np.where(x < -a, -x, np.sin(x)))))


def column_chain(x, c):
    """A chain of np.where on a column condition against a matrix (the selections broadcast)."""
    M = x[:, None] * c[None, :]
    return np.sum(np.where(M > 0.5, M, np.where(M < -0.5, 0.25 * M * M, np.cos(M))))


def chain_read_outside(x, d):
    """The chain's value read outside its decided branch too: its temporary stays where it must."""
    v = np.where(x > d, x * x, np.where(x < -d, -x, 0.5 * x))
    return np.sum(v) + np.sum(v * np.exp(x))


def negated_pieces(x, d):
    """A loss minus a piecewise term, the pieces subtracted: the adjoint is x_bar = -A; x_bar -= B."""
    return np.sum(np.exp(x)) - np.sum(np.where(x > d, d * x, np.where(x < 0.0, 0.0, 0.5 * x * x)))


# ---- BOOLEAN MASKS ----


def masked_middle(x, c):
    """A boolean mask inside a chain of products, and its negation times another chain."""
    m = x > c
    return np.sum(np.sin(x) * m * x) + np.sum(~m * x * x * 0.5)


def masked_scalar_seed(x, d):
    """Two boolean masks of one comparison times pieces, a mean: Huber by masks on a vector."""
    inside = np.abs(x) <= d
    return np.mean(inside * x * x + ~inside * (2.0 * d * np.abs(x) - d * d))


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,), signs=False):
    def make(rng):
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(d), X, np.sign(y) if signs else y) + tuple(extra)
    return make


def residual_ties(extra, signs=False):
    """Residuals X w - y exactly extra[0], -extra[1] (or extra[0]) and 0 on the first rows (X of integers, w
    of few binary digits); with `signs`, margins y (X w) exactly 1, 0 and 0.5 on labels of ±1."""
    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        s = X @ w
        if signs:
            X[:3] = [[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, -2.0, 0.0]]  # f = 1, 0, 0.5
            y = np.where(X @ w >= 0.0, 1.0, -1.0)
            return (w, X, y) + tuple(extra)
        y = s + rng.standard_normal(10)
        y[:3] = s[:3] - np.array([extra[0], -extra[-1], 0.0])
        return (w, X, y) + tuple(extra)
    return make


def mlp(n=8, d=3, h=4):
    return lambda rng: v34.mlp_args(n=n, d=d, h=h, seed=int(rng.integers(1000)))


def _vector(rng, n=9, at=()):
    x = rng.standard_normal(n)
    x[:len(at)] = at
    return x


PROGRAMS = [
    ("tukey_window", v34.tukey_window, residual(extra=(1.5,)), 0),
    ("cauchy_capped", v34.cauchy_capped, residual(extra=(2.0,)), 0),
    ("asym_huber", v34.asym_huber, residual(extra=(0.5, 1.0)), 0),
    ("sq_hinge_zero_first", v34.sq_hinge_zero_first, residual(signs=True, extra=(0.01,)), 0),
    ("relu_mlp", v34.relu_mlp, mlp(), 0),
    ("pinball_bool", v34.pinball_bool, residual(extra=(0.3,)), 0),
    ("capped_l1_where", v34.capped_l1_where, residual(extra=(1.2,)), 0),
    ("hardtanh_mlp", v34.hardtanh_mlp, mlp(), 0),
    ("huber_where_chain", v33.huber_where_chain, residual(), 0),
    ("smooth_hinge", v33.smooth_hinge, residual(signs=True, extra=(0.01,)), 0),
    ("three_pieces", three_pieces, lambda rng: (2.0 * _vector(rng), 0.5, 1.5), 0),
    ("column_chain", column_chain, lambda rng: (_vector(rng, 5), _vector(rng, 4)), 0),
    ("chain_read_outside", chain_read_outside, lambda rng: (_vector(rng), 0.6), 0),
    ("negated_pieces", negated_pieces, lambda rng: (_vector(rng), 0.7), 0),
    ("huber_bool_mask", v33.huber_bool_mask, residual(), 0),
    ("masked_middle", masked_middle, lambda rng: (_vector(rng), 0.3), 0),
    ("masked_scalar_seed", masked_scalar_seed, lambda rng: (2.0 * _vector(rng), 0.9), 0),
    # at ties: residuals or margins exactly on the kinks (the losses are smooth there: one derivative)
    ("huber_where_chain_ties", v33.huber_where_chain, residual_ties((0.75,)), 0),
    ("smooth_hinge_ties", v33.smooth_hinge, residual_ties((0.01,), signs=True), 0),
    ("asym_huber_ties", v34.asym_huber, residual_ties((0.5, 0.75)), 0),
]
