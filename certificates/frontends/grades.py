"""`attncert grades`: solve GLLM grade selection from a profile file and certify gradings."""

from __future__ import annotations

import argparse

from rich.console import Console

from attncert.certificates.frontends import grades_output as grades_out
from attncert.certificates.frontends.common import EXIT_OK, UsageError, dump_json, write_atomically
from attncert.certificates.frontends.grades_report import grade_report
from attncert.certificates.frontends.profiles import ProfileError, load_profiles


def run(args: argparse.Namespace, console: Console) -> int:
    if args.table3:
        if args.profile is not None:
            raise UsageError("--table3 takes no profile file")
        console.print(grades_out.table3_table(args.clip if args.clip is not None else 2.0))
        return EXIT_OK
    if args.profile is None:
        raise UsageError("give a profile file (see examples/profiles/) or --table3")
    overrides = {"C": args.clip, "mode": args.mode, "d_k": args.grades_d_k, "nu_mag": args.nu_mag}
    try:
        profiles = load_profiles(args.profile, overrides=overrides)
        report = grade_report(profiles, cross_check=args.cross_check)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(f"{args.profile}: {exc}") from None
    grades_out.print_report(console, report)
    if args.grades_json:
        write_atomically(args.grades_json, dump_json(grades_out.report_json(report)))
    return EXIT_OK
