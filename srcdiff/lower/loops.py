"""Lowering of ``for`` and ``while`` into `Loop` regions.

A loop's body is lowered once.  Names the body reassigns and that live across iterations
(read before they are written, or after the loop) become `Carry` values: one `Var` for the
value entering each iteration, joined with the value before the loop and the value at the
end of the body.  ``for`` over a sequence, ``enumerate`` or ``zip`` is a loop over an index
whose body starts by taking the items.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from collections import Counter
from typing import Callable, NamedTuple

from ..ir import shapes
from ..ir.nodes import Block, Carry, Const, Loop, Operand, Var, operand_ast
from ..rules.structural import NOGRAD
from .assignments import seen_elsewhere
from .ast_facts import may_return, read_before_write, stores_in
from .branches import same
from .dict_loops import dict_iterables, unrolled_keys
from .effects import count_guard
from .emit import emit_rule
from .endless_zips import count_as_range
from .opaque import opaque, opaque_call, substitute
from .product_loops import nested_loops
from .reversed_pairs import listed_pairs
from .state import BREAK, DONE, FLOW_DEFAULTS, RETURN, LoopRecord, LoweringState
from .statements import StatementLowerer
from .static_loops import lower_static_loop, static_items
from .static_values import static_value
from .subscripts import subscript

# The `env` key of a sequence loop's index: carried into the body, dropped after (its name is in temp_names)
INDEX = "<index>"


class _Carried(NamedTuple):
    key: str  # the user name (or control-flow key) carried
    phi: Var  # its value entering an iteration
    init: Operand  # its value before the loop


#: methods of `str` giving a list of strings (rule_calls.py reads them as text with no gradient)
_SPLITS = frozenset({"split", "rsplit", "splitlines"})


def lower_for(lower: StatementLowerer, stmt: ast.For) -> None:
    state = lower.state
    if stmt.orelse:
        raise state.error(stmt, "`for ... else` is not supported", "use a flag variable")
    keys = unrolled_keys(state, stmt)  # for k in RATES: ... RATES[k]: each key a constant
    if keys is not None:
        lower_static_loop(lower, stmt, keys)
        return
    it = dict_iterables(state, stmt.iter)  # for k in RATES: a dict of the module iterates its keys
    if it is not stmt.iter:
        stmt = ast.copy_location(ast.For(stmt.target, it, stmt.body, stmt.orelse, None), stmt)
    items = static_items(state, it)  # for a in (Act.TANH, Act.SOFTPLUS): unrolled (static_loops.py)
    if items is not None:
        lower_static_loop(lower, stmt, items)
        return
    func = static_value(state, it.func) if isinstance(it, ast.Call) else None
    backwards = func is builtins.reversed
    if backwards:  # the same loop, its iterations in the opposite order
        if it.keywords or len(it.args) != 1:
            raise state.error(stmt, "use `for item in reversed(sequence)`")
        it = listed_pairs(state, it.args[0])
        func = static_value(state, it.func) if isinstance(it, ast.Call) else None
        if func is builtins.reversed or func in (builtins.enumerate, builtins.zip) and it is stmt.iter.args[0]:
            raise state.error(stmt, f"looping over reversed({ast.unparse(it)}) is not supported",
                              "loop over reversed(list(enumerate(xs))), reversed(list(zip(xs, ys))) or "
                              "reversed(range(len(xs))) and index the sequences")
    nested = None if backwards else nested_loops(state, stmt, func)
    if nested is not None:  # itertools.combinations / product of ranges: nested range loops
        lower_for(lower, nested)
        return
    if func is builtins.range:
        if it.keywords or not 1 <= len(it.args) <= 3 or not isinstance(stmt.target, ast.Name):
            raise state.error(stmt, "use `for name in range(start, stop, step)`")
        if backwards:
            bounds = _reversed_range(lower, it)
        else:
            bounds = tuple(lower.expressions.expr(a) for a in it.args)
        _loop(lower, "range", stmt.target.id, bounds, None, stmt.body, stmt.lineno, None, [stmt.target.id])
        return
    iterated = {n.id for n in ast.walk(it) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    rebound = sorted(iterated & set(stores_in(stmt.body)))
    if rebound:  # Python iterates the value from before the loop; the name would give the new one
        raise state.error(stmt, f"this loop assigns {rebound[0]}, which it iterates over",
                          "use another name for the new value inside the loop")
    stmt = _named_tuples(state, stmt)  # for a, bc in zip(xs, zip(ys, zs)): bc = (b, c) first in the body
    seqs, targets, index = _sequences(lower, stmt, func, it)
    lengths = [opaque_call(lower.expressions, "len", seq) for seq in seqs]
    bound = lengths[0]
    for other in lengths[1:]:
        bound = opaque_call(lower.expressions, "min", bound, other)
    names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    names += [] if index is None else [index]  # enumerate's index is the user's too
    counted = index if backwards else None  # reversed(list(enumerate(xs))): the user's index counts down
    if index is None or backwards:
        index = INDEX
        state.temp_names[index] = state.namer.fresh("i")

    def items():
        k = state.env[index]
        if backwards:  # item len - 1 - k
            last = ast.BinOp(ast.BinOp(operand_ast(bound), ast.Sub(), ast.Constant(1)), ast.Sub(), operand_ast(k))
            k = emit_rule(state, NOGRAD, tuple(v for v in (bound, k) if isinstance(v, Var)), {}, last, None)
            if counted is not None:
                _assign_operand(lower, ast.Name(counted, ast.Store()), k)
        for seq, target in zip(seqs, targets):
            _assign_operand(lower, target, subscript(lower.expressions, seq, k))

    _loop(lower, "range", index, (bound,), None, stmt.body, stmt.lineno, items, names)


def _reversed_range(lower: StatementLowerer, it: ast.Call) -> tuple[Operand, ...]:
    """The bounds of ``reversed(range(...))``, as a range of their own: computed here when
    they are literals, else ``range(n - 1, -1, -1)`` for ``range(n)``, ``range(b - 1, a - 1, -1)``
    for ``range(a, b)``, and from the number of items for ``range(a, b, c)``."""
    try:
        flipped = range(*(ast.literal_eval(a) for a in it.args))[::-1]
        return Const(flipped.start), Const(flipped.stop), Const(flipped.step)
    except (ValueError, TypeError, SyntaxError):
        pass
    texts = [f"({ast.unparse(a)})" for a in it.args]
    if len(texts) == 1:
        bounds = [f"{texts[0]} - 1", "-1", "-1"]
    elif len(texts) == 2:
        bounds = [f"{texts[1]} - 1", f"{texts[0]} - 1", "-1"]
    else:
        a, b, c = texts
        count = f"max(0, ({b} - {a} + {c} - (1 if {c} > 0 else -1)) // {c})"
        bounds = [f"{a} + ({count} - 1) * {c}", f"{a} - {c}", f"-{c}"]
    out = []
    for text in bounds:
        expr = ast.parse(text, mode="eval").body
        for node in ast.walk(expr):
            ast.copy_location(node, it)
        out.append(Const(ast.literal_eval(expr)) if text.lstrip("-").isdigit() else
                   opaque(lower.expressions, expr, None))
    return tuple(out)


def _named_tuples(state: LoweringState, stmt: ast.For) -> ast.For:
    """`stmt` with each zip's tuple of items that one name takes (``for ab in zip(xs, ys)``, ``for a, bc in
    zip(xs, zip(ys, zs))``) taken by names of their own, and the name bound to their tuple first in
    the body (``bc = (bc_1, bc_2)``); `stmt` itself if there is none."""
    made: list[ast.stmt] = []

    def spread(target: ast.expr, it: ast.expr) -> ast.expr:
        func = static_value(state, it.func) if isinstance(it, ast.Call) and not it.keywords else None
        if func is builtins.enumerate and len(it.args) == 1 and isinstance(target, ast.Tuple) \
                and len(target.elts) == 2:
            return ast.Tuple([target.elts[0], spread(target.elts[1], it.args[0])], ast.Store())
        if func is not builtins.zip or any(isinstance(a, ast.Starred) for a in it.args):
            return target
        if isinstance(target, ast.Name):
            names = [state.namer.fresh(f"{target.id}_{k}") for k in range(len(it.args))]
            inner = [spread(ast.Name(n, ast.Store()), a) for n, a in zip(names, it.args)]
            made.append(ast.Assign([ast.Name(target.id, ast.Store())],
                                   ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())))
            return ast.Tuple(inner, ast.Store())
        if isinstance(target, ast.Tuple) and len(target.elts) == len(it.args):
            return ast.Tuple([spread(t, a) for t, a in zip(target.elts, it.args)], ast.Store())
        return target

    target = spread(stmt.target, stmt.iter)
    if not made:
        return stmt
    made = [ast.fix_missing_locations(ast.copy_location(m, stmt)) for m in made]
    target = ast.fix_missing_locations(ast.copy_location(target, stmt.target))
    return ast.copy_location(ast.For(target, stmt.iter, made + stmt.body, stmt.orelse, None), stmt)


def _sequences(lower: StatementLowerer, stmt: ast.For, func, it: ast.expr) -> tuple[
        list[Operand], list[ast.expr], str | None]:
    """What a ``for`` over sequences iterates: the sequences, the targets taking their
    items, and the user's name for the index (``enumerate``), if any."""
    state = lower.state
    if func is builtins.enumerate:
        if len(it.args) != 1 or it.keywords or not (
                isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2
                and isinstance(stmt.target.elts[0], ast.Name)):
            raise state.error(stmt, "use `for i, item in enumerate(sequence)`")
        inner, item = it.args[0], stmt.target.elts[1]
        if isinstance(inner, ast.Call) and static_value(state, inner.func) is builtins.zip:
            # for i, (a, b) in enumerate(zip(xs, ys)): the zip's loop, with the index named
            zipped = ast.copy_location(ast.For(item, inner, stmt.body, [], None), stmt)
            seqs, targets, _ = _sequences(lower, zipped, builtins.zip, inner)
            return seqs, targets, stmt.target.elts[0].id
        return [lower.expressions.expr(inner)], [item], stmt.target.elts[0].id
    if func is builtins.zip:
        if it.keywords or not (isinstance(stmt.target, ast.Tuple)
                               and len(stmt.target.elts) == len(it.args)):
            raise state.error(stmt, "use `for a, b in zip(xs, ys)` with one name per sequence")
        seqs, targets = [], []
        for a, target in zip(it.args, stmt.target.elts):
            if isinstance(a, ast.Call) and static_value(state, a.func) is builtins.zip \
                    and isinstance(target, ast.Tuple):  # zip(xs, zip(ys, zs)): its sequences beside the others
                inner = _sequences(lower, ast.copy_location(ast.For(target, a, stmt.body, [], None), stmt), func, a)
                seqs, targets = seqs + inner[0], targets + inner[1]
                continue
            seqs.append(lower.expressions.expr(count_as_range(state, a, it.args)))
            targets.append(target)
        return seqs, targets, None
    rule = state.table.lookup(func) if func is not None else None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in _SPLITS:
        return [lower.expressions.expr(it)], [stmt.target], None  # the parts of a configuration string
    # a NumPy call's result is an array whose rows the loop takes (``for s in np.abs(x)``), as a name's are
    if func is not None and func is not list and func is not tuple and rule is None \
            and not inspect.isgeneratorfunction(func):  # a generator: the list it yields (frontend/generators.py)
        raise state.error(stmt, f"looping over {ast.unparse(it)} is not supported",
                          "loop over range(...), a list, a tuple, an array's rows, "
                          "enumerate(...) or zip(...)")
    return [lower.expressions.expr(it)], [stmt.target], None


