"""Bad input to `attncert verify`, `claims` and `report` (issue 12): exit 2, one line, nothing written.

Regression tests for the classes the fresh fuzz set (benchmarks/fuzz_fresh.py) found, then
hypothesis properties over random malformed argument vectors, ids, paths and ``--from`` documents.
The CLI runs in-process; no property runs the certificate suite (every example fails at
validation, or selects one certificate of a few milliseconds).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
        ("a certificate recorded twice", json.dumps({**run, "results": [r0, r0]}).encode()),
        ("out_of_scope of numbers", json.dumps({**run, "out_of_scope": [1]}).encode()),
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


# --- properties: random malformed arguments and --from documents ----------------------------------
# Every example is malformed by construction (one bad element, plus valid options of other names),
# so it must be refused at validation: no property runs a certificate. Each example costs a few
# milliseconds in-process; benchmarks/fuzz.py runs the same properties at benchmark size.
FAST = settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
_TMP = Path(tempfile.mkdtemp(prefix="attncert-fuzz-cli-"))
(_TMP / "file").write_text("x")
(_TMP / "folder").mkdir()
os.mkfifo(_TMP / "fifo")

_words = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=10)
_not_int = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    _words.map(lambda w: "x" + w),
    st.sampled_from(["", " ", "1.5", "1e3", "0x10", "[/]", "\n"]),
)
_bad_paths = st.one_of(
    _words.map(lambda w: str(_TMP / "file" / f"o{w}")),  # under a regular file
    _words.map(lambda w: f"/proc/attncert-fuzz{w}"),  # where nothing can be created
    _words.map(lambda w: str(_TMP / "no-such-folder" / f"o{w}")),
    st.sampled_from(["", str(_TMP / "folder"), str(_TMP / "fifo"), str(_TMP / "new") + "/", "/proc/self/status"]),
)

_bad_folders = st.one_of(  # for report --out: a missing folder is fine (it is created), these are not
    _words.map(lambda w: str(_TMP / "file" / f"o{w}")),
    _words.map(lambda w: f"/proc/attncert-fuzz{w}"),
    st.sampled_from(["", str(_TMP / "file"), str(_TMP / "fifo"), "/proc/self/status", "/proc/self"]),
)


def _not_in(choices: tuple[str, ...]) -> st.SearchStrategy[str]:
    return _words.filter(lambda w: w not in choices)


#: (flag, strategy of values that must be refused) for the options verify, claims and report share
_BAD_SHARED = {
    "--paper": _not_in(("plga", "gllm", "psa")),
    "--jobs": st.one_of(st.integers(-(10**30), 0).map(str), st.integers(1025, 10**30).map(str), _not_int),
    "--timeout": st.one_of(
        st.floats(max_value=0).map(repr), st.sampled_from(["nan", "inf", "-inf", "1e400", "NaN"]), _words.map(lambda w: "x" + w)
    ),
}
_BAD_VERIFY = {
    **_BAD_SHARED,
    "--tier": _not_in(("quick", "full")),
    "--backend": _not_in(("numpy", "torch", "cupy", "auto")),
    "--seed": st.one_of(st.integers(-(10**30), -1).map(str), st.integers(2**63, 10**40).map(str), _not_int),
    "--json": _bad_paths,
    "--markdown": _bad_paths,
    "-k": _words.map(lambda w: "@" + w),  # no certificate id holds an "@": selects nothing
    "--tag": _words.map(lambda w: "@" + w),
}
#: valid options that may join a bad one (never -k or --tag: the last one given wins)
_GOOD_VERIFY = {
    "--paper": ["plga", "gllm", "psa"],
    "--tier": ["quick", "full"],
    "--jobs": ["1", "2"],
    "--timeout": ["5"],
    "--seed": ["0", "5"],
    "--backend": ["numpy"],
    "--json": [str(_TMP / "ok.json")],
    "--markdown": [str(_TMP / "ok.md")],
    "--negative-controls": [None],
    "--list": [None],
}


@st.composite
def _argv(draw: st.DrawFn, bad: dict[str, st.SearchStrategy[str]], good: dict[str, list[str | None]]) -> list[str]:
    """One bad option (or an unknown one) among up to three valid options of other names, shuffled."""
    if draw(st.integers(0, 9)) == 0:
        flag, value = "--zz" + draw(st.text("abcdefghij-", max_size=6)), draw(_words)
    else:
        flag = draw(st.sampled_from(sorted(bad)))
        value = draw(bad[flag])
    pieces = [[flag, value]]
    others = draw(st.lists(st.sampled_from(sorted(set(good) - {flag})), max_size=3, unique=True))
    for name in others:
        choice = draw(st.sampled_from(good[name]))
        pieces.append([name] if choice is None else [name, choice])
    order = draw(st.permutations(range(len(pieces))))
    return [piece for i in order for piece in pieces[i]]


def _refused_in_tmp(argv: list[str], watch: tuple[Path, ...] = ()) -> None:
    """exit 2, one line on stderr, nothing on stdout, nothing new in _TMP or at the watched paths."""
    before = listing(_TMP)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = err.getvalue()
    assert code == 2, (argv, text, out.getvalue()[-300:])
    assert text.count("\n") == 1 and text.startswith("attncert: error:"), (argv, text)
    assert not out.getvalue(), argv
    assert listing(_TMP) == before, (argv, listing(_TMP) - before)
    assert not any(os.path.lexists(w) for w in watch), argv


@FAST
@given(argv=_argv(_BAD_VERIFY, _GOOD_VERIFY))
def test_verify_refuses_malformed_arguments(argv: list[str]) -> None:
    _refused_in_tmp(["verify", *argv])


_REQUIRED: dict[tuple, str] = {
    ("schema",): "str",
    ("environment",): "dict",
    ("environment", "seed"): "int",
    ("selection",): "dict",
    ("summary",): "dict",
    ("summary", "negative_controls"): "dict",
    ("results",): "list",
    ("results", 0): "dict",
    ("results", 0, "id"): "str",
    ("results", 0, "paper"): "enum",
    ("results", 0, "verdict"): "enum",
    ("results", 0, "expected"): "enum",
    ("results", 0, "method"): "enum",
    ("results", 0, "tier"): "enum",
    ("results", 0, "scope"): "enum",
    ("results", 0, "as_expected"): "bool",
    ("results", 0, "claim"): "dict",
    ("results", 0, "claim", "label"): "str",
    ("results", 0, "claim", "ledger"): "list",
    ("results", 0, "assumptions"): "list",
    ("results", 0, "evidence"): "dict",
    ("results", 0, "evidence", "summary"): "str",
    ("results", 0, "evidence", "duration_s"): "number",
}
_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=True), _words)
_json = st.recursive(
    _json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_words, inner, max_size=3)), max_leaves=6
)
_WRONG = {  # values of the wrong kind for a field of each kind
    "str": _json.filter(lambda v: not isinstance(v, str)),
    "enum": st.one_of(_json.filter(lambda v: not isinstance(v, str)), _words.map(lambda w: "zz" + w)),
    "dict": _json.filter(lambda v: not isinstance(v, dict)),
    "list": _json.filter(lambda v: not isinstance(v, list)),
    "bool": _json.filter(lambda v: not isinstance(v, bool)),
    "int": _json.filter(lambda v: not isinstance(v, int) or isinstance(v, bool)),
    "number": st.one_of(_json.filter(lambda v: not isinstance(v, int | float)), st.sampled_from([math.nan, math.inf, True])),
}


@st.composite
def malformed_runs(draw: st.DrawFn) -> bytes:
    """A saved verify report with one required field deleted or of the wrong kind, or not JSON at all."""
    run = json.loads(json.dumps(_saved_run()))
    kind = draw(st.integers(0, 9))
    if kind == 0:  # not a report at all
        return draw(st.one_of(st.binary(max_size=40), _json.map(lambda v: json.dumps(v).encode())))
    if kind == 1:
        depth = draw(st.integers(2_000, 200_000))
        return b"[" * depth + b"]" * depth
    path = draw(st.sampled_from(sorted(_REQUIRED, key=str)))
    parent = run
    for key in path[:-1]:
        parent = parent[key]
    if path[-1] not in ("schema", 0) and draw(st.booleans()):  # (no results at all is a valid run)
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(_WRONG[_REQUIRED[path]])
    return json.dumps(run, allow_nan=True).encode()


_SAVED: list[dict] = []


def _saved_run() -> dict:
    """One real saved run (one certificate), made once per process."""
    if not _SAVED:
        path = _TMP / "base" / "run.json"
        path.parent.mkdir(exist_ok=True)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["verify", *TINY, "--json", str(path)]) == 0
        _SAVED.append(json.loads(path.read_text()))
    return _SAVED[0]


_saved_run()  # made here, not inside a strategy (a verify run draws from the random module)

_GOOD_CLAIMS = {"--paper": ["plga", "gllm", "psa"], "--json": [str(_TMP / "c.json")], "--jobs": ["1"], "--timeout": ["5"]}


@st.composite
def claims_argv(draw: st.DrawFn) -> tuple[list[str], bytes | None]:
    """Malformed claims arguments, or a valid command line whose --from document is malformed."""
    if draw(st.booleans()):
        bad = {**_BAD_SHARED, "--json": _bad_paths, "--from": _bad_paths}
        return ["claims", *draw(_argv(bad, _GOOD_CLAIMS))], None
    extra = draw(st.sampled_from([[], ["--json", str(_TMP / "c.json")], ["--paper", "gllm"], ["--run"]]))
    return ["claims", "--from", str(_TMP / "run.json"), *extra], draw(malformed_runs())


@FAST
@given(case=claims_argv())
def test_claims_refuses_malformed_arguments_and_saved_runs(case: tuple[list[str], bytes | None]) -> None:
    argv, doc = case
    if doc is not None:
        (_TMP / "run.json").write_bytes(doc)
    _refused_in_tmp(argv)


_GOOD_REPORT = {"--paper": ["plga", "gllm", "psa"], "--no-figures": [None]}


@st.composite
def report_argv(draw: st.DrawFn) -> tuple[list[str], bytes]:
    """report --from with a malformed document, a bad --out, run-only options, or bad options."""
    valid = json.dumps(_saved_run()).encode()
    out = ["--out", str(_TMP / "out")]
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return ["report", "--from", str(_TMP / "run.json"), *out, "--no-figures"], draw(malformed_runs())
    if kind == 1:
        target = draw(_bad_folders)
        return ["report", "--from", str(_TMP / "run.json"), "--out", target, "--no-figures"], valid
    if kind == 2:
        extra = draw(
            st.sampled_from([["--tier", "quick"], ["--tier", "full"], ["--seed", "0"], ["--jobs", "1"], ["--negative-controls"]])
        )
        return ["report", "--from", str(_TMP / "run.json"), *out, "--no-figures", *extra], valid
    bad = {**_BAD_SHARED, "--tier": _not_in(("quick", "full")), "--seed": _BAD_VERIFY["--seed"], "--from": _bad_paths}
    return ["report", *out, *draw(_argv(bad, _GOOD_REPORT))], valid


@FAST
@given(case=report_argv())
def test_report_refuses_malformed_arguments_and_saved_runs(case: tuple[list[str], bytes]) -> None:
    argv, doc = case
    (_TMP / "run.json").write_bytes(doc)
    _refused_in_tmp(argv, watch=(_TMP / "out",))
