"""The red team's wave 25b: the API surface as a demanding user drives it (argnums, keywords,
defaults, trees, vmap's in_axes, jit="numba", float32, calls of one function with arguments of
several kinds).  test_redteam_wave25b.py runs them against float64 central differences.

Finding 1 (ZERO_D): a 0-d array parameter (a temperature, a bias, ``np.array(0.7)``) under
``jit="numba"``: the optimiser spelled ``np.sum(t * s)`` as ``(t * s).sum()``, and numba's
arithmetic on 0-d arrays gives a number, which has no ``.sum()``, so value_and_grad, vjp and
hessian were refused where grad and NumPy run.

Finding 2 (CAST_BATCHED): ``vmap(grad(loss))`` of float32 data with a parameter that is a number
(``np.float32(b)``, or a Python float next to float32 arrays), or a number batched with in_axes 0:
the generated gradient returns ``np.float32(b_bar)`` (its argument's type), and ``np.float32`` /
``np.float64`` had no batching rule, so the per-example gradients were refused where float64's run.

Finding 3 (NARROWED_INSIDE): a float64 argument (array, NumPy or Python number) whose function
makes a float32 value (``np.float32(x)``, ``x.astype(np.float32)``, a float32 global meeting a
Python number) got a float32 gradient: its adjoint flows through the float32 value and nothing
converted it back, where every gradient has its argument's dtype.

Finding 4 (refusals): a transformation given a function another one made (``grad(vmap(f))``,
``jacobian(vmap(f))``, ``vmap(hessian(f))``, ``vmap(vmap(f))``) was refused as "vmap(f) takes
*args" located in srcdiff's own vmap.py, or as "srcdiff differentiates Python functions; got
Hessian <... at 0x...>"; ``vmap(value_and_grad(f))`` and ``vmap(grad(f, jit="numba"))`` said
"can be differentiated again".  Each now names the two transformations and what to write.
A tree or an object given to vmap (``vmap(loss, in_axes=(None, 0))(params_dict, X)``) was refused
at the first line reading it, as "index 'w' is not an integer" or "the attribute .W is not
supported (use the equivalent NumPy function)"; now by the argument, at the def line.

Finding 5 (VECTOR_FLOAT32): ``jacobian(f, jit="numba")`` of float32 arguments was refused ("its rows
cannot be batched: ... lists") where float64's run: the compiled forward columns took float64
only.  Now each column is a compiled forward sweep in the arguments' dtype.  And ``jvp`` of a
float32 function through ``np.prod`` gave a float64 tangent (prod_adjoint worked in float64).
"""

import numpy as np

# ---- finding 1: 0-d array parameters, numba ------------------------------------------------------


def zero_d_square(t):
    return np.sum(t * t)


def zero_d_poly(t):
    return np.sum(t**3 - 2.0 * t**2 + np.cos(t))


def zero_d_product(t, s):
    return np.sum(t * s) * np.sum(t)


def zero_d_bias(b, X, y):
    r = X @ np.ones(3) + b - y
    return np.sum(r * r)


def zero_d_temperature(t, z):
    a = z / t
    a = a - np.max(a)
    return np.log(np.sum(np.exp(a)))


def zero_d_tree(p):
    return np.sum(p["a"] * p["a"]) + np.sum(p["b"] * np.exp(p["a"]))


def _zero_d(rng):
    return (np.array(rng.uniform(0.5, 1.5)),)


ZERO_D = [
    ("zero_d_square", zero_d_square, _zero_d, 0),
    ("zero_d_poly", zero_d_poly, _zero_d, 0),
    ("zero_d_product", zero_d_product, lambda rng: (np.array(0.9), np.array(-1.2)), 0),
    ("zero_d_bias", zero_d_bias, lambda rng: (np.array(0.2), rng.normal(size=(4, 3)), rng.normal(size=4)), 0),
    ("zero_d_temperature", zero_d_temperature, lambda rng: (np.array(1.3), rng.normal(size=5)), 0),
    ("zero_d_tree", zero_d_tree, lambda rng: ({"a": np.array(0.5), "b": np.array(1.5)},), 0),
]


