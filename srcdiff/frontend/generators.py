"""A generator function of the user's (a ``def`` with ``yield``), read as the list it yields.

A generator that only yields values, looped over or summed by the function srcdiff
differentiates, computes the same values as a function that appends them to a list and returns
it; srcdiff reads it as that function, right after parsing::

    def residuals(w, X, y):                      def residuals(w, X, y):
        for row, t in zip(X, y):                     residuals_items = []
            yield np.dot(row, w) - t      ==>        for row, t in zip(X, y):
                                                         residuals_items.append(np.dot(row, w) - t)
                                                     return residuals_items

Its loops are then differentiated like any helper's (their bounds read where they are known,
refused at the user's line where not).  ``yield from xs`` is a loop appending
the items of ``xs``.  ``yield`` used as a value (``x = yield v``, ``y = yield from g``) and a
``return`` with a value have no list to stand for; such a generator is
refused at that line, and so is a ``return`` inside its body (a loop's or branch's; end the
loop with ``break``).
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import inspect
import linecache
import textwrap

from ..errors import Location, SrcDiffError
from .compiling import compile_function
from .naming import Namer, names_in, own_nodes


def generator_error(func, where) -> SrcDiffError:
    return SrcDiffError(f"{func.__name__} is a generator function, which has no single value to differentiate",
                        where, "return a value instead of yielding; collect the values in a list")


def listed_parsed(parsed, where):
    """The ParsedFunction of the generator `parsed` read as a function returning the list it
    yields (a new function, compiled from the rewritten ``def``); refused at the line that
    keeps it from being read so."""
    found = _unsupported(parsed.tree)
    if found is not None:
        node, what = found
        raise parsed.error(node, f"{parsed.func.__name__} is a generator function with {what}, which srcdiff "
                           "cannot read as the list of the values it yields",
                           "yield plain values, end loops with break (not return), or build and return a list")
    fdef = listed(parsed.tree)
    made = compile_function(fdef, parsed, parsed.closure, parsed.func.__defaults__ or ())
    made.__kwdefaults__ = parsed.func.__kwdefaults__
    return dataclasses.replace(parsed, func=made, tree=fdef)


def listed_def(func) -> ast.FunctionDef | None:
    """The ``def`` of generator function `func` read as the list it yields (`listed`), its lines the file's;
    None when its source cannot be read or has what no list stands for."""
    try:
        lines, first = inspect.getsourcelines(func.__code__)
        tree = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    if not isinstance(tree, ast.FunctionDef) or tree.name != func.__code__.co_name or tree.decorator_list \
            or _unsupported(tree) is not None:
        return None
    ast.increment_lineno(tree, first - 1)
    return listed(tree)


def _unsupported(tree: ast.FunctionDef):
    """(node, what) of the first construct with no list to stand for; None if there is none."""
    own = list(own_nodes(tree))
    parents = {child: node for node in [tree, *own] for child in ast.iter_child_nodes(node)}
    for node in sorted(own, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
        if isinstance(node, ast.YieldFrom) and not isinstance(parents.get(node), ast.Expr):
            return node, "a `yield from` used as a value"
        if isinstance(node, ast.Yield) and not isinstance(parents.get(node), ast.Expr):
            return node, "a `yield` used as a value"
        if isinstance(node, ast.Return) and (node.value is not None or parents.get(node) is not tree):
            return node, "a `return` inside its body" if node.value is None else "a `return` of a value"
    return None


def listed(tree: ast.FunctionDef) -> ast.FunctionDef:
    """The ``def`` of the list-building function for the generator `tree` (which has nothing
    `_unsupported` finds)."""
    namer = Namer(names_in(tree))
    items = namer.fresh(f"{tree.name}_items")
    fdef = _Listing(items, namer.fresh("item"), tree).visit(copy.deepcopy(tree))
    start = ast.Assign([ast.Name(items, ast.Store())], ast.List([], ast.Load()))
    end = ast.Return(ast.Name(items, ast.Load()))
    body = [s for s in fdef.body if not isinstance(s, ast.Return)]  # a last bare return: the list's
    first = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    fdef.body = body[:first] + [ast.copy_location(start, fdef.body[first])] + body[first:] \
        + [ast.copy_location(end, fdef.body[-1])]
    return ast.fix_missing_locations(fdef)


class _Listing(ast.NodeTransformer):
    """``yield v`` as ``items.append(v)``; ``yield from xs`` as ``for item in xs: items.append(item)``."""

    def __init__(self, items: str, item: str, root):
        self.items, self.item, self.root = items, item, root

    def visit_FunctionDef(self, node):  # the generator itself (a copy of root); not a nested scope
        return self.generic_visit(node) if (node.name, node.lineno) == (self.root.name, self.root.lineno) else node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Expr(self, node: ast.Expr):
        if isinstance(node.value, ast.Yield):
            value = node.value.value if node.value.value is not None else ast.Constant(None)
            call = ast.Call(ast.Attribute(ast.Name(self.items, ast.Load()), "append", ast.Load()),
                            [self.visit(value)], [])
            return ast.copy_location(ast.Expr(call), node)
        if isinstance(node.value, ast.YieldFrom):  # the values of another iterable, in order
            append = ast.Call(ast.Attribute(ast.Name(self.items, ast.Load()), "append", ast.Load()),
                              [ast.Name(self.item, ast.Load())], [])
            loop = ast.For(ast.Name(self.item, ast.Store()), self.visit(node.value.value), [ast.Expr(append)], [])
            return ast.fix_missing_locations(ast.copy_location(loop, node))
        return self.generic_visit(node)





def check_generator_calls(tree: ast.FunctionDef, func) -> None:
    """Refuse, at its line, a call of a generator function of the user's whose values are not
    consumed where it is made: read as a list, a generator kept in a name (``g = gen(x)``) or
    given to ``next`` would be read again where Python finds it exhausted."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not inspect.isgeneratorfunction(_named(node.func, func)):
            continue
        parent = parents.get(node)
        if _looped(node, parents) or isinstance(parent, ast.YieldFrom) or _consumed(node, parent, func):
            continue
        if isinstance(parent, ast.Call) and node in parent.args and _named(parent.func, func) in (enumerate, zip) \
                and _looped(parent, parents):
            continue  # for i, v in enumerate(gen(x)): read once, in order
        if isinstance(parent, ast.Call) and node in parent.args \
                and inspect.isgeneratorfunction(_named(parent.func, func)):
            continue  # another generator of yours reads it, once, in order (generator_pipelines.py)
        code = func.__code__
        lineno = code.co_firstlineno + node.lineno - 1  # (the tree counts from its def line here)
        line = linecache.getline(code.co_filename, lineno).strip()
        raise SrcDiffError(f"{ast.unparse(node)} makes a generator used here other than by looping over it at "
                           "once: srcdiff reads a generator function of yours as the list of the values it yields",
                           Location(code.co_filename, lineno, line),
                           "loop over the call itself (for v in gen(...)), or give it to sum(), max(), min() or list()")
    _check_iterators_read_once(tree, func, parents)


