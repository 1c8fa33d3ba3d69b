"""Training-side claims: Lemma 1, Prop 9, Eq. 18, Rem 14, Sec 5.2 (with E14), Lemma 5 and Thm 5.1
(gllm.md §1.1, §1.13; C1, C28, C30-C34)."""

from __future__ import annotations

import numpy as np
import sympy as sp
import z3

from attncert.certificates.engine.evidence import all_exact, within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Scope, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.gllm import claim
from attncert.theory import gllm as th
from attncert.theory.exact import z3_valid


def _distributions() -> tuple[th.IndexedProfiles, sp.IndexedBase, sp.IndexedBase]:
    """Two positive distributions p, q over a vocabulary of symbolic size (the profiles' index machinery)."""
    dist = th.indexed_profiles()
    return dist, dist.alpha, dist.tau


@certificate(
    "gllm.clm_loss_is_entropy_plus_kl",
    claim=claim(
        "Lemma 1",
        "E[L_CLM] = (1/n) sum_t (H(p_t) + KL(p_t || p_hat_t)), minimised exactly when p_hat_t = p_t",
        Provenance.VERBATIM,
        "Lemma 1",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"kl_sign": 1},
    mutant=Mutant("cross-entropy = entropy - KL", {"kl_sign": -1}),
    tags=("background",),
)
def clm(ctx: Context, *, kl_sign) -> Evidence:
    """Vocabulary of symbolic size: -sum p log q = -sum p log p + sum p log(p/q) by linearity (per position; the
    1/n average is linear too). Minimality: sum p log(q/p) <= sum p (q/p - 1) = sum q - sum p = 0 (log x <= x - 1),
    with equality iff q = p; and KL(p || p) = 0."""
    dist, p, q = _distributions()
    i = dist.i

    def expand(e: sp.Expr) -> sp.Expr:
        return sp.expand_log(e, force=True)

    ce = th.cross_entropy(dist.total, p[i], q[i])
    return all_exact(
        [
            (
                "CE(p, q) = H(p) + KL(p || q)",
                th.sum_identity(
                    expand(ce), expand(th.entropy(dist.total, p[i]) + kl_sign * th.kl_divergence(dist.total, p[i], q[i]))
                ),
            ),
            (
                "sum p (q/p - 1) = 0 on the simplex",
                th.sum_identity(dist.total(p[i] * (q[i] / p[i] - 1)), sp.Integer(0), given=dist.simplex),
            ),
            ("KL(p || p) = 0", th.sum_identity(expand(th.kl_divergence(dist.total, p[i], p[i])), sp.Integer(0))),
        ],
        proved="cross-entropy = entropy + KL for every vocabulary size; KL >= 0 with equality at p_hat = p",
        scope=Scope.GENERAL,
        assumptions=("|V| >= 1 symbolic", "p, p_hat > 0 on the simplex", "log x <= x - 1 for x > 0"),
    )


