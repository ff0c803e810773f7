"""NumPy's products and ``numpy.linalg``.

Where the operands' ndim is known (it is, for arguments: the gradient is compiled per
signature), the adjoint is the textbook one for that case (``g @ y.T``); otherwise a form
that is right for any ndim.
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .decomposition_helpers import cofactor, cofactor_derivative
from .einsum_rules import einsum_shape, einsum_tangents, einsum_templates
from .operators import matmul_shape, matmul_templates
from .product_shapes import inner_shape, tensordot_shape
from .table import FORMS, LINEAR, rule


def _dot_templates(static, operand_shapes):
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if nx == 0 or ny == 0:
        return {"x": "np.sum(g * y)" if nx == 0 else "g * y", "y": "np.sum(g * x)" if ny == 0 else "g * x"}
    if nx is not None and ny is not None and nx <= 2 and ny <= 2:
        return matmul_templates(static, operand_shapes)
    if nx is not None and ny is not None:  # N-D: the last axis of x with the second-to-last of y
        return _tensordot_templates({"axes": ([nx - 1], [max(ny - 2, 0)])}, operand_shapes)
    return {"x": "dot_adjoint_x(g, x, y)", "y": "dot_adjoint_y(g, x, y)"}


def _dot_shape(static, x, y):
    if x.ndim == 0 or y.ndim == 0:
        return shapes.broadcast(shapes.array(x), shapes.array(y))
    if x.known and y.known and x.ndim <= 2 and y.ndim <= 2:
        return shapes.matmul(x, y)
    if x.known and y.known and x.ndim and y.ndim:
        return shapes.Shape(x.dims[:-1] + (y.dims[:-2] + y.dims[-1:] if y.ndim > 1 else ()))
    return shapes.UNKNOWN


def _inner_templates(static, operand_shapes):
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if nx == 0 or ny == 0:  # inner with a number is a product, as np.dot's
        return _dot_templates(static, operand_shapes)
    if nx == 1 and ny == 1:
        return {"x": "g * y", "y": "g * x"}
    if nx is not None and ny is not None and nx and ny:
        # inner(x, y) = tensordot(x, y, (-1, -1)): g's axes are x's free axes, then y's.
        free_x, free_y = list(range(nx - 1)), list(range(nx - 1, nx + ny - 2))
        return {"x": f"np.tensordot(g, y, axes=({free_y}, {list(range(ny - 1))}))",
                "y": f"np.tensordot(g, x, axes=({free_x}, {free_x}))"}
    return {"x": "np.tensordot(g, y, axes=(np.arange(np.ndim(x) - 1, np.ndim(g)), np.arange(np.ndim(y) - 1)))",
            "y": "np.tensordot(g, x, axes=(np.arange(np.ndim(x) - 1), np.arange(np.ndim(x) - 1)))"}


def _outer_templates(static, operand_shapes):
    if operand_shapes["x"].ndim == 1 and operand_shapes["y"].ndim == 1:
        return {"x": "g @ y", "y": "x @ g"}
    return {"x": "np.reshape(g @ np.ravel(y), np.shape(x))", "y": "np.reshape(np.ravel(x) @ g, np.shape(y))"}


def _tensordot_templates(static, operand_shapes):
    axes = static["axes"]
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if isinstance(axes, int) and (nx is None or ny is None):
        return {"x": f"np.tensordot(g, y, axes=(np.arange(np.ndim(x) - {axes}, np.ndim(g)), "
                     f"np.arange({axes}, np.ndim(y))))",
                "y": f"np.tensordot(x, g, axes=(np.arange(np.ndim(x) - {axes}), np.arange(np.ndim(x) - {axes})))"}
    if isinstance(axes, int):
        axes = (list(range(nx - axes, nx)), list(range(axes)))
    if nx is None or ny is None:
        raise SrcDiffError("numpy.tensordot with a pair of axis lists needs operands of known ndim",
                           hint="pass an integer `axes`, or arrays as arguments")
    ax, ay = ([a % nx for a in _seq(axes[0])], [a % ny for a in _seq(axes[1])])
    free_x = [a for a in range(nx) if a not in ax]
    free_y = [a for a in range(ny) if a not in ay]
    gx = list(range(len(free_x)))
    gy = list(range(len(free_x), len(free_x) + len(free_y)))
    # tensordot(g, y) has x's free axes, then the x axes paired with y's contracted axes
    # taken in y's order; tensordot(x, g) likewise the other way round.
    x_of, y_of = dict(zip(ay, ax)), dict(zip(ax, ay))
    inv_x = tuple(int(i) for i in np.argsort(free_x + [x_of[a] for a in sorted(ay)]))
    inv_y = tuple(int(i) for i in np.argsort([y_of[a] for a in sorted(ax)] + free_y))
    return {"x": f"np.transpose(np.tensordot(g, y, axes=({gy}, {free_y})), {inv_x})",
            "y": f"np.transpose(np.tensordot(x, g, axes=({free_x}, {gx})), {inv_y})"}


def _seq(a):
    return list(a) if isinstance(a, (tuple, list)) else [a]


def _transposed(name: str, ndim) -> str:
    return f"{name}.T" if ndim == 2 else f"np.swapaxes({name}, -1, -2)"


def _inv_templates(static, operand_shapes):
    t = _transposed("ans", operand_shapes["x"].ndim)
    return {"x": f"-{t} @ g @ {t}"}


def _det_templates(static, operand_shapes):
    # the cofactor matrix, det(x) inv(x).T where x is invertible, exact where it is singular too
    if operand_shapes["x"].ndim == 2:
        return {"x": "g * cofactor(x)"}
    return {"x": "(g * np.ones_like(ans))[..., None, None] * cofactor(x)"}  # (g: a number or a stack's)


def _slogdet_templates(static, operand_shapes):
    # g is the pair of adjoints (sign's, logabsdet's); the sign is piecewise constant
    if operand_shapes["x"].ndim == 2:
        return {"x": "g[1] * np.linalg.inv(x).T"}
    return {"x": "np.asarray(g[1])[..., None, None] * np.swapaxes(np.linalg.inv(x), -1, -2)"}


def _solve_templates(static, operand_shapes):
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if nx == 2 and ny == 1:
        return {"x": "-np.outer(np.linalg.solve(x.T, g), ans)", "y": "np.linalg.solve(x.T, g)"}
    if nx == 2 and ny == 2:
        return {"x": "-np.linalg.solve(x.T, g) @ ans.T", "y": "np.linalg.solve(x.T, g)"}
    return {"x": "solve_adjoint_x(g, x, y, ans)", "y": "solve_adjoint_y(g, x, y)"}


def _trace_templates(static, operand_shapes):
    eye = "np.eye(np.shape(x)[0], np.shape(x)[1], k=offset)"
    if operand_shapes["x"].known and operand_shapes["x"].ndim == 2:  # plain arithmetic, read back by srcdiff
        return {"x": f"{eye} * g"}
    return {"x": f"np.multiply.outer({eye}, g)"}


def _trace_derivable(static, operand_shapes):
    """The adjoint a second derivative reads back: a helper with a rule where the number of
    axes is not known (np.multiply.outer has none)."""
    if operand_shapes["x"].known and operand_shapes["x"].ndim == 2:
        return _trace_templates(static, operand_shapes)
    return {"x": "trace_adjoint(g, x, offset)"}


def _diag_templates(static, operand_shapes):
    ndim, k = operand_shapes["x"].ndim, static["k"]
    eye = "np.eye(np.shape(x)[0], np.shape(x)[1], k=k)"
    to_vector = (f"{eye} * np.concatenate([g, np.zeros(np.shape(x)[0] - np.size(g))])[:, None]" if k >= 0 else
                 f"{eye} * np.concatenate([g, np.zeros(np.shape(x)[1] - np.size(g))])")
    to_matrix = "np.diag(g, k)"
    if ndim == 1:
        return {"x": to_matrix}
    if ndim == 2:
        return {"x": to_vector}
    return {"x": f"({to_matrix} if np.ndim(x) == 1 else {to_vector})"}


def _diag_shape(static, x):
    """A vector's diagonal matrix (square, its side the length plus |k|), or a matrix's diagonal."""
    k = static.get("k", 0)
    if not x.known or x.ndim not in (1, 2) or not isinstance(k, int):
        return shapes.UNKNOWN
    if x.ndim == 1:
        side = x.dims[0] if k == 0 else shapes.MANY  # (n + |k| >= 2)
        return shapes.Shape((side, side))
    if k == 0 and shapes.ONE in x.dims:
        return shapes.Shape((shapes.ONE,))
    return shapes.Shape((shapes.MANY if k == 0 and x.dims == (shapes.MANY, shapes.MANY) else shapes.UNKNOWN_DIM,))


def _trace_shape(static, x):
    """A number for a matrix; for a stack, the stack's axes after the first two."""
    if not x.known or x.ndim < 2:
        return shapes.UNKNOWN
    return shapes.SCALAR if x.ndim == 2 else shapes.Shape(x.dims[2:])


