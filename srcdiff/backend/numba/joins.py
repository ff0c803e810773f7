"""A variable that is a number before a loop and an array in it (``s = 0.0``, then ``s = s *
0.5 + np.sin(x)``): numba types each variable once, so the number becomes an array of the
same number of axes, each of length one (``np.full((1,), 0.0)``), where that changes no
value the gradient computes.  A number on one side of a branch and an array on the other
(``c1 = 0`` when a polynomial has one coefficient, ``c1 = c[1]`` otherwise) is found when
numba refuses to join the two (`unified`): it names the variable and the array's type.

An array of ones' shape broadcasts as the number does, so every elementwise operation gives
the same values, possibly with axes of length one more; a sum over everything gives the same
number.  So the promotion is made only when every value computed from the promoted one
(in the forward sweep, on the stack, and in the backward sweep: a "tainted" value) is used
by elementwise operators and NumPy functions, whole reductions, the backward sweep's
``unbroadcast(g, y)`` (which sums to `y`'s shape: untainted when `y` is) and renames, and
nothing tainted is returned.  If the loop does not run, the value after it is the number in
an array of ones' shape, used the same ways: the same values again.  Anything else (an
index, ``len``, a shape read, a call of another function) leaves the code as it is, and
numba refuses it at the function, as before.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import replace

from . import kindflow, kinds, optionals, pullback_joins, taints
from .kinds import Kind


def promote(built, made, key):
    """`built` (module.py's `NumbaModule`) with its main function's number-then-array
    variables promoted where that is exact; `built` itself when there is none."""
    if not isinstance(key, tuple):
        return built
    module = ast.parse(built.source)
    changed = False
    for func in (f for f in module.body if isinstance(f, ast.FunctionDef)):
        env = arguments_in(module, func, built.main, made, key)
        if env is not None:  # (a helper's value saved for its pullback: the proof may read both, pullback_joins.py)
            changed |= _promoted(func, env, [func, *filter(None, [pullback_joins.joined(module, func)])])
    return rewritten(built, module) if changed else built


def _promoted(func: ast.FunctionDef, env: dict, proofs: list) -> bool:
    """Whether a number-then-array variable of `func` (its arguments' kinds `env`) was promoted; `proofs`
    are the codes one of which must use it only the ways that keep values (`func`; `func` and its pullback)."""
    changed = False
    for index, stmt in enumerate(func.body):
        for _ in range(3):  # again after a promotion: a tangent's kind may read the promoted value's
            if not isinstance(stmt, (ast.For, ast.While)):
                break
            before = kindflow.block(func.body[:index], env)
            promoted = False
            for assign, ndim, dtype in _candidates(func.body[:index], stmt, before):
                kept = copy.deepcopy(assign.value)
                assign.value = _ones(ndim, assign.value, dtype)
                if _of_preset(func, assign) or any(
                        _exact(proof, assign.targets[0].id, (), _Wide(proof, env, ndim)) or
                        taints.in_order(proof, [assign], _Wide(proof, env, ndim)) for proof in proofs):
                    changed = promoted = True
                else:
                    assign.value = kept
            if not promoted:
                break
    return changed


def arguments(func: ast.FunctionDef | None, made, key) -> dict | None:
    """The kinds of `func`'s arguments (the variant's `key`: ir/shapes.py's signature), where
    `func` is the main function of `made`'s module; else None."""
    if func is None or made is None or not isinstance(key, tuple):
        return None
    names = [a.arg for a in ast.parse(made.source).body[0].args.args]
    if len(names) != len(key):
        return None
    env = {a.arg: None for a in func.args.args}
    env.update({name: kinds.of_signature(name, part) for name, part in zip(names, key)})
    return env


def arguments_in(module: ast.Module, func: ast.FunctionDef, main: str, made, key) -> dict | None:
    """The kinds of `func`'s arguments: the main function's from the signature (`arguments`); a
    helper's (a tree's wrapper calls the function as one, a pullback is one) from the main
    function's calls of it, where the main function passes it its own arguments (the kinds
    every such call agrees on; None where there is no call)."""
    top = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == main), None)
    outer = arguments(top, made, key)
    if func is top or outer is None:
        return outer
    calls = [n for n in ast.walk(top) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == func.name and not n.keywords and len(n.args) == len(func.args.args)]
    if not calls:
        return None
    env = {}
    for position, parameter in enumerate(func.args.args):
        told = {repr(kinds.of(c.args[position], outer)) for c in calls}
        env[parameter.arg] = kinds.of(calls[0].args[position], outer) if len(told) == 1 else None
    return env


