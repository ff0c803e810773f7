"""One call of a user callable as a call of a plain function of leaves: the tree front.

Every transformation differentiates plain functions of floats and arrays.  A call with
parameter trees (dict, list, tuple, namedtuple, dataclass, object), of a method or of a
`functools.partial` becomes, per structure of its arguments, a call of the function rewritten
so that each leaf is a parameter (frontend/flatten.py).  `Front.call` gives that `FlatCall`:
the plain function, its arguments, the leaves differentiated, and `rebuild`, which puts
per-leaf results back into the structure of the `wrt` targets (JAX's conventions: the
gradient of a dict is a dict with the same keys, a tuple of targets gives a tuple).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, cast

import numpy as np

from ..errors import SrcDiffError
from ..frontend import callables, depends, trees
from ..frontend.flatten import Flat, flat_function
from ..frontend.key_parameters import key_value
from ..frontend.parse import parse_function
from ..frontend.rewrites import needs_rewrite
from .binding import Binder, normalize_wrt, not_differentiable, refuse


@dataclass
class FlatCall:
    """`func(*args)` is the user's call; `wrt` are the names of its differentiated parameters."""

    func: object
    args: tuple
    names: list
    wrt: tuple
    plan: list  # per wrt target: (its structure, or None for a plain value; the leaves it holds)
    tuple_result: bool
    flat: Flat | None = None  # the rewritten function (None: the user's function as it is)
    structs: tuple = ()
    user_names: tuple = ()  # the parameters of the user's callable (a method's without self)

    def batchable(self, positional: tuple) -> bool:
        """Whether vmap may batch this call's code with the user's arguments `positional`: the user's
        function, or one srcdiff rewrote alone (its calls of library functions, of partials) that takes
        the arguments themselves, not a tree's leaves or a method's object."""
        return self.flat is None or (len(self.args) == len(positional)
                                     and all(a is b for a, b in zip(self.args, positional)))

    def rebuilding(self, run, valued: bool = False):
        """`run` (the batched code of this call's gradient) returning its gradients as the user's gradient
        does: a rewritten function's code returns one per differentiated leaf, as a tuple (`rebuild`);
        `valued`: the value first, then those (value_and_grad's code)."""
        if self.flat is None:
            return run
        if valued:
            return lambda *args: self.rebuilt_valued(run(*args))
        return lambda *args: self.rebuild(list(found) if isinstance(found := run(*args), tuple) else [found])

    def rebuilt_valued(self, result: tuple) -> tuple:
        """``(value, gradients)`` of value_and_grad's code with the gradients rebuilt (`rebuild`)."""
        value, found = result
        return value, self.rebuild(list(found) if isinstance(found, tuple) else [found])

    def run(self):
        """`func(*args)` as Python calls it: keyword-only parameters passed by name."""
        params = list(inspect.signature(self.func).parameters.values())
        only = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
        args = unchanged(self.args)
        return self.func(*[a for a, p in zip(args, params) if p.name not in only],
                         **{p.name: a for a, p in zip(args, params) if p.name in only})

    def value(self, user_func, args: tuple, kwargs: dict):
        """The call's value, by `user_func` (the user's function) where the arguments are trees: the
        flattened function, run as Python, would call a gradient it calls with a tree's string or
        integer leaf among the leaves it differentiates (a leaf's structure is the call's, not its value's)."""
        return self.run() if self.flat is None else user_func(*args, **kwargs)

    def rebuild(self, results):
        """Per-leaf `results` (aligned with `wrt`) in the structure of the `wrt` targets."""
        plan = self.plan
        if type(results) is list and not self.tuple_result and len(plan) == 1 and plan[0][0] is None \
                and len(plan[0][1]) == 1:
            return results[0]  # one plain value (the common case, on every call of a replayed Hessian)
        it = iter(results)
        out = []
        for sub, chosen in self.plan:
            taken = [next(it) for _ in chosen]
            out.append(taken[0] if sub is None or not sub.is_container else trees.unflatten(sub, iter(taken)))
        return tuple(out) if self.tuple_result else out[0]

    def leaves_of(self, value, index: int, what: str) -> list:
        """`value` (a tree shaped like wrt target `index`, e.g. a direction) as one value per
        differentiated leaf of that target."""
        sub, chosen = self.plan[index]
        if sub is None or not sub.is_container:
            return [value]
        return leaves_like(value, sub, [], what, keep_data=False)

    def tangents(self, tangents: tuple, what: str = "the tangent") -> tuple:
        """One tangent per parameter of `func`, from one per parameter of the user's callable
        (each a tree like its argument, or None); a bound ``self`` and data leaves get None."""
        if self.flat is None:
            return tuple(tangents)
        given = dict(zip(self.user_names, tangents))
        out = []
        for name, struct, leaf_names in self.flat.params:
            tangent = given.get(name)
            if struct is None:
                out.append(tangent)
            else:
                found = leaves_like(tangent, struct, [], f"{what} of {name}", keep_data=True)
                for t, kind, leaf in zip(found, _kinds(struct), leaf_names):
                    if kind == "data" and t is not None and _no_derivative(self.args[len(out)], t):
                        t = None  # a string's (or None's) part, the tree copied: nothing a derivative could be
                    if kind == "data" and t is not None:
                        raise SrcDiffError(f"{what} of {name} has a part for {leaf}, which holds no float "
                                           "(an integer, a string, None): its derivative would be silently "
                                           "truncated", hint=f"pass None there, or make {leaf} a float")
                    out.append(None if kind == "data" else t)
        return tuple(out)

    def check(self, qualname: str) -> None:
        """Refuse a differentiated leaf that is not a float or a float array."""
        for name in self.wrt:
            problem = not_differentiable(self.args[self.names.index(name)])
            if problem:
                raise refuse(qualname, name, problem)


