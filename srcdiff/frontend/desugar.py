"""Python spellings rewritten, right after parsing, into the plain ones lowering knows.

Each rewrite keeps what the function computes, and every later stage (lowering of every
transformation, the tree rewrite, ``srcdiff.check``) sees the plain form at the user's lines:

- ``for i, v in enumerate(xs, start=k)``: ``for i_0, v in enumerate(xs): i = i_0 + k`` (in a
  comprehension, ``i`` reads ``(i + k)``);
- ``zip(a, b, strict=True)`` in a ``for``: the loop over ``zip(a, b)`` after a test that
  raises Python's ``ValueError`` when the lengths differ;
- ``while ...: ... else: tail`` (and ``for``): the loop, then ``tail``, under ``if not broke:`` when
  a ``break`` may leave the loop (``broke = True`` just before each; loop_else.py);
- ``first, *rest = v``: ``first, rest = v[0], v[1:]`` (a slice: an array's rows, or the items
  of a tuple written in the assignment), with Python's test of the length where the two ends
  could overlap;
- ``functools.reduce(f, seq[, init])``: a loop before the statement (desugar_reduce.py);
- ``(n := e)`` where it always runs: ``n = e`` before its statement (named_values.py);
- a nested ``def f(*terms)``: one parameter per argument its calls give (nested_varargs.py);
- ``math.dist``, ``np.piecewise`` of lambdas, ``zip_longest``, ``starmap``, ``min``/``max`` with
  ``key=`` (idiom_calls.py);
- ``math.hypot`` of three or more, ``itertools.pairwise``/``accumulate`` (call_spellings.py);
- ``np.linalg.multi_dot``, ``where=`` of sums and means, ``map``, ``any``/``all`` in a test,
  ``dataclasses.replace``, list literals written by index (call_forms.py);
- ``scipy.linalg.cho_factor``/``cho_solve``: a Cholesky factor and triangular solves (cholesky_factors.py);
- ``match`` on values: the ``if``/``elif`` chain it stands for (desugar_match.py);
- a list of tuples (``out.append(step(x))``): one list per field (tuple_lists.py);
- lists joined, grown while read, reversed, an item written (list_item_writes.py); chain, islice,
  np.maximum.at (list_joins.py, iteration_forms.py);
- a view updated in place (``head = buf[:3]; head += x``): the part of the array (views.py);
- a helper of the module called for its effect on its arguments (``_normalise_(u)``): its body
  written out on the caller's names (effect_helpers.py);
- ``f(x, out=y)``: ``y[:] = f(x)`` (out_arguments.py); a write through a view or a second name
  (``flat = Y.reshape(-1); flat[::2] = v``, ``b = a; b += v``): a write into the array (view_writes.py);
- complex values (``X = np.fft.rfft(x)``): pairs of real ones (complex_split.py);
- a memo dict of a recursion dropped (memo_caches.py); frozen scipy.stats laws (stats_spellings.py);
- ``clip = make_clip(c)`` of a factory of yours: its body written out, the closure a nested def
  (closure_factories.py);
- merged dicts, ``nonlocal``, ``zip(*pairs)``, a list's ``.pop``/``.insert``, ... (python_forms.py).

A spelling these rewrites do not cover is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy

from .call_forms import rewrite_spellings, spelled
from .call_spellings import has_spellings, rewrite_calls
from .cholesky_factors import has_cholesky_factors, rewrite_cholesky_factors
from .closure_factories import has_factory_calls, rewrite_factory_calls
from .complex_split import may_be_complex, split_complex
from .depends import MISSING
from .desugar_match import match_as_if
from .desugar_reduce import hoist_reductions
from .effect_helpers import has_effect_calls, inline_effect_helpers
from .function_argument_calls import has_function_arguments, rewrite_function_arguments
from .function_lists import has_function_lists, rewrite_function_lists
from .generator_pipelines import has_pipelines, rewrite_pipelines
from .generators import check_generator_calls, has_generator_extremes, rewrite_generator_extremes
from .idiom_calls import has_idiom_calls, rewrite_idiom_calls
from .item_swaps import has_item_swaps, rewrite_item_swaps
from .iteration_forms import has_iteration_forms, rewrite_iteration_forms
from .length_loops import has_length_loops, rewrite_length_loops
from .list_item_writes import has_item_writes
from .list_joins import rewrite_list_joins
from .loop_else import without_else
from .memo_caches import drop_memo_caches, has_memo_cache
from .named_values import has_named_values, hoist_named_values
from .naming import FreeNames, Namer, assigned_names, names_in
from .nested_varargs import bind_nested_varargs, has_nested_varargs
from .numpy_methods import has_numpy_methods, rewrite_numpy_methods
from .out_arguments import has_out_arguments, rewrite_out_arguments
from .python_forms import has_python_forms, rewrite_python_forms
from .range_dicts import has_range_dicts, rewrite_range_dicts
from .star_calls import has_star_calls, rewrite_star_calls
from .stats_spellings import has_stats_spellings, rewrite_stats
from .tuple_lists import has_lists, split_tuple_lists
from .view_writes import has_view_writes, rewrite_view_writes
from .views import substitute_views


def desugared(tree: ast.FunctionDef, func) -> ast.FunctionDef:
    """`tree` with the spellings above rewritten (the same tree if there were none)."""
    check_generator_calls(tree, func)  # before any rewrite: the calls as written (generators.py)
    names = FreeNames(tree, func)
    if not any(found(tree) for found in _FOUND) and not has_factory_calls(tree, names) \
            and not has_pipelines(tree, names) and not has_function_arguments(tree, names) \
            and not has_generator_extremes(tree, func):
        return tree
    tree = copy.deepcopy(tree)
    rewrite_function_lists(tree, names)  # ``for a in [np.tanh, relu]``: unrolled, each function named
    rewrite_generator_extremes(tree, func, names.namer)  # ``max(gen(x))``: of a list built here (generators.py)
    hoist_named_values(tree)  # first: the rewrites below read plain assignments
    rewrite_star_calls(tree, names)  # ``dl(*args)`` of ``args = (w, b, x)``: dl(args[0], args[1], args[2])
    rewrite_factory_calls(tree, names)  # ``clip = make_clip(c)``: the closure a nested def (closure_factories.py)
    rewrite_pipelines(tree, names)  # ``shifted(scaled(x, 0.5), 0.1)``: the outer generator written out
    rewrite_function_arguments(tree, names)  # ``_euler(lambda y: -k * y, y0, h)``: the helper written out
    drop_memo_caches(tree)
    rewrite_range_dicts(tree, names)  # ``{i: e for i in range(n)}`` read as a list: that list
    rewrite_python_forms(tree, names)
    rewrite_iteration_forms(tree, names)
    rewrite_idiom_calls(tree, names)  # before rewrite_calls: math.dist becomes a math.hypot
    rewrite_numpy_methods(tree, names)  # np.add.outer, np.vdot, reshape(order="F"), max(a, b, c)
    rewrite_item_swaps(tree, names)  # ``y[j], y[j + 1] = y[j + 1], y[j]`` of a list: four statements
    bind_nested_varargs(tree, names.namer)
    rewrite_calls(tree, names)
    rewrite_stats(tree, names)
    rewrite_cholesky_factors(tree, names)
    _Rewrite(names, tree).generic_visit(tree)  # the body; a nested def is a scope of its own
    rewrite_spellings(tree, names)
    hoist_reductions(tree, names)
    split_tuple_lists(tree, names)
    rewrite_length_loops(tree, names)  # ``while len(xs) < n: xs.append(...)``: a for loop, which list joins grow
    rewrite_list_joins(tree, names)  # after the per-field lists: their appends and reads too
    inline_effect_helpers(tree, names)  # ``_normalise_(u)``: the helper's body on u (effect_helpers.py)
    rewrite_out_arguments(tree, names)  # ``f(x, out=y)``: ``y[:] = f(x)``, before the views it may write
    rewrite_view_writes(tree, names)  # writes through views and second names (view_writes.py)
    substitute_views(tree)
    split_complex(tree, names)
    return ast.fix_missing_locations(tree)


def _candidates(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether the function has anything a rewrite could apply to."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.While, ast.For)) and node.orelse or isinstance(node, ast.Starred) \
                and isinstance(node.ctx, ast.Store) or isinstance(node, ast.Match):
            return True
        if isinstance(node, ast.Call) and (node.func.attr if isinstance(node.func, ast.Attribute) else
                                           getattr(node.func, "id", None)) in _CALLED:
            return True
    return False


#: the names of the calls a rewrite may apply to (the rewrite itself resolves what they are)
_CALLED = {"enumerate", "zip", "reduce", "update"}

#: cheap tests, one a rewrite module: whether the function has anything that rewrite could apply to
_FOUND = (_candidates, spelled, has_lists, may_be_complex, has_spellings, has_named_values, has_nested_varargs,
          has_cholesky_factors, has_python_forms, has_idiom_calls, has_numpy_methods, has_iteration_forms,
          has_stats_spellings, has_memo_cache, has_item_swaps, has_out_arguments, has_view_writes, has_effect_calls,
          has_item_writes, has_star_calls, has_function_lists, has_length_loops, has_range_dicts,
          lambda tree: any(isinstance(n, ast.AugAssign) for n in ast.walk(tree)))


def _statements(field: list) -> bool:
    return bool(field) and all(isinstance(s, ast.stmt) for s in field)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, names: FreeNames, tree: ast.FunctionDef):
        self.names, self.tree = names, tree

    def generic_visit(self, node):
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):  # statements a rewrite turned into several
            field = getattr(node, name, None)
            if isinstance(field, list) and field and any(isinstance(s, list) for s in field):
                setattr(node, name, [t for s in field for t in (s if isinstance(s, list) else [s])])
        return node

    def visit_FunctionDef(self, node):
        return node  # a scope of its own: left as written

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        before = []
        if self.names.calls(node.iter, builtins.enumerate):
            node = _enumerate_from(node, self.names) or node
        elif self.names.calls(node.iter, builtins.zip) and node.iter.keywords:
            before = _zip_strict(node, self.names)
        return before + without_else(node, self.names)

    def visit_Match(self, node: ast.Match):
        self.generic_visit(node)
        return match_as_if(node, self.names.namer, self.names.resolve) or node

    def visit_While(self, node: ast.While):
        self.generic_visit(node)
        return without_else(node, self.names)

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)):
            return _starred(node, self.names, self.tree) or node
        return node

    def visit_Expr(self, node: ast.Expr):
        self.generic_visit(node)
        return _dict_update(node, self.tree, self.names.namer) or node

    def _comprehension(self, node):
        self.generic_visit(node)
        for k, gen in enumerate(node.generators):
            if self.names.calls(gen.iter, builtins.zip) and [(w.arg, getattr(w.value, "value", None))
                                                             for w in gen.iter.keywords] == [("strict", False)]:
                gen.iter.keywords = []  # zip(a, b, strict=False) is zip(a, b)
            start = _start_of(gen.iter, self.names)
            if start is None or not (isinstance(gen.target, ast.Tuple) and gen.target.elts
                                     and isinstance(gen.target.elts[0], ast.Name)):
                continue
            index = gen.target.elts[0].id
            if any(index in assigned_names(g.target) for g in node.generators[k + 1:]):
                continue
            gen.iter.keywords, gen.iter.args = [], gen.iter.args[:1]
            shifted = _Shift(index, start)
            for later in node.generators[k + 1:]:
                later.iter = shifted.visit(later.iter)
                later.ifs = [shifted.visit(c) for c in later.ifs]
            gen.ifs = [shifted.visit(c) for c in gen.ifs]
            for name in ("elt", "key", "value"):
                if getattr(node, name, None) is not None:
                    setattr(node, name, shifted.visit(getattr(node, name)))
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


class _Shift(ast.NodeTransformer):
    """Reads of `name` as ``(name + start)``; a nested scope that rebinds `name` is left alone."""

    def __init__(self, name: str, start: ast.expr):
        self.name, self.start = name, start

    def visit_Name(self, node: ast.Name):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.BinOp(node, ast.Add(), copy.deepcopy(self.start)), node)
        return node

    def visit_Lambda(self, node):
        return node if self.name in {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} \
            else self.generic_visit(node)


def _start_of(call: ast.expr, names: FreeNames) -> ast.expr | None:
    """The start of ``enumerate(xs, start=k)`` / ``enumerate(xs, k)``: a literal or a name
    (read once, as Python reads it when the loop starts); None otherwise."""
    if not names.calls(call, builtins.enumerate) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    given = call.args[1:] + [k.value for k in call.keywords if k.arg == "start"]
    if len(call.args) < 1 or len(given) != 1 or len(call.args) + len(call.keywords) != 2:
        return None
    start = given[0]
    return start if isinstance(start, (ast.Constant, ast.Name)) else None


def _enumerate_from(node: ast.For, names: FreeNames) -> ast.For | None:
    start = _start_of(node.iter, names)
    target = node.target
    if start is None or not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                             and isinstance(target.elts[0], ast.Name)):
        return None
    if isinstance(start, ast.Name) and start.id in assigned_names(ast.Module(node.body, [])):
        return None  # the start changes in the loop: read once by Python, not each time here
    index = target.elts[0].id
    counter = names.namer.fresh(f"{index}_0")
    node.iter.args, node.iter.keywords = node.iter.args[:1], []
    target.elts[0] = ast.copy_location(ast.Name(counter, ast.Store()), target.elts[0])
    shift = ast.Assign([ast.Name(index, ast.Store())],
                       ast.BinOp(ast.Name(counter, ast.Load()), ast.Add(), copy.deepcopy(start)))
    node.body.insert(0, ast.copy_location(shift, node))
    return node


def _plain(expr: ast.expr) -> bool:
    """An expression Python may read twice with the same value: names, attributes, subscripts."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load, ast.Slice,
                              ast.Tuple, ast.UnaryOp, ast.USub)) for n in ast.walk(expr))


