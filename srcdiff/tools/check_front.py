"""The call `check` and `gradcheck` examine, bound through the api's one front, as `grad` binds it.

A call with parameter trees (dict, list, tuple, namedtuple, dataclass, object), of a method,
of a `functools.partial` or of a function that calls partials or cached helpers runs, like
every transformation, as a plain function of leaves (api/flatcall.py).  The tools check that
plain function: its arguments are floats and arrays, its differentiated parameters are
leaves, and `Plain.rebuild` puts per-leaf results back into the structure of the `wrt`
targets.  Each leaf is reported under the user's spelling of it (``params['W1']``,
``self.w``), not the rewritten parameter's name.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass

import numpy as np

from ..api.binding import Binder, not_differentiable, refuse
from ..api.flatcall import FlatCall
from ..api.gradients import GradFunction
from ..errors import SrcDiffError
from ..frontend import trees
from .check_common import unwrap


@dataclass
class Plain:
    """A user's call as a plain function of floats and arrays."""

    qualname: str  # the user's function, as reports name it
    func: object  # the plain function: the user's, or rewritten for trees, self or a partial
    values: tuple  # its arguments
    wrt: tuple  # its differentiated parameters
    labels: dict  # parameter of `func` -> the user's spelling of it
    gradient: GradFunction  # srcdiff's gradient of `func` with respect to `wrt`, a tuple
    call: FlatCall

    @property
    def params(self) -> list:
        return list(inspect.signature(self.func).parameters)

    def position(self, name: str) -> int:
        return self.params.index(name)

    def label(self, name: str) -> str:
        return self.labels.get(name, name)

    def run(self, values: tuple, func=None):
        """`func` (default: the plain function) on copies of `values`: a function that writes
        into its arguments (``x /= 2``) leaves them as they were for the next run.  Keyword-only
        parameters are passed by keyword (the generated gradient takes every one positionally)."""
        positional, keywords = self.split(copies(values))
        return (func or self.func)(*positional, **keywords)

    def split(self, values) -> tuple[list, dict]:
        """`values` (one per parameter) as the call's positional and keyword arguments."""
        positional, keywords = [], {}
        for p, value in zip(inspect.signature(self.func).parameters.values(), values):
            if p.kind == p.KEYWORD_ONLY:
                keywords[p.name] = value
            else:
                positional.append(value)
        return positional, keywords

    def gradient_at(self, values, method: str = "__call__"):
        """srcdiff's gradient (or its `method`: ``variant_for``...) for arguments `values`."""
        positional, keywords = self.split(copies(values))
        return getattr(self.gradient, method)(*positional, **keywords)

    def rebuild(self, per_leaf: list):
        """Results given per differentiated leaf, in the structure of the `wrt` targets."""
        return self.call.rebuild(list(per_leaf))


def plain_call(f, args: tuple, wrt, shapes: dict | None, seed: int, what: str = "srcdiff.check") -> Plain:
    """The call ``f(*args)`` (missing arguments from `shapes` or defaults) as `Plain`."""
    func = unwrap(f, args)
    user = GradFunction(func, wrt)
    positional = example_arguments(user.front.binder, args, shapes, seed)
    call, gradient = user.plain_call(copy.deepcopy(positional))
    labels = _labels(call)
    qualname = getattr(user.front.target.func, "__qualname__", user.__qualname__)
    for name in call.wrt:
        problem = not_differentiable(call.args[call.names.index(name)])
        if problem:
            raise refuse(qualname, labels.get(name, name), problem)
    plain = Plain(qualname, call.func, tuple(call.args), tuple(call.wrt), labels, gradient, call)
    plain.gradient_at(plain.values, "source_for")  # raises SrcDiffError where grad would
    return plain


def example_arguments(binder: Binder, args: tuple, shapes: dict | None, seed: int) -> tuple:
    """Every parameter's value, in order: from `args`, else from `shapes` (random), else its default."""
    sig = binder.current()
    params = list(sig.parameters.values())
    qualname = binder.qualname
    if len(args) > len(params):
        raise SrcDiffError(f"{qualname} takes {len(params)} argument(s), {len(args)} were given")
    shapes = dict(shapes or {})
    unknown = set(shapes) - {p.name for p in params}
    if unknown:
        raise SrcDiffError(f"shapes names {sorted(unknown)}, which are not parameters of {qualname}")
    rng = np.random.default_rng(seed)
    kwargs, missing = {}, []
    for p in params[len(args):]:
        if p.name in shapes:
            shape = tuple(shapes.pop(p.name))
            kwargs[p.name] = float(rng.uniform(0.5, 1.5)) if shape == () else rng.uniform(0.5, 1.5, size=shape)
        elif p.default is p.empty:
            missing.append(p.name)
    if missing:
        raise SrcDiffError(f"no value for {', '.join(map(repr, missing))} of {qualname}",
                           hint="pass an example value for every parameter without a default, "
                                "or its shape with shapes={name: shape}")
    for name, shape in shapes.items():  # given both as an argument and as a shape
        value = args[[p.name for p in params].index(name)]
        if np.shape(value) != tuple(shape):
            raise SrcDiffError(f"shapes says {name} has shape {tuple(shape)}, but its argument has "
                               f"shape {np.shape(value)}")
    try:
        return binder.bind(tuple(args), kwargs)
    except TypeError as exc:
        raise SrcDiffError(str(exc)) from None


def copies(values) -> tuple:
    """`values` with each array copied (object arrays of symbols too)."""
    return tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


def _labels(call: FlatCall) -> dict:
    """Each leaf parameter of the plain function -> the user's spelling (``p['W']``, ``self.w``)."""
    if call.flat is None:
        return {}
    out = {}
    for name, struct, leaf_names in call.flat.params:
        if struct is None:
            out[name] = name
            continue
        paths = [p for p, s in trees.leaf_paths(struct) if s.kind in ("leaf", "data")]
        for path, leaf in zip(paths, leaf_names):
            out[leaf] = name + _spelled(struct, path)
    return out


def _spelled(struct: trees.Struct, path: tuple) -> str:
    text = ""
    for key in path:
        text += f".{key}" if struct.kind in ("object", "dataclass", "namedtuple") else f"[{key!r}]"
        struct = struct.children[list(struct.keys).index(key)]
    return text


__all__ = ["Plain", "copies", "example_arguments", "plain_call"]
