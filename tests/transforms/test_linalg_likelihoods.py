"""Likelihoods heavy in linear algebra, written the ways users write them (not the benchmark's
held-out variants): a Gaussian through np.linalg.solve and slogdet, a GP with an RBF kernel and
a noise term through cho_factor/cho_solve, a Bayesian linear regression's evidence, a
multivariate normal through solve_triangular, and batched products through einsum and
broadcasting.  Each through every transformation against central differences, the Hessian
too; float32 where the factorisations keep enough digits.

Their gradients share a matrix's Cholesky factor between solves and log determinants, and take
a quadratic form's adjoint solve from the forward solve (backend/optimize/triangular_solves.py,
repeated_solves.py): the tests below also pin that the generated code does, and that a seed
that is not proportional to the right-hand side still gets its own solve.
"""

import math

import numpy as np
import pytest
import scipy.linalg as sl
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.rules.triangular import proportion

from . import corpus, matrix

RNG = np.random.default_rng(2026)
X = RNG.uniform(-2.0, 2.0, (36, 2))            # 36 points: the Cholesky paths start at 32 rows
Y = np.cos(X @ np.array([1.0, -0.5])) + 0.1 * RNG.standard_normal(36)
PHI = np.stack([np.ones(36), X[:, 0], X[:, 1], X[:, 0] * X[:, 1]], axis=1)   # regression features
SAMPLES = RNG.standard_normal((50, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 0.5]])
A0 = np.array([[1.0, 0.2, 0.0], [0.1, 0.7, 0.3], [0.0, -0.2, 0.9]])
WEIGHTS = RNG.uniform(0.5, 1.5, SAMPLES.shape)


def gauss_solve_slogdet(theta, samples):
    """A zero-mean Gaussian with covariance s0 * (A0 + t A0^T)(...)^T + s1 I, 50 samples: solve
    with the samples as a matrix of right-hand sides, slogdet beside it."""
    B = A0 + theta[0] * A0.T
    S = np.exp(theta[1]) * B @ B.T + np.exp(theta[2]) * np.eye(3)
    quad = np.sum(samples * np.linalg.solve(S, samples.T).T)
    return 0.5 * quad + 0.5 * len(samples) * np.linalg.slogdet(S)[1]


def gp_rbf_cho(theta):
    """An RBF GP with a noise term, 36 points, through scipy's cho_factor / cho_solve."""
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(2 * theta[0] - 0.5 * D / np.exp(2 * theta[1])) + (np.exp(2 * theta[2]) + 1e-6) * np.eye(len(Y))
    cf = sl.cho_factor(K, lower=True)
    alpha = sl.cho_solve(cf, Y)
    return 0.5 * Y @ alpha + np.sum(np.log(np.diag(cf[0]))) + 0.5 * len(Y) * math.log(2 * math.pi)


def gp_solve_pair(theta, pts, y):
    """An RBF GP with its data as arguments, through np.linalg.cholesky and two np.linalg.solve
    calls with the factor and its transpose (what rewrites as triangular solves)."""
    D = np.sum((pts[:, None, :] - pts[None, :, :]) ** 2, axis=-1)
    K = np.exp(2 * theta[0] - 0.5 * D * np.exp(-2 * theta[1])) + np.exp(2 * theta[2]) * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def nonsymmetric_form(theta, y):
    """A quadratic form and log determinant of a matrix that is not symmetric (40 x 40): its
    transpose solves another system, whatever the seed."""
    P = np.outer(X[:, 0], X[:, 1])
    A = theta[0] * (P + P.T) + np.exp(theta[1]) * 20.0 * np.eye(36) + 0.05 * np.arange(1296.0).reshape(36, 36) / 1296
    return y @ np.linalg.solve(A, y) + np.linalg.slogdet(A)[1]


