"""Splitting, stacking, padding and rolling arrays (#25), through every transformation.

Each program below is written the way people write it: a split unpacked, indexed or looped
over; a join of a list built by ``append``, by a comprehension, held by a variable, passed as
a tuple parameter, or the rows of an array; ``np.r_`` / ``np.c_``; ``np.roll``, ``np.rot90``,
``np.pad``, ``np.append``, ``np.select``; a shape computed from literals; ``tuple(...)`` of a
tuple.  Each is checked by `grad`, `vjp`, `jvp`, the three second-order transformations and
float32 against float64 central differences of the program itself (never against srcdiff),
and under ``jit="numba"`` either compiles to the same numbers or is refused at the user's line.
"""

import inspect

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, central_difference, second_order

import srcdiff

C3 = np.array([0.5, -1.0, 2.0])
W12 = np.cos(np.arange(12.0))


def weights(a):
    """Fixed weights shaped like `a`, so that every element of a result counts differently."""
    return np.cos(np.arange(np.size(a)) * 0.7).reshape(np.shape(a))


# ---- splits: a list of pieces ----

def split_unpacked(x):
    a, b, c = np.array_split(x, 3)
    return np.sum(a ** 2) + np.sum(b[:2] * c[2:]) ** 2


def split_indexed(x):
    parts = np.vsplit(x.reshape(4, 3), [1, 3])
    return np.sum(parts[0] ** 3) * np.sum(parts[2]) + np.sum(parts[1] * weights(parts[1]))


def split_looped(x):
    total = 0.0
    for piece in np.hsplit(x.reshape(3, 4), 2):
        total = total + np.sum(np.sin(piece) * piece)
    return total


def split_depth(x):
    cube = x.reshape(2, 3, 2) * x.reshape(2, 3, 2)[:, :, ::-1]
    first, second = np.dsplit(cube, 2)
    return np.sum(first * second ** 2)


def split_as_list(x):
    pieces = list(np.split(x, 4))
    return np.sum(pieces[0] * pieces[3]) + np.sum(pieces[1] ** 3)


# ---- joins of lists not written in the call ----

def joined_appended(x):
    rows = []
    for i in range(3):
        rows.append(x[4 * i:4 * i + 4] * (i + 1.0))
    out = np.stack(rows, axis=1)
    return np.sum(out ** 3 * weights(out))


def joined_comprehension(x):
    parts = [np.sin(x[i:i + 3]) * x[i] for i in range(0, 12, 3)]
    out = np.hstack(parts)
    return np.sum(out ** 2 * weights(out))


def joined_variable(x):
    blocks = [x[:4].reshape(2, 2), x[4:8].reshape(2, 2) ** 2]
    out = np.vstack(blocks)
    return np.sum(out * weights(out)) + np.sum(np.concatenate(blocks, axis=1) ** 3)


def joined_rows_of_array(x):
    out = np.hstack(x.reshape(3, 4) ** 2)
    return np.sum(out * weights(out)) + np.sum(np.vstack(x.reshape(2, 6)) ** 3)


def column_stacked(x):
    cols = []
    for i in range(3):
        cols.append(x[i::3] ** (i + 1))
    out = np.column_stack(cols)
    return np.sum(out * weights(out)) + np.sum(np.column_stack([x[:3], C3 * x[3:6]]) ** 2)


def depth_stacked(x):
    A = x.reshape(2, 6)
    out = np.dstack([A, np.exp(A * 0.5)])
    return np.sum(out ** 2 * weights(out))


def row_and_c(x):
    out = np.c_[x[:4], x[4:8] ** 2, np.sin(x[8:])]
    return np.sum(out * weights(out)) + np.sum(np.c_[x.reshape(2, 6), x[:2]] ** 3)


def r_joined(x):
    out = np.r_[x[:3], 0.5, x[5:] ** 2, C3, 1:4]
    return np.sum(out ** 3 * weights(out)) + np.sum(np.r_[x.reshape(3, 4), x.reshape(3, 4) * 2.0] ** 2)


# ---- moves, padding, appending, selecting ----

def rolled(x):
    A = x.reshape(3, 4)
    out = np.roll(A, 1, axis=1) * np.roll(A, (2, -1), axis=(1, 0)) + np.roll(A, 5)
    return np.sum(out ** 2 * weights(out))


def rotated_and_flipped(x):
    A = x.reshape(3, 4)
    out = np.rot90(A) @ np.rot90(A, 3, axes=(1, 0)).T + np.flip(A, 0).T @ np.flipud(np.fliplr(A ** 2))
    return np.sum(out * weights(out)) + np.sum(np.rot90(A, 2) ** 3)


def padded(x):
    A = x.reshape(3, 4)
    out = np.pad(A, ((1, 2), (0, 1)), constant_values=0.5) * np.pad(A ** 2, ((0, 3), (1, 0)))
    return np.sum(out * weights(out)) + np.sum(np.pad(x, 2, mode="constant") ** 3)


