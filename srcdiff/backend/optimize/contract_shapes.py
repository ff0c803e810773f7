"""Shapes and spellings for `contract`: the dims of an expression of the generated code,
derived where the optimizer's shapes leave an axis unknown; the views that only broadcast an
array; and a contraction of operands with lettered axes written as ``@`` or ``np.einsum``."""

from __future__ import annotations

import ast

from ...ir import shapes

ELEMENTWISE_CALLS = frozenset({"exp", "log", "tanh", "sin", "cos", "sqrt", "abs", "sign", "log1p", "expm1"})


class Dims:
    """Dims of an expression of the generated code: the optimizer's shapes, where an axis is
    not known there derived from the name's one definition (``t1 = X[:, None, :]``)."""

    REDUCTIONS = frozenset({"sum", "min", "max", "mean", "prod"})

    def __init__(self, shape_of, is_scalar, primal_of, definitions):
        self.shape_of, self.is_scalar, self.primal_of = shape_of, is_scalar, primal_of
        self.definitions, self.memo = definitions, {}

    def __call__(self, expr: ast.expr) -> tuple[str, ...] | None:
        """The dims, () for a number, None when not known exactly (an unknown axis too)."""
        dims = self._dims(expr)
        return None if dims is None or shapes.UNKNOWN_DIM in dims else dims

    def _name(self, name):
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = None   # a definition reading itself (never in straight-line code)
        primal = self.primal_of(name)
        shape = self.shape_of(name)
        dims = None if not shape.known or shape.scalar else shape.dims
        if (dims is None or shapes.UNKNOWN_DIM in dims) and primal in self.definitions:
            derived = self._dims(self.definitions[primal])
            if derived is not None and (dims is None or len(derived) == len(dims)):
                dims = derived
        self.memo[name] = dims
        return dims

    def _shape_item(self, expr) -> bool:
        """``x.shape[0]``, or ``t[0]`` of a name bound once to ``x.shape``: an int."""
        if not (isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant)
                and type(expr.slice.value) is int):
            return False
        held = expr.value
        if isinstance(held, ast.Name):
            held = self.definitions.get(held.id)
        return isinstance(held, ast.Attribute) and held.attr == "shape"

    def _dims(self, expr):
        if isinstance(expr, ast.Constant):
            return () if type(expr.value) in (int, float) else None
        if isinstance(expr, ast.Name):
            return () if self.is_scalar(expr.id) else self._name(expr.id)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self(expr.operand)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return broadcast(self(expr.left), self(expr.right))
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.MatMult):
            left, right = self(expr.left), self(expr.right)
            if left is None or right is None or not 1 <= len(left) <= 2 or not 1 <= len(right) <= 2:
                return None
            return left[:-1] + right[1:]   # (matrices and vectors: what the contractions write)
        if (isinstance(expr, ast.Attribute) and expr.attr == "size") \
                or (np_call(expr) == "size" and len(expr.args) == 1):
            return ()   # an int
        if self._shape_item(expr):
            return ()   # an int
        if isinstance(expr, ast.Attribute) and expr.attr == "T":
            inner = self(expr.value)
            return None if inner is None else inner[::-1]
        view = view_of(expr, self)
        if view is not None:
            return view[2]
        call = np_call(expr)
        if call in ELEMENTWISE_CALLS and len(expr.args) == 1 and not expr.keywords:
            return self(expr.args[0])
        if is_call(expr, "unbroadcast", 2) and isinstance(expr.args[1], ast.Name):
            return self(expr.args[1])
        if isinstance(expr, ast.Compare) and len(expr.comparators) == 1:   # a mask (``S == t8``)
            return broadcast(self(expr.left), self(expr.comparators[0]))
        if call == "asarray" and len(expr.args) == 1 and all(k.arg == "dtype" for k in expr.keywords):
            return self(expr.args[0])   # a mask made floats: its operand's dims
        if call == "einsum" and expr.args and isinstance(expr.args[0], ast.Constant) and not expr.keywords:
            return self._einsum(expr.args[0].value, expr.args[1:])
        return self._reduced(expr)

    def _einsum(self, spec, operands):
        """The dims of one of this pass's own ``np.einsum`` calls (a definition it rewrote)."""
        inputs, _, out = spec.partition("->")
        found = {}
        for letters, operand in zip(inputs.split(","), operands):
            dims = self(operand)
            if dims is None or len(dims) != len(letters):
                return None
            for letter, d in zip(letters, dims):
                found[letter] = shapes.MANY if shapes.MANY in (d, found.get(letter)) else d
        return tuple(found[letter] for letter in out) if set(out) <= set(found) else None

    def _reduced(self, expr):
        """``np.sum(x, axis=k)``, ``x.max(axis=k, keepdims=True)``..."""
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute) \
                or expr.func.attr not in self.REDUCTIONS:
            return None
        args = list(expr.args)
        if np_call(expr) is None:
            args.insert(0, expr.func.value)
        keywords = {k.arg: k.value for k in expr.keywords}
        if len(args) > 2 or set(keywords) - {"axis", "keepdims"} or not args:
            return None
        dims, axis = self(args[0]), args[1] if len(args) == 2 else keywords.get("axis")
        keepdims = keywords.get("keepdims")
        if dims is None or axis is None or (keepdims is not None and not isinstance(keepdims, ast.Constant)):
            return None
        items = axis.elts if isinstance(axis, ast.Tuple) else [axis]
        summed = {i % len(dims) for i in map(int_of, items) if i is not None and -len(dims) <= i < len(dims)}
        if len(summed) != len(items):
            return None
        if keepdims is not None and keepdims.value:
            return tuple(shapes.ONE if i in summed else d for i, d in enumerate(dims))
        return tuple(d for i, d in enumerate(dims) if i not in summed)


