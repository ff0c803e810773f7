"""A srcdiff gradient object called with trees inside a function srcdiff differentiates::

    dtl = srcdiff.grad(tloss)                      def dtl(p, x):             # made, per structure
    def step(p, x):                                    g = gradient(p["w"], p["b"], x)
        g = dtl(p, x)                      ==>         return {"w": g[0], "b": g[1]}
        return tloss({"w": p["w"] - 0.1 * g["w"], "b": p["b"] - 0.1 * g["b"]}, x)

A gradient object differentiates a call with trees through its gradient of the function rewritten
for the trees' structure (api/trees.py): one parameter per leaf, one gradient per differentiated leaf.
Called inside a function srcdiff differentiates, it stands for a helper made for the structures the
call passes (read by the tree rewrite as any helper of the user's, the call then one of that gradient
of leaves: lower/called_gradients.py), whose ``return`` builds the gradient back into the structure of
the argument as the object itself does: a dict for a dict, a tuple for a tuple, value_and_grad's value
first.  The helper's lines are the call's line: what it cannot do is refused there.
"""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..ir import memo
from .built_objects import init_attributes
from .callables import is_gradient_object
from .parse import ParsedFunction, register
from .passed_names import sequence_spelling
from .tree_entries import Node, node_struct
from .trees import LEAF, Struct, leaf_paths

_MADE = memo.table()

#: the kinds of tree a gradient is built back into by a ``return`` the rewrite reads (returned_objects.py)
_BUILT = ("dict", "list", "tuple")
#: the kinds built by calling their class (when `init_attributes` reads its __init__)
_CLASSES = ("namedtuple", "dataclass")


def tree_gradient_helper(obj, structs: tuple, parsed: ParsedFunction, call: ast.Call):
    """The helper a call of gradient object `obj` with arguments of structures `structs` (per
    parameter, None for a plain value) stands for, at `call` of the function `parsed`."""
    key = (obj, structs, parsed.filename, call.lineno, getattr(call, "srcdiff_part", None))
    found = _MADE.get(key)
    if found is not None and found[0] is obj.tree_gradient(structs)[1]:
        return found[1]
    params, inner, plan, tuple_result, with_value = obj.tree_gradient(structs)
    part = getattr(call, "srcdiff_part", None)  # value_and_grad's value or gradient (`split_value_and_gradient`)
    if with_value and part is None:  # (a (value, tree) pair is not a return the rewrite reads: returned_objects.py)
        raise parsed.error(call, f"{obj.__qualname__} is a value_and_grad given trees, which srcdiff calls inside "
                           "a function it differentiates only as the value of an assignment to two names",
                           f"write v, g = {ast.unparse(call)}")
    names = list(obj.names)
    reads = []
    for pname, struct, leaf_names in params:
        if struct is None:
            reads.append(pname)
            continue
        paths = [p for p, s in leaf_paths(struct) if s.kind in ("leaf", "data")]
        if len(paths) != len(leaf_names):
            raise parsed.error(call, f"{obj.__qualname__} is given a tree holding functions or objects srcdiff "
                               "reads as constants; srcdiff calls a gradient of trees of arrays and numbers only",
                               "pass the arrays as a dict, list or tuple")
        reads += [pname + "".join(_step(struct, path[:i + 1]) for i in range(len(path))) for path in paths]
    several = inner.tuple_result or len(inner.wrt) > 1
    count = sum(len(chosen) for _, chosen in plan)
    grads = iter([f"g[{i}]" for i in range(count)] if several else ["g"])
    classes: dict = {}
    parts = [_built(sub, grads, obj, parsed, call, classes) if sub is not None and sub.is_container else next(grads)
             for sub, _ in plan]
    result = f"({', '.join(parts)},)" if tuple_result else parts[0]
    head = "value, g" if with_value else "g"
    name = f"{obj.__name__}_{'value' if part == 'value' else 'gradient'}"  # (two helpers of one call: two names)
    source = (f"def {name}({', '.join(names)}):\n"
              f"    {head} = _srcdiff_gradient({', '.join(reads)})\n"
              f"    return {'value' if part == 'value' else result}\n")
    tree = ast.parse(source).body[0]
    for node in ast.walk(tree):  # every line of it is the call's: a refusal names the user's line
        if hasattr(node, "lineno"):
            node.lineno = node.end_lineno = call.lineno
            node.col_offset, node.end_col_offset = call.col_offset, call.end_col_offset or call.col_offset
    namespace = {"_srcdiff_gradient": inner, **classes}
    code = compile(ast.Module([tree], type_ignores=[]), parsed.filename, "exec")
    exec(code, namespace)  # noqa: S102  the source above: names and subscripts only
    func = namespace[name]
    func.__defaults__ = getattr(obj.func, "__defaults__", None)
    func.__module__ = parsed.func.__module__
    # (a key "{" is no display; a class builds an object, read as a dict is: returned_objects.py)
    func.builds_dict = part != "value" and ("{" in result.replace(repr("{"), "") or bool(classes))
    register(func, ParsedFunction(func, tree, parsed.filename, parsed.file_lines, namespace))
    _MADE[key] = (obj, func)
    return func


