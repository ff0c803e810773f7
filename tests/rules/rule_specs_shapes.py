"""Spec rows of the rules of splits, rolls, padding and joins of lists (rules/numpy_split.py,
numpy_pad.py, numpy_joins.py), in the form of tests/rules/test_numpy_rules.py's `SPECS`; that file
checks each against central differences.  List values are made arrays again (join_like) for
the weighted sum."""

from rules.spec_kinds import Sym

JH = "srcdiff.rules.join_helpers"


def shapes_specs(S, REAL):
    return [
        # ---- splits: a list of pieces ----
        S("numpy.array_split", "np.array_split(x, 3)[1] * np.array_split(x, 3)[2][0]", x=((7,), REAL),
          sym=Sym("np.sum(np.sin(np.array_split(x * y, 2, axis=1)[1])) * np.sum(x[0])", "A, B")),
        S("numpy.array_split", "np.array_split(x, [1, 3], axis=1)[2] ** 2", x=((3, 5), REAL)),
        S("numpy.hsplit", "np.hsplit(x, 2)[0] * np.hsplit(x, 2)[1]", x=((3, 4), REAL),
          sym=Sym("np.sum(np.sin(np.hsplit(x * y, [1])[1]) * np.hsplit(y, [1])[0])", "A, B")),
        S("numpy.hsplit", "np.hsplit(x, [1])[1] ** 3", x=((5,), REAL)),
        S("numpy.vsplit", "np.vsplit(x, [1, 3])[2] * np.vsplit(x, [1, 3])[0]", x=((4, 3), REAL),
          sym=Sym("np.sum(np.sin(np.vsplit(x, 2)[0]) * np.vsplit(y, 2)[1])", "A, B")),
        S("numpy.dsplit", "np.dsplit(x, 2)[1] ** 2", x=((2, 3, 4), REAL),
          sym=Sym("np.sum(np.sin(np.dsplit(x[:, :, None] * y[:, None, :], [1])[1]))", "A, B")),
        # ---- moves, padding, appending ----
        S("numpy.roll", "np.roll(x, 2, axis=1)", x=((3, 4), REAL),
          sym=Sym("np.sum(np.sin(np.roll(x, 1, axis=1)) * y)", "A, B")),
        S("numpy.roll", "np.roll(x, 3) ** 2", x=((2, 3), REAL)),
        S("numpy.roll", "np.roll(x, (1, -2), axis=(0, 1))", x=((3, 4), REAL)),
        S("numpy.rot90", "np.rot90(x)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.rot90(x)) * np.rot90(y))", "A, B")),
        S("numpy.rot90", "np.rot90(x, 3, axes=(2, 0)) ** 2", x=((2, 3, 4), REAL)),
        S("numpy.pad", "np.pad(x, 2) ** 2", x=((3,), REAL),
          sym=Sym("np.sum(np.sin(np.pad(x, 1)) * np.pad(y, 1, mode='edge'))", 'A, B')),
        S("numpy.pad", "np.pad(x, ((1, 2), (0, 3)), constant_values=1.5) ** 3", x=((2, 3), REAL)),
        S("numpy.pad", "np.pad(x, (3, 1), 'constant') * 2.0", x=((2, 2), REAL)),
        # widths computed when the function runs (rules/numpy_pad.py PAD_WHEN_RUN)
        S("numpy.pad", "np.pad(x, (1, x.shape[0] - 1)) ** 2", x=((3,), REAL)),
        S("numpy.pad", "np.pad(x, ((0, 1), (x.shape[1] // 2, 1)), mode='edge') ** 3", x=((2, 4), REAL)),
        S("numpy.pad", "np.pad(x, ((2, 1), (0, 3)), mode='edge') ** 2", x=((3, 4), REAL)),
        S("numpy.pad", "np.pad(x, 2, 'reflect') * np.pad(x, 2, 'symmetric') + np.pad(x, (1, 3), mode='wrap')",
          x=((4,), REAL)),
        S("numpy.append", "np.append(x, y)", x=((2, 2), REAL), y=((3,), REAL),
          sym=Sym("np.sum(np.sin(np.append(x, y, axis=0)) * np.append(y, x, axis=0))", "A, B")),
        S("numpy.append", "np.append(x, y, axis=0) ** 2", x=((2, 3), REAL), y=((1, 3), REAL)),
        S("numpy.append", "np.append(x, y * y, axis=-1)", x=((2, 3), REAL), y=((2, 2), REAL)),
        # ---- joins that take one list ----
        S("numpy.column_stack", "np.column_stack([x, y ** 2])", x=((3,), REAL), y=((3, 2), REAL),
          sym=Sym("np.sum(np.sin(np.column_stack([x[0], y[1]])) * y.T)", "A, B")),
        S("numpy.column_stack", "np.column_stack((x[0], x[1], x[0] * x[1]))", x=((2, 3), REAL)),
        S("numpy.dstack", "np.dstack([x, y]) ** 2", x=((2, 3), REAL), y=((2, 3), REAL),
          sym=Sym("np.sum(np.sin(np.dstack([x, y])) * y[:, :, None])", "A, B")),
        S("numpy.dstack", "np.dstack([x, x * 2.0])", x=((3,), REAL)),
        S("numpy.row_stack", "np.row_stack([x, y]) ** 2", x=((3,), REAL), y=((2, 3), REAL),
          sym=Sym("np.sum(np.sin(np.row_stack([x[0], y])) * x[1])", "A, B")),
        S(f"{JH}.column_join", "np.c_[x, y] ** 2", x=((3,), REAL), y=((3, 2), REAL),
          sym=Sym("np.sum(np.sin(np.c_[x, y[:, 0]]) * np.c_[y, x[:, 1]])", "A, B")),
        S(f"{JH}.column_join", "np.c_[x, 2.0 * x]", x=((2, 2), REAL)),
        S(f"{JH}.join_adjoint", "join_like(join_adjoint(x * y, [y[0], y[1]], 'vstack', None), [y[0], y[1]], "
          "'vstack', None)", x=((2, 3), REAL), y=((2, 3), REAL)),
        S(f"{JH}.join_adjoint", "join_like(join_adjoint(np.sin(x), [y, y[:2]], 'concatenate', 0), [y, y[:2]], "
          "'concatenate', 0)", x=((5,), REAL), y=((3,), REAL)),
        S(f"{JH}.join_like", "join_like([np.sin(x[0]), x[1] * y], [x[0], y], 'column_stack', None)",
          x=((2, 3), REAL), y=((3,), REAL)),
        S(f"{JH}.join_like", "join_like([x[0], x[1] * 2.0], [x[0], x[1]], 'stack', 1) * y", x=((2, 3), REAL),
          y=((3, 2), REAL)),
    ]


def insert_delete_specs(S, REAL, Sym):
    """np.insert and np.delete (after every other row, so the recorded programs keep their rows)."""
    return [
        S("numpy.insert", "np.insert(x, 0, 0.0)", x=((4,), REAL)),
        S("numpy.insert", "np.insert(x, [3, 1], y) ** 2", x=((5,), REAL), y=((2,), REAL),
          sym=Sym("np.sum(np.sin(np.insert(x, 1, y[0, 0], axis=1)) * np.insert(y, 2, x[1, 0] * x[0, 1], axis=1))",
                  "A, B")),
        S("numpy.insert", "np.insert(x, 1, y, axis=1) * np.insert(x, [0, 2], y[0, :, None], axis=1)[:, :4]",
          x=((3, 3), REAL), y=((1, 3), REAL)),
        S("numpy.delete", "np.delete(x, [0, 2]) ** 3", x=((5,), REAL),
          sym=Sym("np.sum(np.sin(np.delete(x, 1, axis=1)) * np.delete(y, [0], axis=1))", "A, B")),
        S("numpy.delete", "np.delete(x, 1, axis=1) * np.delete(y, 0, axis=0)", x=((2, 3), REAL), y=((3, 2), REAL)),
    ]
