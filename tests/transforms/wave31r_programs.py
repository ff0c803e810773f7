"""Wave 31r: dicts, lists and tuples written as users write them (test_wave31r.py runs them).

* DICTS: dict comprehensions over a module dict, over ``zip`` of names and computed arrays, over
  ``range`` of a runtime int; list comprehensions building dicts; ``d.setdefault(k, []).append(...)``;
  a local dict's ``.items()`` zipped with an array; a local dict read with a loop variable;
  ``NAMED["lo"]`` inside a loop over that dict;
* CALLS: functions appended to a list in a loop, then called;
* LISTS: appending to a list after it was read outside a loop;
* TUPLES: a loop over a tuple of tuples of computed arrays; lists of new ``(t, y)`` tuples built in a
  loop (Heun, predictor-corrector);
* SECOND: second order of a slice of a list a helper returns, of ``zip(xs, ks)`` with ``p[k]``.
"""

from __future__ import annotations

import numpy as np

WEIGHTS = {"bias": 0.5, "scale": 1.5, "drift": -0.25}
NAMED = {"lo": 0.2, "hi": 1.5}
BOUNDS = {"lo": -0.5, "hi": 0.8}
NAMES = ("quad", "wave", "cross")
LABELS = ("a", "b", "a", "c", "b", "a")
PRIORS = {"mu": 0.0, "log_sigma": 0.1, "rho": 0.3}
KS = ("mu", "log_sigma", "mu")
Y6 = np.array([0.3, -0.2, 0.9, 0.1, -0.7, 0.4])
RATES = (0.5, 1.0, 2.0)
ORDER = (2, 0, 1)


# ---- DICTS ----

def comp_module_dict(x):
    terms = {k: w * np.sum(x ** 2) for k, w in WEIGHTS.items()}
    return sum(terms.values()) + np.sum(np.sin(x))


def comp_module_dict_enumerate(x):
    coef = {name: x[i] * w for i, (name, w) in enumerate(WEIGHTS.items())}
    return coef["bias"] ** 2 + coef["scale"] * coef["drift"] + np.sum(x ** 3)


def comp_module_dict_keys(x):
    scaled = {k: np.exp(WEIGHTS[k] * x) for k in WEIGHTS}
    return sum(np.sum(v) for v in scaled.values())


def comp_zip_names(x, y=Y6):
    parts = {n: a for n, a in zip(NAMES, (x ** 2, np.sin(x), x * y))}
    return np.sum(parts["quad"]) + np.sum(parts["wave"] * parts["cross"])


def comp_zip_names_loss(x, y=Y6):
    resid = x - y
    losses = {name: np.mean(v) for name, v in zip(("l2", "l1ish", "cosh"),
                                                   [resid ** 2, np.sqrt(resid ** 2 + 1e-3), np.log(np.cosh(resid))])}
    return losses["l2"] + 0.5 * losses["l1ish"] + 0.25 * losses["cosh"]


def comp_range_runtime(x, n=4):
    powers = {i: x[i] ** (i + 1) for i in range(n)}
    return sum(powers[i] for i in range(n)) + np.sum(x ** 2)


def comp_range_len(x):
    n = len(x) // 2
    pairs = {i: x[2 * i] * x[2 * i + 1] for i in range(n)}
    total = 0.0
    for i in range(n):
        total = total + np.tanh(pairs[i])
    return total


def list_of_dicts(x):
    layers = [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(3)]
    h = 0.7
    for layer in layers:
        h = np.tanh(layer["w"] * h + layer["b"])
    return h ** 2


def list_of_dicts_likelihood(x, y=Y6):
    comps = [{"mu": x[i], "log_s": x[i + 3]} for i in range(3)]
    ll = 0.0
    for c in comps:
        s = np.exp(c["log_s"])
        ll = ll + np.sum(-0.5 * ((y - c["mu"]) / s) ** 2 - np.log(s))
    return -ll


def list_of_dicts_runtime_count(x, layers=3):
    net = [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(layers)]
    h = 0.5
    for layer in net:
        h = np.tanh(layer["w"] * h + layer["b"])
    return h


