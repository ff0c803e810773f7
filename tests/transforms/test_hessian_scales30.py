"""Issue 26, second order: a Hessian of a few parameters in one batched call whose elementwise
chains are folded into row-sized factors (ad/batched_scales.py), and a Hessian of a few numbers
by one forward sweep of floats (api/hessians.py, numbers first).

Every program runs through every transformation against float64 central differences (the matrix:
grad, value_and_grad, jvp, vjp, jacobian, hvp, a tree of the argument, float32, hessian, check;
numba on two rows); every Hessian is compared with central differences of the gradient at generic points,
and with the per-row path (``batched.enabled = False``: one pullback per row) at ties and kinks
(a residual on a clip's bound, at 0 under an abs, two sides of a maximum equal, a margin of
exactly 1), where the tested second derivatives (NaN where undefined, the persisting tie's 0) must
stay as they were, and where a base of the folded chains is not finite (the guard's other branch).

Census of the 10 programs (ok / n/a / refused at the user's line / WRONG), every cell run (the
fixes change the Hessian's speed; its values are compared with the code as it was below): grad,
value_and_grad, jvp, vjp, jacobian, tree, check, hessian, numba 10/0/0/0 each; hvp 9/1/0/0; float32
8/2/0/0.

Found and fixed (hessian/grad on benchmarks/variants.py, one core, --quick --rounds 9, before -> after):

1. Hessians of a few float parameters (a scalar ODE fit, a 100-step scalar loop) ran as batched
   rows, every float an array of rows and every scalar operation a NumPy call: scalar_while 191x ->
   4.6x, scalar_tuple 177x -> 4.9x, oscillator_euler 136x -> 3.5x, held out: logistic_growth
   215x -> 4.3x.  Fixed: a few numbers (at most the vector sweep's width) take one forward sweep of
   floats first, its unit seeds folded into its code (api/hessians.py `_numbers_first`).
2. Data-fitting losses whose second derivative passes a kink or a tie (np.clip, np.abs,
   np.minimum / np.maximum, masks) made one pass over n x 10,000 values per elementwise step of
   the derivative's code, about 40 of them (kink, tie, tie_nan, select_rows, np.where, sums):
   huber_clip 699x -> 31x, ramp_loss 624x -> 26x, sq_hinge_margin 475x -> 27x, huber_sq_hinge
   420x -> 17x, sq_check_min 378x -> 26x, pinball_l2 310x -> 26x, asym_laplace 302x -> 29x,
   huber_minimum 75x -> 17x, hinge_l2 53x -> 18x, capped_l1 62x -> 16x, leaky_abs 45x -> 23x,
   smooth_l1_min 42x -> 13x; held out: logcosh_clip 349x -> 16x, squared_quantile 372x -> 23x,
   abs_times_residual 30x -> 20x, masked_square_margin 33x -> 19x.  Fixed: ad/batched_scales.py
   folds every chain of steps linear in one batched value into a factor computed on one row, one
   product per value read after it, under a guard (every base finite, no tie whose share's
   derivative reads its direction) whose other branch is the code as it was; undone where it
   does not save passes (driver/batched.py).
"""

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix


def huber_clip(w, X, y, delta):
    r = X @ w - y
    c = np.clip(r, -delta, delta)
    return np.sum(c * (r - 0.5 * c)) / len(y)


def huber_minimum(w, X, y, delta):
    a = np.abs(X @ w - y)
    q = np.minimum(a, delta)
    return np.sum(q * (a - 0.5 * q)) / len(y)


def abs_times_residual(w, X, y, delta):
    r = X @ w - y
    return np.mean(np.abs(r) * r) + delta * (w @ w)


def squared_quantile(w, X, y, tau):
    r = y - X @ w
    q = np.maximum(tau * r, (tau - 1.0) * r)
    return np.mean(q * q)


def masked_margin(w, X, y, lam):
    m = y * (X @ w)
    return np.mean(np.where(m < 1.0, (1.0 - m) ** 2, 0.0)) + lam * (w @ w)


def logcosh_clip(w, X, y, bound):
    return np.sum(np.log(np.cosh(np.clip(X @ w - y, -bound, bound)))) / len(y)


def capped_hinge_squared(w, X, y, lam):
    h = np.minimum(np.maximum(1.0 - y * (X @ w), 0.0), 2.0)
    return np.mean(h * h) + lam * np.sum(w * w)


