"""Everyday Python grad refused after the red team's thirteenth wave, each class written several ways
(the red team's own program first): closures made by a factory and decorators wrapping a helper,
helpers cached with ``functools.lru_cache``, lists of tuples ordered by a key and lists written by
index, dicts of parameters updated in loops and trees passed to local functions, objects of the
user's classes built inside the function, ``itertools.groupby`` over keys known when the gradient is
built, generators feeding generators and ``list(array)`` of computed rows, tuples and lists of arrays
made in the function and given whole to a helper (recursive ones too).  test_reach15.py runs every
transformation on them.

``CLASSES`` maps each class to its rows ``(name, func, make_args(rng), wrt)``; ``PROGRAMS`` is all of
them."""

import numpy as np

from . import reach15_chosen as ch
from . import reach15_closures as c
from . import reach15_iteration as it
from . import reach15_objects as o
from . import reach15_passed_lists as pl
from . import reach15_sequences as s
from . import redteam_wave12_finance as finance12
from . import redteam_wave12_idioms as idioms12
from . import redteam_wave12_numpy as numpy12
from . import redteam_wave13_library as library13
from . import redteam_wave13_points as points13
from . import redteam_wave14 as wave14
from . import redteam_wave14_idioms as idioms14
from . import redteam_wave14_points as points14
from . import redteam_wave15 as wave15
from . import redteam_wave15_everyday as everyday15


def _v(r, n=4):
    return r.normal(size=n)


def _v8(r):
    return (r.normal(size=8),)


def _fit(r):
    return ({"w": r.normal(size=3), "b": 0.1}, r.normal(size=(6, 3)), r.normal(size=6))


def _layers15(r):
    layer = everyday15.Layer
    return (_v(r, 3), [layer(0.5 * r.normal(size=(3, 3)), _v(r, 3)), layer(0.5 * r.normal(size=(2, 3)), _v(r, 2))])


def _linear(r):
    return (r.normal(size=3), r.normal(size=(5, 3)))


CLOSURES = [
    ("w13_closure_factory", library13.closure_soft_clip, lambda r: (_v(r, 5),), 0),
    ("closure_of_a_parameter", c.closure_of_a_parameter, lambda r: (_v(r),), 0),
    ("closure_of_a_constant", c.closure_of_a_constant, lambda r: (_v(r),), 0),
    ("closure_called_at_once", c.closure_called_at_once, lambda r: (_v(r),), 0),
    ("closure_of_the_differentiated_value", c.closure_of_the_differentiated_value, lambda r: (_v(r), _v(r)), 0),
    ("closure_returned_as_a_lambda", c.closure_returned_as_a_lambda, lambda r: (_v(r),), 0),
    ("closure_of_computed_values", c.closure_of_computed_values, lambda r: (_v(r),), 0),
    ("closure_made_in_a_loop", c.closure_made_in_a_loop, lambda r: (_v(r),), 0),
    ("closure_of_another_module", c.closure_of_another_module, lambda r: (_v(r),), 0),
    ("closure_of_functions", c.closure_of_functions, lambda r: (_v(r),), 0),
    ("closure_of_varargs", c.closure_of_varargs, lambda r: (_v(r),), 0),
    ("closure_in_a_list", c.closure_in_a_list, lambda r: (_v(r),), 0),
    ("closure_inside_a_helper", c.closure_inside_a_helper, lambda r: (_v(r),), 0),
]

