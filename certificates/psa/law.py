"""Thm 64, the two-branch gamma_c law of the score model G(d_k, T; gamma): C1-C3 and the
printed values of the law (psa.md §1.7-§1.11, §2.1, §3.4-§3.5)."""

from __future__ import annotations

import functools

import sympy as sp

from attncert.certificates.engine.crosscheck import random_instances
from attncert.certificates.engine.evidence import all_exact, printed, within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Scope, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.theory import psa as th

d, L, g, u = th.d_k, th.L, th.gamma, th.u
_zeta = sp.Symbol("zeta", real=True)
_t = sp.Symbol("t", real=True)


@functools.cache
def _gaussian_mgf() -> tuple[sp.Expr, tuple[tuple[str, sp.Basic], ...]]:
    """E e^{tZ} = e^{t^2/2} for Z ~ N(0, 1), t real, with the exact facts that prove it: completing the
    square, e^{tz - z^2/2} = e^{t^2/2} e^{-(z - t)^2/2}, and the Gaussian integral (by SymPy), which the
    shift z -> z - t leaves unchanged."""
    w = sp.Symbol("w", real=True)
    facts = (
        (
            "completing the square: t z - z^2/2 = t^2/2 - (z - t)^2/2",
            sp.expand(_t * _zeta - _zeta**2 / 2 - (_t**2 / 2 - (_zeta - _t) ** 2 / 2)),
        ),
        ("int e^{-w^2/2} dw = sqrt(2 pi)", sp.Eq(sp.integrate(sp.exp(-(w**2) / 2), (w, -sp.oo, sp.oo)), sp.sqrt(2 * sp.pi))),
    )
    return sp.exp(_t**2 / 2), facts


def _advantage(target_mean, exponent) -> sp.Expr:
    """a - Lambda as a function of u = gamma^2 (gamma > 0)."""
    root = sp.sqrt(u)
    return sp.expand(target_mean(d, root) - exponent(L, root))


@certificate(
    "psa.distractor_mgf_gives_annealed_exponent",
    claim=claim(
        "C1",
        "For a distractor s = 2 gamma^2 Z, E e^s = e^{2 gamma^4}, so Lambda = L + 2 gamma^4",
        Provenance.DERIVED,
        "C1",
        "Thm 64 (2)",
        latex=r"\Lambda(\gamma)=L+\ln\mathbb E e^{2\gamma^2 Z}=L+2\gamma^4",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"exponent": th.annealed_exponent, "scale": th.DISTRACTOR_SCALE},
    mutant=Mutant("annealed exponent L + gamma^4 (wrong constant)", {"exponent": lambda LL, gg: LL + gg**4}),
    tags=("C1", "thm64"),
)
def distractor_mgf(ctx: Context, *, exponent, scale) -> Evidence:
    closed_form, lemma = _gaussian_mgf()
    mgf = closed_form.subs(_t, scale * g**2)

    def errors(backend, draws):
        xp = backend.xp
        gammas = backend.asarray([0.3, 0.45, 0.6])
        # log of the sample mean of e^{s} against the claimed ln E e^s, per gamma
        s = float(scale) * gammas[:, None] ** 2 * draws[:1, :]
        log_mean = xp.log(xp.mean(xp.exp(s), axis=1))
        claimed = backend.asarray([float(exponent(0, sp.Float(x))) for x in (0.3, 0.45, 0.6)])
        return log_mean - claimed

    cc = random_instances(
        ctx,
        description="Monte Carlo ln mean e^{2 gamma^2 Z} at gamma = 0.3, 0.45, 0.6 (4e5 draws)",
        n=1,
        width=400_000,
        errors=errors,
        tolerance=5e-3,  # about 5 standard errors of the log-mean at gamma = 0.6
    )
    return all_exact(
        [*lemma, ("Lambda = L + ln E e^{2 gamma^2 Z}", sp.expand_log(L + sp.log(mgf), force=True) - exponent(L, g))],
        proved="E e^{tZ} = e^{t^2/2} (completing the square, Gaussian integral); Lambda = L + 2 gamma^4",
        scope=Scope.GENERAL,
        assumptions=("Z ~ N(0, 1); gamma, L symbolic; the Gaussian integral is invariant under the shift z -> z - t",),
        cross_check=cc,
    )


