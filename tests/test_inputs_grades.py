"""Issue 12: every bad input to `attncert grades` found by the fuzzing pass is one clear line
naming the field, exit 2, no traceback, nothing written; every valid one is solved correctly."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import ProfileError, load_profiles
from attncert.solvers import grades as gs

EXAMPLES = Path(__file__).resolve().parents[1] / "certificates" / "examples" / "profiles"


def _doc(alpha=(0.5, 0.3, 0.2), tau=(0.2, 0.3, 0.5), **extra) -> dict:
    doc = {
        "format": "gllm-profiles",
        "version": 1,
        "basis": {"levels": [{"index": i, "name": f"l{i}", "dim": 1} for i in range(len(alpha))]},
        "target": {"granularity": "level", "kind": "energies", "values": list(alpha)},
        "data": {"granularity": "level", "kind": "variances", "values": list(tau)},
    }
    doc.update(extra)
    return doc


def _write(tmp_path: Path, doc, name="p.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def usage_error(argv, capsys, contains: str, tmp_path: Path | None = None) -> str:
    """The promised behaviour: exit 2, one line on stderr naming the problem, nothing on stdout,
    no traceback, no new file."""
    before = set(tmp_path.rglob("*")) if tmp_path else set()
    assert main([str(a) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("attncert: error:"), err
    assert contains in err, err
    assert "Traceback" not in err and not out
    if tmp_path:
        assert set(tmp_path.rglob("*")) == before
    return err


def solved(argv, capsys) -> str:
    assert main([str(a) for a in argv]) == 0
    out, err = capsys.readouterr()
    assert not err and "nan" not in out.lower().replace("nan%", "")
    return out


# --- documents of the wrong shape -------------------------------------------------------------------
@pytest.mark.parametrize("text", ["[1, 2]", "3", "true", "null", '"text"'])
def test_non_object_documents(text, tmp_path, capsys):
    usage_error(["grades", _write(tmp_path, text)], capsys, "(top level): must be an object", tmp_path)


@pytest.mark.parametrize("selection", [[1, 2], "clipped", 3, [], ""])
def test_selection_of_the_wrong_type_json(selection, tmp_path, capsys):
    path = _write(tmp_path, _doc(selection=selection))
    usage_error(["grades", path, "--C", "3"], capsys, "selection: must be an object", tmp_path)
    usage_error(["grades", path], capsys, "selection: must be an object", tmp_path)


@pytest.mark.parametrize("value", ['"clipped"', "[1, 2]", "[]", '""'])
def test_selection_of_the_wrong_type_toml(value, tmp_path, capsys):
    text = (EXAMPLES / "table3_nu06_mu03.toml").read_text()
    text = f"selection = {value}\n" + text[: text.index("[selection]")] + text[text.index("[[candidates]]") :]
    usage_error(["grades", _write(tmp_path, text, "p.toml")], capsys, "selection: must be an object", tmp_path)


def test_deep_nesting(tmp_path, capsys):
    usage_error(["grades", _write(tmp_path, "[" * 10_000 + "]" * 10_000)], capsys, "nested too deeply", tmp_path)
    usage_error(["grades", _write(tmp_path, "x = " + "[" * 10_000 + "]" * 10_000, "p.toml")], capsys, "(syntax)", tmp_path)


def test_huge_integers(tmp_path, capsys):
    usage_error(["grades", _write(tmp_path, _doc(selection={"C": 10**400}))], capsys, "selection.C", tmp_path)
    usage_error(["grades", _write(tmp_path, _doc(alpha=(10**400, 1, 1)))], capsys, "target.values[0]", tmp_path)
    usage_error(["grades", _write(tmp_path, '{"version": ' + "9" * 5000 + "}")], capsys, "too long", tmp_path)


@pytest.mark.parametrize(
    ("section", "key"), [("target", "centred"), ("data", "centred"), ("basis", "dims"), ("bootstrap", "units")]
)
def test_unknown_keys_inside_sections(section, key, tmp_path, capsys):
    doc = _doc()
    doc.setdefault(section, {})[key] = True
    usage_error(["grades", _write(tmp_path, doc)], capsys, f"{section}.{key}: unknown key", tmp_path)


def test_wrong_types_inside_fields(tmp_path, capsys):
    doc = _doc()
    doc["data"]["centered"] = "yes"
    usage_error(["grades", _write(tmp_path, doc)], capsys, "data.centered", tmp_path)
    doc = _doc(candidates=[{"name": 3, "q": [0, 0, 1]}])
    usage_error(["grades", _write(tmp_path, doc)], capsys, "candidates[0].name: must be a string", tmp_path)
    doc = _doc()
    doc["basis"]["levels"][0]["dim"] = 10**12
    usage_error(["grades", _write(tmp_path, doc)], capsys, "basis.levels[0].dim", tmp_path)


# --- user text is shown, never interpreted ------------------------------------------------------------------
def test_markup_in_names_is_printed_literally(tmp_path, capsys):
    doc = _doc(task="[/] [bold]x :smile:", candidates=[{"name": "[red]c[/]", "q": [0, 0, 1]}])
    doc["basis"]["levels"][0]["name"] = "[/]"
    out = solved(["grades", _write(tmp_path, doc, "[b]p.json")], capsys)
    assert "[/] [bold]x :smile:" in out and "[red]c[/]" in out and "[b]p.json" in out


def test_error_messages_escape_markup_and_stay_one_line(tmp_path, capsys):
    folder = tmp_path / "a\nb[bold]"
    folder.mkdir()
    path = folder / "p[/].json".replace("/", "")
    path.write_text("[1]")
    err = usage_error(["grades", path], capsys, "a b[bold]/p[].json", tmp_path)
    assert ":smile:" not in err


# --- CSV and .npy files ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("level,name,dim,a,s\n0,x,inf,0.5,0.5\n1,y,1,0.5,0.5\n", "column dim"),
        ("j,level,alpha,tau\n0,inf,0.5,0.5\n1,0,0.5,0.5\n", "column level"),
        ("j,level,alpha,tau\n0,1000000000000,0.5,0.5\n1,0,0.5,0.5\n", "column level"),
        ("j,level,alpha,tau\n0,0," + "1" * 200_000 + ",0.5\n", "malformed CSV"),
        ("j,level,alpha,tau\n", "at least one data row"),
        ("j,level,alpha,tau\n0,0,0.5\n", "row 2"),
        ("j,level,alpha,tau\n0,0,0.5,0.5\n0,1,0.5,0.5\n", "row 3, column j: coordinate 0 is also row 2"),
        ("j,level,alpha,tau\n1,0,0.5,0.5\n2,1,0.5,0.5\n", "row 3, column j: must be an integer in [0, 1]"),
        ("j,level,w_hat,sigma2_hat\n0.5,0,0.5,0.5\n1,1,0.5,0.5\n", "row 2, column j"),
    ],
)
def test_bad_csv(text, message, tmp_path, capsys):
    usage_error(["grades", _write(tmp_path, text, "p.csv")], capsys, message, tmp_path)


def test_csv_coordinates_are_numbered_by_j_not_by_row(tmp_path):
    """Rows in any order: coordinate j carries its own row's values and level. Before, j was never
    read, and a file listing j = 1 first reported that row's alpha as coordinate 0's."""
    rows = [(1, 1, 0.9, 0.3), (2, 1, 0.5, 0.2), (0, 0, 0.1, 0.5)]  # a 3-cycle: not its own inverse

    def csv(rows) -> str:
        return "j,level,alpha,tau\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)

    shuffled = load_profiles(_write(tmp_path, csv(rows), "s.csv"))
    ordered = load_profiles(_write(tmp_path, csv(sorted(rows)), "o.csv"))
    np.testing.assert_allclose(shuffled.alpha, [0.1 / 1.5, 0.9 / 1.5, 0.5 / 1.5], rtol=1e-15)
    np.testing.assert_allclose(shuffled.tau, [0.5, 0.3, 0.2], rtol=1e-15)
    np.testing.assert_array_equal(shuffled.level_of, [0, 1, 1])
    for name in ("alpha", "tau", "log_alpha", "log_tau", "level_of"):
        np.testing.assert_array_equal(getattr(shuffled, name), getattr(ordered, name))


def _npy_doc(tmp_path, array=None, header_shape=None) -> Path:
    doc = _doc()
    doc["target"] = {"granularity": "level", "kind": "energies", "values_file": "t.npy"}
    if header_shape is not None:
        with (tmp_path / "t.npy").open("wb") as fh:
            np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": header_shape})
            fh.write(b"\0" * 64)
    else:
        np.save(tmp_path / "t.npy", array)
    return _write(tmp_path, doc)


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros(3, dtype=[("a", "<f8")]), "real numbers"),
        (np.array([1 + 1j, 1, 1]), "real numbers"),
        (np.ones((3, 1, 1)), "dimensions"),
    ],
)
def test_bad_npy_arrays(array, message, tmp_path, capsys):
    usage_error(["grades", _npy_doc(tmp_path, array)], capsys, message, tmp_path)


def test_npy_header_declaring_a_huge_array_is_refused_before_loading(tmp_path, capsys):
    usage_error(["grades", _npy_doc(tmp_path, header_shape=(10**12,))], capsys, "declares 1,000,000,000,000 elements", tmp_path)
    usage_error(["grades", _npy_doc(tmp_path, header_shape=(100,))], capsys, "shorter than its header", tmp_path)


def test_empty_bootstrap(tmp_path, capsys):
    doc = json.loads((EXAMPLES / "coord1024.json").read_text())
    for name in ("coord1024_w_hat.csv", "coord1024_sigma2_hat.csv"):
        (tmp_path / name).write_bytes((EXAMPLES / name).read_bytes())
    np.save(tmp_path / "coord1024_alpha_boot.npy", np.zeros((0, 1024)))
    np.save(tmp_path / "coord1024_tau_boot.npy", np.zeros((0, 1024)))
    usage_error(["grades", _write(tmp_path, doc)], capsys, "no replicates", tmp_path)


# --- file references ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("ref", ["/etc/passwd", "../p.csv", "sub/../../p.csv"])
def test_references_outside_the_profile_folder(ref, tmp_path, capsys):
    inner = tmp_path / "inner"
    (inner / "sub").mkdir(parents=True)
    (tmp_path / "p.csv").write_text("v\n1\n2\n3\n")
    doc = _doc()
    doc["target"] = {"granularity": "level", "kind": "energies", "values_file": ref}
    path = _write(inner, doc)
    usage_error(["grades", path], capsys, "outside the profile's folder; pass --allow-outside", tmp_path)
    if not ref.startswith("/"):
        solved(["grades", path, "--allow-outside"], capsys)


def test_file_content_is_never_echoed(tmp_path, capsys):
    secret = "root:x:0:0:secret-content"
    (tmp_path / "v.csv").write_text(f"v\n{secret}\n1\n")
    doc = _doc()
    doc["target"] = {"granularity": "level", "kind": "energies", "values_file": "v.csv"}
    err = usage_error(["grades", _write(tmp_path, doc)], capsys, "target.values_file", tmp_path)
    assert "secret" not in err


# --- flags -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("clip", ["0.5", "nan", "inf"])
def test_table3_clip_is_validated(clip, capsys):
    usage_error(["grades", "--table3", "--C", clip], capsys, "--C must be a finite number >= 1")


def test_table3_writes_json(tmp_path, capsys):
    out = tmp_path / "t3.json"
    assert main(["grades", "--table3", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["lambda_star_c"] for r in rows] == pytest.approx([0.70777, 0.58173, 0.53101, 0.42361], abs=6e-6)


def test_json_destinations_that_cannot_be_written(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    profile = EXAMPLES / "table3_nu05_mu02.json"
    usage_error(["grades", profile, "--json", blocker / "out.json"], capsys, "does not exist", tmp_path)
    usage_error(["grades", profile, "--json", "/proc/out.json"], capsys, "cannot write in /proc", tmp_path)
    usage_error(["grades", profile, "--json", tmp_path], capsys, "folder", tmp_path)


def test_d_k_and_lambda_conflicts(tmp_path, capsys):
    path = _write(tmp_path, _doc(selection={"lambda": 1.1}))
    usage_error(["grades", path, "--d-k", "8"], capsys, "--d-k conflicts with selection.lambda", tmp_path)
    path = _write(tmp_path, _doc(selection={"lambda": 1.1, "d_k": 8}))
    usage_error(["grades", path], capsys, "give either d_k or lambda", tmp_path)
    assert "e^0.125" in solved(["grades", _write(tmp_path, _doc()), "--d-k", "8"], capsys)


@pytest.mark.parametrize(("flag", "value"), [("--d-k", "nan"), ("--d-k", "0"), ("--nu-mag", "-1"), ("--nu-mag", "inf")])
def test_flag_ranges(flag, value, tmp_path, capsys):
    usage_error(["grades", _write(tmp_path, _doc()), "--mode", "regularized", flag, value], capsys, flag, tmp_path)


# --- wrong answers that are now right ------------------------------------------------------------------
def test_nu_mag_near_the_double_maximum(tmp_path):
    rep = grade_report(load_profiles(_write(tmp_path, _doc(selection={"mode": "regularized", "nu_mag": 1e308}))))
    assert rep.optimum.value == pytest.approx(1.0) and np.all(rep.optimum.g == 1.0)


@pytest.mark.parametrize(
    "candidate",
    [
        {"name": "c", "q": [0, 0, 1e5]},
        {"name": "c", "q": [0, 0, -1e5]},
        {"name": "c", "g": [5e-324, 1, 1]},
        {"name": "c", "q": [0, 1e300, 0]},
    ],
)
def test_extreme_candidates_give_finite_exact_values(candidate, tmp_path, capsys):
    rep = grade_report(load_profiles(_write(tmp_path, _doc(candidates=[candidate]))))
    c = rep.candidates[0]
    assert math.isfinite(c.log_gain_value) and math.isfinite(c.certificate)
    out = solved(["grades", _write(tmp_path, _doc(candidates=[candidate]))], capsys)
    assert "inf" not in out.split("candidate")[-1].split("\n")[2]


def test_candidate_out_of_the_double_range_is_a_clear_error(tmp_path, capsys):
    path = _write(tmp_path, _doc(candidates=[{"name": "big", "q": [0, 0, 1e308]}], selection={"lambda": 1e300}))
    usage_error(["grades", path], capsys, "candidate 'big': q ln(lambda) exceeds the double range", tmp_path)


REFERENCE = gs.solve_clipped([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 2.0).value


@pytest.mark.parametrize(
    ("kind", "alpha"),
    [
        ("probe_weights", [1e200 * np.sqrt(x) for x in (0.5, 0.3, 0.2)]),
        ("probe_weights", [1e-170 * np.sqrt(x) for x in (0.5, 0.3, 0.2)]),
        ("energies", [1e308 * x for x in (0.5, 0.3, 0.2)]),
        ("energies", [5e-324 * x * 10 for x in (5, 3, 2)]),
    ],
)
def test_scale_safe_normalisation(kind, alpha, tmp_path):
    doc = _doc()
    doc["target"].update(kind=kind, values=[float(a) for a in alpha])
    value = grade_report(load_profiles(_write(tmp_path, doc))).optimum.value
    # subnormals carry few digits: 5e-324 * 50 is 2.5e-322 up to the subnormal spacing
    assert value == pytest.approx(REFERENCE, rel=1e-12 if min(alpha) > 1e-300 else 0.1)


def test_thousand_level_geometric_profile(tmp_path, capsys):
    doc = _doc()
    doc["basis"]["levels"] = [{"index": i, "name": f"l{i}", "dim": 1} for i in range(1000)]
    doc["target"] = {"granularity": "geometric", "nu": 0.1}
    doc["data"] = {"granularity": "geometric", "mu": 0.3}
    rep = grade_report(load_profiles(_write(tmp_path, doc)))
    assert 0 < rep.optimum.value < 1 and rep.kkt.worst < 1e-12
    lb = gs.solve_lbfgsb(None, None, 2.0, log_alpha=rep.profiles.log_alpha, log_tau=rep.profiles.log_tau)
    assert rep.optimum.value == pytest.approx(lb.value, rel=1e-9)
    rep = grade_report(load_profiles(_write(tmp_path, {**doc, "selection": {"mode": "unclipped"}})))
    assert math.isfinite(rep.optimum.value) and np.all(np.isfinite(rep.q))


def test_delete_policy_at_level_granularity_prints_and_cross_checks(tmp_path, capsys):
    path = _write(tmp_path, _doc(alpha=(0, 0.5, 0.5), tau=(0.5, 0.3, 0.2), selection={"zero_policy": "delete"}))
    out = solved(["grades", path, "--cross-check"], capsys)
    assert "0.625000" in out and "warned" not in out
    rep = grade_report(load_profiles(path), cross_check=True)
    assert all(v < 1e-7 for v in rep.cross_checks.values()) and len(rep.cross_checks) == 2


def test_one_hot_profile_cross_checks_agree(tmp_path):
    for policy in ("delete", "keep_clipped"):
        path = _write(tmp_path, _doc(alpha=(1, 0, 0, 0), tau=(0.1, 0.2, 0.3, 0.4), selection={"zero_policy": policy}))
        rep = grade_report(load_profiles(path), cross_check=True)
        assert len(rep.cross_checks) == 2 and max(rep.cross_checks.values()) < 1e-7


def test_cross_check_prints_no_third_party_warnings(capsys):
    out = solved(["grades", EXAMPLES / "coord1024.json", "--cross-check"], capsys)
    assert "UserWarning" not in out and "warned" not in out and "cvxpy-gp (relative)" in out


def test_reported_optimum_is_attained_by_the_reported_grading():
    rng = np.random.default_rng(12)
    for _ in range(50):
        d = int(rng.integers(1, 12))
        a, t = rng.dirichlet(np.ones(d) * 0.3), rng.dirichlet(np.ones(d))
        a[rng.random(d) < 0.2] = 0
        if not a.any():
            a[0] = 1
        for C in (1.0, 1.5, 2.0, 10.0):
            sol = gs.solve_clipped(a, t, C)
            assert gs.gain(a / a.sum(), t, sol.g) == pytest.approx(sol.value, rel=1e-12)
            assert np.all(sol.g >= 1) and np.all(sol.g <= C * (1 + 1e-15))


# --- examples shipped as package data -------------------------------------------------------------------
def test_examples_are_listed_and_usable(capsys):
    assert main(["grades", "--list-examples"]) == 0
    out = capsys.readouterr().out
    assert "table3_nu05_mu02.json" in out and "coord1024.json" in out and "w_hat" not in out
    assert "0.423" in solved(["grades", "--example", "table3_nu05_mu02"], capsys)
    usage_error(["grades", "--example", "nope"], capsys, "--list-examples")
    usage_error(["grades", "--example", "coord1024"], capsys, "ambiguous")


def test_byte_order_mark_and_non_regular_files(tmp_path, capsys):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbflevel,name,dim,a,s\n0,x,1,0.5,0.5\n1,y,1,0.5,0.2\n")
    solved(["grades", path], capsys)
    (tmp_path / "dir.json").mkdir()
    usage_error(["grades", tmp_path / "dir.json"], capsys, "not a regular file", tmp_path)


@pytest.mark.parametrize("clip", [2.0, 1e100, 1e200, 1e308])
def test_huge_clips_on_a_thousand_levels_stay_in_the_log_domain(clip, tmp_path, capsys):
    """Lambda*_C far below the double range is reported as e^(ln Lambda*_C), attained, never 0/0."""
    n = 1000
    la, lt = np.arange(n) * math.log(0.1), np.arange(n)[::-1] * math.log(0.3)
    sol = gs.solve_clipped(None, None, clip, log_alpha=la, log_tau=lt)
    assert sol.log_value == pytest.approx(gs.log_gain(la, lt, sol.log_g), abs=1e-12)
    assert sol.log_value >= -2 * math.log(clip) - 1e-9  # Lambda >= C^-2
    la_n, lt_n = la - gs.log_sum_exp(la), lt - gs.log_sum_exp(lt)
    log_bc2 = 2 * gs.log_sum_exp(0.5 * (la_n + lt_n))
    if sol.unique:  # first-order conditions at 50 digits (an independent check, in mpmath)
        assert gs.kkt_residuals(None, None, sol, clip, log_alpha=la, log_tau=lt).worst < 1e-12
        assert sol.log_value >= log_bc2 - 1e-12
    else:  # the box holds the unclipped optimum: Lambda*_C = BC^2
        assert sol.log_value == pytest.approx(log_bc2, abs=1e-9)
    if clip == 2.0:
        lb = gs.solve_lbfgsb(None, None, clip, log_alpha=la, log_tau=lt)
        assert sol.log_value <= lb.log_value + 1e-12 and sol.log_value == pytest.approx(lb.log_value, abs=1e-9)
    doc = _doc()
    doc["basis"]["levels"] = [{"name": f"l{i}"} for i in range(n)]
    doc["target"], doc["data"] = {"granularity": "geometric", "nu": 0.1}, {"granularity": "geometric", "mu": 0.3}
    out = solved(["grades", _write(tmp_path, doc), "--C", repr(clip)], capsys)
    assert "Lambda*_C (active-set)" in out


def test_long_runs_show_a_heartbeat(monkeypatch, capsys):
    from attncert.certificates.frontends import grades as grades_cmd

    monkeypatch.setattr(grades_cmd, "HEARTBEAT_S", 0.01)
    assert main(["grades", str(EXAMPLES / "coord1024.json"), "--cross-check"]) == 0
    assert "attncert grades: solving (1,024 coordinates), then the cross-checks" in capsys.readouterr().err


def test_cross_checks_are_skipped_on_huge_profiles(tmp_path):
    n = 30_000
    doc = _doc(alpha=list(np.linspace(1, 2, n)), tau=list(np.linspace(2, 1, n)))
    doc.pop("basis")
    doc["target"]["granularity"] = doc["data"]["granularity"] = "coordinate"
    rep = grade_report(load_profiles(_write(tmp_path, doc)), cross_check=True)
    assert not rep.cross_checks and any("L-BFGS-B cross-check skipped" in n for n in rep.notes)


def test_size_limits_of_text_files(monkeypatch, tmp_path, capsys):
    from attncert.certificates.frontends import profiles

    monkeypatch.setattr(profiles, "MAX_DOCUMENT_BYTES", 100)
    monkeypatch.setattr(profiles, "MAX_CSV_FIELDS", 10)
    usage_error(["grades", _write(tmp_path, _doc())], capsys, "the limit is 100", tmp_path)
    text = "j,level,alpha,tau\n" + "".join(f"{j},0,0.5,0.5\n" for j in range(5))
    usage_error(["grades", _write(tmp_path, text, "p.csv")], capsys, "more than 10 fields", tmp_path)


# --- audit of the profile readers (values files, duplicate keys, basis.d, zeros, CSV headers) -----------
def _values_file_doc(tmp_path: Path, name: str, *, q_file: bool = False) -> Path:
    doc = _doc(alpha=(0.2, 0.8), tau=(0.8, 0.2))
    doc["basis"]["levels"] = doc["basis"]["levels"][:2]
    if q_file:
        doc["candidates"] = [{"name": "from_file", "q_file": name}]
    else:
        doc["target"] = {"granularity": "level", "kind": "energies", "values_file": name}
    return _write(tmp_path, doc)


@pytest.mark.parametrize("q_file", [False, True], ids=["values_file", "q_file"])
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("level,q\n1,50\n0,0\n", "row 1 has 2 columns; a values file holds one number per row"),
        ("q\n50\n0,0\n", "row 3 has 2 columns"),
        ("0.2\n0.8,\n", "row 2 has 2 columns"),
    ],
)
def test_values_files_hold_one_number_per_row(q_file, text, message, tmp_path, capsys):
    """Before, only the last column was read: an index column listed out of order flipped the
    certificate's sign (q_file level,q = 1,50 / 0,0 certified -30 where q = [0, 50] gives +30)."""
    (tmp_path / "v.csv").write_text(text)
    field = "candidates[0].q_file" if q_file else "target.values_file"
    usage_error(["grades", _values_file_doc(tmp_path, "v.csv", q_file=q_file)], capsys, f"{field}: {message}", tmp_path)


