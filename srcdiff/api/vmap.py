"""`vmap`: a function run over a leading batch axis of some of its arguments in one call
(JAX's meaning), by the batching transform (driver/batched.py, ad/batching.py), or one
example at a time where that transform refuses and for tree arguments (api/vmap_examples.py).

``vmap(f, in_axes=(None, 0, 0))(w, X, Y)`` is ``np.stack([f(w, X[i], Y[i]) for i ...])``
computed by one batched function whose source `.source` prints; values that do not depend
on a batched argument are computed once.  ``vmap(grad(loss), in_axes=(None, 0, 0))`` batches
the gradient's generated code: per-example gradients.
"""

from __future__ import annotations

import types

import numpy as np

from ..driver.higher import explained
from ..errors import SelectedSideError, SharedDrawError, SrcDiffError
from ..frontend.callables import refuse_transformed, resolve, user_def_line
from ..frontend.parse import parse_function
from .batched_code import batched_code, batched_variant, parameter_names
from .derivatives import Composite
from .forward import JvpFunction, jvp_function
from .gradients import GradFunction
from .jitting import checked, runner, source_of
from .plans import Plan, lowered_of, plan_for
from .vmap_aux import aux_function, aux_refusal, call_kinds, with_aux
from .vmap_binding import bound_parts, row_of, with_defaults
from .vmap_examples import RESERVED, PerExample, RaggedResults, is_axes_tree, is_tree, plain_axes, sizes, valid_axes
from .vmap_fast import Fast, fast_for
from .vmap_forward import flat_forward, forward_axes, hvp_arguments, hvp_of
from .vmap_leaves import leaves_or_none, rewritten, tree_leaves_batched
from .vmap_nested import merged_arguments, split_rows
from .vmap_out import checked_out_axes, placed
from .vmap_policy import checked_policy, refuse_if_asked, warn
from .vmap_selects import guarded, selects


