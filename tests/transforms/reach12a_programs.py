"""Lists and iteration grad refused after the red team's eleventh wave, each written several ways as
everyday code writes it: (1) a list appended to and read in the same loop (a history ``ys[-1]``,
``hist[-2]``, a KV cache, a running ``sum(xs)``), (2) lists joined with ``+``, repeated with ``*``,
``sum(lists, [])``, sliced, extended with ``+=``, reversed in place, and (3) ``itertools.chain`` /
``islice``, ``enumerate(..., start=<expression>)``, loops over ``str.split``, ``reversed(xs)`` as a value,
``np.maximum.at`` / ``np.minimum.at`` / ``np.multiply.at`` and ``np.bincount(..., minlength=<computed>)``.
test_reach12a_spellings.py runs every transformation on them."""

import itertools

import numpy as np

# ---- 1. a list appended to and read in the same loop ----------------------------------------------


def euler_history(k, y0=1.0, dt=0.1, steps=6):  # the red team's ys.append(f(ys[-1])), then read back
    ys = [y0]
    for _ in range(steps):
        ys.append(ys[-1] - dt * k * ys[-1] ** 2)
    lam = 2.0 * ys[-1]
    dk = 0.0
    for n in reversed(range(steps)):
        dk = dk - lam * dt * ys[n] ** 2
        lam = lam * (1.0 - 2.0 * dt * k * ys[n])
    return dk + ys[-1] ** 2


def two_step_history(x, n=5):  # hist[-2]: a second-order recurrence of arrays
    hist = [x, 0.5 * x]
    for _ in range(n):
        hist.append(np.tanh(hist[-1] + 0.3 * hist[-2]))
    return np.sum(hist[-1] * hist[2]) + 0.1 * len(hist)


def kv_cache_stack(Wq, X, Wk, Wv):  # the red team's: np.stack of the lists each step
    keys, values = [], []
    out = 0.0
    for t in range(X.shape[0]):
        keys.append(X[t] @ Wk)
        values.append(X[t] @ Wv)
        K, V = np.stack(keys), np.stack(values)
        s = K @ (X[t] @ Wq)
        p = np.exp(s - s.max())
        out = out + np.sum((p / p.sum()) @ V)
    return out


def kv_cache_comprehension(X, W):  # scores = [q @ kk for kk in keys], in a helper
    return _attend(X @ W, X)


def _attend(Q, X):
    keys = []
    out = 0.0
    for t in range(X.shape[0]):
        keys.append(X[t])
        scores = [Q[t] @ kk for kk in keys]
        out = out + sum(np.exp(0.5 * s) for s in scores) / len(keys)
    return out


def running_sum_of_list(w):  # sum(xs) read each iteration, appended in a branch
    xs = []
    total = 0.0
    for i in range(len(w)):
        if i % 2 == 0:
            xs.append(np.sin(w[i]))
        else:
            xs.append(w[i] * w[i - 1])
        total = total + sum(xs) ** 2
    return total


def history_then_stacked(x):  # ys[0] and sum(ys) in the loop, np.stack(ys) and max of numbers after
    ys = [x]
    for _ in range(4):
        ys.append(np.sin(ys[-1]) * 0.5 + 0.1 * ys[0] * np.sum(sum(ys)))
    return np.sum(np.stack(ys) ** 2) + max(float(np.sum(y)) for y in ys)


def float32_history(x):  # float32 arrays through the history
    seq = [x]
    for i in range(3):
        seq.append(np.cos(seq[i]) * seq[-1] + np.float32(0.5))
    return np.sum(np.stack(seq) ** 2)


# ---- 2. lists joined, repeated, sliced, extended, reversed ----------------------------------------