@pytest.mark.parametrize("q_file", [False, True], ids=["values_file", "q_file"])
@pytest.mark.parametrize("array", [np.zeros((2, 0)), np.zeros((2, 2)), np.zeros((2, 1))], ids=["2x0", "2x2", "2x1"])
def test_values_npy_files_are_one_dimensional(q_file, array, tmp_path, capsys):
    """A (2, 0) array was an IndexError traceback; a (2, 2) one was read by its last column."""
    np.save(tmp_path / "v.npy", array)
    field = "candidates[0].q_file" if q_file else "target.values_file"
    err = usage_error(["grades", _values_file_doc(tmp_path, "v.npy", q_file=q_file)], capsys, field, tmp_path)
    assert "has 2 dimensions; it must have 1" in err


def test_empty_values_npy_file(tmp_path, capsys):
    np.save(tmp_path / "v.npy", np.zeros(0))
    doc = {
        "target": {"granularity": "coordinate", "kind": "energies", "values_file": "v.npy"},
        "data": {"granularity": "coordinate", "kind": "variances", "values": [1, 2]},
    }
    usage_error(["grades", _write(tmp_path, doc)], capsys, "target.values_file: the file holds no numbers", tmp_path)


def test_q_file_with_an_index_column_no_longer_flips_the_sign(tmp_path, capsys):
    """The audit's repro: q [0, 50] written as level,q rows 1,50 / 0,0 is refused, and the same
    grades one per row, in level order (CSV or 1-D .npy), certify +27.5 as the inline q does."""
    (tmp_path / "indexed.csv").write_text("level,q\n1,50\n0,0\n")
    (tmp_path / "w.csv").write_text("w\n1\n3\n")
    (tmp_path / "q.csv").write_text("q\n0\n50\n")
    np.save(tmp_path / "q.npy", np.array([0.0, 50.0]))
    candidates = [{"name": "csv", "q_file": "q.csv"}, {"name": "npy", "q_file": "q.npy"}, {"name": "inline", "q": [0, 50]}]
    doc = _doc(alpha=(0.2, 0.8), tau=(0.8, 0.2), candidates=candidates)
    doc["basis"]["levels"] = doc["basis"]["levels"][:2]
    doc["target"] = {"granularity": "level", "kind": "energies", "values_file": "w.csv"}
    rep = grade_report(load_profiles(_write(tmp_path, doc)))
    np.testing.assert_allclose(rep.profiles.alpha, [0.25, 0.75], rtol=1e-15)
    # <q, alpha - tau> = 50 (0.75 - 0.2)
    assert [c.certificate for c in rep.candidates] == pytest.approx([27.5, 27.5, 27.5], rel=1e-12)
    doc["candidates"] = [{"name": "indexed", "q_file": "indexed.csv"}]
    usage_error(["grades", _write(tmp_path, doc)], capsys, "candidates[0].q_file: row 1 has 2 columns", tmp_path)


