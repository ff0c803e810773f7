"""The default run's sample of the costly families (tests/sampling.py): stable, never empty,
every transformation of a grid kept, and everything run when the slow set is selected."""

from __future__ import annotations

import itertools
import types

import numpy as np
import pytest
import sampling

from transforms import matrix

PROGRAMS = [f"program_{k}" for k in range(30)]
TRANSFORMS = ["hessian", "hvp", "jacobian"]


class Row:
    """What sampling reads of a collected test: its id, its parameters, its marks."""

    def __init__(self, name: str, params: dict, indices: dict, marks=()):
        self.originalname = name
        ids = "-".join(str(v) for v in params.values())
        self.nodeid = f"tests/transforms/test_made_up.py::{name}[{ids}]"
        self.callspec = types.SimpleNamespace(params=params, indices=indices)
        self.marks = list(marks)

    def add_marker(self, mark):
        self.marks.append(mark.name)

    def get_closest_marker(self, name):
        return name if name in self.marks else None


def grid(name="test_second_order", programs=PROGRAMS, transforms=TRANSFORMS):
    return [Row(name, {"f": i, "transform": t}, {"f": i, "transform": j})
            for (i, _), (j, t) in itertools.product(enumerate(programs), enumerate(transforms))]


def kept(rows) -> list:
    return sorted(sampling.family_sample(rows))


class Config:
    def __init__(self, markexpr):
        self.markexpr = markexpr

    def getoption(self, name):
        assert name == "markexpr"
        return self.markexpr


def test_a_grid_keeps_a_share_and_every_transformation():
    rows = grid()
    chosen = set(kept(rows))
    assert len(rows) // (2 * sampling.FAMILY_SAMPLE) <= len(chosen) <= len(rows) // 2, len(chosen)
    for t in TRANSFORMS:
        assert any(r.nodeid in chosen for r in rows if r.callspec.params["transform"] == t), t
    # the same rows whatever the order they were collected in
    assert kept(rows[::-1]) == kept(rows) == kept(grid())


def test_a_rare_transformation_is_kept_even_where_the_hash_misses_it():
    rows = grid()
    lone = next(r for r in (Row("test_second_order", {"f": k, "transform": "grad_of_grad"}, {"f": k, "transform": 3})
                            for k in range(len(PROGRAMS))) if sampling._hash(r) % sampling.FAMILY_SAMPLE)
    assert lone.nodeid in kept(rows + [lone])


def test_a_family_of_programs_only_is_sampled_by_hash_and_never_empty():
    programs = [f"program_{k}" for k in range(80)]  # enough that the hash picks some
    rows = [Row("test_every_second_order_transformation", {"program": p}, {"program": i})
            for i, p in enumerate(programs)]
    chosen = kept(rows)
    hashed = sorted(r.nodeid for r in rows if sampling._hash(r) % sampling.FAMILY_SAMPLE == 0)
    assert chosen == hashed and 0 < len(chosen) < len(rows)
    for few in range(1, 4):
        assert len(kept(rows[:few])) >= 1


def test_names_of_one_parametrize_call_that_move_together_are_one_parameter():
    rows = [Row("test_second_order", {"name": p, "shape": (2, k)}, {"name": k, "shape": k})
            for k, p in enumerate(PROGRAMS)]
    hashed = sorted(r.nodeid for r in rows if sampling._hash(r) % sampling.FAMILY_SAMPLE == 0)
    assert kept(rows) == hashed


@pytest.mark.parametrize("markexpr, runs", [("not slow and not fuzz", "a sample"), ("slow", "all")])
def test_the_slow_set_runs_every_row_the_default_run_leaves_out(markexpr, runs, monkeypatch):
    monkeypatch.setattr(matrix, "SAMPLE", dict(matrix.SAMPLE))  # the slow set's `mark` runs every cell
    rows = grid() + grid("test_hessian_of_two_points", PROGRAMS[:2], TRANSFORMS[:1])  # 2 rows: not sampled
    rows.append(Row("test_second_order", {"f": 99, "transform": "hvp"}, {"f": 99, "transform": 1}, ["slow"]))
    sampling.mark(Config(markexpr), rows)
    slow = [r for r in rows if r.get_closest_marker("slow")]
    family = rows[:len(PROGRAMS) * len(TRANSFORMS)]
    if runs == "all":
        assert all(r in slow for r in family) and rows[-1] in slow
    else:
        assert sorted(r.nodeid for r in family if r not in slow) == kept(family)
        assert rows[-1] in slow  # a row its file sends to the slow set stays there
    assert not any(r.get_closest_marker("slow") for r in rows[len(family):-1])  # a family of two runs whole


def _square(x):
    return np.sum(x * x)


def test_a_row_of_several_transformations_runs_the_costly_cells_on_a_sample(monkeypatch):
    monkeypatch.setattr(matrix, "SAMPLE", dict(matrix.SAMPLE))
    programs = [matrix.Program(f"sample:square_{k}", _square, (np.array([0.5, -1.0]),), 0, "test") for k in range(24)]
    ran = {p.name: set(matrix.run(p, ("grad", "hessian", "check")).cells) for p in programs}
    with_hessian = [name for name, cells in ran.items() if "hessian" in cells]
    assert all("grad" in cells for cells in ran.values())
    assert 0 < len(with_hessian) < len(programs)  # a stable share, by the name's hash
    assert set(matrix.run(programs[0], ("hessian",)).cells) == {"hessian"}  # one transformation alone: always
    matrix.sample_everything()
    assert all({"grad", "hessian", "check"} <= set(matrix.run(p, ("grad", "hessian", "check")).cells)
               for p in programs[:3])


def test_every_heavy_row_names_a_test_that_exists():
    """A row of tests/heavy_rows.txt whose test was renamed or removed would leave the list silently."""
    root = sampling.HEAVY_FILE.parent.parent
    assert sampling.HEAVY_ROWS
    for nodeid in sampling.HEAVY_ROWS:
        path, _, name = nodeid.partition("::")
        function = name.partition("[")[0]
        assert f"def {function}(" in (root / path).read_text(), nodeid


def test_heavy_rows_are_left_to_the_slow_set():
    nodeid = sorted(sampling.HEAVY_ROWS)[0]
    row = Row("test_heavy", {}, {})
    row.nodeid = nodeid
    sampling.mark(Config("not slow and not fuzz"), [row])
    assert "slow" in row.marks