def sigma_points(mu, L_raw, kappa=1.0):  # the red team's [mu] + [...] + [...], then sum(ys[1:])
    n = mu.shape[0]
    L = np.tril(L_raw)
    S = np.linalg.cholesky((n + kappa) * (L @ L.T + 0.1 * np.eye(n)))
    sigmas = [mu] + [mu + S[:, i] for i in range(n)] + [mu - S[:, i] for i in range(n)]
    ys = [np.array([np.sin(s[0]) * s[1], s[0] ** 2]) for s in sigmas]
    mean = kappa / (n + kappa) * ys[0] + 1.0 / (2 * (n + kappa)) * sum(ys[1:])
    return np.sum(mean ** 2)


def joined_then_appended(x):  # xs + [y], [a] + rest of scalars, read by index
    head = [x[0] * x[1]]
    rest = [np.sin(v) for v in x]
    both = head + rest + [x[2] ** 3]
    return both[0] + 2.0 * both[-1] + sum(both[1:-1])


def repeated_lists(x):  # xs * 3, 2 * [v], then enumerate over the join
    xs = [x[0], x[1] ** 2]
    zs = xs * 3
    ws = 2 * [np.cos(x[2])]
    return sum(v * (i + 1) for i, v in enumerate(zs + ws))


def joined_in_a_helper_loop(x):  # a helper joining lists and slicing an islice, called in a loop
    total = 0.0
    for k in range(2):
        total = total + _padded_terms(x * (k + 1.0))
    return total


def _padded_terms(h):
    parts = [h[0]] + [v * v for v in h] + 2 * [np.sin(h[-1])]
    return sum(itertools.islice(parts, 1, None)) + parts[0] * sum(parts[-2:])


def sum_of_lists(x):  # sum([a, b, [c]], [])
    a = [x[0], x[1]]
    b = [v * v for v in x]
    return sum(np.sin(v) for v in sum([a, b, [x[2] * 3.0]], []))


def extended_in_place(x):  # xs += [...], xs += comprehension, then np.stack
    xs = [x[0]]
    xs += [x[1] * 2.0]
    xs += [v ** 3 for v in x]
    return np.sum(np.stack(xs) ** 2)


def sliced_lists(x):  # xs[1:], xs[:-1], xs[::2] of a list
    ys = [np.sin(x[0]), x[1] * x[2], x[2] ** 2, x[0]]
    return sum(ys[1:]) * 2.0 + sum(ys[:-1]) * sum(ys[::2])


def discounted_returns(w, feats, gamma=0.9):  # the red team's out.reverse() of a list built by append
    rewards = feats @ w
    G = 0.0
    out = []
    for r in rewards[::-1]:
        G = r + gamma * G
        out.append(G)
    out.reverse()
    return sum(g * g for g in out) / len(out)


def reversed_after_branchy_appends(x):  # out[-1] if out else v, then reversed in place
    out = []
    for v in x:
        out.append(v * 2.0 + out[-1] if out else v)
    out.reverse()
    return sum(o * (i + 1) for i, o in enumerate(out))


# ---- 3. itertools, enumerate, str.split, ufunc .at, bincount ---------------------------------------


def chain_islice(a, b):  # the red team's
    terms = itertools.chain(a, b)
    return sum(t ** 2 for t in itertools.islice(terms, 1, 5))


def islice_in_a_loop(x, n=3):  # islice(xs, stop) and islice(xs, start, None, step) of a list
    ys = [np.tanh(v) * v for v in x]
    total = 0.0
    for y in itertools.islice(ys, n):
        total = total + y ** 2
    for y in itertools.islice(ys, 1, None, 2):
        total = total + np.sin(y)
    return total


def chain_of_rows(A, b):  # a for over chain(rows of a matrix, a list)
    extra = [b * 2.0, np.cos(b)]
    total = 0.0
    for row in itertools.chain(A, extra):
        total = total + np.sum(row ** 2) * np.sum(b)
    return total


def enumerate_computed_start(x):  # start=len(x) - 1, in a loop and a comprehension
    t = 0.0
    for i, v in enumerate(x, start=len(x) - 1):
        t = t + i * v ** 2
    return t + sum(j * np.sin(v) for j, v in enumerate(x, 2))