@certificate(
    "psa.annealed_bound_saturates_at_8L",
    claim=claim(
        "C2",
        "max_gamma (a - Lambda) = d_k/8 - L at gamma^2 = sqrt(d_k)/4, so the crossing exists iff d_k >= 8L",
        Provenance.DERIVED,
        "C2",
        "Thm 64 (4) crossover",
        latex=r"\max_\gamma(a-\Lambda)=d_k/8-L,\ d_k^*=8L",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"crossover": th.crossover_dk, "argmax": sp.sqrt(d) / 4, "maximum": d / 8 - L},
    mutant=Mutant("crossover d_k* = 7L", {"crossover": lambda LL: 7 * LL}),
    tags=("C2", "thm64"),
)
def annealed_bound_saturates(ctx: Context, *, crossover, argmax, maximum) -> Evidence:
    f = _advantage(th.target_mean, th.annealed_exponent)
    (u_star,) = sp.solve(sp.diff(f, u), u)
    (d_star,) = sp.solve(sp.Eq(f.subs(u, u_star), 0), d)
    return all_exact(
        [
            ("stationary point u* = claimed argmax", sp.Eq(u_star, argmax)),
            ("second derivative negative", sp.Lt(sp.diff(f, u, 2), 0)),
            ("f(u*) = claimed maximum", sp.Eq(f.subs(u, u_star), maximum)),
            ("f(u*) = 0 solves to d_k = crossover(L)", sp.Eq(d_star, crossover(L))),
        ],
        proved=f"u* = {u_star}, max = {sp.simplify(f.subs(u, u_star))}, d_k* = {d_star}",
        scope=Scope.GENERAL,
        assumptions=("u = gamma^2 >= 0; d_k, L > 0 symbolic",),
        details={"f(u)": sp.sstr(f), "d_star": sp.sstr(d_star)},
    )


@certificate(
    "psa.mean_field_gamma_c_is_smaller_annealed_root",
    claim=claim(
        "C3 (roots); Rem 65",
        "the roots of 2u^2 - sqrt(d_k) u + L are u_-+ = (sqrt(d_k) -+ sqrt(d_k - 8L))/4, "
        "u_- = 2L/(sqrt(d_k) + sqrt(d_k - 8L)) = gamma_c^2 and u_+ is the second root of Rem 65",
        Provenance.DERIVED,
        "C3 roots",
        "Thm 64 (3) root",
        "Rem 65",
        latex=r"\gamma_c^2=\frac{2L}{\sqrt{d_k}+\sqrt{d_k-8L}}",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"mean_field": th.gamma_c_squared_mean_field, "second": th.second_root_squared},
    mutant=Mutant(
        "gamma_c^2 = 2L/(sqrt(d_k) - sqrt(d_k - 8L)) (the other root)",
        {"mean_field": lambda dk, LL: 2 * LL / (sp.sqrt(dk) - sp.sqrt(dk - 8 * LL))},
    ),
    tags=("C3", "thm64"),
)
def mean_field_root(ctx: Context, *, mean_field, second) -> Evidence:
    f = _advantage(th.target_mean, th.annealed_exponent)
    # order the two roots by their value at a sample point of the mean-field region
    u_minus, u_plus = sorted(sp.solve(sp.Eq(f, 0), u), key=lambda r: float(r.subs({d: 100, L: 1})))

    root = sp.lambdify((d, L), mean_field(d, L), "math")
    advantage = sp.lambdify((d, L, g), th.target_mean(d, g) - th.annealed_exponent(L, g), "math")
    exponent = sp.lambdify((L, g), th.annealed_exponent(L, g), "math")
    factor = float(th.CROSSOVER_FACTOR)

    def errors(backend, draws):
        out = []
        for x0, x1 in backend.to_numpy(draws):
            LL = 1.0 + abs(float(x0))
            dk = factor * LL * (1.0 + abs(float(x1)))  # d_k > d_k* = CROSSOVER_FACTOR * L
            gc = root(dk, LL) ** 0.5
            out.append(advantage(dk, LL, gc) / exponent(LL, gc))  # relative residual of a = Lambda at the root
        return backend.asarray(out)

    cc = random_instances(
        ctx,
        description="relative residual of a(gamma_c) = Lambda(gamma_c) (theory functions) at 512 random d_k > d_k*",
        n=512,
        width=2,
        errors=errors,
        tolerance=1e-12,
    )
    return all_exact(
        [
            ("u_- = mean-field gamma_c^2", sp.radsimp(u_minus - mean_field(d, L))),
            ("u_+ = second root", sp.radsimp(u_plus - second(d, L))),
        ],
        proved=f"roots {sp.sstr(u_minus)}, {sp.sstr(u_plus)} rationalise to the closed forms",
        scope=Scope.GENERAL,
        assumptions=("d_k >= 8L (real roots); d_k, L > 0 symbolic",),
        cross_check=cc,
        details={"roots": [sp.sstr(u_minus), sp.sstr(u_plus)]},
    )


