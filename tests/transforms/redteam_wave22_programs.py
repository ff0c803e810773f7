"""The red team's twenty-second wave: programs written the way users write them, aimed at closure
(every transformation accepts what grad accepts, or refuses at the user's line): small ODE
integrators and scientific loops (helpers returning tuples, lists of states, while loops with a
fixed trip count, early returns, keyword arguments, module constants, closures), machine-learning
losses (softmax cross-entropy spelled several ways, logsumexp by hand, layer norm, masked
attention, weight decay over dicts and tuples of parameters, einsum, reductions, reshapes), and
special points whose derivative is known by hand (POINTS).  test_redteam_wave22.py runs them
through every transformation against float64 central differences."""

import math

import numpy as np

DT = 0.05  # a module's step
STEPS = 8
OMEGA = np.array([1.0, 1.7, 0.6])  # a module's float64 array
EPS = 1e-5


def M(r, *shape):
    return r.normal(size=shape)


# ---- 1. scientific code ---------------------------------------------------------------------------


def _oscillator(x, v, k, damping=0.1):
    return v, -k * x - damping * v


def euler_tuple_helper(k):
    x, v = 1.0, 0.0
    for _ in range(STEPS):
        dx, dv = _oscillator(x, v, k)
        x, v = x + DT * dx, v + DT * dv
    return x * x + v * v


def _rhs(y, k):
    return -k * y + np.sin(y)


def rk4_module_steps(k):
    y = np.array([1.0, 0.5, -0.3])
    for _ in range(STEPS):
        k1 = _rhs(y, k)
        k2 = _rhs(y + 0.5 * DT * k1, k)
        k3 = _rhs(y + 0.5 * DT * k2, k)
        k4 = _rhs(y + DT * k3, k)
        y = y + DT / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def states_appended(y0):
    states = [y0]
    y = y0
    for _ in range(6):
        y = y + DT * (-OMEGA * y + 0.1 * y ** 2)
        states.append(y)
    traj = np.array(states)
    return np.sum(traj[:, 0] ** 2) + np.mean(traj[-1])


def states_stacked(y0):
    out = []
    y = y0
    for i in range(5):
        y = y - DT * np.tanh(y) * (i + 1)
        out.append(y)
    return np.sum(np.stack(out) * np.arange(1.0, 6.0)[:, None])


def while_fixed_trips(x):
    n = 0
    y = x
    while n < 6:
        y = y - 0.1 * (y ** 3 - 2.0)
        n += 1
    return np.sum(y ** 2)


def newton_sqrt(a):
    x = 1.0
    for _ in range(6):
        x = 0.5 * (x + a / x)
    return x


def _energy(x, v, k=2.0, m=1.0):
    return 0.5 * m * v * v + 0.5 * k * x * x


def early_return_in_if(k):
    x, v = 1.0, 0.0
    for _ in range(5):
        v = v - DT * k * x
        x = x + DT * v
    e = _energy(x, v, k=k)
    if e > 10.0:
        return e
    return e + x * v


def early_return_in_loop(x):
    s = 0.0
    for i in range(10):
        s = s + np.sum(np.cos(x * (i + 1)))
        if i == 4:
            return s * 2.0
    return s


def helper_many_places(p):
    def damped(u, scale=1.0, shift=0.0):
        return scale * np.exp(-u) * np.sin(u + shift)

    a = damped(p)
    b = damped(p, 2.0)
    c = damped(p, shift=0.3)
    d = damped(u=p * 0.5, scale=0.7, shift=-0.2)
    return np.sum(a * b + c - d)


def make_rhs(k, c=0.2):
    def rhs(y):
        return -k * y + c * y ** 2

    return rhs


def closure_factory(k):
    f = make_rhs(k)
    y = np.array([0.9, 0.4])
    for _ in range(4):
        y = y + DT * f(y)
    return np.sum(y)


