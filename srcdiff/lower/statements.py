"""Lowering of statements: assignments, and control flow into structured regions.

Control flow never unrolls.  An ``if`` becomes a `Branch` whose sides are lowered into
blocks of their own; where the sides assign a name differently, a `Merge` joins them into
one new value.  A loop becomes a `Loop` whose body is lowered once; names the body
reassigns and that live across iterations become `Carry` values.

``break``, ``continue`` and ``return`` are lowered without jumps: the statements after an
``if`` that may leave the current block are moved into the side that falls through (so a
``continue`` simply ends its side), ``break`` sets a flag the loop tests at the end of the
iteration, and ``return`` records the returned value (and, inside a loop, breaks out and
skips the rest of the function).  The flags live in `env` under names no user can write.
"""

from __future__ import annotations

import ast
import builtins
import copy
import operator
from collections import Counter

from ..ir.nodes import Block, Branch, Carry, Const, Loop, Merge, Node, Operand, Var, operand_ast
from ..rules.structural import APPEND, COPY, setitem_rule
from .writes import InPlaceUpdate, Sharing

RETURN, BREAK, DONE = "<return>", "<break>", "<done>"
_DEFAULTS = {RETURN: Const(None), BREAK: Const(False), DONE: Const(False)}
_AUGMENTED = {ast.Add: (operator.add, "+="), ast.Sub: (operator.sub, "-="),
              ast.Mult: (operator.mul, "*="), ast.Div: (operator.truediv, "/="),
              ast.Pow: (operator.pow, "**="), ast.MatMult: (operator.matmul, "@=")}