@certificate(
    "psa.mean_field_gamma_c_asymptote",
    claim=claim(
        "C3 (asymptote)",
        "gamma_c ~ (L^2/d_k)^{1/4} as d_k -> infinity; gamma_c^2 = (L/sqrt(d_k))(1 + x/4 + x^2/8 + ...), x = 8L/d_k",
        Provenance.VERBATIM,
        "C3 asymptote",
        "Thm 64 (3) asymptote",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"asymptote": th.mean_field_asymptote},
    mutant=Mutant("asymptote (L/d_k)^{1/4}", {"asymptote": lambda dk, LL: (LL / dk) ** sp.Rational(1, 4)}),
    tags=("C3", "thm64"),
)
def mean_field_asymptote(ctx: Context, *, asymptote) -> Evidence:
    gc2 = th.gamma_c_squared_mean_field(d, L)
    ratio = sp.limit(gc2 / asymptote(d, L) ** 2, d, sp.oo)
    x = sp.Symbol("x", positive=True)
    series = sp.series((gc2 * sp.sqrt(d) / L).subs(d, 8 * L / x), x, 0, 3).removeO()
    return all_exact(
        [
            ("lim gamma_c^2 / asymptote^2 = 1", sp.Eq(ratio, 1)),
            ("series 1 + x/4 + x^2/8", series - (1 + x / 4 + x**2 / 8)),
        ],
        proved="lim_{d_k->oo} gamma_c^4 d_k / L^2 = 1; series 1 + x/4 + x^2/8 + O(x^3)",
        scope=Scope.GENERAL,
        assumptions=("L > 0 fixed, d_k -> oo; x = 8L/d_k",),
        details={"limit": sp.sstr(ratio), "series": sp.sstr(series)},
    )


@certificate(
    "psa.mean_field_gamma_c_is_monotone",
    claim=claim(
        "C3 (monotonicity)",
        "on d_k > 8L, gamma_c increases in L and decreases in d_k",
        Provenance.VERBATIM,
        "C3 monotonicity",
        "Thm 64 (3) monotonicity",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"sign_in_L": 1, "sign_in_dk": -1},
    mutant=Mutant("gamma_c decreasing in L", {"sign_in_L": -1}),
    tags=("C3", "thm64"),
)
def mean_field_monotone(ctx: Context, *, sign_in_L, sign_in_dk) -> Evidence:
    w = sp.Symbol("w", positive=True)  # d_k = 8L + w, the open mean-field region
    gc2 = th.gamma_c_squared_mean_field(d, L)
    dL = sp.simplify(sign_in_L * sp.diff(gc2, L).subs(d, 8 * L + w))
    dd = sp.simplify(sign_in_dk * sp.diff(gc2, d).subs(d, 8 * L + w))
    return all_exact(
        [
            (f"sign {sign_in_L:+d} * d gamma_c^2/dL > 0", sp.Gt(dL, 0)),
            (f"sign {sign_in_dk:+d} * d gamma_c^2/dd_k > 0", sp.Gt(dd, 0)),
        ],
        proved="with d_k = 8L + w (w, L > 0) SymPy's sign analysis proves both derivative signs",
        scope=Scope.GENERAL,
        assumptions=("the open mean-field region d_k = 8L + w, w > 0, L > 0",),
        details={"d/dL": sp.sstr(dL), "d/dd_k": sp.sstr(dd)},
    )


