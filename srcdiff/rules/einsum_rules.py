"""``np.einsum`` in full: ``...`` (broadcast), an index repeated within one operand (a
diagonal, a trace), implicit output, and the sublist form ``np.einsum(a, [0, 1], b, [1, 2])``
(lowering writes it as subscripts first: `sublist_subscripts`).

The subscripts are first made explicit (`explicit`): ``...`` becomes letters of its own, one
per broadcast axis (the operands' ndim is known: the gradient is compiled per signature), and
the output is spelled out.  Operand i's adjoint is then one einsum of ``g`` and the other
operands into operand i's indices, where

* an index repeated in operand i (``'ii'``) gets a fresh letter in the output, tied to the
  first by an identity matrix (``np.eye``): the adjoint lands on the diagonal only;
* an axis of length one (broadcast against a longer one) gets a fresh letter too, supplied
  by ``np.ones(np.shape(x_i))``, so the longer axis is summed back to length one;
* an index summed over operand i alone is supplied the same way (ones of operand i's shape);
* where operand i's axis lengths are not known, the result is summed back to its shape
  (``unbroadcast``).

The tangent is the sum of the einsums with one operand replaced by its tangent.
"""

from __future__ import annotations

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.shapes import MANY, ONE, UNKNOWN_DIM

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def sublist_subscripts(sublists: list, output=None) -> str:
    """The subscripts string of the sublist form: integer labels 0..51 become letters in the
    order NumPy sorts them (so the implicit output is the same), ``Ellipsis`` ``...``."""
    def term(items) -> str:
        text = ""
        for item in items:
            if item is Ellipsis:
                text += "..."
            elif isinstance(item, int) and 0 <= item < len(LETTERS):
                text += LETTERS[item]
            else:
                raise SrcDiffError(f"numpy.einsum sublist label {item!r} is not an integer from 0 to 51 or ...")
        return text
    spec = ",".join(term(s) for s in sublists)
    return spec if output is None else f"{spec}->{term(output)}"


def explicit(subscripts: str, ndims: list[int | None]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels and the output's, with ``...`` replaced by letters of its own."""
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise SrcDiffError(f"numpy.einsum({subscripts!r}) names {len(terms)} operands but is given {len(ndims)}")
    used = set(spec) - {".", ",", "-", ">"}
    free = [c for c in reversed(LETTERS) if c not in used]
    counts = []
    for term, ndim in zip(terms, ndims):
        if "..." not in term:
            counts.append(0)
        elif ndim is None:
            raise SrcDiffError(f"numpy.einsum({subscripts!r}) with '...' needs operands of known ndim",
                               hint="pass arrays as arguments, or name every axis in the subscripts")
        else:
            counts.append(ndim - (len(term) - 3))
    width = max(counts, default=0)
    ellipsis = free[:width][::-1]  # deterministic: the last unused letters, in order

    def expand(term: str, count: int) -> list[str]:
        head, dots, tail = term.partition("...")
        return list(head) + (ellipsis[width - count:] if dots else []) + list(tail)

    labels = [expand(t, c) for t, c in zip(terms, counts)]
    if arrow:
        out = expand(output, width)
    else:
        flat = "".join(t.replace("...", "") for t in terms)
        out = ellipsis + sorted(c for c in set(flat) if flat.count(c) == 1)
    return labels, out


def _dims(shape, count: int) -> list[str]:
    return list(shape.dims) if shape.known and len(shape.dims) == count else [UNKNOWN_DIM] * count


def einsum_templates(static, operand_shapes):
    names = list(operand_shapes)
    subscripts = static["subscripts"]
    if not isinstance(subscripts, str):
        raise SrcDiffError("numpy.einsum needs its subscripts as a string or sublists",
                           hint="write np.einsum('ij,jk->ik', a, b) or np.einsum(a, [0, 1], b, [1, 2])")
    labels, out = explicit(subscripts, [operand_shapes[n].ndim for n in names])
    spare = [c for c in LETTERS if c not in set(out).union(*map(set, labels))]
    return {name: _adjoint(i, names, labels, out, _dims(operand_shapes[name], len(labels[i])), list(spare))
            for i, name in enumerate(names)}


def _adjoint(i: int, names, labels, out, dims, spare) -> str:
    term, name = labels[i], names[i]
    inputs = [("".join(out), "g")] + [("".join(labels[j]), names[j]) for j in range(len(names)) if j != i]
    result, seen, unsure = [], set(), False
    for axis, (label, dim) in enumerate(zip(term, dims)):
        if dim == ONE:  # broadcast, or of length one everywhere: summed onto its one element
            result.append(spare.pop(0))
        elif label in seen:  # a diagonal: tied to the first occurrence by an identity
            fresh = spare.pop(0)
            inputs.append((label + fresh, f"np.eye(np.shape({name})[{axis}])"))
            result.append(fresh)
        else:
            seen.add(label)
            result.append(label)
            unsure |= dim == UNKNOWN_DIM
    provided = set("".join(t for t, _ in inputs))
    if not set(result) <= provided:  # an axis summed over this operand alone: its length from ones
        inputs.append(("".join(result), f"np.ones(np.shape({name}))"))
    spec = ",".join(t for t, _ in inputs) + "->" + "".join(result)
    text = f"np.einsum('{spec}', {', '.join(n for _, n in inputs)})"
    shared = set(term) & (set(out).union(*[set(labels[j]) for j in range(len(names)) if j != i]))
    return f"unbroadcast({text}, {name})" if unsure and shared else text


def einsum_tangents(static, operand_shapes):
    """Multilinear: each operand's tangent in its place, the others as they are."""
    names = list(operand_shapes)
    return {p: "np.einsum(subscripts, " + ", ".join(f"{q}_dot" if q == p else q for q in names) + ")"
            for p in names}


def einsum_shape(static, *operands):
    subscripts = static.get("subscripts")
    if not isinstance(subscripts, str):
        return shapes.UNKNOWN
    try:
        labels, out = explicit(subscripts, [o.ndim for o in operands])
    except SrcDiffError:
        return shapes.UNKNOWN
    found: dict[str, set] = {}
    for term, operand in zip(labels, operands):
        for label, dim in zip(term, _dims(operand, len(term))):
            found.setdefault(label, set()).add(dim)

    def dim(label):
        seen = found.get(label, {UNKNOWN_DIM})
        return MANY if MANY in seen else ONE if seen == {ONE} else UNKNOWN_DIM

    return shapes.Shape(tuple(dim(c) for c in out))
