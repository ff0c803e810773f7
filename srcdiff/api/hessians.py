"""The Hessian object (`srcdiff.hessian` of a plain function): per differentiated leaf, the
Jacobian of the gradient's generated code, in one batched call of its rows, or forward mode over
that code where batching refuses it (api/jacobians.py makes it; `hessian` is defined there).
"""

from __future__ import annotations

import numpy as np

from ..driver.higher import explained
from ..driver.seeded import seeded
from ..errors import SrcDiffError
from .batched_rows import Batched
from .derivatives import Composite
from .flatcall import Front
from .forward import JvpFunction
from .gradients import GradFunction
from .hessian_columns import JitColumns
from .hessian_forward import WIDTH, VectorForward, widths
from .jitting import refused
from .plans import Plan, lowered_of, plan_for
from .pullbacks import Pullbacks, jacobian_leaves


class Hessian(Composite):
    """The Hessian of a scalar `f`: per differentiated leaf, the Jacobian of its gradient's
    generated code with respect to every leaf (a dict of dicts, a tuple of tuples)."""

    def __init__(self, f, wrt=0, jit: str | None = None):
        self.front = Front(f, wrt, what="srcdiff.hessian")
        self.jit = jit
        self._refusal: SrcDiffError | None = None  # why forward mode over the gradient's code was refused
        self._gradients: dict = {}  # plain function -> its GradFunction
        self._pullbacks: dict = {}  # generated gradient -> its Pullbacks
        # generated gradient -> its JvpFunction (forward over reverse); (gradient, width) -> its
        # VectorForward (hessian_forward.py), False where vector forward mode refused it
        self._forwards: dict = {}
        self._last: JitColumns | VectorForward | JvpFunction | None = None
        self._plan: Plan | None = None  # the last call's batched code, for calls like it
        self.batched = Batched(seeded, jit)
        self.__name__ = self.__qualname__ = f"hessian({self.front.qualname})"

    def __call__(self, *args, **kwargs):
        plan = self._plan
        if plan is not None and not kwargs and plan.matches(args):
            found = plan.run(args)
            if found is not None:  # (None: a row held a NaN, which the columns below may resolve)
                return found
        call = self.front.call(args, kwargs)
        call.check(self.front.qualname)
        gradient = self._gradients.get(call.func)
        if gradient is None:
            several = call.flat is not None or call.tuple_result or len(call.wrt) > 1
            gradient = self._gradients[call.func] = GradFunction(call.func, call.wrt if several else call.wrt[0])
        rows, batched, lowereds, missing = [], [], [], []
        columns = self._forward(gradient, call) if self.jit else None  # numba: its loop over the columns
        if self.jit and columns is None:
            raise self._jit_refusal()
        if columns is None and self._numbers_first(call):
            columns = self._forward(gradient, call)
            if not isinstance(self._last, VectorForward):  # (one sweep per column: the batched rows first)
                columns = None
        for i in range(len(call.wrt)):
            if columns is not None:
                rows.append(None)
                missing.append(i)
                continue
            plain, _, _ = gradient.derivable(call.args, pick=i)
            leaf = np.asarray(call.args[call.names.index(call.wrt[i])])
            like = np.zeros(leaf.shape, dtype=leaf.dtype if leaf.dtype.kind == "f" else float)
            like = like if leaf.ndim else float(like)
            code, found = self.batched.code(plain, call.args, call.wrt, like), None
            try:  # (an error: the columns below compute it again, and raise f's own error at its line)
                found = code and self.batched.compute(self.batched.run_of(code), call.args, call.names, call.wrt, like)
            except SrcDiffError as exc:
                self.batched.refuse(plain, call.args, call.wrt, exc)
            if found is not None and _holds_nan(found) and not self.jit:
                # reverse mode over the gradient's code cannot tell a tie that persists along every
                # direction from one a direction crosses, and answers NaN at both; forward mode
                # over it, given each direction, tells them apart (``np.maximum(w - w[0], 0)`` at
                # its own element: 0 along every direction, a second derivative of 0).  Its finite
                # entries fill the NaN ones; the rows' other entries stay (no plan: NaN again later)
                forward = self._forward(gradient, call)
                if forward is not None:
                    self._last = self.batched
                    rows.append(call.rebuild(_resolved(found, forward, i)))
                    continue
            if found is not None:  # all rows in one batched call
                self._last = self.batched
                rows.append(call.rebuild(found))
                batched.append((self.batched.run_of(code), call.names.index(call.wrt[i])))
                lowereds += [lowered_of(plain), *code[1]]
                continue
            rows.append(None)
            missing.append(i)
        if missing and columns is None and not self.jit:
            columns = self._forward(gradient, call)
        for i in missing:
            if columns is not None:
                rows[i] = call.rebuild(columns[i])
                continue
            plain, _, _ = gradient.derivable(call.args, pick=i)
            pullbacks = self._pullbacks.get(plain)
            if pullbacks is None:
                pullbacks = self._pullbacks[plain] = Pullbacks(plain, call.wrt, repeated=True)
            self._last = pullbacks
            value, pullback = pullbacks(*call.args)
            rows[i] = call.rebuild(jacobian_leaves(value, pullback))
        same = call.flat is None and len(args) == len(call.args) and all(a is b for a, b in zip(args, call.args))
        if len(batched) == len(call.wrt) and same:
            self._plan = plan_for(args, lowereds, self._replay(call, batched))
        elif not batched and columns is not None and isinstance(self._last, (VectorForward, JitColumns)) and same:
            plain, _, several = gradient.derivable(call.args)  # (what `_forward` ran: all columns in a few sweeps)
            self._plan = plan_for(args, [lowered_of(plain), self._last.lowered],
                                  self._replay_forward(call, self._last, several))
        return call.rebuild(rows)

    @staticmethod
    def _numbers_first(call) -> bool:
        """Whether the leaves are a few numbers (a scalar ODE's parameters), whose Hessian forward
        mode gives in one sweep of floats, its unit seeds folded into the code: the batched rows
        make each number an array of rows, every scalar operation a NumPy call (a 100-step
        scalar loop's 2 x 2 Hessian: 190 gradients batched, 4 by the sweep)."""
        if len(call.wrt) > WIDTH:
            return False
        for name in call.wrt:
            leaf = call.args[call.names.index(name)]
            if type(leaf) is not float and not (isinstance(leaf, np.floating) and leaf.dtype == np.float64):
                return False
        return True

    def _jit_refusal(self) -> SrcDiffError:
        """jit's refusal of a Hessian whose rows neither batching nor forward mode make."""
        why = explained(self._refusal) if self._refusal is not None else None
        if why is None:
            return refused(self.__qualname__, "forward mode over its gradient's code does not take this function")
        return refused(self.__qualname__, f"forward mode over its gradient's code, compiled, refuses it: {why.reason}",
                       why.location)

    def _forward(self, gradient: GradFunction, call) -> list | None:
        """Where batching refuses the gradient's code (a loop keeps a stack, lists): the
        Hessian's columns by forward mode over that code, one sweep per differentiated element
        (it computes the gradient and its derivative along the element at once), as
        ``blocks[i][j]`` of shape ``leaf_i.shape + leaf_j.shape``; None where forward mode
        refuses it too (then one pullback per row)."""
        leaves = [np.asarray(call.args[call.names.index(n)]) for n in call.wrt]
        dtypes = [leaf.dtype if leaf.dtype.kind == "f" else np.dtype(float) for leaf in leaves]
        zeros = {n: np.zeros(leaf.shape, dtype=d) if leaf.ndim else 0.0 for n, leaf, d in zip(call.wrt, leaves, dtypes)}
        try:
            plain, _, several = gradient.derivable(call.args)
            if self.jit and all(d == np.float64 for d in dtypes):  # numba: every column in one compiled loop
                compiled = self._forwards.get(("columns", plain))
                if compiled is None:
                    compiled = self._forwards[("columns", plain)] = JitColumns(plain, call.wrt, call.names)
                found = compiled.blocks(call.args, leaves, dtypes, several)
                self._last = compiled
                return found
            if all(d == np.float64 for d in dtypes):  # all columns in a few sweeps (float32: one per column)
                width, _ = widths(sum(leaf.size for leaf in leaves))
                # numbers all in one sweep: its unit seeds folded into its code
                folded = not self.jit and width == len(leaves) and not any(leaf.ndim for leaf in leaves)
                vector = self._forwards.get((plain, width, folded))
                if vector is None:
                    vector = self._forwards[(plain, width, folded)] = VectorForward(plain, call.wrt, call.names,
                                                                                    width, self.jit, folded)
                try:
                    if vector is False:
                        raise SrcDiffError("refused before")
                    found = vector.blocks(call.args, leaves, dtypes, several)
                except SrcDiffError as exc:
                    self._forwards[(plain, width, folded)] = False  # one sweep per column, below
                    self._refusal = exc
                else:
                    self._last = vector
                    return found
            forward = self._forwards.get(plain)
            if forward is None:
                forward = self._forwards[plain] = JvpFunction(plain, wrt=call.wrt, with_value=False, jit=self.jit)
            blocks: list = [[None] * len(leaves) for _ in leaves]
            for j, name in enumerate(call.wrt):
                columns = []
                for e in range(leaves[j].size):
                    unit: np.ndarray | float = 1.0
                    if leaves[j].ndim:
                        unit = np.zeros(leaves[j].shape, dtype=dtypes[j])
                        unit.flat[e] = 1.0
                    tangents = tuple(unit if n == name else zeros.get(n) for n in call.names)
                    _, product = forward(call.args, tangents)
                    columns.append(product if several else (product,))
                for i, leaf in enumerate(leaves):
                    stacked = np.stack([np.asarray(c[i], dtype=dtypes[i]) for c in columns], axis=-1)
                    blocks[i][j] = stacked.reshape(leaf.shape + leaves[j].shape)
        except SrcDiffError as exc:
            self._refusal = exc
            return None
        self._last = forward
        return blocks

    def _replay(self, call, batched: list):
        """The batched calls of a Hessian again, for other arguments like `call`'s."""
        names, wrt, compute, rebuild = call.names, call.wrt, self.batched.compute, call.rebuild

        def run(args):
            rows = []
            for made, index in batched:
                leaf = args[index]  # a float array (or a float): the signature says so
                # (compute reads the shape, size and dtype of `like`: a float array is its own)
                like = leaf if type(leaf) is np.ndarray and leaf.ndim else np.zeros(np.shape(leaf), dtype=leaf.dtype) \
                    if np.ndim(leaf) else 0.0
                found = compute(made, args, names, wrt, like)
                if _holds_nan(found):  # (a tie: the full path, whose forward columns may resolve it)
                    return None
                rows.append(rebuild(found))
            return rebuild(rows)
        return run

    @staticmethod
    def _replay_forward(call, vector: VectorForward | JitColumns, several: bool):
        """The vector forward sweeps of a Hessian again, for other arguments like `call`'s."""
        indices, rebuild = [call.names.index(n) for n in call.wrt], call.rebuild
        dtypes = [np.dtype(float)] * len(indices)  # (float64 leaves: the only ones it takes)

        compute = vector.again if isinstance(vector, JitColumns) else vector.blocks

        def run(args):
            blocks = compute(args, [np.asarray(args[i]) for i in indices], dtypes, several)
            return rebuild([rebuild(row) for row in blocks])
        return run

    @property
    def source(self) -> str:
        """The generated code the last row of the Hessian ran (the gradient's, differentiated)."""
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return self._last.source