def _zip_strict(node: ast.For, names: FreeNames) -> list:
    """``for a, b in zip(xs, ys, strict=True)``: the test of the lengths, and the plain zip."""
    call = node.iter
    if len(call.keywords) != 1 or call.keywords[0].arg != "strict" \
            or not isinstance(call.keywords[0].value, ast.Constant) or len(call.args) < 2:
        return []
    strict = bool(call.keywords[0].value.value)
    if strict and not all(_plain(a) for a in call.args):
        return []
    call.keywords = []
    if not strict:
        return []
    lengths = [ast.Call(ast.Name("len", ast.Load()), [copy.deepcopy(a)], []) for a in call.args]
    differ = ast.Compare(lengths[0], [ast.NotEq()] * (len(lengths) - 1), lengths[1:])
    if len(lengths) > 2:  # any length other than the first
        differ = ast.BoolOp(ast.Or(), [ast.Compare(lengths[0], [ast.NotEq()], [other]) for other in lengths[1:]])
    message = ast.Constant("zip() arguments have different lengths")
    error = ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [message], []), None)
    if names.resolve(ast.Name("len")) is not builtins.len or names.resolve(ast.Name("ValueError")) is not ValueError:
        return []
    return [ast.copy_location(ast.If(differ, [ast.copy_location(error, node)], []), node)]