def lower_while(lower: StatementLowerer, stmt: ast.While) -> None:
    if stmt.orelse:
        raise lower.state.error(stmt, "`while ... else` is not supported", "use a flag variable")
    _loop(lower, "while", None, (), stmt.test, stmt.body, stmt.lineno, None)
    if _forever(stmt) and may_return(stmt.body):  # ``while True:`` left only by a `return`:
        lower.state.terminated = True  # no path goes on after it (a student's Newton loop)


def _forever(stmt: ast.While) -> bool:
    """``while True:`` (or ``while 1:``) with no `break` of its own: only a `return` leaves it."""
    if not (isinstance(stmt.test, ast.Constant) and stmt.test.value is True or
            isinstance(stmt.test, ast.Constant) and type(stmt.test.value) is int and stmt.test.value):
        return False

    def breaks(stmts) -> bool:
        for st in stmts:
            if isinstance(st, ast.Break):
                return True
            if isinstance(st, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef,
                               ast.ClassDef)):
                continue  # a break there leaves that loop; a def's body is not run here
            children = [getattr(st, f, []) for f in ("body", "orelse", "finalbody", "handlers")]
            if any(breaks(c if isinstance(c, list) else [c]) for c in children) or \
                    any(breaks(case.body) for case in getattr(st, "cases", [])):
                return True
        return False
    return not breaks(stmt.body)


