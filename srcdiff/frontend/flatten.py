"""A function taking trees becomes a function taking their leaves, before lowering.

`flat_function(func, structs)` rewrites the AST: a tree parameter ``p`` becomes one parameter
per leaf (``p_W1``, ``p_layers_0_b``), ``p["W1"]`` / ``p.W1`` / ``p[0]`` with constant keys
read those names, ``a, b = p`` unpacks, a ``for`` over a tree or over a constant tuple is
unrolled, dicts built with constant keys are local trees, a helper given a tree is itself
flattened for that structure, and ``self.method(...)`` of an object tree too.  The result is
compiled into a real function (same file, same line numbers, the same closure plus the
injected cells) and registered, so `parse_function` hands lowering the rewritten AST.

Anything else done with a tree is refused, naming the line: it is never silently wrong.
The statements live in flatten_statements.py; this module holds the entries, the naming
and the compilation.
"""

from __future__ import annotations

import ast
import inspect
import types
import weakref
from dataclasses import dataclass, field

from ..errors import SrcDiffError
from ..ir import memo
from . import depends
from .compiling import compile_function
from .flatten_statements import Rewriter
from .memo_caches import memo_given
from .naming import names_in
from .parse import ParsedFunction, parse_function, register
from .partial_lists import Bound, bound_items
from .tree_entries import Const, Names, leaf_entries
from .trees import leaf_paths

# ---- the flattened function ----

@dataclass
class Flat:
    """A flattened function: call ``func(*leaf arguments)``."""

    func: types.FunctionType
    params: list  # [(original name, Struct or None, [leaf parameter names])]
    static_cells: dict = field(default_factory=dict)
    deps: list = field(default_factory=list)  # the callees it resolved: rebuilt when one is rebound
    returns: object = None  # the Struct of the object it returns as a tuple of fields (returned_objects.py)


_FLAT: "weakref.WeakKeyDictionary" = memo.table(weak=True)  # function -> {key: Flat}
_BUSY: set = set()
_PENDING: dict = {}  # (function, key) -> the cells of calls of it inside itself, while it is built


def flat_function(func, structs: dict, has_aux: bool = False, returns_object: bool = False,
                  helper: bool = False) -> Flat:
    """`func` (a plain function) rewritten for parameters of structures `structs`
    (name -> Struct; parameters not named are plain values); with `returns_object`, a helper whose
    returns build an object, returned as the tuple of its fields (returned_objects.py); `helper`: called
    by another function rewritten (a list tree it returns is returned as the list of its leaves)."""
    # (its code too: a module reloader replaces ``__code__`` in place)
    key = (tuple(sorted((k, v) for k, v in structs.items() if v is not None)), has_aux, returns_object, helper,
           func.__code__)
    cache = _FLAT.setdefault(func, {})
    if key in cache and depends.hold(cache[key].deps):
        return cache[key]
    if (func, key) in _BUSY:
        if returns_object or any(leaf_paths(s) for _, s in key[0]):
            raise SrcDiffError(f"{func.__qualname__} calls itself with a parameter tree, which is not supported",
                               hint="pass the arrays it needs as separate arguments")
        return _itself(func, key, structs)  # recursion through lru_cache, or with a memo: the function itself
    _BUSY.add((func, key))
    try:
        made = cache[key] = _build(func, structs, has_aux, returns_object, helper)
    finally:
        _BUSY.discard((func, key))
        cells = _PENDING.pop((func, key), ())  # a failed build leaves no cell waiting
    for cell in cells:
        cell.cell_contents = made.func
    return made


def _itself(func, key, structs: dict) -> "Flat":
    """The flattened function being built, for a call of it inside itself (through a cache wrapper, or
    given a tree without leaves: a memo, memo_caches.py): its parameters are the function's own, a tree's
    none, and its cell is filled once it is built."""
    cell = types.CellType(None)
    _PENDING.setdefault((func, key), []).append(cell)
    params = [(a, structs[a], []) if structs.get(a) is not None and structs[a].is_container else (a, None, [a])
              for a in inspect.signature(func).parameters]
    return Flat(_Pending(cell), params)


class _Pending:
    """A function not built yet: helper_call stores the cell that will hold it (`cell`)."""

    def __init__(self, cell):
        self.cell = cell


def _build(func, structs: dict, has_aux: bool, returns_object: bool = False, helper: bool = False) -> Flat:
    parsed = parse_function(func)
    tree = parsed.tree
    a = tree.args
    if a.vararg or a.kwarg or a.posonlyargs:
        raise parsed.error(tree, f"{parsed.name} takes a parameter tree (or is called through a partial or as a "
                           "method), and also *args, **kwargs or positional-only parameters, which srcdiff does "
                           "not flatten", "name every parameter as a plain positional-or-keyword parameter")
    namer = Names(names_in(tree) | set(parsed.closure) | set(tree_free_names(parsed)))
    rewriter = Rewriter(parsed, namer, has_aux, flat_function)
    rewriter.returns_object, rewriter.helper = returns_object, helper
    params, new_args, defaults = [], [], []
    sig = inspect.signature(parsed.func)
    if hasattr(tree, "memo_parameter"):
        memo_given(parsed, structs.get(tree.memo_parameter))
    for arg in a.args + a.kwonlyargs:  # keyword-only ones last, as the call lists them (a signature's order)
        struct = structs.get(arg.arg)
        if struct is None or not struct.is_container:
            new_args.append(ast.arg(arg.arg))
            rewriter.env.pop(arg.arg, None)
            if struct is not None and struct.kind == "key":  # still passed: only the rewrite reads it as written
                rewriter.env[arg.arg] = Const(struct.cls)
            params.append((arg.arg, None, [arg.arg]))
            default = sig.parameters[arg.arg].default
            defaults = defaults + [default] if default is not inspect.Parameter.empty else []
            continue
        entry = rewriter.param_entry(arg.arg, struct)
        rewriter.env[arg.arg] = entry
        items = bound_items(entry) if isinstance(entry, Bound) else [entry]  # a method passed: its object's leaves
        names = [e.name for item in items for e in leaf_entries(item)]
        new_args += [ast.arg(n) for n in names]
        params.append((arg.arg, struct, names))
        defaults = []
    body = rewriter.body(tree.body)
    fdef = ast.FunctionDef(name=tree.name, args=ast.arguments(posonlyargs=[], args=new_args, vararg=None,
                                                              kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                              defaults=[]),
                           body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    ast.copy_location(fdef, tree)
    fdef.end_lineno = tree.end_lineno
    ast.fix_missing_locations(fdef)
    cells = {**parsed.closure, **rewriter.cells}
    made = compile_function(fdef, parsed, cells, tuple(defaults))
    flat = ParsedFunction(made, fdef, parsed.filename, parsed.file_lines, parsed.globals,
                          {n: cells[n] for n in made.__code__.co_freevars}, spellings=dict(namer.spellings))
    register(made, flat)
    # the names a rewrite read (``dict(zip(NAMES, values))``'s keys, desugar.py): rebuilt when one is rebound
    read = [d for d in parsed.depends.values() if d.name in getattr(tree, "read_statically", ())]
    return Flat(made, params, rewriter.cells, rewriter.deps + read, rewriter.returned)


def tree_free_names(parsed: ParsedFunction) -> set:
    code = parsed.func.__code__
    return set(code.co_names) | set(code.co_freevars)


__all__ = ["Flat", "flat_function"]