#: builtins that read an iterable once, in order, to its end (or to the item that decides them): their value of
#: the generator is their value of the list it yields
#: (``max``/``min`` alone: rewrite_generator_extremes makes their argument a list built in the function)
_CONSUMERS = (sum, list, max, min)


def _consumed(node, parent, func) -> bool:
    """``sum(gen(x))``, ``sum(gen(x), start)``, ``list(gen(x))``, ``max(gen(x))``, ``min(gen(x))``."""
    if not (isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and not parent.keywords):
        return False
    consumer = _named(parent.func, func)
    return consumer in _CONSUMERS and (len(parent.args) == 1 or consumer is sum and len(parent.args) == 2)


def _extremes(tree, func) -> list:
    """The calls ``max(gen(...))`` / ``min(gen(...))`` of a generator function of the user's."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords
            and _named(n.func, func) in (max, min) and isinstance(n.args[0], ast.Call)
            and inspect.isgeneratorfunction(_named(n.args[0].func, func))]


def has_generator_extremes(tree, func) -> bool:
    return bool(_extremes(tree, func))


def rewrite_generator_extremes(tree, func, namer) -> None:
    """``max(gen(x))`` -> ``max([v for v in gen(x)])``, in place: the largest of a list built here (the
    generator's list is its helper's value, whose items srcdiff does not know to be numbers)."""
    for call in _extremes(tree, func):
        item = namer.fresh("item")
        call.args[0] = ast.copy_location(ast.ListComp(ast.Name(item, ast.Load()), [ast.comprehension(
            ast.Name(item, ast.Store()), call.args[0], [], 0)]), call.args[0])


def _looped(node, parents: dict) -> bool:
    parent = parents.get(node)
    return isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node


#: calls that make an iterator Python exhausts on its first read (srcdiff reads them as lists)
_ITERATORS = {"map", "filter", "zip", "starmap", "zip_longest"}


def _check_iterators_read_once(tree: ast.FunctionDef, func, parents: dict) -> None:
    """Refuse, at its line, an iterator kept in a name (``terms = (f(v) for v in x)``,
    ``itertools.starmap(...)``, ``zip(...)``) and read twice, or once inside a loop it was not
    made in: Python's second read finds it exhausted, while srcdiff reads it as a list again."""
    made = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and (isinstance(node.value, ast.GeneratorExp) or isinstance(node.value, ast.Call)
                     and getattr(node.value.func, "attr", getattr(node.value.func, "id", None)) in _ITERATORS):
            made.setdefault(node.targets[0].id, node)
    for name, assign in made.items():
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if len(reads) == 1 and not _in_loop_without(reads[0], assign, parents) or not reads:
            continue
        code = func.__code__
        node = reads[1] if len(reads) > 1 else reads[0]
        lineno = code.co_firstlineno + node.lineno - 1
        raise SrcDiffError(f"{name} is an iterator read again here, where Python finds it exhausted: srcdiff "
                           "reads it as a list, which would count its items again",
                           Location(code.co_filename, lineno, linecache.getline(code.co_filename, lineno).strip()),
                           f"make {name} a list ([...] or list(...)) to read it again, or read it once")