@certificate(
    "gllm.weighted_loss_minimiser_and_tilts",
    claim=claim(
        "Prop 9",
        "the population minimiser of -sum_v w_v p*(v) log p_hat(v) is w_v p*(v) / sum_u w_u p*(u): consistent when "
        "q_t = q(y_<t) (w constant in v), a context-independent tilt lambda^{q(v)} p* / sum when q_t = q(y_t)",
        Provenance.VERBATIM,
        "Prop 9 minimiser",
        "Prop 9 tilts",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"normalised": True},
    mutant=Mutant("minimiser w_v p*(v) (not normalised)", {"normalised": False}),
    tags=("training",),
)
def weighted_minimiser(ctx: Context, *, normalised) -> Evidence:
    """Symbolic vocabulary: with Z = sum w p and r = w p / Z, -sum w p log q = Z (H(r) + KL(r || q)), so by Lemma 1
    the minimiser is q = r; w = lambda^{q(v)} gives the tilt, w constant gives p*."""
    dist, p, q = _distributions()
    i, k = dist.i, sp.Symbol("k", integer=True, positive=True)
    w, lam, c = sp.IndexedBase("w", positive=True), sp.Symbol("lambda", positive=True), sp.Symbol("c", positive=True)
    grade = sp.IndexedBase("q_out", real=True)
    z = sp.Sum(w[k] * p[k], (k, 1, dist.d))
    r_i = th.weighted_loss_minimiser(dist.total, w[i], p[i])
    if not normalised:
        r_i = w[i] * p[i]

    def expand(e: sp.Expr) -> sp.Expr:
        return sp.expand_log(e, force=True)

    weighted = -dist.total(w[i] * p[i] * sp.log(q[i]))
    decomposed = z * (th.entropy(dist.total, r_i) + th.kl_divergence(dist.total, r_i, q[i]))
    tilt = th.weighted_loss_minimiser(dist.total, lam ** grade[i], p[i])
    return all_exact(
        [
            ("-sum w p log q = Z (H(r) + KL(r || q))", th.sum_identity(expand(weighted), expand(decomposed))),
            (
                "w constant: minimiser p*",
                th.sum_identity(th.weighted_loss_minimiser(dist.total, c, p[i]), p[i], given=dist.simplex),
            ),
            (
                "w = lambda^{q(v)}: tilt lambda^q p / sum",
                sp.Eq(tilt, lam ** grade[i] * p[i] / dist.total(lam ** grade[i] * p[i])),
            ),
        ],
        proved="the weighted loss is Z times a cross-entropy against r = w p / Z, minimised at r, for every vocabulary",
        scope=Scope.GENERAL,
        assumptions=("|V| >= 1 symbolic", "w_v > 0", "p*, p_hat > 0 on the simplex", "Lemma 1"),
    )


@certificate(
    "gllm.graded_softmax_tilt_cancels_the_loss_tilt",
    claim=claim(
        "Eq. 18; Rem 14",
        "softmax(z + kappa q_out) multiplies the unnormalised probability of v by e^{kappa q_out,v}; with kappa = ln lambda "
        "and q_out = q the architecture's tilt equals the objective's (so the base model learns s = p*)",
        Provenance.VERBATIM,
        "Eq. 18",
        "Rem 14",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"kappa_factor": 1},
    mutant=Mutant("kappa = 2 ln lambda", {"kappa_factor": 2}),
    tags=("training",),
)
def softmax_tilt(ctx: Context, *, kappa_factor) -> Evidence:
    """Symbolic vocabulary: exp(z_v + kappa q_v) = e^{z_v} e^{kappa q_v}; with z = log s and kappa = ln lambda the
    graded softmax is lambda^q s / sum lambda^q s, the Prop 9 minimiser with w = lambda^q and p = s."""
    dist, s, _ = _distributions()
    i = dist.i
    z, grade = sp.IndexedBase("z", real=True), sp.IndexedBase("q_out", real=True)
    lam, kappa = sp.Symbol("lambda", positive=True), sp.Symbol("kappa", positive=True)
    graded = th.graded_softmax(dist.total, z[i], grade[i], kappa)
    matched = th.graded_softmax(dist.total, sp.log(s[i]), grade[i], kappa_factor * sp.log(lam))
    target = th.weighted_loss_minimiser(dist.total, lam ** grade[i], s[i])
    return all_exact(
        [
            (
                "unnormalised graded probability = e^{z_v} e^{kappa q_v}",
                sp.Eq(sp.expand(graded * dist.total(sp.exp(z[i] + kappa * grade[i]))), sp.exp(z[i]) * sp.exp(kappa * grade[i])),
            ),
            (
                "kappa = ln lambda: architecture tilt = objective tilt",
                th.sum_identity(matched.rewrite(sp.exp), target.rewrite(sp.exp)),
            ),
        ],
        proved="Eq. 18 tilts by e^{kappa q}; at kappa = ln lambda it is the Prop 9 tilt lambda^q, for every vocabulary",
        scope=Scope.GENERAL,
        assumptions=("|V| >= 1 symbolic", "lambda > 1", "s > 0"),
    )