_PROFILE_JSON = (
    '"target": {"granularity": "coordinate", "kind": "energies", "values": [0.2, 0.8]}, '
    '"data": {"granularity": "coordinate", "kind": "variances", "values": [0.8, 0.2]}'
)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ('"target": {"granularity": "coordinate", "kind": "energies", "values": [0.8, 0.2]}', "p.json: target: "),
        ('"selection": {"C": 4, "C": 1}', "p.json: selection.C: "),
        ('"candidates": [{"name": "a", "q": [0, 0]}, {"name": "b", "name": "c", "q": [0, 1]}]', "candidates[1].name: "),
        ('"basis": {"levels": [{"dim": 1, "dim": 1}, {"dim": 1}]}', "basis.levels[0].dim: "),
    ],
)
def test_repeated_json_keys_are_refused(extra, field, tmp_path, capsys):
    """JSON kept the last of a repeated key silently: {"C": 4, "C": 1} ran with C = 1."""
    path = _write(tmp_path, "{" + _PROFILE_JSON + ", " + extra + "}")
    usage_error(["grades", path], capsys, field + "the key is given more than once; give it once", tmp_path)


def test_first_repeated_key_in_document_order_is_named(tmp_path, capsys):
    text = '{"target": {"kind": 1, "kind": 2}, "selection": {"C": 4, "C": 1}, "target": {}}'
    usage_error(["grades", _write(tmp_path, text)], capsys, "p.json: target: the key is given more than once", tmp_path)


