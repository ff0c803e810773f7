"""Runs a gradient program one statement at a time and records what each graph node holds.

The forward sweep records every node's value per loop iteration (``("t1", (2,))``: the
third iteration), which side of each branch ran, and what the loop pushed on its stack; the
backward sweep records every term added to an adjoint, with the iteration it belongs to: the
backward loop runs the iterations in reverse, so its j-th pass is forward iteration n-1-j.
A call to another user function runs the callee's own program in a nested `Run` (a frame),
forward when called and backward when the caller's adjoint calls its pullback.

These are the statements srcdiff generates (before optimisation), so `trace` and `explain`
show what the gradient computes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from ..errors import SrcDiffError
from ..ir.nodes import Node
from ..ir.program import AdjointStmt, Assign, Break, Effect, For, If, Scatter, While
from ..ir.program import Run as UserStatement


@dataclass
class Term:
    """One term of an adjoint: from the node `origin` (None for a seed)."""

    origin: str | None
    value: object
    statement: str
    iteration: tuple = ()
    target: str = ""  # the adjoint's name in the generated code


@dataclass
class Run:
    """What one call of a function's gradient program did."""

    graph: object
    values: list = field(default_factory=list)  # (node, iteration, value) in the order computed
    terms: dict = field(default_factory=dict)  # (node, iteration) -> [Term]
    adjoints: dict = field(default_factory=dict)  # (node, iteration) -> value
    taken: dict = field(default_factory=dict)  # (branch region id, iteration) -> "then" / "else"
    counts: dict = field(default_factory=dict)  # (loop region id, outer iteration) -> iterations run
    frames: dict = field(default_factory=dict)  # (call node, iteration) -> the callee's Run
    events: list = field(default_factory=list)  # everything above, in the order it happened


class _Stop(Exception):
    pass


