"""Lists of tuples sorted (or picked) by a key, items of a list written by index, dicts of parameters
updated in loops and trees passed whole to local functions (classes 3 and 4 of reach15_programs.py)."""

import copy
import math

import numpy as np

# ---- 3a. a list of tuples ordered by a key -----------------------------------------------------------


def sorted_by_the_second_field(x):
    pairs = [(math.sin(v), v) for v in x]
    pairs = sorted(pairs, key=lambda p: p[1])
    return sum(i * a for i, (a, b) in enumerate(pairs))


def sorted_into_another_name(x):
    pairs = [(v ** 2, np.tanh(v)) for v in x]
    ranked = sorted(pairs, key=lambda t: t[0])
    return sum(k * b for k, (a, b) in enumerate(ranked))


def sorted_in_reverse_then_sliced(x, w):
    scored = [(w[i] * x[i], i) for i in range(len(x))]
    top = sorted(scored, key=lambda s: s[0], reverse=True)[:2]
    return top[0][0] + 0.5 * top[1][0]


def sorted_in_a_loop_header(x):
    items = [(v, v ** 3) for v in x]
    total = 0.0
    for rank, (a, b) in enumerate(sorted(items, key=lambda p: p[0])):
        total = total + rank * b + 0.1 * a
    return total


def sorted_triples_filtered(x):
    triples = [(np.sin(v), v, v * v) for v in x if v > -5.0]
    triples = sorted(triples, key=lambda t: t[1])
    return sum(a * c for a, _, c in triples[:3])


def _scored(v):
    return v * v, np.cos(v)


def sorted_helper_tuples(x):
    pairs = [_scored(v) for v in x]
    pairs = sorted(pairs, key=lambda p: p[1])
    return pairs[0][0] + 2.0 * pairs[-1][0]


def max_of_tuples_by_key(x):
    pairs = [(np.exp(v), v) for v in x]
    best = max(pairs, key=lambda p: p[1])
    worst = min(pairs, key=lambda p: p[1])
    return best[0] * 2.0 - worst[0]


# ---- 3b. an item of a list written by index ----------------------------------------------------------


def list_of_one_array_written(x):
    rows = [x] * 3
    rows[0] = rows[0] * 2.0
    return sum(np.sum(r ** 2) for r in rows)


def list_items_written_in_a_loop(x):
    hs = [np.zeros_like(x)] * 2 + [x]
    for k in range(2):
        hs[k] = hs[k] + x * (k + 1)
    return sum(np.sum(h ** 2) for h in hs)


def list_written_at_a_loop_index(x):
    hs = [np.sin(x), np.cos(x), x]
    for i in range(len(hs)):
        hs[i] = hs[i] * (i + 1.0)
    return sum(np.sum(h) for h in hs)


def list_written_from_the_end(x):
    parts = [x[0], x[1], x[2]]
    parts[-1] = parts[-1] ** 2
    return parts[0] * parts[2] + parts[1]


def comprehension_list_written(x):
    ys = [v ** 2 for v in x]
    ys[1] = ys[0] + ys[2]
    return sum(ys)


# ---- 4a. a dict of parameters updated in a loop --------------------------------------------------------


def dict_copy_descended(params, X, y, lr=0.1, steps=3):
    p = dict(params)
    for _ in range(steps):
        r = X @ p["w"] + p["b"] - y
        p["w"] = p["w"] - lr * X.T @ r / len(y)
        p["b"] = p["b"] - lr * np.mean(r)
    return np.mean((X @ p["w"] + p["b"] - y) ** 2)


def dict_copy_method(params, X, y):
    p = params.copy()
    for _ in range(2):
        g = X.T @ (X @ p["w"] - y)
        p["w"] = p["w"] - 0.05 * g
    return np.sum((X @ p["w"] - y) ** 2)


def dict_shallow_copy(params, X, y):
    p = copy.copy(params)
    for k in range(2):
        p["w"] = p["w"] * (1.0 - 0.1 * k)
    return np.sum(X @ p["w"]) + np.sum(y) * p["b"]


