"""Printed tables regenerated under stated rounding rules, and the arithmetic errata
(psa.md §3.1-§3.6 and §5)."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import curve_fit

from attncert.certificates.engine.evidence import all_exact, printed, within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Scope, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.certificates.psa.tables import erratum
from attncert.theory import psa as th

R = sp.Rational


@certificate(
    "psa.table11_overhead_values",
    claim=claim(
        "Table 11",
        "overhead 6/(24d + 4T): 1.8e-4, 9.2e-5, 5.2e-5, 2.6e-5 for (d, T) = (1024, 2048), "
        "(2048, 4096), (4096, 4096), (4096, 32768)",
        Provenance.VERBATIM,
        "Table 11",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"overhead": th.overhead_fraction},
    mutant=Mutant("attention cost 2Td instead of 4Td", {"overhead": lambda dd, TT: 6 * dd / (24 * dd**2 + 2 * TT * dd)}),
    tags=("table11", "printed"),
)
def table11(ctx: Context, *, overhead) -> Evidence:
    rows = ((1024, 2048, "1.8e-4"), (2048, 4096, "9.2e-5"), (4096, 4096, "5.2e-5"), (4096, 32768, "2.6e-5"))
    return printed([(f"d={dd}, T={TT}", overhead(sp.Integer(dd), sp.Integer(TT)), s) for dd, TT, s in rows], what="Table 11")


@certificate(
    "psa.table13_overhead_below_1e-4_in_practice",
    claim=claim(
        "Table 13 (erratum 12)",
        "the per-token overhead is < 1e-4 in practice; Table 11's small on-device row is 1.8e-4",
        Provenance.VERBATIM,
        "Table 13",
        "erratum 12",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.REFUTED,
    params={"threshold": R(1, 10_000)},
    mutant=Mutant("threshold 1e-3", {"threshold": R(1, 1000)}),
    tags=("table13", "erratum"),
)
def table13_threshold(ctx: Context, *, threshold) -> Evidence:
    rows = ((1024, 2048), (2048, 4096), (4096, 4096), (4096, 32768))
    values = {f"d={dd}, T={TT}": th.overhead_fraction(sp.Integer(dd), sp.Integer(TT)) for dd, TT in rows}
    paper = all_exact(
        [(f"{k}: {sp.N(v, 4)} < {threshold}", sp.Lt(v, threshold)) for k, v in values.items()],
        proved=f"every Table 11 configuration is below {threshold}",
        scope=Scope.STATED_RANGE,
        assumptions=("the four configurations of Table 11",),
        details={k: sp.sstr(v) for k, v in values.items()},
    )
    small = values["d=1024, T=2048"]
    correction = all_exact(
        [
            ("the small on-device row exceeds 1e-4", sp.Gt(small, R(1, 10_000))),
            *((f"{k} < 2e-4", sp.Lt(v, R(2, 10_000))) for k, v in values.items()),
        ],
        proved="every configuration is below 2e-4; only the small on-device one (1.83e-4) is above 1e-4",
        scope=Scope.STATED_RANGE,
    )
    return erratum(paper, correction, corrected="< 2e-4 on every Table 11 row; > 1e-4 on the small on-device row")


@certificate(
    "psa.table12_int8_rows",
    claim=claim(
        "Table 12; Prop 77",
        "range factor 1 + 2 gamma, extra bits log2(1 + 2 gamma) (0.14, 0.26, 0.49, 0.85) and levels retained "
        "256/(1 + 2 gamma) rounded to nearest (233, 213, 183, 142) for gamma = 0.05, 0.1, 0.2, 0.4",
        Provenance.VERBATIM,
        "Table 12",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"levels_rule": "nearest"},
    mutant=Mutant("levels rounded down (floor)", {"levels_rule": "floor"}),
    tags=("table12", "printed"),
)
def table12(ctx: Context, *, levels_rule) -> Evidence:
    rows = []
    for gam, bits, levels in (
        ("0.05", "0.14", "233"),
        ("0.10", "0.26", "213"),
        ("0.20", "0.49", "183"),
        ("0.40", "0.85", "142"),
    ):
        gg = sp.Rational(gam)
        raw = th.int8_levels_retained(gg)
        rows.append((f"gamma={gam} bits", th.int8_extra_bits(gg), bits))
        rows.append((f"gamma={gam} levels", sp.floor(raw) if levels_rule == "floor" else raw, levels))
    return printed(rows, what=f"Table 12 (levels rule: {levels_rule})")


@certificate(
    "psa.nyquist_theory_column",
    claim=claim(
        "Tables 36, 42, 44 (theory Nyq)",
        "theory Nyquist gain (1 + 2 gamma)^2: 3.24, 4.84, 6.76, 9.00, 11.56, 21.16, 33.64 "
        "at gamma = 0.4, 0.6, 0.8, 1.0, 1.2, 1.8, 2.4",
        Provenance.VERBATIM,
        "Prop 13",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"gain": th.nyquist_gain},
    mutant=Mutant("the Fig. 58 Nyquist gain (1 - 2 gamma)^2", {"gain": lambda gg: (1 - 2 * gg) ** 2}),
    tags=("prop13", "printed"),
)
def nyquist_column(ctx: Context, *, gain) -> Evidence:
    rows = (
        ("0.4", "3.24"),
        ("0.6", "4.84"),
        ("0.8", "6.76"),
        ("1.0", "9.00"),
        ("1.2", "11.56"),
        ("1.8", "21.16"),
        ("2.4", "33.64"),
    )
    return printed([(f"gamma={gm}", gain(sp.Rational(gm)), s) for gm, s in rows], what="theory Nyquist gains")


@certificate(
    "psa.table39_coriolis_theory_column",
    claim=claim(
        "Tables 39, 52 (theory |err|)",
        "bands theta_m = 10000^{-2m/16} = 10^{-m/2} and per-unit theory error 2 sin(theta/2): "
        "0.958851, 0.314912, 0.099958, 0.031621, 0.010000, 0.003162",
        Provenance.DERIVED,
        "Cor 41",
        "Table 39",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"magnitude": th.coriolis_band_error},
    mutant=Mutant("error 2 sin(theta)", {"magnitude": lambda a: 2 * sp.sin(a)}),
    tags=("cor41", "printed"),
)
def table39(ctx: Context, *, magnitude) -> Evidence:
    thetas = ("1.000000", "0.316228", "0.100000", "0.031623", "0.010000", "0.003162")
    theory = ("0.958851", "0.314912", "0.099958", "0.031621", "0.010000", "0.003162")
    rows = []
    for m, (shown_theta, shown_err) in enumerate(zip(thetas, theory, strict=True)):
        angle = th.rope_frequency(m, 16)
        rows.append((f"band {m} theta", angle, shown_theta))
        rows.append((f"band {m} theory", magnitude(angle), shown_err))
    return printed(rows, what="Table 39 theory column")


@certificate(
    "psa.table14_dominance_over_either_cross_term",
    claim=claim(
        "Table 14 (erratum 22)",
        "the position-position term dominates 'by approximately 65x over either cross term' "
        "(T1 = 0.0523, T2 = 0.0008, T3 = 0.0009)",
        Provenance.VERBATIM,
        "Table 14",
        "erratum 22",
    ),
    method=Method.TABLE,
    expected=Verdict.MISMATCH,
    params={"cross_terms": {"T2": "0.0008", "T3": "0.0009"}},
    mutant=Mutant("the claim restricted to T2", {"cross_terms": {"T2": "0.0008"}}),
    tags=("table14", "erratum"),
)
def table14(ctx: Context, *, cross_terms) -> Evidence:
    t1 = sp.Rational("0.0523")
    paper = printed([(f"T1/{name}", t1 / sp.Rational(v), "65") for name, v in cross_terms.items()], what="dominance ratio ~65x")
    correction = printed(
        [("T1/T2", t1 / sp.Rational("0.0008"), "65"), ("T1/T3", t1 / sp.Rational("0.0009"), "58")],
        what="65x over T2, 58x over T3",
    )
    return erratum(paper, correction, corrected="65x over T2 only; 58x over T3")


@certificate(
    "psa.table51_uses_population_sd",
    claim=claim(
        "Table 51 (erratum 21)",
        "mean +- std of five seeds: 69.1 +- 8.2 (PSA-1L), 1.6 +- 0.4 (Std-1L), 1.6 +- 0.3 (Std-2L); "
        "regenerated only with the population s.d. (ddof = 0)",
        Provenance.VERBATIM,
        "Table 51",
        "erratum 21",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"ddof": 0},
    mutant=Mutant("sample s.d. (ddof = 1)", {"ddof": 1}),
    tags=("table51", "erratum"),
)
def table51(ctx: Context, *, ddof) -> Evidence:
    columns = {
        "PSA-1L": (("74.4", "72.7", "58.7", "79.4", "60.2"), "69.1", "8.2"),
        "Std-1L": (("1.7", "1.8", "2.1", "1.0", "1.6"), "1.6", "0.4"),
        "Std-2L": (("1.1", "1.4", "2.0", "1.8", "1.7"), "1.6", "0.3"),
    }
    rows = []
    for name, (values, mean_shown, sd_shown) in columns.items():
        xs = [sp.Rational(v) for v in values]
        rows += [
            (f"{name} mean", th.sample_mean(xs), mean_shown),
            (f"{name} sd (ddof={ddof})", th.standard_deviation(xs, ddof), sd_shown),
        ]
    return printed(rows, what=f"Table 51 with ddof = {ddof}")


@certificate(
    "psa.table117_batch_size_patch_arithmetic",
    claim=claim(
        "Table 117 (erratum 15)",
        "batch 8 -> 64 'reduces gradient variance ~2.83x' and the learning rate 3e-4 -> 6e-4 follows 'sqrt(B_new/B_old) scaling'",
        Provenance.VERBATIM,
        "Table 117",
        "erratum 15",
    ),
    method=Method.TABLE,
    expected=Verdict.MISMATCH,
    params={"printed_variance": "2.83", "printed_lr": "6e-4"},
    mutant=Mutant("printed values corrected to 8 and 8.5e-4", {"printed_variance": "8", "printed_lr": "8.5e-4"}),
    tags=("table117", "erratum"),
)
def table117(ctx: Context, *, printed_variance, printed_lr) -> Evidence:
    ratio = sp.Rational(64, 8)
    lr = sp.Rational(3, 10_000) * sp.sqrt(ratio)
    paper = printed(
        [("variance reduction B_new/B_old", ratio, printed_variance), ("3e-4 * sqrt(B_new/B_old)", lr, printed_lr)],
        what="Table 117 (2.83 is the s.d. factor sqrt 8; sqrt scaling gives 8.5e-4)",
    )
    correction = printed(
        [("s.d. factor sqrt(B_new/B_old)", sp.sqrt(ratio), "2.83"), ("sqrt-scaled learning rate", lr, "8.5e-4")],
        what="the s.d. factor is 2.83; the sqrt rule gives 8.5e-4",
    )
    return erratum(paper, correction, corrected="2.83 is the s.d. factor (variance 8x); sqrt scaling gives 8.5e-4")


def _power_law(n, gamma0, alpha):
    return gamma0 / n**alpha


def power_law_fit(points: tuple[tuple[float, float], ...]) -> dict[str, float]:
    n, y = (np.array(v, dtype=float) for v in zip(*points, strict=True))
    (g0, alpha), cov = curve_fit(_power_law, n, y, p0=(4.0, 0.7))
    resid = y - _power_law(n, g0, alpha)
    r2 = 1 - float(resid @ resid) / float(((y - y.mean()) ** 2).sum())
    se = np.sqrt(np.diag(cov))
    return {"gamma0": g0, "gamma0_se": se[0], "alpha": alpha, "alpha_se": se[1], "r2": r2}


E17_POINTS = ((1, 4.0), (2, 3.0), (4, 1.25), (8, 0.75))
E18_POINTS = ((1, 2.00), (2, 2.75), (3, 2.00), (4, 3.00), (6, 2.50), (8, 2.50))


@certificate(
    "psa.table27_e17_fit_reproduced",
    claim=claim(
        "Table 27 (E17)",
        "curve_fit of gamma0/N^alpha on (1, 4), (2, 3), (4, 1.25), (8, 0.75): "
        "gamma0 = 4.17 +- 0.41, alpha = 0.73 +- 0.15, R^2 = 0.947",
        Provenance.VERBATIM,
        "Table 27",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"points": E17_POINTS},
    mutant=Mutant("N = 8 optimum 1.0 instead of 0.75", {"points": (*E17_POINTS[:3], (8, 1.0))}),
    tags=("table27", "printed"),
)
def e17_fit(ctx: Context, *, points) -> Evidence:
    fit = power_law_fit(points)
    return printed(
        [
            ("gamma0", fit["gamma0"], "4.17"),
            ("gamma0 s.e.", fit["gamma0_se"], "0.41"),
            ("alpha", fit["alpha"], "0.73"),
            ("alpha s.e.", fit["alpha_se"], "0.15"),
            ("R^2", fit["r2"], "0.947"),
        ],
        what="E17 scaling-law fit (scipy curve_fit, unweighted)",
    )


@certificate(
    "psa.table27_e18_fit_is_least_squares",
    claim=claim(
        "Table 27 (E18, erratum 14)",
        "gamma0 = 2.73, alpha = 0.10 is the least-squares fit of gamma0/N^alpha to Table 26's observed gamma* "
        "(2.00, 2.75, 2.00, 3.00, 2.50, 2.50 at N = 1, 2, 3, 4, 6, 8)",
        Provenance.VERBATIM,
        "Table 27",
        "erratum 14",
    ),
    method=Method.NUMERIC,
    expected=Verdict.REFUTED,
    params={"claimed": (2.73, 0.10)},
    mutant=Mutant("claimed parameters (2.22, -0.084), the actual optimum", {"claimed": (2.22, -0.084)}),
    tags=("table27", "erratum"),
)
def e18_fit(ctx: Context, *, claimed) -> Evidence:
    n, y = (np.array(v, dtype=float) for v in zip(*E18_POINTS, strict=True))

    def sse(params):
        r = y - _power_law(n, *params)
        return float(r @ r)

    fit = power_law_fit(E18_POINTS)
    best = sse((fit["gamma0"], fit["alpha"]))
    r2_claimed = 1 - sse(claimed) / float(((y - y.mean()) ** 2).sum())
    # the claimed parameters are "the fit" if their SSE is within 1% of the optimum's
    paper = within(
        sse(claimed) / best - 1,
        tolerance=0.01,
        what=f"SSE excess of the printed (gamma0, alpha) over the LS optimum ({fit['gamma0']:.3f}, {fit['alpha']:.3f})",
        measured={"sse_claimed": sse(claimed), "r2_claimed": r2_claimed},
        reference={"sse_optimum": best, **{k: float(v) for k, v in fit.items()}},
    )
    correction = printed(
        [
            ("R^2 at the printed (2.73, 0.10)", 1 - sse((2.73, 0.10)) / float(((y - y.mean()) ** 2).sum()), "-0.607"),
            ("LS optimum gamma0", fit["gamma0"], "2.22"),
            ("LS optimum alpha", fit["alpha"], "-0.084"),
            ("LS optimum R^2", fit["r2"], "0.155"),
        ],
        what="the printed R^2 is that of (2.73, 0.10); the optimum is (2.22, -0.084), R^2 0.155 (psa.md §3.6)",
    )
    return erratum(paper, correction, corrected="LS optimum (2.22, -0.084); the printed R^2 -0.607 evaluates (2.73, 0.10)")


@certificate(
    "psa.table37_frac_ac_column",
    claim=claim(
        "Table 37 (erratum 13)",
        "frac AC = E_AC/(E_DC + E_AC): printed 0.7194, 0.8417, 0.8827, 0.9086, 0.9405, 0.9637",
        Provenance.VERBATIM,
        "Table 37",
        "erratum 13",
    ),
    method=Method.TABLE,
    expected=Verdict.MISMATCH,
    params={"printed_column": ("0.7194", "0.8417", "0.8827", "0.9086", "0.9405", "0.9637")},
    mutant=Mutant(
        "the column recomputed from the energies",
        {"printed_column": ("0.7106", "0.8401", "0.8794", "0.9046", "0.9366", "0.9636")},
    ),
    tags=("table37", "erratum"),
)
def table37(ctx: Context, *, printed_column) -> Evidence:
    energies = (
        ("3.5955", "8.8273"),
        ("8.9203", "46.8653"),
        ("8.3484", "60.8577"),
        ("6.1622", "58.4498"),
        ("4.3498", "64.2329"),
        ("4.3834", "116.1734"),
    )
    gammas = ("0.0", "0.6", "1.2", "1.8", "2.4", "3.0")
    fracs = [sp.Rational(ac) / (sp.Rational(dc) + sp.Rational(ac)) for dc, ac in energies]
    paper = printed(list(zip((f"gamma={g}" for g in gammas), fracs, printed_column, strict=True)), what="Table 37 frac AC")
    # psa.md §3.6 reference values of E_AC/(E_DC + E_AC); the printed column is not recoverable from the energies
    reference = ("0.7106", "0.8401", "0.8794", "0.9046", "0.9366", "0.9636")
    correction = printed(list(zip((f"gamma={g}" for g in gammas), fracs, reference, strict=True)), what="E_AC/(E_DC + E_AC)")
    return erratum(paper, correction, corrected="E_AC/(E_DC + E_AC) = 0.7106 ... 0.9636 (psa.md §3.6)")


@certificate(
    "psa.printed_ratios_and_caps",
    claim=claim(
        "Cor 68; Table 7; Table 20; Fig. 84; Table 26",
        "query-only cap 1/(T-2) = 0.077 and chance 1/(T-1) = 0.0714 at T = 15; Table 20 ratio 0.275/0.225 = 1.22x "
        "and implied r 0.818; depth law 4.17/N^0.73 = 4.17, 2.51, 1.87, 1.52, 1.13, 0.91 "
        "(N = 1, 2, 3, 4, 6, 8) and 0.680 at N = 12",
        Provenance.VERBATIM,
        "Cor 68",
        "Table 20",
        "Table 26",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"depth_exponent": R(73, 100), "T": 15},
    mutant=Mutant("depth exponent 0.37 and T = 14 pairs read as T", {"depth_exponent": R(37, 100), "T": 14}),
    tags=("printed",),
)
def ratios_and_caps(ctx: Context, *, depth_exponent, T) -> Evidence:
    rows = [
        ("cap 1/(T-2)", th.query_only_cap(T), "0.077"),
        ("chance 1/(T-1)", th.chance_level(T), "0.0714"),
        ("Table 20 ratio", R(275, 225), "1.22"),
        ("Table 20 implied r", R(225, 275), "0.818"),
    ]
    for n, shown in ((1, "4.17"), (2, "2.51"), (3, "1.87"), (4, "1.52"), (6, "1.13"), (8, "0.91"), (12, "0.680")):
        rows.append((f"gamma*(N={n})", R(417, 100) / sp.Integer(n) ** depth_exponent, shown))
    return printed(rows, what="printed ratios, caps and depth-law values")


@certificate(
    "psa.fig7c_spearman_p_value",
    claim=claim(
        "Fig. 7(c)",
        "Spearman rho = 0.27 at n = 9 has p = 0.49 (t approximation)",
        Provenance.VERBATIM,
        "Fig. 7",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"n": 9},
    mutant=Mutant("n = 18 (all grid points)", {"n": 18}),
    tags=("fig7", "printed"),
)
def spearman_p(ctx: Context, *, n) -> Evidence:
    # rho = 0.27 printed to 2 decimals; at n = 9 ranks give rho = 1 - 6 D / 720, 0.2667 at D = 88
    rho = th.spearman_rho(88, 9)
    p = th.pearson_p_value(rho, n)  # the t approximation, n - 2 degrees of freedom
    return printed([("rho", rho, "0.27"), ("two-sided p", p, "0.49")], what="Spearman test of Fig. 7(c)")


@certificate(
    "psa.t3_restored_crossing_needs_dk_threshold",
    claim=claim(
        "Sec. 10 'restoring T3 removes the crossover' (erratum 4)",
        "read as the annealed algebra of the T3+T4 law: a crossing exists for every d_k (no threshold)",
        Provenance.RECONSTRUCTED,
        "T3-restored law",
        "erratum 4",
    ),
    method=Method.NUMERIC,
    expected=Verdict.REFUTED,
    params={"dk": 16},
    mutant=Mutant("checked only at d_k = 64", {"dk": 64}),
    tags=("thm64", "erratum"),
)
def t3_threshold(ctx: Context, *, dk) -> Evidence:
    L511 = th.competitor_log_count(512)
    ell = sp.Symbol("ell")
    poly = th.t3_restored_crossing(sp.Integer(dk), ell, th.gamma).subs(ell, sp.N(L511, 40))
    root = th.smallest_positive_root(th.t3_restored_crossing(sp.Integer(dk), L511, th.gamma))
    grid = np.linspace(1e-3, 3.0, 3_001)
    f = sp.lambdify(th.gamma, poly, "numpy")(grid)
    paper = within(
        0.0 if root is not None else float(-f.max()),
        tolerance=0.0,
        what=f"no positive root at d_k = {dk}: max over gamma of a_34 - Lambda_34",
        fail=Verdict.REFUTED,
        measured={"smallest_root": None if root is None else float(root), "max_advantage": float(f.max())},
        details={"note": "a real root exists only for d_k >= 31.49 at L = ln 511 (psa.md §1.9)"},
    )
    roots = {n: th.smallest_positive_root(th.t3_restored_crossing(sp.Integer(n), L511, th.gamma)) for n in (31, 32)}
    correction = within(
        0.0 if roots[31] is None and roots[32] is not None else 1.0,
        tolerance=0.0,
        what="the crossing appears between d_k = 31 and 32 (threshold 31.49)",
        measured={n: None if r is None else float(r) for n, r in roots.items()},
    )
    return erratum(paper, correction, corrected="a crossing exists only for d_k >= 31.49 (about 0.63 * 8L) at L = ln 511")