def _loop(lower: StatementLowerer, kind: str, index: str | None, bounds, test: ast.expr | None,
          body: list[ast.stmt], line: int, prefix: Callable[[], None] | None, targets: list[str] = ()) -> None:
    """Lower a loop: its body once, with the names it reassigns carried across iterations.

    `targets` are the names `prefix` binds to the items (``for v in xs``) at the start of
    each iteration: after the loop they hold the last item (or, when the loop ran no
    iteration, their value from before), so they are carried like a name the body assigns
    when anything outside the body reads them."""
    state = lower.state
    assigned = list(dict.fromkeys(list(targets) + stores_in(body)))
    env0 = dict(state.env)
    carries = _carries(state, assigned, targets, body, env0)
    outer = state.block
    state.block, state.terminated, state.raised = Block(), False, False
    state.env.update({c.key: c.phi for c in carries})
    for c in carries:
        state.sharing.join(c.phi.name, c.init)
        if state.facts.param_shapes is not None and isinstance(c.init, Var) and _written_by_index_only(body, c.key):
            state.facts.shapes.pop(c.phi.name, None)  # an array only written into keeps its shape:
            if state.facts.shape_of(c.init).known:  # ``y1 = y[n]`` of a vector is then a number
                state.facts.shapes[c.phi.name] = state.facts.shape_of(c.init)
    # what each carried name shares entering an iteration (a list keeps its name, so
    # appending in the body changes its entry in place: take it now)
    entering = {c.phi.name: state.sharing.of(c.phi) for c in carries}
    made_before = state.sharing.count  # fresh arrays numbered higher are made by the body
    state.env[BREAK] = Const(False)
    state.loops.append(LoopRecord())
    target = None
    if index is not None:
        target = Var(state.namer.version(state.display(index)))
        state.env[index] = target
        if kind == "range" and state.facts.param_shapes is not None:  # a range's index is an int
            state.facts.shapes[target.name] = shapes.SCALAR
    test_expr, test_inputs = (None, ())
    if test is not None:
        test_expr, test_inputs = substitute(lower.expressions, test)
    if prefix is not None:
        prefix()
    lower.statements(body)
    record = state.loops.pop()
    both = (record.appended & record.read) - record.created  # a list made in the body is new each time
    if both:
        name = sorted(both)[0]  # (said by the user's name of it: a carried list's version is named after it)
        name = next((state.display(c.key) for c in carries if c.phi.name == name), name)
        raise state.error(line, f"the list {name} is both appended to and read in this "
                          "loop", "build the list in one loop and read it after")
    end, block = state.env, state.block
    stop = end.get(BREAK)
    stop = None if same(stop, Const(False)) else stop
    final = [Carry(c.phi, c.init, end.get(c.key, c.phi)) for c in carries]
    _check_carried_updates(state, record.in_place, carries, made_before)  # before carries join their finals
    _check_carried_writes(state, [(state.display(c.key), f) for c, f in zip(carries, final)],
                          {t for t in record.written if t <= made_before}, line, entering)
    state.block, state.env, state.terminated, state.raised = outer, env0, False, False
    for key in assigned:
        state.env.pop(key, None)
    if index is not None:
        state.env.pop(index, None)
    state.env.update({c.key: c.phi for c in carries})
    state.nodes.append(Loop(kind, target, tuple(bounds), test_expr, tuple(test_inputs), block,
                            final, stop, line))


