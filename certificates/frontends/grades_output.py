"""Terminal tables and JSON for `attncert grades`, and GLLM Table 3.

Every piece of user text (file names, task, level and candidate names, notes) reaches the
terminal as a rich ``Text``, so markup such as ``[/]`` or emoji codes in it is shown, never
interpreted."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from attncert.certificates.frontends.common import UsageError, both_ends, printable, to_jsonable
from attncert.certificates.frontends.grades_report import GradeReport
from attncert.solvers import grades as gs

TABLE3_ROWS = ((0.8, 0.4), (0.7, 0.3), (0.6, 0.3), (0.5, 0.2))  # gllm.md §3.5: (0.7, 0.3) is [R?]
# a per-level table shows this many rows at each end: a row per level made 100,000 levels take a minute
TABLE_END_ROWS = 20
# what each mode's solve is: only mode clipped gives Lambda*_C (gllm.md §1.7, §1.9, §1.10)
OPTIMUM_SYMBOLS = {
    "clipped": ("Lambda*_C", "g*_C", "q*_C"),
    "unclipped": ("Lambda*", "g*", "q*"),
    "regularized": ("Lambda(q_nu)", "g_nu", "q_nu"),
    "regularized_clipped": ("Lambda(q_nu)", "g_nu", "q_nu"),
}


def table3_values(nu: float, mu: float, clip: float = 2.0, levels: int = 4, d_k: float = 64.0) -> dict:
    """One row of GLLM Table 3 from geometric profiles (Cor 3 + Prop 10/11 on L levels)."""
    # SymPy only here: `attncert grades PROFILE` should not pay for importing it.
    import sympy as sp

    from attncert.theory import gllm

    a, s = (np.array([float(x) for x in v]) for v in gllm.geometric_profiles(sp.Rational(str(nu)), sp.Rational(str(mu)), levels))
    unclipped = gs.bhattacharyya(a, s) ** 2
    sol = gs.solve_clipped(a, s, clip)
    return {
        "nu": nu,
        "mu": mu,
        "a": a,
        "s": s,
        "lambda_star": unclipped,
        "unclipped_gain": 1 / unclipped,
        "lambda_star_c": sol.value,
        "gain": sol.gain,
        "g": sol.g,
        "q": d_k * np.log(sol.g),
        "clip_cost": 1 - unclipped / sol.value,
    }


def table3_json(clip: float = 2.0) -> dict:
    """The Table 3 rows as JSON (``grades --table3 --json``)."""
    rows = []
    for nu, mu in TABLE3_ROWS:
        r = table3_values(nu, mu, clip)
        rows.append({k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in r.items()})
    return to_jsonable({"schema": "attncert.grades-table3/1", "L": 4, "C": clip, "d_k": 64.0, "rows": rows})


def table3_table(clip: float = 2.0) -> Table:
    table = Table(
        "(nu, mu)",
        "a (levels 0..3)",
        "s",
        "Lambda* = BC^2",
        "1/Lambda*",
        "Lambda*_C",
        "gain 1/Lambda*_C",
        "g*_C",
        "q*_C (d_k = 64)",
        "clip cost",
        header_style="bold",
        title=f"GLLM Table 3 (L = 4, C = {clip:g}); row (0.7, 0.3) is a reconstruction [R?]",
    )
    for nu, mu in TABLE3_ROWS:
        r = table3_values(nu, mu, clip)
        table.add_row(
            f"({nu}, {mu})",
            " ".join(f"{x:.4f}" for x in r["a"]),
            " ".join(f"{x:.4f}" for x in r["s"]),
            f"{r['lambda_star']:.5f}",
            f"{r['unclipped_gain']:.3f}",
            f"{r['lambda_star_c']:.5f}",
            f"{r['gain']:.3f}",
            ", ".join(f"{x:.4f}" for x in r["g"]),
            ", ".join(f"{x:.2f}" for x in r["q"]),
            f"{r['clip_cost']:.2%}",
        )
    return table


def preflight_json(path: Path, flag: str = "--json") -> None:
    """Fail before any work when ``path`` cannot be written (a folder in the way, a read-only or
    virtual file system such as /proc): a probe file is created next to it and removed."""
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a folder, not a file")
    try:
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write there ({exc.strerror or type(exc).__name__})") from None


def _value(value: float, log_value: float | None, digits: int = 6) -> str:
    """A Lambda value; below 1e-300 (or above the double range) as e^(its logarithm)."""
    if log_value is not None and not (1e-300 < value < math.inf):
        return f"e^{log_value:.{digits}g}"
    return f"{value:.{digits}f}" if value >= 10**-digits else f"{value:.{digits}g}"


def _g(x: float) -> str:
    return f"{x:.4f}" if math.isfinite(x) and abs(x) < 1e6 else f"{x:.4g}"


def _left_out(console: Console, n: int) -> None:
    if n > 2 * TABLE_END_ROWS:
        console.print(f"{n - 2 * TABLE_END_ROWS:,} of {n:,} levels left out of this table; --json PATH writes all of them")


def print_report(console: Console, rep: GradeReport) -> None:
    p, sel, opt = rep.profiles, rep.profiles.selection, rep.optimum
    lam, g_name, q_name = OPTIMUM_SYMBOLS[sel.mode]
    head = Text.assemble((printable(p.source), "bold"), f" ({printable(p.task)})" if p.task else "")
    head.append(f": {p.alpha.size} {p.granularity}s, mode {sel.mode}, C = {sel.clip:g}, lambda = e^{sel.log_lambda:.6g}")
    console.print(head)
    summary = Table("quantity", "value", header_style="bold", show_header=False)
    log_bc = math.log(rep.bc) if rep.bc > 0 else -math.inf
    summary.add_row("BC(alpha, tau)", _value(rep.bc, log_bc))
    summary.add_row("Lambda* = BC^2 (unclipped)", _value(rep.bc**2, 2 * log_bc))
    label = lam if opt.attained else "inf Lambda (not attained)"
    summary.add_row(f"{label} ({opt.solver})", _value(opt.value, opt.log_value))
    gain = f"{opt.gain:.4f}x" if math.isfinite(opt.gain) else f"e^{-opt.log_value:.6g}x"
    summary.add_row(f"token gain 1/{lam}", gain)
    if rep.bound is not None:
        summary.add_row("bound max{BC^2, C^-2}", _value(rep.bound, max(2 * log_bc, -2 * math.log(sel.clip))))
    summary.add_row(
        "active sets (g = 1 / interior / g = C)",
        f"{opt.lo.size} / {p.alpha.size - opt.lo.size - opt.hi.size} / {opt.hi.size}",
    )
    if rep.kkt is not None:
        summary.add_row(f"KKT residual (mpmath, {rep.kkt.digits} digits)", f"{rep.kkt.worst:.2e}")
    for name, rel in rep.cross_checks.items():
        summary.add_row(f"cross-check {name} (relative)", f"{rel:.2e}")
    console.print(summary)
    if p.granularity == "level" or p.alpha.size <= 16:
        names = [lv.name for lv in p.levels] if p.granularity == "level" and p.levels else [str(j) for j in range(p.alpha.size)]
        t = Table("level" if p.granularity == "level" else "coordinate", "alpha", "tau", g_name, q_name, header_style="bold")
        for j in both_ends(len(names), TABLE_END_ROWS):
            if j is None:
                t.add_row("...", "", "", "", "")
            else:
                t.add_row(Text(printable(names[j])), f"{p.alpha[j]:.4f}", f"{p.tau[j]:.4f}", _g(opt.g[j]), f"{rep.q[j]:.4g}")
        console.print(t)
        _left_out(console, len(names))
    elif rep.level_summary:
        t = Table("level", f"mean {g_name}", f"mean {q_name}", header_style="bold", title="per-coordinate solve, by level")
        for k in both_ends(len(rep.level_summary), TABLE_END_ROWS):
            if k is None:
                t.add_row("...", "", "")
            else:
                name, g, q = rep.level_summary[k]
                t.add_row(Text(printable(name)), _g(g), f"{q:.4g}")
        console.print(t)
        _left_out(console, len(rep.level_summary))
    if rep.candidates:
        t = Table(
            "candidate",
            "<q, alpha - tau>",
            "Lambda(q)",
            "in Q+",
            "in clip box",
            "eps_max",
            "bootstrap sign",
            header_style="bold",
        )
        for c in rep.candidates:
            t.add_row(
                Text(printable(c.name)),
                f"{c.certificate:+.4g}",
                f"{c.gain_value:.4f}" if math.isfinite(c.gain_value) else f"e^{c.log_gain_value:.6g}",
                "yes" if c.in_admissible_cone else "no",
                "yes" if c.in_clip_box else "no",
                "-" if c.epsilon_max is None else "inf" if math.isinf(c.epsilon_max) else f"{c.epsilon_max:.4g}",
                "-" if c.bootstrap_sign_fraction is None else f"{c.bootstrap_sign_fraction:.0%}",
            )
        console.print(t)
        for c in rep.candidates:
            if c.warning:
                console.print(Text.assemble(("warning", "bold yellow"), f" {printable(c.name)}: {printable(c.warning)}"))
    for note in rep.notes:
        console.print(Text(f"note: {printable(note)}"))


def report_json(rep: GradeReport) -> dict:
    """The report as JSON. ``bound`` is max{BC^2, C^-2} in the modes with a clip box (clipped,
    regularized_clipped: Prop 10 iii) and null in the others, where it bounds nothing. The keys
    ``lambda_star_c``, ``g_star_c`` and ``q_star_c`` hold the solve of the selected mode (Lambda*,
    the Cor 4 minimiser, ...), as ``selection.mode`` says."""
    p, opt = rep.profiles, rep.optimum
    return to_jsonable(
        {
            "schema": "attncert.grades-report/1",
            "source": p.source,
            "task": p.task,
            "granularity": p.granularity,
            "selection": p.selection,
            # which second moments the data profile holds (gllm.md E8: the tool records it; null when not given)
            "data_centered": p.centered,
            "bc": rep.bc,
            "lambda_star": rep.bc**2,
            "lambda_star_c": opt.value,
            "log_lambda_star_c": opt.log_value,
            "attained": opt.attained,
            "token_gain": opt.gain,
            "bound": rep.bound,
            "g_star_c": opt.g.tolist(),
            "q_star_c": rep.q.tolist(),
            "active_sets": {"lo": opt.lo.tolist(), "hi": opt.hi.tolist()},
            "unique": opt.unique,
            "kkt": rep.kkt,
            "cross_checks": rep.cross_checks,
            "level_summary": rep.level_summary,
            "level_aggregate_bc": rep.level_aggregate_bc,
            "candidates": rep.candidates,
            "notes": rep.notes,
        }
    )