@certificate(
    "psa.crossover_step_is_the_factor_c",
    claim=claim(
        "Thm 64 (4): crossover",
        "at d_k = 8L the mean-field gamma_c equals the freezing point (2L)^{1/4}/sqrt(2), and the "
        "optimiser 2 gamma^2 = sqrt(d_k)/2 equals b_c = sqrt(2L): the step across d_k* is the factor c",
        Provenance.DERIVED,
        "Thm 64 (4) step",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"freezing": th.freezing_point},
    mutant=Mutant("freezing point (2L)^{1/4}", {"freezing": lambda LL: (2 * LL) ** sp.Rational(1, 4)}),
    tags=("thm64",),
)
def crossover_step(ctx: Context, *, freezing) -> Evidence:
    d_star = th.crossover_dk(L)
    at_crossover = th.gamma_c_squared_mean_field(d_star, L)
    from_above = sp.limit(th.gamma_c_squared_mean_field(d, L), d, d_star, "+")
    c = th.c_cond
    continuous_iff = sp.solve(sp.Eq(th.gamma_c_condensed(L, c) ** 2, from_above), c)
    return all_exact(
        [
            ("lim_{d_k -> 8L+} gamma_c^2 = freezing^2", sp.radsimp(from_above - freezing(L) ** 2)),
            ("gamma_c^2(8L) = freezing^2", sp.radsimp(at_crossover - freezing(L) ** 2)),
            ("the two annealed roots merge at 8L", th.second_root_squared(d_star, L) - at_crossover),
            ("2 (sqrt(8L)/4) = b_c", 2 * sp.sqrt(d_star) / 4 - th.rem_critical_energy(L)),
            ("condensed / mean-field at 8L = c", sp.radsimp(th.gamma_c_condensed(L, c) ** 2 / from_above - c**2)),
            ("the piecewise law is continuous at d_k* iff c = 1", sp.Eq(sp.FiniteSet(*continuous_iff), sp.FiniteSet(1))),
        ],
        proved="gamma_c(d_k -> 8L+) = (2L)^{1/4}/sqrt(2) (the roots merge there, 2 u* = b_c); the condensed "
        "branch is c times that value, so the step across d_k* is the factor c (continuous iff c = 1)",
        scope=Scope.GENERAL,
        assumptions=("L > 0, c > 0 symbolic",),
        details={"c_for_continuity": sp.sstr(continuous_iff)},
    )


@certificate(
    "psa.argmax_invariance_is_exact",
    claim=claim(
        "Thm 64 (1)",
        "every score of G is gamma^2 times a gamma-free random variable (target mean a(gamma)/gamma^2 = sqrt(d_k), "
        "target noise s.d. sigma_t gamma^2, distractor scale 2 gamma^2), and scaling by gamma^2 > 0 preserves every "
        "comparison, so the argmax of G is the same for every gamma > 0 (exact; the Monte Carlo check is "
        "psa.argmax_is_gamma_invariant)",
        Provenance.RECONSTRUCTED,
        "Thm 64 (1)",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"target_mean": th.target_mean},
    mutant=Mutant(
        "the T3-restored target mean gamma (1 + gamma) sqrt(d_k) (a T3 channel linear in gamma)",
        {"target_mean": lambda dk, gg: gg * (1 + gg) * sp.sqrt(dk)},
    ),
    tags=("thm64",),
)
def argmax_exact(ctx: Context, *, target_mean) -> Evidence:
    gp = sp.Symbol("gamma_pos", positive=True)
    noise_sd = sp.sqrt(2 * (th.target_noise_log_mgf(d, gp, th.sigma_t) + th.target_mean(d, gp)))  # from its log-MGF
    return all_exact(
        [
            ("target mean / gamma^2 is gamma-free", sp.diff(target_mean(d, gp) / gp**2, gp)),
            ("target noise s.d. / gamma^2 is gamma-free", sp.diff(noise_sd / gp**2, gp)),
            ("distractor scale / gamma^2 is gamma-free", sp.diff(th.DISTRACTOR_SCALE * gp**2 / gp**2, gp)),
            ("gamma != 0: x > y iff gamma^2 x > gamma^2 y", th.squared_scaling_preserves_order()),
        ],
        proved="s(gamma) = gamma^2 s(1) for every draw, and a positive scaling keeps every comparison: the argmax is "
        "gamma-invariant on gamma > 0",
        scope=Scope.GENERAL,
        assumptions=("gamma > 0, d_k > 0, sigma_t >= 0 symbolic; the T4 score model of psa.md §1.7",),
    )