FUNCTIONS_GIVEN = [
    ("w15_lambda_as_argument", everyday15.lambda_rhs, lambda r: (0.7, np.array([0.8, -0.4])), 0),
    ("w15_partial_made_in_the_function", everyday15.partial_rhs, lambda r: (0.7, np.array([0.8, -0.4])), 0),
    ("lambda_given_to_an_integrator", c.lambda_given_to_an_integrator, lambda r: (0.7, _v(r, 3)), 1),
    ("partial_given_to_an_integrator", c.partial_given_to_an_integrator, lambda r: (0.6, _v(r, 3)), 0),
    ("nested_def_given_to_a_helper", c.nested_def_given_to_a_helper, lambda r: (_v(r, 3), _v(r, 3)), 0),
    ("closure_given_to_a_helper", c.closure_given_to_a_helper, lambda r: (_v(r, 3),), 0),
    ("two_argument_lambda_given_to_a_helper", c.two_argument_lambda_given_to_a_helper, lambda r: (_v(r),), 0),
    ("w15_partial_default_argument", everyday15.partial_loss, lambda r: (_v(r, 3), r.normal(size=(6, 3)), _v(r, 6)), 0),
    ("partial_as_a_default", c.partial_as_a_default, lambda r: (_v(r, 3), r.normal(size=(6, 3)), _v(r, 6)), 0),
    ("partial_of_a_leading_argument", c.partial_of_a_leading_argument, lambda r: (_v(r),), 0),
    ("two_integrations_in_one_function", c.two_integrations_in_one_function, lambda r: (_v(r, 5),), 0),
]

ALIASES = [
    ("w12_library_function_alias", finance12.garman_kohlhagen, lambda r: (np.array([1.05, 1.1, 1.2]),), 0),
    ("aliases_of_library_functions", c.aliases_of_library_functions, lambda r: (_v(r),), 0),
    ("alias_used_in_a_loop", c.alias_used_in_a_loop, lambda r: (_v(r),), 0),
]

DECORATORS = [
    ("w13_clamping_decorator", library13.decorated_clamped_loss, lambda r: (np.array([0.3, -2.0, 1.0, 2.5]),), 0),
    ("clamped_loss_scaled", c.clamped_loss, lambda r: (np.array([0.3, -2.0, 1.0]), 2.0), 0),
    ("decorated_helper", c.decorated_helper, lambda r: (np.array([0.3, -2.0, 0.45, 1.7]),), 0),
    ("decorator_of_two_leading_parameters", c.decorator_of_two_leading_parameters,
     lambda r: (_v(r, 3), r.normal(size=(4, 3))), 0),
    ("decorator_with_star_args_only", c.decorator_with_star_args_only, lambda r: (np.array([0.3, -2.0, 1.5]),), 0),
    ("decorator_without_wraps", c.decorator_without_wraps, lambda r: (_v(r),), 0),
    ("decorator_applied_inside", c.decorator_applied_inside, lambda r: (_v(r),), 0),
]

CACHED = [
    ("w13_lru_cache_weights", library13.lru_cache_smoothing, lambda r: (_v(r, 6),), 0),
    ("cached_weights_rolled", c.cached_weights_rolled, lambda r: (_v(r, 5),), 0),
    ("cached_weights_sliced", c.cached_weights_sliced, lambda r: (_v(r, 5),), 0),
    ("cached_weights_as_an_array", c.cached_weights_as_an_array, lambda r: (_v(r, 5),), 0),
    ("cached_kernel", c.cached_kernel, lambda r: (_v(r, 7),), 0),
    ("loop_over_cached_nodes", c.loop_over_cached_nodes, lambda r: (_v(r),), 0),
    ("cached_weights_in_a_helper", c.cached_weights_in_a_helper, lambda r: (_v(r, 5),), 0),
    ("rolled_by_a_loop_index", c.rolled_by_a_loop_index, lambda r: (_v(r, 5),), 0),
]

