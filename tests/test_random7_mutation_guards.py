"""Guards found by the seventh random mutation set (issue 11, benchmarks/mutations_random7.toml, seed
20261207): each test pins what a survivor of that set changed, against an independent computation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncert.certificates.frontends.cli import main
from attncert.solvers import grades as gs


@pytest.mark.parametrize(
    ("alpha", "tau", "clip"),
    [([1, 16], [1, 1], 2.0), ([1, 4, 16], [1, 1, 1], 2.0), ([1, 81], [1, 1], 3.0), ([9, 1], [1, 9], 3.0)],
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