def leapfrog_lists(q0):
    qs, ps = [q0], [np.zeros_like(q0)]
    q, p = q0, np.zeros_like(q0)
    for _ in range(5):
        p = p - 0.5 * DT * OMEGA * np.sin(q)
        q = q + DT * p
        p = p - 0.5 * DT * OMEGA * np.sin(q)
        qs.append(q)
        ps.append(p)
    return np.sum(np.array(qs) ** 2) + 0.1 * np.sum(np.array(ps))


def trapezoid_by_hand(a):
    t = np.linspace(0.0, 1.0, 11)
    y = np.exp(-a * t) * np.cos(3 * t)
    h = t[1] - t[0]
    return h * (0.5 * y[0] + np.sum(y[1:-1]) + 0.5 * y[-1])


def lotka_volterra(theta):
    alpha, beta, gamma, delta = theta[0], theta[1], theta[2], theta[3]
    prey, pred = 1.0, 0.5
    for _ in range(10):
        dprey = alpha * prey - beta * prey * pred
        dpred = delta * prey * pred - gamma * pred
        prey, pred = prey + DT * dprey, pred + DT * dpred
    return (prey - 1.2) ** 2 + (pred - 0.4) ** 2


def heat_stencil(u0):
    u = u0.copy()
    for _ in range(4):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + 0.2 * lap
    return np.sum(u ** 2 * np.arange(len(u)))


def step_returns_list(x):
    def step(a, b):
        return [a + DT * b, b - DT * math.sin(a)]

    state = [x, 0.1]
    for _ in range(6):
        state = step(state[0], state[1])
    return state[0] ** 2 + state[1]


def nested_helper_chain(x):
    def inner(u):
        return u * np.exp(-u * u)

    def middle(u, w=0.5):
        return inner(u) + w * inner(2 * u)

    return np.sum(middle(x) + middle(x, w=-1.0))


# ---- 2. machine-learning losses -------------------------------------------------------------------


def softmax_ce_onehot(z, y):
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.sum(y * np.log(p)) / z.shape[0]


def softmax_ce_labels(z, labels):
    m = z.max(axis=-1, keepdims=True)
    logp = z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))
    return -np.mean(logp[np.arange(z.shape[0]), labels])


def softmax_ce_take_along(z, labels):
    lse = np.log(np.sum(np.exp(z), axis=1))
    picked = np.take_along_axis(z, labels[:, None], axis=1)[:, 0]
    return np.mean(lse - picked)


def softmax_ce_loop(z, labels):
    total = 0.0
    for i in range(z.shape[0]):
        row = z[i]
        total += np.log(np.sum(np.exp(row))) - row[labels[i]]
    return total / len(labels)


def logsumexp_by_hand(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def label_smoothing_ce(z, y):
    k = z.shape[1]
    smooth = 0.9 * y + 0.1 / k
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(smooth * logp, axis=1))


def kl_between_softmaxes(a, b):
    pa = np.exp(a) / np.sum(np.exp(a))
    pb = np.exp(b) / np.sum(np.exp(b))
    return np.sum(pa * (np.log(pa) - np.log(pb)))


def layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + EPS) * gamma + beta
    return np.sum(h * np.tanh(h))


def rms_norm(x):
    scale = np.sqrt(np.mean(x * x, axis=1, keepdims=True) + EPS)
    return np.sum((x / scale) ** 3)


def masked_attention(q, k, v):
    d = q.shape[-1]
    scores = q @ k.T / np.sqrt(d)
    n = scores.shape[0]
    mask = np.tril(np.ones((n, n))) > 0
    scores = np.where(mask, scores, -1e9)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    return np.sum((w @ v) ** 2)


def additive_mask_attention(q, k, v):
    scores = np.einsum("id,jd->ij", q, k) / math.sqrt(q.shape[1])
    n = q.shape[0]
    causal = np.triu(np.ones((n, n)), 1) * -1e9
    s = scores + causal
    w = np.exp(s - np.max(s, axis=-1, keepdims=True))
    w /= np.sum(w, axis=-1, keepdims=True)
    return np.sum(np.einsum("ij,jd->id", w, v) * v)


