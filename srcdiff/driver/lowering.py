"""Parse and lower, once per function: the first two stages of the driver.

`lowered` gives a user function's `Lowered` IR for a call's arguments (cached per code,
`wrt`, options, rules, the facts lowering read off the arguments, and the values of the
parameters it used as static arguments); `inlined` copies small helpers into it.
"""

from __future__ import annotations

import ast
import inspect

from ..ad.inline import inline_calls
from ..errors import SharedDrawError, SrcDiffError
from ..frontend import depends
from ..frontend import statics as static_args
from ..frontend.naming import Namer, assigned_names, names_in
from ..frontend.parse import ParsedFunction, parse_function, unwrap
from ..ir.nodes import Function, Specialised, all_nodes
from ..lower.callee_facts import of_function
from ..lower.facts import ParamFacts, argument_facts, callee_facts, facts_key, is_constant_argument
from ..lower.lowerer import lower_specialised
from ..rules import TABLE, TEMPLATE_GLOBALS
from ..rules.draws import GENERATORS, shared_stream
from .cache import CACHE, Lowered, Options, serialized


@serialized
def lowered(func, wrt: tuple[str, ...], options: Options, args: tuple | None = None) -> Lowered:
    """The lowered `func` for a call with positional `args` (None: its defaults)."""
    parsed = parse_function(func)
    cache = CACHE.lowered.setdefault(parsed.func, {})
    value_of = static_args.values_of(func, args)
    decided = facts_key(func, value_of, args, CACHE.by_signature)
    base = (parsed.func.__code__, wrt, options, TABLE.version) + decided
    static_names = CACHE.static_names.setdefault(parsed.func, {})
    key = base + (static_args.static_key(static_names.get(base, ()), value_of),)
    if key not in cache or not depends.hold(cache[key].depends):
        facts = argument_facts(func, value_of, args)
        found = lower_parsed(parsed, wrt, options, static_args.static_values(parsed, wrt, value_of), facts)
        CACHE.stats.transforms += 1
        if facts.used_shapes:  # the signature decided some of the code: it is part of the key
            CACHE.by_signature.setdefault(parsed.func, set()).add(decided[0])
            decided = facts_key(func, value_of, args, CACHE.by_signature)
            base = base[:-2] + decided
        found.facts_key, found.constants = decided, dict(facts.constants)
        static_names[base] = tuple(found.statics)  # found by lowering: the same for all values
        key = base + (static_args.static_key(static_names[base], value_of),)
        CACHE.generation += 1  # (an entry under `key` may be replaced: its plans look again)
        cache[key] = found
    return cache[key]


def is_current(found: Lowered, func) -> bool:
    """Whether `found` is still what `lowered` gives for `func` (same code, rules, globals)."""
    return found.parsed.code is unwrap(func).__code__ \
        and found in CACHE.lowered.get(found.parsed.func, {}).values() \
        and depends.hold(found.depends)


def lower_parsed(parsed: ParsedFunction, wrt, options: Options, static_value,
                 facts: ParamFacts | None = None) -> Lowered:
    """Lower `parsed`; `static_value(name, node)` gives (or refuses) a static parameter's value."""
    ir, namer, statics = lower_specialised(parsed, TABLE, static_value, facts)
    found = Lowered(parsed, wrt, options, ir, namer, statics, _user_dependencies(parsed))
    _check_template_names(found)
    _check_shared_draws(found)
    return found


#: why a transformation that runs the code more than once a call cannot take a shared draw
RUN_AGAIN = ("a Jacobian, a second derivative or vmap runs this code more than once a call: each run draws "
             "other numbers")


def _check_shared_draws(found: Lowered) -> None:
    """Refuse a draw from a stream the process shares (rules/draws.py) where the code is run
    more than once per call (a Jacobian, a second derivative, vmap) or by numba."""
    options = found.options
    why = ("jit='numba' draws from numba's own stream, not NumPy's" if options.jit else
           RUN_AGAIN if options.derivable or options.mode == "batched" else None)
    if why is not None:
        refuse_shared_draws(found, why)


