"""Tables, files and figures of `attncert phase` (PSA Fig. 7 / Fig. 8)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from attncert.certificates.frontends.common import to_jsonable
from attncert.solvers.phase import C_HAT_REFERENCE, PAPER_STATISTICS, PROTOCOLS, Protocol, Statistics, Sweep, branch
from attncert.solvers.score_model import ScoreModel
from attncert.solvers.score_quadrature import plateau_quadrature


def _fmt(x: float) -> str:
    """Shortest round-trip repr, so the same numbers always give the same bytes."""
    return "nan" if isinstance(x, float) and math.isnan(x) else repr(float(x))


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[_fmt(v) if isinstance(v, float) else v for v in row] for row in rows])
    return buf.getvalue()


def plateaus(sweep: Sweep, model: ScoreModel) -> dict[tuple[int, int], float]:
    """p_inf (Eq. 51) per point; defined for the T4 model only (argmax is gamma-invariant there)."""
    if model.variant != "t4":
        return {}
    p = sweep.protocol
    return {(d, T): plateau_quadrature(d, T, model.sigma_t) for d in p.d_ks for T in p.Ts}


def condensation_constant(stats: Statistics, given: float | None) -> tuple[float, str]:
    """The c of the condensed-branch predictions and a sentence saying where it comes from: --c, else
    c-hat over the condensed points that have a gamma_c, else (none has) the psa.md reference value."""
    if given is not None:
        return given, "given with --c"
    condensed = sum(pt.branch == "condensed" for pt in stats.points)
    if stats.c_hat_points:
        missing = condensed - stats.c_hat_points
        why = f"; {missing} without a gamma_c left out" if missing else ""
        return stats.c_hat, f"c-hat, the mean over {stats.c_hat_points} of {condensed} condensed points{why}"
    why = "this grid has no condensed point" if not condensed else "no condensed point has a gamma_c"
    return C_HAT_REFERENCE, (
        f"the psa.md reference c-hat of the fig7 grid at sigma_t = 2, since c-hat is undefined here ({why}); "
        "give --c to choose another"
    )


def points_csv(stats: Statistics, c: float, pinf: dict[tuple[int, int], float]) -> str:
    rows = [
        [
            pt.d_k,
            pt.T,
            pt.branch,
            pt.gamma_c_mean,
            pt.gamma_c_sd,
            pt.mean_field,
            c * pt.freezing,
            pt.rel_error,
            pt.proximity,
            pinf.get((pt.d_k, pt.T), math.nan),
        ]
        for pt in stats.points
    ]
    header = [
        "d_k",
        "T",
        "branch",
        "gamma_c_mean",
        "gamma_c_sd",
        "mean_field",
        "condensed_prediction",
        "rel_error",
        "proximity_8L_over_dk",
        "p_inf_quadrature",
    ]
    return _csv(header, rows)


def seeds_csv(sweep: Sweep) -> str:
    p = sweep.protocol
    seeds = sweep.meta.get("seeds", [None])
    rows = [
        [p.d_ks[i], p.Ts[j], k, seeds[k] if k < len(seeds) else "", float(sweep.gamma_c[k, i, j])]
        for k in range(sweep.gamma_c.shape[0])
        for i in range(len(p.d_ks))
        for j in range(len(p.Ts))
    ]
    return _csv(["d_k", "T", "replicate", "seed", "gamma_c"], rows)


def curves_csv(sweep: Sweep) -> str:
    p = sweep.protocol
    rows = [
        [p.d_ks[i], p.Ts[j], k, float(p.gammas[g]), float(sweep.curves[k, i, j, g])]
        for k in range(sweep.curves.shape[0])
        for i in range(len(p.d_ks))
        for j in range(len(p.Ts))
        for g in range(len(p.gammas))
    ]
    return _csv(["d_k", "T", "replicate", "gamma", "A"], rows)


def paper_comparable(protocol: Protocol, model: ScoreModel) -> bool:
    """Whether the paper's printed statistics describe this run: a named protocol on its own (d_k, T,
    gamma) grid with the paper's model (sigma_t = 2, variant t4). --sigma-t 3 on fig7 once printed the
    paper's r = 0.9876 beside its own 0.977, as if the paper had measured that model."""
    base = PROTOCOLS.get(protocol.name)
    same_grid = base is not None and (protocol.d_ks, protocol.Ts, protocol.gammas) == (base.d_ks, base.Ts, base.gammas)
    return same_grid and model == ScoreModel()


