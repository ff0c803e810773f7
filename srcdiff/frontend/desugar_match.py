"""``match`` on values as the ``if``/``elif`` chain it stands for (desugar.py)::

    match name:                     if name == "relu":
        case "relu":                    ...
            ...              becomes elif name == "tanh" or name == "gelu":
        case "tanh" | "gelu":           ...
            ...                     else:
        case _:                         ...
            ...

A case is a literal or a dotted constant (``==``), ``None``/``True``/``False`` (``is``), an
``|`` of those, the wildcard ``_``, or a capture (``case other:``, bound before its body), each
with an optional guard.  A mapping pattern of constant keys (``case {"kind": "huber", "delta": d}:``)
tests that each key is in the subject, then its own pattern on ``subject[key]`` (a capture binds
that item).  (Python also tests that the subject is a Mapping; the chain leaves that out, and a
string or array subject, which has no such keys, makes the chain raise or not match -- the
configuration dicts this is for are matched as Python matches them.)  A subject that is not a
plain read (a call) is computed once, into a name of its own, before the chain.  A class pattern
(``case Gauss(mu=m, sigma=s):``, ``case Point(x, y):`` by the class's ``__match_args__``, ``case float(v):``)
tests ``isinstance(subject, Gauss)``, then each attribute's own pattern (a capture binds
``subject.mu``): on an object built in the function the rewrite decides it (branch_tails.py).  Sequence
patterns and ``**rest`` are left as written: lowering refuses them at their line.
"""

from __future__ import annotations

import ast
import copy

#: the test of a pattern that always matches
ALWAYS = object()


def match_as_if(node: ast.Match, namer, resolve=None) -> list[ast.stmt] | None:
    """The statements `node` stands for, or None when a pattern is not one of the kinds above; `resolve`
    gives the class a class pattern names (for its ``__match_args__``)."""
    before: list[ast.stmt] = []
    subject = node.subject
    if not _plain_read(subject):
        name = namer.fresh("matched")
        before = [ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], subject), node)]
        subject = ast.copy_location(ast.Name(name, ast.Load()), node.subject)
    branches = []
    for case in node.cases:
        found = _test(case.pattern, subject, resolve)
        if found is None:
            return None
        test, bound = found
        if case.guard is not None:  # Python binds the capture before it tests the guard
            guard = _with_bindings(case.guard, bound, subject)
            test = guard if test is ALWAYS else ast.BoolOp(ast.And(), [test, guard])
        body = [ast.copy_location(ast.Assign([ast.Name(n, ast.Store())], copy.deepcopy(e)), case.pattern)
                for n, e in bound] + case.body
        branches.append((test, body, case.pattern))
    chain: list[ast.stmt] = []
    for test, body, where in reversed(branches):
        if test is ALWAYS:
            chain = body
        else:
            chain = [ast.copy_location(ast.If(_located(test, where), body, chain), where)]
    return before + chain


def _plain_read(e: ast.expr) -> bool:
    """A name, an attribute or a subscript by a constant of one: read again with no effect."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Attribute):
        return _plain_read(e.value)
    return isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and _plain_read(e.value)


def _test(pattern: ast.pattern, subject: ast.expr, resolve=None):
    """``(test, [(name bound, the value it reads)])`` for `pattern` matched against `subject`, or None."""
    if isinstance(pattern, ast.MatchValue):
        return ast.Compare(copy.deepcopy(subject), [ast.Eq()], [pattern.value]), []
    if isinstance(pattern, ast.MatchSingleton):
        return ast.Compare(copy.deepcopy(subject), [ast.Is()], [ast.Constant(pattern.value)]), []
    if isinstance(pattern, ast.MatchAs):
        inner = (ALWAYS, []) if pattern.pattern is None else _test(pattern.pattern, subject, resolve)
        if inner is None:
            return None
        return inner[0], inner[1] + ([(pattern.name, subject)] if pattern.name else [])
    if isinstance(pattern, ast.MatchOr):
        tests = []
        for alternative in pattern.patterns:
            found = _test(alternative, subject, resolve)
            if found is None or found[1]:  # (a capture in an alternative: left as written)
                return None
            if found[0] is ALWAYS:
                return ALWAYS, []
            tests.append(found[0])
        return ast.BoolOp(ast.Or(), tests), []
    if isinstance(pattern, ast.MatchMapping) and pattern.rest is None \
            and all(isinstance(k, ast.Constant) and isinstance(k.value, (str, int)) for k in pattern.keys):
        tests = [ast.Compare(copy.deepcopy(k), [ast.In()], [copy.deepcopy(subject)]) for k in pattern.keys]
        bound = []
        for key, inner in zip(pattern.keys, pattern.patterns):  # (Python tests every key first, then the values)
            found = _test(inner, ast.Subscript(copy.deepcopy(subject), copy.deepcopy(key), ast.Load()), resolve)
            if found is None:
                return None
            tests += [] if found[0] is ALWAYS else [found[0]]
            bound += found[1]
        return (ast.BoolOp(ast.And(), tests) if len(tests) > 1 else tests[0]) if tests else ALWAYS, bound
    if isinstance(pattern, ast.MatchClass):
        return _class_test(pattern, subject, resolve)
    return None


#: the builtins whose one positional pattern matches the subject itself (``case float(v):``)
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def _class_test(pattern: ast.MatchClass, subject: ast.expr, resolve):
    """``case Gauss(mu=m, sigma=s):``, ``case Point(x, y)`` (by the class's ``__match_args__``): the test
    ``isinstance(subject, Gauss)`` and then each attribute's own pattern, in order; None when the positional
    patterns' attributes are not known here."""
    pairs = list(zip(pattern.kwd_attrs, pattern.kwd_patterns))
    if pattern.patterns:
        cls = resolve(pattern.cls) if resolve is not None else None
        names = getattr(cls, "__match_args__", None) if isinstance(cls, type) else None
        if cls in _SELF_MATCHING and len(pattern.patterns) == 1:
            pairs = [(None, pattern.patterns[0])] + pairs
        elif isinstance(names, tuple) and len(names) >= len(pattern.patterns) \
                and all(isinstance(n, str) for n in names):
            pairs = list(zip(names, pattern.patterns)) + pairs
        else:
            return None
    tests = [ast.Call(ast.Name("isinstance", ast.Load()), [copy.deepcopy(subject), copy.deepcopy(pattern.cls)], [])]
    bound = []
    for attr, inner in pairs:
        read = subject if attr is None else ast.Attribute(copy.deepcopy(subject), attr, ast.Load())
        found = _test(inner, read, resolve)
        if found is None:
            return None
        tests += [] if found[0] is ALWAYS else [found[0]]
        bound += found[1]
    return (ast.BoolOp(ast.And(), tests) if len(tests) > 1 else tests[0]), bound


def _with_bindings(guard: ast.expr, bound: list, subject: ast.expr) -> ast.expr:
    """The guard, a capture it reads replaced by the value it binds (the subject, or an item of
    it): the chain tests it before the body binds the capture."""
    return _Substitute(dict(bound)).visit(copy.deepcopy(guard)) if bound else guard


class _Substitute(ast.NodeTransformer):
    def __init__(self, bound: dict):
        self.bound = bound

    def visit_Name(self, node: ast.Name):
        if node.id in self.bound and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.bound[node.id]), node)
        return node


def _located(test: ast.expr, where: ast.AST) -> ast.expr:
    for n in ast.walk(test):
        if not hasattr(n, "lineno"):
            ast.copy_location(n, where)
    return test
