"""Property-based tests of `attncert phase` arguments (issue 12): random flag values are
validated, estimated and either accepted or refused with one line and exit 2, nothing written,
never a traceback. The sweep itself is stubbed out for the 500-example property (validation and
the work/memory estimate are what random flags exercise); a smaller property runs real sweeps
small enough to be quick."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attncert.certificates.frontends import phase as phase_cmd
from attncert.certificates.frontends.cli import main

FAST = settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
_TMP = Path(tempfile.mkdtemp(prefix="attncert-fuzz-phase-"))

numbers = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.integers(-5, 100).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "x", "1e9", "-0", "4,8", "3,,5", "[/]", "1" + "0" * 400]),
)
flags = st.sampled_from(
    ["--d-k", "--T", "--gamma-max", "--gamma-points", "--seeds", "--trials", "--sigma-t", "--c", "--seed", "--max-memory"]
)
choices = st.sampled_from(
    [[], ["--protocol", "custom"], ["--protocol", "taxis"], ["--engine", "quad"], ["--variant", "key-only"], ["--plot"]]
)


def _check(argv: list[str], out: Path, capsys) -> int:
    shutil.rmtree(out, ignore_errors=True)
    rc = main(argv)
    stdout, err = capsys.readouterr()
    assert rc in (0, 2), (rc, err)
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith("attncert: error:"), err
        assert not stdout and not out.exists()
    return rc


@FAST
@given(extra=choices, pairs=st.lists(st.tuples(flags, numbers), max_size=4))
def test_random_phase_flags_are_validated_before_any_work(extra, pairs, capsys, monkeypatch):
    monkeypatch.setattr(phase_cmd, "_run", lambda *args: 0)
    out = _TMP / "out"
    argv = ["phase", *extra, "--out", str(out)] + [f"{flag}={value}" for flag, value in pairs]
    _check(argv, out, capsys)


small = st.tuples(
    st.sampled_from(["4", "16", "4,64", "1", "0"]),
    st.sampled_from(["3", "10", "6,25", "2"]),
    st.sampled_from(["2", "5", "9", "1"]),
    st.sampled_from(["1", "50", "300"]),
    st.sampled_from(["0", "2", "50", "1e4", "-1"]),
    st.sampled_from(["mc", "quad"]),
)


@SLOW
@given(values=small)
def test_small_real_sweeps_run_or_are_refused_cleanly(values, capsys):
    d_k, T, points, trials, sigma, engine = values
    out = _TMP / "real"
    argv = ["phase", "--protocol", "custom", "--d-k", d_k, "--T", T, "--gamma-points", points, "--seeds", "1"]
    argv += ["--trials", trials, "--sigma-t", sigma, "--engine", engine, "--out", str(out)]
    if _check(argv, out, capsys) == 0:
        assert (out / "summary.json").is_file()
