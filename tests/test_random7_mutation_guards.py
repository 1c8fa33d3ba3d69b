"""Guards found by the seventh random mutation set (issue 11, benchmarks/mutations_random7.toml, seed
20261207): each test pins what a survivor of that set changed, against an independent computation."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from attncert.certificates.engine.evidence import holds_exactly
from attncert.certificates.frontends.cli import main
from attncert.solvers import grades as gs


@pytest.mark.parametrize(
    ("alpha", "tau", "clip"),
    [
        ([1, 16], [1, 1], 2.0),
        ([1, 4, 16], [1, 1, 1], 2.0),
        ([1, 81], [1, 1], 3.0),
        ([9, 1], [1, 9], 3.0),
        # set 55: here the exact tie goes through the breakpoint search if the segment branch takes only
        # spreads < 2 ln C, and rounding leaves min g = 1 + 4e-16 with lo empty
        ([1, 30000], [1, 3], 10.0),
    ],
)
def test_ratio_exactly_c_is_one_minimiser_on_both_faces(alpha, tau, clip):
    """max rho / min rho = C (rho = (alpha/tau)^{1/4}): the gauge segment {c g : 1 <= c g <= C}
    has shrunk to the grading with min g = 1 and max g = C, so the minimiser is unique and touches
    both faces. The solver called it a segment (the mutant that misses the upper face too)."""
    sol = gs.solve_clipped(alpha, tau, clip)
    rho = (np.array(alpha, float) / np.array(tau, float)) ** 0.25
    np.testing.assert_allclose(sol.g, rho / rho.min(), rtol=1e-15)
    assert sol.unique is True
    assert sol.lo.tolist() == [int(np.argmin(rho))] and sol.hi.tolist() == [int(np.argmax(rho))]
    assert gs.kkt_residuals(alpha, tau, sol, clip).worst < 1e-15


def test_ratio_exactly_c_is_not_reported_as_a_segment(tmp_path, capsys):
    """Coordinate profiles with alpha/tau = (1, 16) and C = 2: `attncert grades` must not print the
    E17 segment note for an optimum that is one point."""
    doc = {
        "format": "gllm-profiles",
        "version": 1,
        "target": {"granularity": "coordinate", "kind": "energies", "values": [1, 16]},
        "data": {"granularity": "coordinate", "kind": "second_moments", "values": [1, 1]},
        "selection": {"C": 2.0, "d_k": 2, "mode": "clipped"},
    }
    profile, out = tmp_path / "ratio_c.json", tmp_path / "report.json"
    profile.write_text(json.dumps(doc))
    assert main(["grades", str(profile), "--json", str(out)]) == 0
    assert "segment" not in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["unique"] is True and report["active_sets"] == {"lo": [0], "hi": [1]}
    assert not any("segment" in note for note in report["notes"])


def test_lbfgsb_defaults_are_the_readmes():
    """The README states the cross-check's L-BFGS-B defaults (starts, time limit); a changed
    default fails here until the README changes with it."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    stated = re.search(r"L-BFGS-B \((\d+) starts, the box centre first; none\s+begins after (\d+) s", readme)
    assert stated, "README: the L-BFGS-B cross-check's defaults are no longer stated"
    defaults = inspect.signature(gs.solve_lbfgsb).parameters
    assert (defaults["starts"].default, defaults["time_limit_s"].default) == (int(stated[1]), float(stated[2]))


@pytest.mark.parametrize("alpha", [[0.1, 0.2, 0.3, 0.4], [1 / 6] * 6, [0.5, 0.25, 0.25]])
def test_lbfgsb_starts_at_the_box_centre(alpha):
    """alpha = tau: every constant grading is optimal and the gradient vanishes at the box centre,
    so one start from the centre returns it unchanged (ln g = 0 exactly, Lambda = 1 exactly); a
    random first start converges to a constant only to about 1e-9."""
    sol = gs.solve_lbfgsb(alpha, alpha, 2.0, starts=1)
    assert np.all(sol.log_g == 0.0) and sol.value == 1.0


def test_an_undecidable_sum_relation_does_not_hold_rather_than_crash():
    """SymPy's simplify raises StopIteration on some Sum relations it cannot decide; an exact
    fact must then count as not holding (REFUTED), not stop the certificate with ERROR. Found
    when Lemma 5.6's PSD sign fact lost its p >= 0 assumption."""
    i, n = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True)
    p, x = sp.IndexedBase("p", real=True), sp.IndexedBase("x", real=True)
    mean = sp.Sum(p[i] * x[i], (i, 1, n))
    undecided = sp.Ge(sp.Sum(p[i] * (x[i] - mean) ** 2, (i, 1, n)), 0)
    assert holds_exactly(undecided) is False
    nonnegative = sp.IndexedBase("p", nonnegative=True)
    assert holds_exactly(undecided.subs(p, nonnegative)) is True