def unchanged(args) -> tuple:
    """`args` with each NumPy array copied, for a run of the user's function whose arguments the
    transformation reads again after it: the function may update one in place (``x0 += v``, which
    srcdiff reads as a new value), and the derivative is the one at the arguments as given."""
    return tuple(a.copy() if type(a) is np.ndarray else a for a in args)


def leaves_like(value, struct: trees.Struct, out: list, what: str, keep_data: bool) -> list:
    """`value`'s parts at the leaves of `struct` (a tree shaped like an argument: a tangent, a
    direction), in the order `trees.leaves` lists the argument's; None stands for zeros."""
    if struct.kind == "leaf" or (keep_data and struct.kind == "data"):
        out.append(value)
        return out
    if not struct.is_container:
        return out
    # (a dict tangent may leave out the parts that hold no float: {"w": v} for {"w": w, "name": "layer1"})
    left_out = isinstance(value, dict) and struct.kind == "dict" and set(value) < set(struct.keys) \
        and not any(_has_leaf(c) for k, c in zip(struct.keys, struct.children) if k not in value)
    if value is not None and isinstance(value, (list, tuple, dict)) and len(value) != len(struct.keys) \
            and not left_out:
        raise SrcDiffError(f"{what} has {len(value)} entries, but the argument it goes with has "
                           f"{len(struct.keys)}", hint=f"give {what} the structure of the argument")
    for key, child in zip(struct.keys, struct.children):
        try:
            item = None if value is None or left_out and key not in value else trees.child_value(value, struct, key)
        except (KeyError, IndexError, AttributeError, TypeError):
            raise SrcDiffError(f"{what} has no entry {key!r}, but the argument it goes with has one",
                               hint=f"give {what} the structure of the argument") from None
        leaves_like(item, child, out, what, keep_data)
    return out


def _no_derivative(primal, tangent) -> bool:
    """Whether `tangent`, given for a leaf holding no float, says nothing a derivative could be: the leaf is
    no number (a string, None: a tree's name, copied as its tangent), or the tangent is zeros."""
    if not isinstance(primal, (int, float, complex, np.number, np.ndarray)):
        return not isinstance(tangent, (int, float, complex, np.number, np.ndarray)) or tangent is primal
    try:
        return bool(np.all(np.asarray(tangent) == 0))
    except (TypeError, ValueError):
        return False


def _has_leaf(struct: trees.Struct) -> bool:
    return "leaf" in _kinds(struct)


def _kinds(struct: trees.Struct) -> list:
    """The kind ("leaf" or "data") of each leaf of `struct`, in `trees.leaves` order."""
    if struct.kind in ("leaf", "data"):
        return [struct.kind]
    if not struct.is_container:
        return []
    return [k for child in struct.children for k in _kinds(child)]


#: ``Front(f, EVERY)``: every parameter is a target (forward mode: each may carry a tangent)
EVERY = object()