def mlp_dict_weight_decay(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    data = np.mean((out - y) ** 2)
    decay = sum(np.sum(w ** 2) for name, w in params.items() if name.startswith("W"))
    return data + 1e-2 * decay


def mlp_tuple_params(params, X, y):
    W1, b1, W2 = params
    h = np.maximum(0.0, X @ W1 + b1) + 0.1 * np.tanh(X @ W1)
    pred = h @ W2
    l2 = 0.0
    for w in (W1, W2):
        l2 = l2 + np.sum(w * w)
    return np.mean((pred - y) ** 2) + 1e-3 * l2


def einsum_spellings(A, B):
    return (np.einsum("ij,ij->", A, B) + np.sum(np.einsum("ij,jk->ik", A, B.T) ** 2) * 0.1
            + np.einsum("ii->", A @ B.T) + np.sum(np.einsum("ij->j", A) * np.einsum("ij->i", B.T)))


def einsum_batched(X, W):
    H = np.einsum("bij,jk->bik", X, W)
    return np.sum(np.einsum("bik,bik->b", H, H)) + np.einsum("bij,bij", X, X)


def reductions_axis_keepdims(X):
    a = np.mean(X, axis=(0, 1))
    b = np.std(X, axis=0, keepdims=True)
    c = np.var(X, axis=-1, ddof=1)
    d = np.max(X, axis=2).sum()
    return np.sum(a * X[0]) + np.sum(b) + np.sum(c ** 2) + d


def reshape_transpose_concat(x):
    A = x.reshape(3, 4)
    B = A.T @ A
    C = np.concatenate([A, A[:, ::-1] * 2.0], axis=1)
    D = np.stack([A[0], A[1], A[2] ** 2], axis=1)
    return np.sum(B * 0.1) + np.sum(C[:, 1:5] ** 2) + np.sum(np.transpose(D) @ D)


def bce_with_logits(z, y):
    return np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def cosine_similarity_loss(a, b):
    num = np.sum(a * b, axis=1)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.mean(1.0 - num / den)


def squared_hinge(w, X, y):
    margin = y * (X @ w)
    return np.mean(np.maximum(0.0, 1.0 - margin) ** 2) + 0.5 * w @ w


def focal_loss(z, y):
    p = 1.0 / (1.0 + np.exp(-z))
    pt = np.where(y > 0.5, p, 1 - p)
    return -np.mean((1 - pt) ** 2 * np.log(pt))


def batch_norm_train(x, gamma):
    mu = x.mean(0)
    xc = x - mu
    var = (xc ** 2).mean(0)
    return np.sum((gamma * xc / np.sqrt(var + EPS)) ** 2 * np.arange(1, x.shape[1] + 1))


def while_until_time(k):
    t, y = 0.0, 1.0
    while t < 0.4:
        y = y + DT * (-k * y + math.cos(t))
        t += DT
    return y * y


def _relax(u, *, rate=0.5, floor=None):
    if floor is not None:
        u = np.maximum(u, floor)
    return u - rate * np.tanh(u)


def keyword_only_helper(u):
    a = _relax(u)
    b = _relax(u, rate=0.2)
    c = _relax(a, rate=0.1, floor=-5.0)
    return np.sum(a * b + c)


def list_of_states_read_back(x):
    hist = [x, 0.9 * x]
    for _ in range(4):
        hist.append(hist[-1] + 0.5 * (hist[-1] - hist[-2]) - DT * hist[-1] ** 3)
    return np.sum(hist[-1] ** 2) + np.sum(hist[2])


def return_in_a_loop_of_a_helper(x):
    # (early_return_helper_in_loop's `return` in an `if` is accepted since wave 23: one in a loop is not)
    def first_above(u, levels):
        for level in levels:
            if np.sum(u) > level:
                return u * level
        return u

    return np.sum(first_above(x, (3.0, 1.0, -1.0)) ** 2)


def softmax_index_newaxis(z, y):
    e = np.exp(z)
    p = e / e.sum(axis=1)[:, np.newaxis]
    return -np.sum(y * np.log(p))


def logsumexp_scipy(z):
    from scipy.special import logsumexp

    return np.sum(logsumexp(z, axis=1)) - np.sum(z[:, 0])


def attention_swapaxes(q, k):
    s = np.matmul(q, np.swapaxes(k, -1, -2)) / 2.0
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(-1, keepdims=True)
    return np.sum(w * np.arange(s.shape[-1]))


def einsum_ellipsis(X, w):
    return np.sum(np.einsum("...i,i->...", X, w) ** 2) + np.sum(np.einsum("...ij,...ij->...", X, X) ** 2)


def weight_decay_nested_tree(params, x):
    h = np.tanh(params["layers"][0]["w"] * x + params["layers"][0]["b"])
    out = np.sum(params["layers"][1]["w"] * h) + params["layers"][1]["b"]
    decay = 0.0
    for layer in params["layers"]:
        decay = decay + np.sum(layer["w"] ** 2)
    return (out - 1.0) ** 2 + 1e-2 * decay


def softmax_ce_logsumexp_keepdims_false(z, labels):
    m = np.max(z, axis=1)
    lse = m + np.log(np.sum(np.exp(z - m[:, None]), axis=1))
    onehot = np.zeros_like(z)
    onehot[np.arange(len(labels)), labels] = 1.0
    return np.mean(lse - np.sum(onehot * z, axis=1))


def group_norm_reshape(x):
    g = x.reshape(2, 2, 3)
    mu = g.mean(axis=(1, 2), keepdims=True)
    sd = np.sqrt(g.var(axis=(1, 2), keepdims=True) + EPS)
    y = ((g - mu) / sd).reshape(4, 3)
    return np.sum(y ** 3 + y * np.arange(12.0).reshape(4, 3))


def stack_concat_axis_minus_one(a, b):
    c = np.concatenate([a[:, None], b[:, None], (a * b)[:, None]], axis=-1)
    d = np.stack((a, b), axis=-1)
    return np.sum(c @ np.array([1.0, -2.0, 0.5])) + np.sum(np.prod(d, axis=-1) ** 2)


# ---- tables -----------------------------------------------------------------------------------------


def _onehot(r, n=4, k=3):
    return np.eye(k)[r.integers(0, k, size=n)]


def _labels(r, n=4, k=3):
    return r.integers(0, k, size=n)


def _mlp(r):
    params = {"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 2), "b2": M(r, 2)}
    return params, M(r, 5, 3), M(r, 5, 2)


#: (name, function, arguments(rng), the parameter differentiated)
PROGRAMS = [
    ("euler_tuple_helper", euler_tuple_helper, lambda r: (1.3,), 0),
    ("rk4_module_steps", rk4_module_steps, lambda r: (0.7,), 0),
    ("states_appended", states_appended, lambda r: (M(r, 3),), 0),
    ("states_stacked", states_stacked, lambda r: (M(r, 3),), 0),
    ("while_fixed_trips", while_fixed_trips, lambda r: (1.0 + 0.1 * M(r, 3),), 0),
    ("newton_sqrt", newton_sqrt, lambda r: (2.3,), 0),
    ("early_return_in_if", early_return_in_if, lambda r: (2.0,), 0),
    ("early_return_in_loop", early_return_in_loop, lambda r: (M(r, 3),), 0),
    ("helper_many_places", helper_many_places, lambda r: (M(r, 4),), 0),
    ("closure_factory", closure_factory, lambda r: (0.8,), 0),
    ("leapfrog_lists", leapfrog_lists, lambda r: (M(r, 3),), 0),
    ("trapezoid_by_hand", trapezoid_by_hand, lambda r: (0.6,), 0),
    ("lotka_volterra", lotka_volterra, lambda r: (np.array([1.1, 0.4, 0.9, 0.3]),), 0),
    ("heat_stencil", heat_stencil, lambda r: (M(r, 6),), 0),
    ("step_returns_list", step_returns_list, lambda r: (0.4,), 0),
    ("nested_helper_chain", nested_helper_chain, lambda r: (M(r, 3),), 0),
    ("softmax_ce_onehot", softmax_ce_onehot, lambda r: (M(r, 4, 3), _onehot(r)), 0),
    ("softmax_ce_labels", softmax_ce_labels, lambda r: (M(r, 4, 3), _labels(r)), 0),
    ("softmax_ce_take_along", softmax_ce_take_along, lambda r: (M(r, 4, 3), _labels(r)), 0),
    ("softmax_ce_loop", softmax_ce_loop, lambda r: (M(r, 4, 3), _labels(r)), 0),
    ("logsumexp_by_hand", logsumexp_by_hand, lambda r: (M(r, 5),), 0),
    ("label_smoothing_ce", label_smoothing_ce, lambda r: (M(r, 4, 3), _onehot(r)), 0),
    ("kl_between_softmaxes", kl_between_softmaxes, lambda r: (M(r, 4), M(r, 4)), 0),
    ("kl_between_softmaxes_b", kl_between_softmaxes, lambda r: (M(r, 4), M(r, 4)), 1),
    ("layer_norm", layer_norm, lambda r: (M(r, 3, 4), 1.0 + 0.1 * M(r, 4), M(r, 4)), 0),
    ("layer_norm_gamma", layer_norm, lambda r: (M(r, 3, 4), 1.0 + 0.1 * M(r, 4), M(r, 4)), 1),
    ("rms_norm", rms_norm, lambda r: (M(r, 2, 4),), 0),
    ("masked_attention", masked_attention, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 3, 2)), 0),
    ("masked_attention_k", masked_attention, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 3, 2)), 1),
    ("additive_mask_attention", additive_mask_attention, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 3, 2)), 0),
    ("additive_mask_attention_v", additive_mask_attention, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 3, 2)), 2),
    ("mlp_dict_weight_decay", mlp_dict_weight_decay, _mlp, 0),
    ("mlp_tuple_params", mlp_tuple_params, lambda r: ((M(r, 3, 4), M(r, 4), M(r, 4, 1)), M(r, 5, 3), M(r, 5, 1)), 0),
    ("einsum_spellings", einsum_spellings, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("einsum_spellings_b", einsum_spellings, lambda r: (M(r, 3, 3), M(r, 3, 3)), 1),
    ("einsum_batched", einsum_batched, lambda r: (M(r, 2, 3, 2), M(r, 2, 2)), 0),
    ("einsum_batched_w", einsum_batched, lambda r: (M(r, 2, 3, 2), M(r, 2, 2)), 1),
    ("reductions_axis_keepdims", reductions_axis_keepdims, lambda r: (M(r, 2, 3, 4),), 0),
    ("reshape_transpose_concat", reshape_transpose_concat, lambda r: (M(r, 12),), 0),
    ("bce_with_logits", bce_with_logits, lambda r: (M(r, 5), (M(r, 5) > 0).astype(float)), 0),
    ("cosine_similarity_loss", cosine_similarity_loss, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("squared_hinge", squared_hinge, lambda r: (M(r, 3), M(r, 6, 3), np.sign(M(r, 6))), 0),
    ("focal_loss", focal_loss, lambda r: (M(r, 5), (M(r, 5) > 0).astype(float)), 0),
    ("batch_norm_train", batch_norm_train, lambda r: (M(r, 5, 3), 1.0 + M(r, 3)), 0),
    ("while_until_time", while_until_time, lambda r: (0.9,), 0),
    ("keyword_only_helper", keyword_only_helper, lambda r: (M(r, 4),), 0),
    ("list_of_states_read_back", list_of_states_read_back, lambda r: (0.5 * M(r, 3),), 0),
    ("softmax_index_newaxis", softmax_index_newaxis, lambda r: (M(r, 4, 3), _onehot(r)), 0),
    ("logsumexp_scipy", logsumexp_scipy, lambda r: (M(r, 3, 4),), 0),
    ("attention_swapaxes", attention_swapaxes, lambda r: (M(r, 2, 3, 2), M(r, 2, 3, 2)), 0),
    ("einsum_ellipsis", einsum_ellipsis, lambda r: (M(r, 2, 3, 2), M(r, 2)), 0),
    ("einsum_ellipsis_w", einsum_ellipsis, lambda r: (M(r, 2, 3, 2), M(r, 2)), 1),
    ("weight_decay_nested_tree", weight_decay_nested_tree, lambda r: (
        {"layers": [{"w": M(r, 3), "b": M(r, 3)}, {"w": M(r, 3), "b": 0.2}]}, 0.7), 0),
    ("softmax_ce_logsumexp_keepdims_false", softmax_ce_logsumexp_keepdims_false,
     lambda r: (M(r, 4, 3), _labels(r)), 0),
    ("group_norm_reshape", group_norm_reshape, lambda r: (M(r, 12),), 0),
    ("stack_concat_axis_minus_one", stack_concat_axis_minus_one, lambda r: (M(r, 4), M(r, 4)), 0),
]


# ---- 3. special points: the derivative written by hand --------------------------------------------


def pow_zero_and_one(x):
    return np.sum(x ** 0 * np.cos(x)) + np.sum(x ** 1) + np.sum(x ** 0.0)


def pow_at_zero(x):
    return np.sum(x ** 2 + x ** 3 + np.abs(x) ** 2.5)


def pow_variable_integer_exponent(x, n):
    return np.sum(x ** n) + np.sum(x ** (n + 1))


def pow_base_zero_wrt_exponent(y, x):
    return np.sum(x ** y)


def sqrt_double_where(x):
    return np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0))


