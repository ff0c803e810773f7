"""In-place writes through views and second names, each written several ways as everyday code
writes them: (1) a reshape / ravel view written through (``flat = Y.reshape(-1); flat *= w``,
``flat[::2] = v``), (2) a transpose view (``Yt = Y.T; Yt[0] = v``, ``.transpose()``,
``np.transpose``), (3) a strided or sliced part written by index (``evens = z[::2]; evens[:] = v``,
a row ``B[i, :]`` in a loop), (4) a second name of an array updated in place (``b = a; b += v``,
``x_prev = x`` in a loop), (5) ``out=`` of ufuncs, ``np.cumsum`` and ``np.clip``, and (6) a helper
of the module called for its effect on the caller's array (``_normalise_(u)``).
test_views14.py runs every transformation on them."""

import numpy as np

# ---- 1. reshape and ravel views ---------------------------------------------------------------------


def reshape_scale_matrix(X, w):  # the red team's: flat = Y.reshape(-1); flat *= w
    Y = X.copy()
    flat = Y.reshape(-1)
    flat *= w
    return np.sum(np.sin(Y))


def reshape_vector_to_matrix(x):  # a 1-D array seen as rows, scaled by column
    z = x.copy()
    v = z.reshape(2, 3)
    v *= np.array([1.0, 2.0, 3.0])
    return np.sum(z ** 2) + z[4]