def _dict_update(node: ast.Expr, tree: ast.FunctionDef, namer: Namer) -> list | None:
    """``d.update({"b": e})`` / ``d.update(b=e)`` of a dict the function builds: ``d["b"] = e``."""
    call = node.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update"
            and isinstance(call.func.value, ast.Name)):
        return None
    name = call.func.value.id
    if name in {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}:
        return None
    for other in ast.walk(tree):  # every assignment of the name builds a dict
        targets = other.targets if isinstance(other, ast.Assign) else \
            [other.target] if isinstance(other, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)) else []
        if any(name in assigned_names(t) for t in targets) and not (
                isinstance(other, ast.Assign) and len(other.targets) == 1 and isinstance(other.targets[0], ast.Name)
                and (isinstance(other.value, (ast.Dict, ast.DictComp)) or isinstance(other.value, ast.Call)
                     and isinstance(other.value.func, ast.Name) and other.value.func.id == "dict")):
            return None
    if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Dict) \
            and None not in call.args[0].keys:
        pairs = list(zip(call.args[0].keys, call.args[0].values))
    elif not call.args and call.keywords and all(k.arg is not None for k in call.keywords):
        pairs = [(ast.Constant(k.arg), k.value) for k in call.keywords]
    else:
        return None
    before = []
    if len(pairs) > 1 and any(name in names_in(v) for _, v in pairs):  # Python reads every value first
        for k, (key, value) in enumerate(pairs):
            held = namer.fresh(f"{name}_new")
            before.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], value), node))
            pairs[k] = (key, ast.Name(held, ast.Load()))
    return before + [ast.copy_location(ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), key, ast.Store())],
                                                  value), node) for key, value in pairs]


