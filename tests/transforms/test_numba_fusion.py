"""jit="numba" fuses elementwise chains into loops (srcdiff/backend/numba/fusion.py).

The fused gradients are checked against float64 central differences and against the NumPy
gradient (``jit`` left out); the loops are checked in the source numba compiles; the pass
itself is checked on hand-written modules run as plain Python (fused and as written).
"""

import ast

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
from srcdiff.backend.numba import fusion, kinds

pytest.importorskip("numba")


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rhs(y, k):
    return k * np.sin(y) - 0.5 * y * y


def rk4(y0, k, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = rhs(y, k)
        k2 = rhs(y + 0.5 * dt * k1, k)
        k3 = rhs(y + 0.5 * dt * k2, k)
        k4 = rhs(y + dt * k3, k)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def logistic(a, b, x, y):
    z = a * x + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def smoothness(x, w):
    d = x[2:] - 2.0 * x[1:-1] + x[:-2]
    return np.sum(w[1:-1] * d * d) + 0.5 * np.sum((x[1:] - x[:-1]) ** 2)


def softplus(x):
    return np.sum(np.where(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x))) / (1.0 + x * x))


def matrix_chain(W, V):
    return np.sum(np.tanh(W) * V + W ** 2 * np.cos(V))


def lennard_jones(r2):
    inv6 = 1.0 / (r2 * r2 * r2)
    return np.sum(4.0 * (inv6 * inv6 - inv6))


def two_vectors(x, y):
    return np.sum(np.sin(x) * y + x * x * y)


def mse(w, b, X, y):
    return ((X @ w + b - y) ** 2).mean()  # (the gradient's module imports no NumPy of its own)


def _rng():
    return np.random.default_rng(26)


CASES = {
    "rosenbrock": (rosenbrock, lambda r: (r.uniform(-1.5, 1.5, 40),), 0),
    "rk4": (rk4, lambda r: (r.uniform(-1, 1, 12), r.uniform(0.5, 1.5, 12), 0.1, 3), (0, 1)),
    "logistic": (logistic, lambda r: (0.7, -0.2, r.normal(size=30), (r.random(30) > 0.5) * 1.0), (0, 1)),
    "smoothness": (smoothness, lambda r: (r.normal(size=25), r.uniform(0.5, 2, 25)), (0, 1)),
    "softplus": (softplus, lambda r: (r.normal(size=20) * 3,), 0),
    "matrix_chain": (matrix_chain, lambda r: (r.normal(size=(5, 7)), r.normal(size=(5, 7))), (0, 1)),
    "lennard_jones": (lennard_jones, lambda r: (r.uniform(0.8, 2.0, (6, 6)),), 0),
    "two_vectors": (two_vectors, lambda r: (r.normal(size=9), r.normal(size=9)), (0, 1)),
    "mse": (mse, lambda r: (r.normal(size=3), 0.2, r.normal(size=(8, 3)), r.normal(size=8)), (0, 1)),
}


def _tuple(g):
    return g if isinstance(g, tuple) else (g,)


#: numba compiles for seconds per program: these cases (over five seconds of CPU each, cold
#: cache) run under ``pytest -m slow``; the other fused cases run by default.
SLOW_CASES = {"rk4", "smoothness"}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow if n in SLOW_CASES else ()) for n in sorted(CASES)])
def test_fused_gradient_equals_central_differences_and_the_numpy_gradient(name):
    f, make, wrt = CASES[name]
    args = make(_rng())
    df = srcdiff.grad(f, wrt=wrt, jit="numba")
    fused = _tuple(df(*args))
    assert "for i in range(n):" in df.source  # (numba compiled the loops, not the statements as written)
    plain = _tuple(srcdiff.grad(f, wrt=wrt)(*args))
    for index, got, want in zip(wrt if isinstance(wrt, tuple) else (wrt,), fused, plain):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(got, central_difference(f, args, index), rtol=1e-5, atol=1e-6)


