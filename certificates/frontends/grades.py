"""`attncert grades`: solve GLLM grade selection from a profile file and certify gradings.

Every input is validated before any work (profiles.py for the file, here for the flags); every
problem is one line with exit code 2 and nothing written."""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from attncert.certificates.frontends import grades_output as grades_out
from attncert.certificates.frontends.common import EXIT_OK, UsageError, dump_json, write_atomically
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import ProfileError, load_profiles, parse_document

EXAMPLE_SUFFIXES = (".json", ".toml", ".csv")
HEARTBEAT_S = 5.0


class _Heartbeat:
    """Silent on quick runs; on a run that takes longer than HEARTBEAT_S, one line on stderr every
    HEARTBEAT_S seconds naming the current stage (large profiles, cross-checks)."""

    def __init__(self) -> None:
        self.stage = "reading the profile"
        self.stop = threading.Event()
        self.start = time.monotonic()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(HEARTBEAT_S):
            print(f"attncert grades: {self.stage}, {time.monotonic() - self.start:.0f} s", file=sys.stderr, flush=True)

    def __enter__(self) -> _Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def examples_folder() -> Path:
    """The example profiles shipped with the package (``attncert/certificates/examples/profiles``)."""
    return Path(str(resources.files("attncert.certificates") / "examples" / "profiles"))


def _is_profile(path: Path) -> bool:
    """A profile file, not one of the value files a profile refers to (those are one-column CSVs)."""
    if path.suffix != ".csv":
        return path.suffix in EXAMPLE_SUFFIXES
    with path.open(encoding="utf-8") as fh:
        header = set(fh.readline().strip().split(","))
    return {"level", "a", "s"} <= header or {"j", "level"} <= header


def example_names() -> list[str]:
    return sorted(p.name for p in examples_folder().iterdir() if p.is_file() and _is_profile(p))


def _example(name: str) -> Path:
    folder = examples_folder()
    names = example_names()
    matches = [n for n in names if n == name or Path(n).stem == name]
    if len(matches) != 1:
        hint = "ambiguous; give the suffix" if matches else "unknown"
        raise UsageError(f"--example {name!r} is {hint}; see attncert grades --list-examples")
    return folder / matches[0]


def _list_examples(console: Console) -> None:
    table = Table("example", "task / content", header_style="bold", title=f"example profiles in {examples_folder()}")
    for name in example_names():
        task = ""
        path = examples_folder() / name
        if path.suffix != ".csv":
            try:
                doc = parse_document(name, path)
                task = str(doc.get("task", "")) if isinstance(doc, dict) else ""
            except ProfileError:
                task = ""
        else:
            task = "CSV profile"
        table.add_row(Text(name), Text(task))
    console.print(table)


def _clip(value: float | None) -> float:
    if value is None:
        return 2.0
    if not (math.isfinite(value) and value >= 1):
        raise UsageError(f"--C must be a finite number >= 1, not {value:g}")
    return value


def _same_file(out: Path, profile: Path) -> bool:
    """Whether writing ``out`` would replace ``profile``: the same path, or a link to it."""
    if out.exists() and profile.exists():
        return out.samefile(profile)
    return out.resolve() == profile.resolve()


def run(args: argparse.Namespace, console: Console) -> int:
    if args.list_examples:
        _list_examples(console)
        return EXIT_OK
    if args.grades_json is not None:
        grades_out.preflight_json(args.grades_json)
    if args.table3:
        if args.profile is not None or args.example is not None:
            raise UsageError("--table3 takes no profile file")
        options = (
            ("--mode", args.mode),
            ("--d-k", args.grades_d_k),
            ("--nu-mag", args.nu_mag),
            ("--zero-policy", args.zero_policy),
        )
        given = [f for f, v in options if v is not None]
        if given or args.cross_check:
            raise UsageError(f"--table3 takes only --C and --json, not {(given or ['--cross-check'])[0]}")
        clip = _clip(args.clip)
        console.print(grades_out.table3_table(clip))
        if args.grades_json:
            _write(args.grades_json, dump_json(grades_out.table3_json(clip)))
        return EXIT_OK
    if args.example is not None:
        if args.profile is not None:
            raise UsageError("give a profile file or --example NAME, not both")
        args.profile = _example(args.example)
    if args.profile is None:
        raise UsageError("give a profile file, --example NAME (see --list-examples) or --table3")
    if args.grades_json is not None and _same_file(Path(args.grades_json), Path(args.profile)):
        raise UsageError(f"--json {args.grades_json} is the input profile: the report would overwrite it; choose another path")
    overrides = {
        "--C": args.clip,
        "--mode": args.mode,
        "--d-k": args.grades_d_k,
        "--nu-mag": args.nu_mag,
        "--zero-policy": args.zero_policy,
    }
    try:
        with _Heartbeat() as beat:
            profiles = load_profiles(args.profile, overrides=overrides, allow_outside=args.allow_outside)
            beat.stage = f"solving ({profiles.alpha.size:,} {profiles.granularity}s)" + (
                ", then the cross-checks" if args.cross_check else ""
            )
            report = grade_report(profiles, cross_check=args.cross_check)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    grades_out.print_report(console, report)
    if args.grades_json:
        _write(args.grades_json, dump_json(grades_out.report_json(report)))
    return EXIT_OK


def _write(path: Path, text: str) -> None:
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise UsageError(f"--json {path}: cannot write ({exc.strerror or type(exc).__name__})") from None