def statistics_rows(stats: Statistics, protocol: str, comparable: bool = True) -> list[tuple[str, float, float | None]]:
    """(name, measured, the paper's printed value or None) for the statistics of Fig. 7 / Fig. 8.

    The paper prints the mean-field statistics for the fig7 grid and the on-branch (condensed)
    statistics for the T axis; other protocols, and runs that are not ``paper_comparable``, have no
    printed counterpart."""
    paper = PAPER_STATISTICS
    fig7, taxis = comparable and protocol == "fig7", comparable and protocol == "taxis"
    return [
        ("mean-field Pearson r", stats.mf_pearson_r, paper["mean_field_pearson_r"] if fig7 else None),
        (
            "mean-field median relative error",
            stats.mf_median_rel_error,
            paper["mean_field_median_rel_error"] if fig7 else None,
        ),
        ("Spearman rho (rel. error vs 8L/d_k)", stats.spearman_rho, paper["spearman_rho"] if fig7 else None),
        ("Spearman p", stats.spearman_p, paper["spearman_p"] if fig7 else None),
        ("condensation constant c-hat", stats.c_hat, None),
        ("c-hat s.d./mean", stats.c_hat_spread, None),
        ("condensed-branch Pearson r", stats.condensed_pearson_r, paper["taxis_pearson_r"] if taxis else None),
        (
            "condensed-branch median relative error",
            stats.condensed_median_rel_error,
            paper["taxis_median_rel_error"] if taxis else None,
        ),
    ]