def pinball_ridge(w, X, y, tau):
    r = y - X @ w
    return np.mean(np.maximum(tau * r, (tau - 1.0) * r)) + 0.01 * (w @ w)


LOSSES = [huber_clip, huber_minimum, abs_times_residual, squared_quantile, masked_margin, logcosh_clip,
          capped_hinge_squared, pinball_ridge]


def growth(a, b, steps):
    x, loss = 0.1, 0.0
    for k in range(steps):
        x = x + 0.05 * (a * x * (1.0 - x) - b * x)
        loss = loss + (x - 0.4 - 0.001 * k) ** 2
    return loss


def _data(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return w, X, y


def _gradient_differences(f, args, eps=1e-6):
    g = srcdiff.grad(f)
    w = args[0]
    cols = []
    for k in range(w.size):
        step = np.zeros_like(w)
        step[k] = eps
        cols.append((g(w + step, *args[1:]) - g(w - step, *args[1:])) / (2 * eps))
    return np.stack(cols, axis=-1)


def _per_row(f, args):
    h = srcdiff.hessian(f)
    h.batched.enabled = False
    return h(*args)


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_folded_hessian_matches_central_differences(f):
    w, X, y = _data()
    if f in (masked_margin, capped_hinge_squared):
        y = np.sign(y)
    args = (w, X, y, 0.3 if f in (squared_quantile, pinball_ridge) else 0.8)
    h = srcdiff.hessian(f)
    H = h(*args)
    np.testing.assert_allclose(H, _gradient_differences(f, args), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, _per_row(f, args), rtol=1e-12, atol=1e-14)
    assert h(*args) is not H and np.allclose(h(*args), H)  # (the plan's replay)


@pytest.mark.parametrize("f", [huber_clip, huber_minimum, squared_quantile, capped_hinge_squared],
                         ids=lambda f: f.__name__)
def test_data_heavy_hessians_are_folded(f):
    w, X, y = _data()
    h = srcdiff.hessian(f)
    h(w, X, y, 0.8)
    assert "scales_hold(" in h.source and "_scale = " in h.source


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
def test_ties_and_kinks_keep_the_per_row_second_derivatives(f):
    # small integers and eighths: every residual exact, so rows sit exactly on the bound (0.5),
    # at zero, on a margin of one, and the two sides of a maximum are equal where r == 0
    rng = np.random.default_rng(7)
    X = rng.integers(-3, 4, (40, 5)).astype(float)
    w = rng.integers(-4, 5, 5) / 8.0
    s = X @ w
    y = s - rng.integers(-8, 9, 40) / 8.0
    y[:4] = s[:4] - np.array([0.5, -0.5, 0.0, 0.0])
    if f in (masked_margin, capped_hinge_squared):
        y = np.where(s >= 0, 1.0, -1.0)
        w = w / 1.0
        X[:3] = X[:3] * 0.0
        X[:3, 0] = 8.0 * y[:3]  # margins y (X @ w) of rows 0..2: 8 w[0] each, made 1 by w[0] = 1 / 8
        w[0] = 1.0 / 8.0
    args = (w, X, y, 0.25 if f in (squared_quantile, pinball_ridge) else 0.5)
    got, want = srcdiff.hessian(f)(*args), _per_row(f, args)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=1e-12, atol=1e-14)


def test_the_ties_are_hit():
    """The points of the test above are on the kinks: the per-row Hessian of the clip is NaN there."""
    rng = np.random.default_rng(7)
    X = rng.integers(-3, 4, (40, 5)).astype(float)
    w = rng.integers(-4, 5, 5) / 8.0
    s = X @ w
    y = s - rng.integers(-8, 9, 40) / 8.0
    y[:4] = s[:4] - np.array([0.5, -0.5, 0.0, 0.0])
    assert np.isnan(_per_row(huber_clip, (w, X, y, 0.5))).any()