def _resolved(blocks: list, forward: list, i: int) -> list:
    """The batched rows' `blocks` (row i), their NaN entries taken from forward mode's columns
    (``forward[i][j]``) where those are finite and agree with the entry across the diagonal
    (``forward[j][i]``, another column's): where forward mode too finds no derivative, or its two
    entries disagree (a kink through a loop's carry its proof does not reach: one side's slope along
    one direction, NaN along the other), the NaN stays.  A Hessian is symmetric where it exists."""
    out = []
    for j, block in enumerate(blocks):
        block, column = np.asarray(block), np.asarray(forward[i][j])
        if block.shape == column.shape and block.dtype.kind == "f":
            size_i = int(round(np.sqrt(np.asarray(forward[i][i]).size)))  # (leaf i's: its block with itself)
            across = np.reshape(np.reshape(forward[j][i], (-1, max(size_i, 1))).T, column.shape)
            agree = np.isclose(column, across, rtol=1e-6, atol=1e-12)
            block = np.where(np.isnan(block) & np.isfinite(column) & agree, column, block)
        out.append(block if block.ndim else block.dtype.type(block))
    return out


def _holds_nan(blocks: list) -> bool:
    """Whether a batched row's blocks hold a NaN (at a tie of a kink, or f's own)."""
    for block in blocks:
        kind = np.asarray(block).dtype.kind
        if kind in "fc" and np.isnan(block).any():
            return True
    return False


__all__ = ["Hessian"]
