"""numba's spellings of what generated code says in NumPy's, as AST rewrites of one function.

* ``del name`` (memory hints for CPython) are dropped;
* the adjoint of a decomposition's tuple result, a list, becomes one name per part
  (tuple_adjoints.py);
* ``reversed(range(a, b))`` becomes ``range(b - 1, a - 1, -1)``;
* ``np.full(shape, array)``, ``np.add.at``, ``np.array`` of a list of arrays or with
  ``copy=``/``dtype=float``, ``np.stack``/``np.concatenate``/``np.hstack``/``np.vstack`` of a
  list, ``np.flip``/``np.cumsum`` along an axis, ``np.expand_dims`` of several axes,
  ``np.matmul``, ``np.inner``, ``np.einsum``, ``math.factorial`` become helpers (runtime.py,
  missing.py, einsum.py);
* ``np.s_[a:b, i]`` becomes the tuple of slices it stands for; the dtype guard
  ``np.issubdtype(np.dtype(d), np.floating)`` and ``np.astype`` become helpers;
* a reduction along axes or with ``keepdims`` (``np.max(z, axis=1, keepdims=True)``,
  ``g.sum(axis=(0, 1))``, ``np.var``, ``np.linalg.norm(x, axis=1)``), which numba's NumPy
  does not take, becomes a call of the helper compiled for it (``reduce_max(z, 1, True)``,
  reductions.py);
* array building calls, tensordot and dtype tests: array_calls.py's rules; numerical
  calculus (``np.gradient``, ``np.diff`` with ``prepend=``, ``np.polyval``...): calculus_calls.py's;
  ``np.trapezoid``/``np.quantile``/``np.cross`` along given axes and ``np.heaviside``: axis_calls.py's;
  ``np.linalg.lstsq(a, b, rcond=None)``: least_squares.py's; builtin ``any``/``all``: truth_tests.py's;
* ``np.random.default_rng(seed)`` made in the function and its draws: NumPy's, through
  numba's object mode (random_calls.py);
* lists of integer constants used as indexes (``B[[0, 1]] = B[[1, 0]]``) as integer arrays
  (index_writes.py), ``np.ix_`` meshes and the indexing through them (open_meshes.py), and
  numpy.polynomial's Gauss nodes through object mode (object_calls.py, which also lets numba
  take ``int()``/``float()`` of a string); ``np.fft.fftfreq``/``rfftfreq`` and ``np.diag_indices``
  (frequencies.py);
* an f-string in an error message (``raise ValueError(f"bad {x.shape}")``) becomes its
  text with the expressions as written: numba formats few values, and an error raised by
  the compiled code is raised again by the Python gradient, with the values in it.
"""

from __future__ import annotations

import ast

from . import (
    array_calls,
    averages,
    axis_calls,
    calculus_calls,
    diagonals,
    einsum_lists,
    exact_sums,
    frequencies,
    grids,
    index_writes,
    least_squares,
    list_joins,
    list_sums,
    list_tuples,
    log_sums,
    masks,
    named_norms,
    nested_lists,
    object_calls,
    open_meshes,
    optionals,
    pads,
    partitions,
    pieces,
    random_calls,
    scans,
    shape_tuples,
    stacked,
    truth_tests,
    tuple_adjoints,
    tuple_parts,
    turns,
)

#: NumPy reductions (function or method) -> the helper that takes (a, axis, keepdims)
REDUCTIONS = {"sum": "reduce_sum", "mean": "reduce_mean", "max": "reduce_max", "min": "reduce_min",
              "amax": "reduce_max", "amin": "reduce_min", "prod": "reduce_prod", "any": "reduce_any",
              "all": "reduce_all", "var": "reduce_var", "std": "reduce_std",
              **{f"nan{k}": f"reduce_nan{k}" for k in ("sum", "mean", "max", "min", "prod", "var", "std")}}
