"""Recursion memoised through a dict the caller passes, read as the recursion it caches::

    def catalan(n, memo):                      def catalan(n, memo):
        if n in memo:                              val = 1.0 if n == 0 else sum(...)
            return memo[n]             ->          return val
        val = 1.0 if n == 0 else sum(...)
        memo[n] = val
        return val

A cache changes how often a value is computed, never the value, when the value depends on the key
alone: so the cache is dropped (each value is computed again: the gradient's cost grows with the
number of calls, not the number of keys).  Read so only when all of this holds, else the function
is left as written (and its ``n in memo`` refused at its line):

- the function's parameters are the key's names and the memo, without defaults (a default dict
  would outlive the call, holding values of earlier calls);
- the key is a parameter or a tuple of parameters, none of them assigned in the function;
- its body opens with ``if KEY in memo: return memo[KEY]`` and the only write is ``memo[KEY] = v``
  just before ``return v`` (or ``return memo[KEY]``);
- the memo is read nowhere else, and passed on only to the function itself, in the same place.
"""

from __future__ import annotations

import ast

from .naming import assigned_names


def drop_memo_caches(tree: ast.FunctionDef) -> None:
    """Drop, in place, the dict cache of a memoised recursion (see above)."""
    found = _memo(tree)
    if found is None:
        return
    memo, key = found
    tree.memo_parameter = memo  # checked where the function is flattened: the memo must come empty (memo_given)
    doc, body = _split_doc(tree.body)
    tree.body = doc + _stripped(body[1:], memo, key)  # without the opening `if KEY in memo: ...`


def _stripped(block: list, memo: str, key) -> list:
    """`block` without its writes into the memo (``memo[KEY] = e; return memo[KEY]`` is ``return e``),
    its inner blocks likewise."""
    out, k = [], 0
    while k < len(block):
        stmt = block[k]
        if _writes(stmt, memo, key):
            if _reads(block[k + 1].value, memo, key):  # memo[KEY] = e; return memo[KEY]
                out.append(ast.copy_location(ast.Return(stmt.value), block[k + 1]))
                k += 2
                continue
            k += 1  # memo[KEY] = v; return v
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, _stripped(inner, memo, key) or [ast.Pass()])
        out.append(stmt)
        k += 1
    return out


def _blocks(block: list):
    """`block` and every statement list inside it."""
    yield block
    for stmt in block:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner)


def _split_doc(body: list):
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[:1], body[1:]
    return [], body


def _memo(tree: ast.FunctionDef):
    """``(memo name, key)`` when `tree` is a memoised recursion of the form above, else None."""
    a = tree.args
    body = _split_doc(tree.body)[1]
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or len(body) < 3:
        return None
    first = body[0]
    if not (isinstance(first, ast.If) and not first.orelse and len(first.body) == 1
            and isinstance(first.test, ast.Compare) and len(first.test.ops) == 1
            and isinstance(first.test.ops[0], ast.In) and isinstance(first.test.comparators[0], ast.Name)):
        return None
    memo, key = first.test.comparators[0].id, first.test.left
    params = [p.arg for p in a.args]
    names = [key.id] if isinstance(key, ast.Name) else [e.id for e in key.elts] \
        if isinstance(key, ast.Tuple) and all(isinstance(e, ast.Name) for e in key.elts) else None
    if names is None or memo not in params or sorted(params) != sorted(names + [memo]) \
            or set(names) & assigned_names(tree) or memo in assigned_names(tree):
        return None
    if not (isinstance(first.body[0], ast.Return) and _reads(first.body[0].value, memo, key)):
        return None
    rest = body[1:]
    pairs = [(b, i) for b in _blocks(rest) for i, s in enumerate(b) if _writes(s, memo, key)]
    if not pairs or any(i + 1 >= len(b) or not _returns_it(b[i], b[i + 1], memo, key) for b, i in pairs):
        return None
    position = params.index(memo)
    allowed = {id(first.test.comparators[0]), id(first.body[0].value.value)}
    for b, i in pairs:
        allowed.add(id(b[i].targets[0].value))
        if _reads(b[i + 1].value, memo, key):
            allowed.add(id(b[i + 1].value.value))
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == tree.name:
            given = n.args[position] if position < len(n.args) else \
                next((k.value for k in n.keywords if k.arg == memo), None)
            if isinstance(given, ast.Name) and given.id == memo:
                allowed.add(id(given))
    if any(isinstance(n, ast.Name) and n.id == memo and id(n) not in allowed for n in ast.walk(tree)):
        return None  # the memo read or passed anywhere else: not only a cache
    if any(isinstance(n, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef)) for n in ast.walk(tree) if n is not tree):
        return None
    return memo, key


def _reads(expr, memo: str, key) -> bool:
    return isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id == memo \
        and ast.dump(expr.slice) == ast.dump(key)


def _writes(stmt, memo: str, key) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _reads(stmt.targets[0], memo, key)


def _returns_it(write: ast.Assign, ret, memo: str, key) -> bool:
    """``memo[KEY] = v`` then ``return v`` (v a name), or ``return memo[KEY]``."""
    if not isinstance(ret, ast.Return) or ret.value is None:
        return False
    if _reads(ret.value, memo, key):
        return True
    return isinstance(write.value, ast.Name) and isinstance(ret.value, ast.Name) and ret.value.id == write.value.id


def memo_given(parsed, struct) -> None:
    """Refuse a function whose memo was dropped unless it is given an empty dict (a dict with
    entries would answer from them, whatever they hold: the cache is then more than a cache)."""
    memo = getattr(parsed.tree, "memo_parameter", None)
    if memo is not None and not (struct is not None and struct.kind == "dict" and not struct.keys):
        raise parsed.error(parsed.tree, f"{parsed.name} caches its values in {memo}, which srcdiff reads as a cache "
                           f"only when the caller gives it an empty dict it builds (`{memo} = {{}}`)",
                           f"pass a new empty dict as {memo}, or use functools.lru_cache")


def memo_passed(caller, call: ast.Call, func, callee_tree, bound: dict) -> None:
    """Refuse a call passing `func` (its parsed tree `callee_tree`) its memo (`bound`: parameter -> (kind,
    AST or entry)) when the caller reads that dict anywhere but in calls of `func`: srcdiff's memo stays
    empty, Python's fills up."""
    memo = getattr(callee_tree, "memo_parameter", None)
    kind, item = bound.get(memo, (None, None))
    if memo is None or kind != "node" or isinstance(item, ast.Dict):
        return
    if not isinstance(item, ast.Name):
        raise caller.error(call, f"{func.__name__}'s memo is given as {ast.unparse(item)}", f"write {memo}={{}}")
    passed = {id(a) for n in ast.walk(caller.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and caller.resolve(n.func.id) is func for a in list(n.args) + [k.value for k in n.keywords]}
    for n in ast.walk(caller.tree):
        if isinstance(n, ast.Name) and n.id == item.id and isinstance(n.ctx, ast.Load) and id(n) not in passed:
            raise caller.error(n, f"{item.id} is {func.__name__}'s memo, which srcdiff reads as a cache and keeps "
                               "empty, so it cannot be read here (Python's holds the values cached)",
                               f"read the values by calling {func.__name__}")


def has_memo_cache(tree: ast.FunctionDef) -> bool:
    """A cheap test for drop_memo_caches."""
    body = _split_doc(tree.body)[1]
    first = body[0] if body else None
    return isinstance(first, ast.If) and isinstance(first.test, ast.Compare) and len(first.test.ops) == 1 \
        and isinstance(first.test.ops[0], ast.In)


__all__ = ["drop_memo_caches", "has_memo_cache"]
