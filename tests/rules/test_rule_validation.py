"""What `register_adjoint` and the rule table accept, refuse and record, beyond the common
cases in test_register.py: operands with defaults, the decorator's `name`, reserved and
unknown parameter names, and removing a rule.
"""

import numpy as np
import pytest

import srcdiff
from srcdiff import SrcDiffError
from srcdiff.rules.rule_table import RuleTable
from srcdiff.rules.table import rule


def shifted_square(x, shift=0.5):
    return (x - shift) ** 2


def uses_default_shift(x):
    return np.sum(shifted_square(x))  # the operand `shift` left out: its default is used


def test_an_operand_with_a_default_gets_the_default_when_left_out(table, check_gradient, rng):
    srcdiff.register_adjoint(shifted_square, x="2.0 * g * (x - shift)", shift="-2.0 * g * (x - shift)")
    r = table.lookup(shifted_square)
    assert r.params == ("x", "shift") and dict(r.defaults) == {"shift": 0.5}
    x = rng.normal(size=4)
    (g,) = check_gradient(uses_default_shift, (x,))
    np.testing.assert_allclose(g, 2.0 * (x - 0.5), rtol=1e-12)


def test_the_decorator_keeps_the_name_it_is_given(table):
    @srcdiff.register_adjoint(x="g", name="my identity")
    def ident(x):
        return x

    assert table.lookup(ident).name == "my identity"


def test_elementwise_is_recorded(table):
    def halve(x):
        return x / 2.0

    assert srcdiff.register_adjoint(halve, x="g / 2.0", elementwise=True).elementwise
    assert table.lookup(halve).elementwise


def test_refusals_name_the_function(table):
    def nameless_template(x):
        return x

    with pytest.raises(SrcDiffError, match="nameless_template"):
        srcdiff.register_adjoint(nameless_template, {})


def test_a_bad_template_error_names_the_rule_and_parameter(table):
    def broken(x):
        return x

    with pytest.raises(SrcDiffError, match=r"adjoint rule for .*broken \(parameter 'x'\): template 'g \*'"):
        srcdiff.register_adjoint(broken, x="g *")


@pytest.mark.parametrize("reserved", ["g", "ans"])
def test_parameters_named_like_template_names_are_refused(reserved):
    with pytest.raises(SrcDiffError, match=rf"\['{reserved}'\] are reserved names"):
        rule(np.sin, (reserved,), {reserved: "g"}, name="clash")


def test_defaults_for_unknown_parameters_are_refused():
    with pytest.raises(SrcDiffError, match=r"defaults for unknown parameters \['y'\]"):
        rule(np.sin, ("x",), {"x": "g"}, name="odd", defaults={"y": 1.0})


def test_templates_for_unknown_parameters_are_refused():
    with pytest.raises(SrcDiffError, match=r"templates for unknown parameters \['y'\]"):
        rule(np.sin, ("x",), {"x": "g", "y": "g"}, name="odd")


def test_removing_a_rule_returns_it_and_counts_as_a_change():
    r = rule(np.sin, ("x",), {"x": "g * np.cos(x)"})
    local = RuleTable([r])
    version = local.version
    assert local.remove(np.sin) is r
    assert local.version == version + 1 and local.lookup(np.sin) is None
    assert local.remove(np.sin) is None
    assert local.version == version + 1  # nothing removed: no change