_LIBRARIES = ("numpy", "builtins", "math", "scipy")


def _read_as_sequence(tree: ast.FunctionDef, name: str, names: FreeNames) -> bool:
    """Whether every read of `name` treats it as a read-only sequence: iterated, indexed, or an
    argument of a library function (len, sum, np.stack) -- where a slice of the value (an
    array, a tuple) and the list Python makes are the same.  (``rest + [c]``, ``rest * 2``,
    ``rest.append(c)`` or a user helper could tell them apart.)"""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node or isinstance(parent, ast.comprehension) \
                or isinstance(parent, ast.For) and parent.iter is node:
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            module = (getattr(names.resolve(parent.func), "__module__", None) or "builtins").split(".")[0]
            if names.resolve(parent.func) is not MISSING and module in _LIBRARIES:
                continue
        return False
    return True


def _starred(node: ast.Assign, names: FreeNames, tree: ast.FunctionDef):
    """``a, *b, c = value``: one plain assignment of the items and the middle slice (left out
    where b is never read)."""
    target = node.targets[0]
    stars = [k for k, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
    if len(stars) != 1 or not all(isinstance(t, ast.Name) or isinstance(t, ast.Starred)
                                  and isinstance(t.value, ast.Name) for t in target.elts):
        return None
    if not _read_as_sequence(tree, target.elts[stars[0]].value.id, names):
        return None
    k = stars[0]
    lead, trail = k, len(target.elts) - k - 1
    plain = [t.value if isinstance(t, ast.Starred) else t for t in target.elts]
    value = node.value
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        if len(value.elts) < lead + trail:
            return None  # Python raises: lowering says so
        middle = value.elts[lead:len(value.elts) - trail]
        items = value.elts[:lead] + [ast.List(middle, ast.Load())] + value.elts[len(value.elts) - trail:]
        return ast.copy_location(ast.Assign([ast.Tuple(plain, ast.Store())], ast.Tuple(items, ast.Load())), node)
    before = []
    if not isinstance(value, ast.Name):
        held = names.namer.fresh("unpacked")
        before.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], value), node))
        value = ast.Name(held, ast.Load())
    if lead and trail and names.resolve(ast.Name("len")) is builtins.len:
        short = ast.Compare(ast.Call(ast.Name("len", ast.Load()), [value], []), [ast.Lt()],
                            [ast.Constant(lead + trail)])
        message = ast.Constant(f"not enough values to unpack (expected at least {lead + trail})")
        error = ast.copy_location(ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [message], []), None),
                                  node)
        before.append(ast.copy_location(ast.If(short, [error], []), node))

    def item(j):
        return ast.Subscript(copy.deepcopy(value), ast.Constant(j), ast.Load())
    middle = ast.Subscript(copy.deepcopy(value), ast.Slice(ast.Constant(lead) if lead else None,
                                                           ast.Constant(-trail) if trail else None), ast.Load())
    items = [item(j) for j in range(lead)] + [middle] + [item(j - trail) for j in range(trail)]
    star = plain[k].id
    if not any(isinstance(n, ast.Name) and n.id == star and isinstance(n.ctx, ast.Load) for n in ast.walk(tree)):
        del plain[k], items[k]  # ``coef, *_ = np.linalg.lstsq(A, b)``: the rest is never read, nor sliced
    assign = ast.copy_location(ast.Assign([ast.Tuple(plain, ast.Store())], ast.Tuple(items, ast.Load())), node)
    return before + [assign]


__all__ = ["desugared"]