class VmapFunction:
    """`f` over a leading batch axis: ``in_axes`` an int or None, or one per positional argument."""

    def __init__(self, f, in_axes=0, out_axes=0, jit: str | None = None, per_example: str = "warn"):
        self.jit = checked(jit, "srcdiff.vmap")
        self.policy = checked_policy(per_example)  # a call that cannot be batched: warn, allow or refuse
        if not callable(f):
            raise SrcDiffError(f"srcdiff.vmap needs a function, got {type(f).__name__}")
        #: why a Jacobian or Hessian (srcdiff's, whose rows are batched calls of their own) runs one
        #: example at a time: vmap(hessian(f)) is JAX's per-example Hessians, and never numba's (refused)
        self.composed = _composed_reason(f) if isinstance(f, Composite) and not self.jit else None
        #: the inner map of a nested vmap (api/vmap_nested.py), whose batch axis merges with this one's
        self.nested = f if isinstance(f, VmapFunction) else None
        if self.composed is None and self.nested is None and not isinstance(f, JvpFunction):  # (a jvp:
            refuse_transformed(f, "srcdiff.vmap")  # api/vmap_forward.py)
        self.out_axes = checked_out_axes(out_axes)  # (where each result's batch axis goes: api/vmap_out.py)
        in_axes = plain_axes(in_axes)
        if isinstance(in_axes, dict) or not valid_axes(in_axes):
            raise SrcDiffError(f"srcdiff.vmap: in_axes must be an int, None or a tuple of them (one per argument; "
                               f"for a tree argument, a tree of them), got {in_axes!r}")
        self.func, self.in_axes = f, in_axes
        aux = aux_function(f)  # (has_aux: the loss's gradient batched, the aux from f batched: api/vmap_aux.py)
        self._aux = None if aux is None else VmapFunction(aux, in_axes, 0, jit, per_example)
        self.aux_of: str | None = None  # (the aux's own map: whose aux it computes, said when it runs per example)
        self._last = None
        self._plan: Plan | None = None  # the last call's batched code, for calls like it; its short path:
        self._fast: Fast | None = None
        self._examples: dict = {}  # calls run one example at a time, by the arguments' kinds and shapes
        self._raised: dict = {}  # the same, for calls whose batched code's untaken side raised (_side_raised)
        self.per_example: str | None = None  # why the last call ran one example at a time (None: batched)
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        self.__name__ = self.__qualname__ = f"vmap({name})"
        if self._aux is not None:
            self._aux.aux_of = self.__qualname__

    def _axes(self, args: tuple) -> list:
        if isinstance(self.in_axes, (tuple, list)):
            if len(self.in_axes) != len(args):
                raise SrcDiffError(f"{self.__qualname__}: in_axes has {len(self.in_axes)} entries for "
                                   f"{len(args)} arguments", hint="give one axis (or None) per argument")
            return list(self.in_axes)
        return [self.in_axes] * len(args)

    def _batched_array(self, value, axis: int) -> np.ndarray:
        """`value`, batched along `axis`, as an array (a list of numbers: its rows).  A tree never
        comes here (`_tree_call`): np.asarray would stack its leaves and map over them (a tuple
        ``(W, b)`` of one shape batched over W and b: silently another map)."""
        try:
            array = np.asarray(value)
        except ValueError:
            array = None
        if array is None or array.dtype == object or is_tree(value):  # (never here: a tree goes to `_tree_call`)
            message = (f"{self.__qualname__}: in_axes {axis} of a {type(value).__name__} argument: vmap batches "
                       "arrays, lists of numbers and trees of arrays, not ragged lists")
            self._refuse_at_def(message, "pass the arrays as parameters of their own, each with its in_axes")
        return array

    def __call__(self, *args, **kwargs):
        result = self._call(*args, **kwargs)
        if self._aux is not None and self.per_example is None and self.composed is None:
            result = with_aux(self.func, result, self._aux(*args, **kwargs))
            self.per_example = self._aux.per_example
        return placed(result, self.out_axes, self.__qualname__)

    def _call(self, *args, **kwargs):
        if self._fast is not None and not kwargs and self._fast.ready(args, self._plan):
            self.per_example = None
            try:  # (a side raising: the full path runs it again, then one example at a time)
                return self._plan.run(*args)
            except SelectedSideError:
                pass
        if kwargs:
            raise SrcDiffError(f"{self.__qualname__}: pass the arguments by position",
                               hint="in_axes gives one axis per positional argument")
        axes = self._axes(args)
        if all(a is None for a in axes):
            raise SrcDiffError(f"{self.__qualname__}: no argument has a batch axis", hint="set in_axes")
        if self.composed is not None:
            return self._composed_call(args, axes)
        if self.nested is not None:
            return self._nested_call(args, axes)
        if isinstance(self.func, JvpFunction):
            return self._forward_call(args, forward_axes(axes))
        if hvp_of(self.func) is not None:  # vmap(partial(srcdiff.hvp, g)): as vmap(jvp_function(grad(g)))
            pair, pair_axes = hvp_arguments(args, axes)
            inner = self._examples.setdefault(("hvp", repr(pair_axes)), VmapFunction(
                jvp_function(GradFunction(hvp_of(self.func))), pair_axes, 0, None, self.policy))
            result = inner(*pair)[1]
            self._last, self.per_example = inner._last, inner.per_example
            return result
        if any(is_tree(v) or is_axes_tree(a) or _is_object(v) for v, a in zip(args, axes)):
            return self._tree_call(args, axes)
        moved, sizes, given = [], set(), []  # (given: the arguments, a list of numbers as its array)
        for value, axis in zip(args, axes):
            value = value if axis is None else self._batched_array(value, axis)
            given.append(value)
            if axis is not None:
                if not -value.ndim <= axis < value.ndim:
                    raise SrcDiffError(f"{self.__qualname__}: in_axes {axis} of an argument of shape {value.shape}")
                value = np.moveaxis(value, axis, 0) if axis not in (0, -value.ndim) else value
                sizes.add(value.shape[0])
            moved.append(value)
        if len(sizes) > 1:
            raise SrcDiffError(f"{self.__qualname__}: the batched arguments have different sizes {sorted(sizes)}",
                               hint="give every batched argument the same length along its batch axis")
        if 0 in sizes:
            raise SrcDiffError(f"{self.__qualname__}: a batch of no examples", hint="pass at least one example")
        key, user_axes = call_kinds(given, axes), list(axes)
        func, moved, axes = bound_parts(self.func, moved, list(axes))
        full = with_defaults(func, moved)  # the defaults the call leaves out, passed on unbatched
        moved, axes = full, list(axes) + [None] * (len(full) - len(moved))
        plan = self._plan
        if plan is not None and plan.matches(moved):
            self.per_example, self._fast = None, fast_for(plan, args, moved, user_axes)
            try:
                return plan.run(*moved)
            except SelectedSideError as exc:
                return self._side_raised(exc, key, given, user_axes)
        examples = self._examples.get(key)
        if examples is not None:
            return self._run_examples(examples, given)
        row = tuple(row_of(v) if a is not None else v for v, a in zip(moved, axes))
        lowereds, call, rewrites = [], None, ()
        try:
            if isinstance(func, GradFunction):
                func, call, _ = func.derivable(row, batching=True)
                done = None if call.batchable(row) else leaves_or_none(self.func, args, user_axes, self.jit)
                if done is not None:  # (a list of numbers differentiated: the function of its leaves, batched)
                    (result, self._last), self.per_example = done, None
                    return result
                if not call.batchable(row):  # named at the user's def line: which function, and why
                    user = self.func.front.target.func
                    raise parse_function(user).error(
                        parse_function(user).tree, f"{self.__qualname__}: the gradient of a function taking a tree "
                        "(a dict, list, tuple or dataclass argument), a method or a partial cannot be batched yet",
                        "pass the arrays as parameters of their own")
                lowereds.append(lowered_of(func))
                rewrites = tuple(call.flat.deps) if call.flat is not None else ()
            else:  # (a function grad reads rewritten: the same rewrite, batched)
                func, rewrites = rewritten(func, row)
            names = parameter_names(func)
            batched = tuple(n for n, a in zip(names, axes) if a is not None)
            found, made = batched_code(func, batched, row, jit=self.jit, exact=True)
            self._last = made
            run = runner(made, found, self.jit) if call is None else \
                call.rebuilding(runner(made, found, self.jit), self.func.options.with_value)
            if not self.jit and selects(made):
                run = guarded(run)
            result = run(*moved)  # (with jit: numba compiles it here, or refuses it at its line)
        except SelectedSideError as exc:
            # (other calls may take their sides without error)
            self._plan = plan_for(moved, [*lowereds, found], run, rewrites)
            return self._side_raised(exc, key, given, user_axes)
        except SrcDiffError as exc:
            refusal = explained(exc, batching=isinstance(self.func, GradFunction))
            if self.jit or isinstance(exc, SharedDrawError):  # never NumPy's loop instead (each example would draw)
                raise refusal from None
            examples = self._examples[key] = self._one_at_a_time(len(given), user_axes, refusal)
            return self._run_examples(examples, given)
        self._plan = plan_for(moved, [*lowereds, found], run, rewrites)
        self.per_example, self._fast = None, fast_for(self._plan, args, moved, user_axes)
        return result

    def _composed_call(self, args: tuple, axes: list):
        """vmap of srcdiff's Jacobian or Hessian: one example at a time (`self.composed` says why)."""
        found: dict = {}
        for position, (value, axis) in enumerate(zip(args, axes)):
            sizes(value, axis, f"argument {position}", found)
        if len(set(found.values())) != 1 or 0 in found.values():
            raise SrcDiffError(f"{self.__qualname__}: the batched arguments have sizes {sorted(set(found.values()))}",
                               hint="give every batched argument the same length (at least 1) along its batch axis")
        key = ("composed", tuple(map(repr, axes)), call_kinds(list(args), axes))
        examples = self._examples.get(key)
        if examples is None:
            examples = self._examples[key] = self._one_at_a_time(len(args), axes, self.composed)
        return self._run_examples(examples, args)

    def _nested_call(self, args: tuple, axes: list):
        """vmap of a vmap: both batch axes merged, one call of the inner map's batched code (api/vmap_nested.py);
        else (trees, the inner map's out_axes) one outer example at a time, each a call of the inner map."""
        inner = self.nested
        merged = merged_arguments(axes, inner._axes(args), args) if inner.out_axes == 0 else None
        if merged is None:
            key = ("nested", tuple(map(repr, axes)))
            if key not in self._examples:
                self._examples[key] = self._one_at_a_time(len(args), axes, SrcDiffError(
                    "a nested vmap of trees, or whose inner map has out_axes, runs the outer map one example at a "
                    "time, each a batched call of the inner map", inner._def_location(),
                    "pass arrays, and place the inner results with the outer map's out_axes"))
            return self._run_examples(self._examples[key], args)
        values, merged_axes, n, m = merged
        flat = self._examples.setdefault(("nested", merged_axes), VmapFunction(
            inner.func, merged_axes, 0, inner.jit, inner.policy))
        result = flat(*values)
        self._last, self.per_example = flat._last, flat.per_example
        return split_rows(result, n, m)

    def _forward_call(self, args: tuple, axes: tuple | None):
        """vmap of a jvp: its generated sweep batched (api/vmap_forward.py), else one example at a time."""
        if axes is None or len(args) != 2:
            raise SrcDiffError(f"{self.__qualname__}: a jvp is mapped as (primals, tangents), its in_axes one int or "
                               "None, or (the primals' axes, the tangents' axes)",
                               hint="in_axes=((0, None), (0, None))")
        key = ("forward", repr(axes), call_kinds(list(args), [None] * len(args)))
        if key not in self._examples:
            try:  # (the batched sweep: a vmap of its own, kept by the sweep it maps and its axes)
                func, flat, flat_axes = flat_forward(self.func, args, axes)
                inner = self._examples.setdefault((func, repr(flat_axes)), VmapFunction(
                    func, tuple(flat_axes), 0, None, self.policy))
                result = inner(*flat)
                self._last, self.per_example = inner._last, inner.per_example
                return result
            except SrcDiffError as exc:
                self._examples[key] = self._one_at_a_time(len(args), list(axes), exc)
        return self._run_examples(self._examples[key], args)

    def _tree_call(self, args: tuple, axes: list):
        """A call with a tree argument (or a tree of in_axes): each leaf mapped along its own axis, in
        one batched call (api/vmap_leaves.py) or else one example at a time (api/vmap_examples.py)."""
        found: dict = {}
        for position, (value, axis) in enumerate(zip(args, axes)):
            sizes(value, axis, f"argument {position}", found)
        if len(set(found.values())) > 1:
            raise SrcDiffError(f"{self.__qualname__}: the batched arguments have different sizes "
                               f"{sorted(set(found.values()))} ({', '.join(f'{k}: {n}' for k, n in found.items())})",
                               hint="give every batched leaf the same length along its batch axis")
        if 0 in found.values():
            raise SrcDiffError(f"{self.__qualname__}: a batch of no examples", hint="pass at least one example")
        key = ("tree", tuple(map(repr, axes)))  # (the loop's source depends on the axes alone)
        examples = self._examples.get(key)
        failed: SrcDiffError | None = None
        if examples is None:
            try:  # the function of the trees' leaves (or its gradient), batched
                result, self._last = tree_leaves_batched(self.func, args, axes, self.jit)
                self.per_example = None
                return result
            except SharedDrawError:
                raise
            except SrcDiffError as exc:
                failed = exc if exc.location is not None else None
            except (ValueError, TypeError, IndexError):
                pass  # (then one example at a time: the same numbers)
        if self.jit:  # (numba compiles batched code, never the loop over the examples)
            message = f"{self.__qualname__}: this call of tree arguments is not batched, which jit='numba' needs"
            if failed is not None:
                raise SrcDiffError(f"{message}: {failed.reason}", failed.location, failed.hint)
            self._refuse_at_def(f"{message} (a function returning a tree, a dataclass's in_axes tree)",
                                "pass the arrays as parameters of their own")
        if examples is None:
            why = failed or SrcDiffError(
                "a tree argument (a dict, a list or tuple of arrays, a namedtuple, a dataclass, an object) the "
                "batched code of the trees' leaves does not take (a function returning a tree, say): each leaf "
                "mapped along its own in_axes", self._def_location(), "pass the arrays as parameters of their own")
            examples = self._examples[key] = self._one_at_a_time(len(args), axes, why)
        return self._run_examples(examples, args)

    def _side_raised(self, exc: SelectedSideError, key, given: list, axes: list):
        """This call one example at a time: its batched code ran a side of a branch for rows that do not
        take it, which raised (api/vmap_selects.py); later calls try the batched code again."""
        examples = self._raised.get(key)
        if examples is None:
            refusal = SrcDiffError(exc.reason, exc.location or self._def_location(), exc.hint)
            examples = self._raised[key] = self._one_at_a_time(len(given), axes, refusal)
        return self._run_examples(examples, given)

    def _one_at_a_time(self, count: int, axes: list, refusal: SrcDiffError) -> PerExample:
        """The loop over the examples, made once per kind of call (refused first with per_example="refuse";
        with "warn", its first run that returns warns, api/vmap_policy.py)."""
        if self.aux_of is not None:  # (the gradient itself is batched: say that only the aux is not, and why)
            refusal = aux_refusal(self.aux_of, refusal)
        refuse_if_asked(self.policy, self.__qualname__, refusal)
        names = [f"a{k}" for k in range(count)]
        try:
            params = parameter_names(self.func.front.target.func if isinstance(self.func, GradFunction)
                                     else resolve(self.func).func)
            if len(params) >= count and len(set(params[:count])) == count and not RESERVED & set(params[:count]):
                names = params[:count]
        except (SrcDiffError, TypeError, AttributeError):
            pass
        inner = self.__qualname__[len("vmap("):-1]
        examples = PerExample(self.func, names, axes, str(refusal), inner)
        examples.unannounced = refusal if self.policy == "warn" else None
        return examples

    def _run_examples(self, examples: PerExample, args):
        self._last, self.per_example = examples, examples.reason
        try:
            result = examples.run(*args)
        except RaggedResults as exc:  # (a plain ValueError of np.stack otherwise, in generated code)
            why = examples.reason.splitlines()[0] if examples.reason else ""
            self._refuse_at_def(f"{self.__qualname__}: {exc}; it ran one example at a time ({why})",
                                "return results of one shape for every example (pad them, or mask with np.where)")
        if examples.unannounced is not None:
            warn(self.__qualname__, examples.unannounced)
            examples.unannounced = None
        return result

    def _def_location(self):
        """The def line of the function mapped (None for a builtin, a callable object)."""
        try:
            user = self.func.front.target.func if isinstance(self.func, GradFunction) else resolve(self.func).func
            parsed = parse_function(user)
        except (SrcDiffError, TypeError, AttributeError):
            return None
        return parsed.location(parsed.tree)

    def _refuse_at_def(self, message: str, hint: str) -> None:
        """Raise `message` at the def line of the function mapped (without a line where it has none)."""
        raise SrcDiffError(message, self._def_location(), hint)

    @property
    def source(self) -> str:
        """The batched code the last call ran (or its loop over the examples, with the reason)."""
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        if isinstance(self._last, PerExample):
            return self._last.source
        return source_of(self._last, self.jit)