@certificate(
    "psa.argmax_is_gamma_invariant",
    claim=claim(
        "Thm 64 (1)",
        "every score of G is proportional to gamma^2, so the argmax over candidates does not depend on gamma > 0",
        Provenance.RECONSTRUCTED,
        "Thm 64 (1)",
    ),
    method=Method.NUMERIC,
    expected=Verdict.VERIFIED,
    params={"variant": "t4"},
    mutant=Mutant("the T3-restored model (its T3 channel scales as gamma, not gamma^2)", {"variant": "t3t4"}),
    tags=("thm64",),
)
def argmax_invariant(ctx: Context, *, variant) -> Evidence:
    from attncert.solvers.backend import get_backend
    from attncert.solvers.score_model import ScoreModel

    backend = get_backend(ctx.backend)
    xp = backend.xp
    model = ScoreModel(variant=variant)  # the solver's model, with its default sigma_t
    trials, m, dk = 20_000, 13, 16.0
    z = backend.standard_normal(ctx.seed, (trials, m + 1))

    def scores(gam: float):
        sd = model.distractor_sd(gam)
        target = model.target_mean(gam, dk) + (model.sigma_t / 2) * sd * z[:, :1]
        return xp.concat([target, sd * z[:, 1:]], axis=1)

    reference = xp.argmax(scores(1.0), axis=1)
    changed = 0
    for gam in (0.05, 0.3, 3.0, 8.0):
        changed += int(xp.sum(xp.astype(xp.argmax(scores(gam), axis=1) != reference, xp.int64)))
    return within(
        changed,
        tolerance=0,
        what=f"argmax changes against gamma = 1 over 4 gammas x {trials} trials (solvers.score_model, {variant})",
        measured=changed,
        reference=0,
        details={"backend": backend.name, "sigma_t": model.sigma_t},
    )


# --- printed values of the law ----------------------------------------------------------------
_L511 = th.competitor_log_count(512)


@certificate(
    "psa.crossover_printed_values",
    claim=claim(
        "Fig. 2, Fig. 9: crossovers",
        "d_k* = 8 ln(T-1): 21.1 at T = 15 and 49.9 at T = 512",
        Provenance.DERIVED,
        "Thm 64 printed values",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"log_count": th.competitor_log_count},
    mutant=Mutant("L = ln(T - 2) (the argmax count m)", {"log_count": lambda T: sp.log(T - 2)}),
    tags=("thm64", "printed"),
)
def crossover_printed(ctx: Context, *, log_count) -> Evidence:
    return printed(
        [(f"8 ln(T-1), T = {T}", th.crossover_dk(log_count(T)), shown) for T, shown in ((15, "21.1"), (512, "49.9"))],
        what="crossovers 8L",
    )