def _second(static, x, h):
    return h


def _det_shape(static, x):
    if not x.known or x.ndim < 2:
        return shapes.UNKNOWN
    return shapes.SCALAR if x.ndim == 2 else shapes.Shape(x.dims[:-2])


def solve_shape(static, x, y):
    """For one matrix `x`, the solution has the right-hand side's shape."""
    if x.known and y.known and x.ndim == 2 and y.ndim in (1, 2) and not y.scalar:
        return shapes.Shape(y.dims)
    return shapes.UNKNOWN


def _outer_shape(static, x, y):
    def length(s):
        return s.dims[0] if s.known and s.ndim == 1 else shapes.UNKNOWN_DIM
    return shapes.Shape((length(x), length(y)))


def _same(static, x, *rest):
    return shapes.array(x)


# ---- tangents: products by the product rule; matrix functions by their differentials ----

def _product(call: str, *keywords: str) -> dict[str, str]:
    """The product rule for a bilinear ``call(x, y, ...)``: ``call(x_dot, y) + call(x, y_dot)``."""
    rest = "".join(f", {k}={k}" for k in keywords)
    return {"x": f"{call}(x_dot, y{rest})", "y": f"{call}(x, y_dot{rest})"}


def _det_tangents(static, operand_shapes):
    # d det(x) = sum(cofactor(x) * x_dot) (det(x) trace(inv(x) @ x_dot) where x is invertible)
    if operand_shapes["x"].ndim == 2:
        return {"x": "np.sum(cofactor(x) * x_dot)"}
    return {"x": "np.sum(cofactor(x) * x_dot, axis=(-2, -1))"}