def dict_merged_then_updated(params, X, y):
    p = {**params, "lr": 0.05}
    for _ in range(2):
        p["w"] = p["w"] - p["lr"] * X.T @ (X @ p["w"] - y)
    return np.sum(p["w"] ** 2)


def dict_copy_kept_before_the_loop(params, X, y):
    p = dict(params)
    start = dict(p)
    for _ in range(2):
        p["w"] = p["w"] * 0.5 + 0.1
    return np.sum(X @ (p["w"] - start["w"]))


def dict_copy_updated_in_a_branch(params, X, y):
    p = dict(params)
    if np.sum(y) > 0:
        p["w"] = p["w"] * 2.0
    return np.sum(X @ p["w"] + p["b"])


def dict_updated_by_update(params, X, y):
    p = dict(params)
    for _ in range(2):
        r = X @ p["w"] + p["b"] - y
        p.update(w=p["w"] - 0.1 * X.T @ r, b=p["b"] - 0.1 * np.sum(r))
    return np.sum((X @ p["w"] + p["b"] - y) ** 2)


# ---- 4b. a parameter tree passed whole to a local function ---------------------------------------------


def local_function_of_a_tree(params, X, y, lr=0.1):
    def grads(p):
        r = X @ p["w"] + p["b"] - y
        return {"w": X.T @ r / len(y), "b": np.mean(r)}

    for _ in range(2):
        g = grads(params)
        params = {k: v - lr * g[k] for k, v in params.items()}
    r = X @ params["w"] + params["b"] - y
    return np.mean(r ** 2)


def local_loss_of_two_trees(params, X, y):
    def loss(p):
        return np.mean((X @ p["w"] + p["b"] - y) ** 2)
    return loss(params) + 0.1 * loss({"w": 2.0 * params["w"], "b": params["b"]})


def local_function_reading_the_tree(params, X, y):
    def penalty():
        return np.sum(params["w"] ** 2)
    return np.sum((X @ params["w"] - y) ** 2) + 0.1 * penalty()


def _gradients(p, X, y):
    r = X @ p["w"] + p["b"] - y
    return {"w": X.T @ r / len(y), "b": np.mean(r)}


def helper_returning_a_dict(params, X, y, lr=0.1):
    for _ in range(2):
        g = _gradients(params, X, y)
        params = {k: v - lr * g[k] for k, v in params.items()}
    return np.mean((X @ params["w"] + params["b"] - y) ** 2)


# ---- 3c. a list of tuples read back to front, sums with a start, sorted in reverse ------------------------


def pairs_read_in_reverse(x, w):
    history = []
    h = 0.0
    for v, c in zip(x, w):
        h = np.tanh(c * h + v)
        history.append((h, c * v))
    total = 0.0
    for (a, b), v in zip(reversed(history), x):
        total = total + a * b * v
    return total


def sum_with_a_start(x):
    return sum((np.sum(v ** 2) for v in x), 0.5) + sum([np.sin(v) for v in x], start=1.0)


def sorted_in_reverse_without_a_key(x):
    vals = sorted([x[0] ** 2, x[1] + 3.0, x[2] * x[0]], reverse=True)
    return vals[0] - 0.5 * vals[-1] + sum(v * k for k, v in enumerate(sorted(x, reverse=True)))


def sorted_set_of_indices(x):
    idx = sorted({0, 2, 1} | {3}) + sorted({1, 2} & {2, 3})
    return sum(x[i] ** 2 for i in idx)


# ---- 3d. items put first in a loop, a list made an array under its own name --------------------------------


def discounted_returns(x, gamma=0.9):
    returns = []
    G = 0.0
    for r in reversed(list(x)):
        G = r + gamma * G
        returns.insert(0, G)
    returns = np.array(returns)
    return np.sum(returns * np.tanh(x))


def prepended_then_summed(x):
    acc = []
    for v in x:
        acc.insert(0, np.sin(v) * (len(acc) + 1.0))
    return sum(a * b for a, b in zip(acc, x))


def list_made_an_array_under_its_name(x):
    rows = [v ** 2 for v in x]
    rows = np.asarray(rows)
    return np.sum(rows * x) + rows[0]
