"""A gradient's complete listing: its own source, then every callee adjoint it uses.

Each compiled adjoint is named by its own namer (two variants of one helper are both
``step_vjp``) and called by its caller's (``step_vjp_1``); the listing gives every adjoint
one name of its own and renames the calls to match, so the text defines all it calls.
Works on `driver.Variant`s: ``.source``, ``.name``, ``.callees`` (name -> Callee with
``.variant``).
"""

from __future__ import annotations

from . import render


def callee_sources(made) -> dict[str, str]:
    """The source of every callee adjoint `made` calls, directly or through other callees,
    by a name unique in `listing` (each calls the others by those names)."""
    return {name: source for name, (_, source) in named_callees(made).items()}


def named_callees(made) -> dict[str, tuple]:
    """Every callee adjoint `made` calls, directly or not: its name unique in `listing` ->
    (its `Variant`, its source renamed so that it calls the others by those names).  The
    renaming keeps every line where it was."""
    variants, names = [], {}  # callee adjoints in the order first called; id(Callee) -> name
    todo = [made]
    while todo:
        caller = todo.pop(0)
        for name, called in caller.callees.items():
            if called.variant is not None and id(called) not in names:
                names[id(called)] = name if caller is made else ""
                variants.append(called)
                todo.append(called.variant)
    used = set().union(*(render.identifiers(v.source) for v in [made, *(c.variant for c in variants)]))
    for called in variants:  # the main function's names stay; nested ones get fresh names
        if not names[id(called)]:
            base = names[id(called)] = called.variant.name
            count = 1
            while names[id(called)] in used:
                count += 1
                names[id(called)] = f"{base}_{count}"
            used.add(names[id(called)])
    sources = {}
    for called in variants:
        v, name = called.variant, names[id(called)]
        mapping = {v.name: name, f"{v.name}_pullback": f"{name}_pullback",
                   **{key: names[id(c)] for key, c in v.callees.items() if id(c) in names}}
        sources[name] = (v, render.rename(v.source, mapping))
    return sources


def listing(made) -> str:
    """`made`'s source followed by the adjoints it calls: one listing that defines every name."""
    parts = [made.source, *callee_sources(made).values()]
    return "\n\n\n".join(part.rstrip("\n") for part in parts) + "\n"
