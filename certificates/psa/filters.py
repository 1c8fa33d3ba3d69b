"""Scores and filters: Thm 11, Prop 13, Cor 14, Prop 20, Cor 21, Cor 41, Prop 81, C10 and
the Fig. 58 sign erratum (psa.md §1.4-§1.6, §2.2, §5 item 5)."""

from __future__ import annotations

import sympy as sp

from attncert.certificates.engine.crosscheck import random_instances
from attncert.certificates.engine.evidence import all_exact, exact_zero
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.theory import psa as th

g, gq, gk, w, z, theta = th.gamma, th.gamma_q, th.gamma_k, th.omega, th.z, th.theta


def position_filter(operator: sp.Matrix) -> sp.Expr:
    """The z-domain filter from q to the position output of ``operator`` applied to (q_t, p_t)
    with p_t = q_t - q_{t-1} = (1 - z^{-1}) q_t (scalar blocks)."""
    return sp.expand(operator[0, 0] + operator[0, 1] * (1 - 1 / z))


def _magnitude_squared(filt: sp.Expr) -> sp.Expr:
    on_circle = filt.subs(z, sp.exp(sp.I * w))
    return sp.expand(sp.expand_complex(on_circle * sp.conjugate(on_circle)))


def _vec(name: str, n: int = 4) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"{name}0:{n}", real=True))


@certificate(
    "psa.four_term_score_decomposition",
    claim=claim(
        "Thm 11; Eq. 70",
        "q~_i^T k~_j = q^T k + gamma_Q p_q^T k + gamma_K q^T p_k + gamma_Q gamma_K p_q^T p_k",
        Provenance.VERBATIM,
        "Thm 11",
        latex=r"s_{ij}=T_1+\gamma_Q T_2+\gamma_K T_3+\gamma_Q\gamma_K T_4",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"t4_coefficient": gq * gk},
    mutant=Mutant("T4 weighted gamma_Q^2", {"t4_coefficient": gq**2}),
    tags=("thm11",),
)
def four_term(ctx: Context, *, t4_coefficient) -> Evidence:
    q, pq, k, pk = _vec("q"), _vec("pq"), _vec("k"), _vec("pk")
    terms = th.four_term_score(q, pq, k, pk, gq, gk)
    terms["T4"] = t4_coefficient * (pq.T * pk)[0, 0]
    score = ((q + gq * pq).T * (k + gk * pk))[0, 0]

    def errors(backend, x):
        xp = backend.xp
        a, b, c, e = (x[:, 16 * i : 16 * (i + 1)] for i in range(4))
        s_q, s_k = x[:, 64], x[:, 65]
        lhs = xp.sum((a + s_q[:, None] * b) * (c + s_k[:, None] * e), axis=1)
        rhs = xp.sum(a * c, axis=1) + s_q * xp.sum(b * c, axis=1) + s_k * xp.sum(a * e, axis=1)
        return lhs - rhs - s_q * s_k * xp.sum(b * e, axis=1)

    cc = random_instances(
        ctx,
        description="float64 at d_k = 16, 2048 random (q, p_q, k, p_k, gammas)",
        n=2048,
        width=66,
        errors=errors,
        tolerance=1e-10,
    )
    return exact_zero(score - sum(terms.values()), proved="the four channels sum to the sheared score (d = 4)", cross_check=cc)


@certificate(
    "psa.transfer_function_magnitude",
    claim=claim(
        "Prop 13",
        "H(z) = 1 + gamma (1 - z^{-1}); |H(e^{jw})|^2 = 1 + 4 gamma (1 + gamma) sin^2(w/2); DC gain 1, Nyquist (1 + 2 gamma)^2",
        Provenance.VERBATIM,
        "Prop 13",
        latex=r"|H(e^{j\omega})|^2=1+4\gamma(1+\gamma)\sin^2(\omega/2)",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"operator": th.upper_shear},
    mutant=Mutant("the lower shear (whose position filter is 1)", {"operator": th.lower_shear}),
    tags=("prop13", "filters"),
)
def transfer_magnitude(ctx: Context, *, operator) -> Evidence:
    filt = position_filter(operator(g, 1))
    mag2 = _magnitude_squared(filt)
    claimed = th.transfer_magnitude_squared(g, w)

    def errors(backend, x):
        xp = backend.xp
        gam, om = 2 * xp.abs(x[:, 0]), x[:, 1]
        direct = (1 + gam - gam * xp.cos(om)) ** 2 + (gam * xp.sin(om)) ** 2
        return direct - (1 + 4 * gam * (1 + gam) * xp.sin(om / 2) ** 2)

    cc = random_instances(
        ctx, description="|1 + g(1 - e^{-jw})|^2 at 4096 random (g, w)", n=4096, width=2, errors=errors, tolerance=1e-11
    )
    return all_exact(
        [
            ("position filter = 1 + gamma (1 - 1/z)", sp.simplify(filt - th.transfer_function(g, z)) == 0),
            (
                "|H|^2 = 1 + 4g(1+g) sin^2(w/2)",
                sp.simplify(sp.expand_trig(sp.expand(mag2 - claimed)).rewrite(sp.cos)) == 0,
            ),
            ("DC gain 1", sp.simplify(filt.subs(z, 1) ** 2 - 1) == 0),
            ("Nyquist (1 + 2 gamma)^2", sp.simplify(filt.subs(z, -1) ** 2 - th.nyquist_gain(g)) == 0),
        ],
        proved="Prop 13: |H|^2 = 1 + 4 gamma (1 + gamma) sin^2(w/2), DC 1, Nyquist (1 + 2 gamma)^2",
        cross_check=cc,
    )