def test_basis_d_without_levels_must_match_the_values(tmp_path, capsys):
    doc = {
        "basis": {"d": 5},
        "target": {"granularity": "coordinate", "kind": "energies", "values": [1, 2, 3]},
        "data": {"granularity": "coordinate", "kind": "variances", "values": [3, 2, 1]},
    }
    message = "target.values: has length 3, expected 5 (coordinate granularity, basis.d)"
    usage_error(["grades", _write(tmp_path, doc)], capsys, message, tmp_path)
    doc["basis"]["d"] = 3
    assert load_profiles(_write(tmp_path, doc)).alpha.size == 3


ZERO_CSV = "j,level,w_hat,sigma2_hat\n0,0,0,0.5\n1,0,1,0.3\n2,1,1,0.2\n"


def test_zero_policy_override_reaches_csv_profiles(tmp_path, capsys):
    """A CSV profile has no selection block: a zero w_hat could not be handled at all."""
    path = _write(tmp_path, ZERO_CSV, "z.csv")
    usage_error(["grades", path], capsys, "z.csv: column w_hat[0]: is 0 (Def 2 needs alpha > 0); pass --zero-policy", tmp_path)
    for key in ("--zero-policy", "zero_policy"):
        profiles = load_profiles(path, overrides={key: "delete"})
        assert profiles.selection.zero_policy == "delete"
        np.testing.assert_array_equal(profiles.deleted, [True, False, False])
    with pytest.raises(ProfileError, match="--zero-policy must be one of error, delete, keep_clipped, not 'keep'"):
        load_profiles(path, overrides={"zero_policy": "keep"})
    kept = load_profiles(path, overrides={"--zero-policy": "keep_clipped"})
    assert kept.selection.zero_policy == "keep_clipped" and not kept.deleted.any()
    # the flag overrides the file's own selection.zero_policy
    doc_path = _write(tmp_path, _doc(alpha=(0, 0.5, 0.5), tau=(0.5, 0.3, 0.2), selection={"zero_policy": "delete"}))
    assert load_profiles(doc_path, overrides={"--zero-policy": "keep_clipped"}).selection.zero_policy == "keep_clipped"