def setdefault_groups(x, labels=LABELS):
    groups = {}
    for lab, v in zip(labels, x):
        groups.setdefault(lab, []).append(v)
    return sum(np.mean(np.array(vs)) ** 2 for vs in groups.values())


def setdefault_groups_loop(x):
    groups = {}
    for i, lab in enumerate(LABELS):
        groups.setdefault(lab, []).append(x[i] ** 2)
    total = 0.0
    for lab, vs in groups.items():  # noqa: B007 (as users write it)
        total = total + sum(vs) / len(vs)
    return total


def setdefault_groups_zip(x):
    groups = {}
    for lab, v in zip(LABELS, x):
        groups.setdefault(lab, []).append(np.exp(v))
    return sum(np.log(np.mean(np.array(vs))) for vs in groups.values())


def setdefault_per_group_likelihood(theta, y=Y6):
    by_group = {}
    for lab, yi in zip(LABELS, y):
        by_group.setdefault(lab, []).append(yi)
    nll = 0.0
    for k, (lab, ys) in enumerate(sorted(by_group.items())):  # noqa: B007 (as users write it)
        r = np.array(ys) - theta[k]
        nll = nll + 0.5 * np.sum(r ** 2) + 0.1 * theta[k] ** 2
    return nll


def setdefault_group_means(theta, y=Y6):
    members = {}
    for i, lab in enumerate(LABELS):
        members.setdefault(lab, []).append(i)
    nll = 0.0
    for k, lab in enumerate(("a", "b", "c")):
        idx = members[lab]
        nll = nll + np.sum((y[np.array(idx)] - theta[k]) ** 2) / len(idx) + np.exp(theta[k])
    return nll


def local_items_zip(x):
    params = {"a": 1.0, "b": 2.0, "c": 0.5}
    total = 0.0
    for (name, scale), xi in zip(params.items(), x):  # noqa: B007 (as users write it)
        total = total + scale * np.sin(xi) ** 2
    return total


def local_items_zip_computed(x):
    feats = {"sq": x ** 2, "cube": x ** 3}
    total = 0.0
    for (name, f), w in zip(feats.items(), x[:2]):  # noqa: B007 (as users write it)
        total = total + w * np.sum(f)
    return total


def local_dict_loop_key(x):
    d = {"a": x[0] ** 2, "b": np.sin(x[1]), "c": x[2] * x[0]}
    total = 0.0
    for k in ("a", "b", "c"):
        total = total + d[k] * 2.0
    return total


def local_dict_loop_keys_of_itself(x):
    state = {"pos": x[:3], "vel": x[3:]}
    e = 0.0
    for k in state:
        e = e + 0.5 * np.sum(state[k] ** 2)
    return e


def named_in_dict_loop(p):
    acc = 0.0
    for name in NAMED:
        acc = acc + np.sum(np.clip(p, NAMED["lo"], NAMED["hi"]) ** 3) * NAMED[name]
    return acc + np.sum(p ** 2)


def named_in_items_loop(p):
    acc = 0.0
    for name, v in BOUNDS.items():  # noqa: B007 (as users write it)
        acc = acc + v * np.sum(np.tanh(p - BOUNDS["lo"]))
    return acc


# ---- CALLS: functions appended to a list in a loop ----

def appended_lambdas(x):
    fs = []
    for r in RATES:
        fs.append(lambda t, r=r: np.exp(-r * t))
    return sum(np.sum(f(x)) for f in fs)


def appended_defs(x):
    terms = []
    for k in range(3):
        def term(t, k=k):
            return np.sin((k + 1) * t) / (k + 1)
        terms.append(term)
    total = 0.0
    for f in terms:
        total = total + np.sum(f(x) ** 2)
    return total


def appended_lambdas_indexed(x):
    basis = []
    for c in (1.0, 2.0, 3.0):
        basis.append(lambda t, c=c: t ** 2 * c)
    return sum(np.sum(basis[i](x)) * x[i] for i in range(3))


# ---- LISTS: append after a read outside a loop ----

def append_after_read(x):
    xs = [x[0]]
    a = xs[0] * 2.0
    xs.append(a + x[1])
    xs.append(np.sin(xs[-1]))
    return sum(v ** 2 for v in xs)


