"""``jacobian(grad(f), wrt=B)`` where the gradient, with respect to A, is a tree (a dict of
parameters): the mixed block of f's Hessian, d grad_A / dB, which ``srcdiff.hessian(f, wrt=(A,
B))`` gives (forward mode over the gradient takes trees).  Its row for A holds, per leaf of A, one
block per target; the block with respect to B is this Jacobian, shaped as A's leaves (a dict for a
dict), each ``leaf.shape + B.shape``.
"""

from __future__ import annotations

import dataclasses

from ..frontend import trees
from .hessians import Hessian


class MixedBlock:
    """d grad_A(f) / dB for a plain gradient of f with respect to A (a tree) and parameters B (one,
    or a tuple of them: then each leaf's blocks are a tuple)."""

    def __init__(self, gradient, a_name: str, b_roots: tuple, several: bool, jit: str | None = None):
        self.gradient, self.a_name, self.several = gradient, a_name, several
        self.hessian = Hessian(gradient.func, (a_name, *b_roots), jit)

    def __call__(self, *args, **kwargs):
        positional = self.gradient.front.binder.bind(args, kwargs)
        a = positional[self.gradient.front.names.index(self.a_name)]
        return self._pick(self.hessian(*args, **kwargs)[0], a)

    def _pick(self, row, a):
        """`row` (shaped as A, each leaf the tuple of its blocks) with each leaf's B blocks."""
        if isinstance(a, dict):
            return {k: self._pick(row[k], v) for k, v in a.items()}
        if trees.is_namedtuple(a):
            return type(a)(*(self._pick(r, v) for r, v in zip(row, a)))
        if isinstance(a, (list, tuple)) and trees.is_tree(a):
            return type(a)(self._pick(r, v) for r, v in zip(row, a))
        if dataclasses.is_dataclass(a) and not isinstance(a, type):
            return dataclasses.replace(row, **{f.name: self._pick(getattr(row, f.name), getattr(a, f.name))
                                               for f in dataclasses.fields(a) if f.init})
        return tuple(row[1:]) if self.several else row[1]


__all__ = ["MixedBlock"]