def _composed_reason(f) -> SrcDiffError:
    """Why vmap of srcdiff's Jacobian or Hessian `f` runs one example at a time, at the user's def line."""
    return SrcDiffError(f"{f.__qualname__} is a Jacobian or Hessian made by srcdiff: its rows are one batched call "
                        "already, and vmap runs it once per example", user_def_line(f),
                        "vmap(grad(f)) is batched in one call; per_example='allow' runs this without the warning")


def _is_object(value) -> bool:
    """An object holding parameters as attributes (not an array, a number, a function or a module)."""
    return hasattr(value, "__dict__") and not callable(value) and not isinstance(value, types.ModuleType) \
        and not isinstance(value, (np.ndarray, np.generic))


def vmap(f, in_axes=0, out_axes=0, *, jit: str | None = None, per_example: str = "warn") -> VmapFunction:
    """`f` mapped over a leading axis of the arguments `in_axes` marks (0, another int moved
    to the front, or None for an argument shared by every example), in one call of batched
    code (JAX's ``vmap``).  Results have the batch axis where `out_axes` says (first: 0).  ``vmap(srcdiff.grad(loss),
    in_axes=(None, 0, 0))`` gives per-example gradients.  A batched argument is an array, a list
    of numbers, or a tree of arrays (a dict, a list or tuple holding arrays, a namedtuple, a
    dataclass), whose in_axes entry is one int or None for every leaf or a tree of them shaped
    like it, as in JAX.  Where the batching transform has no rule (a loop whose count differs
    between examples, a masked value read otherwise than elementwise) and for in_axes trees, the call runs one example
    at a time in a generated Python loop: the same results, `.source` prints that loop and the
    reason, and `.per_example` holds the reason (None when the last call was batched).
    `per_example` says what such a call does: "warn" (the default) runs it and warns once
    (`srcdiff.PerExampleWarning`, at the line that could not be batched), "allow" runs it without
    a warning, "refuse" raises `SrcDiffError` at that line.  With ``jit="numba"`` nothing runs one
    example at a time: the batched code is compiled by numba, and what numba or batching cannot
    take is refused at its line."""
    return VmapFunction(f, in_axes, out_axes, jit, per_example)


__all__ = ["VmapFunction", "batched_code", "batched_variant", "parameter_names", "row_of", "vmap"]