KEYED_TUPLES = [
    ("w13_lambda_sort_key", library13.sorted_key_tuples, lambda r: (_v(r, 5),), 0),
    ("sorted_into_another_name", s.sorted_into_another_name, lambda r: (_v(r, 5),), 0),
    ("sorted_in_reverse_then_sliced", s.sorted_in_reverse_then_sliced, lambda r: (_v(r, 5), _v(r, 5)), 0),
    ("sorted_in_a_loop_header", s.sorted_in_a_loop_header, lambda r: (_v(r, 5),), 0),
    ("sorted_triples_filtered", s.sorted_triples_filtered, lambda r: (_v(r, 5),), 0),
    ("sorted_helper_tuples", s.sorted_helper_tuples, lambda r: (_v(r, 5),), 0),
    ("max_of_tuples_by_key", s.max_of_tuples_by_key, lambda r: (_v(r, 5),), 0),
    ("sorted_by_the_second_field", s.sorted_by_the_second_field, lambda r: (_v(r, 5),), 0),
    ("w14_lbfgs_two_loop", wave14.lbfgs_two_loop, lambda r: (_v(r, 3), [r.normal(size=3) for _ in range(3)],
                                                             [r.normal(size=3) for _ in range(3)]), 0),
    ("pairs_read_in_reverse", s.pairs_read_in_reverse, lambda r: (_v(r), _v(r)), 0),
    ("w14_sum_with_start", idioms14.sum_with_start, lambda r: ([r.normal(size=3) for _ in range(2)],), 0),
    ("sum_with_a_start", s.sum_with_a_start, lambda r: (_v(r),), 0),
    ("w14_sorted_reverse_numbers", idioms14.sorted_reverse_numbers, lambda r: (_v(r, 3),), 0),
    ("sorted_in_reverse_without_a_key", s.sorted_in_reverse_without_a_key, lambda r: (_v(r, 3),), 0),
    ("w14_set_of_indices", idioms14.set_of_indices, lambda r: (_v(r, 3),), 0),
    ("sorted_set_of_indices", s.sorted_set_of_indices, lambda r: (_v(r),), 0),
]

ITEM_WRITES = [
    ("w13_list_of_one_array", points13.list_of_same_array, lambda r: (_v(r, 3),), 0),
    ("list_of_one_array_written", s.list_of_one_array_written, lambda r: (_v(r, 3),), 0),
    ("list_items_written_in_a_loop", s.list_items_written_in_a_loop, lambda r: (_v(r, 3),), 0),
    ("list_written_at_a_loop_index", s.list_written_at_a_loop_index, lambda r: (_v(r, 3),), 0),
    ("list_written_from_the_end", s.list_written_from_the_end, lambda r: (_v(r, 3),), 0),
    ("comprehension_list_written", s.comprehension_list_written, lambda r: (_v(r, 3),), 0),
    ("w15_reinforce", wave15.reinforce, lambda r: (r.normal(size=(3, 2)), r.normal(size=(4, 3)), np.array([0, 1, 1, 0]),
                                                   _v(r, 4)), 0),
    ("discounted_returns", s.discounted_returns, lambda r: (_v(r),), 0),
    ("prepended_then_summed", s.prepended_then_summed, lambda r: (_v(r),), 0),
    ("list_made_an_array_under_its_name", s.list_made_an_array_under_its_name, lambda r: (_v(r),), 0),
    ("w15_bspline_fit", everyday15.bspline_fit,
     lambda r: (r.normal(size=5), [0.1, 0.3, 0.55, 0.8], [0.0, 1.0, 0.5, -0.2]), 0),
]

DICTS = [
    ("w13_dict_updated_in_loop", points13.dict_inner_descent, _fit, 0),
    ("dict_copy_descended", s.dict_copy_descended, _fit, 0),
    ("dict_copy_method", s.dict_copy_method, _fit, 0),
    ("dict_shallow_copy", s.dict_shallow_copy, _fit, 0),
    ("dict_merged_then_updated", s.dict_merged_then_updated, _fit, 0),
    ("dict_copy_kept_before_the_loop", s.dict_copy_kept_before_the_loop, _fit, 0),
    ("dict_copy_updated_in_a_branch", s.dict_copy_updated_in_a_branch, _fit, 0),
    ("dict_updated_by_update", s.dict_updated_by_update, _fit, 0),
    ("w14_rmsprop_dict", wave14.rmsprop_dict, _fit, 0),
]