def markdown(sweep: Sweep, stats: Statistics, c: float, c_source: str, pinf: dict, model: ScoreModel) -> str:
    p = sweep.protocol
    lines = [
        f"# Phase transitions: protocol {p.name}, engine {sweep.engine}",
        "",
        f"sigma_t = {model.sigma_t}, variant {model.variant}, {p.seeds if sweep.engine == 'mc' else 1} replicate(s)"
        f"{f' x {p.trials} trials' if sweep.engine == 'mc' else ''}, {len(p.gammas)} gamma values on "
        f"[{p.gammas[0]}, {p.gammas[-1]}]; condensed predictions use c = {c:.4f} ({c_source})",
        "",
        "| T | d_k | branch | gamma_c (mean +- s.d.) | mean-field | condensed c (2L)^(1/4)/sqrt2 | rel. error | p_inf |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for pt in sorted(stats.points, key=lambda q: (q.T, q.d_k)):
        lines.append(
            f"| {pt.T} | {pt.d_k} | {pt.branch} | {pt.gamma_c_mean:.4f} +- {pt.gamma_c_sd:.4f} | "
            f"{'-' if math.isnan(pt.mean_field) else f'{pt.mean_field:.4f}'} | {c * pt.freezing:.4f} | "
            f"{pt.rel_error:.2%} | {pinf.get((pt.d_k, pt.T), math.nan):.3f} |"
        )
    lines += ["", "| statistic | attncert | paper |", "|---|---|---|"]
    for name, value, paper in statistics_rows(stats, p.name, paper_comparable(p, model)):
        lines.append(f"| {name} | {value:.4f} | {'-' if paper is None else paper} |")
    return "\n".join(lines) + "\n"


def summary_json(
    sweep: Sweep, stats: Statistics, c: float, c_source: str, model: ScoreModel, seed: int | None, backend: str | None
) -> str:
    """The run as JSON. Only what the run used is recorded: the quad engine is deterministic and has one
    replicate, so its seeds, trials, seed and backend are null."""
    p = sweep.protocol
    mc = sweep.engine == "mc"
    data = {
        "schema": "attncert.phase-summary/1",
        "protocol": {
            "name": p.name,
            "d_ks": p.d_ks,
            "Ts": p.Ts,
            "gammas": p.gammas,
            "seeds": p.seeds if mc else None,
            "trials": p.trials if mc else None,
        },
        "model": {"sigma_t": model.sigma_t, "variant": model.variant},
        "engine": sweep.engine,
        "seed": seed if mc else None,
        "backend": backend if mc else None,
        "condensation_constant_used": c,
        "condensation_constant_source": c_source,
        "c_hat_points": stats.c_hat_points,
        "condensed_points": sum(pt.branch == "condensed" for pt in stats.points),
        "quadrature_error_estimate_max": None if sweep.error_estimate is None else float(np.nanmax(sweep.error_estimate)),
        "statistics": {
            name: {"attncert": value, "paper": paper}
            for name, value, paper in statistics_rows(stats, p.name, paper_comparable(p, model))
        },
        "points": [asdict(pt) for pt in stats.points],
    }
    return json.dumps(to_jsonable(data), indent=2) + "\n"


OUTPUT_NAMES = ("points.csv", "gamma_c_per_replicate.csv", "curves.csv", "summary.md", "summary.json")
#: why --plot draws nothing for a grid that fits neither figure
NO_FIGURE = "--plot wrote no figure: Fig. 7 needs two or more --d-k values, Fig. 8 one --d-k value and two or more --T values"


# --- figures -------------------------------------------------------------------------------------
def figure_names(d_ks: Sequence[int], Ts: Sequence[int]) -> tuple[str, ...]:
    """The PNG files ``figures`` writes for a grid: known before the sweep (the branch of a point
    depends on (d_k, T) only), so that a folder in the way is found before any work. The crossover
    8 ln(T - 1) grows with T: the grid has a mean-field point if its largest d_k is on that branch
    at its smallest T, and a condensed one if its smallest d_k is condensed at its largest T."""
    names: list[str] = []
    if len(d_ks) > 1:
        names.append("fig7a_gamma_c_vs_dk.png")
        if branch(max(d_ks), min(Ts)) == "mean-field":
            names += ["fig7b_predicted_vs_measured.png", "fig7c_error_vs_proximity.png"]
    if len(Ts) > 1 and len(d_ks) == 1:
        names.append("fig8a_gamma_c_vs_T.png")
        if branch(min(d_ks), max(Ts)) == "condensed":
            names.append("fig8c_condensed_predicted_vs_measured.png")
    return tuple(names)


def figures(out: Path, sweep: Sweep, stats: Statistics, c: float) -> list[Path]:
    """Fig. 7 (a)-(c) for grids over d_k, Fig. 8 (a), (c) for the T axis at one d_k: the files of
    ``figure_names``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attncert.solvers.phase import freezing_point, log_competitors, mean_field_gamma_c

    p = sweep.protocol
    names = figure_names(p.d_ks, p.Ts)
    mc = sweep.engine == "mc"
    written: list[Path] = []

    def save(fig, name: str) -> None:
        path = out / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    def predicted_vs_measured(points, predict, title, name):
        fig, ax = plt.subplots(figsize=(4.6, 4.2))
        pred = [predict(pt) for pt in points]
        meas = [pt.gamma_c_mean for pt in points]
        lo, hi = 0.9 * min(pred + meas), 1.1 * max(pred + meas)
        xs = [lo, hi]
        ax.plot(xs, xs, "k-", lw=1)
        for band, style in ((0.05, "--"), (0.10, ":")):
            ax.plot(xs, [x * (1 + band) for x in xs], "k" + style, lw=0.8)
            ax.plot(xs, [x * (1 - band) for x in xs], "k" + style, lw=0.8, label=f"+-{band:.0%}")
        ax.scatter(pred, meas, c="C0", zorder=3)
        ax.set(xlabel="predicted gamma_c", ylabel="measured gamma_c", title=title)
        ax.legend(loc="upper left", fontsize=8)
        save(fig, name)

    if "fig7a_gamma_c_vs_dk.png" in names:
        # one dictionary lookup per point: a search of the point list per point was quadratic in the grid
        by_point = {(pt.d_k, pt.T): pt for pt in stats.points}
        fig, ax = plt.subplots(figsize=(5.6, 4.2))
        for j, T in enumerate(p.Ts):
            column = [by_point[d, T] for d in p.d_ks]
            ax.errorbar(
                p.d_ks,
                [pt.gamma_c_mean for pt in column],
                yerr=[8 * pt.gamma_c_sd for pt in column],
                fmt="o",
                color=f"C{j}",
                label=f"T = {T} ({'MC, 8x s.d.' if mc else 'quadrature'})",
            )
            crossover = 8 * log_competitors(T)
            dense = [d for d in _logspace(min(p.d_ks), max(p.d_ks)) if d >= crossover]
            ax.plot(dense, [mean_field_gamma_c(d, T) for d in dense], "-", color=f"C{j}")
            cond = [d for d in _logspace(min(p.d_ks), max(p.d_ks)) if d < crossover]
            ax.plot(cond, [c * freezing_point(T)] * len(cond), "--", color=f"C{j}")
            ax.axvline(crossover, color=f"C{j}", alpha=0.2)
        ax.set(xscale="log", yscale="log", xlabel="d_k", ylabel="gamma_c", title="(a) gamma_c against d_k")
        ax.legend(fontsize=8)
        save(fig, "fig7a_gamma_c_vs_dk.png")
        mf = [pt for pt in stats.points if pt.branch == "mean-field"]
        if "fig7b_predicted_vs_measured.png" in names:
            predicted_vs_measured(
                mf,
                lambda pt: pt.mean_field,
                f"(b) mean-field, r = {stats.mf_pearson_r:.4f}",
                "fig7b_predicted_vs_measured.png",
            )
            fig, ax = plt.subplots(figsize=(4.6, 4.2))
            ax.scatter([pt.proximity for pt in mf], [pt.rel_error for pt in mf])
            ax.set(
                xlabel="proximity 8L/d_k",
                ylabel="relative error",
                title=f"(c) Spearman rho = {stats.spearman_rho:.2f} (p = {stats.spearman_p:.2f})",
            )
            save(fig, "fig7c_error_vs_proximity.png")
    if "fig8a_gamma_c_vs_T.png" in names:
        d = p.d_ks[0]
        fig, ax = plt.subplots(figsize=(5.6, 4.2))
        pts = sorted(stats.points, key=lambda q: q.T)
        ax.errorbar(
            [q.T for q in pts],
            [q.gamma_c_mean for q in pts],
            yerr=[8 * q.gamma_c_sd for q in pts],
            fmt="o",
            label="MC (8x s.d.)" if mc else "quadrature",
        )
        ax.plot([q.T for q in pts], [c * q.freezing for q in pts], "--", label="condensed branch")
        mf_pts = [q for q in pts if q.branch == "mean-field"]
        ax.plot([q.T for q in mf_pts], [mean_field_gamma_c(d, q.T) for q in mf_pts], "s", label="mean-field law")
        ax.set(xlabel="T", ylabel="gamma_c", title=f"(a) gamma_c against T at d_k = {d}")
        ax.legend(fontsize=8)
        save(fig, "fig8a_gamma_c_vs_T.png")
        cond = [q for q in pts if q.branch == "condensed"]
        if "fig8c_condensed_predicted_vs_measured.png" in names:
            predicted_vs_measured(
                cond,
                lambda q: c * q.freezing,
                f"(c) condensed branch, r = {stats.condensed_pearson_r:.4f}",
                "fig8c_condensed_predicted_vs_measured.png",
            )
    return written


def _logspace(lo: float, hi: float, n: int = 200) -> list[float]:
    return [lo * (hi / lo) ** (k / (n - 1)) for k in range(n)]