def _of_preset(func: ast.FunctionDef, assign: ast.Assign) -> bool:
    """Whether `assign` is the tangent's number (``v_dot = 0.0``) of a value first assigned in a loop
    after it (``v = None`` before it in its block): the number is read only where the value is None,
    which the code never computes with (Python would raise), so zeros of ones' shape change no value."""
    name = assign.targets[0].id
    if not name.endswith("_dot"):
        return False
    block = next((b for node in ast.walk(func) for b in (getattr(node, "body", None), getattr(node, "orelse", None))
                  if isinstance(b, list) and any(s is assign for s in b)), [])
    before = block[:next((i for i, s in enumerate(block) if s is assign), 0)]
    preset = [s for s in before if isinstance(s, ast.Assign)
              and any(name[:-len("_dot")] in kindflow.bound(t) for t in s.targets)]
    return bool(preset) and isinstance(preset[-1].value, ast.Constant) and preset[-1].value.value is None


#: numba's refusal to join a number and an array in one variable
JOIN = re.compile(r"Cannot unify (.+?) and (.+?) for '([A-Za-z_][A-Za-z_0-9]*)\.\d+'")
ARRAY = re.compile(r"^array\((float64|float32), (\d+)d, \w+\)$")
NUMBER = re.compile(r"^(Literal\[(int|float)\]\(.+\)|float64|int64)$")


def unified(built, refusal: str, made=None, key=None):
    """`built` with the variable numba's `refusal` names (a number on one path, an array on
    another) promoted to an array of ones' shape in the function that makes it, where that
    is exact; None when the refusal is another, or the promotion is not exact.  `made` and
    `key` (the variant and its signature) tell the kinds of the main function's arguments."""
    found = JOIN.search(refusal)
    if not found:
        return None
    sides = [ARRAY.match(found.group(1)), ARRAY.match(found.group(2))]
    numbers = [NUMBER.match(found.group(1)), NUMBER.match(found.group(2))]
    array = sides[0] or sides[1]
    if array is None or not (numbers[0] or numbers[1]):
        return None
    name, dtype, ndim = found.group(3), {"float64": "f8", "float32": "f4"}[array.group(1)], int(array.group(2))
    module = ast.parse(built.source)
    changed, helpers = False, set()
    for func in (f for f in module.body if isinstance(f, ast.FunctionDef)):
        numbers_here = [n for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                        and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name
                        and isinstance(n.value, ast.Constant) and type(n.value.value) in (int, float)]
        if not numbers_here:
            continue
        kept = [copy.deepcopy(n.value) for n in numbers_here]
        for assign in numbers_here:
            assign.value = _ones(ndim, assign.value, dtype)
        given, skipped = arguments_in(module, func, built.main, made, key) or {}, _other_path(func, numbers_here)
        proofs = [func, *filter(None, [pullback_joins.joined(module, func)])]  # (the helper; it and its pullback)
        if all(_of_preset(func, n) for n in numbers_here) or any(
                _exact(p, name, skipped, _Wide(p, given, ndim))
                or taints.in_order(p, numbers_here, _Wide(p, given, ndim)) for p in proofs):
            changed = True
            continue
        for assign, value in zip(numbers_here, kept):
            assign.value = value
        if all(_dead(func, n) for n in numbers_here):  # a number the loop overwrites before reading it
            for assign in numbers_here:
                assign.value = ast.copy_location(ast.Constant(None), assign.value)
            helpers |= optionals.rewrite(func)
            changed = True
    if not changed:
        return None
    made_again = rewritten(built, module)
    return replace(made_again, imports={**made_again.imports, **{h: (optionals.__name__, h) for h in helpers}})