def blr_evidence(theta):
    """The negative log evidence of Bayesian linear regression (prior precision a, noise
    precision b): the posterior mean by a solve, the log determinant of its precision by slogdet."""
    a, b = np.exp(theta[0]), np.exp(theta[1])
    A = a * np.eye(PHI.shape[1]) + b * PHI.T @ PHI
    m = b * np.linalg.solve(A, PHI.T @ Y)
    E = 0.5 * b * np.sum((Y - PHI @ m) ** 2) + 0.5 * a * m @ m
    n, k = PHI.shape
    return E + 0.5 * np.linalg.slogdet(A)[1] - 0.5 * k * theta[0] - 0.5 * n * theta[1]


def mvn_triangular(mu):
    """A multivariate normal through np.linalg.cholesky and solve_triangular of the centred
    samples (one solve; its square summed), the mean differentiated."""
    L = np.linalg.cholesky(A0 @ A0.T + np.eye(3))
    V = sl.solve_triangular(L, (SAMPLES - mu).T, lower=True)
    return 0.5 * np.sum(V * V) + len(SAMPLES) * np.sum(np.log(np.diag(L)))


def mvn_cho_mean(mu):
    """A multivariate normal through cho_factor / cho_solve of the centred samples: its quadratic
    form's adjoint solves are the forward solves halved."""
    S = A0 @ A0.T + np.eye(3)
    cf = sl.cho_factor(S, lower=True)
    R = SAMPLES - mu
    return 0.5 * np.sum(R * sl.cho_solve(cf, R.T).T) + len(R) * np.sum(np.log(np.diag(cf[0])))


def weighted_cho(mu):
    """A weighted form: the adjoint's seed (WEIGHTS * R) is not the right-hand side scaled."""
    S = A0 @ A0.T + np.eye(3)
    cf = sl.cho_factor(S, lower=True)
    R = SAMPLES - mu
    return 0.5 * np.sum(WEIGHTS * R * sl.cho_solve(cf, R.T).T)


def cho_of_A(a):
    """The covariance's factor A differentiated (its 9 entries), the mean fixed."""
    A = a.reshape(3, 3)
    S = A @ A.T + np.eye(3)
    c, low = sl.cho_factor(S, lower=True)
    R = SAMPLES - 0.1
    return 0.5 * np.sum(R * sl.cho_solve((c, low), R.T).T) + len(R) * np.sum(np.log(np.diag(c)))


BATCH = RNG.standard_normal((7, 4, 3))
VECS = RNG.standard_normal((7, 3))
TARGET = RNG.standard_normal((7, 4))


def matvec_einsum(w):
    """A batch of matrices, each scaled by w's columns, times a batch of vectors by einsum."""
    z = np.einsum("bij,bj->bi", BATCH * w[None, None, :], VECS)
    return np.sum(np.tanh(z) * TARGET)


def matvec_broadcast_first(W):
    """A linear map written as a broadcast product summed over the first operand's axis."""
    Z = np.sum(W[:, :, None] * VECS.T[None, :, :], axis=1)           # (4, 7)
    return 0.5 * np.sum((np.sin(Z) - TARGET.T) ** 2)


def matvec_batched_matmul(v):
    """Batched matrix-vector products through @ and a trailing axis, v shared by the batch."""
    z = (BATCH @ v[None, :, None])[..., 0]
    return np.sum(np.cos(z) * TARGET)