def test_zero_policy_flag(tmp_path, capsys):
    from attncert.certificates.frontends import cli, profiles

    assert cli.ZERO_POLICIES == profiles.ZERO_POLICIES
    path = _write(tmp_path, ZERO_CSV, "z.csv")
    # tau = (0.5, 0.3, 0.2) and alpha = (0, 0.5, 0.5): g = 1 on the deleted coordinate, Lambda*_2 = 0.625
    assert "0.625000" in solved(["grades", path, "--zero-policy", "delete"], capsys)
    usage_error(["grades", path, "--zero-policy", "drop"], capsys, "--zero-policy", tmp_path)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("j,level,w_hat,sigma2_hat,alpha,tau", "(header): holds both j,level,alpha,tau and j,level,w_hat,sigma2_hat"),
        ("j,level,alpha,tau,alpha", "(header): column alpha appears 2 times"),
        ("j,j,level,alpha,tau", "(header): column j appears 2 times"),
    ],
)
def test_ambiguous_csv_headers(header, message, tmp_path, capsys):
    """Both were resolved silently: alpha,tau over w_hat,sigma2_hat, and the first copy of a column."""
    width = header.count(",") + 1
    rows = "".join(",".join([str(j), "0"] + ["1"] * (width - 2)) + "\n" for j in range(2))
    usage_error(["grades", _write(tmp_path, header + "\n" + rows, "p.csv")], capsys, message, tmp_path)


