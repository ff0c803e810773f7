"""``jit="numba"``: the generated gradient compiled by numba (optional extra ``srcdiff[numba]``).

The generated gradient and the adjoints of the user functions it calls become one module
numba compiles (backend/numba/module.py: callee adjoints as plain functions, the user's
globals as arguments read on every call, numba's spellings).  The module is written to a
file named by its text's hash, so numba's on-disk cache (``cache=True``) lets a new process
load the compiled code instead of compiling it again; ``SRCDIFF_NUMBA_CACHE`` names the
folder (default: ``~/.cache/srcdiff/numba``).

What numba refuses is raised as a `SrcDiffError` naming the user's line the refused code
comes from, on the first call; nothing falls back to NumPy.  An error raised while the
compiled code runs (a shape that does not fit, a refused branch side now taken) is raised
by running the Python gradient, which says it with its values and the user's line.  numba is
imported only here, when it is used."""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import re
import threading
import types
from contextlib import nullcontext
from dataclasses import replace

import numpy as np

from ..errors import SrcDiffError
from . import code_swaps, module_files
from .module_files import cache_folder

HINT = "use srcdiff.grad(f) without jit=, or keep the function to loops and NumPy calls numba compiles"
#: the same for srcdiff.vmap's batched code, which without jit= runs what it cannot batch one example at a time
#: (a Jacobian's batched rows are refused by jacobian's own words and hint: api/jacobians.py)
BATCHED_HINT = ("use srcdiff.vmap(f) without jit= (what it cannot batch then runs one example at a time), or keep "
                "the function to loops and NumPy calls numba compiles")
_COMPILED = "__srcdiff_dispatchers__"


def numba_function(made, found, template_globals: dict, origins, extra=None):
    """The Variant `made` of the lowered function `found` (driver's `Lowered`) compiled by
    numba, as a function of the gradient's arguments; `origins` (backend/origins.py) maps
    generated lines to the user's.  What the variant is specialised on (the globals the
    transform read by value, which the caller guards, and static parameters) is compiled in
    as constants; every other global the code reads is an argument read on each call.

    `extra(built)` gives functions compiled in the same module (name, text), each calling the
    main one by its name (backend/numba/columns.py: a loop over the columns of a Hessian).

    A string argument (``reduction="sum"``, an option the code compares) is compiled in too,
    one module per value met: the branches it decides go, and numba does not type a branch
    that returns an array where the one taken returns a number.  So is an int argument passed
    to a function under ``functools.lru_cache`` (``_binomial_row(n)``): the call is then made
    once, its value compiled in (numba/cached_calls.py)."""
    key = next((k for k, v in found.variants.items() if v is made), None)
    code = getattr(made.function, "__code__", None)
    names = code.co_varnames[:code.co_argcount] if code is not None else ()
    strings = [i for i, part in enumerate(key) if part is str] if isinstance(key, tuple) else []
    if isinstance(key, tuple) and len(names) == len(key):  # an int a cached function takes (numba/cached_calls.py)
        from .numba.cached_calls import passed_to_cached
        strings += [i for i in passed_to_cached(made.source, made.function, names) if key[i] is int]
    if not strings or len(names) != len(key):
        return _compiled_function(made, found, template_globals, origins, {}, extra)
    made_for = {}

    def by_strings(*args):
        values = tuple(args[i] if i < len(args) else None for i in strings)
        run = made_for.get(values)
        if run is None:
            fixed = {names[i]: v for i, v in zip(strings, values) if type(v) in (str, int)}
            run = made_for[values] = _compiled_function(made, found, template_globals, origins, fixed, extra)
        by_strings.source = run.source
        return run(*args)
    by_strings.source, by_strings.py_func = "", made.function  # (no ``env``: numba/entry.py takes the general path)
    return by_strings