@certificate(
    "psa.law_printed_values",
    claim=claim(
        "Abstract; Fig. 2; Fig. 84; Rem 65",
        "at L = ln 511: b_c = 3.53, gamma_c = 1.030 (d_k = 64) and 0.787 (d_k = 128), second root 2.245 (d_k = 128)",
        Provenance.DERIVED,
        "Thm 64 printed values",
        "Rem 65",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"mean_field": th.gamma_c_squared_mean_field},
    mutant=Mutant(
        "mean-field root with 7L in place of 8L",
        {"mean_field": lambda dk, LL: 2 * LL / (sp.sqrt(dk) + sp.sqrt(dk - 7 * LL))},
    ),
    tags=("thm64", "printed"),
)
def law_printed(ctx: Context, *, mean_field) -> Evidence:
    return printed(
        [
            ("b_c = sqrt(2L)", th.rem_critical_energy(_L511), "3.53"),
            ("gamma_c(64)", sp.sqrt(mean_field(64, _L511)), "1.030"),
            ("gamma_c(128)", sp.sqrt(mean_field(128, _L511)), "0.787"),
            ("second root (128)", sp.sqrt(th.second_root_squared(128, _L511)), "2.245"),
        ],
        what="Thm 64 values at L = ln 511",
    )


@certificate(
    "psa.t3_restored_gamma_c_printed_values",
    claim=claim(
        "Abstract; Fig. 84 (T3-restored law)",
        "restoring T3 moves gamma_c from 1.030 to 0.569 at d_k = 64 and to 0.413 at d_k = 128 (L = ln 511)",
        Provenance.DERIVED,
        "T3-restored law",
        latex=r"\gamma(1+\gamma)\sqrt{d_k}=L+\gamma^2+2\gamma^3+2\gamma^4",
    ),
    method=Method.TABLE,
    expected=Verdict.REPRODUCED,
    params={"crossing": th.t3_restored_crossing},
    mutant=Mutant(
        "distractor variance 2 gamma^2 (1 + gamma)^2 (the gamma^2 term dropped)",
        {"crossing": lambda dk, LL, gg: gg * (1 + gg) * sp.sqrt(dk) - (LL + gg**2 * (1 + gg) ** 2)},
    ),
    tags=("thm64", "printed"),
)
def t3_restored_printed(ctx: Context, *, crossing) -> Evidence:
    rows = []
    for dk, shown in ((64, "0.569"), (128, "0.413")):
        poly = crossing(sp.Integer(dk), sp.Symbol("ell"), g)
        root = th.smallest_positive_root(poly.subs("ell", sp.N(_L511, 40)))
        rows.append((f"smallest root at d_k = {dk}", root, shown))
    return printed(rows, what="T3-restored gamma_c")


@certificate(
    "psa.table50_crossover_ratio_column",
    claim=claim(
        "Table 50 (8L/d_k column)",
        "8L/d_k with L = ln 63 printed as 4.14, 2.07, 1.03 for d_k = 8, 16, 32",
        Provenance.VERBATIM,
        "Table 50",
    ),
    method=Method.TABLE,
    expected=Verdict.MISMATCH,
    params={"printed_values": ("4.14", "2.07", "1.03")},
    mutant=Mutant("the last entry printed as 1.04", {"printed_values": ("4.14", "2.07", "1.04")}),
    tags=("printed", "erratum"),
)
def table50_ratio(ctx: Context, *, printed_values) -> Evidence:
    L63 = th.competitor_log_count(64)
    values = [th.crossover_dk(L63) / dk for dk in (8, 16, 32)]
    corrected = printed(
        [(f"8 ln 63 / {dk}", v, shown) for dk, v, shown in zip((8, 16, 32), values, ("4.14", "2.07", "1.04"), strict=True)],
        what="corrected column",
    )
    if corrected.verdict is not Verdict.REPRODUCED:
        return Evidence(verdict=Verdict.ERROR, summary=f"the corrected column (4.14, 2.07, 1.04) fails: {corrected.summary}")
    return printed(
        [(f"8 ln 63 / {dk}", v, shown) for dk, v, shown in zip((8, 16, 32), values, printed_values, strict=True)],
        what="Table 50 8L/d_k (erratum 11: 1.036 rounds to 1.04, which regenerates)",
    )