@pytest.fixture
def unfused(monkeypatch):
    """Gradients compiled by numba as they were before fusion: what numba itself makes of the code."""
    def grad(f, wrt):
        srcdiff.clear_cache()
        with monkeypatch.context() as patch:
            patch.setattr(fusion, "fused", lambda built, made, key: built)
            gradient = srcdiff.grad(f, wrt=wrt, jit="numba")
            result = _tuple(gradient(*args_of[f]))
        srcdiff.clear_cache()
        return result
    args_of = {}
    grad.args_of = args_of
    return grad


@pytest.mark.parametrize("name", ["rosenbrock", "two_vectors", *(
    pytest.param(n, marks=pytest.mark.slow) for n in ("smoothness", "matrix_chain", "lennard_jones"))])
def test_float32_arguments_get_the_dtypes_numba_gives_them_unfused(name, unfused):
    f, make, wrt = CASES[name]
    args = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in make(_rng()))
    unfused.args_of[f] = args
    before = unfused(f, wrt)
    fused = _tuple(srcdiff.grad(f, wrt=wrt, jit="numba")(*args))
    plain = _tuple(srcdiff.grad(f, wrt=wrt)(*args))
    for got, was, want in zip(fused, before, plain):
        assert got.dtype == was.dtype
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    if name in ("rosenbrock", "smoothness", "matrix_chain"):
        assert all(g.dtype == np.float32 for g in fused)


def test_rosenbrock_is_one_loop_with_offsets_and_no_temporaries():
    df = srcdiff.grad(rosenbrock, jit="numba")
    df(_rng().normal(size=10))
    source = df.source
    assert "for i in range(n):" in source
    assert "x[i + 1]" in source and "x[1:]" not in source
    assert source.count("for i in range") == 1
    # the only array is the gradient, written whole by the loop: not filled with zeros first
    assert source.count("np.empty(") == 1 and "x_bar = np.empty(x.shape)" in source and "np.zeros" not in source


def gaps(x):
    return np.sum((x[2:] - x[:-2]) ** 2 * x[1:-1])


def tail(x):
    return np.sum(x[1:] * x[1:] + x[1:])


@pytest.mark.parametrize("f", [rosenbrock, gaps, tail])
def test_a_gradient_the_loop_writes_whole_is_right_at_every_length(f):
    """np.empty where the loop writes every element; zeros where it does not (x_bar[0] of
    `tail`), and zeros when the loop does not run (lengths 0 to 2 with offsets up to 2)."""
    df, plain = srcdiff.grad(f, jit="numba"), srcdiff.grad(f)
    for n in (0, 1, 2, 3, 7):
        x = np.linspace(-1.0, 1.3, n) + 0.1
        for _ in range(2):  # (a fresh np.empty may reuse the last call's memory)
            got, want = df(x), plain(x)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert ("np.zeros(" in df.source) == (f is tail)


def test_the_fused_source_is_deterministic():
    sources = []
    for _ in range(2):
        df = srcdiff.grad(rk4, wrt=(0, 1), jit="numba")
        df(*CASES["rk4"][1](_rng()))
        sources.append(df.source)
    assert sources[0] == sources[1]
    assert sources[0].count("for i in range(n):") == 2  # the forward and the backward sweep


def test_a_loop_around_a_chain_of_arrays_of_unknown_lengths_is_guarded():
    df = srcdiff.grad(two_vectors, wrt=(0, 1), jit="numba")
    args = CASES["two_vectors"][1](_rng())
    df(*args)
    assert "if x.shape[0] == y.shape[0]:" in df.source or "if y.shape[0] == x.shape[0]:" in df.source
    # a length-one vector broadcasts: another variant, still right
    short = (args[0], np.array([0.3]))
    got = df(*short)
    want = srcdiff.grad(two_vectors, wrt=(0, 1))(*short)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_lengths_that_do_not_match_raise_as_numpy_does():
    df = srcdiff.grad(two_vectors, wrt=(0, 1), jit="numba")
    df(np.ones(4), np.ones(4))
    with pytest.raises(ValueError):
        df(np.ones(4), np.ones(3))


