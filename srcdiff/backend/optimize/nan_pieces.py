"""Where the array a piecewise operand reads is NaN: which piece the code takes there, as clip_cases.py's
forms, so that a rewrite takes the same one, or is guarded.

Every comparison with NaN is false (``!=`` true), so ``np.where(r > c, A, np.where(r < -c, B, C))``
gives C where r is NaN, and a loss whose piece C reads no `r` is finite there (a residual of a missing
label, NaN, whose terms the loss's comparisons leave out).  A chain of selections in another order
(``np.where(r < -c, B, np.where(r <= c, C, A))``) gives A there, and a clip NaN: the intervals the proof
reads hold every number but NaN, so the piece NaN takes is checked on its own: the chain is written
with that piece last (piece_lines.as_selections), and a form that takes another piece there (a clip: NaN)
is guarded by ``not np.isnan(np.sum(r))``, one pass and no copy (the code as it was where the sum is NaN).
"""

from __future__ import annotations

import ast

from .cases import np_call

#: the piece of a value that reads the NaN (arithmetic and the extrema propagate it)
NAN = "nan"
_PROPAGATING = ("abs", "sign", "minimum", "maximum", "clip")


def same_at_nan(evaluator: type, atom: str, written: ast.expr, value: ast.expr, **options) -> bool:
    """Whether `written` and `value` take the same piece where `atom` is NaN: both NaN there, or one form.
    `evaluator` is clip_cases' evaluator of a piece, `options` its arguments but the atom and the piece."""
    ours, theirs = (at_nan(evaluator, atom, e, **options) for e in (written, value))
    return ours is not None and ours == theirs


def open_piece_at_nan(evaluator: type, atom: str, value: ast.expr, pieces: list, **options) -> int | None:
    """k where `value` takes the open piece ``pieces[2 k]`` where `atom` is NaN (the last such), else None."""
    piece = at_nan(evaluator, atom, value, **options)
    found = [k for k in range(0, len(pieces), 2) if piece is not None and piece is not NAN and pieces[k] == piece]
    return found[-1] // 2 if found else None


def at_nan(evaluator: type, atom: str, value: ast.expr, **options):
    """The form `value` takes where `atom` is NaN (NAN where the NaN reaches it), None where not read."""

    class AtNan(evaluator):
        def value(self, node: ast.expr):
            if isinstance(node, ast.Name) and node.id == self.atom:
                return NAN
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and NAN in (
                    self.value(node.left), self.value(node.comparators[0])):
                return isinstance(node.ops[0], ast.NotEq)
            operands = [node.operand] if isinstance(node, ast.UnaryOp) else [node.left, node.right] \
                if isinstance(node, ast.BinOp) else node.args if np_call(node) in _PROPAGATING else []
            if any(self.value(a) is NAN for a in operands):
                return NAN
            return super().value(node)

    try:  # (where = 0: comparisons of thresholds alone read the breakpoints' order the guard checks)
        return AtNan(atom=atom, where=0, mask=False, **options).value(value)
    except Exception:  # (a form the proof cannot read at NaN: the code as it was)
        return None


def without_nan(atom: str) -> ast.expr:
    """``not np.isnan(np.sum(atom))``: no NaN in `atom` (the sum is NaN where one is)."""
    def np_(name: str, arg: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), [arg], [])
    return ast.UnaryOp(ast.Not(), np_("isnan", np_("sum", ast.Name(atom, ast.Load()))))
