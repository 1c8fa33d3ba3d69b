"""Parallel runs (issue 14): the same results as the serial run, each crash or hang confined to
its own check, and byte-identical JSON reports apart from durations and the creation time."""

import json
import os
import time

import pytest

from attncert.certificates.engine.model import Certificate, Claim, Context, Evidence, Method, Mutant, Provenance, Verdict
from attncert.certificates.engine.pool import portable
from attncert.certificates.engine.runner import Task, run_all
from attncert.certificates.frontends.cli import main
from attncert.certificates.frontends.common import dump_json
from attncert.certificates.frontends.verify_output import report_json


def _cert(name: str, check, expected: Verdict = Verdict.VERIFIED) -> Certificate:
    return Certificate(
        id=f"psa.parallel_{name}",
        claim=Claim("psa", name, f"test-only certificate {name}", Provenance.DERIVED),
        method=Method.NUMERIC,
        expected=expected,
        check=check,
        params={"k": 1},
        mutant=Mutant("k = 2", {"k": 2}),
    )


def _fine(ctx, *, k):
    return Evidence(
        Verdict.VERIFIED if k == 1 else Verdict.REFUTED,
        f"k = {k}, seed {ctx.seed}",
        measured=[k, 0.5],
        details={"rule": lambda v: v, "note": "a lambda cannot be pickled; its name travels instead"},
    )


def _raises(ctx, *, k):
    raise RuntimeError(f"broken at k = {k}")


def _hangs(ctx, *, k):
    time.sleep(60)


def _dies(ctx, *, k):
    os._exit(7)


TEST_SET = [
    _cert("fine_a", _fine),
    _cert("raises", _raises),
    _cert("hangs", _hangs),
    _cert("dies", _dies),
    _cert("fine_b", _fine),
]


def _stripped(data):
    """A report without what legitimately differs between two runs: durations and creation time."""
    if isinstance(data, dict):
        return {k: _stripped(v) for k, v in data.items() if k not in {"duration_s", "created"}}
    if isinstance(data, list):
        return [_stripped(v) for v in data]
    return data


def test_parallel_run_confines_crashes_hangs_and_deaths_to_their_check():
    events: list[tuple[str, str]] = []
    start = time.perf_counter()
    results = run_all(
        TEST_SET,
        Context(),
        negative_controls=True,
        jobs=2,
        timeout=2.0,
        on_start=lambda t: events.append(("start", t.label)),
        on_finish=lambda t, o: events.append(("finish", t.label)),
    )
    assert time.perf_counter() - start < 30  # the hanging check was stopped, not waited for
    assert [r.certificate.id for r in results] == [c.id for c in TEST_SET]
    by_id = {r.certificate.id.removeprefix("psa.parallel_"): r for r in results}
    for name in ("fine_a", "fine_b"):
        assert by_id[name].ok and by_id[name].negative_control.evidence.verdict is Verdict.REFUTED
        assert by_id[name].outcome.evidence.details["rule"] == "_fine.<locals>.<lambda>"
    assert by_id["raises"].verdict is Verdict.ERROR and "broken at k = 1" in by_id["raises"].outcome.evidence.summary
    assert by_id["hangs"].verdict is Verdict.ERROR and "timed out" in by_id["hangs"].outcome.evidence.summary
    assert by_id["dies"].verdict is Verdict.ERROR and "exit code 7" in by_id["dies"].outcome.evidence.summary
    assert by_id["dies"].negative_control.evidence.verdict is Verdict.ERROR
    labels = [t.label for c in TEST_SET for t in (Task(c, False), Task(c, True))]
    assert sorted(label for kind, label in events if kind == "start") == sorted(labels)
    assert sorted(label for kind, label in events if kind == "finish") == sorted(labels)


def test_parallel_and_serial_reports_are_identical_apart_from_durations():
    # serially a hang would hang this test and a death would end it: those are the pool's to confine
    runnable = [c for c in TEST_SET if c.check not in (_hangs, _dies)]
    ctx = Context(seed=11)
    selection = {"paper": None, "pattern": None, "tag": None, "tier": "quick", "negative_controls": True}
    serial = report_json(run_all(runnable, ctx, negative_controls=True, jobs=1), ctx, [], selection)
    parallel = report_json(run_all(runnable, ctx, negative_controls=True, jobs=3), ctx, [], selection)
    assert dump_json(_stripped(serial)) == dump_json(_stripped(parallel))


def test_portable_evidence_keeps_its_report_form():
    from attncert.certificates.frontends.common import to_jsonable

    ev = _fine(Context(), k=1)
    moved = portable(ev)
    assert to_jsonable(moved) == to_jsonable(ev)
    assert portable(moved) is moved  # already picklable: unchanged