@certificate(
    "gllm.penalty_polarisation_and_eigenvalues",
    claim=claim(
        "Sec 5.2; Eq. 21 (E14)",
        "sum_{h<h'} |q_h - q_h'|^2 = H sum |q_h|^2 - |sum q_h|^2; the penalty nu_mag |q|^2 - nu_div sum_{h<h'} |q_h - q_h'|^2 "
        "has Hessian eigenvalues 2 nu_mag (head-constant) and 2 (nu_mag - nu_div H) (complement): coercive iff "
        "nu_mag > nu_div H, convex already at equality (E14)",
        Provenance.VERBATIM,
        "Sec 5.2 polarisation",
        "Sec 5.2 eigenvalues",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"heads_in_eigenvalue": True},
    mutant=Mutant("complement eigenvalue 2 (nu_mag - nu_div) (H dropped)", {"heads_in_eigenvalue": False}),
    tags=("training",),
)
def penalties(ctx: Context, *, heads_in_eigenvalue) -> Evidence:
    """Polarisation by induction on H (coordinatewise, so for vector grades too). The quadratic Q(x) =
    nu_mag |x|^2 - nu_div sum_{h<h'} (x_h - x_h')^2 = (nu_mag - nu_div H)|x|^2 + nu_div (sum x)^2 has Rayleigh
    quotient nu_mag on x = c 1 and nu_mag - nu_div H on sum x = 0; z3 decides coercivity and E14."""
    x, heads, proof = th.polarisation_identity()
    h = sp.Symbol("h", integer=True, positive=True)
    nu_mag, nu_div, c = sp.symbols("nu_mag nu_div c", positive=True)
    norm2, total = sp.Sum(x[h] ** 2, (h, 1, heads)), sp.Sum(x[h], (h, 1, heads))
    quadratic = (nu_mag - nu_div * heads) * norm2 + nu_div * total**2
    complement = nu_mag - nu_div * (heads if heads_in_eigenvalue else 1)
    on_constant = quadratic.xreplace({x[h]: c})
    zm, zd, zh = z3.Reals("nu_mag nu_div H")
    hyp = [zm > 0, zd >= 0, zh >= 1]
    return all_exact(
        [
            ("polarisation, base H = 1", proof.base),
            ("polarisation, step H -> H + 1", proof.step),
            ("Q(c 1) = nu_mag |c 1|^2", th.sum_identity(on_constant, nu_mag * norm2.xreplace({x[h]: c}))),
            (
                "Q(x) = complement |x|^2 when sum x = 0",
                th.sum_identity(quadratic, complement * norm2, given={th.linearize_sums(total): 0}),
            ),
            (
                "coercive iff nu_mag > nu_div H",
                z3_valid((z3.And(zm > 0, zm - zd * zh > 0)) == (zm > zd * zh), hyp, "both eigenvalues > 0 iff nu_mag > nu_div H"),
            ),
            (
                "E14: convex at nu_mag = nu_div H",
                z3_valid(z3.And(zm >= 0, zm - zd * zh >= 0), [*hyp, zm == zd * zh], "eigenvalues >= 0 at equality"),
            ),
        ],
        proved="polarisation identity for every H; Hessian eigenvalues 2 nu_mag and 2 (nu_mag - nu_div H); coercive iff "
        "nu_mag > nu_div H, PSD (convex) at equality",
        scope=Scope.GENERAL,
        assumptions=("H >= 1 symbolic", "nu_mag > 0, nu_div >= 0"),
    )


