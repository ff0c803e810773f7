"""Which values carry a gradient: those between a differentiated parameter and the output."""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from ..ir.flows import edges, flows
from ..ir.nodes import Const, Function, Global, Node, Var, all_nodes
from ..rules.structural import gradient_inputs


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
    varies, useful = flows(function, wrt, gradient_inputs)
    return varies & useful


def value_dependent_constructor(function: Function, wrt: set[str]) -> Node | None:
    """A node whose rule gives no gradient although its value depends on its operands'
    values (``np.arange(start, stop)``, `Rule.refuses_active`), fed by a `wrt` parameter,
    whose value the output depends on (text formatted for a message is fine)."""
    varies, useful = flows(function, wrt, _through_refusing)  # a chain of them: each is seen
    for node in all_nodes(function):
        if getattr(node.rule, "refuses_active", "") and node.out.name in useful \
                and any(v.name in varies for v in node.input_vars):
            return node
    return None


def _through_refusing(node: Node):
    """The operands a value depends on for `value_dependent_constructor`: a refusing node's
    all (``f(g(x))`` of two functions with no rule: g's value reaches the output through f)."""
    return node.input_vars if getattr(node.rule, "refuses_active", "") else gradient_inputs(node)


def refuse_value_dependent(function: Function, wrt: set[str], location) -> None:
    """Raise, at the user's line, for a `value_dependent_constructor`: reverse and forward mode
    refuse the same programs (neither gives such a value a silent zero)."""
    refused = value_dependent_constructor(function, wrt)
    if refused is not None:
        raise SrcDiffError(refused.rule.refusal or f"{refused.rule.name} makes values from arguments that "
                           "depend on the differentiated input, and srcdiff has no rule for their gradient",
                           location(refused.line), refused.rule.refuses_active)


def _complex_constant(operand) -> bool:
    value = operand.value if isinstance(operand, Const) else None
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, complex) for v in value)
    return isinstance(value, complex) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "c")


def _complex_operand(operand, params: frozenset) -> bool:
    """A complex number written as a constant, a global that held complex values when lowered,
    or a parameter whose argument is complex (`params`, from the argument signature)."""
    return _complex_constant(operand) or (isinstance(operand, Global) and operand.complex) \
        or (isinstance(operand, Var) and operand.name in params)


#: functions whose value is real whatever their operand: a complex value stops at them
_REAL_VALUED = {np.abs, np.real, np.imag, np.angle, np.linalg.norm, abs, np.var, np.std}


def refuse_complex(function: Function, wrt: set[str], location, params=frozenset()) -> None:
    """Raise, at the user's line, where a differentiated value meets a complex one (``1j * x``,
    ``W @ x`` with ``W`` made from ``1j``, a complex global, a complex argument named in
    `params`): srcdiff differentiates real functions, and a real rule applied to complex values
    gives a complex (wrong) gradient for a real input."""
    params = frozenset(params)
    complex_names = set(params)
    nodes = all_nodes(function)
    # complex values taint what is computed from them, except through a value that carries no
    # gradient (a comparison, np.imag) or is real whatever its operand (np.abs): that value
    # cannot bring a complex gradient back
    real = {node.out.name for node in nodes if getattr(node.rule, "func", None) in _REAL_VALUED}
    for node in nodes:  # (a value with no gradient, a shape say, is not complex)
        if node.out.name in real or getattr(node.rule, "nograd", False):
            continue
        if any(_complex_constant(v) or (isinstance(v, Global) and v.complex) for v in node.inputs) \
                or any(v.name in params for v in gradient_inputs(node)):
            complex_names.add(node.out.name)
    found = edges(function, gradient_inputs)
    changed = True
    while changed:
        changed = False
        for src, dst in found:
            if src in complex_names and dst not in complex_names and dst not in real:
                complex_names.add(dst)
                changed = True
    if not complex_names:
        return
    active = active_values(function, wrt) | set(wrt)
    for node in nodes:
        meets = any(_complex_operand(v, params) or (isinstance(v, Var) and v.name in complex_names)
                    for v in node.inputs)
        if meets and any(v.name in active for v in node.input_vars) and node.out.name in active:
            raise SrcDiffError("a differentiated value meets a complex number here: srcdiff differentiates "
                               "real computations only (its rules would give a complex gradient for a real input)",
                               location(node.line),
                               "write the computation with real numbers (e.g. |x e^{ix}|^2 = x^2; a DFT's power "
                               "with its cos and sin parts: (C @ x)**2 + (S @ x)**2)")