def append_after_read_array(x):
    hist = [x]
    first = np.sum(hist[0] ** 2)
    hist.append(np.tanh(hist[-1]) * first)
    return np.sum(hist[-1]) + first


def append_after_len(x):
    path = [x[0], x[1]]
    m = len(path)
    mid = path[0] * path[1]
    path.append(mid / m)
    for k in range(2):  # noqa: B007 (as users write it)
        path.append(path[-1] * 0.5 + path[-2])
    return sum(path)


# ---- TUPLES ----

def tuple_of_tuples(x, y=Y6):
    total = 0.0
    for a, b in ((x, y), (x ** 2, np.sin(x)), (np.exp(-x), x)):
        total = total + np.sum(a * b)
    return total


def tuple_of_tuples_weights(x):
    terms = ((0.5, x ** 2), (1.5, np.cos(x)), (-0.2, x * x[0]))
    return sum(w * np.sum(t) for w, t in terms)


def heun_states(y0, h=0.1, n=5):
    states = [(0.0, y0)]
    for _ in range(n):
        t, y = states[-1]
        k1 = -y ** 3 + np.sin(t)
        k2 = -(y + h * k1) ** 3 + np.sin(t + h)
        states.append((t + h, y + 0.5 * h * (k1 + k2)))
    return np.sum(states[-1][1] ** 2)


def predictor_corrector(y0, h=0.05, n=4):
    traj = [(0.0, y0)]
    for k in range(n):
        t, y = traj[k]
        pred = y + h * (-y * t - y ** 2)
        corr = y + 0.5 * h * ((-y * t - y ** 2) + (-pred * (t + h) - pred ** 2))
        traj.append((t + h, corr))
    return sum(np.sum(yy) for _, yy in traj)


def leapfrog_states(q0, h=0.1):
    states = [(0.0, q0, np.zeros_like(q0))]
    for _ in range(5):
        t, q, v = states[-1]
        v_half = v - 0.5 * h * np.sin(q)
        q_new = q + h * v_half
        states.append((t + h, q_new, v_half - 0.5 * h * np.sin(q_new)))
    energy = [0.5 * np.sum(v ** 2) - np.sum(np.cos(q)) for _, q, v in states]
    return sum(energy) / len(energy)


def heun_unpack_loop(y0, h=0.1):
    out = [(0.0, y0)]
    t, y = 0.0, y0
    for _ in range(4):
        f0 = np.tanh(y) - 0.1 * t
        yp = y + h * f0
        y = y + 0.5 * h * (f0 + np.tanh(yp) - 0.1 * (t + h))
        t = t + h
        out.append((t, y))
    return sum(np.sum(y ** 2) * t for t, y in out)


# ---- SECOND ORDER ----

def _moments(x):
    return [np.sum(x), np.sum(x ** 2), np.sum(x ** 3), np.sum(np.sin(x))]


def helper_list_slice(x):
    m = _moments(x)
    return sum(v ** 2 for v in m[1:3]) + m[0]


def helper_list_slice_loop(x):
    total = 0.0
    for v in _moments(x)[:2]:
        total = total + np.exp(0.1 * v)
    return total


def _stats(x):
    mu = np.mean(x)
    return (mu, np.mean((x - mu) ** 2), np.max(x), np.sum(np.exp(x)))


def helper_tuple_tail(x):
    var, peak, mass = _stats(x)[-3:]
    return var * mass + peak ** 2


def helper_list_every_other(x):
    m = _moments(x)
    return sum(np.tanh(v) for v in m[::2]) * m[1]


def zip_keys_dict(x, ks=KS):
    p = {"mu": x[0], "log_sigma": x[1], "rho": x[2]}
    total = 0.0
    for xi, k in zip(x, ks):
        total = total + p[k] * xi ** 2
    return total


def zip_keys_module_tuple(x):
    p = {"mu": x[0], "log_sigma": x[1], "rho": x[2]}
    total = 0.0
    for xi, k in zip(x, KS):
        total = total + p[k] * xi ** 2
    return total


def zip_int_keys(x, ks=ORDER):
    total = 0.0
    for xi, k in zip(x, ks):
        total = total + x[k] * np.sin(xi)
    return total