def _high_pass(filt: sp.Expr) -> Evidence:
    """High-pass for every gamma > 0: |H|^2 strictly increasing on (0, pi), all-pass at gamma = 0."""
    gp = sp.Symbol("gamma_pos", positive=True)
    mag2 = sp.simplify(sp.trigsimp(_magnitude_squared(filt)))
    slope = sp.factor(sp.simplify(sp.diff(mag2, w).subs(g, gp)))
    # slope = c(gamma) sin(w): sin(w) > 0 on (0, pi), so the sign of c decides
    coefficient = sp.simplify(slope / sp.sin(w))
    nyquist = sp.simplify(mag2.subs(w, sp.pi))
    details = {"slope": sp.sstr(slope), "nyquist_gain": sp.sstr(nyquist)}
    if coefficient.is_positive is not True:
        # exhibit an exact counterexample: a gamma > 0 whose Nyquist gain does not exceed DC
        for trial in (sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1), sp.Integer(3)):
            gap = sp.simplify(nyquist.subs(g, trial) - mag2.subs({g: trial, w: 0}))
            if gap <= 0:
                return Evidence(
                    verdict=Verdict.REFUTED,
                    summary=(
                        f"counterexample gamma = {trial}: |H|^2 = {sp.sstr(nyquist.subs(g, trial))} at Nyquist "
                        f"<= {sp.sstr(mag2.subs({g: trial, w: 0}))} at DC (slope {sp.sstr(slope)})"
                    ),
                    residual=sp.sstr(gap),
                    expression=sp.sstr(mag2),
                    details=details,
                )
    return all_exact(
        [
            ("d|H|^2/dw = c(gamma) sin w", not coefficient.has(w)),
            ("c(gamma) > 0 for all gamma > 0", coefficient.is_positive is True),
            ("all-pass at gamma = 0", sp.simplify(mag2.subs(g, 0) - 1) == 0),
        ],
        proved=f"d|H|^2/dw = {sp.sstr(slope)} > 0 on (0, pi) for gamma > 0",
        details=details,
    )


@certificate(
    "psa.transfer_function_is_high_pass",
    claim=claim(
        "Prop 13 (high-pass)",
        "the shear's filter is high-pass for every gamma > 0 and all-pass at gamma = 0",
        Provenance.VERBATIM,
        "Prop 13",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"filt": th.transfer_function(g, z)},
    mutant=Mutant("the Fig. 58(C) sign-flipped filter", {"filt": th.fig58_transfer_function(g, z)}),
    tags=("prop13", "filters"),
)
def transfer_high_pass(ctx: Context, *, filt) -> Evidence:
    return _high_pass(filt)