def split_config_terms(w, spec="l2:0.5,l1:0.1"):  # the red team's
    total = np.sum(np.sin(w))
    for part in spec.split(","):
        name, weight = part.split(":")
        if name == "l2":
            total = total + float(weight) * np.sum(w ** 2)
        elif name == "l1":
            total = total + float(weight) * np.sum(np.sqrt(w ** 2 + 1e-3))
    return total


def split_words_enumerated(w, spec="sin cos  sin"):  # .split() with no separator, under enumerate
    t = 0.0
    for i, part in enumerate(spec.split()):
        if part == "sin":
            t = t + np.sum(np.sin(w * (i + 1)))
        else:
            t = t + np.sum(np.cos(w))
    return t


def config_characters_and_lines(w, mode="sc", cfg="ab\nc"):  # a loop over a string, over .splitlines()
    t = 0.0
    for c in mode:
        t = t + (np.sum(np.sin(w)) if c == "s" else np.sum(np.cos(w)))
    for line in cfg.splitlines():
        t = t + np.sum(w ** 2) * len(line)
    return t


def reversed_hidden_states(x):  # list(reversed(hs)), sum(reversed(hs)) of a list built by append
    hs = []
    h = 0.0
    for v in x:
        h = np.tanh(v + 0.5 * h)
        hs.append(h)
    back = list(reversed(hs))
    return sum(b * (i + 1) for i, b in enumerate(back)) + sum(reversed(hs)) ** 2


def reversed_display_stacked(x):  # np.stack(list(reversed(...))) of a display of arrays
    hs = [np.sin(x), np.cos(x) * 2.0]
    return np.sum(np.stack(list(reversed(hs)))[0] * x)


def segment_softmax(scores, seg, n_seg=3):  # the red team's np.maximum.at
    mx = np.full(n_seg, -np.inf)
    np.maximum.at(mx, seg, scores)
    e = np.exp(scores - mx[seg])
    den = np.zeros(n_seg)
    np.add.at(den, seg, e)
    p = e / den[seg]
    return np.sum(p * np.arange(1.0, len(scores) + 1))


def segment_min_rows(X, seg):  # np.minimum.at of rows into a matrix, in a helper
    return np.sum(_segment_min(X, seg, 3) ** 2)


def _segment_min(X, seg, n):
    lo = np.full((n, X.shape[1]), np.inf)
    np.minimum.at(lo, seg, np.sin(X))
    return lo


def scatter_product(w, idx):  # np.multiply.at with a scalar value, in a loop
    out = np.ones(3)
    for k in range(2):
        np.multiply.at(out, idx, w * (k + 1.0))
    np.multiply.at(out, idx, 0.5)
    return np.sum(out)


def maximum_at_mask_and_negatives(x, keep):  # a boolean mask, then negative indices, as NumPy reads them
    a = np.zeros(4)
    np.maximum.at(a, keep, x[keep] * 2.0)
    b = np.full(3, -np.inf)
    np.maximum.at(b, np.array([-1, 0, -1, 1]), x)
    return np.sum(a * np.arange(1.0, 5.0)) + np.sum(np.sin(b))


def gcn_bincount(W, H, src, dst):  # the red team's minlength=n, n computed
    n = H.shape[0]
    deg = np.bincount(dst, minlength=n).astype(float) + 1.0
    msg = H[src] @ W
    agg = np.zeros((n, W.shape[1]))
    np.add.at(agg, dst, msg)
    out = np.tanh((agg + H @ W) / deg[:, None])
    return np.sum(out ** 2)


def bincount_weights_minlength(w, idx):  # weights= with a computed minlength longer than the bins
    n = len(w) + 2
    return np.sum(np.bincount(idx, weights=w * w, minlength=n) ** 2 * np.arange(n))


def _M(r, *shape):
    return r.normal(size=shape) * 0.5


SEG = np.array([0, 1, 1, 2, 0, 2])
IDX = np.array([0, 2, 2, 1])

