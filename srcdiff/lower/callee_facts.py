"""What lowering a called user function tells its callers, remembered per function.

A caller's transform is built on what its callees read statically (their dependencies
count as the caller's own), and a callee that passes a parameter as a static argument
(``axis=axis``) is differentiated once per value of it.  Both are learnt by lowering the
callee, which is why lowering is handed `facts_of` (lowerer.py) instead of importing it.
"""

from __future__ import annotations

import ast
import weakref

from ..errors import SrcDiffError
from ..frontend.depends import Dependency, hold
from ..frontend.parse import parse_function
from ..ir import memo
from ..ir.flows import flows
from ..ir.nodes import Branch, Node, Var, all_nodes, typed
from ..rules.structural import gradient_inputs
from .facts import ParamFacts, callee_facts
from .function import lower_function_specialised
from .state import CalleeFacts

_OF_FUNCTION: "weakref.WeakKeyDictionary[object, tuple]" = memo.table(weak=True)
_IN_PROGRESS: set[int] = set()
_NONE = CalleeFacts((), ())


def of_function(func, table, constants: tuple = (), passed=None, shapes: tuple = ()) -> tuple[Dependency, ...]:
    """The dependencies of user function `func`'s own transform, its callees' included.

    Lowers `func` (remembered until a dependency changes).  A function being lowered
    already (recursion) contributes nothing more; one srcdiff cannot lower contributes
    nothing (its transform reports the problem itself).
    """
    return _analyse(func, table, constants, passed, shapes).depends


def analysis_error(func, table, constants: tuple = (), passed=None, shapes: tuple = ()) -> SrcDiffError | None:
    """Why lowering `func` for a call like this failed, if it did: the cause to report when
    its adjoint cannot be built either (its static parameters were not learnt)."""
    return _analyse(func, table, constants, passed, shapes).error


def static_parameters(func, table) -> tuple[str, ...]:
    """The parameters user function `func` passes as static arguments (``axis=axis``): its
    adjoint is specialised on their values (lowerer.lower_specialised)."""
    return _analyse(func, table).static_parameters


def facts_of(func, table, constants: tuple = (), passed=None, shapes: tuple = ()) -> CalleeFacts:
    """Both of the above at once: what a caller's lowering needs (a `CalleeFactsOf`), for a
    call giving the None, bool and namespace `constants` ``((name, value), ...)``, arguments
    for the parameters `passed` (None: all; the others take their defaults) of the known
    `shapes` ``((name, Shape), ...)``."""
    return _analyse(func, table, constants, passed, shapes)


def _analyse(func, table, constants: tuple = (), passed=None, shapes: tuple = ()) -> CalleeFacts:
    by_constants = _OF_FUNCTION.get(func, {})
    call_key = (typed(constants), None if passed is None else tuple(sorted(passed)), tuple(sorted(shapes)))
    found = by_constants.get(call_key)
    if found is not None and found[0] is func.__code__ and found[1] == table.version and hold(found[2].depends):
        return found[2]
    if id(func) in _IN_PROGRESS:
        return _NONE
    outermost = not _IN_PROGRESS  # inside a cycle a result lacks the cycle's other functions
    _IN_PROGRESS.add(id(func))
    try:
        facts = _lowered_facts(func, table, constants, passed, shapes)
    finally:
        _IN_PROGRESS.discard(id(func))
    if outermost:
        _OF_FUNCTION.setdefault(func, {})[call_key] = (func.__code__, table.version, facts)
    return facts


def _lowered_facts(func, table, constants, passed, shapes) -> CalleeFacts:
    """Lower `func` for a call like this, twice: once not knowing which parameters are None
    (a test ``b is None`` stays a branch), once taking them as given (so ``axis = ... if axis
    is None else axis`` shows that axis is used as a static argument).  What either reads
    or asks for counts; an item is a mask (or a new array) only if both say so."""
    parsed = parse_function(func)
    found, errors = [], []
    for present in (False, True):
        # which globals lowering reads, and which parameters it asks for, do not depend on
        # the static parameters' values: any value lets it run to the end
        given = ParamFacts(dict(constants)) if passed is None else callee_facts(func, dict(constants), passed)
        given.statics_known = False  # (the static values below stand in for any value)
        given.param_shapes = dict(shapes) if shapes else None
        given.known = present
        try:
            function, _namer, statics = lower_function_specialised(parsed, table, lambda name, node: None,
                                                                   facts_of, given)
        except SrcDiffError as exc:
            errors.append(exc)
            continue
        found.append((tuple(statics), set(_nograd_items(function)), set(_fresh_items(function)),
                      _fresh_items(function, whole=True) == (0,), _returned(function)))
    if not found:
        return CalleeFacts((), (), error=errors[-1])  # (the better informed lowering's)
    statics = tuple(dict.fromkeys(name for f in found for name in f[0]))
    nograd = set.intersection(*(f[1] for f in found)) if len(found) == 2 else found[0][1]
    fresh = set.intersection(*(f[2] for f in found)) if len(found) == 2 else found[0][2]
    returned = found[0][4] if all(f[4] == found[0][4] for f in found) else None
    return CalleeFacts(parsed.dependencies(), statics, tuple(sorted(nograd)), tuple(sorted(fresh)),
                       fresh_value=all(f[3] for f in found), returned=returned)