METHODS = {"sum", "mean", "max", "min", "prod", "any", "all", "var", "std"}
#: NumPy functions of (array, constant axis) numba takes without the axis -> missing.py's helper
ALONG_AXIS = {"flip": "flip_axis", "cumsum": "cumsum_axis", "argsort": "argsort_axis", "sort": "sort_axis"}
#: NumPy calls numba lacks, same arguments -> missing.py's helper
SAME_ARGUMENTS = {"matmul": "matmul_stacks", "inner": "inner_product", "broadcast_to": "broadcast_to_shape"}
#: ``math``'s integer functions numba lacks: the helper (integers.py) and the number of arguments
INTEGERS = {"factorial": ("int_factorial", 1), "comb": ("int_comb", 2)}
FLOAT_DTYPES = ("float", "np.float64", "numpy.float64")


def for_numba(func: ast.FunctionDef) -> set[str]:
    """Rewrite `func` in place; the helpers its new calls need."""
    pieces.rewrite(func)
    index_writes.index_lists(func)
    meshes = open_meshes.rewrite(func)
    nested_lists.rewrite(func)
    einsum_lists.rewrite(func)  # (a list display given to np.einsum: an array)
    tuple_adjoints.split(func)
    written_parts = tuple_parts.rewrite(func)
    drawn = random_calls.rewrite(func)
    rewriter = _Rewriter()
    rewriter.visit(func)
    list_tuples.as_tuples(func)  # (a list display only read, summed or saved: a tuple, after ``sum`` is spelled)
    rewriter.helpers.update(meshes)
    if drawn:
        rewriter.helpers.update(("random_open", "random_draw"))
    if written_parts:
        rewriter.helpers.add("set_part")
    if shape_tuples.rewrite(func):
        rewriter.helpers.add("shape_operand")
    if masks.rewrite(func):
        rewriter.helpers.update(("masked_items", "set_masked"))
    rewriter.helpers.update(optionals.rewrite(func))
    for node in ast.walk(func):  # a body left empty by dropped ``del``s
        if isinstance(getattr(node, "body", None), list) and not node.body:
            node.body = [_located(ast.Pass(), node)]
    return rewriter.helpers


#: builtin types used as dtypes -> the NumPy scalar types numba takes in their place
BUILTIN_DTYPES = {"bool": "bool_", "int": "int64", "float": "float64"}


def _numpy_dtypes(node: ast.Call) -> None:
    """``m.astype(bool)``, ``np.asarray(m, dtype=int)``: numba takes NumPy's scalar types as
    dtypes, not Python's builtins (``np.bool_``, ``np.int64``, ``np.float64``)."""
    def spelled(e):
        if isinstance(e, ast.Name) and e.id in BUILTIN_DTYPES:
            return ast.copy_location(ast.Attribute(ast.Name("np", ast.Load()), BUILTIN_DTYPES[e.id], ast.Load()), e)
        return e
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1:
        node.args = [spelled(node.args[0])]
    for k in node.keywords:
        if k.arg == "dtype":
            k.value = spelled(k.value)


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    if hasattr(old, "origin"):
        new.origin = old.origin
    return new


