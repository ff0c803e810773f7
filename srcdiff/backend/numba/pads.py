"""numba versions of ``np.pad`` of a vector with the modes that copy its own values
(``"edge"``, ``"reflect"``, ``"symmetric"``, ``"wrap"``), its widths constants or computed,
and of srcdiff's ``index_add`` that their gradient uses (``index_add(zeros, (positions,),
g)``: each padded element's adjoint added back to the element it copies).  `spell` is spelling.py's rule.

Each padded position copies the element NumPy's definition names: the nearest end
(edge), the mirror image without or with the end repeated (reflect, symmetric), the
periodic one (wrap).  A width longer than NumPy's one-step mirror covers (reflect: the
length less one; symmetric: the length) raises ``ValueError``, and the Python gradient
runs instead to say what happened; so does an index out of bounds in ``index_add``."""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import made, overload
from .turns import spell as constant_spell
from .turns import spread_widths, width_array, width_nodes

MODES = {"edge": 0, "reflect": 1, "symmetric": 2, "wrap": 3}


def spell(node: ast.Call) -> tuple[str, list] | None:
    func, keywords = node.func, {k.arg: k.value for k in node.keywords}
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"
            and func.attr == "pad" and 2 <= len(node.args) <= 3 and set(keywords) <= {"mode"}):
        return None
    mode = node.args[2] if len(node.args) == 3 else keywords.get("mode")
    mode = _constant(mode) if mode is not None else None
    widths = width_nodes(node.args[1])
    if mode not in MODES or widths is None or len(widths[0]) != 1:
        return constant_spell(node) if mode == "constant" and len(node.args) == 3 else None
    return "pad_mode", [node.args[0], widths[0][0], widths[1][0], ast.Constant(MODES[mode])]


def _constant(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def pad_mode(x, before, after, mode):
    return np.pad(x, (before, after), mode=next(name for name, code in MODES.items() if code == mode))


@overload(pad_mode)
def _pad_mode(x, before, after, mode):
    computed = isinstance(before, types.Array) and before == after and width_array(types.Tuple((before,)))
    if not (isinstance(x, types.Array) and x.ndim == 1 and isinstance(mode, types.IntegerLiteral)
            and (computed or isinstance(before, types.Integer) and isinstance(after, types.Integer))):
        return None
    code = mode.literal_value
    source = {0: "min(max(j, 0), n - 1)",
              1: "-j if j < 0 else (2 * (n - 1) - j if j > n - 1 else j)",
              2: "-j - 1 if j < 0 else (2 * n - 1 - j if j > n - 1 else j)",
              3: "j % n"}[code]
    longest = {0: None, 1: "n - 1", 2: "n", 3: None}[code]
    check = "    if before < 0 or after < 0:\n" \
        "        raise ValueError('np.pad: index can\\'t contain negative values')\n"
    if longest:
        check += f"    if n == 0 or (before > {longest} or after > {longest}):\n" \
            "        raise ValueError('np.pad: the width is longer than the array this mode mirrors')\n"
    else:
        check += "    if n == 0:\n        raise ValueError('np.pad: an empty array has no values to copy')\n"
    dtype = np.dtype(str(x.dtype))
    if computed:  # (the width as the code computed it: an array, as np.pad reads one)
        spread = spread_widths(1, before).replace("before[0]", "before")
        check = spread + "    before = bs[0]\n    after = as_[0]\n" + check
    return made("def impl(x, before, after, mode):\n"
                "    n = x.shape[0]\n" + check +
                "    out = np.empty(n + before + after, DTYPE)\n"
                "    for k in range(n + before + after):\n"
                "        j = k - before\n"
                f"        out[k] = x[{source}]\n"
                "    return out\n", DTYPE=dtype)


def index_add(base, index, value):
    out = np.array(base, dtype=np.result_type(base, value, 0.0), copy=True)
    np.add.at(out, tuple(index), value)
    return out


@overload(index_add)
def _index_add(base, index, value):
    parts = getattr(index, "types", None)
    if not (isinstance(base, types.Array) and base.ndim == 1 and isinstance(base.dtype, types.Float)
            and isinstance(index, types.BaseTuple) and parts and len(parts) == 1
            and isinstance(parts[0], types.Array) and parts[0].ndim == 1 and isinstance(parts[0].dtype, types.Integer)
            and isinstance(value, types.Array) and value.ndim == 1 and isinstance(value.dtype, types.Float)):
        return None

    def add(base, index, value):
        out = base.astype(np.float64)  # (a new array: the base is not written)
        places = index[0]
        if places.shape[0] != value.shape[0]:
            raise ValueError("index_add: values do not fit")
        n = out.shape[0]
        for k in range(places.shape[0]):
            i = places[k]
            if not -n <= i < n:
                raise IndexError("index out of bounds in index_add")
            out[i] += value[k]
        return out
    return add


HELPERS = ("pad_mode", "index_add")