TREES_TO_FUNCTIONS = [
    ("w12_tree_to_local_function", numpy12.dict_sgd_step, _fit, 0),
    ("local_function_of_a_tree", s.local_function_of_a_tree, _fit, 0),
    ("local_loss_of_two_trees", s.local_loss_of_two_trees, _fit, 0),
    ("local_function_reading_the_tree", s.local_function_reading_the_tree, _fit, 0),
    ("helper_returning_a_dict", s.helper_returning_a_dict, _fit, 0),
]

OBJECTS = [
    ("w13_init_that_computes", library13.class_projectile_range, lambda r: (12.0,), 0),
    ("w13_method_updates_self", library13.classmethod_account, lambda r: (50.0,), 0),
    ("init_with_locals", o.init_with_locals, lambda r: (np.array([1.3, 0.4]),), 0),
    ("init_of_data", o.init_of_data, lambda r: (r.normal(size=(5, 3)),), 0),
    ("init_then_property", o.init_then_property, lambda r: (np.array([0.2, -0.3]), _v(r, 5)), 0),
    ("init_through_super", o.init_through_super, lambda r: (_v(r, 3), r.normal(size=(4, 3))), 0),
    ("stepped_in_a_loop", o.stepped_in_a_loop, lambda r: (11.0,), 0),
    ("classmethod_then_updates", o.classmethod_then_updates, lambda r: (40.0,), 0),
    ("updates_chained", o.updates_chained, lambda r: (30.0,), 0),
    ("optimizer_object", o.optimizer_object, lambda r: (_v(r, 3), r.normal(size=(6, 3)), _v(r, 6)), 0),
    ("accumulator_of_constants", o.accumulator_of_constants, lambda r: (_v(r),), 0),
    ("w14_namedtuple_replace_loop", points14.namedtuple_replace_loop, lambda r: (2.0,), 0),
    ("w12_layer_class_super", idioms12.inheritance_container,
     lambda r: ([0.5 * r.normal(size=(3, 3))] * 2, _v(r, 3)), 0),
    ("comprehension_of_layers", o.comprehension_of_layers,
     lambda r: ([0.5 * r.normal(size=(3, 3)), 0.4 * r.normal(size=(3, 3))], _v(r, 3)), 0),
    ("container_of_layers", o.container_of_layers,
     lambda r: ([0.5 * r.normal(size=(3, 3)), 0.4 * r.normal(size=(3, 3))], _v(r, 3)), 0),
    ("w12_classmethod_of_a_dict", idioms12.cached_property_model,
     lambda r: ({"A": r.normal(size=(3, 3)), "b": _v(r, 3)}, _v(r, 3)), 0),
    ("classmethod_of_a_tree", o.classmethod_of_a_tree,
     lambda r: ({"A": r.normal(size=(3, 3)), "b": _v(r, 3)}, _v(r, 3)), 0),
    ("w15_callable_layer_list", everyday15.callable_layer_list, _layers15, 0),
    ("w12_property_setter", idioms12.property_setter, lambda r: (_v(r, 3), _v(r, 3)), 0),
    ("property_setter_on_an_object_made_here", o.property_setter_on_an_object_made_here,
     lambda r: (_v(r, 3), _v(r, 3)), 0),
    ("list_of_layer_objects", o.list_of_layer_objects,
     lambda r: (_v(r, 3), [o.Dense(0.5 * r.normal(size=(3, 3)), _v(r, 3)) for _ in range(3)]), 0),
    ("tuple_of_layers_to_a_helper", o.tuple_of_layers_to_a_helper,
     lambda r: (_v(r, 3), (o.Dense(0.5 * r.normal(size=(3, 3)), _v(r, 3)), o.Dense(r.normal(size=(3, 3)),
                                                                                    _v(r, 3)))), 0),
]