def test_ragged_bootstrap_csv_says_what_is_wrong(tmp_path, capsys):
    (tmp_path / "ok.csv").write_text("1,2,3\n3,2,1\n")
    (tmp_path / "rag.csv").write_text("1,2,3\n3,2\n")
    doc = _doc(alpha=(1, 2, 3), tau=(3, 2, 1), bootstrap={"target_replicates_file": "rag.csv", "data_replicates_file": "ok.csv"})
    message = "bootstrap.target_replicates_file: row 2 has 2 columns, row 1 has 3"
    usage_error(["grades", _write(tmp_path, doc)], capsys, message, tmp_path)


def test_bootstrap_unit_is_a_label(tmp_path, capsys):
    """bootstrap.unit names the resampling unit (gllm.md §4.3: "treebank sentence"); anything but a string
    was accepted silently."""
    (tmp_path / "ok.csv").write_text("1,2,3\n3,2,1\n")
    boot = {"target_replicates_file": "ok.csv", "data_replicates_file": "ok.csv", "unit": {"x": [1]}}
    doc = _doc(alpha=(1, 2, 3), tau=(3, 2, 1), bootstrap=boot)
    usage_error(["grades", _write(tmp_path, doc)], capsys, "bootstrap.unit: must be a string", tmp_path)
    boot["unit"] = "treebank sentence"
    profiles = load_profiles(_write(tmp_path, _doc(alpha=(1, 2, 3), tau=(3, 2, 1), bootstrap=boot), "ok.json"))
    assert profiles.bootstrap_alpha.shape == (2, 3)