THETA = np.array([0.2, -0.3, -1.2])
PROGRAMS = [
    corpus.Program("linalg_likelihoods:gauss_solve_slogdet[0]", gauss_solve_slogdet, (THETA, SAMPLES), 0,
                   __name__),
    corpus.Program("linalg_likelihoods:gp_rbf_cho[0]", gp_rbf_cho, (THETA,), 0, __name__),
    corpus.Program("linalg_likelihoods:gp_solve_pair[0]", gp_solve_pair, (THETA, X, Y), 0, __name__),
    corpus.Program("linalg_likelihoods:nonsymmetric_form[0]", nonsymmetric_form, (np.array([0.1, 0.2]), Y), 0,
                   __name__),
    corpus.Program("linalg_likelihoods:blr_evidence[0]", blr_evidence, (np.array([0.4, 1.1]),), 0, __name__),
    corpus.Program("linalg_likelihoods:mvn_triangular[0]", mvn_triangular, (np.array([0.1, -0.2, 0.3]),), 0,
                   __name__),
    corpus.Program("linalg_likelihoods:mvn_cho_mean[0]", mvn_cho_mean, (np.array([0.1, -0.2, 0.3]),), 0, __name__),
    corpus.Program("linalg_likelihoods:weighted_cho[0]", weighted_cho, (np.array([0.1, -0.2, 0.3]),), 0, __name__),
    corpus.Program("linalg_likelihoods:cho_of_A[0]", cho_of_A, (A0.ravel().copy(),), 0, __name__),
    corpus.Program("linalg_likelihoods:matvec_einsum[0]", matvec_einsum, (np.array([0.5, -1.0, 2.0]),), 0, __name__),
    corpus.Program("linalg_likelihoods:matvec_broadcast_first[0]", matvec_broadcast_first,
                   (RNG.standard_normal((4, 3)),), 0, __name__),
    corpus.Program("linalg_likelihoods:matvec_batched_matmul[0]", matvec_batched_matmul,
                   (np.array([0.3, 0.2, -0.4]),), 0, __name__),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name.partition(":")[2])
def test_first_order_transformations(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name.partition(":")[2])
def test_hessian(program):
    matrix.assert_ok(program, ("hessian",))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", [p for p in PROGRAMS if "matvec" in p.name or "mvn" in p.name],
                         ids=lambda p: p.name.partition(":")[2])
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name.partition(":")[2])
def test_gradient_against_central_differences(program):
    got = srcdiff.grad(program.func)(*program.args)
    assert_close(got, central_difference(program.func, program.args, 0), rtol=1e-6, atol=1e-7)


def _code(grad, *args):
    grad(*args)
    return "\n".join(line for line in grad.source.splitlines() if not line.lstrip().startswith("#"))


def test_one_factor_for_the_solve_and_the_log_determinant():
    for func, args in ((blr_evidence, (np.array([0.4, 1.1]),)), (gauss_solve_slogdet, (THETA, SAMPLES))):
        code = _code(srcdiff.grad(func), *args)
        assert code.count("spd_factor(") == 1 and code.count("factor=") >= 3, code


def test_the_quadratic_form_reuses_the_forward_solves():
    code = _code(srcdiff.grad(mvn_cho_mean), np.array([0.1, -0.2, 0.3]))
    assert code.count("proportion(") == 2, code
    code = _code(srcdiff.grad(gp_solve_pair), THETA, X, Y)  # the first seed an expression: held once
    assert code.count("proportion(") == 2 and "_seed = " in code, code
    code = _code(srcdiff.grad(gauss_solve_slogdet), THETA, SAMPLES)  # S.T solves S's system where S has a factor
    assert code.count("proportion(") == 1 and "if S_factor is not None else None" in code, code
    code = _code(srcdiff.grad(nonsymmetric_form), np.array([0.1, 0.2]), Y)  # (its factor None when run)
    assert code.count("proportion(") == 1 and "if A_factor is not None else None" in code, code
    # the weighted form's seed is no multiple of the right-hand side: both solves made, and right
    got = srcdiff.grad(weighted_cho)(np.array([0.1, -0.2, 0.3]))
    assert_close(got, central_difference(weighted_cho, (np.array([0.1, -0.2, 0.3]),), 0), rtol=1e-6, atol=1e-7)


def test_proportion():
    b = RNG.standard_normal((5, 4))
    assert proportion(0.5 * b, b) == 0.5
    assert proportion(0.3 * b, b) == pytest.approx(0.3, rel=1e-15)
    assert proportion(b.T.copy().T * -2.0, b) == -2.0      # any memory order
    moved = 0.5 * b
    moved[3, 2] *= 1.0 + 1e-9                              # one element off: not proportional
    assert proportion(moved, b) is None
    moved = 0.5 * b
    moved[0, 3] += 1.0                                     # off in the first line already
    assert proportion(moved, b) is None
    assert proportion(0.5 * b[:, :3], b) is None            # shapes differ
    assert proportion((0.5 * b).astype(np.float32), b) is None
    zero_first = b.copy()
    zero_first[0, 0] = 0.0
    assert proportion(zero_first, zero_first) is None
    assert proportion(np.full((5, 4), np.nan), b) is None
    assert proportion(2.0, b) is None