ENUMS = [
    ("w13_enum_from_config", library13.enum_config_mlp,
     lambda r: (_v(r, 3), r.normal(size=(5, 3)), {"activation": "swish"}), 0),
    ("w12_enum_keyed_functions", idioms12.enum_auto_dispatch, lambda r: (_v(r), _v(r)), 0),
    ("enum_from_a_config", o.enum_from_a_config,
     lambda r: (_v(r, 3), r.normal(size=(5, 3)), {"activation": "softplus", "scale": 0.5}), 0),
    ("enum_from_a_setting", o.enum_from_a_setting, _linear, 0),
    ("enum_by_name", o.enum_by_name, _linear, 0),
    ("enum_member_in_a_local", o.enum_member_in_a_local, _linear, 0),
    ("enum_keyed_functions_in_a_loop", o.enum_keyed_functions_in_a_loop, lambda r: (_v(r), _v(r)), 0),
    ("enum_keyed_function", o.enum_keyed_function, lambda r: (_v(r), _v(r)), 0),
    ("intenum_from_a_config", o.intenum_from_a_config, lambda r: (_v(r), _v(r), {"mode": 1}), 0),
    ("functions_in_a_default_tuple", o.functions_in_a_default_tuple, lambda r: (_v(r), _v(r)), 0),
    ("functions_of_yours_in_a_default_tuple", o.functions_of_yours_in_a_default_tuple, lambda r: (_v(r), _v(r)), 0),
]

GROUPED = [
    ("grouped_runs_of_a_module_tuple", it.grouped_runs_of_a_module_tuple, lambda r: (_v(r, 6),), 0),
    ("grouped_by_a_function_of_yours", it.grouped_by_a_function_of_yours, lambda r: (_v(r, 6),), 0),
    ("grouped_by_a_lambda_of_constants", it.grouped_by_a_lambda_of_constants, lambda r: (_v(r, 6),), 0),
]

PIPELINES = [
    ("w12_generator_of_generator", idioms12.generator_pipeline, lambda r: (_v(r, 5),), 0),
    ("pipeline_summed", it.pipeline_summed, lambda r: (_v(r, 5),), 0),
    ("pipeline_in_a_loop", it.pipeline_in_a_loop, lambda r: (_v(r, 5),), 0),
    ("pipeline_of_three", it.pipeline_of_three, lambda r: (_v(r, 5),), 0),
    ("pipeline_listed", it.pipeline_listed, lambda r: (_v(r, 5),), 0),
    ("pipeline_of_rows", it.pipeline_of_rows, lambda r: (r.normal(size=(3, 2)),), 0),
    ("w14_generator_used_twice", idioms14.generator_used_twice, lambda r: (_v(r),), 0),
    ("largest_of_a_generator", it.largest_of_a_generator, lambda r: (_v(r, 5),), 0),
    ("generator_enumerated", it.generator_enumerated, lambda r: (_v(r, 5),), 0),
    ("generator_zipped", it.generator_zipped, lambda r: (_v(r, 5),), 0),
    ("generator_summed_from_a_start", it.generator_summed_from_a_start, lambda r: (_v(r, 5),), 0),
]

ROWS = [
    ("rows_of_a_reshape", it.rows_of_a_reshape, lambda r: (_v(r, 8),), 0),
    ("rows_reversed_by_a_slice", it.rows_reversed_by_a_slice, lambda r: (r.normal(size=(3, 2)),), 0),
    ("rows_of_an_argument_written", it.rows_of_an_argument_written, lambda r: (r.normal(size=(3, 2)),), 0),
]

def _theta(r):
    return (np.array([0.2, -0.1]), r.normal(size=5))