def refuse_shared_draws(found: Lowered, why: str = RUN_AGAIN) -> None:
    """Raise, at its line, for a draw of `found` from a stream the process shares (rules/draws.py):
    a call with its own rule, or one inside a value that carries no gradient (``np.random.rand() > p``)."""
    def draws(node) -> bool:
        if getattr(getattr(node, "rule", None), "draws", False):
            return True
        calls = [c.func for c in ast.walk(getattr(node, "expr", None) or ast.Constant(None)) if isinstance(c, ast.Call)]
        return any(shared_stream(_resolved(found.parsed, f)) for f in calls)
    node = next((n for n in all_nodes(found.ir) if draws(n)), None)
    if node is not None:
        stream = "makes a random generator without a seed, whose numbers differ at each run" \
            if getattr(getattr(node, "rule", None), "func", None) in GENERATORS else \
            "draws from a random stream the whole process shares"
        exc = found.parsed.error(node.line, f"this line {stream}: {why}",
                                 "draw the numbers outside the function and pass them in, or use a generator the "
                                 "function seeds itself (rng = np.random.default_rng(seed))")
        raise SharedDrawError(exc.reason, exc.location, exc.hint)


def inlinable(callee, passed=None) -> Function | None:
    """A helper's IR for inlining (ad/inline.py) at a call passing the parameters `passed`
    (None: all), or None: it keeps its own adjoint (srcdiff cannot lower it alone, and its
    adjoint says why).  `callee` is the function, or `Specialised` on the call's static
    values; lowered once per call kind, rules and what it reads statically."""
    func, statics = (callee.func, dict(callee.statics)) if isinstance(callee, Specialised) else (callee, {})
    passed = tuple(sorted(inspect.signature(func).parameters if passed is None else passed))
    constants = tuple((n, v) for n, v in statics.items() if is_constant_argument(v))
    # (the helper's own state too: its code, replaced in place by a module reloader, and its defaults)
    key = ("inline", callee, passed, TABLE.version, depends.key(of_function(func, TABLE, constants, passed)),
           depends.state_of(func))
    if key not in CACHE.callee_irs:
        CACHE.callee_irs[key] = _lowered_helper(func, statics, passed)
    return CACHE.callee_irs[key]


def _lowered_helper(func, statics: dict, passed: tuple) -> Function | None:
    parameters = inspect.signature(func).parameters
    defaults = {n: p.default for n, p in parameters.items()
                if n not in passed and p.default is not inspect.Parameter.empty and depends.static_ok(p.default)}
    try:
        parsed = parse_function(func)

        def static_value(name, node):
            if name in statics:
                return statics[name]
            if name in defaults:
                return defaults[name]  # not passed: its default
            raise parsed.error(node, f"{name} is a static argument")
        return lower_parsed(parsed, (), Options(pullback=True), static_value, callee_facts(func, statics, passed)).ir
    except SrcDiffError:
        return None


def _user_dependencies(parsed: ParsedFunction) -> tuple:
    """`parsed`'s dependencies, less the template helpers of code srcdiff generated: the loader
    put them in cells of their own (backend/loader.py), which nothing else can rebind, so a
    derivative of a derivative does not test them at every call."""
    generated = parsed.func.__code__.co_filename.startswith("<srcdiff:")
    return tuple(d for d in parsed.dependencies()
                 if not (generated and not isinstance(d.scope, dict)
                         and TEMPLATE_GLOBALS.get(d.name, depends.MISSING) is d.value))


def _resolved(parsed: ParsedFunction, expr: ast.expr):
    """The object a chain of names (``np.random.rand``) refers to in `parsed`, else None."""
    if isinstance(expr, ast.Attribute):
        return getattr(_resolved(parsed, expr.value), expr.attr, None)
    return parsed.resolve(expr.id) if isinstance(expr, ast.Name) else None


def inlined(found: Lowered, namer: Namer) -> Function:
    """`found`'s IR with its calls of small helpers inlined (ad/inline.py), as gradients see it."""
    return inline_calls(found.ir, namer, inlinable, found.parsed.func, found.parsed)


def _check_template_names(found: Lowered) -> None:
    """Generated code sees `np`, `math`... as srcdiff's; refuse if the user's mean else."""
    tree = found.parsed.tree
    global_reads = names_in(tree) - assigned_names(tree) - set(found.params)
    for name in sorted(global_reads & set(TEMPLATE_GLOBALS)):
        if found.parsed.resolve(name) is not TEMPLATE_GLOBALS[name]:
            raise found.parsed.error(tree, f"the name {name!r} means something else here than in "
                                     "srcdiff's generated code", f"rename your {name!r}")


def describe(parsed: ParsedFunction):
    """``line -> "file.py:12  code"``: the comment over each adjoint block."""
    def describe_line(line: int) -> str:
        loc = parsed.location(line)
        return f"{loc.short}  {loc.code.strip()}"
    return describe_line