def _written_by_index_only(body: list[ast.stmt], name: str) -> bool:
    """Whether the loop body changes `name` only by writing into it (``y[n] = v``), never by
    binding the name itself (``y = ...``, ``y += ...``, a loop or ``with`` target)."""
    return not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                   for s in body for n in ast.walk(s))


def _carries(state: LoweringState, assigned: list[str], targets, body: list[ast.stmt],
             env0: dict[str, Operand]) -> list[_Carried]:
    """The names the loop carries across iterations, each with a new value for its entry."""
    body_loads = Counter(n.id for s in body for n in ast.walk(s)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    carried = [k for k in assigned if k in env0 or state.loads[k] > body_loads[k]
               or k not in targets and read_before_write(body, k)]
    if may_return(body):
        carried += [RETURN, DONE]
    carries = []
    for key in carried:
        init = env0.get(key, FLOW_DEFAULTS.get(key, Const(None)))
        held = isinstance(init, Var) and any(v == init for k, v in env0.items() if k != key)
        if isinstance(init, Var) and init.name in state.lists and not held:
            phi = init  # a list is one object, appended to in place
            # a tuple rebound in the loop (``s = (a * b, b)``) holds the loop's tuple: not its items before
            state.tuple_items.pop(init.name, None)
        else:
            # (a list another name also holds, ``keep = s`` before the loop: its new lists take a new variable)
            phi = Var(state.namer.version(state.display(key)))
            if isinstance(init, Const) and init.value is None:  # None, or what an iteration before set
                state.none_entering.add(phi.name)
            elif isinstance(init, Var) and init.name in state.lists:
                state.lists.add(phi.name)
                for facts in (state.frozen_lists, state.grown, state.nested, state.tuples):
                    if init.name in facts:
                        facts.add(phi.name)
        carries.append(_Carried(key, phi, init))
    return carries


def _check_carried_writes(state: LoweringState, carries: list[tuple[str, Carry]], written: set[int],
                          line: int, entering: dict[str, frozenset[int]]) -> None:
    """A loop writing into an array made before it must not let the array reach another
    name (a list appended to included), or be replaced, between iterations: the next
    iteration's write would miss it.  `entering` is what each carried value shares as
    an iteration starts."""
    sharing = state.sharing
    for name, c in carries:
        reaching = sharing.of(c.final) & written
        token = sharing.owner_of(c.var)
        if token in written and sharing.owner_of(c.final) != token:
            raise state.error(line, f"this loop writes into {name} by index and "
                              "also assigns it a different array", "use a new name for the new array")
        if reaching - entering[c.var.name]:
            raise state.error(line, f"this loop writes into an array by index that "
                              f"{name} also refers to in the next iteration",
                              "make it a copy (.copy()) instead")
    for _, c in carries:
        sharing.join(c.var.name, c.init, c.final)


def _check_carried_updates(state: LoweringState, updates: list, carries: list[_Carried], made_before: int) -> None:
    """An in-place update in a loop body also changes what another name took from its
    array in an earlier iteration (``acc += x; xs.append(acc)``): at the end of the body,
    does another name hold the array the update's target holds in the next iteration?"""
    phis = {c.phi.name: c.key for c in carries}
    for node in updates:
        if node.shared_with is not None:
            continue
        target = node.inputs[0]
        mine = state.sharing.of(target) | state.sharing.of(node.out)
        if isinstance(target, Var) and target.name in phis:
            mine |= state.sharing.of(state.env.get(phis[target.name], target))
        elif mine and all(t > made_before for token in mine for t in state.sharing.tokens(token)):
            continue  # made by the body (``q = 0.0; q += v; qs.append(q)``): a new array each iteration
        node.shared_with, _, node.sharers = seen_elsewhere(state, node.name, mine, node.line)


def _assign_operand(lower: StatementLowerer, target: ast.expr, value: Operand) -> None:
    """Bind a loop's target (a name, or names to unpack) to the item `value`."""
    if isinstance(target, ast.Name):
        lower.state.env[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        count_guard(lower.state, value, len(target.elts), f"expected {len(target.elts)} values to unpack")
        for j, t in enumerate(target.elts):
            _assign_operand(lower, t, subscript(lower.expressions, value, Const(j)))
    else:
        raise lower.state.error(target, f"cannot loop into {ast.unparse(target)}", "use plain names")