class Front:
    """A user callable (function, method, partial, callable object) and its `wrt` targets."""

    def __init__(self, func, wrt=0, argnums=None, *, has_aux: bool = False, what: str = "srcdiff.grad"):
        self.func, self.has_aux = func, has_aux
        self.binder = Binder(func, what)
        self.target = callables.resolve(func)
        self.names = list(self.binder.names)  # the user callable's
        self.qualname = self.binder.qualname
        self.every = wrt is EVERY
        if self.every:  # forward mode: every parameter may carry a tangent
            self.targets, self.tuple_result = tuple((n, ()) for n in self.names), True
        else:
            self.targets, self.tuple_result = normalize_wrt(wrt, argnums, self.names, self.target.hidden,
                                                            self.qualname)
        self.wrt = tuple(dict.fromkeys(root for root, _ in self.targets))
        self.roots = set(self.wrt)
        try:
            self.inner_names = list(inspect.signature(cast(Callable[..., Any], self.target.func)).parameters)
        except (TypeError, ValueError):
            self.inner_names = self.names
        self.always = (not self.target.plain or has_aux or any(path for _, path in self.targets)
                       or self.target.func is not func or needs_rewrite(self.target.func))
        self._prepared: dict = {}
        self._last: tuple | None = None  # (structures, flat, wrt, plan, leaf names) of the last tree call

    def uses_trees(self, positional: tuple, roots=None) -> bool:
        """Whether a call with these (bound) arguments goes through a flattened function."""
        roots = self.roots if roots is None else roots
        return self.always or any(_is_tree(a, n in roots) for n, a in zip(self.names, positional))

    def structures(self, values: list, roots=None) -> tuple:
        out = []  # (of each parameter)
        for name, value in zip(self.inner_names, values):
            if name in self.target.hidden and trees.is_object(value):
                struct = trees.structure(value) if not callable(value) else _object_structure(value)
            elif (key := self._key(name, value)) is not None:
                struct = key  # (in forward mode every parameter is a root: a tuple of labels is still keys)
            elif trees.is_tree(value, sequences=name in (self.roots if roots is None else roots)):
                struct = trees.structure(value)
            else:
                struct = None
            out.append(struct)
        return tuple(out)

    def _key(self, name: str, value) -> trees.Struct | None:
        """A "key" structure (the value a constant of the rewrite: frontend/key_parameters.py) for a parameter
        not differentiated that the function iterates to make keys (``range(n)``, ``for lab in labels``)."""
        if name in self.roots and not self.every or not isinstance(value, (int, np.integer, tuple, list)):
            return None
        try:
            parsed = parse_function(self.target.func)
        except SrcDiffError:
            return None
        found = key_value(name, value, parsed)
        return None if found is None else trees.Struct("key", cls=found)

    def prepared(self, structs: tuple) -> tuple[Flat, tuple, list]:
        """(the flattened function, the leaves differentiated, the plan) for these structures."""
        flat = flat_function(self.target.func, {n: s for n, s in zip(self.inner_names, structs) if s is not None},
                             self.has_aux)
        found = self._prepared.get(structs)
        if found is not None and found[0] is flat:
            return found
        wrt, plan = plan_targets(self.targets, flat.params, self.every)
        found = self._prepared[structs] = (flat, tuple(wrt), plan)
        return found

    def full_values(self, positional: tuple) -> list:
        """Every parameter of the target function, the bound prefix (``self``) included."""
        return callables.full_arguments(self.target, self.inner_names, dict(zip(self.names, positional)))

    def call(self, args: tuple, kwargs: dict) -> FlatCall:
        """The plain call that computes ``func(*args, **kwargs)``."""
        return self.bound_call(self.binder.bind(args, kwargs))

    def bound_call(self, positional: tuple, constant: frozenset = frozenset()) -> FlatCall:
        """The plain call of these (bound) arguments; the lists and tuples of the parameters `constant` names
        (a jvp's, given no tangent) are data passed whole, as grad passes those it does not differentiate."""
        roots = self.roots - constant
        if not self.uses_trees(positional, roots):
            plan = [(None, [root]) for root, _ in self.targets]
            return FlatCall(self.func, tuple(positional), self.names, self.wrt, plan, self.tuple_result,
                            user_names=tuple(self.names))
        values = self.full_values(positional)
        last = self._last
        if last is not None and (not last[1].deps or depends.hold(last[1].deps)):
            leaves = self._same_leaves(values, last[0], roots)
            if leaves is not None:  # the structures of the last call: its plan, without building them
                return FlatCall(last[1].func, tuple(leaves), last[4], last[2], last[3], self.tuple_result, last[1],
                                last[0], tuple(self.names))
        structs = self.structures(values, roots)
        flat, wrt, plan = self.prepared(structs)
        leaves = []
        for struct, value in zip(structs, values):
            if struct is None:
                leaves.append(value)
            else:
                trees.leaves(value, struct, leaves)
        names = [n for _, _, leaf_names in flat.params for n in leaf_names]
        self._last = (structs, flat, wrt, plan, names)
        return FlatCall(flat.func, tuple(leaves), names, wrt, plan, self.tuple_result, flat, structs,
                        tuple(self.names))

    def _same_leaves(self, values: list, structs: tuple, roots: set) -> list | None:
        """The leaves of `values` if `structures(values)` would give `structs` (dicts, lists,
        tuples and namedtuples of numbers and arrays, checked item by item); None when not, or
        not sure (objects, dataclasses, callables: the full comparison decides)."""
        out: list = []
        for name, value, struct in zip(self.inner_names, values, structs):
            if name in self.target.hidden:
                return None
            if struct is None:
                if _is_tree(value, name in roots):
                    return None
                out.append(value)
            elif not _matches(value, struct, out):
                return None
        return out