class Runner:
    """Interprets `program` (a `GradProgram`) for `graph`, with `namespace` as its globals and
    `frames(name)` giving (graph, program, namespace, frames) for a called adjoint ``name``."""

    def __init__(self, graph, program, namespace: dict, frames, filename: str = "<srcdiff>"):
        self.graph, self.program, self.env = graph, program, namespace
        self.frames, self.filename = frames, filename
        self.run = Run(graph)
        self.context: list[tuple[str, int]] = []  # (loop region id, forward iteration)
        self.sides: list[str] = []  # region ids of the branch sides being run
        self.loops = {r.line: r for r in graph.regions if r.kind == "loop"}
        self.branches = {r.line: r for r in graph.regions if r.kind == "branch"}
        self.primal_of = {adjoint: primal for primal, adjoint in program.adjoints.items()}

    # ---- the forward sweep ----
    def forward(self, args: dict) -> None:
        self.env.update(args)
        for name in self.graph.params:
            self.record(name, args[name])
        self.block(self.program.forward, forward=True)
        done = {name for name, iteration, _ in self.run.values if not iteration}
        for node in self.graph.nodes:  # what no gradient needs (the output's value) is not in the program
            if node.ir_node is not None and node.region is None and node.name not in done:
                self.env[node.var] = self.eval(node.ir_node.expr, node.line)
                self.record(node.name, self.env[node.var])

    def iteration(self) -> tuple:
        return tuple(i for _, i in self.context)

    def record(self, name: str, value) -> None:
        value = np.copy(value) if isinstance(value, np.ndarray) else value
        self.run.values.append((name, self.iteration(), value))
        self.run.events.append(("value", name, self.iteration(), value))

    def node_for(self, var: str, line: int | None) -> str | None:
        found = [n for n in self.graph.nodes if n.var == var and (line is None or n.line == line)] or \
            [n for n in self.graph.nodes if n.var == var]
        inside = [n for n in found if n.region in self.sides]
        exact = [n for n in found if n.name == var]
        pick = inside or exact or found
        return pick[-1].name if pick else None

    def block(self, stmts: list, forward: bool) -> None:
        for stmt in stmts:
            self.statement(stmt, forward)

    def statement(self, stmt, forward: bool) -> None:
        if isinstance(stmt, Node):
            self.env[stmt.out.name] = self.eval(stmt.expr, stmt.line)
            name = self.node_for(stmt.out.name, stmt.line)
            if name:
                self.record(name, self.env[stmt.out.name])
        elif isinstance(stmt, AdjointStmt):
            self.adjoint(stmt)
        elif isinstance(stmt, If):
            self.branch(stmt, forward)
        elif isinstance(stmt, (For, While)):
            self.loop(stmt, forward)
        elif isinstance(stmt, Break):
            raise _Stop
        elif isinstance(stmt, Assign):
            self.assign(stmt)
        elif isinstance(stmt, Effect):
            self.effect(stmt)
        elif isinstance(stmt, Scatter):
            self.scatter(stmt)
        elif isinstance(stmt, UserStatement):  # print(...), assert, a guard: run as written
            exec(compile(ast.fix_missing_locations(ast.Module([stmt.stmt], [])), self.filename, "exec"), self.env)
        else:
            raise SrcDiffError(f"trace cannot step through a {type(stmt).__name__} statement of the gradient")

    def branch(self, stmt: If, forward: bool) -> None:
        region = self.branches.get(stmt.line)
        side = "then" if self.eval(stmt.test, stmt.line) else "else"
        if region is None:
            self.block(stmt.body if side == "then" else stmt.orelse, forward)
            return
        if forward:
            self.run.taken[(region.id, self.iteration())] = side
            self.run.events.append(("branch", region.id, self.iteration(), side))
        self.sides.append(next(r.id for r in self.graph.regions if r.parent == region.id and r.kind == side))
        try:
            self.block(stmt.body if side == "then" else stmt.orelse, forward)
        finally:
            self.sides.pop()
        if forward:
            for node in self.graph.nodes:
                if node.kind == "merge" and node.region == region.id:
                    self.record(node.name, self.env.get(node.var))

    def loop(self, stmt, forward: bool) -> None:
        region = self.loops.get(stmt.line)
        outer = self.iteration()
        if forward or region is None:
            values = iter(self.eval(stmt.iter, stmt.line)) if isinstance(stmt, For) else None
            k = 0
            while True:
                if values is not None:
                    try:
                        self.env[stmt.target_name] = next(values)
                    except StopIteration:
                        break
                elif not self.eval(stmt.test, stmt.line):
                    break
                if region is not None:
                    self.context.append((region.id, k))
                    self.run.events.append(("iteration", region.id, self.iteration(), "forward"))
                    for node in self.graph.nodes:
                        if node.region == region.id and node.kind in ("carried", "counter"):
                            self.record(node.name, self.env.get(node.var))
                try:
                    self.block(stmt.body, forward)
                except _Stop:
                    break
                finally:
                    if region is not None:
                        self.context.pop()
                    k += 1
            if region is not None and forward:
                self.run.counts[(region.id, outer)] = k
                for name in region.carried:
                    self.record(name, self.env.get(self.graph[name].var))
            return
        n = self.run.counts.get((region.id, outer), 0)
        for j, value in enumerate(self.eval(stmt.iter, stmt.line)):
            self.env[stmt.target_name] = value
            self.context.append((region.id, n - 1 - j))
            self.run.events.append(("iteration", region.id, self.iteration(), "backward"))
            try:
                self.block(stmt.body, forward)
            finally:
                self.context.pop()

    def assign(self, stmt: Assign) -> None:
        expr = stmt.expr
        name = expr.func.id if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) else None
        frame = self.frames(name) if name else None
        if frame is not None:
            self.call(stmt, frame)
            return
        if _stack_call(expr, "pop"):
            self.run.events.append(("pop", _stack_name(expr), self.iteration(), list(stmt.targets)))
        value = self.eval(expr, stmt.line)
        if len(stmt.targets) == 1:
            self.env[stmt.targets[0]] = value
        else:
            self.env.update(zip(stmt.targets, value))

    def effect(self, stmt: Effect) -> None:
        if _stack_call(stmt.expr, "append"):
            saved = stmt.expr.args[0]
            names = [ast.unparse(e) for e in (saved.elts if isinstance(saved, ast.Tuple) else [saved])]
            self.run.events.append(("push", _stack_name(stmt.expr), self.iteration(), names))
        self.eval(stmt.expr, stmt.line)

    def call(self, stmt: Assign, frame) -> None:
        """``t1, t1_pullback = helper_vjp(x)``: run the callee's program as a frame."""
        graph, program, namespace, frames = frame
        args = [self.eval(a, stmt.line) for a in stmt.expr.args]
        args += [self.eval(k.value, stmt.line) for k in stmt.expr.keywords]
        names = [a.arg for a in program_args(program)]
        inner = Runner(graph, program, namespace, frames, self.filename)
        call_node = self.node_for(stmt.targets[0], stmt.line) or stmt.targets[0]
        inner.forward(dict(zip(names, args)))
        self.run.frames[(call_node, self.iteration())] = inner.run
        self.run.events.append(("frame", call_node, self.iteration(), (inner.run, 0, len(inner.run.events))))
        output = program.function.output
        value = inner.env.get(output.name) if hasattr(output, "name") else getattr(output, "value", None)
        where = self.iteration()

        def pullback(seed):
            start = len(inner.run.events)
            inner.env[program.pullback] = seed
            inner.block(program.backward, forward=False)
            self.run.events.append(("frame", call_node, where, (inner.run, start, len(inner.run.events))))
            grads = [inner.eval(r, None) for r in program.returns]
            return grads[0] if len(grads) == 1 else tuple(grads)

        self.env.update(zip(stmt.targets, (value, pullback)))
        self.record(call_node, value)

    # ---- the backward sweep ----
    def backward(self) -> None:
        self.block(self.program.backward, forward=False)

    def adjoint(self, stmt: AdjointStmt) -> None:
        term = self.eval(stmt.expr, stmt.line)
        old = self.env.get(stmt.target)
        self.env[stmt.target] = old + term if stmt.accumulate else term
        primal = self.primal_of.get(stmt.target) or (stmt.target[:-4] if stmt.target.endswith("_bar") else None)
        name = self.node_for(primal, None) if primal else None
        if name is None:
            return
        depth = len(self.graph.enclosing(name, "loop"))
        key = (name, self.iteration()[:depth])
        reads = {n.id for n in ast.walk(stmt.expr) if isinstance(n, ast.Name)}
        origin = self.origin(name, reads)
        text = f"{stmt.target} = {stmt.target} + {ast.unparse(stmt.expr)}" if stmt.accumulate else \
            f"{stmt.target} = {ast.unparse(stmt.expr)}"
        self.add_term(key, Term(origin, _copy(term), text, self.iteration(), stmt.target), self.env[stmt.target])

    def scatter(self, stmt: Scatter) -> None:
        index, term = self.eval(stmt.index, stmt.line), self.eval(stmt.expr, stmt.line)
        target = self.env[stmt.target]
        if stmt.mode == "add.at":
            np.add.at(target, index, term)
        elif stmt.mode == "add":
            target[index] += term
        else:
            target[index] = target[index] + term
        primal = self.primal_of.get(stmt.target)
        name = self.node_for(primal, None) if primal else None
        if name is not None:
            reads = {n.id for n in ast.walk(stmt.expr) if isinstance(n, ast.Name)}
            text = f"{stmt.target}[{ast.unparse(stmt.index)}] += {ast.unparse(stmt.expr)}"
            depth = len(self.graph.enclosing(name, "loop"))
            self.add_term((name, self.iteration()[:depth]), Term(self.origin(name, reads), _copy(term), text,
                                                                 self.iteration(), stmt.target), target)

    def add_term(self, key, term: Term, total) -> None:
        self.run.terms.setdefault(key, []).append(term)
        self.run.adjoints[key] = _copy(total)
        self.run.events.append(("adjoint", key[0], key[1], (term, _copy(total))))

    def origin(self, name: str, reads: set[str]) -> str | None:
        adjoint = {n.name: self.program.adjoints.get(n.var, n.var + "_bar") for n in self.graph.nodes}
        users = self.graph.users(name)
        # the two sides of a branch share their adjoints' names: the side running comes first
        users = sorted(users, key=lambda u: self.graph[u].region not in self.sides)
        for user in users:
            if adjoint[user] in reads:
                return user
        return users[0] if len(users) == 1 else (self.graph.output if self.graph.output in users else None)

    def eval(self, expr: ast.expr, line):
        code = compile(ast.fix_missing_locations(ast.Expression(expr)), self.filename, "eval")
        try:
            return eval(code, self.env)
        except SrcDiffError:
            raise
        except Exception as exc:
            where = self.graph.parsed.location(line) if line and self.graph.parsed is not None else None
            raise SrcDiffError(f"evaluating {ast.unparse(expr)} failed: {type(exc).__name__}: {exc}", where,
                               "try srcdiff.grad(f, debug=True) to find the first bad value") from exc


def program_args(program) -> list[ast.arg]:
    """The parameters of the function a program is the gradient of."""
    return [ast.arg(p.name) for p in program.function.params]


def _stack_call(expr, method: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == method \
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id.startswith("stack")


def _stack_name(expr: ast.Call) -> str:
    return expr.func.value.id


def _copy(value):
    return np.copy(value) if isinstance(value, np.ndarray) else value