class _Rewriter(ast.NodeTransformer):
    def __init__(self):
        self.helpers: set[str] = set()

    def visit_Delete(self, node: ast.Delete):
        # ``del name`` frees memory (numba has no use for it); ``del states_bar[-1:]`` (a list
        # drop in forward mode over a derivable gradient) changes the list: kept
        node.targets = [t for t in node.targets if not isinstance(t, ast.Name)]
        return node if node.targets else None

    def visit_For(self, node: ast.For):
        """``for items in reversed(stack):`` over a list: by position, from the end."""
        self.generic_visit(node)
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" \
                and len(it.args) == 1 and isinstance(it.args[0], ast.Name):
            stack = it.args[0].id
            index = f"{stack}_index"
            node.iter = ast.Call(ast.Name("range", ast.Load()), [
                ast.BinOp(ast.Call(ast.Name("len", ast.Load()), [ast.Name(stack, ast.Load())], []), ast.Sub(),
                          ast.Constant(1)), ast.Constant(-1), ast.Constant(-1)], [])
            item = _located(ast.Assign([node.target], ast.Subscript(ast.Name(stack, ast.Load()),
                                                                     ast.Name(index, ast.Load()), ast.Load()),
                                       lineno=0), node)
            node.target = ast.Name(index, ast.Store())
            node.body.insert(0, item)
        return node

    def visit_Raise(self, node: ast.Raise):
        for part in ast.walk(node):
            if isinstance(part, ast.Call):
                part.args = [_plain(a) for a in part.args]
        return node

    def visit_Assert(self, node: ast.Assert):
        self.generic_visit(node)
        if node.msg is not None:
            node.msg = _plain(node.msg)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        """``[0.0] * len(items)`` (a list's adjoint) as zeros shaped like each item; ``a @ b``
        as missing.py's ``matmul_stacks`` (numba's ``@`` takes 1-D and 2-D operands only)."""
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return self._helper("matmul_stacks", [node.left, node.right])
        if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.List) and len(node.left.elts) == 1 \
                and isinstance(node.left.elts[0], ast.Constant) and node.left.elts[0].value == 0.0 \
                and isinstance(node.right, ast.Call) and isinstance(node.right.func, ast.Name) \
                and node.right.func.id == "len" and len(node.right.args) == 1:
            return self._helper("zeros_list", [node.right.args[0]])
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        spelled = diagonals.spell(node)
        return node if spelled is None else self._helper(*spelled)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        _numpy_dtypes(node)
        if isinstance(func, ast.Name) and func.id == "reversed" and len(node.args) == 1:
            return _reversed_range(node)
        if (_is_np(func, "array") or _is_np(func, "asarray")) and len(node.args) == 1:
            return self._array(node, func.attr == "array")
        if isinstance(func, ast.Attribute) and func.attr in ALONG_AXIS and _is_np(func, func.attr):
            axis = node.args[1] if len(node.args) == 2 else _keyword(node, "axis")
            kind = _keyword(node, "kind")  # the sorts are stable (sorting.py): NumPy's ``kind="stable"``
            stable = kind is not None and func.attr in ("sort", "argsort") and isinstance(kind, ast.Constant) \
                and kind.value in ("stable", "mergesort")
            if axis is not None and not _is_none(axis) and len(node.args) + len(node.keywords) == 2 + stable:
                return self._helper(ALONG_AXIS[func.attr], [node.args[0], axis])
            if func.attr == "flip" and (axis is None or _is_none(axis)) and len(node.args) + len(node.keywords) \
                    == 1 + (axis is not None):
                # ``np.flip(X)`` flips every axis; numba's np.flip takes 1-D arrays only
                return self._helper("flip_axis", [node.args[0], ast.Constant(None)])
        if _is_np(func, "einsum") and 2 <= len(node.args) <= 4 and not node.keywords \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return self._helper(f"einsum_{len(node.args) - 1}", node.args)
        if _is_np(func, "issubdtype") and len(node.args) == 2 and not node.keywords \
                and isinstance(node.args[0], ast.Call) and _is_np(node.args[0].func, "dtype") \
                and len(node.args[0].args) == 1 and _is_np(node.args[1], "floating"):
            return self._helper("is_floating", node.args[0].args)
        if _is_np(func, "astype") and len(node.args) == 2 and not node.keywords:
            return self._helper("astype_to", node.args)
        if _is_np(func, "reshape") and len(node.args) == 2 and not node.keywords:
            return self._helper("reshaped", node.args)
        if isinstance(func, ast.Attribute) and func.attr == "reshape" and node.args and not node.keywords \
                and not (isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy")):
            # ``a.reshape(t)`` of a strided view (a piece of np.split): numba reshapes C-ordered arrays only
            shape = node.args[0] if len(node.args) == 1 else ast.Tuple(node.args, ast.Load())
            return self._helper("reshaped", [func.value, shape])
        if _is_np(func, "expand_dims") and len(node.args) == 2 \
                and isinstance(node.args[1], (ast.Tuple, ast.Constant, ast.UnaryOp)):
            return self._helper("expand_axes", node.args)
        if isinstance(func, ast.Attribute) and func.attr in SAME_ARGUMENTS and _is_np(func, func.attr) \
                and len(node.args) == 2 and not node.keywords:
            return self._helper(SAME_ARGUMENTS[func.attr], node.args)
        if isinstance(func, ast.Attribute) and func.attr in INTEGERS and isinstance(func.value, ast.Name) \
                and func.value.id == "math" and len(node.args) == INTEGERS[func.attr][1] and not node.keywords:
            return self._helper(INTEGERS[func.attr][0], node.args)
        if (_is_np(func, "hstack") or _is_np(func, "vstack")) and len(node.args) == 1 and not node.keywords:
            return self._helper("hstack_list" if func.attr == "hstack" else "vstack_list", node.args)
        if isinstance(func, ast.Attribute) and func.attr == "norm" and isinstance(func.value, ast.Attribute) \
                and _is_np(func.value, "linalg") and len(node.args) == 1 \
                and {k.arg for k in node.keywords} <= {"axis", "keepdims"} and node.keywords:
            return self._reduction("norm", node.args[0], [], node, "reduce_norm")
        if isinstance(func, ast.Attribute) and func.attr == "at" and _is_np(func.value, "add") \
                and len(node.args) == 3 and not node.keywords:
            return self._helper("add_at", node.args)
        if _is_np(func, "full") and len(node.args) == 2 and not node.keywords:
            return self._helper("full", node.args)
        if _is_np(func, "zeros") and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Call) \
                and _is_np(node.args[0].func, "shape") and len(node.args[0].args) == 1 and not node.args[0].keywords:
            return self._helper("zeros_shaped", node.args[0].args)  # a number's zero adjoint: 0.0 (zero_adjoints.py)
        if _is_np(func, "zeros") and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name):
            return self._helper("zeros_of_shape", node.args)  # (the shape kept in a name: the same)
        if (_is_np(func, "stack") or _is_np(func, "concatenate")) and node.args and len(node.args) <= 2 \
                and all(k.arg == "axis" for k in node.keywords):
            axis = node.args[1] if len(node.args) == 2 else next((k.value for k in node.keywords), ast.Constant(0))
            return self._helper("stack_list" if func.attr == "stack" else "concat_list", [node.args[0], axis])
        if isinstance(func, ast.Attribute) and func.attr in REDUCTIONS:
            module = func.value.id if isinstance(func.value, ast.Name) else None
            if module == "np" and node.args:
                return self._reduction(func.attr, node.args[0], node.args[1:], node)
            if module not in ("np", "math", "numpy") and func.attr in METHODS:
                return self._reduction(func.attr, func.value, node.args, node)
        spelled = named_norms.spell(node) or diagonals.spell_call(node) or array_calls.spell(node) \
            or calculus_calls.spell(node) or stacked.spell(node) or turns.spell(node) or list_joins.spell(node) \
            or pads.spell(node) or log_sums.spell(node) or list_sums.spell(node) or averages.spell(node) \
            or grids.spell(node) or scans.spell(node) or partitions.spell(node) or exact_sums.spell(node) \
            or object_calls.spell(node) or axis_calls.spell(node) or least_squares.spell(node) \
            or truth_tests.spell(node) or frequencies.spell(node)
        if spelled is not None:
            return self._helper(*spelled)
        return node

    def _helper(self, name: str, args: list) -> ast.Call:
        if name.startswith("np."):  # numba's own NumPy, called the way it takes
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name[3:], ast.Load()), args, [])
        self.helpers.add(name)
        return ast.Call(ast.Name(name, ast.Load()), args, [])

    def _array(self, node: ast.Call, copy: bool) -> ast.expr:
        """``np.array(x)`` / ``np.asarray(x)`` with ``copy=``, ``dtype=float`` or ``order=``."""
        keywords = {k.arg: k.value for k in node.keywords}
        dtype = keywords.pop("dtype", None)
        order = keywords.pop("order", None)
        if "copy" in keywords:
            copy_value = keywords.pop("copy")
            if not isinstance(copy_value, ast.Constant) or copy_value.value not in (True, False):
                return node
            copy = copy or copy_value.value
        if keywords or order is not None and not (isinstance(order, ast.Constant) and order.value in
                                                  ("C", "c", "K", "k", "A", "a")):
            return node  # what numba says of the others is the refusal
        if dtype is None or _is_none(dtype):
            return self._helper("array_of", [node.args[0], ast.Constant(copy)])
        if ast.unparse(dtype) in FLOAT_DTYPES:
            return self._helper("float_array", [node.args[0], ast.Constant(copy)])
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        """``np.s_[:, 2]`` as ``(slice(None, None, None), 2)``; ``v[()]`` read as arrays.py's
        ``item_of(v)``."""
        self.generic_visit(node)
        if isinstance(node.slice, ast.Tuple) and not node.slice.elts and isinstance(node.ctx, ast.Load):
            return self._helper("item_of", [node.value])  # ``v[()]``: numba indexes no number
        count = _trailing_new_axes(node)
        if count:  # ``g[..., None, None]``: g may be a number where the code runs (gathers.py)
            return self._helper("trailing_axes", [node.value, ast.Constant(count)])
        if not _is_np(node.value, "s_"):
            return node
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        made = [ast.Call(ast.Name("slice", ast.Load()), [p.lower or ast.Constant(None), p.upper or ast.Constant(None),
                                                         p.step or ast.Constant(None)], [])
                if isinstance(p, ast.Slice) else p for p in parts]
        return ast.Tuple(made, ast.Load()) if isinstance(node.slice, ast.Tuple) else made[0]

    def _reduction(self, kind: str, operand: ast.expr, rest: list, node: ast.Call, helper: str = "") -> ast.expr:
        keywords = {k.arg: k.value for k in node.keywords}
        if kind in ("var", "std") and "ddof" in keywords and not rest:
            ddof = keywords.pop("ddof")
            if keywords.keys() - {"axis", "keepdims"}:
                return node
            helper = f"reduce_{kind}_ddof"
            self.helpers.add(helper)
            return ast.Call(ast.Name(helper, ast.Load()), [operand, keywords.get("axis", ast.Constant(None)),
                                                           keywords.get("keepdims", ast.Constant(False)), ddof], [])
        axis = rest[0] if rest else keywords.pop("axis", None)
        keepdims = keywords.pop("keepdims", None)
        if len(rest) > 1 or keywords or (axis is None and keepdims is None) or _is_none(axis) and keepdims is None:
            return node  # numba's own: the whole array, or arguments the helper does not take
        helper = helper or REDUCTIONS[kind]
        self.helpers.add(helper)
        return ast.Call(ast.Name(helper, ast.Load()),
                        [operand, axis or ast.Constant(None), keepdims or ast.Constant(False)], [])