def _dead(func: ast.FunctionDef, assign: ast.Assign) -> bool:
    """Whether the number `assign` gives its name is never computed with: the next statements read
    the name only in a ``for`` over a non-empty constant range, whose body reads it only to push it
    on a stack (``stack.append((t5, u))``) before assigning it (sinkhorn's ``u = 1.0`` before ``u = a /
    (K @ v)`` in the loop).  The backward sweep pops it back only for the first iteration, whose
    adjoints never read the value the loop overwrote: it may be None, as the value first assigned in
    a loop is (optionals.py)."""
    name = assign.targets[0].id
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    block = next((b for node in ast.walk(func) for b in (getattr(node, "body", None), getattr(node, "orelse", None))
                  if isinstance(b, list) and any(s is assign for s in b)), None)
    if block is None:
        return False
    for stmt in block[block.index(assign) + 1:]:
        if isinstance(stmt, ast.For) and taints.runs(stmt):
            for inner in stmt.body:
                if isinstance(inner, ast.Assign) and any(name in kindflow.bound(t) for t in inner.targets):
                    return _pushed_only(inner.value, name, parents)
                if not _pushed_only(inner, name, parents) or any(
                        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                        for n in ast.walk(inner)):
                    return False
            return False
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)):
            return False
    return False


def _pushed_only(node: ast.AST, name: str, parents: dict) -> bool:
    """Whether every read of `name` in `node` is an item pushed on a stack (``s.append(name)``, or an
    item of the tuple pushed)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            parent = parents.get(id(n))
            call = parents.get(id(parent)) if isinstance(parent, ast.Tuple) else parent
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
                    and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords
                    and call.args[0] is (parent if isinstance(parent, ast.Tuple) else n)):
                return False
    return True


def rewritten(built, module: ast.Module):
    """`built` with the source of the edited `module` (lines still mapped to the user's, and
    NumPy imported for the ones arrays)."""
    source = ast.unparse(module)
    return replace(built, source=source, lines=_same_lines(built, module, source),
                   imports={**built.imports, "np": ("numpy", None)})


def _other_path(func: ast.FunctionDef, assigns: list) -> list:
    """The blocks that run only where `assigns` (the number's assignments) did not: the other
    side of the branch ``if t:`` that holds them all, and of every ``if t:`` / ``if not t:``
    on the same test later (the backward sweep's mirror of the branch).  What runs there
    sees the array, never the number."""
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    sides = set()
    for assign in assigns:
        branch = parents.get(id(assign))
        if not (isinstance(branch, ast.If) and isinstance(branch.test, ast.Name)):
            return []
        sides.add((branch.test.id, any(s is assign for s in branch.body)))
    if len(sides) != 1:
        return []
    (test, number_side), = sides
    if sum(1 for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == test
           and not isinstance(n.ctx, ast.Load)) != 1:
        return []  # the test is bound once: every branch on it takes the same side
    skipped = []
    for node in ast.walk(func):
        if not isinstance(node, ast.If):
            continue
        if isinstance(node.test, ast.Name) and node.test.id == test:
            skipped += node.orelse if number_side else node.body
        elif isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
                and isinstance(node.test.operand, ast.Name) and node.test.operand.id == test:
            skipped += node.body if number_side else node.orelse
    return skipped


def _same_lines(built, module: ast.Module, source: str) -> dict:
    """The new text's lines mapped as the old ones were: statements are the same, in order."""
    old = [n.lineno for n in ast.walk(ast.parse(built.source)) if isinstance(n, ast.stmt)]
    new = [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt)]
    return {b: built.lines[a] for a, b in zip(old, new) if a in built.lines}


def _candidates(before: list, loop: ast.stmt, env: dict) -> list:
    """(the assignment ``s = number`` before `loop`, the array's ndim, its dtype) for each
    name the loop makes an array of a fixed ndim and dtype."""
    last = {}
    for stmt in before:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for name in kindflow.bound(target):
                    last[name] = stmt
        else:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    last[node.id] = None
    found = []
    for name, assign in last.items():
        if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name) or not (
                isinstance(assign.value, ast.Constant) and type(assign.value.value) in (int, float)
                or isinstance(assign.value, ast.Name) and env.get(assign.value.id) == kinds.NUMBER["f8"]):
            continue  # (a number written, or a float argument: ``s = u0`` before ``s = s * x + 1.0``)
        once = kindflow.block(loop.body, _entered(loop, env))
        kind = once.get(name)
        if kind is None and name in once:  # a number and an array joined: made in an inner loop or a branch
            kind = next((k for k in _ARRAYS if kindflow.block(loop.body, _entered(loop, {**env, name: k})).get(name)
                         == k), None)
        if not isinstance(kind, Kind) or not kind.array or kind.dtype not in ("f8", "f4"):
            continue
        entry = kindflow.loop_entry(loop, _entered(loop, {**env, name: Kind(kind.ndim, kind.dtype, None)}))
        again = entry.get(name)
        if isinstance(again, Kind) and again.ndim == kind.ndim and again.dtype == kind.dtype:
            found.append((assign, kind.ndim, kind.dtype))
    return found