PROGRAMS = [
    ("euler_history", euler_history, lambda r: (0.7,), 0),
    ("two_step_history", two_step_history, lambda r: (r.normal(size=3),), 0),
    ("kv_cache_stack", kv_cache_stack, lambda r: (_M(r, 3, 3), _M(r, 4, 3), _M(r, 3, 3), _M(r, 3, 3)), 0),
    ("kv_cache_stack_values", kv_cache_stack, lambda r: (_M(r, 3, 3), _M(r, 4, 3), _M(r, 3, 3), _M(r, 3, 3)), 3),
    ("kv_cache_comprehension", kv_cache_comprehension, lambda r: (_M(r, 4, 3), _M(r, 3, 3)), 1),
    ("running_sum_of_list", running_sum_of_list, lambda r: (r.normal(size=4),), 0),
    ("history_then_stacked", history_then_stacked, lambda r: (r.normal(size=3),), 0),
    ("float32_history", float32_history, lambda r: (r.normal(size=3),), 0),
    ("sigma_points", sigma_points, lambda r: (r.normal(size=3), r.normal(size=(3, 3))), 0),
    ("sigma_points_cov", sigma_points, lambda r: (r.normal(size=3), r.normal(size=(3, 3))), 1),
    ("joined_then_appended", joined_then_appended, lambda r: (r.normal(size=3),), 0),
    ("repeated_lists", repeated_lists, lambda r: (r.normal(size=3),), 0),
    ("joined_in_a_helper_loop", joined_in_a_helper_loop, lambda r: (r.normal(size=3),), 0),
    ("sum_of_lists", sum_of_lists, lambda r: (r.normal(size=3),), 0),
    ("extended_in_place", extended_in_place, lambda r: (r.normal(size=3),), 0),
    ("sliced_lists", sliced_lists, lambda r: (r.normal(size=3),), 0),
    ("discounted_returns", discounted_returns, lambda r: (r.normal(size=3), _M(r, 5, 3)), 0),
    ("reversed_after_branchy_appends", reversed_after_branchy_appends, lambda r: (r.normal(size=4),), 0),
    ("chain_islice", chain_islice, lambda r: (r.normal(size=3), r.normal(size=4)), 0),
    ("chain_islice_second", chain_islice, lambda r: (r.normal(size=3), r.normal(size=4)), 1),
    ("islice_in_a_loop", islice_in_a_loop, lambda r: (r.normal(size=5),), 0),
    ("chain_of_rows", chain_of_rows, lambda r: (_M(r, 2, 3), r.normal(size=3)), 1),
    ("enumerate_computed_start", enumerate_computed_start, lambda r: (r.normal(size=4),), 0),
    ("split_config_terms", split_config_terms, lambda r: (r.normal(size=4),), 0),
    ("split_words_enumerated", split_words_enumerated, lambda r: (r.normal(size=4),), 0),
    ("config_characters_and_lines", config_characters_and_lines, lambda r: (r.normal(size=3),), 0),
    ("reversed_hidden_states", reversed_hidden_states, lambda r: (r.normal(size=4),), 0),
    ("reversed_display_stacked", reversed_display_stacked, lambda r: (r.normal(size=3),), 0),
    ("segment_softmax", segment_softmax, lambda r: (r.normal(size=6), SEG), 0),
    ("segment_min_rows", segment_min_rows, lambda r: (r.normal(size=(6, 2)), SEG), 0),
    ("scatter_product", scatter_product, lambda r: (r.normal(size=4), IDX), 0),
    ("maximum_at_mask_and_negatives", maximum_at_mask_and_negatives,
     lambda r: (r.normal(size=4), np.array([True, False, True, True])), 0),
    ("gcn_bincount", gcn_bincount, lambda r: (_M(r, 3, 2), _M(r, 4, 3), np.array([0, 1, 2, 3, 1]),
                                              np.array([1, 2, 0, 0, 1])), 0),
    ("bincount_weights_minlength", bincount_weights_minlength, lambda r: (r.normal(size=4), IDX), 0),
]
