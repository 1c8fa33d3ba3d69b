"""The three notebooks run top to bottom (issue 6) and print the right numbers (issue 11).

A notebook runs through nbclient when jupytext and a kernel are installed, otherwise as the plain
Python script it also is; either way its printed output is parsed and the values it computes are
checked against the spec (``shared/spec``: gllm.md §3.3 Table 3, psa.md §3.4 reference
reproduction), not against the program's own tables of paper values.
"""

import importlib.util
import math
import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.py"))
HAVE_KERNEL = all(importlib.util.find_spec(m) for m in ("jupytext", "nbclient", "ipykernel"))
NUMBER = r"([+-]?\d+(?:\.\d+)?|nan)"

#: gllm.md §3.3 (L = 4, C = 2): (nu, mu) -> (Lambda* = BC^2, Lambda*_C, gain 1/Lambda*_C, g*_C)
TABLE3 = {
    (0.8, 0.4): (0.70028, 0.70777, 1.413, (1, 1.2743, 1.6943, 2)),
    (0.7, 0.3): (0.53396, 0.58173, 1.719, (1, 1.3217, 1.9525, 2)),
    (0.6, 0.3): (0.45933, 0.53101, 1.883, (1, 1.2997, 1.9953, 2)),
    (0.5, 0.2): (0.27902, 0.42361, 2.361, (1, 1.3139, 2, 2)),
}
#: gllm.md §3.3: the unclipped gain 1/Lambda* = 1/BC^2, the limit of the clipped gain as C grows
UNCLIPPED_GAIN = {(0.8, 0.4): 1.428, (0.7, 0.3): 1.873, (0.6, 0.3): 2.177, (0.5, 0.2): 3.584}
#: psa.md §3.4, per-point gamma_c (Monte Carlo mean over 5 seeds, sigma_t = 2), keyed by (T, d_k)
GAMMA_C = {
    (10, 4): 0.7354, (10, 8): 0.7312, (10, 16): 0.7076, (10, 32): 0.6460, (10, 64): 0.5552, (10, 128): 0.4599,
    (15, 4): 0.7780, (15, 8): 0.7810, (15, 16): 0.7611, (15, 32): 0.7044, (15, 64): 0.6049, (15, 128): 0.4981,
    (25, 4): 0.8355, (25, 8): 0.8406, (25, 16): 0.8269, (25, 32): 0.7683, (25, 64): 0.6628, (25, 128): 0.5494,
}  # fmt: skip


def find(pattern: str, text: str) -> list[float]:
    match = re.search(pattern, text)
    assert match, f"the notebook no longer prints {pattern!r}"
    return [float(x) for x in match.groups()]


def check_certificates(out: str) -> None:
    """01: the quick tier as the registry declares it, every verdict as expected."""
    from attncert.certificates.engine.model import Tier, Verdict
    from attncert.certificates.engine.registry import PAPERS, select

    quick = select(tier=Tier.QUICK)
    count, flag = re.search(r"(\d+) certificates, all as expected: (True|False)", out).groups()
    assert int(count) == len(quick)
    for paper in PAPERS:
        counts = re.search(rf"^{paper} (\{{.*\}})$", out, re.M).group(1)
        assert sum(int(n) for n in re.findall(r": (\d+)", counts)) == sum(c.paper == paper for c in quick)
    errata = {c.id for c in quick if c.expected in (Verdict.REFUTED, Verdict.MISMATCH)}
    assert set(re.findall(r"^(?:REFUTED|MISMATCH) +(\S+)$", out, re.M)) == errata
    assert re.search(r"^verdict PROVED$", out, re.M) and re.search(r"^expected PROVED$", out, re.M)
    for cid in ("psa.annealed_bound_saturates_at_8L", "gllm.optimum_is_squared_bhattacharyya"):
        verdict, mutant = re.search(rf"^{re.escape(cid)} -> (\w+) \|.* -> (\w+)$", out, re.M).groups()
        assert verdict == select(pattern=cid)[0].expected and mutant not in (verdict, "ERROR")
    assert flag == "True"