def ravel_strided_write(B, w):  # flat[::2] *= w through ravel
    C = B.copy()
    flat = C.ravel()
    flat[::2] *= w
    return np.sum(C ** 2 * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


def np_reshape_set_then_read_view(X):  # np.reshape, a write by index, then the view read again
    Y = np.zeros(X.shape)
    Y += X
    flat = np.reshape(Y, -1)
    flat[1] = np.tanh(flat[0]) * 3.0
    return np.sum(Y * Y) + np.sum(flat[::2])


def reshape_in_a_loop(X, steps=3):  # the view written in every iteration of a loop
    Y = X.copy()
    for _ in range(steps):
        flat = Y.reshape(-1)
        flat[0] = flat[0] + np.sum(np.sin(flat))
    return np.sum(Y ** 2)


def ravel_in_a_branch(x, flag=True):
    Z = np.outer(x, x).copy()
    flat = Z.ravel()
    if flag:
        flat *= 0.5
    else:
        flat += 1.0
    return np.sum(np.exp(-Z))


# ---- 2. transpose views -----------------------------------------------------------------------------


def transpose_row_scale(X):  # the red team's: Yt = Y.T; Yt[0] *= 3.0 is Y's first column
    Y = X.copy()
    Yt = Y.T
    Yt[0] *= 3.0
    return np.sum(np.tanh(Y) * np.arange(Y.size).reshape(Y.shape))


def transpose_row_set_from_itself(A):
    B = A.copy()
    Bt = B.T
    Bt[0] = 0.5 * Bt[0] + 1.0
    return np.sum(B ** 2 * A)


def transpose_method_whole_update(A):  # .transpose() updated whole: B += ... through it
    B = A.copy()
    Bt = B.transpose()
    Bt += np.arange(A.size, dtype=float).reshape(Bt.shape)
    return np.sum(np.sin(B) * A)


def np_transpose_axes_3d(T):  # a 3-D transpose with axes, written by index
    U = T.copy()
    V = np.transpose(U, (2, 0, 1))
    V[1] = V[1] ** 2
    return np.sum(U * T)


# ---- 3. parts written by index ------------------------------------------------------------------------


def strided_view_assign(x):  # the red team's: evens = z[::2]; evens[:] = np.sin(evens)
    z = x.copy()
    evens = z[::2]
    evens[:] = np.sin(evens)
    return np.sum(z * x)


def row_view_in_loop(A):  # a row of a matrix written through its view in a loop
    B = A.copy()
    for i in range(B.shape[0]):
        row = B[i, :]
        row[1:] = row[1:] * row[0]
    return np.sum(B ** 2)


def column_view_then_whole(A):  # a column view, then the matrix changed while the view is read
    B = np.ones(A.shape)
    B *= A
    col = B[:, 1]
    col[0] = 2.0 * col[-1]
    B *= 1.5  # the view sees this too
    return np.sum(col ** 2) + np.sum(B)


# ---- 4. second names ------------------------------------------------------------------------------------


def second_name_iadd(x):  # the red team's: b = a; b += x ** 2 changes a
    a = x.copy()
    b = a
    b += x ** 2
    return np.sum(a * x)


def second_name_written_by_index(x):
    buf = np.zeros(x.shape)
    out = buf
    out[0] = np.sum(x ** 2)
    out[1:] = np.cos(x[1:])
    return np.sum(buf * x) + out[0]


def previous_state_in_loop(x0, dt=0.1):  # x_prev = x is not a copy: x - x_prev is 0
    x = x0.copy()
    total = 0.0
    for _ in range(3):
        x_prev = x
        x += dt * np.sin(x)
        total = total + np.sum((x - x_prev) ** 2) + np.sum(x ** 2)
    return total


def matrix_alias_scaled(W):
    M = W.copy()
    N = M
    M *= 2.0  # N sees it
    return np.sum(N * W) + np.sum(M)


# ---- 5. out= ----------------------------------------------------------------------------------------------


def out_chain_of_ufuncs(x):  # the red team's: np.multiply(x, x, out=y); np.exp(-y, out=y)
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.exp(-y, out=y)
    return np.sum(y * x)


def relu_out_in_place(W, X):
    h = X @ W
    np.maximum(h, 0.0, out=h)
    return np.sum(h ** 2)


def add_out_then_assigned(x):  # the call's value is out itself
    y = np.array(x)
    z = np.add(y, 1.0, out=y)
    np.multiply(z, x, out=z)
    return np.sum(y) + np.sum(z)


def cumsum_out_alias(x):
    y = x.copy()
    np.cumsum(y, out=y)
    return np.sum(y * x)


def clip_out_in_loop(x, steps=3):
    y = x.copy()
    for _ in range(steps):
        y *= 1.7
        np.clip(y, -1.0, 1.0, out=y)
    return np.sum(y ** 2 * x)


def out_into_a_view(X):  # out= names a transpose view: the matrix changes
    Y = X.copy()
    Yt = Y.T
    np.tanh(Yt, out=Yt)
    return np.sum(Y * np.arange(1.0, 1.0 + Y.size).reshape(Y.shape))


# ---- 6. helpers that write into their caller's array ---------------------------------------------------


def _normalise_(v):
    v /= np.linalg.norm(v)


def helper_normalises_in_place(x, w):  # the red team's: a helper called for its effect
    u = x.copy()
    _normalise_(u)
    return w @ u + np.sum(u ** 3)


def _clip_rows_(A, c):
    """Scale each row of A to norm at most c, in place."""
    scale = np.minimum(1.0, c / np.linalg.norm(A, axis=1, keepdims=True))
    A *= scale


def helper_in_a_loop(W, X):
    U = W.copy()
    for _ in range(2):
        U += 0.3 * X.T @ (X @ U)
        _clip_rows_(U, 1.5)
    return np.sum(U ** 2)


def _set_head_(buf, v):
    buf[0] = np.sum(v ** 2)
    buf[1:] *= v[0]


def helper_writes_by_index(x):
    b = np.ones(3)
    _set_head_(b, x)
    return np.sum(np.sin(b) * x)


def _M(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("reshape_scale_matrix", reshape_scale_matrix, lambda r: (_M(r, 2, 3), 1.3), 0),
    ("reshape_scale_matrix_factor", reshape_scale_matrix, lambda r: (_M(r, 2, 3), 1.3), 1),
    ("reshape_vector_to_matrix", reshape_vector_to_matrix, lambda r: (_M(r, 6),), 0),
    ("ravel_strided_write", ravel_strided_write, lambda r: (_M(r, 2, 3), 0.7), 0),
    ("ravel_strided_write_factor", ravel_strided_write, lambda r: (_M(r, 2, 3), 0.7), 1),
    ("np_reshape_set_then_read_view", np_reshape_set_then_read_view, lambda r: (_M(r, 2, 2),), 0),
    ("reshape_in_a_loop", reshape_in_a_loop, lambda r: (0.5 * _M(r, 2, 2),), 0),
    ("ravel_in_a_branch", ravel_in_a_branch, lambda r: (_M(r, 3),), 0),
    ("transpose_row_scale", transpose_row_scale, lambda r: (_M(r, 3, 2),), 0),
    ("transpose_row_set_from_itself", transpose_row_set_from_itself, lambda r: (_M(r, 2, 3),), 0),
    ("transpose_method_whole_update", transpose_method_whole_update, lambda r: (_M(r, 2, 3),), 0),
    ("np_transpose_axes_3d", np_transpose_axes_3d, lambda r: (_M(r, 2, 3, 2),), 0),
    ("strided_view_assign", strided_view_assign, lambda r: (_M(r, 5),), 0),
    ("row_view_in_loop", row_view_in_loop, lambda r: (_M(r, 3, 3),), 0),
    ("column_view_then_whole", column_view_then_whole, lambda r: (_M(r, 3, 2),), 0),
    ("second_name_iadd", second_name_iadd, lambda r: (_M(r, 4),), 0),
    ("second_name_written_by_index", second_name_written_by_index, lambda r: (_M(r, 3),), 0),
    ("previous_state_in_loop", previous_state_in_loop, lambda r: (_M(r, 3),), 0),
    ("matrix_alias_scaled", matrix_alias_scaled, lambda r: (_M(r, 2, 2),), 0),
    ("out_chain_of_ufuncs", out_chain_of_ufuncs, lambda r: (_M(r, 4),), 0),
    ("relu_out_in_place", relu_out_in_place, lambda r: (_M(r, 3, 2), _M(r, 4, 3)), 0),
    ("relu_out_in_place_data", relu_out_in_place, lambda r: (_M(r, 3, 2), _M(r, 4, 3)), 1),
    ("add_out_then_assigned", add_out_then_assigned, lambda r: (_M(r, 4),), 0),
    ("cumsum_out_alias", cumsum_out_alias, lambda r: (_M(r, 5),), 0),
    ("clip_out_in_loop", clip_out_in_loop, lambda r: (0.4 * _M(r, 4),), 0),
    ("out_into_a_view", out_into_a_view, lambda r: (_M(r, 2, 3),), 0),
    ("helper_normalises_in_place", helper_normalises_in_place, lambda r: (_M(r, 3), _M(r, 3)), 0),
    ("helper_normalises_in_place_weights", helper_normalises_in_place, lambda r: (_M(r, 3), _M(r, 3)), 1),
    ("helper_in_a_loop", helper_in_a_loop, lambda r: (_M(r, 3, 2), 0.5 * _M(r, 4, 3)), 0),
    ("helper_writes_by_index", helper_writes_by_index, lambda r: (_M(r, 3),), 0),
]
