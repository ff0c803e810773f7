"""Which line of the printed gradient did each step of a traced run execute?

`srcdiff.tools.run` steps through the gradient program as srcdiff builds it, before the
optimizer merges, inlines and reorders its statements; the page and the trace table show the
optimized source.  This module ties the two together: each recorded event (a node's value,
a term added to an adjoint, a push or pop of a loop's stack, a branch taken) gets the
generated line that does that work.

The match is by what a line assigns and what it reads: a value's line assigns the node's
variable; a term's line assigns (``=`` or ``+=``, whole or indexed) the adjoint it adds to,
and among several such lines the one reading most of what the term reads wins, so the two
terms of a value used twice land on their own lines.  Ties go to the first line at or after
the previous match, wrapping round (a loop's body runs again).  A value or adjoint the
optimizer inlined into another line has no line of its own: it is credited to the line of
the next step that reads it, where its expression now sits.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    """One statement of the generated function: where it is, what it writes and reads."""

    line: int
    text: str  # the statement's source, on one line
    kind: str  # "assign", "push", "pop" or "branch"
    targets: frozenset[str]
    reads: frozenset[str]
    backward: bool
    added: str = ""  # what it assigns or adds (``ast.dump``): ``y`` of ``x_bar = x_bar + y``
    path: tuple = ()  # the ``if`` statements it is inside: (line of the if, "then" or "else")


def statements(source: str) -> tuple[int, list[Statement]]:
    """The def line of the gradient function in `source` and its statements, in order."""
    if not source.strip():
        return 0, []
    tree = ast.parse(source)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not functions:
        return 0, []
    func = functions[-1]  # callee adjoints, when printed in the same listing, come first
    lines = source.splitlines()
    start = next((i for i in range(func.lineno, func.end_lineno or len(lines))
                  if lines[i - 1].strip() == "# backward"), (func.end_lineno or len(lines)) + 1)
    out: list[Statement] = []

    def add(node: ast.AST, kind: str, targets, reads) -> None:
        last = node.lineno if isinstance(node, (ast.For, ast.AsyncFor, ast.If)) else node.end_lineno or node.lineno
        text = " ".join(line.strip() for line in lines[node.lineno - 1:last])
        out.append(Statement(node.lineno, text, kind, frozenset(targets), frozenset(reads), node.lineno > start,
                             _added(node), path))

    path: tuple = ()

    def visit(body: list[ast.stmt]) -> None:
        nonlocal path
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                kind = "pop" if _stack_call(stmt.value, "pop") else "assign"
                targets = {n for t in stmt.targets for n in _written(t)}
                add(stmt, kind, targets, _names(stmt.value) | _index_reads(stmt.targets))
            elif isinstance(stmt, ast.AugAssign):
                add(stmt, "assign", _written(stmt.target), _names(stmt.value) | _index_reads([stmt.target]))
            elif isinstance(stmt, ast.Expr) and _stack_call(stmt.value, "append"):
                add(stmt, "push", {stmt.value.func.value.id}, _names(stmt.value))
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                add(stmt, "assign", _written(stmt.target), _names(stmt.iter))
                stack = _reversed_stack(stmt.iter)
                if stack:  # ``for x_1 in reversed(stack):`` pops an iteration's values each time round
                    add(stmt, "pop", {stack}, {stack})
                visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.While):
                visit(stmt.body)
            elif isinstance(stmt, ast.If):
                add(stmt, "branch", set(), _names(stmt.test))
                outer = path
                for side, inner in (("then", stmt.body), ("else", stmt.orelse)):
                    path = outer + ((stmt.lineno, side),)
                    visit(inner)
                path = outer
            elif isinstance(stmt, (ast.With, ast.Try)):
                visit(stmt.body)

    visit(func.body)
    return func.lineno, out


def locate(events: list, graph, source: str) -> dict[int, int]:
    """The generated line of each of `events` (by index; 0 where none), for the run of
    `graph` whose optimized gradient is `source`.  A frame (the events of a call to another
    user function) gets the line that calls it: the callee's own lines are not in `source`."""
    def_line, stmts = statements(source)
    found: dict[int, int] = {}
    if not stmts:
        return found
    names = {n.name for n in graph.nodes}
    params = set(graph.params)
    assigned = {t for s in stmts for t in s.targets}
    cursor = {False: 0, True: min((s.line for s in stmts if s.backward), default=0)}
    uses: dict[str, set[str]] = {}  # an adjoint's name -> what the terms adding to it read
    for kind, _, _, payload in events:
        if kind == "adjoint":
            uses.setdefault(payload[0].target, set()).update(_statement_reads(payload[0]))

    taken: dict[int, str] = {}  # generated forward ``if`` line -> the side that ran last

    def ran(s: Statement) -> bool:
        return all(taken.get(line, side) == side for line, side in s.path)

    def pick(candidates: list[Statement], backward: bool, score=lambda s: 0) -> int:
        candidates = [s for s in candidates if backward or ran(s)]
        if not candidates:
            return 0
        at = cursor[backward]
        best = max(candidates, key=lambda s: (score(s), s.line >= at, -s.line))
        cursor[backward] = best.line
        return best.line

    for index, (kind, name, _, payload) in enumerate(events):
        if kind == "value" and name in params:
            found[index] = def_line
        elif kind == "value" and name in names:
            var, expr = graph[name].var, _dump(graph[name].expr)
            found[index] = pick([s for s in stmts if not s.backward and s.kind == "assign" and var in s.targets],
                                False, lambda s, expr=expr: s.added == expr)
        elif kind == "branch":
            found[index] = pick([s for s in stmts if not s.backward and s.kind == "branch"], False)
            if found[index]:
                taken[found[index]] = payload
        elif kind in ("push", "pop"):
            mine = [s for s in stmts if s.kind == kind and s.backward == (kind == "pop")]
            found[index] = pick([s for s in mine if name in s.targets] or mine, kind == "pop")
        elif kind == "frame" and name in names:  # a call to a user function: the line calling it
            var = graph[name].var
            call = [s for s in stmts if not s.backward and s.kind == "assign" and var in s.targets]
            if payload[1] == 0:  # its forward sweep
                found[index] = pick(call, False)
            else:  # its backward sweep, run by the pullback the forward call returned
                pullbacks = {t for s in call for t in s.targets} - {var}
                found[index] = pick([s for s in stmts if s.backward and s.reads & pullbacks], True)
        elif kind == "adjoint":
            term = payload[0]
            reads, added = _expanded(_statement_reads(term), uses, assigned), _dump(term.statement)
            found[index] = pick([s for s in stmts if s.backward and s.kind == "assign" and term.target in s.targets],
                                True, lambda s, reads=reads, added=added: (s.added == added, len(reads & s.reads)))
    _inlined(events, graph, found)
    _merged(events, graph, found, stmts, assigned)
    return found