def broadcast(*dims_list):
    if any(d is None for d in dims_list):
        return None
    rank = max(len(d) for d in dims_list)
    out = []
    for i in range(rank):
        here = [d[i - rank + len(d)] for d in dims_list if i - rank + len(d) >= 0]
        out.append(shapes.MANY if shapes.MANY in here else shapes.ONE)
    return tuple(out)


def np_call(expr) -> str | None:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np":
        return expr.func.attr
    return None


def is_call(expr, name: str, nargs: int) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name \
        and len(expr.args) == nargs and not expr.keywords


def int_of(expr) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = int_of(expr.operand)
        return None if inner is None else -inner
    return expr.value if isinstance(expr, ast.Constant) and type(expr.value) is int else None


def view_of(expr, dims_of):
    """(base, axes, frame) when `expr` only broadcasts `base`: ``x[:, None, :]``,
    ``np.expand_dims(x, k)``, ``np.full(t.shape, x)``; else None."""
    if isinstance(expr, ast.Subscript):
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        full = [isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None for i in items]
        new = [isinstance(i, ast.Constant) and i.value is None for i in items]
        base = dims_of(expr.value)
        if not all(f or n for f, n in zip(full, new)) or not any(new) or base is None or sum(full) > len(base):
            return None
        frame, axes, k = [], [], 0
        for f in full:
            if f:
                axes.append(len(frame))
                frame.append(base[k])
                k += 1
            else:
                frame.append(shapes.ONE)
        for d in base[k:]:
            axes.append(len(frame))
            frame.append(d)
        return expr.value, tuple(axes), tuple(frame)
    if np_call(expr) == "expand_dims" and len(expr.args) == 2 and not expr.keywords:
        base, k = dims_of(expr.args[0]), int_of(expr.args[1])
        if base is None or k is None or not -len(base) - 1 <= k <= len(base):
            return None
        k = k % (len(base) + 1)
        frame = list(base[:k]) + [shapes.ONE] + list(base[k:])
        return expr.args[0], tuple(i for i in range(len(frame)) if i != k), tuple(frame)
    if np_call(expr) == "full" and len(expr.args) == 2 and not expr.keywords \
            and isinstance(expr.args[0], ast.Attribute) and expr.args[0].attr == "shape":
        frame, base = dims_of(expr.args[0].value), dims_of(expr.args[1])
        if frame is None or base is None or len(base) > len(frame) or broadcast(frame, base) != frame:
            return None
        return expr.args[1], tuple(range(len(frame) - len(base), len(frame))), frame
    return None