# ------------------------------------------------------------- the pass itself

def _fuse(source: str, **params) -> str:
    main = ast.parse(source).body[0].name
    text, _ = fusion.fuse_module(source, {}, main, params)
    return text


def _vector(name, ones=False):
    return kinds.of_signature(name, (1, (ones,), "f"))


def _run(source: str, *args):
    space = {"np": np}
    exec(compile(source, "<fused>", "exec"), space)
    return space[ast.parse(source).body[0].name](*args)


def test_a_broadcast_operand_of_another_rank_stays_unfused():
    source = "def f(x, B):\n    t = x * B\n    u = np.sin(t) + t * t\n    return u\n"
    text = _fuse(source, x=_vector("x"), B=kinds.of_signature("B", (2, (False, False), "f")))
    assert "    t = x * B\n" in text and "t_i =" not in text  # (u, of t's shape, is a loop of its own)
    x, B = np.linspace(-1, 1, 3), np.linspace(0, 1, 12).reshape(4, 3)
    np.testing.assert_allclose(_run(text, x, B), _run(source, x, B), rtol=0)


def test_a_length_one_operand_is_guarded_with_the_statements_as_written_as_the_other_branch():
    source = "def f(x, b):\n    t = x * b\n    u = np.sin(t) + t * t\n    return u\n"
    text = _fuse(source, x=_vector("x"), b=_vector("b", ones=True))
    assert "if x.shape[0] == b.shape[0]:" in text and "else:" in text and "u = np.sin(t) + t * t" in text
    x, b = np.linspace(-1, 1, 7), np.array([0.5])
    np.testing.assert_allclose(_run(text, x, b), _run(source, x, b), rtol=0, atol=0)
    np.testing.assert_allclose(_run(text, x, x + 1), _run(source, x, x + 1), rtol=1e-15)


@pytest.mark.parametrize("first, second, fused", [
    ("w[1:] = x[:-1] * 2.0", "w[:-1] = x[1:] + 1.0", True),   # the later write at the smaller offset
    ("w[:-1] = x[1:] + 1.0", "w[1:] = x[:-1] * 2.0", False),  # would overwrite the earlier one's
    ("w[:-1] += x[1:] + 1.0", "w[1:] += x[:-1] * 2.0", True),  # sums: the order does not matter
    ("w[:-1] = x[1:] + 1.0", "w[1:] += x[:-1] * 2.0", False),
])
def test_writes_at_offsets_are_fused_only_when_their_order_cannot_change_a_result(first, second, fused):
    source = ("def f(x):\n    w = np.ones(x.shape)\n    t = x * x\n"
              f"    {first}\n    {second}\n    return w + t\n")
    text = _fuse(source, x=_vector("x"))
    assert text.count("for i in range") == (1 if fused else 2), text
    x = np.linspace(-2, 3, 9)
    np.testing.assert_allclose(_run(text, x), _run(source, x), rtol=1e-15)


@pytest.mark.parametrize("reduction", ["np.sum(t * x)", "(t * x).sum()", "np.mean(t - x)", "t @ x"])
def test_reductions_are_summed_in_the_loop_that_makes_their_operand(reduction):
    source = f"def f(x, y):\n    t = np.exp(x) * y\n    s = {reduction}\n    return s, t\n"
    text = _fuse(source, x=_vector("x"), y=_vector("y"))
    assert ("_sum += " in text or "_mean += " in text) and text.count("for i in range") == 1
    x, y = np.linspace(-1, 1, 11), np.linspace(2, 3, 11)
    got, want = _run(text, x, y), _run(source, x, y)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=0)


def test_an_array_read_after_the_chain_is_written_and_one_read_only_inside_is_not():
    source = "def f(x):\n    a = np.sin(x)\n    b = a * a + x\n    c = b * 2.0\n    return c\n"
    text = _fuse(source, x=_vector("x"))
    assert "c = np.empty(n" in text and "a = np.empty" not in text and "b = np.empty" not in text
    x = np.linspace(0, 1, 6)
    np.testing.assert_allclose(_run(text, x), _run(source, x), rtol=0)


