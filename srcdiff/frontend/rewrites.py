"""Which functions the tree rewrite (flatten.py) must handle, and what their free names hold.

A function is rewritten before lowering when it takes trees, and also when it (or a user
function it calls) calls a ``functools.partial`` or an ``lru_cache`` wrapper, or builds a
dict or a partial in its body: `needs_rewrite` says so.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import types

from .callables import is_gradient_object
from .global_objects import reads_objects, tree_default
from .parse import parse_function, unwrap
from .passed_names import converted, passed_names, passes_sequences

_SKIP_MODULES = ("numpy", "srcdiff", "math", "scipy", "builtins")


def user_function(value) -> bool:
    """A Python function srcdiff reads through its source: not NumPy's, nor one of SciPy's
    convolutions, whose rules are used (their source times its methods in a dict)."""
    module = getattr(value, "__module__", "") or ""
    if not isinstance(value, types.FunctionType) or module.split(".")[0] in ("numpy", "srcdiff", "math"):
        return False
    if not module.startswith("scipy.signal"):
        return True
    from ..rules import TABLE  # here: the table loads SciPy's rules once SciPy is imported
    return TABLE.lookup(value) is None


def rule_call(value, node: ast.Call) -> bool:
    """Whether the call `node` of the library function `value` is one its rule takes: a
    SciPy function with a rule (``logsumexp``, ``softmax``), called with arguments that bind
    the rule's parameters as they bind the function's own (``logsumexp(a, 1)``: 1 is the
    axis for both).  Such a call is differentiated by the rule, and SciPy's source (its
    array-API helpers) is never read; any other call (``return_sign=True``) reads it."""
    module = getattr(value, "__module__", "") or ""
    if not isinstance(value, types.FunctionType) or module.split(".")[0] != "scipy":
        return False
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    from ..rules import TABLE  # here: the table loads SciPy's rules once SciPy is imported
    rule = TABLE.lookup(value)
    if rule is None:
        return False
    args, keywords = list(range(len(node.args))), {k.arg: k.arg for k in node.keywords}
    try:
        own = inspect.signature(value).bind(*args, **keywords).arguments
        ruled = rule.signature.bind(*args, **keywords).arguments
    except (TypeError, ValueError):
        return False
    # by place, not name: a rule may name its operands otherwise (solve_triangular's a, b are x, y)
    return _placed(own, inspect.signature(value)) == _placed(ruled, rule.signature)


def _placed(bound: dict, signature: inspect.Signature) -> list:
    """Each bound argument (a position or a keyword of the call) with the place of its parameter."""
    order = list(signature.parameters)
    return sorted((order.index(name), repr(given)) for name, given in bound.items())


def indirect(value) -> bool:
    """A callee srcdiff reads through a rewrite: a partial, or a cache wrapper of a function."""
    if isinstance(value, functools.partial):
        return True
    return type(value).__name__ == "_lru_cache_wrapper" and user_function(unwrapped(value))


def unwrapped(value):
    try:
        return unwrap(value)
    except Exception:
        return None


def cached_of_literals(value, node: ast.Call, prefix: list, keywords: dict) -> bool:
    """``weights(4)`` of a helper cached with ``functools.lru_cache`` / ``cache``, every argument written
    as a literal: left as written, for lowering to compute when the gradient is built (its value
    depends on those arguments alone: lower/cached_calls.py)."""
    if type(value).__name__ != "_lru_cache_wrapper" or prefix or keywords:
        return False
    try:
        for a in node.args + [k.value for k in node.keywords]:
            ast.literal_eval(a)
    except ValueError:
        return False
    return not any(k.arg is None for k in node.keywords)


def free_values(func) -> list:
    """(name, value) of the free names `func`'s code (nested code included) reads."""
    code, closure = func.__code__, dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    names, codes = set(), [code]
    while codes:
        c = codes.pop()
        names |= set(c.co_names) | set(c.co_freevars)
        codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    found = []
    for name in sorted(names):
        if name in closure:
            try:
                found.append((name, closure[name].cell_contents))
            except ValueError:
                continue
        elif name in func.__globals__:
            found.append((name, func.__globals__[name]))
    return found


def needs_rewrite(func, seen=None) -> bool:
    """Whether `func`, or a user function it calls, calls a partial or a cache wrapper."""
    seen = set() if seen is None else seen
    if not isinstance(func, types.FunctionType) or func in seen:
        return False
    seen.add(func)
    if _builds_trees(func) or any(tree_default(d) for d in (func.__defaults__ or ())
                                  + tuple((func.__kwdefaults__ or {}).values())):
        return True  # (a default cfg=TrainConfig() is read as a tree, as an argument would be)
    free = free_values(func)
    if reads_objects(func, free):  # MODEL(x), Model(2.0).energy(x)
        return True
    for _, value in free:
        if indirect(value):
            return True
        if user_function(value) and needs_rewrite(value, seen):
            return True
    return False


def installed(func) -> bool:
    """Whether `func` is an installed package's or the standard library's (not the user's)."""
    path = getattr(getattr(func, "__code__", None), "co_filename", "") or ""
    module = (getattr(func, "__module__", "") or "").split(".")[0]
    return "site-packages" in path or "dist-packages" in path or module in sys.stdlib_module_names


def _builds_trees(func) -> bool:
    """Whether `func` writes a dict (``{"a": x}``, ``dict(a=x)``) or a partial in its body,
    or loops over a module-level tuple of functions: the rewrite makes those local trees and
    callees."""
    try:
        parsed = parse_function(func)
    except Exception:  # not readable here: lowering reports it
        return False
    tree = parsed.tree
    mine = not installed(func)  # a library's own try blocks and lambdas stay as they are
    if mine and (tuple_state_names(tree, parsed.resolve)
                 or passes_sequences(tree, parsed.resolve,
                                     lambda v: user_function(v) and not installed(v) or is_gradient_object(v))):
        return True  # (passed_sequences.py)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Dict, ast.DictComp)) or mine and isinstance(node, (ast.Try, ast.Lambda)):
            return True
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)) \
                and any(isinstance(e, (ast.Tuple, ast.List)) for e in node.iter.elts):
            return True  # for a, b in ((x, y), (x ** 2, z)): unrolled (display_items.py)
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name):  # for act in ACTS
            found = func.__globals__.get(node.iter.id)
            if isinstance(found, (tuple, list)) and found and all(callable(f) for f in found):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and (ast.unparse(node.func) in ("dict", "functools.partial", "partial")):
            return True
    return False


def tuple_state_names(tree: ast.AST, resolve) -> set:
    """The names `tree` assigns a tuple or list literal (or a comprehension, ``tuple(e)``, ``list(e)``)
    and passes whole to a user function: state the rewrite keeps as a tuple tree (tuple_state.py)."""
    literal = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and (
        isinstance(n.value, (ast.Tuple, ast.List)) and n.value.elts
        and not all(isinstance(e, ast.Constant) for e in n.value.elts)
        or isinstance(n.value, ast.ListComp) or converted(n.value, resolve))  # (passed_sequences.py)
        for t in n.targets if isinstance(t, ast.Name)}
    if not literal:
        return set()
    passed = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            args = {a.id for a in passed_names(list(n.args) + [k.value for k in n.keywords], resolve)}
            if set(args) & literal and user_function(resolve(n.func.id)):
                passed |= set(args) & literal
    return passed


__all__ = ["cached_of_literals", "free_values", "indirect", "installed", "needs_rewrite", "rule_call",
           "tuple_state_names", "unwrapped", "user_function"]