def _returned(function) -> tuple | None:
    """("list" or "tuple", its length) of the display `function` returns (``return [a, b, c]``), the
    node making its output, so on every path; None otherwise."""
    out = function.output
    made = next((n for n in function.body.nodes if isinstance(n, Node) and n.out == out), None)
    if made is None or made.rule.name != "list" or not isinstance(made.expr, (ast.List, ast.Tuple)):
        return None
    name = getattr(out, "name", None)  # (a list grown by append, or bound again in a region: not this)
    if sum(n.out.name == name for n in all_nodes(function)) != 1 or any(
            name in {m.out.name for m in item.merges} if isinstance(item, Branch)
            else name in {c.var.name for c in item.carried} for item in function.body.nodes
            if not isinstance(item, Node)):
        return None
    return ("list" if isinstance(made.expr, ast.List) else "tuple", len(made.inputs))


def _nograd_items(function) -> tuple[int, ...]:
    """The items of the tuple `function` returns (``return max_, mask``) that no parameter
    reaches through a value with a gradient: a caller may index with them."""
    out = function.output
    made = next((n for n in function.body.nodes if isinstance(n, Node) and n.out == out), None)
    if made is None or made.rule.name != "list":
        return ()
    varies, _ = flows(function, {p.name for p in function.params}, _value_inputs)
    return tuple(j for j, v in enumerate(made.inputs) if not (isinstance(v, Var) and v.name in varies))


def _value_inputs(node) -> list:
    """`gradient_inputs`, and the operands of a call whose value depends on them though it has
    no gradient (``np.arange(x[0], 5.0)``, ``np.linalg.eig(x)``: `Rule.refuses_active`): such an
    item is not a mask, and the callee's own differentiation refuses it at its line."""
    return node.input_vars if getattr(node.rule, "refuses_active", "") else gradient_inputs(node)


def _fresh_items(function, whole: bool = False) -> tuple[int, ...]:
    """The items of the tuple `function` returns that are new arrays (``np.max(a, ...)``):
    made by a call that copies, on every path, so a caller's write cannot reach another name.
    `whole`: (0,) when the value it returns, not a tuple, is one (``A = np.zeros(...); A[i] = 1.0;
    return A``): the caller may write into it."""
    out = function.output
    made = next((n for n in function.body.nodes if isinstance(n, Node) and n.out == out), None)
    if not whole and (made is None or made.rule.name != "list"):
        return ()
    if whole and (made is not None and made.rule.name == "list" or not isinstance(out, Var)):
        return ()
    makers: dict[str, list] = {}

    def collect(block):
        for item in block.nodes:
            if isinstance(item, Node):
                makers.setdefault(item.out.name, []).append(item)
            elif isinstance(item, Branch):
                collect(item.body)
                collect(item.orelse)
                for m in item.merges:
                    makers.setdefault(m.out.name, []).extend(("merge", v) for v in (m.body, m.orelse))
            else:
                collect(item.body)

    params = {p.name for p in function.params}

    def fresh(value, seen=()) -> bool:
        if not isinstance(value, Var) or value.name in seen or value.name not in makers:
            return False
        for maker in makers[value.name]:
            if isinstance(maker, tuple):
                side = maker[1]
                if side == value or isinstance(side, Var) and side.name not in makers and side.name not in params:
                    continue  # a side's value renamed to the merged name (branches.py): its node counts
                if not fresh(side, seen + (value.name,)):
                    return False
            elif not (maker.rule.nograd or maker.rule.fresh) or maker.rule.name == "list":
                return False
        return True

    collect(function.body)
    if whole:
        return (0,) if fresh(out) else ()
    return tuple(j for j, v in enumerate(made.inputs) if fresh(v))