def _slogdet_tangents(static, operand_shapes):
    # (sign, logabsdet): the sign is piecewise constant; d logabsdet = trace(inv(x) @ x_dot)
    if operand_shapes["x"].ndim == 2:
        return {"x": "(0.0, np.sum(np.linalg.inv(x).T * x_dot))"}
    return {"x": "(np.zeros(np.shape(ans[0])), np.einsum('...ij,...ji->...', np.linalg.inv(x), x_dot))"}


def _solve_tangents(static, operand_shapes):
    # x @ ans = y, so x @ ans_dot = y_dot - x_dot @ ans.  NumPy reads a 1-D y as a vector
    # (ans a vector, or a stack of them for a stack x) and any other y as (stacks of) matrices.
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if nx in (0, 1) or ny == 0:
        raise SrcDiffError("the tangent of numpy.linalg.solve needs (a stack of) square matrices and a "
                           "vector or matrices", hint="pass arrays of those shapes")
    matrices = "-np.linalg.solve(x, x_dot @ ans)"
    vectors = "-np.linalg.solve(x, (x_dot @ ans[..., None]))[..., 0]"  # each vector a one-column matrix
    if ny is not None:
        x = matrices if ny > 1 or nx == 2 else vectors
    else:  # shapes known only when it runs: the form for both
        x = f"({vectors} if np.ndim(y) == 1 else {matrices})"
    return {"x": x, "y": "np.linalg.solve(x, y_dot)"}