def _trailing_new_axes(node: ast.Subscript) -> int:
    """How many ``None`` follow the ``...`` of a read ``v[..., None, None]`` (0: another index)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
    if not (isinstance(node.ctx, ast.Load) and len(items) >= 2 and isinstance(items[0], ast.Constant)
            and items[0].value is Ellipsis and all(isinstance(i, ast.Constant) and i.value is None
                                                   for i in items[1:])):
        return 0
    return len(items) - 1


def _is_np(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id == "np"


def _keyword(node: ast.Call, name: str):
    return next((k.value for k in node.keywords if k.arg == name), None)


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _reversed_range(node: ast.Call) -> ast.expr:
    """``reversed(range(a, b, s))`` as ``range(a + (len(range(a, b, s)) - 1) * s, a - s, -s)``."""
    inner = node.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range"
            and 1 <= len(inner.args) <= 3 and not inner.keywords):
        return node
    if len(inner.args) < 3:
        start = inner.args[0] if len(inner.args) == 2 else ast.Constant(0)
        stop = inner.args[-1]
        return ast.Call(ast.Name("range", ast.Load()),
                        [ast.BinOp(stop, ast.Sub(), ast.Constant(1)),
                         ast.BinOp(start, ast.Sub(), ast.Constant(1)), ast.Constant(-1)], [])
    start, _, step = inner.args
    count = ast.Call(ast.Name("len", ast.Load()), [inner], [])
    last = ast.BinOp(start, ast.Add(), ast.BinOp(ast.BinOp(count, ast.Sub(), ast.Constant(1)), ast.Mult(), step))
    return ast.Call(ast.Name("range", ast.Load()),
                    [last, ast.BinOp(start, ast.Sub(), step), ast.UnaryOp(ast.USub(), step)], [])


def _plain(node: ast.expr) -> ast.expr:
    """An f-string as one constant: its text, each ``{expr}`` written as the expression."""
    if not isinstance(node, ast.JoinedStr):
        return node
    text = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            text.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            text.append("{" + ast.unparse(value.value) + "}")
    return ast.Constant("".join(text))
