"""The ``attncert`` command line (also ``python -m attncert``).

One module per command (``verify``, ``claims``, ``report``, ``grades``, ``phase``), each with a
``run(args, console)``; this module only parses, so ``attncert --help`` imports nothing
numerical. Exit codes: 0 every verdict as expected (and every negative control rejected when
asked), 1 otherwise, 2 on usage errors (one line, no traceback, nothing written).
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import re
import sys

from attncert.certificates.frontends.common import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Parser,
    UsageError,
    path_arg,
    printable,
    writable,
)

# The choices below are spelled out so that parsing imports no numerical module; a test checks
# each against the tuple it mirrors (registry.PAPERS, backend.BACKENDS, ...).
PAPERS = ("plga", "gllm", "psa")
TIERS = ("quick", "full")
BACKENDS = ("numpy", "torch", "cupy")
MODES = ("unclipped", "clipped", "regularized", "regularized_clipped")
ZERO_POLICIES = ("error", "delete", "keep_clipped")
VARIANTS = ("t4", "t3t4", "key-only")
EXECUTORS = ("local", "dask")
PROTOCOLS = ("fig7", "taxis", "custom")
DEFAULT_SEED = 20260926  # engine.model.Context().seed
DEFAULT_TIMEOUT_S = 300.0  # engine.runner.DEFAULT_TIMEOUT_S
SIGMA_T_DEFAULT = 2.0  # theory.psa.SIGMA_T_DEFAULT


#: an integer as written in decimal: Python's int() also takes "1_6" (16), "+16" and non-ASCII digits
_DECIMAL = re.compile(r"-?[0-9]+")


def _decimal(text: str) -> int:
    """An integer written in plain decimal digits (a leading minus kept, so that a range check names it)."""
    if not _DECIMAL.fullmatch(text.strip()):
        raise ValueError(text)
    return int(text)


def _int(text: str) -> int:
    """An argparse type: one integer in plain decimal digits."""
    try:
        return _decimal(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {_short(text)!r}") from None


def _int_list(text: str) -> tuple[int, ...]:
    """An argparse type: distinct integers, comma-separated (a repeated value would count twice in the statistics)."""
    try:
        values = tuple(_decimal(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values:
        raise argparse.ArgumentTypeError("the list is empty")
    seen: set[int] = set()
    for value in values:
        if value in seen:
            raise argparse.ArgumentTypeError(f"{_short(str(value))} is given more than once; give each value once")
        seen.add(value)
    return values


MAX_JOBS = 1024


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:21] + "..."


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
    if not 1 <= value <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"must be >= 1 and <= {MAX_JOBS}, not {_short(text)}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be > 0 and finite, not {_short(text)}")
    return value


def _seed(text: str) -> int:
    """A seed for numpy's generators: an integer in [0, 2^63 - 1] (a negative one is refused there)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {_short(text)!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be >= 0 and < 2^63, not {_short(text)}")
    return value


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """--jobs and --timeout: how the certificates are run (never what they report)."""
    parser.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="worker processes (default: all cores); 1 runs every check in this process, one after the other",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"with --jobs > 1, a check running longer is stopped and reported as ERROR (default {DEFAULT_TIMEOUT_S:g})",
    )


def _verify_parser(sub: argparse._SubParsersAction) -> None:
    verify = sub.add_parser("verify", help="run the certificate suite and report a verdict per claim")
    verify.add_argument("--paper", choices=PAPERS, help="only this paper's certificates")
    verify.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (glob or substring)")
    verify.add_argument("--tag", help="only certificates with this tag")
    verify.add_argument(
        "--tier",
        choices=TIERS,
        default="quick",
        help="quick (default): the fast tier, seconds; full: also the full-protocol Monte Carlo certificates",
    )
    verify.add_argument("--json", type=writable, metavar="PATH", help="write the JSON report here")
    verify.add_argument("--markdown", type=writable, metavar="PATH", help="write a Markdown report here")
    verify.add_argument("--negative-controls", action="store_true", help="also run every mutant; each must be rejected")
    verify.add_argument("--backend", choices=[*BACKENDS, "auto"], default="numpy", help="array backend (default numpy)")
    verify.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help="seed for randomized checks")
    verify.add_argument("--list", action="store_true", help="list the selected certificates and exit")
    _add_run_options(verify)


def _claims_parser(sub: argparse._SubParsersAction) -> None:
    claims = sub.add_parser(
        "claims",
        help="the claims ledger: every catalogued claim, its parts and the certificates covering them",
    )
    claims.add_argument("--paper", choices=PAPERS)
    source = claims.add_mutually_exclusive_group()
    source.add_argument(
        "--from",
        dest="from_run",
        type=path_arg,
        metavar="RUN.json",
        help="show the verdicts and scopes of a saved run ('attncert verify --json RUN.json')",
    )
    source.add_argument("--run", action="store_true", help="run the certificates (quick tier) and show their verdicts and scopes")
    claims.add_argument("--json", dest="claims_json", type=writable, metavar="PATH", help="write the ledger as JSON")
    _add_run_options(claims)


def _report_parser(sub: argparse._SubParsersAction) -> None:
    report = sub.add_parser("report", help="write a browsable HTML report (certificates, ledger, figures)")
    report.add_argument("--out", type=path_arg, required=True, help="folder for index.html and its figures")
    report.add_argument(
        "--from",
        dest="from_run",
        type=path_arg,
        metavar="RUN.json",
        help="render a saved run ('attncert verify --json RUN.json') instead of running the certificates",
    )
    report.add_argument("--tier", choices=TIERS, help="quick (default) or full")
    report.add_argument("--paper", choices=PAPERS)
    report.add_argument("--negative-controls", action="store_true", help="also run and record every mutant")
    report.add_argument("--no-figures", action="store_true", help="skip the figures (no matplotlib needed)")
    report.add_argument("--seed", type=_seed, help=f"seed for randomized checks (default {DEFAULT_SEED})")
    _add_run_options(report)