def term_lines(events: list, graph, source: str) -> dict[int, tuple[int, str]]:
    """For each term recorded in `events` (by ``id``), its generated line and that line's text."""
    found = locate(events, graph, source)
    texts = {s.line: s.text for s in statements(source)[1]}
    return {id(payload[0]): (found[i], texts.get(found[i], "")) for i, (kind, _, _, payload) in enumerate(events)
            if kind == "adjoint" and found.get(i)}


def _inlined(events: list, graph, found: dict[int, int]) -> None:
    """A value or adjoint with no line of its own gets the line of the next event reading it."""
    names = {n.name for n in graph.nodes}
    for index in range(len(events) - 1, -1, -1):
        kind, name, _, payload = events[index]
        if found.get(index) or kind not in ("value", "adjoint"):
            continue
        for later in range(index + 1, len(events)):
            kind2, name2, _, payload2 = events[later]
            if kind == "value" and kind2 == "value" and name2 in names and name in graph[name2].inputs:
                found[index] = found.get(later, 0)
                break
            if kind == "adjoint" and kind2 == "adjoint" and payload[0].target in _statement_reads(payload2[0]):
                found[index] = found.get(later, 0)
                break
            if kind == "adjoint" and kind2 == "frame" and name2 == name and payload2[1] > 0:
                found[index] = found.get(later, 0)  # a call's adjoint is the seed of its pullback
                break
            if kind2 == "value" and name2 == name:
                break  # a new value of the same node: this one was never read