# ------------------------------------------------- random chains, fused and as written

_DOMAINS = {0: ["{a}"], 1: ["{a}[1:]", "{a}[:-1]"], 2: ["{a}[2:]", "{a}[1:-1]", "{a}[:-2]"]}
_STORES = {0: ["[:]"], 1: ["[1:]", "[:-1]"], 2: ["[2:]", "[1:-1]", "[:-2]"]}


def _random_program(rng) -> str:
    """Statements over x and y (and what they make): elementwise values over slices, writes
    into slices of two arrays (zeros, ones) with =, += and -=, sums read later as numbers."""
    lines = ["def f(x, y):", f"    w = np.{rng.choice(['zeros', 'ones'])}(x.shape)", "    v = np.zeros(x.shape)"]
    arrays, numbers, made = ["x", "y"], ["2.0", "0.5"], []

    def operand(cut, array=False):
        if rng.random() < 0.25 and not array:
            return str(rng.choice(numbers))
        return rng.choice(_DOMAINS[cut]).format(a=rng.choice(arrays))

    def value(cut):
        a, b = operand(cut, array=True), operand(cut)
        return str(rng.choice([f"{a} * {b} + {operand(cut)}", f"np.sin({a}) - {b}", f"{a} / (1.0 + {b} * {b})",
                               f"np.where({a} > {b}, {a}, -{b})", f"np.exp(-np.abs({a})) * {b}"]))

    for k in range(int(rng.integers(3, 10))):
        kind, cut = rng.random(), int(rng.integers(0, 3))
        if kind < 0.4:
            name = f"t{k}"
            lines.append(f"    {name} = {value(0)}")  # a whole-length value: an operand of later statements
            arrays.append(name)
            made.append(name)
        elif kind < 0.8:
            target = rng.choice(["w", "v"])
            lines.append(f"    {target}{rng.choice(_STORES[cut])} {rng.choice(['=', '+=', '-='])} {value(cut)}")
        else:
            lines.append(f"    s{k} = np.sum({value(cut)})")
            numbers.append(f"s{k}")
            made.append(f"s{k}")
    lines.append(f"    return ({', '.join(['w', 'v'] + made)},)")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(60))
def test_random_chains_fused_give_what_they_give_as_written(seed):
    rng = np.random.default_rng(seed)
    source = _random_program(rng)
    for y_length_one in (False, True):
        text = _fuse(source, x=_vector("x"), y=_vector("y", ones=y_length_one))
        for n in (1, 2, 3, 8):
            x = rng.normal(size=n)
            y = rng.normal(size=1 if y_length_one else n)
            try:
                want = _run(source, x, y)
            except ValueError:  # shapes NumPy cannot broadcast: the fused code says so too
                with pytest.raises(ValueError):
                    _run(text, x, y)
                continue
            got = _run(text, x, y)
            for g, v in zip(got, want):
                np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-14, err_msg=f"{source}\n{text}")


def test_loops_numba_cannot_type_leave_the_statements_as_written(monkeypatch):
    real = fusion.fused

    def untypable(built, made, key):  # a fusion numba refuses: a string times a float
        fused = real(built, made, key)
        return fused.__class__(**{**vars(fused), "source": fused.source.replace(
            "    return ", "    refused = 'a' * 1.5\n    return ", 1)})

    monkeypatch.setattr(fusion, "fused", untypable)
    srcdiff.clear_cache()
    df = srcdiff.grad(smoothness, wrt=(0, 1), jit="numba")
    args = CASES["smoothness"][1](_rng())
    for got, want in zip(df(*args), srcdiff.grad(smoothness, wrt=(0, 1))(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "refused" not in df.source and "for i in range" not in df.source
    srcdiff.clear_cache()