def _in_loop_without(node, assign, parents) -> bool:
    """Whether `node` is inside a loop (or comprehension) that does not also hold `assign`."""
    inside, child = parents.get(node), node
    while inside is not None:
        # a for's iterable, a comprehension's first one, is read once as the loop starts
        read_once = isinstance(inside, (ast.For, ast.comprehension)) and child is inside.iter \
            and not (isinstance(inside, ast.comprehension) and parents[inside].generators[0] is not inside)
        if isinstance(inside, (ast.For, ast.While, ast.comprehension)) and not read_once \
                and not any(n is assign for n in ast.walk(inside)):
            return True
        inside, child = parents.get(inside), inside
    return False


def _named(expr: ast.expr, func):
    """The object a Name/Attribute chain names in `func`'s closure, globals or builtins (None
    for a local name or anything else)."""
    if isinstance(expr, ast.Attribute):
        base = _named(expr.value, func)
        return None if base is None else getattr(base, expr.attr, None)
    if not isinstance(expr, ast.Name) or expr.id in func.__code__.co_varnames:
        return None
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    if expr.id in cells:
        try:
            return cells[expr.id].cell_contents
        except ValueError:
            return None
    return func.__globals__.get(expr.id, getattr(builtins, expr.id, None))


__all__ = ["check_generator_calls", "generator_error", "has_generator_extremes", "listed", "listed_parsed",
           "rewrite_generator_extremes"]