@certificate(
    "psa.condensed_branch_is_flat_in_dk",
    claim=claim(
        "Thm 64 (4): condensed branch",
        "for d_k < 8L gamma_c = c (2L)^{1/4}/sqrt(2): c times the REM freezing point of the distractors, where "
        "their annealed free energy Lambda meets the frozen line beta b_c (beta = 2 gamma^2, b_c = sqrt(2L)); it is "
        "flat in d_k because the distractor ensemble carries no d_k. Proved: the freezing point and its d_k-independence; "
        "measured (Monte Carlo, Fig. 7): the calibrated constant c and the flatness of the measured gamma_c",
        Provenance.VERBATIM,
        "Thm 64 (4) condensed branch",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"freezing": th.freezing_point},
    mutant=Mutant(
        "a freezing point at the annealed optimiser gamma^2 = sqrt(d_k)/4 (moves with d_k)",
        {"freezing": lambda LL: (sp.sqrt(d) / 4) ** sp.Rational(1, 2)},
    ),
    tags=("thm64",),
)
def condensed_flat(ctx: Context, *, freezing) -> Evidence:
    c = th.c_cond
    gap = sp.expand(th.frozen_line_gap(L, sp.sqrt(u)))  # Lambda - beta b_c as a polynomial in u = gamma^2
    poly = sp.Poly(gap, u)
    (touch,) = sp.solve(sp.diff(gap, u), u)  # the tangency point of the free energy and the frozen line
    return all_exact(
        [
            ("the annealed exponent (distractors only) does not depend on d_k", sp.diff(th.annealed_exponent(L, g), d)),
            ("Lambda - beta b_c is a square: discriminant 0 (a double root)", poly.discriminant()),
            ("Lambda - beta b_c >= 0 (leading coefficient > 0)", sp.Gt(poly.LC(), 0)),
            ("the double root is the claimed freezing point", sp.radsimp(touch - freezing(L) ** 2)),
            ("the freezing point does not depend on d_k", sp.diff(freezing(L), d)),
            ("gamma_c(condensed) / freezing point = c", sp.radsimp(th.gamma_c_condensed(L, c) / freezing(L) - c)),
        ],
        proved="Lambda(gamma) - 2 gamma^2 sqrt(2L) = (sqrt(2) gamma^2 - sqrt(L))^2 touches 0 only at 2 gamma^2 = b_c: "
        "the freezing point (2L)^{1/4}/sqrt(2), free of d_k; the condensed branch is c times it",
        scope=Scope.GENERAL,
        assumptions=("L > 0 symbolic; the value of c is calibrated by Monte Carlo (Fig. 7), not proved",),
        details={"tangency_u": sp.sstr(touch), "gap": sp.sstr(gap)},
    )


def _annealed_bound_cross_check(ctx: Context, bound) -> object:
    """The solver's Monte Carlo A(gamma) (sigma_t = 2, N = T - 2 distractors) against the bound."""
    import math

    import numpy as np

    from attncert.certificates.engine.model import CrossCheck
    from attncert.solvers.backend import get_backend
    from attncert.solvers.score_model import ScoreModel, softmax_mass_mc

    backend = get_backend(ctx.backend)
    gammas, trials, dk, T = (0.5, 0.7, 0.9), 8192, 64, 15
    measured = softmax_mass_mc(backend, ScoreModel(sigma_t=2.0), d_ks=(dk,), Ts=(T,), gammas=gammas, trials=trials, seed=ctx.seed)
    f = sp.lambdify(g, bound(sp.Integer(dk), sp.log(T - 2), g, sp.Integer(2)), "math")
    excess = [f(gam) - float(a) for gam, a in zip(gammas, np.asarray(measured)[0, 0], strict=True)]
    return CrossCheck(
        description="bound - Monte Carlo A(gamma) at d_k = 64, T = 15, sigma_t = 2, gamma = 0.5, 0.7, 0.9 (8192 trials)",
        instances=len(gammas),
        max_abs_error=max(0.0, *excess),
        tolerance=4 * 0.5 / math.sqrt(trials),  # four standard errors of a mean of values in [0, 1]
        backend=backend.name,
    )