#: the arrays a name the loop makes one of may be (tried where a number joins it)
_ARRAYS = [Kind(ndim, dtype, None) for dtype in ("f8", "f4") for ndim in (1, 2, 3)]


def _entered(loop: ast.stmt, env: dict) -> dict:
    env = dict(env)
    if isinstance(loop, ast.For):
        for name in kindflow.bound(loop.target):
            env[name] = kinds.NUMBER["i8"] if isinstance(loop.target, ast.Name) else None
    return env


def _ones(ndim: int, value: ast.expr, dtype: str) -> ast.expr:
    """``np.full`` of ones' shape of the number `value` (a constant, or a float argument's name)."""
    shape = ast.Tuple([ast.Constant(1)] * ndim, ast.Load())
    args = [shape, ast.Constant(float(value.value)) if isinstance(value, ast.Constant) else copy.deepcopy(value)]
    if dtype == "f4":
        args.append(ast.Attribute(ast.Name("np", ast.Load()), "float32", ast.Load()))
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "full", ast.Load()), args, [])


class _Wide:
    """Which operands are arrays of at least `ndim` axes where a statement reads them (the
    kinds of kindflow.py before each statement of `func`, the arguments' kinds `env`).

    A promoted value (`ndim` axes of length one, or what it became) times such an array has
    the shape and the values the number's product has: ones' axes broadcast away against
    axes the array already has (``total + S`` with ``total`` a vector and ``S = 1.0`` before
    the loop; ``S * np.exp(z)`` in it)."""

    def __init__(self, func: ast.FunctionDef, env: dict, ndim: int):
        self.ndim, self.before = ndim, {}
        self._walk(func.body, {**{a.arg: None for a in func.args.args}, **env})

    def _walk(self, stmts: list, env: dict) -> None:
        for stmt in stmts:
            self.before[id(stmt)] = env
            if isinstance(stmt, (ast.For, ast.While)):
                inner = dict(env)
                if isinstance(stmt, ast.For):
                    inner.update(_entered(stmt, {}))
                self._walk(stmt.body, kindflow.loop_entry(stmt, inner))
            elif isinstance(stmt, ast.If):
                self._walk(stmt.body, env)
                self._walk(stmt.orelse, env)
            env = kindflow.effect(stmt, env)

    def covers(self, operand: ast.expr, statement: ast.stmt | None) -> bool:
        env = self.before.get(id(statement))
        kind = kinds.of(operand, env) if env is not None else None
        return isinstance(kind, Kind) and kind.ndim >= max(self.ndim, 1)


def _exact(func: ast.FunctionDef, name: str, skipped: list = (), wide: _Wide | None = None) -> bool:
    """Whether every value computed from `name` is used only the ways that keep values (in
    the statements that may run after it: not the `skipped` ones); `wide` tells which
    untainted operands make a tainted one's product untainted."""
    tainted, piled = {name}, set()  # piled: (list, position in the tuples appended to it)
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    ignored = {id(n) for stmt in skipped for n in ast.walk(stmt)}
    for _ in range(20):
        grown, more = set(tainted), set(piled)
        for node in ast.walk(func):
            if id(node) in ignored:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in tainted:
                result = taints.use(node, parents, tainted, wide)
                if result is False:
                    return False
                grown.update(result[0])
                more.update(result[1])
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                stack = kindflow.stack_of(node.value)
                if stack is not None and any(s == stack for s, _ in more):
                    target = node.targets[0]
                    if isinstance(target, ast.Name) and (stack, None) in more:
                        grown.add(target.id)  # a value pushed alone, popped alone
                        continue
                    if not isinstance(target, ast.Tuple):
                        return False
                    grown.update(n for i, e in enumerate(target.elts) if (stack, i) in more
                                 for n in kindflow.bound(e))
        if grown == tainted and more == piled:
            return True
        tainted, piled = grown, more
    return False