@pytest.mark.parametrize("f", [huber_clip, squared_quantile], ids=lambda f: f.__name__)
def test_folded_rows_in_several_chunks(f, monkeypatch, tmp_path):
    """200 parameters: the rows run in chunks (api/batched_rows.py), the work no seed changes
    hoisted out of them (driver/hoisted_rows.py) around the fold's two branches."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 200))
    w = 0.1 * rng.standard_normal(200)
    y = X @ rng.standard_normal(200) + rng.standard_normal(300)
    args = (w, X, y, 0.3 if f is squared_quantile else 0.8)
    h = srcdiff.hessian(f)
    got = h(*args)
    assert "scales_hold(" in h.source
    np.testing.assert_allclose(got, _unfolded(f, args, monkeypatch, tmp_path), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, _per_row(f, args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h(*args), got, rtol=0, atol=0)


def _unfolded(f, args, monkeypatch, tmp_path):
    """The batched Hessian as it was before ad/batched_scales.py: a copy of `f` (its own cache
    entries) compiled with the fold turned off."""
    import inspect

    import srcdiff.driver.batched as batched

    path = tmp_path / f"{f.__name__}_copy.py"
    path.write_text("import numpy as np\n\n\n" + inspect.getsource(f))
    namespace: dict = {"__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with monkeypatch.context() as patch:
        patch.setattr(batched, "fold_scales", lambda *a, **k: False)
        return srcdiff.hessian(namespace[f.__name__])(*args)


@pytest.mark.parametrize("f", [huber_clip, huber_minimum, squared_quantile], ids=lambda f: f.__name__)
def test_a_base_that_is_not_finite_takes_the_statements_as_they_were(f, monkeypatch, tmp_path):
    w, X, y = _data(seed=3)
    X = X.copy()
    X[3, 2] = np.inf  # the products by the seeds are not finite: the guard's other branch
    args = (w, X, y, 0.8 if f is not squared_quantile else 0.3)
    with np.errstate(invalid="ignore", over="ignore"):
        got, want = srcdiff.hessian(f)(*args), _unfolded(f, args, monkeypatch, tmp_path)
    np.testing.assert_array_equal(got, want)


def test_a_few_numbers_take_one_forward_sweep():
    h = srcdiff.hessian(growth, wrt=(0, 1))
    H = np.array(h(1.3, 0.2, 30), dtype=float)
    g = srcdiff.grad(growth, wrt=(0, 1))
    eps = 1e-6
    cols = [(np.array(g(1.3 + eps * (k == 0), 0.2 + eps * (k == 1), 30)) -
             np.array(g(1.3 - eps * (k == 0), 0.2 - eps * (k == 1), 30))) / (2 * eps) for k in range(2)]
    np.testing.assert_allclose(H, np.stack(cols, axis=-1), rtol=1e-6, atol=1e-9)
    assert type(h._last).__name__ == "VectorForward"
    rows = srcdiff.hessian(growth, wrt=(0, 1))
    rows.batched.enabled = False
    np.testing.assert_allclose(H, np.array(rows(1.3, 0.2, 30), dtype=float), rtol=1e-12)


# ---- the matrix: every transformation of the programs above against central differences ----


def _fit(r, tail):
    X = r.standard_normal((12, 4))
    return (0.3 * r.standard_normal(4), X, X @ r.standard_normal(4) + r.standard_normal(12), tail)


def _signs(r, tail):
    w, X, y, _ = _fit(r, tail)
    return w, X, np.where(y >= 0, 1.0, -1.0), tail


ROWS = [("huber_clip", huber_clip, lambda r: _fit(r, 0.8), 0),
        ("huber_minimum", huber_minimum, lambda r: _fit(r, 0.8), 0),
        ("abs_times_residual", abs_times_residual, lambda r: _fit(r, 0.1), 0),
        ("squared_quantile", squared_quantile, lambda r: _fit(r, 0.3), 0),
        ("masked_margin", masked_margin, lambda r: _signs(r, 0.01), 0),
        ("logcosh_clip", logcosh_clip, lambda r: _fit(r, 1.5), 0),
        ("capped_hinge_squared", capped_hinge_squared, lambda r: _signs(r, 0.01), 0),
        ("pinball_ridge", pinball_ridge, lambda r: _fit(r, 0.3), 0),
        ("growth", growth, lambda r: (1.3, 0.2, 12), 0),
        ("growth_rate", growth, lambda r: (1.3, 0.2, 12), 1)]
PROGRAMS = corpus.from_table(ROWS, "w30g", "test_hessian_scales30", 30)
KEPT = {"huber_clip", "growth"}
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "numba")


def _short(p):
    return p.name.partition(":")[2]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(_short(p) in KEPT, p) for p in PROGRAMS], ids=_short)
def test_every_transformation(program):
    transforms = tuple(t for t in ALL if t != "numba" or _short(program) in KEPT)
    matrix.assert_ok_or_na(program, transforms)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", PROGRAMS, ids=_short)
def test_hessian_against_central_differences(program):
    matrix.assert_ok(program, ("hessian",))