@pytest.mark.parametrize("centered", [True, False, None])
def test_report_records_whether_the_data_moments_are_centred(centered, tmp_path):
    """gllm.md E8: Def 2 uses uncentred second moments, Sec 7.2's estimator is centred, and the tool should
    record which was used; the JSON report carries data.centered as given (null when the file is silent)."""
    doc = _doc()
    if centered is not None:
        doc["data"]["centered"] = centered
    out = tmp_path / "report.json"
    assert main(["grades", str(_write(tmp_path, doc)), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["data_centered"] is centered


def test_terminal_escapes_in_names_are_shown_not_sent(tmp_path, capsys):
    """Names from a profile reach the terminal: an ESC or BEL from the file would recolour, clear or retitle it.
    Control and format characters are printed as escapes, in the report and in error lines."""
    doc = _doc(task="t\x1b]0;title\x07x", candidates=[{"name": "c\x1b[2J", "q": [0, 0, 1]}])
    doc["basis"]["levels"][0]["name"] = "l\x1b[31m0\u202e"
    out = solved(["grades", _write(tmp_path, doc)], capsys)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    for shown in ("t\\x1b]0;title\\x07x", "c\\x1b[2J", "l\\x1b[31m0\\u202e"):
        assert shown in out
    err = usage_error(["grades", _write(tmp_path, "[1]", "p\x1b[2J.json")], capsys, "p\\x1b[2J.json", tmp_path)
    assert "\x1b" not in err