def _grades_parser(sub: argparse._SubParsersAction) -> None:
    grades = sub.add_parser("grades", help="solve GLLM grade selection from a profile file and certify gradings")
    grades.add_argument("profile", nargs="?", type=path_arg, help="profile file (.json, .toml or .csv)")
    grades.add_argument("--example", metavar="NAME", help="use a profile shipped with attncert (see --list-examples)")
    grades.add_argument("--list-examples", action="store_true", help="list the shipped example profiles and exit")
    grades.add_argument("--C", dest="clip", type=float, help="clip C >= 1 (overrides the file; default 2)")
    grades.add_argument("--mode", choices=MODES, help="selection mode (overrides the file; default clipped)")
    grades.add_argument("--d-k", dest="grades_d_k", type=float, help="lambda = e^{1/d_k} (overrides the file's d_k)")
    grades.add_argument("--nu-mag", type=float, help="Cor 4 regulariser (modes regularized*)")
    grades.add_argument(
        "--zero-policy",
        choices=ZERO_POLICIES,
        help="what a target zero does (overrides the file's selection.zero_policy; default error)",
    )
    grades.add_argument("--json", dest="grades_json", type=writable, metavar="PATH", help="write the report as JSON")
    grades.add_argument("--cross-check", action="store_true", help="also solve with L-BFGS-B and cvxpy and compare")
    grades.add_argument("--table3", action="store_true", help="regenerate GLLM Table 3 (L = 4, C = 2)")
    grades.add_argument(
        "--allow-outside",
        action="store_true",
        help="let the profile name files outside its own folder (values_file, q_file, bootstrap files)",
    )


def _phase_parser(sub: argparse._SubParsersAction) -> None:
    phase = sub.add_parser("phase", help="regenerate the PSA gamma_c phase-transition tables and figures")
    phase.add_argument("--protocol", choices=PROTOCOLS, default="fig7")
    phase.add_argument("--engine", choices=["mc", "quad"], default="mc", help="Monte Carlo or quadrature")
    # --backend, --seed, --seeds, --trials and --executor default to None here, so that a quad run (which uses
    # none of them) can tell those given from defaults and say they have no effect; the defaults apply to mc
    phase.add_argument("--backend", choices=[*BACKENDS, "auto"], help="mc: array backend (default numpy)")
    phase.add_argument("--seed", type=_int, help="mc: base seed >= 0; replicate seeds are derived from it (default 0)")
    phase.add_argument("--out", type=path_arg, help="write CSV, Markdown and JSON (and PNG with --plot) here")
    phase.add_argument("--plot", action="store_true", help="also write the Fig. 7 / Fig. 8 panels (needs matplotlib)")
    phase.add_argument("--d-k", dest="d_ks", type=_int_list, help="custom: d_k values in [1, 10^6], e.g. 4,8,16")
    phase.add_argument("--T", dest="Ts", type=_int_list, help="custom: T values in [3, 10^6], e.g. 10,15,25")
    phase.add_argument("--gamma-max", type=float, help="top of the gamma grid, in (0, 10^4] (default 8)")
    phase.add_argument("--gamma-points", type=_int, help="points of the gamma grid, in [2, 10^5] (default 61)")
    phase.add_argument("--seeds", type=_int, help="mc: replicates, in [1, 10^4] (default 5)")
    phase.add_argument("--trials", type=_int, help="mc: trials per replicate (default 60000; memory does not grow with it)")
    phase.add_argument(
        "--sigma-t", type=float, default=SIGMA_T_DEFAULT, help="target noise sigma_t [R?], in [0, 10^4] (default 2)"
    )
    phase.add_argument("--variant", choices=VARIANTS, default="t4", help="score model variant")
    phase.add_argument("--c", type=float, help="condensation constant for condensed predictions (default: c-hat)")
    phase.add_argument("--executor", choices=EXECUTORS, help="mc: where the replicates run (default local)")
    phase.add_argument(
        "--scheduler",
        help="dask scheduler address for --executor dask (e.g. tcp://127.0.0.1:8786); the scheduler and its workers "
        "run the tasks and their results are trusted: use only a cluster you control",
    )
    phase.add_argument("--max-memory", type=float, default=2.0, metavar="GB", help="refuse sweeps that need more (default 2)")
    phase.add_argument("--max-minutes", type=float, default=60.0, help="refuse sweeps estimated to take longer (default 60)")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="attncert", description="Certificate verifier for the PLGA, GLLM and PSA papers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for add in (_verify_parser, _claims_parser, _report_parser, _grades_parser, _phase_parser):
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "jobs", 1) != 1:
            # Worker processes already share the cores: a BLAS thread pool per worker only oversubscribes
            # them (small solves ran 10x slower). Set before numpy is first imported; the user's choice wins.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from rich.console import Console

        console = Console(width=None if sys.stdout.isatty() else 200)
        command = importlib.import_module(f"attncert.certificates.frontends.{args.command}")
        return command.run(args, console)
    except UsageError as exc:
        from rich.console import Console
        from rich.markup import escape

        # one line, even when a path holds a newline, and no terminal escape from a file name or value
        message = printable(" ".join(str(exc).split()))
        Console(stderr=True, soft_wrap=True).print(f"[bold red]attncert: error:[/] {escape(message)}", highlight=False)
        return EXIT_USAGE
    except KeyboardInterrupt:  # every command writes its files at the end, atomically, or all or none
        print("attncert: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