def padded_by_copies(x):
    A = x.reshape(3, 4)
    out = np.pad(A, 1, mode="edge") * np.pad(A, ((2, 0), (1, 1)), mode="reflect")
    around = np.pad(A ** 2, (1, 2), "wrap") + np.pad(A, 2, mode="symmetric")[:6, :7]
    return np.sum(out * weights(out)) + np.sum(around ** 2)


def appended(x):
    A = x.reshape(3, 4)
    out = np.append(A, A[:1] ** 2, axis=0)
    return np.sum(out ** 3 * weights(out)) + np.sum(np.append(x, 4.0) ** 2) + np.sum(np.append(A, x[:3], axis=None))


def selected(x):
    out = np.select([x > 0.5, x < -0.3], [x ** 2, np.sin(x)], default=x * 3.0)
    return np.sum(out * weights(out)) + np.sum(np.select([x > 0.0], [x ** 3]) ** 2)


def tiled_and_repeated(x):
    A = x.reshape(3, 4)
    out = np.tile(A[:2], (2, 1))[:3] * np.repeat(A[:, :2], 2, axis=1)[:, ::-1][:, :4]
    return np.sum(out ** 2 * weights(out))


def reshaped_by_arithmetic(x):
    out = x.reshape(2 * 3, 4 // 2)
    return np.sum(out ** 3 * weights(out))


def tuple_of_tuple(x):
    a, b = np.split(x, 2)
    pair = tuple((a * b, np.exp(b)))
    c, d = tuple(np.split(x, [5]))
    return np.sum(pair[0] ** 2) + np.sum(pair[1] * a) + np.sum(c) * np.sum(d ** 2)


PROGRAMS = [split_unpacked, split_indexed, split_looped, split_depth, split_as_list,
            joined_appended, joined_comprehension, joined_variable, joined_rows_of_array, column_stacked,
            depth_stacked, row_and_c, r_joined, rolled, rotated_and_flipped, padded, padded_by_copies,
            appended, selected, tiled_and_repeated, reshaped_by_arithmetic, tuple_of_tuple]
IDS = [f.__name__ for f in PROGRAMS]


def point(seed=0):
    # away from np.select's thresholds, so central differences do not cross them
    x = np.random.default_rng(seed).uniform(0.2, 1.0, size=12) * np.resize([1.0, -1.0, 1.0], 12)
    return np.where(np.abs(x - 0.5) < 0.05, x + 0.1, x)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_grad_and_vjp_match_central_differences(f):
    x = point()
    expected = central_difference(f, (x,), 0)
    assert_close(srcdiff.grad(f)(x), expected, rtol=1e-6, atol=1e-6)
    value, pullback = srcdiff.vjp(f, x)
    assert_close(value, f(x))
    assert_close(pullback(1.0), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_jvp_matches_central_differences(f):
    x, v = point(), np.random.default_rng(1).normal(size=12)
    value, tangent = srcdiff.jvp(f, (x,), (v,))
    assert_close(value, f(x))
    assert_close(tangent, central_difference(f, (x,), 0) @ v, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_second_order_matches_second_differences(f, transform):
    got, expected = second_order(transform, f, point(), np.random.default_rng(2))
    assert_close(got, expected, rtol=1e-4, atol=1e-4)


def float32_joins(x):
    rows = [x[i:i + 4] ** 2 for i in range(0, 12, 4)]
    return np.sum(np.column_stack(rows) ** 3) + np.sum(np.c_[x[:6], x[6:]] * np.r_[x[:3], x[3:9], x[9:]][:6, None])


def float32_moves(x):
    A = x.reshape(3, 4)
    moved = np.roll(A, 1, axis=0) * np.rot90(A, 2) + np.pad(A, 1)[1:-1, 1:-1] ** 2
    return np.sum(moved + np.append(A, A)[:12].reshape(3, 4))


def float32_splits(x):
    a, b = np.hsplit(x.reshape(2, 6), 2)
    return np.sum(a * b) + np.sum(np.array_split(x, 5)[4] ** 3)


@pytest.mark.parametrize("f", PROGRAMS + [float32_joins, float32_moves, float32_splits],
                         ids=IDS + ["float32_joins", "float32_moves", "float32_splits"])
def test_float32_gradients_stay_float32(f):
    x = point().astype(np.float32)
    got = srcdiff.grad(f)(x)
    if np.asarray(f(x)).dtype == np.float32:  # float64 weights make a float64 value (NumPy's promotion)
        assert got.dtype == np.float32
    assert_close(got.astype(np.float64), central_difference(f, (x.astype(np.float64),), 0), rtol=2e-3, atol=2e-3)


def test_the_float32_programs_stay_float32():
    x = point().astype(np.float32)
    assert all(np.asarray(f(x)).dtype == np.float32 for f in (float32_joins, float32_moves, float32_splits))


#: numba compiles for seconds per program: these rows (each over two seconds of CPU, cold
#: cache) run under ``pytest -m slow``; the default run keeps the others, refusals among them.
NUMBA_SLOW = {"split_depth", "split_indexed", "split_looped", "split_as_list", "tiled_and_repeated", "split_unpacked",
              "rotated_and_flipped", "appended", "r_joined", "tuple_of_tuple"}


@pytest.mark.parametrize("f", [pytest.param(f, id=i, marks=pytest.mark.slow if i in NUMBA_SLOW else ())
                               for f, i in zip(PROGRAMS, IDS)])
def test_numba_compiles_or_refuses_at_the_line(f):
    pytest.importorskip("numba")
    x = point()
    try:
        got = srcdiff.grad(f, jit="numba")(x)
    except srcdiff.SrcDiffError as exc:  # numba lacks the function: refused where the user calls it
        lines, first = inspect.getsourcelines(f)
        assert exc.location.filename == __file__
        assert first <= exc.location.line < first + len(lines)
        assert "numba" in str(exc)
        return
    assert_close(got, central_difference(f, (x,), 0), rtol=1e-6, atol=1e-6)


# ---- what is refused, and where ----

def pad_mean(x):
    return np.sum(np.pad(x, 2, mode="mean") ** 2)


def r_directive(x):
    return np.sum(np.r_["0,2", x, x])


def r_complex_step(x):
    return np.sum(np.r_[x, 0:1:5j])


def select_of_a_list_made_elsewhere(x):
    choices = []
    for i in range(2):
        choices.append(x * i)
    return np.sum(np.select([x > 0, x < 0], choices))


@pytest.mark.parametrize("f, words", [
    (pad_mean, "mode='mean' has no adjoint rule"),
    (r_directive, "directive string"),
    (r_complex_step, "slice"),
    (select_of_a_list_made_elsewhere, "np.select needs its conditions and choices"),
], ids=["pad-mean", "r-directive", "r-complex-step", "select-list"])
def test_refused_at_the_users_line(f, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(f)(point())
    lines, first = inspect.getsourcelines(f)
    assert info.value.location.filename == __file__
    assert first <= info.value.location.line < first + len(lines)


def svd_pair(x):
    u, s, vt = np.linalg.svd(x.reshape(3, 4), full_matrices=False)
    return tuple((u, s))


def svd_item(x):
    return np.sum(svd_pair(x)[1])


def svd_returned(x):
    u, s, vt = np.linalg.svd(x.reshape(3, 4), full_matrices=False)
    return (u, s)


def svd_returned_item(x):
    return np.sum(svd_returned(x)[1] * 2.0)


@pytest.mark.parametrize("f", [svd_item, svd_returned_item])
def test_an_item_a_helper_makes_carries_its_gradient(f):
    # a helper's tuple item made by a function srcdiff then had no rule for (np.linalg.svd) was
    # once taken to carry no gradient, and the caller's gradient came out zero
    x = point()
    assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-7)


def eig_pair(x):
    w, v = np.linalg.eig(x.reshape(3, 4)[:, :3])
    return tuple((w.real, v.real))


def eig_item(x):
    return np.sum(eig_pair(x)[0])


def test_an_item_a_helper_makes_without_a_derivative_is_refused_not_zero():
    with pytest.raises(srcdiff.SrcDiffError, match="eig"):
        srcdiff.grad(eig_item)(point())


def split_at(x, indices):
    parts = np.split(x, indices)
    return np.sum(parts[0] ** 2) + np.sum(parts[-1] ** 3)


def test_split_positions_passed_as_a_list_specialise_the_gradient():
    x = point()
    df = srcdiff.grad(split_at)
    for indices in ([2, 5], [3], (2, 5), [4, 6, 9]):
        expected = central_difference(split_at, (x, indices), 0)
        assert_close(df(x, indices), expected, rtol=1e-6, atol=1e-6)
    indices = [2, 5]
    df(x, indices)
    indices.append(7)  # the same list, changed: a new variant, not the old one's gradient
    assert_close(df(x, indices), central_difference(split_at, (x, indices), 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", [joined_appended, row_and_c, split_unpacked, padded_by_copies],
                         ids=lambda f: f.__name__)
def test_exported_gradients_run_without_srcdiff(f, tmp_path):
    # the join helpers are copied into the module with the functions they call
    import importlib.util
    path = tmp_path / f"{f.__name__}_grad.py"
    srcdiff.export(f, point(), wrt=0, path=str(path))
    assert "srcdiff" not in "".join(line for line in path.read_text().splitlines(True)[10:] if "import" in line)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = point(3)
    assert_close(getattr(module, f"{f.__name__}_grad")(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-6)