def _merged(events: list, graph, found: dict[int, int], stmts: list[Statement], assigned: set[str]) -> None:
    """A value still without a line, because the optimizer wrote it straight into another name
    (a loop's next value into the loop's variable: ``x_1 = x_1 * 0.5 + np.sin(x_1)``), and the
    values inlined there, get the forward line reading all that it reads, inlined inputs seen
    through: the first at or after the line of the step before it."""
    names = {n.name for n in graph.nodes}

    def reads(name: str, seen: frozenset) -> set[str]:
        out: set[str] = set()
        for i in graph[name].inputs:
            if i in names and graph[i].var not in assigned and i not in seen:
                out |= reads(i, seen | {i})
            else:
                out.add(graph[i].var if i in names else i)
        return out

    previous = 0
    for index, (kind, name, _, _) in enumerate(events):
        if not found.get(index) and kind == "value" and name in names:
            needed = reads(name, frozenset({name}))
            lines = [s.line for s in stmts if not s.backward and s.kind == "assign" and needed and needed <= s.reads]
            found[index] = next((line for line in lines if line >= previous), lines[0] if lines else 0)
        previous = found.get(index) or previous


def _expanded(reads: set[str], uses: dict[str, set[str]], assigned: set[str]) -> set[str]:
    """`reads`, plus what the optimizer inlined: an adjoint no generated line assigns is
    replaced by what its own terms read (transitively)."""
    out, todo = set(reads), list(reads)
    while todo:
        name = todo.pop()
        if name in assigned or name not in uses:
            continue
        for read in uses[name] - out:
            out.add(read)
            todo.append(read)
    return out


def _statement_reads(term) -> set[str]:
    try:
        tree = ast.parse(term.statement)
    except SyntaxError:
        return set()
    stmt = tree.body[0] if tree.body else None
    value = getattr(stmt, "value", None)
    return (_names(value) if value is not None else set()) - {term.target}


def _added(stmt: ast.AST) -> str:
    """The expression a statement assigns, or adds to its target (``x_bar = x_bar + e``,
    ``x_bar += e``: ``e``), as ``ast.dump``; "" for other statements."""
    if isinstance(stmt, ast.AugAssign):
        return ast.dump(stmt.value)
    if not isinstance(stmt, ast.Assign):
        return ""
    value = stmt.value
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and len(stmt.targets) == 1 \
            and ast.dump(value.left) == ast.dump(stmt.targets[0], include_attributes=False).replace("Store", "Load"):
        value = value.right
    return ast.dump(value)


def _dump(text: str) -> str:
    """`_added` of a statement's or an expression's text."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ""
    if len(tree.body) != 1:
        return ""
    stmt = tree.body[0]
    return ast.dump(stmt.value) if isinstance(stmt, ast.Expr) else _added(stmt)


def _written(target: ast.expr) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _written(e)}
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        return _written(target.value)
    if isinstance(target, ast.Starred):
        return _written(target.value)
    return set()


def _index_reads(targets: list[ast.expr]) -> set[str]:
    return {n for t in targets if isinstance(t, ast.Subscript) for n in _names(t.slice)}


def _names(expr: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} if expr is not None else set()


def _reversed_stack(expr) -> str | None:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "reversed" \
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name) and expr.args[0].id.startswith("stack"):
        return expr.args[0].id
    return None


def _stack_call(expr, method: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == method \
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id.startswith("stack")
