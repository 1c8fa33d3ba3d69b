"""Audit of `attncert grades`: the regularized modes on levels, the bound's modes, ignored nu_mag,
many levels, --json over the profile, and the README's progress-line timing."""

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from attncert.certificates.frontends import grades as grades_cmd
from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import load_profiles

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
# levels_06_03.csv: geometric (0.6, 0.3) rounded to 4 digits; dims unequal so that they matter
A, S, DIMS = [0.0993, 0.1654, 0.2757, 0.4596], [0.7057, 0.2117, 0.0635, 0.0191], [2, 5, 3, 4]


def _level_doc(a, s, dims, **selection) -> dict:
    return {
        "basis": {"levels": [{"name": f"l{i}", "dim": d} for i, d in enumerate(dims)]},
        "target": {"granularity": "level", "kind": "energies", "values": list(a)},
        "data": {"granularity": "level", "kind": "variances", "values": list(s)},
        "selection": selection,
    }


def _write(tmp_path: Path, doc, name="p.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def _report(tmp_path: Path, doc, name="p.json"):
    return grade_report(load_profiles(_write(tmp_path, doc, name)))


def _run(argv, capsys) -> str:
    assert main([str(a) for a in argv]) == 0
    out, err = capsys.readouterr()
    assert not err
    return out


# --- 1. the Cor 4 penalty counts every coordinate of a level ---------------------------------------------
@pytest.mark.parametrize(("mode", "nu"), [("regularized", 1e-4), ("regularized_clipped", 1e-6)])
def test_regularized_level_solve_equals_the_within_level_uniform_coordinate_solve(tmp_path, mode, nu):
    level = _level_doc(A, S, DIMS, mode=mode, nu_mag=nu)
    coord = {
        "basis": level["basis"],
        "target": {"granularity": "coordinate", "kind": "energies", "values": np.repeat(np.divide(A, DIMS), DIMS).tolist()},
        "data": {"granularity": "coordinate", "kind": "variances", "values": np.repeat(np.divide(S, DIMS), DIMS).tolist()},
        "selection": level["selection"],
    }
    lv, co = _report(tmp_path, level, "l.json"), _report(tmp_path, coord, "c.json")
    assert lv.profiles.granularity == "level" and co.profiles.granularity == "coordinate"
    assert lv.optimum.value == pytest.approx(co.optimum.value, rel=1e-8)
    np.testing.assert_allclose(np.repeat(lv.q, DIMS), co.q, atol=1e-5)
    np.testing.assert_allclose(lv.optimum.g, [m for _, m, _ in co.level_summary], rtol=1e-8)
    if mode == "regularized_clipped":  # the clip binds: level 3 sits on g = C
        assert lv.optimum.hi.tolist() == [3] and lv.q[3] == pytest.approx(64 * np.log(2), rel=1e-12)
    # the value is Lambda at the reported grading, and the penalty makes it worse than the clipped optimum
    assert lv.optimum.value > grade_report(load_profiles(_write(tmp_path, _level_doc(A, S, DIMS)))).optimum.value


def test_regularized_active_sets_at_clip_one(tmp_path):
    """At C = 1 the two faces coincide: each level is counted once (the sets once overlapped, and the
    report printed 2 / -2 / 2)."""
    rep = _report(tmp_path, _level_doc([0.01, 0.99], [0.99, 0.01], [1, 1], mode="regularized_clipped", nu_mag=1e-3, C=1))
    assert rep.optimum.lo.tolist() == [0, 1] and rep.optimum.hi.size == 0
    assert rep.optimum.value == pytest.approx(1.0, rel=1e-12)


def test_level_dims_change_the_regularized_solve(tmp_path):
    """The example profile (dims 256) and the same profile with dims 1 differ: 256 times the penalty."""
    rep = {d: _report(tmp_path, _level_doc(A, S, [d] * 4, mode="regularized", nu_mag=1e-5)) for d in (1, 256)}
    # dims 256 is the 1,024-coordinate solve of the audit (q ~ [0, 0, 1.29, 2.59], Lambda 0.9574)
    np.testing.assert_allclose(rep[256].q, [0, 0, 1.293, 2.588], atol=2e-3)
    assert rep[256].optimum.value == pytest.approx(0.957405, abs=2e-6)
    assert rep[1].q[3] > 70 and rep[1].optimum.value == pytest.approx(0.464507, abs=2e-6)


# --- 2. max{BC^2, C^-2} only where Prop 10 (iii) makes it a bound -------------------------------------------
def test_the_bound_is_reported_only_in_the_clipped_modes(tmp_path, capsys):
    for mode, bound in [("unclipped", None), ("regularized", None), ("clipped", 0.25), ("regularized_clipped", 0.25)]:
        doc = _level_doc([0.01, 0.99], [0.99, 0.01], [1, 1], mode=mode, nu_mag=1e-3)
        out = _run(["grades", _write(tmp_path, doc), "--json", tmp_path / "r.json"], capsys)
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["bound"] == (None if bound is None else pytest.approx(bound, rel=1e-15)), mode
        assert ("bound max{BC^2, C^-2}" in out) == (bound is not None), mode
        if bound is not None:  # it holds for the value reported beside it
            assert report["lambda_star_c"] >= bound
        elif mode == "unclipped":  # the counterexample: 0.0396 = BC^2 lies below C^-2 = 0.25
            assert report["lambda_star_c"] == pytest.approx(0.0396, rel=1e-12)


def test_labels_name_the_solve_of_the_mode(tmp_path, capsys):
    doc = _level_doc([0.01, 0.99], [0.99, 0.01], [1, 1], mode="unclipped")
    out = _run(["grades", _write(tmp_path, doc)], capsys)
    assert "Lambda* (closed-form)" in out and re.search(r"token gain 1/Lambda\* +│ 25\.2525x", out) and "Lambda*_C" not in out
    out = _run(["grades", _write(tmp_path, doc), "--mode", "regularized", "--nu-mag", "1e-3"], capsys)
    assert "Lambda(q_nu) (L-BFGS-B (Cor 4))" in out and "q_nu" in out and "Lambda*_C" not in out


# --- 3. nu_mag outside the regularized modes --------------------------------------------------------------
@pytest.mark.parametrize("mode", ["clipped", "unclipped"])
@pytest.mark.parametrize("where", ["file", "flag"])
def test_nu_mag_without_effect_gets_a_note(tmp_path, capsys, mode, where):
    doc = _level_doc([0.2, 0.8], [0.8, 0.2], [1, 1], mode=mode, **({"nu_mag": 5} if where == "file" else {}))
    flag = [] if where == "file" else ["--nu-mag", "5"]
    out = _run(["grades", _write(tmp_path, doc), *flag, "--json", tmp_path / "r.json"], capsys)
    assert f"note: nu_mag = 5 has no effect in mode {mode}: it weights the regularized modes' Cor 4 penalty" in out
    # no effect indeed: BC^2 = 0.64, inside the C = 2 box
    assert json.loads((tmp_path / "r.json").read_text())["lambda_star_c"] == pytest.approx(0.64, rel=1e-12)
    # nothing to note where nu_mag is 0, or where it is used
    for quiet in ({"mode": mode}, {"mode": "regularized", "nu_mag": 5}):
        rep = _report(tmp_path, _level_doc([0.2, 0.8], [0.8, 0.2], [1, 1], **quiet), "quiet.json")
        assert not any("no effect" in n for n in rep.notes)


# --- 4. many levels ---------------------------------------------------------------------------------------
def test_a_long_level_table_shows_both_ends(tmp_path, capsys):
    n = 2000
    doc = {
        "basis": {"levels": [{"name": f"lv{i}"} for i in range(n)]},
        "target": {"granularity": "geometric", "nu": 0.9},
        "data": {"granularity": "geometric", "mu": 0.5},
    }
    out = _run(["grades", _write(tmp_path, doc), "--json", tmp_path / "r.json"], capsys)
    rows = re.findall(r"│ (lv\d+) +│", out)
    assert rows == [f"lv{i}" for i in [*range(20), *range(n - 20, n)]]
    assert f"{n - 40:,} of {n:,} levels left out of this table; --json PATH writes all of them" in out
    assert len(json.loads((tmp_path / "r.json").read_text())["q_star_c"]) == n


def test_level_summary_is_linear_in_the_number_of_levels(tmp_path):
    """A coordinate CSV with level = j: one level per coordinate (a mask per level took 13 s at 80,000
    levels, 7 s at 60,000; one pass takes 0.2 s)."""
    n = 60_000
    rng = np.random.default_rng(1)
    alpha, tau = rng.uniform(0.1, 1, n), rng.uniform(0.1, 1, n)
    text = "j,level,alpha,tau\n" + "".join(
        f"{j},{j},{a:.17g},{t:.17g}\n" for j, (a, t) in enumerate(zip(alpha, tau, strict=True))
    )
    p = load_profiles(_write(tmp_path, text, "p.csv"))
    start = time.perf_counter()
    rep = grade_report(p)
    assert time.perf_counter() - start < 3.0
    np.testing.assert_allclose([m for _, _, m in rep.level_summary], rep.q, rtol=1e-12, atol=1e-12)
    assert len(rep.level_summary) == n
    # levels of unequal size, rows out of order: each mean is over that level's coordinates only
    levels = [2, 0, 1, 1, 2, 2, 0]
    text = "j,level,alpha,tau\n" + "".join(
        f"{j},{lv},{a},{t}\n"
        for j, (lv, a, t) in enumerate(zip(levels, [1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1], strict=True))
    )
    rep = _report(tmp_path, text, "p.csv")
    for k, (name, g, q) in enumerate(rep.level_summary):
        mask = np.array(levels) == k
        assert name == f"level{k}"
        assert g == pytest.approx(float(np.mean(rep.optimum.g[mask])), rel=1e-15)
        assert q == pytest.approx(float(np.mean(rep.q[mask])), rel=1e-15, abs=1e-15)


# --- 5. --json over the input profile ---------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ["same", "relative", "link"])
def test_json_over_the_profile_is_refused(tmp_path, capsys, monkeypatch, spelling):
    profile = _write(tmp_path, _level_doc([0.2, 0.8], [0.8, 0.2], [1, 1]))
    before = profile.read_bytes()
    out = profile
    if spelling == "relative":
        monkeypatch.chdir(tmp_path)
        out = Path("p.json")
    elif spelling == "link":
        out = tmp_path / "link.json"
        out.symlink_to(profile)
    entries = set(tmp_path.iterdir())
    assert main(["grades", str(profile), "--json", str(out)]) == 2
    stdout, err = capsys.readouterr()
    assert not stdout and err.count("\n") == 1 and "Traceback" not in err
    assert "is the input profile: the report would overwrite it" in err
    assert profile.read_bytes() == before and set(tmp_path.iterdir()) == entries


# --- 6. the README's progress-line timing is the code's --------------------------------------------------
def test_readme_states_the_heartbeat_period():
    first = re.search(r"progress line on stderr every (\d+) s \(the first after (\d+) s\)", README)
    assert first, "README no longer states when the progress line comes"
    assert float(first.group(1)) == float(first.group(2)) == grades_cmd.HEARTBEAT_S