def plan_targets(targets, params, every: bool = False) -> tuple[list[str], list]:
    """The leaves differentiated and the plan (per target: its structure, the leaves it holds)
    for `wrt` targets ``(root, path)`` of a flattened function with these `params`
    (``(parameter, structure or None, leaf names)``)."""
    by_param = {name: (struct, leaf_names) for name, struct, leaf_names in params}
    wrt: list[str] = []
    plan: list[tuple[Any, list[str]]] = []
    for root, path in targets:
        struct, leaf_names = by_param[root]
        if struct is None:
            if path:
                raise SrcDiffError(f"wrt={_spelled(root, path)!r}: {root} is not a tree in this call")
            wrt.append(root)
            plan.append((None, [root]))
            continue
        paths = [(p, s) for p, s in trees.leaf_paths(struct) if s.kind in ("leaf", "data")]
        try:
            sub = trees.subtree(struct, path)
        except (ValueError, IndexError):
            raise SrcDiffError(f"wrt={_spelled(root, path)!r} names no part of {root} "
                               f"(its keys are {list(struct.keys)})") from None
        named = [(p, n) for (p, s), n in zip(paths, leaf_names)]
        kinds = {p: s.kind for p, s in paths}
        chosen = [n for p, n in named if p[:len(path)] == path and (kinds[p] == "leaf" or p == path)]
        if not chosen and not every:  # (forward mode: a tree of data only gets no tangent)
            raise SrcDiffError(f"wrt={_spelled(root, path)!r} holds no number or array to differentiate")
        wrt += chosen
        plan.append((sub, chosen))
    return wrt, plan


#: values that are never trees (a quick answer before `trees.is_tree`)
_PLAIN = (float, int, np.ndarray, np.float64)


def _is_tree(value, sequences: bool) -> bool:
    """``trees.is_tree``, answered at once for the common types."""
    kind = type(value)
    if kind in _PLAIN:
        return False
    if kind is list or kind is tuple:
        return sequences or bool(value) and type(value[0]) not in _PLAIN and trees.is_tree(value[0], sequences=False)
    return kind is dict or trees.is_tree(value, sequences=sequences)


def _matches(value, struct: trees.Struct, out: list, depth: int = 0) -> bool:
    """Whether ``trees.structure(value)`` is `struct` (False also where unsure), appending
    `value`'s leaves to `out` as ``trees.leaves`` does."""
    kind = struct.kind
    if kind == "leaf" or kind == "data":
        # only the common leaves, floats and float arrays; anything else: the full comparison
        if kind == "leaf" and (type(value) is float or type(value) is np.ndarray and value.dtype.kind in "fc"):
            out.append(value)
            return True
        return False
    if kind == "key":  # a count or labels the rewrite took as a constant (key_parameters.py): the same one
        same = type(value) is int and type(struct.cls) is int and value == struct.cls \
            or type(value) in (tuple, list) and type(struct.cls) is tuple and tuple(value) == struct.cls
        if same:
            out.append(value)
        return same
    if depth >= trees.MAX_DEPTH:
        return False
    if kind == "dict":
        if type(value) is not dict or len(value) != len(struct.keys) or tuple(value) != struct.keys:
            return False
        return all(_matches(value[k], c, out, depth + 1) for k, c in zip(struct.keys, struct.children))
    if kind == "list" or kind == "tuple":
        if type(value) is not (list if kind == "list" else tuple) or len(value) != len(struct.children):
            return False
        return all(_matches(v, c, out, depth + 1) for v, c in zip(value, struct.children))
    if kind == "namedtuple":
        if type(value) is not struct.cls or len(value) != len(struct.children):
            return False
        return all(_matches(v, c, out, depth + 1) for v, c in zip(value, struct.children))
    return False


def _object_structure(value) -> trees.Struct:
    attrs = trees.attribute_names(value)
    return trees.Struct("object", attrs, tuple(trees.structure(getattr(value, a), 1, True) for a in attrs),
                        type(value))


def _spelled(root, path) -> str:
    return root + "".join(f"[{k!r}]" if isinstance(k, int) else f".{k}" for k in path)


__all__ = ["EVERY", "FlatCall", "Front", "leaves_like", "plan_targets", "unchanged"]