RULES = [
    # ---- products ----
    rule(np.matmul,    ("x", "y"), matmul_templates,     shape=matmul_shape, fresh=True,
         tangents=_product("np.matmul"), batching="matmul", sympy="numpy.matmul"),
    rule(np.dot,       ("x", "y"), _dot_templates,       shape=_dot_shape,   fresh=True, tangents=_product("np.dot"),
         batching="matmul", sympy=FORMS + "dot"),
    rule(np.inner,     ("x", "y"), _inner_templates,                         fresh=True, tangents=_product("np.inner"),
         shape=inner_shape, sympy="numpy.inner"),
    rule(np.outer,     ("x", "y"), _outer_templates,     shape=_outer_shape, fresh=True, array_result=True,
         tangents=_product("np.outer"), batching="outer", sympy="numpy.outer"),
    rule(np.tensordot, ("x", "y"), _tensordot_templates, static={"axes": 2}, fresh=True,
         tangents=_product("np.tensordot", "axes"), shape=tensordot_shape, sympy="numpy.tensordot",
         batching="tensordot"),
    # not fresh: einsum("ij->ji", x) is a view of x
    rule(np.einsum,    ("operands",), einsum_templates, static={"subscripts": "i,i->"}, variadic="args",
         shape=einsum_shape, tangents=einsum_tangents, batching="einsum", sympy="numpy.einsum",
         note="subscripts with '...', repeated indices (diagonals) and the sublist form; real operands"),
    # ---- matrix functions ----
    rule(np.trace,     ("x",), _trace_templates, static={"offset": 0}, shape=_trace_shape, fresh=True, tangents=LINEAR,
         derivable=_trace_derivable, batching="diagonal", sympy="numpy.trace"),
    # not fresh: the diagonal of a matrix is a view of it
    rule(np.diag,      ("x",), _diag_templates,  static={"k": 0}, shape=_diag_shape, tangents=LINEAR,
         sympy="numpy.diag", batching="diag"),
    rule(np.linalg.inv, ("x",), _inv_templates, shape=_same, fresh=True, array_result=True, batching="like",
         tangents={"x": "-ans @ x_dot @ ans"}, sympy=FORMS + "inv"),
    rule(np.linalg.det, ("x",), _det_templates, shape=_det_shape, fresh=True, tangents=_det_tangents,
         batching="stacked",
         note="its gradient is the cofactor matrix (from the SVD): exact at singular matrices too, first and second "
              "order",
         sympy=FORMS + "det"),
    # det's gradient and its derivative (rules/decomposition_helpers.py); the derivative is linear in h and
    # its own adjoint; a third derivative (in x of cofactor_derivative) has no rule: refused at the line
    rule(cofactor, ("x",), {"x": "cofactor_derivative(x, g)"}, shape=_same, fresh=True, array_result=True,
         batching="stacked",
         tangents={"x": "cofactor_derivative(x, x_dot)"}, sympy=FORMS + "cofactor"),
    rule(cofactor_derivative, ("x", "h"), {"h": "cofactor_derivative(x, g)"}, shape=_second, fresh=True,
         batching="stacked",
         array_result=True, tangents={"h": "cofactor_derivative(x, h_dot)"},
         not_symbolic="computed from the SVD, checked numerically"),
    rule(np.linalg.slogdet, ("x",), _slogdet_templates, fresh=True, tuple_result=True, tangents=_slogdet_tangents,
         batching="stacked",
         note="returns (sign, logabsdet); the sign carries no gradient; uses inv(x)", sympy=FORMS + "slogdet"),
    rule(np.linalg.solve, ("x", "y"), _solve_templates, shape=solve_shape, fresh=True, array_result=True,
         batching="solve",
         tangents=_solve_tangents, sympy=FORMS + "solve"),
    rule(np.linalg.cholesky, ("x",), {"x": "cholesky_adjoint(g, ans)"}, shape=_same, fresh=True, array_result=True,
         tangents={"x": "cholesky_tangent(x_dot, ans)"}, batching="stacked",
         note="the derivative of NumPy's cholesky, which reads only the lower triangle of x",
         not_symbolic="its adjoint needs triangular solves on numbers"),
]