@certificate(
    "gllm.graded_loss_smoothness_bound",
    claim=claim(
        "Lemma 5",
        "if each per-token loss is s_t-smooth, the graded loss sum_t lambda^{q_t} l_t is at most lambda^{q_max} sum_t s_t "
        "smooth (numerically on 300 random quadratic toy losses, labelled synthetic)",
        Provenance.VERBATIM,
        "Lemma 5",
    ),
    method=Method.NUMERIC,
    expected=Verdict.VERIFIED,
    params={"use_max": True},
    mutant=Mutant("bound lambda^{q_min} sum s_t", {"use_max": False}),
    tags=("training",),
)
def smoothness(ctx: Context, *, use_max) -> Evidence:
    """Synthetic toy: l_t(theta) = theta^T A_t theta / 2 with random PSD A_t; smoothness = largest Hessian eigenvalue."""
    rng = np.random.default_rng(ctx.seed)
    worst = 0.0
    for _ in range(300):
        tokens, dim = int(rng.integers(2, 8)), int(rng.integers(2, 6))
        hessians = [(lambda b: b @ b.T)(rng.normal(size=(dim, dim))) for _ in range(tokens)]
        lam, grades = float(np.exp(1 / 64)), rng.uniform(0, 64 * np.log(2), tokens)
        smooth = [float(np.linalg.eigvalsh(hs)[-1]) for hs in hessians]
        graded = float(np.linalg.eigvalsh(sum(lam**q * hs for q, hs in zip(grades, hessians, strict=True)))[-1])
        bound = lam ** (grades.max() if use_max else grades.min()) * sum(smooth)
        worst = max(worst, graded / bound)
    return within(
        max(worst - 1, 0.0), tolerance=1e-12, what=f"largest smoothness / bound = {worst:.3f} over 300 toys", measured=worst
    )


@certificate(
    "gllm.sgd_stationarity_bound",
    claim=claim(
        "Thm 5.1",
        "for a s-smooth loss, unbiased gradients with variance sigma^2/b and eta <= 1/s: min_k E|grad L|^2 <= "
        "2(L(theta_0) - inf L)/(eta T) + s eta sigma^2/b (Monte Carlo on a synthetic quadratic, 400 runs, seed fixed)",
        Provenance.VERBATIM,
        "Thm 5.1",
    ),
    method=Method.MONTE_CARLO,
    expected=Verdict.VERIFIED,
    params={"variance_term": True},
    mutant=Mutant("bound without the variance term s eta sigma^2 / b", {"variance_term": False}),
    tags=("training",),
)
def sgd(ctx: Context, *, variance_term) -> Evidence:
    """Synthetic: L(theta) = theta^T A theta / 2 (s = max eig A), gradient noise N(0, sigma^2/(b dim) I), T = 3000
    steps at eta = 1/s; E|grad|^2 per step estimated over 400 runs, its minimum compared with the bound."""
    rng = np.random.default_rng(ctx.seed)
    dim, runs, steps, batch, sigma = 5, 400, 3000, 4, 1.0
    a = np.diag(rng.uniform(0.2, 2.0, dim))
    s = float(a.max())
    eta = 1 / s
    theta = np.tile(rng.normal(size=dim), (runs, 1))
    start = float(0.5 * theta[0] @ a @ theta[0])
    grad_sq = []
    for _ in range(steps):
        grad = theta @ a
        grad_sq.append(float(np.mean(np.sum(grad**2, axis=1))))
        theta = theta - eta * (grad + rng.normal(scale=sigma / np.sqrt(batch * dim), size=theta.shape))
    bound = 2 * start / (eta * steps) + (s * eta * sigma**2 / batch if variance_term else 0.0)
    ratio = min(grad_sq) / bound
    return within(
        max(ratio - 1, 0.0),
        tolerance=0.0,
        what=f"min_k E|grad|^2 = {min(grad_sq):.4g} against the bound {bound:.4g} (ratio {ratio:.3f})",
        measured=min(grad_sq),
        reference=bound,
    )