def _compiled_function(made, found, template_globals: dict, origins, fixed: dict, extra=None):
    """`numba_function`'s work, with the parameters `fixed` (IR name -> value) compiled in."""
    parsed = found.parsed
    args = parsed.tree.args
    ir_name = dict(zip([a.arg for a in args.posonlyargs + args.args + args.kwonlyargs], found.params))
    statics = {ir_name[n]: v for n, v in {**found.constants, **found.statics}.items() if n in ir_name}
    statics.update(fixed)
    where = f"{parsed.location(parsed.tree).short}: "
    batched = found.options.mode == "batched"  # srcdiff.vmap's code (a Jacobian's rows too): said so
    code, hint = ("batched code", BATCHED_HINT) if batched else ("gradient", HINT)
    try:
        numba = importlib.import_module("numba")
    except ImportError:
        raise SrcDiffError("jit='numba' needs numba, which is not installed",
                           hint="pip install 'srcdiff[numba]'") from None
    from .numba import (
        cache_races,
        compile_watch,
        dict_args,
        empty_lists,
        first_call,
        float32_constants,
        fusion,
        joins,
        list_reads,
        list_repeats,
        list_writes,
        prefuse,
        record_lists,
        result_dtypes,
        scalar_where,
        special,
        widening,
    )
    from .numba import module as numba_module
    from .numba.homes import homes as helper_homes
    from .numba.ufuncs import vectorised

    def located(variant, line: int) -> tuple:
        origin = origins.by_file.get(getattr(variant.function, "__code__", None) and
                                     variant.function.__code__.co_filename)
        place = origin.user_line.get(line) if origin is not None else None
        # (a called gradient's code is generated: its line is followed back to the user's)
        return origins.back_to_user(origin, *place) if place else (None, None)

    def refuse(variant, line: int, reason: str):
        location, _ = located(variant, line)
        raise SrcDiffError(f"jit='numba' cannot compile this {code}: {reason}" if location else
                           f"{where}jit='numba' cannot compile this {code}: {reason}", location, hint)

    homes = helper_homes()  # each helper's numba version, by the module that holds it
    key = _with_tangents(next((k for k, v in found.variants.items() if v is made), None), found)
    plain = numba_module.build(made, template_globals, homes, refuse, found.depends, statics, key)
    plain = list_repeats.rewrite(plain, joins.rewritten)  # ``x[PICK * 2]`` of a module list of ints
    plain = joins.promote(plain, made, key)  # a number before a loop, an array in it (numba/joins.py)
    plain = empty_lists.ahead(plain, made, key)  # ``while len(xs) < n`` of a list that starts empty
    plain, dicts_at = dict_args.rewrite(plain, made, key)  # ``rates[(0, 1)]`` of a dict argument
    if found.options.mode != "reverse":  # forward mode (jvp, hvp) and batched code: ready for fusion
        plain = prefuse.tidy(plain)
    built = fusion.fused(plain, made, key)  # elementwise chains as loops (numba/fusion.py)
    if extra is not None:
        plain, built = _with_extra(plain, extra), _with_extra(built, extra)

    refused = numba.core.errors.NumbaError
    env = built.env

    def compiled(built):
        built = vectorised(built)  # NumPy's vector loops for large arrays' tanh, exp, ...
        params = [e.param for e in env]  # (a module list of dicts read at a count: its columns, record_lists.py)
        built, columns = record_lists.rewrite(built, params, [e.current() for e in env])
        header = ["# generated by srcdiff for jit='numba' from the gradient of "
                  f"{parsed.location(parsed.tree).short}",
                  f"# helpers {_helpers_stamp(numba)}"]  # numba's cache does not see a helper change: the name does
        for name, (module, attribute) in sorted(built.imports.items()):
            header.append(f"import {module} as {name}" if attribute is None else
                          f"from {module} import {attribute} as {name}")
        text = "\n".join(header) + "\n\n\n" + built.source + "\n"
        offset = len(header) + 2
        special.prepare(name for _, name in built.imports.values() if name)  # (SciPy's compiled code it calls)
        with module_files.LOADING:
            module = module_files.load(built.main, text)
            if not hasattr(module, _COMPILED):  # (a module loaded before in this process has its dispatchers)
                for name in built.functions:
                    setattr(module, name, numba.njit(cache=built.cached, **numba_module.NUMBA_OPTIONS)(
                        getattr(module, name)))
                setattr(module, _COMPILED, True)
        run.source, run.module, run.dispatcher, run.built = text, module, getattr(module, built.main), built
        spelled = list_reads.spellings(built.source, params)  # (a module list of numbers)
        run.given = lambda values: record_lists.spellings(columns, params)(spelled(values))
        run.given_lists = list_reads.spellings(built.source, list_reads.parameters(built.source, built.main)[len(env):],
                                                   indexes_only=True)
        # (a list argument of ints the code indexes with, ``x[idx]``: an int64 array, as a module list)
        run.lines = {line + offset: origin for line, origin in built.lines.items()}


    positions = [found.params.index(w) for w in found.wrt if w in found.params]
    options = found.options

    def run(*args):
        if first_call.signature(args) in run.checked:
            return checked_run(*args)
        with run.first:  # a first call checks, and may compile a retry: one thread at a time
            return checked_run(*args)

    def checked_run(*args):
        values = run.given([e.current() for e in env])
        try:
            typed = [*values, *(dict_args.given(a) if i in dicts_at else _typed(a)
                                for i, a in enumerate(run.given_lists(list(args))))]
            with compile_watch.watched(run.watch) if first_call.signature(args) not in run.checked else nullcontext():
                result = cache_races.called(run.dispatcher, run.module, run.built.functions,  # (several processes)
                                            list(map(widening.widened, typed)) if run.widen else typed)
            if options.mode == "reverse":
                result = result_dtypes.in_argument_dtypes(result, args, positions, options)
        except refused as exc:
            compile_watch.stop(run.watch, where, hint)  # the compiler ran past its budget (compile_watch.py)
            # a number on one path and an array on another (numba/joins.py), a float32 value
            # meeting a float constant numba widens (numba/float32_constants.py), else, where
            # numba does not type the loops, the statements as written
            for retry in (joins.unified(run.built, str(exc), made, key), scalar_where.retried(run.built, str(exc)),
                          float32_constants.retried(run.built, str(exc)), list_writes.retried(run.built, str(exc)),
                          empty_lists.retried(run.built, str(exc), made, key), plain):
                if retry is not None and retry.source not in tried:
                    tried.add(retry.source)
                    compiled(retry)
                    return run(*args)
            if not run.widen and widening.wanted(str(exc), [*values, *args]):  # float32 in float64 (widening.py)
                run.widen = True
                compiled(widening.in_float64(built))
                return run(*args)
            raise _typing_error(exc, run.module.__file__, run.lines, located, where, code, hint) from None
        except Exception as exc:  # noqa: BLE001  the Python gradient says what went wrong, and where
            compile_watch.stop(run.watch, where, hint)
            if not run.widen and widening.failed_inside(exc, [*values, *args]):  # (a float32 list cast to float64)
                run.widen = True
                compiled(widening.in_float64(built))
                return run(*args)
            made.function(*args)
            raise SrcDiffError(f"{where}jit='numba': {first_call.failure(exc)}", hint=hint) from exc
        kind = first_call.signature(args)
        if kind not in run.checked:  # numba's semantics differ from Python's in places (first_call.py)
            want = made.function(*args)
            differs = first_call.difference(result, want, args)
            if differs:
                raise SrcDiffError(f"{where}jit='numba': the compiled {code} gives {differs} (numba's integers "
                                   "are 64-bit and wrap around where Python's do not)", hint=hint)
            run.checked[kind] = result_dtypes.following(result, want)  # NumPy's dtypes (result_dtypes.py)
        return result_dtypes.conformed(result, run.checked[kind])
    compiled(widening.in_float64(built) if built.widen else built)
    run.checked, run.widen, run.watch, run.first = {}, built.widen, {}, threading.RLock()
    tried = {built.source}  # the fused code's refusal is not the user's: the plain code is tried too
    run.py_func = made.function  # (run.source: what numba compiles, fused; ``df.source`` once called)
    run.env, run.positions, run.name = env, None if dicts_at else positions, built.main  # (numba/entry.py: a dict
    # argument is passed as dict_args.given makes it, by the general path; a Hessian's loop too: given_args)
    run.given_args = lambda args: [dict_args.given(a) if i in dicts_at else a
                                   for i, a in enumerate(run.given_lists(list(args)))]
    return run