@certificate(
    "psa.fig58_transfer_function_is_high_pass",
    claim=claim(
        "Fig. 58(C) (erratum 5)",
        "Fig. 58(C) plots |H(w)| = |1 + gamma (e^{-jw} - 1)| as the shear's high-pass response; "
        "that filter is low-pass for 0 < gamma < 1 (Nyquist (1 - 2 gamma)^2)",
        Provenance.VERBATIM,
        "Fig. 58",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.REFUTED,
    params={"filt": th.fig58_transfer_function(g, z)},
    mutant=Mutant("the Prop 13 filter 1 + gamma (1 - e^{-jw})", {"filt": th.transfer_function(g, z)}),
    tags=("prop13", "filters", "erratum"),
)
def fig58_high_pass(ctx: Context, *, filt) -> Evidence:
    return _high_pass(filt)


@certificate(
    "psa.channel_is_representable_at_every_positive_gamma",
    claim=claim(
        "Cor 14",
        "the sheared channel has joint order (1, 1) at every gamma > 0: the second tap -gamma never vanishes",
        Provenance.VERBATIM,
        "Cor 14",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"filt": th.transfer_function(g, z)},
    mutant=Mutant(
        "a filter 1 + gamma (1 - gamma)(1 - 1/z) whose tap vanishes at gamma = 1",
        {"filt": 1 + g * (1 - g) * (1 - 1 / z)},
    ),
    tags=("filters",),
)
def representable(ctx: Context, *, filt) -> Evidence:
    second_tap = sp.expand(filt).coeff(z, -1)
    zeros = sp.solveset(sp.Eq(second_tap, 0), g, sp.Interval.open(0, sp.oo))
    return all_exact(
        [("second tap has no zero on gamma > 0", zeros == sp.S.EmptySet)],
        proved=f"second tap {sp.sstr(second_tap)} is nonzero for gamma > 0",
        details={"zeros": sp.sstr(zeros)},
    )


@certificate(
    "psa.lower_shear_is_not_operational",
    claim=claim(
        "Prop 20",
        "the lower shear (q, p) -> (q, p + gamma q) leaves the position, hence the score, unchanged: Pi M^l = Pi",
        Provenance.VERBATIM,
        "Prop 20",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"operator": th.lower_shear},
    mutant=Mutant("the upper shear", {"operator": th.upper_shear}),
    tags=("lower-shear",),
)
def lower_not_operational(ctx: Context, *, operator) -> Evidence:
    n = 2
    return exact_zero(
        th.position_projection(n) * operator(g, n) - th.position_projection(n),
        proved="Pi M^l_gamma = Pi",
    )


@certificate(
    "psa.lower_shear_is_all_pass",
    claim=claim(
        "Cor 21",
        "the per-stream transfer function of the lower shear is H = 1 (all-pass)",
        Provenance.VERBATIM,
        "Cor 21",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"operator": th.lower_shear},
    mutant=Mutant("the upper shear", {"operator": th.upper_shear}),
    tags=("lower-shear", "filters"),
)
def lower_all_pass(ctx: Context, *, operator) -> Evidence:
    return exact_zero(position_filter(operator(g, 1)) - 1, proved="position filter of M^l is 1")


@certificate(
    "psa.pre_rope_shear_coriolis_error",
    claim=claim(
        "Cor 41; Eq. 38",
        "pre-RoPE shear then RoPE differs from post-RoPE shear by gamma (R_{t-1} - R_t) q_{t-1}, "
        "of magnitude 2 gamma sin(theta/2) |q_{t-1}| per band",
        Provenance.DERIVED,
        "Cor 41",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"magnitude": th.coriolis_band_error},
    mutant=Mutant("magnitude 2 sin(theta)", {"magnitude": lambda a: 2 * sp.sin(a)}),
    tags=("cor41",),
)
def coriolis(ctx: Context, *, magnitude) -> Evidence:
    t = sp.Symbol("t", integer=True)
    q_t, q_prev = _vec("q", 2), _vec("r", 2)
    rot = th.rotation2
    pre = rot(t * theta) * th.sheared(q_t, q_prev, g)
    post = th.sheared(rot(t * theta) * q_t, rot((t - 1) * theta) * q_prev, g)
    diff = pre - post
    claimed_diff = g * (rot((t - 1) * theta) - rot(t * theta)) * q_prev
    norm2 = sp.trigsimp(sp.expand((diff.T * diff)[0, 0]))
    return all_exact(
        [
            ("pre - post = gamma (R_{t-1} - R_t) q_{t-1}", sp.simplify(sp.expand(diff - claimed_diff)).is_zero_matrix),
            (
                "|pre - post|^2 = gamma^2 magnitude^2 |q_{t-1}|^2",
                sp.simplify(sp.expand_trig(norm2 - g**2 * magnitude(theta) ** 2 * (q_prev.T * q_prev)[0, 0])) == 0,
            ),
        ],
        proved="difference gamma (R_{t-1} - R_t) q_{t-1} with norm 2 gamma |sin(theta/2)| |q_{t-1}|",
    )


@certificate(
    "psa.differential_transformer_at_first_order",
    claim=claim(
        "Prop 81",
        "s_ij = (1+g)^2 S_ij - g(1+g)(S_{i-1,j} + S_{i,j-1}) + g^2 S_{i-1,j-1}; to first order "
        "(1 + 2g) S_ij - g (S_{i-1,j} + S_{i,j-1}), a difference of shifted score maps",
        Provenance.RECONSTRUCTED,
        "Prop 81",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"first_order_diagonal": 1 + 2 * g},
    mutant=Mutant("first-order diagonal weight 1 + g", {"first_order_diagonal": 1 + g}),
    tags=("prop81",),
)
def differential_transformer(ctx: Context, *, first_order_diagonal) -> Evidence:
    i, j = sp.symbols("i j", integer=True)
    qs = {a: _vec(f"q{a}_", 3) for a in (0, 1)}  # q_i, q_{i-1}
    ks = {b: _vec(f"k{b}_", 3) for b in (0, 1)}  # k_j, k_{j-1}

    def S(a, b):
        return (qs[int(i - a)].T * ks[int(j - b)])[0, 0]

    class Raw(sp.Function):
        pass

    sheared_score = (th.sheared(qs[0], qs[1], g).T * th.sheared(ks[0], ks[1], g))[0, 0]
    exact = th.differential_score(Raw, i, j, g).replace(Raw, lambda a, b: S(a, b))
    first = sp.series(th.differential_score(Raw, i, j, g), g, 0, 2).removeO()
    claimed_first = first_order_diagonal * Raw(i, j) - g * (Raw(i - 1, j) + Raw(i, j - 1))
    return all_exact(
        [
            ("exact expansion in S", sp.expand(sheared_score - exact) == 0),
            ("first-order form", sp.expand(first - claimed_first) == 0),
        ],
        proved="the sheared score is the stated combination of shifted score maps; first order as claimed",
    )


@certificate(
    "psa.pearson_scale_invariance",
    claim=claim(
        "C10",
        "r(aX + b, cY + d) = sign(ac) r(X, Y)",
        Provenance.VERBATIM,
        "C10",
        latex=r"r(aX+b,cY+d)=\operatorname{sign}(ac)\,r(X,Y)",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"sign_factor": lambda a, c: sp.sign(a * c)},
    mutant=Mutant("r(aX + b, cY + d) = r(X, Y) (sign dropped)", {"sign_factor": lambda a, c: 1}),
    tags=("C10",),
)
def pearson(ctx: Context, *, sign_factor) -> Evidence:
    n = 4
    xs, ys = sp.symbols(f"x0:{n}", real=True), sp.symbols(f"y0:{n}", real=True)
    a, c = sp.symbols("a c", real=True, nonzero=True)
    b, dd = sp.symbols("b d", real=True)

    def centred(v):
        mean = sum(v) / n
        return [e - mean for e in v]

    def cov(u, v):
        return sp.expand(sum(p * q for p, q in zip(centred(u), centred(v), strict=True)))

    xt, yt = [a * e + b for e in xs], [c * e + dd for e in ys]
    # r = cov / sqrt(var var); with var(aX + b) = a^2 var(X) the square roots give |a| |c|
    cov_ok = sp.expand(cov(xt, yt) - a * c * cov(xs, ys)) == 0
    var_ok = sp.expand(cov(xt, xt) - a**2 * cov(xs, xs)) == 0 and sp.expand(cov(yt, yt) - c**2 * cov(ys, ys)) == 0
    ratio_ok = sp.simplify(a * c / (sp.Abs(a) * sp.Abs(c)) - sign_factor(a, c)) == 0

    def errors(backend, x):
        xp = backend.xp
        u, v = x[:, :16], x[:, 16:32]
        sa, sc = x[:, 32:33], x[:, 33:34]

        def r(p, q):
            p = p - xp.mean(p, axis=1, keepdims=True)
            q = q - xp.mean(q, axis=1, keepdims=True)
            return xp.sum(p * q, axis=1) / xp.sqrt(xp.sum(p * p, axis=1) * xp.sum(q * q, axis=1))

        return r(sa * u + 1.5, sc * v - 2.0) - xp.sign(sa * sc)[:, 0] * r(u, v)

    cc = random_instances(
        ctx,
        description="float64 Pearson r at 2048 random samples of size 16",
        n=2048,
        width=34,
        errors=errors,
        tolerance=1e-9,
    )
    return all_exact(
        [
            ("cov(aX+b, cY+d) = ac cov(X, Y)", cov_ok),
            ("var(aX+b) = a^2 var(X)", var_ok),
            ("ac / (|a||c|) = claimed factor", ratio_ok),
        ],
        proved="cov scales by ac and the s.d.s by |a||c|, so r picks up sign(ac)",
        cross_check=cc,
    )
