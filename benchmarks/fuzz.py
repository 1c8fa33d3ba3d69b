"""The fuzz suite of issue 12 at benchmark size: at least 10^4 generated examples in all.

Usage: python benchmarks/fuzz.py [--per-property N] (default 2,000 per property, 8 properties).
Runs the properties of tests/test_fuzz_grades.py, tests/test_fuzz_phase.py and
tests/test_fuzz_cli.py (verify, claims and report arguments and --from documents) with N examples
each (hypothesis, derandomized, no example database) and prints, per property, the examples
run, how they ended (solved / refused with exit 2) and the failures, which must be 0: a failure
stops the property and prints hypothesis's minimal failing example.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import test_fuzz_cli as tc  # noqa: E402
import test_fuzz_grades as tg  # noqa: E402
import test_fuzz_phase as tp  # noqa: E402


class _Capture:
    """A capsys stand-in for running the tests' checks outside pytest."""

    def __init__(self) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()

    def readouterr(self) -> tuple[str, str]:
        out, err = self.out.getvalue(), self.err.getvalue()
        self.out.seek(0), self.out.truncate(), self.err.seek(0), self.err.truncate()
        return out, err


class _Patch:
    """A monkeypatch stand-in: setattr for the rest of the run."""

    def setattr(self, obj, name, value) -> None:
        setattr(obj, name, value)


def _property(name: str, strategies: dict, check, n: int) -> tuple[str, Counter, float, str | None]:
    counts: Counter = Counter()

    @settings(max_examples=n, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(**strategies)
    def prop(**kwargs) -> None:
        counts["examples"] += 1
        counts[check(**kwargs) or "checked"] += 1

    start = time.perf_counter()
    failure = None
    try:
        prop()
    except Exception as exc:  # a property failed: report it, keep going with the others
        failure = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return name, counts, time.perf_counter() - start, failure


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-property", type=int, default=2000)
    n = parser.parse_args().per_property
    cap, patch = _Capture(), _Patch()

    def cli(run):
        def check(**kwargs):
            with contextlib.redirect_stdout(cap.out), contextlib.redirect_stderr(cap.err):
                run(**kwargs)
            return None

        return check

    outcomes: Counter = Counter()

    def grades_doc(doc):
        path, out = tg._TMP / "doc.json", tg._TMP / "out.json"
        try:
            path.write_text(tg.json.dumps(doc, allow_nan=True))
        except ValueError:
            return "skipped (unprintable integer)"
        with contextlib.redirect_stdout(cap.out), contextlib.redirect_stderr(cap.err):
            rc = tg._check_run(["grades", str(path), "--json", str(out)], out, cap)
        return "solved" if rc == 0 else "refused (exit 2, one line)"

    def grades_flags(flags):
        out = tg._TMP / "flags.json"
        argv = ["grades", str(tg.EXAMPLES / "table3_nu05_mu02.json"), "--json", str(out)]
        with contextlib.redirect_stdout(cap.out), contextlib.redirect_stderr(cap.err):
            rc = tg._check_run(argv + [f"{f}={v}" for f, v in flags], out, cap)
        return "solved" if rc == 0 else "refused (exit 2, one line)"

    def phase_flags(extra, pairs):
        out = tp._TMP / "out"
        argv = ["phase", *extra, "--out", str(out)] + [f"{f}={v}" for f, v in pairs]
        with contextlib.redirect_stdout(cap.out), contextlib.redirect_stderr(cap.err):
            rc = tp._check(argv, out, cap)
        return "accepted" if rc == 0 else "refused (exit 2, one line)"

    def refused(test):
        inner_test = test.hypothesis.inner_test

        def check(**kwargs):
            inner_test(**kwargs)  # asserts exit 2, one line, nothing written
            return "refused (exit 2, one line)"

        return check

    tg._quiet(patch)
    tp.phase_cmd._run = lambda *args: 0
    inner = {f.__name__: f.hypothesis.inner_test for f in (tg.test_exact_solver_reaches_the_independent_optimum,)}
    props = [
        (
            "grades solver = threshold enumeration",
            {"profiles": tg.log_profiles(zeros=True), "clip": tg.clips},
            lambda profiles, clip: inner["test_exact_solver_reaches_the_independent_optimum"](profiles, clip),
        ),
        (
            "grades invariances (scale, permute, split levels)",
            {"profiles": tg.log_profiles(max_d=6), "clip": tg.clips},
            lambda profiles, clip: _invariances(profiles, clip),
        ),
        ("grades random documents", {"doc": tg.mutated_documents()}, grades_doc),
        ("grades random flags", {"flags": tg.flag_lists}, grades_flags),
        (
            "phase random flags",
            {"extra": tp.choices, "pairs": tp.st.lists(tp.st.tuples(tp.flags, tp.numbers), max_size=4)},
            phase_flags,
        ),
        (
            "verify random malformed arguments",
            {"argv": tc._argv(tc._BAD_VERIFY, tc._GOOD_VERIFY)},
            refused(tc.test_verify_refuses_malformed_arguments),
        ),
        (
            "claims random arguments and --from documents",
            {"case": tc.claims_argv()},
            refused(tc.test_claims_refuses_malformed_arguments_and_saved_runs),
        ),
        (
            "report random arguments and --from documents",
            {"case": tc.report_argv()},
            refused(tc.test_report_refuses_malformed_arguments_and_saved_runs),
        ),
    ]
    total, failed = 0, 0
    print(f"{'property':52s} {'examples':>8s} {'time':>7s}  outcomes")
    for name, strategies, check in props:
        prop_name, counts, seconds, failure = _property(name, strategies, check, n)
        examples = counts.pop("examples", 0)
        total += examples
        outcomes.update(counts)
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        print(f"{prop_name:52s} {examples:8d} {seconds:6.1f}s  {detail}")
        if failure:
            failed += 1
            print(f"  FAILED: {failure}")
    print(f"{'total':52s} {total:8d}          failed properties: {failed}")
    return 1 if failed else 0


def _invariances(profiles, clip) -> str:
    import numpy as np

    la, lt = profiles
    rng = np.random.default_rng(zlib.crc32(la.tobytes() + lt.tobytes() + repr(clip).encode()))
    base = tg.gs.solve_clipped(None, None, clip, log_alpha=la, log_tau=lt).value
    shift_a, shift_t = rng.uniform(-300, 300, 2)
    perm = rng.permutation(la.size)
    dims = rng.integers(1, 6, la.size)
    variants = [
        (la + shift_a, lt + shift_t),
        (la[perm], lt[perm]),
        (np.repeat(la - np.log(dims), dims), np.repeat(lt - np.log(dims), dims)),
    ]
    for vla, vlt in variants:
        value = tg.gs.solve_clipped(None, None, clip, log_alpha=vla, log_tau=vlt).value
        assert abs(value - base) <= 1e-10 * base, (value, base)
    return None


if __name__ == "__main__":
    raise SystemExit(main())