def _with_extra(built, extra):
    """`built` with the functions `extra(built)` gives after its own, compiled with them."""
    parts = extra(built)
    return replace(built, source=built.source + "".join(f"\n\n\n{text}" for _, text in parts),
                   functions=[*built.functions, *(name for name, _ in parts)],
                   imports={**built.imports, "np": ("numpy", None)})


def _with_tangents(key, found):
    """The signature `key` of a forward sweep's primals, followed by its tangents' (each like
    its primal's, `Options.directions` of them per parameter): the sweep takes both.  None
    (nothing specialised) where a primal is not a float64 array or a float."""
    if found.options.mode != "forward" or not isinstance(key, tuple):
        return key
    sigs = dict(zip(found.params, key))
    tangents = [sigs.get(w) for _ in range(found.options.directions) for w in found.wrt]  # (ad/tangent_vector.py)
    if any(not (s is float or (isinstance(s, tuple) and len(s) == 3 and s[-1] == "f")) for s in tangents):
        return None
    return key + tuple(tangents)


def _typed(value):
    """An argument as numba takes it: a list of items of more than one type (arrays of two
    ndims, ``masks = [m1, m2]``) as a tuple, which numba types item by item (a list, it
    cannot); the code reads it the same way (``masks[0]``), or numba refuses at the line.  An
    empty list (which numba cannot type: no item says what it holds) as a typed empty list of
    floats: a loop over it runs no iteration, and code reading its items as arrays is refused
    by numba at its line."""
    if _functions_only(value):  # functions the code calls by their own names (lower/calls.py): not read;
        # a tuple of them, at most for its length (``len(acts)``): zeros in their places
        return tuple([0] * len(value)) if type(value) in (tuple, list) else None
    if type(value) is list and not value:  # numba cannot type an empty Python list: a typed one of floats
        from numba import float64, typed
        return typed.List.empty_list(float64)
    if type(value) is list and len({(type(v), getattr(v, "ndim", None), getattr(v, "dtype", None))
                                    for v in value}) > 1:
        return tuple(value)
    return value