CHOSEN = [
    ("w12_match_class", idioms12.match_class, _theta, 0),
    ("w12_match_class_of_three", idioms12.match_class, lambda r: (np.array([0.2, -0.1]), r.normal(size=3)), 0),
    ("method_of_the_chosen", ch.method_of_the_chosen, _theta, 0),
    ("method_of_the_other_chosen", ch.method_of_the_chosen, lambda r: (np.array([0.3, 0.2]), -1.0 - r.random(5)), 0),
    ("chosen_in_an_if_statement", ch.chosen_in_an_if_statement, _theta, 0),
    ("isinstance_of_the_chosen", ch.isinstance_of_the_chosen, _theta, 0),
    ("match_by_position", ch.match_by_position, _theta, 0),
    ("chosen_among_three", ch.chosen_among_three, _theta, 0),
    ("shapes_chosen_in_a_loop", ch.shapes_chosen_in_a_loop, _theta, 0),
]

SEQUENCES_GIVEN = [
    ("tuple_display_in_the_call", pl.tuple_display_in_the_call, _v8, 0),
    ("list_display_in_the_call", pl.list_display_in_the_call, _v8, 0),
    ("display_as_a_keyword", pl.display_as_a_keyword, _v8, 0),
    ("tuple_of_a_list", pl.tuple_of_a_list, _v8, 0),
    ("comprehension_of_slices", pl.comprehension_of_slices, _v8, 0),
    ("comprehension_over_a_list", pl.comprehension_over_a_list, _v8, 0),
    ("comprehension_of_neighbours", pl.comprehension_of_neighbours, _v8, 0),
    ("comprehension_with_a_condition", pl.comprehension_with_a_condition, _v8, 0),
    ("display_in_a_loop", pl.display_in_a_loop, _v8, 0),
    ("display_in_a_generator", pl.display_in_a_generator, _v8, 0),
    ("de_casteljau_of_a_list", pl.de_casteljau_of_a_list, _v8, 0),
    ("de_casteljau_of_a_comprehension", pl.de_casteljau_of_a_comprehension, _v8, 0),
    ("horner_recursive", pl.horner_recursive, _v8, 0),
    ("pairwise_sum_recursive", pl.pairwise_sum_recursive, _v8, 0),
    ("smoothed_with_a_depth", pl.smoothed_with_a_depth, _v8, 0),
    ("list_returned_by_the_helper", pl.list_returned_by_the_helper, _v8, 0),
    ("ends_of_a_list", pl.ends_of_a_list, _v8, 0),
    ("nested_list_walked_recursively", pl.nested_list_walked_recursively, _v8, 0),
    ("tuple_of_computed_sizes", pl.tuple_of_computed_sizes, _v8, 0),
]

LISTS_GIVEN = [
    ("appended_then_given", pl.appended_then_given, _v8, 0),
    ("filtered_appends_then_mean", pl.filtered_appends_then_mean, _v8, 0),
    ("rows_of_an_argument_given", pl.rows_of_an_argument_given, lambda r: (r.normal(size=(4, 3)),), 0),
    ("comprehension_over_an_array_given", pl.comprehension_over_an_array_given, lambda r: (_v(r, 5),), 0),
    ("helper_writes_the_callers_list", pl.helper_writes_the_callers_list, _v8, 0),
    ("helper_appends_then_rebinds", pl.helper_appends_then_rebinds, _v8, 0),
    ("list_per_pass_given", pl.list_per_pass_given, lambda r: (_v(r, 5),), 0),
]

CLASSES = {"closure_factory": CLOSURES, "function_given_to_a_helper": FUNCTIONS_GIVEN, "decorator": DECORATORS,
           "function_alias": ALIASES,
           "lru_cache": CACHED, "keyed_tuples": KEYED_TUPLES, "list_item_writes": ITEM_WRITES, "dict_in_a_loop": DICTS,
           "tree_to_a_function": TREES_TO_FUNCTIONS, "objects_built_inside": OBJECTS, "enums": ENUMS,
           "groupby": GROUPED, "generator_pipelines": PIPELINES, "list_of_rows": ROWS,
           "sequences_to_a_helper": SEQUENCES_GIVEN, "object_chosen_when_running": CHOSEN,
           "list_built_then_given": LISTS_GIVEN}

PROGRAMS = [row for rows in CLASSES.values() for row in rows]