def pre_reduce(operands, out, scalars):
    """An operand's axes no other operand nor the result reads, summed on that operand alone."""
    reduced, totals = [], []
    for k, (expr, letters) in enumerate(operands):
        others = {letter for j, (_, ls) in enumerate(operands) if j != k for letter in ls}
        alone = [i for i, letter in enumerate(letters) if letter not in others and letter not in out]
        if alone and len(alone) == len(letters):
            totals.append(np_of("sum", expr))   # ``np.sum(x[:, None] * y[None])``: sum(x) * sum(y)
            continue
        if alone:
            axis = ast.Constant(alone[0]) if len(alone) == 1 else \
                ast.Tuple([ast.Constant(i) for i in alone], ast.Load())
            expr = np_of("sum", expr, keywords=[ast.keyword("axis", axis)])
            letters = [letter for i, letter in enumerate(letters) if i not in alone]
        reduced.append([expr, letters])
    if not reduced:
        reduced.append([totals.pop(0), []])
    scalars.extend((ast.Mult(), total) for total in totals)
    return reduced


def np_of(name, *args, keywords=()):
    """The call ``np.name(*args, **keywords)``."""
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), list(keywords))


def transposed(expr):
    """``expr.T``."""
    if isinstance(expr, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)):
        return ast.Attribute(expr, "T", ast.Load())
    return np_of("transpose", expr)   # (the renderer drops the parentheses of ``(a / b).T``)


def contracted(operands, out) -> ast.expr:
    """The contraction of `operands` (``[expr, letters]``) to the axes `out`: ``a.T @ b`` for
    matrices and vectors sharing one summed axis, a broadcast product when nothing is summed,
    else ``np.einsum``."""
    if len(operands) == 1 and operands[0][1] == out:
        return operands[0][0]
    if len(operands) == 2:
        (a, la), (b, lb) = operands
        shared = set(la) & set(lb)
        if len(la) <= 2 and len(lb) <= 2 and len(shared) == 1 and not shared & set(out):
            (c,) = shared
            fa, fb = [x for x in la if x != c], [x for x in lb if x != c]
            a_left = a if la[-1] == c else transposed(a)          # (free, c)
            b_right = b if lb[0] == c else transposed(b)          # (c, free)
            if out == fa + fb:
                return ast.BinOp(a_left, ast.MatMult(), b_right)
            if len(fa) == 1 and len(fb) == 1 and out == fb + fa:
                return ast.BinOp(b if lb[-1] == c else transposed(b), ast.MatMult(), a if la[0] == c else transposed(a))
    if set(out) == {letter for _, letters in operands for letter in letters} \
            and all(letters == [x for x in out if x in letters] for _, letters in operands):
        views = [into(expr, letters, out) for expr, letters in operands]   # nothing summed: a product
        product = views[0]
        for view in views[1:]:
            product = ast.BinOp(product, ast.Mult(), view)
        return product
    spec = ",".join("".join(letters) for _, letters in operands) + "->" + "".join(out)
    return np_of("einsum", ast.Constant(spec), *[expr for expr, _ in operands])


def into(expr, letters, out) -> ast.expr:
    """`expr`, whose axes are `letters`, broadcast into the axes `out` (same order)."""
    if letters == out or letters == out[len(out) - len(letters):]:
        return expr
    items = [ast.Slice() if x in letters else ast.Constant(None) for x in out]
    return ast.Subscript(expr, ast.Tuple(items, ast.Load()), ast.Load())