def _rewritten(source: str) -> str:
    import ast
    import textwrap

    from srcdiff.backend.optimize.repeated_solves import repeated_solves
    func = ast.parse(textwrap.dedent(source)).body[0]
    repeated_solves(func)
    return ast.unparse(func)


FORWARD = """
def f(L, b, g):
    x = solve_lower(L, b)
    {between}
    y = solve_lower(L, g{flags})
    return x, y
"""


@pytest.mark.parametrize("between, flags, rewritten", [
    ("pass", "", True),
    ("pass", ", transpose=True", False),       # another system
    ("b[0] = 1.0", "", False),                 # the right-hand side written into
    ("L[0, 0] = 2.0", "", False),              # the matrix written into
    ("L = L + 1.0", "", False),                # the matrix assigned again
    ("keep(b)", "", False),                    # passed to a call that may write into it
    ("x += 1.0", "", False),                   # the forward answer changed
    ("len(b)", "", True),                      # read only
])
def test_which_solves_repeated_solves_rewrites(between, flags, rewritten):
    code = _rewritten(FORWARD.format(between=between, flags=flags))
    assert ("proportion(g, b)" in code) == rewritten, code


def test_solves_in_loops_and_branches_are_left_alone():
    code = _rewritten("""
    def f(L, b, g, n):
        for i in range(n):
            x = solve_lower(L, b)
        if n:
            y = solve_lower(L, g)
        z = solve_lower(L, g) if n else 0.0
        return x, y, z
    """)
    assert "proportion" not in code, code


def _spd_rewritten(source: str) -> str:
    import ast
    import textwrap

    from srcdiff.backend.optimize.triangular_solves import triangular_solves
    func = ast.parse(textwrap.dedent(source)).body[0]
    triangular_solves(func)
    return ast.unparse(func)


@pytest.mark.parametrize("between, shared", [
    ("pass", True),
    ("K[0, 0] = 1.0", False),          # written into: the factor would be stale
    ("keep(K)", False),                # passed to a call that may write into it
    ("A = A + 1.0", True),             # another name
])
def test_when_a_matrix_is_factored_once(between, shared):
    code = _spd_rewritten(f"""
    def f(A, y):
        K = A + 1.0
        s = np.linalg.slogdet(K)
        {between}
        return np.linalg.solve(K, y), s
    """)
    assert "spd_slogdet(" in code and "spd_solve(" in code, code
    assert ("spd_factor(K)" in code) == shared, code
    assert ("factor=K_factor" in code) == shared, code


def test_a_parameter_assigned_again_is_factored_in_each_call():
    code = _spd_rewritten("""
    def f(K, y):
        s = np.linalg.slogdet(K)
        K = K + 1.0
        return np.linalg.solve(K, y), np.linalg.inv(K), s
    """)
    assert "spd_factor" not in code and "factor=" not in code, code


def test_an_exported_gradient_carries_the_helpers(tmp_path):
    """export() copies solve_lower and proportion (which runs here: the solves repeat at a seed
    proportional to y) beside the code: it runs without srcdiff."""
    import importlib.util

    from srcdiff.tools.export import export
    path = export(gp_solve_pair, THETA, X, Y, path=tmp_path / "gp_grad.py")
    assert "def proportion(" in path.read_text() and "import srcdiff" not in path.read_text()
    spec = importlib.util.spec_from_file_location("gp_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert_close(module.gp_solve_pair_grad(THETA, X, Y), central_difference(gp_solve_pair, (THETA, X, Y), 0),
                 rtol=1e-6, atol=1e-7)