@pytest.mark.parametrize("extra", [[], ["--negative-controls"]])
def test_verify_jobs_gives_the_serial_json_byte_for_byte(tmp_path, extra):
    """The real registry, a few cheap certificates: --jobs 1 and --jobs 3 write the same report."""
    pattern = "psa.shear_float64_residual_is_zero,gllm.table3_rows,plga.softmax_is_one_lipschitz,psa.table11_overhead_values"
    texts, codes = [], []
    for jobs in ("1", "3"):
        out = tmp_path / f"jobs{jobs}.json"
        codes.append(main(["verify", "-k", pattern, "--jobs", jobs, "--json", str(out), *extra]))
        texts.append(dump_json(_stripped(json.loads(out.read_text()))))
    assert codes[0] == codes[1]
    assert texts[0] == texts[1]
    assert len(json.loads(texts[0])["results"]) == 4


def _starts_a_process(ctx, *, k):
    import multiprocessing

    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(0,))
    child.start()
    child.join()
    return Evidence(Verdict.VERIFIED if child.exitcode == 0 and k == 1 else Verdict.REFUTED, f"child exit {child.exitcode}")


def test_a_check_may_start_processes_of_its_own():
    (result,) = run_all([_cert("starts_a_process", _starts_a_process)], Context(), jobs=2)
    assert result.verdict is Verdict.VERIFIED, result.outcome.evidence.summary


_WARM: dict[int, int] = {}  # k -> pid of the process that computed it
_PREPARED: list[int] = []


def _prepare_square(ctx, *, k):
    _PREPARED.append(k)
    _WARM.setdefault(k, os.getpid())


def _uses_square(ctx, *, k):
    computed_here = k not in _WARM
    _WARM.setdefault(k, os.getpid())
    return Evidence(Verdict.VERIFIED if k == 1 else Verdict.REFUTED, f"k = {k}", details={"computed_here": computed_here})


def test_shared_computations_are_prepared_once_before_the_workers_fork():
    """Checks with a ``prepare`` find its cache warm in every worker: the parent called each distinct
    ``prepare`` (per argument set: the certificate's and its mutant's) once, before forking."""
    import dataclasses

    certs = [dataclasses.replace(_cert(f"shared_{i}", _uses_square), prepare=_prepare_square) for i in range(4)]
    _WARM.clear(), _PREPARED.clear()
    results = run_all(certs, Context(), negative_controls=True, jobs=2)
    assert sorted(_PREPARED) == [1, 2]  # once per distinct argument set, in this process
    assert all(r.as_expected and r.mutant_killed for r in results)
    assert not any(r.outcome.evidence.details["computed_here"] for r in results)
    assert not any(r.negative_control.evidence.details["computed_here"] for r in results)
    _WARM.clear(), _PREPARED.clear()
    serial = run_all(certs, Context(), jobs=1)  # a serial run needs no preparation: the check computes
    assert _PREPARED == [] and serial[0].outcome.evidence.details["computed_here"]


def test_a_failing_prepare_leaves_the_error_to_its_check():
    import dataclasses

    def broken(ctx, *, k):
        raise RuntimeError("no sweep today")

    certs = [dataclasses.replace(_cert("shared_fine", _fine), prepare=broken), _cert("other", _fine)]
    results = run_all(certs, Context(), jobs=2)
    assert [r.verdict for r in results] == [Verdict.VERIFIED, Verdict.VERIFIED]


def test_a_run_without_a_terminal_prints_plain_progress_lines(monkeypatch, capsys):
    """In a CI log or a pipe (no terminal, no live display) a long run still reports progress."""
    from attncert.certificates.frontends import verify

    monkeypatch.setattr(verify, "PLAIN_PROGRESS_S", 0.0)  # a line at every event instead of every 10 s
    assert main(["verify", "-k", "plga.standard_rope_frequencies_are_nonresonant", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "checks done" in line]
    assert lines and lines[-1].startswith("verify: ") and "/" in lines[-1]
    done, total = lines[-1].split(": ", 1)[1].split(" checks done")[0].split("/")
    assert int(done) == int(total) > 0
    # one line each, whatever its length: a narrow console must not wrap the running checks' names
    assert all(line.startswith("verify: ") for line in err.splitlines() if line.strip())


@pytest.mark.parametrize("command", ["verify", "report"])
def test_ctrl_c_exits_130_with_one_line_and_writes_nothing(command, monkeypatch, tmp_path, capsys):
    from attncert.certificates.frontends import verify

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(verify, "run_with_progress", interrupted)
    target = tmp_path / "out"
    argv = ["verify", "--json", str(target / "run.json")] if command == "verify" else ["report", "--out", str(target)]
    if command == "verify":
        target.mkdir()
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert err == "attncert: interrupted; nothing written\n"
    assert not target.exists() or not any(target.iterdir())


def test_ctrl_c_in_grades_is_reported_by_the_same_handler(monkeypatch, tmp_path, capsys):
    from attncert.certificates.frontends import grades

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(grades, "load_profiles", interrupted)
    out = tmp_path / "g.json"
    assert main(["grades", "--example", "table3_nu05_mu02", "--json", str(out)]) == 130
    assert capsys.readouterr().err == "attncert: interrupted; nothing written\n"
    assert not out.exists()