def sqrt_naive_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def sinc_where(x):
    return np.sum(np.where(x == 0, 1.0, np.sin(x) / x))


def log_untaken_negative(x):
    return np.sum(np.where(x > 0, np.log(x), x))


def reciprocal_guard(x):
    return np.sum(np.where(x == 0, 0.0, 1.0 / x))


def abs_at_zero(x):
    return np.sum(2.0 * np.abs(x) + x)


def maximum_tie(x):
    return np.sum(np.maximum(x, 1.0) * np.array([1.0, 2.0, 3.0]))


def relu_at_zero(x):
    return np.sum(np.maximum(x, 0.0) + 3.0 * np.minimum(x, 0.0))


def clip_at_bounds(x):
    return np.sum(3.0 * np.clip(x, -1.0, 1.0))


def exp_overflow_untaken(x):
    return np.sum(np.where(x < 50.0, np.exp(np.minimum(x, 60.0) * 0 + x), 0.0))


def divide_untaken(x, d):
    return np.sum(np.where(d > 0, x / d, 0.0))


def arcsin_untaken(x):
    return np.sum(np.where(np.abs(x) < 1.0, np.arcsin(x), 0.0))


def entropy_where(p):
    return -np.sum(np.where(p > 0, p * np.log(p), 0.0))


