"""Bad input to `attncert verify`, `claims` and `report` (issue 12): exit 2, one line, nothing written.

Regression tests for the classes the fresh fuzz set (benchmarks/fuzz_fresh.py) found, then
hypothesis properties over random malformed argument vectors, ids, paths and ``--from`` documents.
The CLI runs in-process; no property runs the certificate suite (every example fails at
validation, or selects one certificate of a few milliseconds).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.verify_output import SCHEMA

TINY = ["-k", "iswiglu", "--jobs", "1"]  # one symbolic certificate, milliseconds


def listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], folder: Path) -> str:
    """Run ``attncert argv`` with cwd ``folder``; assert exit 2, one stderr line, nothing new there."""
    before = listing(folder)
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip("\n").split("\n")
    assert code == 2, (argv, err)
    assert len(lines) == 1 and lines[0].startswith("attncert: error:"), err
    assert "Traceback" not in err
    assert listing(folder) == before, argv
    return lines[0]


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real saved report of one certificate (the seed of the malformed ``--from`` documents)."""
    path = tmp_path_factory.mktemp("run") / "run.json"
    assert main(["verify", *TINY, "--json", str(path)]) == 0
    return json.loads(path.read_text())


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- regressions: one per class the fresh fuzz set found ----------------------------------------


def _malformed(run: dict) -> list[tuple[str, bytes]]:
    r0 = run["results"][0]
    return [
        ("results of ints", json.dumps({**run, "results": [1]}).encode()),
        ("results missing", json.dumps({k: v for k, v in run.items() if k != "results"}).encode()),
        ("environment missing", json.dumps({k: v for k, v in run.items() if k != "environment"}).encode()),
        ("verdict unknown", json.dumps({**run, "results": [{**r0, "verdict": "MAYBE"}]}).encode()),
        ("scope unknown", json.dumps({**run, "results": [{**r0, "scope": "everywhere"}]}).encode()),
        ("id a number", json.dumps({**run, "results": [{**r0, "id": 17}]}).encode()),
        ("paper unknown", json.dumps({**run, "results": [{**r0, "paper": "<b>x</b>"}]}).encode()),
        ("claim a string", json.dumps({**run, "results": [{**r0, "claim": "Prop 1"}]}).encode()),
        (
            "duration NaN",
            json.dumps({**run, "results": [{**r0, "evidence": {**r0["evidence"], "duration_s": float("nan")}}]}).encode(),
        ),
        (
            "negative control killed a string",
            json.dumps({**run, "results": [{**r0, "negative_control": {"killed": "x"}}]}).encode(),
        ),
        ("nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000),
        ("schema an integer of 5,000 digits", b'{"schema": ' + b"9" * 5000 + b"}"),
    ]


@pytest.mark.parametrize("command", ["claims", "report"])
def test_malformed_saved_runs_are_refused(command: str, saved_run: dict, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: KeyError/TypeError/ValueError/RecursionError tracebacks once the schema line matched."""
    for label, doc in _malformed(saved_run):
        (here / "run.json").write_bytes(doc)
        extra = ["--out", "out", "--no-figures"] if command == "report" else ["--json", "c.json"]
        line = refused([command, "--from", "run.json", *extra], capsys, here)
        assert "not a verify report" in line or "schema" in line, (label, line)


def test_valid_saved_run_renders(saved_run: dict, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "run.json").write_text(json.dumps(saved_run))
    assert main(["report", "--from", "run.json", "--out", "out", "--no-figures"]) == 0
    assert "iswiglu" in (here / "out" / "index.html").read_text()
    assert main(["claims", "--from", "run.json", "--json", "c.json"]) == 0
    assert json.loads((here / "c.json").read_text())["claims"]


def test_report_out_that_cannot_be_written_is_refused_before_any_work(
    here: Path, saved_run: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: --out under a regular file, in /proc, or with index.html a folder raised after mkdir
    (tracebacks, and the folder was left behind); --out '' wrote into the current folder."""
    (here / "run.json").write_text(json.dumps(saved_run))
    (here / "f").write_text("x")
    (here / "o" / "index.html").mkdir(parents=True)
    for out in ["f/out", "/proc/attncert-fuzz-test", "o", "", "f"]:
        refused(["report", "--from", "run.json", "--out", out, "--no-figures"], capsys, here)


def test_report_from_with_seed_zero_is_refused(here: Path, saved_run: dict, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: '--seed 0' is falsy and was silently ignored with --from."""
    (here / "run.json").write_text(json.dumps(saved_run))
    assert "--seed" in refused(["report", "--from", "run.json", "--out", "o", "--no-figures", "--seed", "0"], capsys, here)


@pytest.mark.parametrize("argv", [["--seed", "-1"], ["--seed", str(2**63)], ["--timeout", "inf"], ["--timeout", "1e400"]])
def test_verify_seed_and_timeout_ranges(argv: list[str], here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a negative seed was a ValueError traceback inside numpy; an infinite timeout passed."""
    refused(["verify", *TINY, *argv], capsys, here)


@pytest.mark.parametrize("flag", [["verify", *TINY, "--json"], ["verify", *TINY, "--markdown"], ["claims", "--json"]])
def test_outputs_that_are_not_regular_files_are_refused(flag: list[str], here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a device or a FIFO (/dev/full) passed the check and os.replace would have replaced
    it with a regular file; /proc passed and failed at the end with a traceback; '' was accepted."""
    os.mkfifo(here / "fifo")
    for target in ["fifo", "/proc/attncert-fuzz-test", ""]:
        refused([*flag, target], capsys, here)


def test_saved_run_schema_is_still_checked(here: Path, saved_run: dict, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "run.json").write_text(json.dumps({**saved_run, "schema": "attncert.verify-report/1"}))
    assert SCHEMA in refused(["claims", "--from", "run.json"], capsys, here)