# ---- finding 2: np.float32 / np.float64 of a batched value -------------------------------------------


def per_example_bias(w, b, x, y):
    r = np.dot(x, w) + b - y
    return np.log(1.0 + r * r)


def per_example_scale(w, x, y, c=1.0):
    r = np.dot(x, w) - y
    return c * c * (np.sqrt(1.0 + (r / c) ** 2) - 1.0)


def casts_inside(x):
    return np.float64(x) * 2.0 + np.float32(x) ** 2


# ---- finding 3: float64 arguments of functions that make float32 values ---------------------------

HALF32 = np.float32(0.5)


def squared_cast(x):
    return np.float32(x) ** 2 + x


def squared_cast_sum(x):
    return np.sum(np.float32(x) ** 2 + x)


def astype_loss(w, X, y):
    r = (X @ w).astype(np.float32) - y
    return np.mean(r * r) + 0.1 * np.sum(w * w)


def float32_global(x):
    return np.sum(HALF32 * x * x)


def float32_keyword(x):
    s = np.ones(np.shape(x), dtype=np.float32)
    return np.sum(s * np.sin(x)) + np.sum(x)


def tree_cast(p):
    return np.sum(np.float32(p["a"]) * p["b"]) + np.sum(p["a"] ** 2)


# the same functions without the casts: the float64 references (central differences of a function
# that rounds to float32 inside measure its rounding, not its derivative)


def squared_plain(x):
    return x**2 + x


def squared_plain_sum(x):
    return np.sum(x**2 + x)


def plain_loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r) + 0.1 * np.sum(w * w)


def half_plain(x):
    return np.sum(0.5 * x * x)


def keyword_plain(x):
    return np.sum(np.sin(x)) + np.sum(x)


def tree_plain(p):
    return np.sum(p["a"] * p["b"]) + np.sum(p["a"] ** 2)


TWINS = {
    squared_cast: squared_plain,
    squared_cast_sum: squared_plain_sum,
    astype_loss: plain_loss,
    float32_global: half_plain,
    float32_keyword: keyword_plain,
    tree_cast: tree_plain,
}

NARROWED_INSIDE = [
    ("squared_cast_number", squared_cast, lambda rng: (float(rng.uniform(0.1, 1.0)),), 0),
    ("squared_cast_0d", squared_cast, lambda rng: (np.array(rng.uniform(0.1, 1.0)),), 0),
    ("squared_cast_sum", squared_cast_sum, lambda rng: (rng.normal(size=4),), 0),
    ("astype_loss", astype_loss, lambda rng: (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)), 0),
    ("float32_global_number", float32_global, lambda rng: (float(rng.uniform(0.1, 1.0)),), 0),
    ("float32_keyword", float32_keyword, lambda rng: (rng.normal(size=4),), 0),
    ("tree_cast", tree_cast, lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=3)},), 0),
]


# ---- finding 4: compositions srcdiff does not take ------------------------------------------------


def cube(x):
    return np.sum(x**3) + np.sum(np.sin(x))


def rows(x):
    return np.sin(x) * np.sum(x)


def tree_loss(p, x):
    return np.sum(p["w"] * x) + p["c"]


def config_scale(x, cfg):
    return x * cfg["k"]


def attribute_loss(p, X, y):
    r = X @ p.W + p.b - y
    return np.mean(r * r)


def rnn_like(h, xs):
    for x in xs:
        h = np.tanh(0.5 * h + x)
    return np.sum(h * h)


# ---- finding 5: vector-valued functions of float32 arguments ----------------------------------------


def product_features(x):
    return np.array([np.sum(x**2), np.prod(x[:3])])


def outer_features(x):
    return np.outer(x, x).ravel() * np.sin(x[0])


def scaled_rows(x, y):
    return np.sin(x) * y + x**2


def running_product(x):
    return np.prod(x) * x


VECTOR_FLOAT32 = [product_features, outer_features, running_product]