def builtin_max_tie(a, b):
    return max(a, b) * 2.0 + min(a, b)


def sqrt_of_square_norm_squared(x):
    return np.sqrt(x @ x) ** 2


def power_half_where(x):
    return np.sum(np.where(x > 0, x ** 0.5, 0.0))


_Z = np.array([0.0, 1.5, -2.0])

#: (name, function, arguments, the parameter differentiated, the gradient by hand)
POINTS = [
    ("pow_zero_and_one", pow_zero_and_one, (_Z.copy(),), 0, -np.sin(_Z) + 1.0),
    ("pow_at_zero", pow_at_zero, (np.array([0.0, 0.0, 2.0]),), 0,
     np.array([0.0, 0.0, 4.0 + 12.0 + 2.5 * 2.0 ** 1.5])),
    ("pow_variable_integer_exponent_0", pow_variable_integer_exponent, (np.array([0.0, 2.0]), 0), 0,
     np.array([1.0, 1.0])),
    ("pow_variable_integer_exponent_1", pow_variable_integer_exponent, (np.array([0.0, 2.0]), 1), 0,
     np.array([1.0, 1.0 + 4.0])),
    ("pow_base_zero_wrt_exponent", pow_base_zero_wrt_exponent, (1.5, np.array([0.0, 2.0])), 0,
     2.0 ** 1.5 * math.log(2.0)),
    ("sqrt_double_where", sqrt_double_where, (np.array([-1.0, 0.0, 4.0]),), 0, np.array([0.0, 0.0, 0.25])),
    ("sqrt_naive_where", sqrt_naive_where, (np.array([-1.0, 0.0, 4.0]),), 0, np.array([0.0, 0.0, 0.25])),
    # (an equality guard: NaN at the guarded point, documented in docs/guarantees.md)
    ("sinc_where", sinc_where, (np.array([0.0, 1.0]),), 0, np.array([np.nan, math.cos(1.0) - math.sin(1.0)])),
    ("log_untaken_negative", log_untaken_negative, (np.array([-2.0, 0.0, 4.0]),), 0, np.array([1.0, 1.0, 0.25])),
    ("reciprocal_guard", reciprocal_guard, (np.array([0.0, 2.0]),), 0, np.array([np.nan, -0.25])),
    ("abs_at_zero", abs_at_zero, (np.array([0.0, -1.0, 1.0]),), 0, np.array([1.0, -1.0, 3.0])),
    ("maximum_tie", maximum_tie, (np.array([1.0, 2.0, 0.0]),), 0, np.array([0.5, 2.0, 0.0])),
    ("relu_at_zero", relu_at_zero, (np.array([0.0, 1.0, -1.0]),), 0, np.array([2.0, 1.0, 3.0])),
    ("clip_at_bounds", clip_at_bounds, (np.array([-1.0, 1.0, 0.0, 2.0]),), 0, np.array([1.5, 1.5, 3.0, 0.0])),
    ("exp_overflow_untaken", exp_overflow_untaken, (np.array([1000.0, 1.0]),), 0, np.array([0.0, math.e])),
    ("divide_untaken", divide_untaken, (np.array([1.0, 3.0]), np.array([0.0, 2.0])), 0, np.array([0.0, 0.5])),
    ("arcsin_untaken", arcsin_untaken, (np.array([1.0, 0.5]),), 0, np.array([0.0, 1.0 / math.sqrt(0.75)])),
    ("entropy_where", entropy_where, (np.array([0.0, 0.5]),), 0, np.array([0.0, -(math.log(0.5) + 1.0)])),
    ("builtin_max_tie", builtin_max_tie, (1.25, 1.25), 0, 1.5),
    ("sqrt_of_square_norm_squared", sqrt_of_square_norm_squared, (np.zeros(3),), 0, np.zeros(3)),
    ("power_half_where", power_half_where, (np.array([0.0, -1.0, 4.0]),), 0, np.array([0.0, 0.0, 0.25])),
]

#: what grad refuses at the user's line: every transformation must refuse it there too
#: (name, function, arguments(rng), the parameter differentiated)
REFUSED = [
    ("return_in_a_loop_of_a_helper", return_in_a_loop_of_a_helper, lambda r: (M(r, 3),), 0),
]