def check_grades(out: str) -> None:
    """02: the example profile's optimum, its cross-checks, the candidates and Table 3."""
    bc, lam, lam_c, gain = find(rf"BC = {NUMBER}, Lambda\* = {NUMBER}, Lambda\*_C = {NUMBER}, gain = {NUMBER}x", out)
    assert lam == pytest.approx(bc**2, abs=1e-4) and lam <= lam_c <= 1
    assert gain == pytest.approx(1 / lam_c, abs=2e-3) and 1 < gain <= 4  # at most C^2 at C = 2 (gllm.md C35)
    rel = [
        float(x) for x in re.findall(r"'[\w-]+': ([\d.e+-]+)", re.search(r"cross-checks \(relative\): (\{.*\})", out).group(1))
    ]
    assert len(rel) == 2 and max(rel) < 1e-6
    rows = {
        m[0]: (float(m[1]), float(m[2]), m[3] == "True")
        for m in re.findall(rf"^(\w+) +certificate +{NUMBER} +Lambda\(q\) = {NUMBER} +in Q\+: (\w+)$", out, re.M)
    }
    assert rows["uniform"] == (0.0, 1.0, False)
    assert rows["taxonomic"][0] > 0 and rows["taxonomic"][1] < 1 and rows["taxonomic"][2]
    assert rows["too_steep"][0] > 0 and rows["too_steep"][1] > 1 and not rows["too_steep"][2]  # gllm.md E1
    for (nu, mu), (star, star_c, gain_c, g) in TABLE3.items():
        pattern = rf"\({nu}, {mu}\): Lambda\* = {NUMBER}  Lambda\*_C = {NUMBER}  gain = {NUMBER}  g\*_C = \[([^\]]*)\]"
        match = re.search(pattern, out)
        assert match, (nu, mu)
        assert [float(x) for x in match.groups()[:3]] == [star, star_c, gain_c]
        assert [float(x) for x in match.group(4).split()] == pytest.approx(g, abs=1e-4)
        curve = [float(x) for x in re.search(rf"^\({nu}, {mu}\): ((?:\d+\.\d\d ?)+)$", out, re.M).group(1).split()]
        assert len(curve) == 11 and curve[0] == 1.0  # C = 1: every g = 1, Lambda = 1
        assert curve[2] == round(gain_c, 2)  # C = 2
        assert curve[-1] == round(UNCLIPPED_GAIN[(nu, mu)], 2)  # C = 6: the clip no longer binds
        assert curve == sorted(curve)


def check_phase(out: str) -> None:
    """03: Fig. 7 and Fig. 8 by quadrature against the spec's reference reproduction (sigma_t = 2)."""
    r, median, c_hat = find(rf"Fig\. 7: mean-field r = {NUMBER} .*median error {NUMBER}% .*c-hat = {NUMBER}", out)
    assert abs(r - 0.9879) <= 1e-3 and abs(median - 1.90) <= 0.2 and abs(c_hat - 0.7242) <= 3e-3
    points = re.findall(r"^T = +(\d+) +d_k = +(\d+) +(condensed|mean-field) +gamma_c = (\d\.\d+)$", out, re.M)
    assert len(points) == len(GAMMA_C)
    for T, d_k, branch, gamma_c in points:
        assert branch == ("mean-field" if int(d_k) >= 8 * math.log(int(T) - 1) else "condensed")
        assert float(gamma_c) == pytest.approx(GAMMA_C[(int(T), int(d_k))], abs=4e-3), (T, d_k)
    r8, median8 = find(rf"Fig\. 8: on-branch r = {NUMBER} .*median error {NUMBER}%", out)
    assert abs(r8 - 0.9993) <= 5e-4 and 2.7 <= median8 <= 3.3
    sens = {
        float(s): (float(a), float(b))
        for s, a, b in re.findall(rf"sigma_t = {NUMBER}: r = {NUMBER}, median error {NUMBER}%", out)
    }
    assert set(sens) == {0.0, 1.5, 2.0, 2.236, 2.5}
    assert sens[2.0] == (r, median)
    assert abs(sens[0.0][0] - 0.9986) <= 1e-3  # psa.md §3.4: r = 0.9986 at sigma_t = 0
    r_by_sigma = [sens[s][0] for s in (1.5, 2.0, 2.236, 2.5)]
    assert r_by_sigma == sorted(r_by_sigma, reverse=True)


CHECKS = {"01_certificates": check_certificates, "02_grade_selection": check_grades, "03_phase_transitions": check_phase}


def test_there_are_three_notebooks():
    assert [p.stem for p in NOTEBOOKS] == list(CHECKS)


def printed(path: Path, capsys) -> str:
    """What the notebook prints, run as a notebook when a kernel is installed, else as a script."""
    if not HAVE_KERNEL:
        runpy.run_path(str(path), run_name="__main__")
        return capsys.readouterr().out
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(path)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    CHECKS[path.stem](printed(path, capsys))
