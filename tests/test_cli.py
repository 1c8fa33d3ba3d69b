"""The command line: exit codes, reports, usage errors (one line, exit 2, nothing written)."""

import json
import subprocess
import sys

import pytest

from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.verify_output import SCHEMA


def test_verify_selection_passes_and_writes_reports(tmp_path, capsys):
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    code = main(
        [
            "verify",
            "--paper",
            "psa",
            "-k",
            "symplectic",
            "--negative-controls",
            "--json",
            str(out_json),
            "--markdown",
            str(out_md),
            "--seed",
            "7",
        ]
    )
    assert code == 0
    report = json.loads(out_json.read_text())
    assert report["schema"] == SCHEMA
    assert report["environment"]["seed"] == 7 and report["environment"]["backend"] == "numpy"
    assert report["summary"]["ok"] is True
    nc = report["summary"]["negative_controls"]
    assert nc["run"] == nc["killed"] == len(report["results"]) > 0
    first = report["results"][0]
    assert {"id", "claim", "method", "expected", "verdict", "evidence", "negative_control"} <= set(first)
    assert first["claim"]["provenance"] in {"verbatim", "derived", "reconstructed"}
    assert "| id |" in out_md.read_text()
    assert "negative controls killed" in capsys.readouterr().out


def test_verify_list_does_not_run(capsys):
    assert main(["verify", "--list", "-k", "table1"]) == 0
    assert "psa.table11_overhead_values" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--paper", "nope"], "invalid choice"),
        (["verify", "-k", "no-such-certificate"], "no certificate matches"),
        (["verify", "--seed", "abc"], "invalid int"),
        (["verify", "--json", "/no/such/folder/r.json"], "does not exist"),
        (["verify", "--tier", "medium"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_message(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_unavailable_backend_is_a_usage_error(monkeypatch, capsys):
    import attncert.solvers.backend as backend

    monkeypatch.setattr(backend, "_installed", lambda module: False)
    assert main(["verify", "-k", "shear_float64", "--backend", "torch"]) == 2
    assert "not installed" in capsys.readouterr().err


def test_a_wrong_constant_fails_the_run(monkeypatch):
    """Changing 8L to 7L in the theory turns the law's certificates red, with exit 1."""
    import sympy as sp

    from attncert.theory import psa

    monkeypatch.setattr(psa, "CROSSOVER_FACTOR", sp.Integer(7))
    assert main(["verify", "-k", "psa.annealed_bound_saturates_at_8L"]) == 1
    assert main(["verify", "-k", "psa.law_printed_values"]) == 1


def test_claims_ledger_lists_psa(capsys):
    assert main(["claims", "--paper", "psa"]) == 0
    out = capsys.readouterr().out
    assert "OUT_OF_SCOPE" in out and "psa.shear_is_symplectic" in out


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "attncert", "verify", "--list", "--paper", "psa"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "psa.shear_is_symplectic" in proc.stdout


def test_run_option_defaults_mirror_the_engine():
    from attncert.certificates.engine import runner
    from attncert.certificates.frontends import cli

    assert cli.DEFAULT_TIMEOUT_S == runner.DEFAULT_TIMEOUT_S


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--jobs", "0"], "must be >= 1"),
        (["verify", "--timeout", "-3"], "must be > 0"),
        (["claims", "--from", "/no/such/run.json"], "file not found"),
        (["claims", "--run", "--from", "x.json"], "not allowed with"),
        (["report", "--out", "/tmp/x", "--from", "/no/such/run.json"], "file not found"),
    ],
)
def test_run_option_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_claims_from_a_saved_run_and_as_json(tmp_path, capsys):
    run = tmp_path / "run.json"
    main(["verify", "--paper", "psa", "-k", "shear_float64_residual_is_zero,table11_overhead_values", "--json", str(run)])
    out = tmp_path / "claims.json"
    assert main(["claims", "--paper", "psa", "--from", str(run), "--json", str(out)]) == 0
    claims = json.loads(out.read_text())["claims"]
    assert claims and all(c["paper"] == "psa" for c in claims)
    assert {"claim", "class", "statement", "status", "reason", "standing", "parts"} <= set(claims[0])
    ran = {cert["id"]: cert for c in claims for part in c["parts"] for cert in part["certificates"]}
    assert ran["psa.shear_float64_residual_is_zero"]["verdict"] == "VERIFIED"
    assert ran["psa.shear_float64_residual_is_zero"]["standing"] == "verified numerically"
    assert ran["psa.shear_is_symplectic"]["verdict"] is None  # not in that run
    c6 = next(c for c in claims if c["claim"] == "C6")
    assert {p["part"]: p["standing"] for p in c6["parts"]}["float64"] == "verified numerically"
    assert c6["standing"] == "not run"  # a claim stands as its weakest part
    assert "verified" in capsys.readouterr().out


def test_report_from_a_saved_run_refuses_run_options(tmp_path, capsys):
    run = tmp_path / "run.json"
    main(["verify", "-k", "psa.table11_overhead_values", "--json", str(run)])
    argv = ["report", "--out", str(tmp_path / "html"), "--from", str(run), "--tier", "full", "--no-figures"]
    assert main(argv) == 2
    assert "--tier" in capsys.readouterr().err
    assert not (tmp_path / "html").exists()