def zip_int_keys_reversed(x, ks=ORDER):
    total = 0.0
    for xi, k in reversed(list(zip(x, ks))):
        total = total * 0.5 + x[k] * xi ** 2
    return total


def zip_keys_priors(x, ks=KS):
    total = 0.0
    for xi, k in zip(x, ks):
        total = total + (xi - PRIORS[k]) ** 2 * np.exp(xi)
    return total


def _z(*values):
    return np.array(values, dtype=float)


def _pos(*v):
    return lambda r: (_z(*v),)


def _r(n, lo=-1.0, hi=1.0):
    return lambda r: (r.uniform(lo, hi, n),)


PROGRAMS = [
    ("comp_module_dict", comp_module_dict, _r(3), 0),
    ("comp_module_dict_enumerate", comp_module_dict_enumerate, _r(3), 0),
    ("comp_module_dict_keys", comp_module_dict_keys, _r(3), 0),
    ("comp_zip_names", comp_zip_names, _r(6), 0),
    ("comp_zip_names_loss", comp_zip_names_loss, _r(6), 0),
    ("comp_range_runtime", comp_range_runtime, lambda r: (r.uniform(0.5, 1.0, 5), 4), 0),
    ("comp_range_len", comp_range_len, _r(6), 0),
    ("list_of_dicts", list_of_dicts, _r(6), 0),
    ("list_of_dicts_likelihood", list_of_dicts_likelihood, _r(6), 0),
    ("list_of_dicts_runtime_count", list_of_dicts_runtime_count, _r(6), 0),
    ("setdefault_groups", setdefault_groups, _r(6), 0),
    ("setdefault_groups_loop", setdefault_groups_loop, _r(6), 0),
    ("setdefault_groups_zip", setdefault_groups_zip, _r(6), 0),
    ("setdefault_per_group_likelihood", setdefault_per_group_likelihood, _r(3), 0),
    ("setdefault_group_means", setdefault_group_means, _r(3), 0),
    ("local_items_zip", local_items_zip, _r(3), 0),
    ("local_items_zip_computed", local_items_zip_computed, _r(4), 0),
    ("local_dict_loop_key", local_dict_loop_key, _r(3), 0),
    ("local_dict_loop_keys_of_itself", local_dict_loop_keys_of_itself, _r(6), 0),
    ("named_in_dict_loop", named_in_dict_loop, _pos(0.7, -0.4, 1.1), 0),
    ("named_in_items_loop", named_in_items_loop, _r(3), 0),
    ("appended_lambdas", appended_lambdas, _r(3), 0),
    ("appended_defs", appended_defs, _r(3), 0),
    ("appended_lambdas_indexed", appended_lambdas_indexed, _r(3), 0),
    ("append_after_read", append_after_read, _r(2), 0),
    ("append_after_read_array", append_after_read_array, _r(3), 0),
    ("append_after_len", append_after_len, _r(2), 0),
    ("tuple_of_tuples", tuple_of_tuples, _r(6), 0),
    ("tuple_of_tuples_weights", tuple_of_tuples_weights, _r(3), 0),
    ("heun_states", heun_states, _r(3), 0),
    ("predictor_corrector", predictor_corrector, _r(3, 0.2, 0.8), 0),
    ("leapfrog_states", leapfrog_states, _r(3), 0),
    ("heun_unpack_loop", heun_unpack_loop, _r(3), 0),
    ("helper_list_slice", helper_list_slice, _r(3), 0),
    ("helper_list_slice_loop", helper_list_slice_loop, _r(3), 0),
    ("helper_tuple_tail", helper_tuple_tail, _r(4), 0),
    ("helper_list_every_other", helper_list_every_other, _r(3), 0),
    ("zip_keys_dict", zip_keys_dict, _r(3), 0),
    ("zip_keys_module_tuple", zip_keys_module_tuple, _r(3), 0),
    ("zip_int_keys", zip_int_keys, _r(3), 0),
    ("zip_int_keys_reversed", zip_int_keys_reversed, _r(3), 0),
    ("zip_keys_priors", zip_keys_priors, _r(3), 0),
]