def _functions_only(value) -> bool:
    """Whether `value` is a function, a ``functools.partial`` of one, or a non-empty tuple or list of
    those (``loss_fn=functools.partial(_huber, delta=0.5)``, ``acts=(np.tanh, np.sin)``): lowering calls
    each at its own name, its bound arguments written in (lower/calls.py), so the code never reads the
    argument but for a tuple's length; were it read otherwise, numba would refuse what it is given in its
    place (None, zeros) at the line that reads it."""
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return True
    if isinstance(value, functools.partial):
        return _functions_only(value.func)
    return type(value) in (tuple, list) and bool(value) and all(_functions_only(v) for v in value)


def fast_call(run, key: tuple, lowered, slow, positional):
    """`run` behind a guard: arguments of the signature `key`, the globals the transform read
    statically (`lowered.depends`) and the function's code unchanged (guards.py); any other
    call goes to `slow` (numba/entry.py: numba's dispatcher called directly where the general
    path would add nothing).  Where `code_swaps.WATCHING` the caller watches ``__code__`` instead
    of a read per call (with the audit hook installed, each read is an audited event)."""
    from .numba.entry import entry

    owner = None if code_swaps.WATCHING else (lowered.parsed.func, lowered.parsed.code)
    return entry(run, key, lowered.depends, slow, positional, owner)


def _typing_error(exc: Exception, path: str, lines: dict, located, where: str, code: str = "gradient",
                  usual: str = HINT) -> SrcDiffError:
    """numba's refusal as a `SrcDiffError` at the user's line the refused code comes from."""
    from .numba import join_lines, refusals
    text = str(exc)
    reason = _reason(text)
    joined = join_lines.join_location(reason, _text_of(path), lines, located)
    if joined is not None:  # a number on one path, an array on another: the line making the number
        said, hint = refusals.readable(reason, joined.code, code != "gradient")
        return SrcDiffError(f"jit='numba': numba cannot compile the code of this line: {said}", joined,
                            hint or refusals.MIXED)
    name = re.escape(os.path.basename(path))  # numba writes it relative to the working folder, or not
    for line in re.findall(rf'{name}", line (\d+)|{name} \((\d+)\)', text):
        line = int(line[0] or line[1])
        if line in lines:
            location, sweep = located(*lines[line])
            if location is not None:
                doing = "" if sweep == "forward" else f" (in the {code} of this line)"
                said, hint = refusals.readable(reason, location.code, code != "gradient")  # the user's names
                hint = hint or (refusals.MIXED if refusals.MIXED_TYPES.search(reason) else usual)
                return SrcDiffError(f"jit='numba': numba cannot compile the code of this line{doing}: {said}",
                                    location, hint)
    said, hint = refusals.readable(reason, "", code != "gradient")
    return SrcDiffError(f"{where}jit='numba': numba cannot compile the generated {code}: {said}", hint=hint or usual)


def _text_of(path: str) -> str:
    """The generated module's text ('' when it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except OSError:
        return ""


def _reason(text: str) -> str:
    """The line of numba's error that says what it refused: the call it has no implementation
    for (``>>> max(array(float64, 2d, C), axis=...)``), else its first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("Failed in")]
    call = next((line[4:] for line in lines if line.startswith(">>> ")), None)
    if call is not None:
        return f"numba has no implementation of {call}"
    return lines[0] if lines else text


def _helpers_stamp(numba) -> str:
    """A digest of what compiled code depends on besides its own text: the sources of the
    helpers (every module of backend/numba/: numba inlines them into the cached code) and
    numba's version."""
    from . import numba as helpers
    digest = hashlib.sha256(numba.__version__.encode())
    folder = os.path.dirname(helpers.__file__)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as fh:
                digest.update(fh.read())
    return digest.hexdigest()[:16]


__all__ = ["cache_folder", "fast_call", "numba_function"]