def _step(struct: Struct, path: tuple) -> str:
    """How the last key of `path` is read, in the tree `struct` whose root the path starts at."""
    for key in path[:-1]:
        struct = struct.child(key)
    key = path[-1]
    return f".{key}" if struct.kind in ("namedtuple", "dataclass", "object") else f"[{key!r}]"


def _built(sub: Struct, grads, obj, parsed: ParsedFunction, call: ast.Call, classes: dict) -> str:
    """The display building `sub`'s gradient (its leaves' gradients taken from `grads`, None elsewhere);
    a namedtuple or dataclass is built by its class, put in `classes` under the name the display calls."""
    if sub.kind == "leaf":
        return next(grads)
    if not sub.is_container:
        return "None"
    built_by_class = sub.kind in _CLASSES and init_attributes(sub.cls) is not None
    if sub.kind not in _BUILT and not built_by_class:
        raise parsed.error(call, f"{obj.__qualname__}'s gradient is {sub.describe()}, which srcdiff does not build "
                           "inside a function it differentiates (a dict, a list or a tuple of arrays, a namedtuple, "
                           "a dataclass whose __init__ takes every field and has no __post_init__)",
                           "pass the arrays as a dict, list or tuple")
    items = [_built(c, grads, obj, parsed, call, classes) for c in sub.children]
    if built_by_class:  # NT(w=g[0], b=g[1]): the class, as the gradient object builds it (api/trees.py)
        spelled = next(n for n in (f"_srcdiff_{sub.cls.__name__}{'_' * k}" for k in range(len(classes) + 1))
                       if classes.get(n, sub.cls) is sub.cls)
        classes[spelled] = sub.cls
        return f"{spelled}(" + ", ".join(f"{k}={v}" for k, v in zip(sub.keys, items)) + ")"
    if sub.kind == "dict":
        if not all(isinstance(k, str) for k in sub.keys):
            raise parsed.error(call, f"{obj.__qualname__}'s gradient is a dict with keys that are not strings",
                               "use string keys")
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(sub.keys, items)) + "}"
    if sub.kind == "list":
        return "[" + ", ".join(items) + "]"
    return "(" + ", ".join(items) + ",)"


def _display(arg, rewriter) -> Struct | None:
    """The structure of ``(w, b)`` / ``[w, b]`` written in the call, items that are not trees (the
    helper's call reads it as a tree of its own: passed_sequences.py); else None."""
    if not (isinstance(arg, (ast.Tuple, ast.List)) and sequence_spelling(arg, rewriter.parsed.resolve)) \
            or any(rewriter.entry(e) is not None for e in arg.elts):
        return None
    count = len(arg.elts)
    return Struct("tuple" if isinstance(arg, ast.Tuple) else "list", tuple(range(count)), (LEAF,) * count)


class GradientTrees:
    """A mixin of the expression rewriter (flatten_exprs.py): a gradient object's call given trees."""

    def split_value_and_gradient(self, s) -> list | None:
        """``v, g = vg(p, x)`` of a value_and_grad object given trees: ``v = <its value>`` and
        ``g = <its gradient>`` (each a helper: `tree_gradient_helper`), else None."""
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple)
                and len(s.targets[0].elts) == 2 and isinstance(s.value, ast.Call)
                and isinstance(s.value.func, ast.Name) and s.value.func.id not in self.env
                and not hasattr(s.value, "srcdiff_part")):  # ((gw, gb) = <its gradient>: split already)
            return None
        obj = self.parsed.resolve(s.value.func.id)
        if not (is_gradient_object(obj) and obj.with_value and self.given_trees(s.value)):
            return None
        out = []
        for target, part in zip(s.targets[0].elts, ("value", "gradient")):
            call = ast.copy_location(ast.Call(s.value.func, s.value.args, s.value.keywords), s.value)
            call.srcdiff_part = part
            out += self.stmt(ast.copy_location(ast.Assign([target], call), s))
        return out

    def given_trees(self, node: ast.Call) -> bool:
        """Whether the call gives a tree, or a tuple or list written in it (then read as a tree)."""
        return self.any_tree(node) or self.reads_displays() and any(
            sequence_spelling(a, self.parsed.resolve) for a in node.args + [k.value for k in node.keywords])

    def gradient_helper(self, node: ast.Call, obj, assigned: bool = False):
        """The helper a call of gradient object `obj` given trees stands for (gradient_trees.py)."""
        try:
            bound = obj.positional(tuple(node.args), {k.arg: k.value for k in node.keywords})
        except (TypeError, SrcDiffError) as exc:
            raise self.error(node, f"cannot call {obj.__qualname__} this way: {exc}") from None
        entries = [self.entry(a) if isinstance(a, ast.expr) else None for a in bound]
        structs = tuple(node_struct(e) if isinstance(e, Node) else _display(a, self) for a, e in zip(bound, entries))
        try:
            made = tree_gradient_helper(obj, structs, self.parsed, node)
            if made.builds_dict and not assigned:  # (returned_objects.py reads a dict so only when assigned)
                raise self.parsed.error(node, f"{obj.__qualname__} returns a dict here, which srcdiff reads only "
                                        "as the value of an assignment", f"assign it first: g = {ast.unparse(node)}, "
                                        "then read g['...']")
            return made
        except SrcDiffError as exc:
            raise exc if exc.location is not None else self.parsed.error(node, exc.reason, exc.hint) from None



__all__ = ["GradientTrees", "tree_gradient_helper"]
