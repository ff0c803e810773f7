"""The batched code of a plain function (the batching transform, driver/batched.py): what
`srcdiff.vmap` runs in one call, for its own arguments (api/vmap.py) and for the leaves of tree
arguments (api/vmap_leaves.py)."""

from __future__ import annotations

from ..driver.batched import knowledge_of
from ..driver.cache import Options
from ..driver.compile import variant
from ..driver.lowering import lowered
from ..errors import SrcDiffError
from ..frontend.parse import parse_function
from ..ir import memo, shapes

BATCHED = Options(mode="batched")


def batched_variant(func, names: tuple[str, ...], row: tuple):
    """The batched code of plain `func` over the parameters `names`, compiled for one example
    `row` of the positional arguments (cached per signature, as every variant is)."""
    return batched_code(func, names, row)[1]


def batched_code(func, names: tuple[str, ...], row: tuple, jit: str | None = None, scales: bool = False,
                 exact: bool = False):
    """(the `Lowered` batched function, its `Variant` for `row`): `batched_variant` with what
    it was compiled from (a `Plan` checks it is still current); `jit` and `scales` (rows of
    identity seeds) as in `Options`.  `exact` (vmap's): the code made from what `row` itself tells
    (`variant_for`), never the code another example of the signature made earlier in the process."""
    options = BATCHED if jit is None and not scales else Options(mode="batched", jit=jit, scales=scales)
    found = lowered(func, names, options, row)
    static = [n for n in names if n in found.statics or n in found.constants]
    if static:  # the code is specialised on one example's value: it would be every example's
        raise SrcDiffError(f"{func.__qualname__}: {', '.join(static)} decides the code's structure (a loop count, "
                           "a shape, a flag), so it must be the same for every example",
                           found.parsed.location(found.parsed.tree), "pass it with in_axes None")
    key = tuple(map(shapes.signature, row))
    return found, (variant_for(found, key, row) if exact else variant(found, key, row))


#: each batched `Lowered`'s variants by (signature, what the probe of their example told)
_BY_KNOWLEDGE = memo.table(weak=True)


def variant_for(found, key: tuple, row: tuple):
    """The batched variant of `found` for `row`, keyed by its signature `key` and by what one example's run
    (driver/batched.py `knowledge_of`) tells: the axes of values the rules leave unknown, seen on the
    sides of branches that example takes.  Keyed by the signature alone, the code was made from whichever
    example first compiled it in the process, and a call was batched or run one example at a time
    depending on what ran before it."""
    known = knowledge_of(found, row)
    table = _BY_KNOWLEDGE.setdefault(found, {})
    if known is not None:
        made = table.get((key, known))
        if made is not None:
            found.variants[key] = made  # (the signature's current code: backend/jit.py finds numba's by it)
            return made
        found.variants.pop(key, None)  # made from another example's knowledge
    made = variant(found, key, row)
    table[(key, knowledge_of(found, row))] = made
    return made


def parameter_names(func) -> list[str]:
    """The names of `func`'s positional parameters, as its source spells them."""
    tree = parse_function(func).tree
    return [a.arg for a in tree.args.posonlyargs + tree.args.args]


__all__ = ["BATCHED", "batched_code", "batched_variant", "parameter_names", "variant_for"]