class StatementMixin:
    """The statement half of `lower.Lowerer`."""

    # ---- statement lists ----

    def statements(self, stmts: list[ast.stmt]) -> None:
        """Lower a statement list; an ``if`` that may leave it takes the rest into its sides."""
        for k, stmt in enumerate(stmts):
            if self.terminated:
                raise self.error(stmt, "this code is never run (it follows a `return`, "
                                 "`break` or `continue`)", "remove it")
            self.line = stmt.lineno
            rest = stmts[k + 1:]
            if isinstance(stmt, ast.If) and (may_exit(stmt.body) or may_exit(stmt.orelse)):
                body = stmt.body + ([] if always_exits(stmt.body) else rest)
                orelse = stmt.orelse + ([] if always_exits(stmt.orelse) else rest)
                test = self.condition(stmt.test)
                self.branch(test, lambda b=body: self.statements(b), lambda o=orelse: self.statements(o),
                            stmt.lineno)
                return
            self.statement(stmt)
            if isinstance(stmt, (ast.For, ast.While)) and may_return(stmt.body) \
                    and (rest or self.loops):
                self.after_returning_loop(rest, stmt.lineno)
                return

    def statement(self, stmt: ast.stmt) -> None:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            raise self.unsupported(stmt)
        method(stmt)

    def after_returning_loop(self, rest: list[ast.stmt], line: int) -> None:
        """The rest of the block runs only if the loop did not `return`."""

        def returned():
            if self.loops:
                self.env[BREAK] = Const(True)
            self.terminated = True

        self.branch(self.env[DONE], returned, lambda: self.statements(rest), line)

    # ---- simple statements ----

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        if isinstance(stmt.value, ast.Lambda):
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                raise self.error(stmt, "a lambda can only be assigned to one plain name")
            name = stmt.targets[0].id
            self.lambdas[name] = stmt.value
            self.env.pop(name, None)
            return
        for target in stmt.targets:
            self.assign(target, stmt.value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, stmt.value)

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        if isinstance(stmt.target, ast.Subscript) and isinstance(stmt.target.value, ast.Name):
            read = ast.copy_location(ast.Subscript(stmt.target.value, stmt.target.slice, ast.Load()), stmt.target)
            value = ast.copy_location(ast.BinOp(read, stmt.op, stmt.value), stmt)
            self.assign(stmt.target, value)  # out[i] += v is out[i] = out[i] + v
            return
        if not isinstance(stmt.target, ast.Name):
            raise self.error(stmt, f"in-place update of {ast.unparse(stmt.target)} is not "
                             "supported: it would overwrite a value the gradient needs",
                             "build the result in a new variable, or collect values in a "
                             "list and use np.stack")
        load = ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt.target)
        value = ast.copy_location(ast.BinOp(load, stmt.op, stmt.value), stmt)
        if type(stmt.op) not in _AUGMENTED:
            self.assign(stmt.target, value)  # refused there, as any such operator is
            return
        # lowered as the new value `name op v`; where NumPy would instead update an array
        # others see, the node says who, and is refused per signature (writes.py)
        name = stmt.target.id
        func, spelled = _AUGMENTED[type(stmt.op)]
        shared_with, argument = self.seen_elsewhere(name, self.sharing.of(self.env.get(name, Const(None))))
        x, y = self.expr(load), self.expr(stmt.value)
        expr = ast.BinOp(operand_ast(x), stmt.op, operand_ast(y))
        self.lambdas.pop(name, None)
        self.env[name] = self.emit_rule(self.table.lookup(func), (x, y), {}, expr, name,
                                        kind=InPlaceUpdate, name=name, op=spelled,
                                        shared_with=shared_with, argument=argument)
        for info in self.loops:
            info["in place"].append(self.nodes[-1])

    def seen_elsewhere(self, name: str, mine: frozenset[int]) -> tuple[str | None, str | None]:
        """Who else may see `name`'s array (whose memory is `mine`): another name sharing it
        (an alias, a view, a list holding it), and the parameter whose array it may be."""
        value = self.env.get(name)
        shared_with = next((self.display(key) for key, other in self.env.items() if key != name and (
            isinstance(value, Var) and other == value or mine & self.sharing.of(other))), None)
        argument = next((self.sharing.arguments[t] for t in sorted(mine) if t in self.sharing.arguments), None)
        return shared_with, argument

    def stmt_Return(self, stmt: ast.Return) -> None:
        if stmt.value is None:
            raise self.error(stmt, "`return` without a value", "return the scalar to differentiate")
        self.return_line = stmt.lineno
        self.env[RETURN] = self.expr(stmt.value, target=self.parsed.name)
        if self.loops:
            self.env[DONE] = Const(True)
            self.env[BREAK] = Const(True)
        self.terminated = True

    def stmt_Break(self, stmt: ast.Break) -> None:
        self.env[BREAK] = Const(True)
        self.terminated = True

    def stmt_Continue(self, stmt: ast.Continue) -> None:
        self.terminated = True

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        value = stmt.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a docstring
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "append" and isinstance(value.func.value, ast.Name):
            self.append(value)
            return
        raise self.error(stmt, "an expression statement has no effect on the gradient",
                         "remove it, or assign its value to a name")

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.lambdas.pop(target.id, None)
            self.env[target.id] = self.expr(value, target=target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(t, ast.Starred) for t in target.elts):
                raise self.error(target, "starred assignment is not supported", "unpack by index")
            if isinstance(value, (ast.Tuple, ast.List)):
                if len(target.elts) != len(value.elts):
                    raise self.error(target, "cannot unpack: the two sides have different lengths")
                operands = [self.expr(v) for v in value.elts]  # all right-hand sides first
            else:
                operands = self.unpack(value, len(target.elts),
                                       [t.id if isinstance(t, ast.Name) else None for t in target.elts])
            for t, operand in zip(target.elts, operands):
                if not isinstance(t, ast.Name):
                    raise self.error(t, f"assignment to {ast.unparse(t)} is not supported",
                                     "unpack into plain local names")
                self.lambdas.pop(t.id, None)
                self.env[t.id] = operand
        elif isinstance(target, ast.Subscript):
            self.assign_item(target, value)
        else:
            raise self.error(target, f"assignment to {ast.unparse(target)} is not supported",
                             "assign to a plain local name")

    def append(self, call: ast.Call) -> None:
        """``xs.append(v)`` on a list built in this function: the list keeps its name."""
        name = call.func.value.id
        lst = self.env.get(name)
        if not (isinstance(lst, Var) and lst.name in self.lists):
            raise self.error(call, f"{name}.append(...) works only on a list this function builds "
                             "(xs = [] ...)", "build a new list in the function")
        if len(call.args) != 1 or call.keywords:
            raise self.error(call, "append takes one value")
        if lst.name in self.frozen_lists:
            raise self.error(call, f"appending to {name} after it was read is not supported",
                             "finish building the list before using it")
        for info in self.loops:
            info["appended"].add(lst.name)
        value = self.expr(call.args[0])
        expr = ast.Call(ast.Attribute(ast.Name(lst.name, ast.Load()), "append", ast.Load()),
                        [operand_ast(value)], [])
        self.emit_rule(APPEND, (lst, value), {}, expr, None, out=lst)

    # ---- if / else ----

    def stmt_If(self, stmt: ast.If) -> None:
        test = self.condition(stmt.test)
        self.branch(test, lambda: self.statements(stmt.body), lambda: self.statements(stmt.orelse),
                    stmt.lineno)

    def branch(self, test: Operand, lower_body, lower_orelse, line: int) -> None:
        """Lower both sides of ``if test`` into blocks and merge what they assign."""
        if isinstance(test, Const):  # a literal test: only one side can run
            (lower_body if test.value else lower_orelse)()
            return
        env0, outer = dict(self.env), self.block
        sides = []
        for lower_side in (lower_body, lower_orelse):
            self.block, self.env, self.terminated = Block(), dict(env0), False
            lower_side()
            sides.append((self.block, self.env, self.terminated))
        self.block, self.env = outer, {}
        (body, body_env, body_done), (orelse, orelse_env, orelse_done) = sides
        merges = []
        for key in dict.fromkeys(list(body_env) + list(orelse_env)):
            b = body_env.get(key, _DEFAULTS.get(key, Const(None)))
            o = orelse_env.get(key, _DEFAULTS.get(key, Const(None)))
            if same(b, o):
                self.env[key] = b
                continue
            # after this, a node on each side assigns `out` (renamed, or a copy)
            out = self.merged(key, [(b, body, body_env), (o, orelse, orelse_env)], line)
            self.sharing.join(out.name, b, o)
            merges.append(Merge(out, b, o))
            self.env[key] = out
        self.nodes.append(Branch(test, body, orelse, merges, line))
        self.terminated = body_done and orelse_done

    def merged(self, key: str, sides, line: int) -> Var:
        """The value after the branch: a side's own final value, renamed on the other side."""
        out = None
        for value, block, env in sides:
            if self.renamable(value, block, env):
                out = value
                break
        if out is None:
            out = Var(self.namer.version(self.display(key)))
        for value, block, env in sides:
            if value == out:
                continue
            if self.renamable(value, block, env):
                rename(block, value, out)
            else:
                block.nodes.append(Node(self.new_id(), COPY, (value,), {}, out, operand_ast(value), line))
        return out

    # ---- writes into fresh arrays (writes.py) ----

    @property
    def sharing(self) -> Sharing:
        if not hasattr(self, "_sharing"):
            self._sharing = Sharing()
            args = self.parsed.tree.args
            for a in args.posonlyargs + args.args + args.kwonlyargs:
                self._sharing.argument(a.arg)  # a parameter's Var is named as the user named it
        return self._sharing

    def note_sharing(self, node: Node) -> None:
        self.sharing.note(node)

    def assign_item(self, target: ast.Subscript, value: ast.expr) -> None:
        """``out[index] = value`` into a fresh array: ``out_1 = set_item(out, index, value)``."""
        base = target.value
        spelled = ast.unparse(target)
        how = ("create the array in this function (np.zeros(...), np.empty_like(x), x.copy()) "
               "and write into that, or collect the values in a list and use np.stack")
        if not isinstance(base, ast.Name) or not isinstance(self.env.get(base.id), Var):
            raise self.error(target, f"writing into {spelled} is not supported: only a local "
                             "array this function creates can be written by index", how)
        name, v = base.id, self.expr(value)
        old = self.env[name]
        token = self.sharing.owner_of(old)
        if token is None:
            args = self.parsed.tree.args
            params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            what = "an argument" if old.name in params else "not known to be a new array"
            raise self.error(target, f"writing into {spelled} is not supported: {name} is {what}, "
                             "and an in-place write would change a value the caller or the "
                             "gradient still needs", how)
        for key, operand in self.env.items():
            if key != name and token in self.sharing.of(operand):
                raise self.error(target, f"writing into {spelled} is not supported: "
                                 f"{self.display(key)} shares its memory with {name}, and the "
                                 f"write would change {self.display(key)} too",
                                 f"make {self.display(key)} a copy ({name}.copy()), or write "
                                 "before it is taken")
        inputs, kinds, parts = self.index_parts(target)
        if any(kind == "newaxis" for kind, _ in kinds):
            raise self.error(target, f"writing through None in {spelled} is not supported",
                             "index the array without np.newaxis")
        ints = -1 if any(kind == "slice" for kind, _ in kinds) else len(kinds)
        text = _placeholders(parts)
        index = parts[0] if len(parts) == 1 and not isinstance(target.slice, ast.Tuple) \
            else ast.Tuple(parts, ast.Load())
        if any(isinstance(p, ast.Slice) for p in parts):
            index = ast.Subscript(ast.Attribute(ast.Name("np", ast.Load()), "s_", ast.Load()), index, ast.Load())
        expr = ast.Call(ast.Name("set_item", ast.Load()), [operand_ast(old), index, operand_ast(v)], [])
        rule = setitem_rule(len(inputs) - 1)
        out = self.emit_rule(rule, (old, v) + tuple(inputs[1:]), {"index": text, "ints": ints}, expr, name)
        for info in self.loops:
            info["written"].add(token)
        self.env[name] = out

    def renamable(self, value: Operand, block: Block, env: dict) -> bool:
        return isinstance(value, Var) and value.name not in self.lists \
            and any(isinstance(n, Node) and n.out == value for n in block.nodes) \
            and sum(1 for v in env.values() if v == value) == 1

    def display(self, key: str) -> str:
        return {RETURN: self.parsed.name, BREAK: "stop", DONE: "done"}.get(key, self.temp_names.get(key, key))

    def condition(self, test: ast.expr) -> Operand:
        """A branch test: carries no gradient, so the user's expression is kept whole."""
        if isinstance(test, ast.Name) and test.id in self.env:
            return self.env[test.id]
        if isinstance(test, ast.Constant):
            return Const(test.value)
        return self.opaque(test, None)

    # ---- loops ----

    def stmt_For(self, stmt: ast.For) -> None:
        if stmt.orelse:
            raise self.error(stmt, "`for ... else` is not supported", "use a flag variable")
        it = stmt.iter
        func = self.static_value(it.func) if isinstance(it, ast.Call) else None
        if func is builtins.range:
            if it.keywords or not 1 <= len(it.args) <= 3 or not isinstance(stmt.target, ast.Name):
                raise self.error(stmt, "use `for name in range(start, stop, step)`")
            bounds = tuple(self.expr(a) for a in it.args)
            self.loop("range", stmt.target.id, bounds, None, stmt.body, stmt.lineno, None,
                      [stmt.target.id])
            return
        if func is builtins.enumerate:
            if len(it.args) != 1 or it.keywords or not (
                    isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2
                    and isinstance(stmt.target.elts[0], ast.Name)):
                raise self.error(stmt, "use `for i, item in enumerate(sequence)`")
            seqs, targets = [self.expr(it.args[0])], [stmt.target.elts[1]]
            index = stmt.target.elts[0].id
        elif func is builtins.zip:
            if it.keywords or not (isinstance(stmt.target, ast.Tuple)
                                   and len(stmt.target.elts) == len(it.args)):
                raise self.error(stmt, "use `for a, b in zip(xs, ys)` with one name per sequence")
            seqs, targets, index = [self.expr(a) for a in it.args], stmt.target.elts, None
        elif func is not None and func is not list and func is not tuple:
            raise self.error(stmt, f"looping over {ast.unparse(it)} is not supported",
                             "loop over range(...), a list, a tuple, an array's rows, "
                             "enumerate(...) or zip(...)")
        else:
            seqs, targets, index = [self.expr(it)], [stmt.target], None
        lengths = [self.opaque_call("len", seq) for seq in seqs]
        bound = lengths[0]
        for other in lengths[1:]:
            bound = self.opaque_call("min", bound, other)
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        names += [] if index is None else [index]  # enumerate's index is the user's too
        if index is None:
            index = "<index>"
            self.temp_names[index] = self.namer.fresh("i")

        def items():
            k = self.env[index]
            for seq, target in zip(seqs, targets):
                self.assign_operand(target, self.subscript(seq, k))

        self.loop("range", index, (bound,), None, stmt.body, stmt.lineno, items, names)

    def stmt_While(self, stmt: ast.While) -> None:
        if stmt.orelse:
            raise self.error(stmt, "`while ... else` is not supported", "use a flag variable")
        self.loop("while", None, (), stmt.test, stmt.body, stmt.lineno, None)

    def loop(self, kind: str, index: str | None, bounds, test: ast.expr | None,
             body: list[ast.stmt], line: int, prefix, targets: list[str] = ()) -> None:
        """Lower a loop: its body once, with the names it reassigns carried across iterations.

        `targets` are the names `prefix` binds to the items (``for v in xs``) at the start of
        each iteration: after the loop they hold the last item (or, when the loop ran no
        iteration, their value from before), so they are carried like a name the body assigns
        when anything outside the body reads them."""
        assigned = list(dict.fromkeys(list(targets) + stores_in(body)))
        returns = may_return(body)
        env0 = dict(self.env)
        body_loads = Counter(n.id for s in body for n in ast.walk(s)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        carried = [k for k in assigned if k in env0 or self.loads[k] > body_loads[k]
                   or k not in targets and read_before_write(body, k)]
        if returns:
            carried += [RETURN, DONE]
        carries = []
        for key in carried:
            init = env0.get(key, _DEFAULTS.get(key, Const(None)))
            if isinstance(init, Var) and init.name in self.lists:
                phi = init  # a list is one object, appended to in place
            else:
                phi = Var(self.namer.version(self.display(key)))
            carries.append((key, phi, init))
        outer = self.block
        self.block, self.terminated = Block(), False
        self.env.update({key: phi for key, phi, _ in carries})
        for _, phi, init in carries:
            self.sharing.join(phi.name, init)
        # what each carried name shares entering an iteration (a list keeps its name, so
        # appending in the body changes its entry in place: take it now)
        entering = {phi.name: self.sharing.of(phi) for _, phi, _ in carries}
        made_before = self.sharing.count  # fresh arrays numbered higher are made by the body
        self.env[BREAK] = Const(False)
        self.loops.append({"appended": set(), "read": set(), "written": set(), "in place": []})
        target = None
        if index is not None:
            target = Var(self.namer.version(self.display(index)))
            self.env[index] = target
        test_expr, test_inputs = (None, ())
        if test is not None:
            test_expr, test_inputs = self.substitute(test)
        if prefix is not None:
            prefix()
        self.statements(body)
        info = self.loops.pop()
        both = info["appended"] & info["read"]
        if both:
            raise self.error(line, f"the list {sorted(both)[0]} is both appended to and read in this "
                             "loop", "build the list in one loop and read it after")
        end, block = self.env, self.block
        stop = end.get(BREAK)
        stop = None if same(stop, Const(False)) else stop
        final = [Carry(phi, init, end.get(key, phi)) for key, phi, init in carries]
        self.check_carried_updates(info["in place"], carries)  # before carries join their finals
        self.check_carried_writes([(self.display(key), c) for (key, _, _), c in zip(carries, final)],
                                  {t for t in info["written"] if t <= made_before}, line, entering)
        self.block, self.env, self.terminated = outer, env0, False
        for key in assigned:
            self.env.pop(key, None)
        if index is not None:
            self.env.pop(index, None)
        self.env.update({key: phi for key, phi, _ in carries})
        self.nodes.append(Loop(kind, target, tuple(bounds), test_expr, tuple(test_inputs), block,
                               final, stop, line))

    def check_carried_writes(self, carries: list[tuple[str, Carry]], written: set[int], line: int,
                             entering: dict[str, frozenset[int]]) -> None:
        """A loop writing into an array made before it must not let the array reach another
        name (a list appended to included), or be replaced, between iterations: the next
        iteration's write would miss it.  `entering` is what each carried value shares as
        an iteration starts."""
        for name, c in carries:
            reaching = self.sharing.of(c.final) & written
            token = self.sharing.owner_of(c.var)
            if token in written and self.sharing.owner_of(c.final) != token:
                raise self.error(line, f"this loop writes into {name} by index and "
                                 "also assigns it a different array", "use a new name for the new array")
            if reaching - entering[c.var.name]:
                raise self.error(line, f"this loop writes into an array by index that "
                                 f"{name} also refers to in the next iteration",
                                 "make it a copy (.copy()) instead")
        for _, c in carries:
            self.sharing.join(c.var.name, c.init, c.final)

    def check_carried_updates(self, updates: list[InPlaceUpdate], carries) -> None:
        """An in-place update in a loop body also changes what another name took from its
        array in an earlier iteration (``acc += x; xs.append(acc)``): at the end of the body,
        does another name hold the array the update's target holds in the next iteration?"""
        phis = {phi.name: key for key, phi, _ in carries}
        for node in updates:
            if node.shared_with is not None:
                continue
            target = node.inputs[0]
            mine = self.sharing.of(target) | self.sharing.of(node.out)
            if isinstance(target, Var) and target.name in phis:
                mine |= self.sharing.of(self.env.get(phis[target.name], target))
            node.shared_with = self.seen_elsewhere(node.name, mine)[0]

    def assign_operand(self, target: ast.expr, value: Operand) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for j, t in enumerate(target.elts):
                self.assign_operand(t, self.subscript(value, Const(j)))
        else:
            raise self.error(target, f"cannot loop into {ast.unparse(target)}", "use plain names")


# ---- what a statement list can do ----

def _walk_no_scopes(stmts, into_loops=True):
    """Statements and expressions of `stmts`, not entering functions or (optionally) loops."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def may_exit(stmts) -> bool:
    """Can control leave `stmts` early (break/continue of this loop, or return)?"""
    if any(isinstance(n, (ast.Break, ast.Continue)) for n in _walk_no_scopes(stmts, into_loops=False)):
        return True
    return may_return(stmts)


def may_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for n in _walk_no_scopes(stmts))


def always_exits(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Break, ast.Continue, ast.Return)):
        return True
    return isinstance(last, ast.If) and always_exits(last.body) and always_exits(last.orelse)


def stores_in(stmts) -> list[str]:
    """Names a loop body (re)binds, in first-seen order; ``xs.append`` rebinds xs."""
    found = {}
    for node in _walk_no_scopes(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found[node.id] = None
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name):  # out[i] = v makes a new version of out
            found[node.value.id] = None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "append" and isinstance(node.func.value, ast.Name):
            found[node.func.value.id] = None
    return list(found)


def read_before_write(stmts, name: str) -> bool:
    """Does the body read `name` before it assigns it (so the value comes from last time)?"""
    for stmt in stmts:
        reads = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name]
        loads = any(isinstance(n.ctx, ast.Load) for n in reads)
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                   for t in targets):
                return True  # a write by index updates the value from before
            value_loads = stmt.value is not None and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt.value))
            if value_loads or isinstance(stmt, ast.AugAssign) and any(n.id == name for n in reads):
                return True
            if reads:
                return False
        elif loads:
            return True
        elif reads and not isinstance(stmt, (ast.If, ast.For, ast.While)):
            return False
    return False


def _placeholders(parts: list[ast.expr]) -> str:
    """The index's text with each operand it reads named i0, i1, ... in order (the static
    text of a `setitem` rule, whose parameters those are)."""
    count = iter(range(len(parts) * 3))

    class Name(ast.NodeTransformer):
        def visit_Name(self, name):
            return ast.Name(f"i{next(count)}", ast.Load())

    return ", ".join(ast.unparse(Name().visit(copy.deepcopy(p))) for p in parts)


def same(a: Operand, b: Operand) -> bool:
    return a == b and type(getattr(a, "value", None)) is type(getattr(b, "value", None))


def rename(block: Block, old: Var, new: Var) -> None:
    """Give the node computing `old` (directly in `block`) the name `new`, and update readers."""

    class Rename(ast.NodeTransformer):
        def visit_Name(self, name):
            return ast.Name(new.name, name.ctx) if name.id == old.name else name

    def fix(op):
        return new if op == old else op

    def walk(b: Block):
        for item in b.nodes:
            if isinstance(item, Node):
                if item.out == old:
                    item.out = new
                if old in item.inputs:
                    item.inputs = tuple(fix(v) for v in item.inputs)
                    item.expr = Rename().visit(item.expr)
            elif isinstance(item, Branch):
                item.test = fix(item.test)
                walk(item.body)
                walk(item.orelse)
                item.merges = [Merge(m.out, fix(m.body), fix(m.orelse)) for m in item.merges]
            else:
                item.bounds = tuple(fix(v) for v in item.bounds)
                item.carried = [Carry(c.var, fix(c.init), fix(c.final)) for c in item.carried]
                item.stop = fix(item.stop) if item.stop is not None else None
                if old in item.test_inputs:
                    item.test_inputs = tuple(fix(v) for v in item.test_inputs)
                    item.test = Rename().visit(item.test)
                walk(item.body)

    walk(block)