@certificate(
    "psa.annealed_bound_on_target_mass",
    claim=claim(
        "Thm 64 (annealed bound)",
        "the rigorous part of the law: with N = e^L independent distractors, E[target softmax mass] >= "
        "1/(1 + exp(Lambda(gamma) + sigma_t^2 gamma^4/2 - a(gamma))) (Jensen); at sigma_t = 0 its log-odds are "
        "a - Lambda, so the bound reaches 1/2 exactly at the mean-field gamma_c (d_k >= 8L) and stays below 1/2 "
        "for d_k < 8L (C2); the identification of the Monte Carlo gamma_c with the law is C8 / Fig. 7",
        Provenance.DERIVED,
        "Thm 64 (annealed bound)",
        latex=r"\mathcal A(\gamma)\ge\big(1+e^{\Lambda(\gamma)+\sigma_t^2\gamma^4/2-a(\gamma)}\big)^{-1}",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"bound": th.annealed_mass_lower_bound},
    mutant=Mutant(
        "a bound that forgets the target noise: 1/(1 + exp(Lambda - a))",
        {"bound": lambda dk, LL, gg, st: 1 / (1 + sp.exp(th.annealed_exponent(LL, gg) - th.target_mean(dk, gg)))},
    ),
    tags=("thm64", "C1", "C3"),
)
def annealed_bound(ctx: Context, *, bound) -> Evidence:
    x = sp.Symbol("x", nonnegative=True)
    s_t = th.sigma_t
    closed_form, lemma = _gaussian_mgf()
    mgf_distractor = closed_form.subs(_t, th.DISTRACTOR_SCALE * g**2)  # E e^{s_j}
    mgf_target = sp.exp(-th.target_mean(d, g)) * closed_form.subs(_t, -s_t * g**2)  # E e^{-s*}
    claimed = bound(d, L, g, s_t)
    # the exponent of the bound as a quadratic A u^2 + B u + C in u = gamma^2 (A > 0): its smaller root
    big_a, big_b, big_c = sp.Poly(
        th.annealed_exponent(L, sp.sqrt(u)) + th.target_noise_log_mgf(d, sp.sqrt(u), s_t), u
    ).all_coeffs()
    smaller = (-big_b - sp.sqrt(big_b**2 - 4 * big_a * big_c)) / (2 * big_a)
    at_zero_noise = 1 / claimed.subs(s_t, 0) - 1 - sp.exp(th.annealed_exponent(L, g) - th.target_mean(d, g))
    return all_exact(
        [
            *lemma,
            ("1/(1 + x) is convex on x >= 0 (Jensen applies)", sp.Gt(sp.diff(1 / (1 + x), x, 2), 0)),
            ("E e^{s_j} = e^{Lambda - L}", sp.expand(mgf_distractor - sp.exp(th.annealed_exponent(L, g) - L))),
            ("E e^{-s*} = e^{-a + sigma_t^2 gamma^4 / 2}", sp.expand(mgf_target - sp.exp(th.target_noise_log_mgf(d, g, s_t)))),
            (
                "bound = 1/(1 + N E e^{s_j} E e^{-s*}), N = e^L",
                sp.simplify(1 / claimed - 1 - sp.exp(L) * mgf_distractor * mgf_target),
            ),
            ("at sigma_t = 0: 1/bound - 1 = e^{Lambda - a}", sp.simplify(at_zero_noise)),
            ("the bound is 1/2 first at u = annealed root", sp.radsimp(smaller - th.annealed_root_squared(d, L, s_t))),
            (
                "at sigma_t = 0 the root is the mean-field gamma_c^2",
                sp.radsimp(th.annealed_root_squared(d, L, 0) - th.gamma_c_squared_mean_field(d, L)),
            ),
        ],
        proved="A(gamma) >= 1/(1 + e^{Lambda + sigma_t^2 gamma^4/2 - a}); at sigma_t = 0 the bound equals 1/2 exactly at "
        "gamma_c^2 = 2L/(sqrt(d_k) + sqrt(d_k - 8L)), so A(gamma_c) >= 1/2",
        scope=Scope.GENERAL,
        assumptions=(
            "independent Gaussian scores: target gamma^2 (sqrt(d_k) + sigma_t Z_0), N = e^L distractors 2 gamma^2 Z_j",
            "Jensen's inequality for the convex map x -> 1/(1 + x) on x >= 0",
            "d_k, L > 0, sigma_t >= 0, gamma real, all symbolic",
        ),
        cross_check=_annealed_bound_cross_check(ctx, bound),
    )
