"""Phase Space Attention (Maitra et al., 2026): the mathematics, as SymPy expressions.

Spec: ``../shared/spec/psa.md``. Section numbers in docstrings are the spec's (§) or the
paper's (Prop, Thm, Eq., Table). Pure functions: no I/O, no printing, no floats where an
exact expression exists. The constants of the two-branch law live here as module
constants so that a change to them (say 8L -> 7L) is seen by every certificate.
"""

from __future__ import annotations

import sympy as sp
from mpmath.libmp import NoConvergence

from attncert.theory.exact import Decision, z3_valid

# --- symbols ---------------------------------------------------------------------------
gamma, gamma_q, gamma_k, eps = sp.symbols("gamma gamma_q gamma_k epsilon", real=True)
d_k, L = sp.symbols("d_k L", positive=True)
u = sp.symbols("u", real=True)  # u = gamma**2
sigma_t = sp.Symbol("sigma_t", nonnegative=True)  # target noise of the score model
c_cond = sp.Symbol("c", positive=True)  # the calibrated condensation constant
omega, theta, h = sp.symbols("omega theta h", real=True)
z = sp.symbols("z")

# --- constants of the law (psa.md §1.7-§1.8) --------------------------------------------
#: d_k* = CROSSOVER_FACTOR * L, where the annealed bound saturates (Thm 64 (4), C2).
CROSSOVER_FACTOR = sp.Integer(8)
#: distractor score s_j = gamma^2 * DISTRACTOR_SCALE * Z_j (variance 4 gamma^4, forced by C1).
DISTRACTOR_SCALE = sp.Integer(2)
#: default target noise sigma_t of the score model [R?]; psa.md §1.7 and §3.4.
SIGMA_T_DEFAULT = 2.0


def competitor_log_count(T: int | sp.Expr) -> sp.Expr:
    """L = ln(T - 1): the log number of candidate keys (psa.md §1.7, four independent checks)."""
    return sp.log(sp.sympify(T) - 1)


# --- phase-space operators (psa.md §1.2) ------------------------------------------------
#: the symbolic head width: operators built with ``n = dim`` hold for every n (Identity(n) blocks).
dim = sp.Symbol("n", integer=True, positive=True)
Dimension = int | sp.Symbol


def block2(a: sp.Expr, b: sp.Expr, c: sp.Expr, e: sp.Expr, n: Dimension = 1) -> sp.Matrix | sp.BlockMatrix:
    """[[aI, bI], [cI, eI]] = kron([[a, b], [c, e]], I_n): an explicit matrix for an integer n, a
    block matrix over ``Identity(n)`` for a symbolic n (then the identity holds for every n)."""
    if isinstance(n, int):
        eye = sp.eye(n)
        return sp.Matrix(sp.BlockMatrix([[a * eye, b * eye], [c * eye, e * eye]]))
    eye = sp.Identity(n)
    return sp.BlockMatrix([[a * eye, b * eye], [c * eye, e * eye]])


def block_diagonal(first, second):
    """first (+) second for a 2n x 2n and a 2m x 2m operator in the same representation: explicit
    matrices, or 2x2 block matrices over Identity(n) and Identity(m) (whose widths the blocks carry)."""
    if not isinstance(first, sp.BlockMatrix):
        return sp.diag(first, second)
    a, b = first.blocks, second.blocks
    n, m = first.rows / 2, second.rows / 2  # the operators are 2n x 2n and 2m x 2m
    above, below = sp.ZeroMatrix(n, m), sp.ZeroMatrix(m, n)
    return sp.BlockMatrix(
        [
            [a[0, 0], a[0, 1], above, above],
            [a[1, 0], a[1, 1], above, above],
            [below, below, b[0, 0], b[0, 1]],
            [below, below, b[1, 0], b[1, 1]],
        ]
    )


def identity_coefficients(expr: sp.MatrixExpr) -> sp.Matrix:
    """Kronecker lift lemma: the scalar matrix C with ``expr = kron(C, I_n)``.

    ``expr`` is built from block matrices whose blocks are scalar multiples of ``Identity(n)``
    (products, sums, transposes, powers). These blocks form a commutative algebra isomorphic to
    the scalars (c I_n -> c is a ring isomorphism for n >= 1), and ``block_collapse`` carries out
    the block algebra for symbolic n; so an identity between such operators holds for every n iff
    the returned coefficient matrix identity holds. Anything outside that algebra (a
    ``MatrixSymbol`` block, say) raises ``ValueError``.
    """
    collapsed = sp.block_collapse(expr)
    blocks = collapsed.blocks if isinstance(collapsed, sp.BlockMatrix) else sp.Matrix([[collapsed]])
    return blocks.applyfunc(_identity_coefficient)


def _identity_coefficient(block: sp.Basic) -> sp.Expr:
    if isinstance(block, sp.ZeroMatrix):
        return sp.Integer(0)
    if isinstance(block, sp.Identity):
        return sp.Integer(1)
    if isinstance(block, sp.MatAdd):
        return sp.Add(*(_identity_coefficient(arg) for arg in block.args))
    if isinstance(block, sp.MatMul):
        return sp.Mul(*(arg if not isinstance(arg, sp.MatrixExpr) else _identity_coefficient(arg) for arg in block.args))
    if isinstance(block, sp.MatPow):
        return _identity_coefficient(block.base) ** block.exp
    raise ValueError(f"block {block} is not a scalar multiple of the identity")


def scalar_part(expr: sp.MatrixExpr) -> sp.Expr:
    """A 1 x 1 matrix expression (inner products of vectors in R^n, n symbolic) as a scalar:
    its expanded (0, 0) entry, with every sum over the symbolic dimension written with one
    common index so that equal sums cancel. A vanishing expression expands to a ZeroMatrix, whose
    entry is already 0."""
    entry = sp.expand(expr)[0, 0]
    index = sp.Symbol("i_n", integer=True)
    unified = entry.replace(lambda e: isinstance(e, sp.Sum), lambda s: s.xreplace({s.variables[0]: index}))
    return sp.expand(unified)


def block_entries(expr: sp.MatrixExpr) -> sp.Matrix:
    """The generic entry (i, j) of each block of a block-matrix expression with ``MatrixSymbol``
    blocks (n symbolic): a scalar matrix that vanishes iff every block vanishes."""
    i, j = sp.symbols("i j", integer=True)
    collapsed = sp.block_collapse(expr)
    blocks = collapsed.blocks if isinstance(collapsed, sp.BlockMatrix) else sp.Matrix([[collapsed]])

    def entry(block: sp.Basic) -> sp.Expr:
        # expanding first lets a vanishing block collapse to ZeroMatrix, whose generic entry is 0
        return sp.expand(sp.expand(block)[i, j])

    return blocks.applyfunc(entry)


def symplectic_form(n: Dimension = 1):
    """J = [[0, I], [-I, 0]] on R^{2n}."""
    return block2(0, 1, -1, 0, n)


def upper_shear(g: sp.Expr = gamma, n: Dimension = 1):
    """M_gamma : (q, p) -> (q + gamma p, p) = [[I, gamma I], [0, I]]."""
    return block2(1, g, 0, 1, n)


def lower_shear(g: sp.Expr = gamma, n: Dimension = 1):
    """M^l_gamma : (q, p) -> (q, p + gamma q) = [[I, 0], [gamma I, I]] (Prop 20)."""
    return block2(1, 0, g, 1, n)


def phase_rotation(phi: sp.Expr, n: Dimension = 1):
    """The "RoPE reuse" family [[cI, sI], [-sI, cI]] of Table 2."""
    return block2(sp.cos(phi), sp.sin(phi), -sp.sin(phi), sp.cos(phi), n)


def hamiltonian_vector_field(n: Dimension = 1):
    """X_H = J grad H for H = |p|^2 / 2, as a linear map: [[0, I], [0, 0]] (Lemma 4)."""
    return block2(0, 1, 0, 0, n)


def identity_operator(n: Dimension = 1):
    """The identity on R^{2n}, in the same representation as the operators above."""
    return block2(1, 0, 0, 1, n)


def position_projection(n: Dimension = 1):
    """Pi = [I 0]: the position part of a phase-space state."""
    if isinstance(n, int):
        return sp.Matrix(sp.BlockMatrix([[sp.eye(n), sp.zeros(n)]]))
    return sp.BlockMatrix([[sp.Identity(n), sp.ZeroMatrix(n, n)]])


def joint_shear(gq: sp.Expr = gamma_q, gk: sp.Expr = gamma_k, n: Dimension = 1):
    """M_{gamma_q} (+) M_{gamma_k} on the joint space (q, p_q, k, p_k) (Prop 36)."""
    return block_diagonal(upper_shear(gq, n), upper_shear(gk, n))


def symplectic_defect(m, n: Dimension = 1, blocks: int = 1):
    """M^T J M - J, with J = J (+) ... (+) J (``blocks`` copies) on R^{2n * blocks}."""
    j = symplectic_form(n)
    for _ in range(blocks - 1):
        j = block_diagonal(j, symplectic_form(n))
    return m.T * j * m - j


def phase_state(name: str = "", n: Dimension = dim) -> tuple[sp.MatrixSymbol, sp.MatrixSymbol, sp.BlockMatrix]:
    """(q, p, z = (q; p)) with q, p vectors in R^n."""
    q, p = sp.MatrixSymbol(f"q{name}", n, 1), sp.MatrixSymbol(f"p{name}", n, 1)
    return q, p, sp.BlockMatrix([[q], [p]])


def momentum_of(image: sp.MatrixExpr) -> sp.MatrixExpr:
    """The momentum block of an image M z of a phase state (second block row)."""
    return sp.block_collapse(image).blocks[1, 0]


def kinetic_energy(p: sp.MatrixExpr) -> sp.Expr:
    """H(q, p) = |p|^2 / 2 (Thm 38 (ii)), as a scalar; ``p`` a column vector."""
    return scalar_part(p.T * p) / 2


def score_form(gq: sp.Expr, gk: sp.Expr, n: Dimension = 1):
    """B = (Pi M_{gq})^T (Pi M_{gk}): the score as a bilinear form on phase space (C9)."""
    pi = position_projection(n)
    return (pi * upper_shear(gq, n)).T * (pi * upper_shear(gk, n))


def shear_power(g: sp.Expr, steps: int | sp.Symbol, n: Dimension = 1):
    """M_gamma^N = M_{N gamma}: the shears form a one-parameter group (Eq. 36; X_H^2 = 0)."""
    return upper_shear(steps * g, n)


# --- streams and scores (psa.md §1.3-§1.4) ----------------------------------------------
def sheared(x_t: sp.Matrix, x_prev: sp.Matrix, g: sp.Expr) -> sp.Matrix:
    """x~_t = x_t + g (x_t - x_{t-1}) = (1 + g) x_t - g x_{t-1}, the backward-difference shear."""
    return x_t + g * (x_t - x_prev)


def four_term_score(q, p_q, k, p_k, gq: sp.Expr, gk: sp.Expr) -> dict[str, sp.Expr]:
    """The four channels T1..T4 of Thm 11 / Eq. 70 (column vectors in, explicit or
    ``MatrixSymbol`` of symbolic length; scalars out)."""
    return {
        "T1": scalar_part(q.T * k),
        "T2": gq * scalar_part(p_q.T * k),
        "T3": gk * scalar_part(q.T * p_k),
        "T4": gq * gk * scalar_part(p_q.T * p_k),
    }


def differential_score(S: sp.Function, i: sp.Symbol, j: sp.Symbol, g: sp.Expr) -> sp.Expr:
    """Prop 81 [R?]: the symmetric PSA score written through the raw score map S_{ab}."""
    return (1 + g) ** 2 * S(i, j) - g * (1 + g) * (S(i - 1, j) + S(i, j - 1)) + g**2 * S(i - 1, j - 1)


# --- transfer function (Prop 13, psa.md §1.5) ---------------------------------------------
def transfer_function(g: sp.Expr = gamma, zz: sp.Expr = z) -> sp.Expr:
    """H(z) = 1 + gamma (1 - z^{-1}), the per-stream filter of the shear."""
    return 1 + g * (1 - 1 / zz)


def transfer_magnitude_squared(g: sp.Expr = gamma, w: sp.Expr = omega) -> sp.Expr:
    """|H(e^{jw})|^2 = 1 + 4 gamma (1 + gamma) sin^2(w / 2) (Prop 13)."""
    return 1 + 4 * g * (1 + g) * sp.sin(w / 2) ** 2


def nyquist_gain(g: sp.Expr = gamma) -> sp.Expr:
    """|H(-1)|^2 = (1 + 2 gamma)^2."""
    return (1 + 2 * g) ** 2


def fig58_transfer_function(g: sp.Expr = gamma, zz: sp.Expr = z) -> sp.Expr:
    """The filter as printed in Fig. 58(C): 1 + gamma (z^{-1} - 1) (sign-flipped; erratum 5)."""
    return 1 + g * (1 / zz - 1)


# --- Coriolis error of pre-RoPE placement (Cor 41, Eq. 38) -------------------------------
def rotation2(angle: sp.Expr) -> sp.Matrix:
    """The 2 x 2 rotation by ``angle`` (radians), [[cos, -sin], [sin, cos]]."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def coriolis_band_error(angle: sp.Expr = theta) -> sp.Expr:
    """Per-unit magnitude |e^{i theta} - 1| = 2 sin(theta / 2), for 0 <= theta <= 2 pi."""
    return 2 * sp.sin(angle / 2)


def rope_frequency(m: int, dk: int, base: int = 10_000) -> sp.Expr:
    """theta_m = base^{-2m/d_k}."""
    return sp.Integer(base) ** sp.Rational(-2 * m, dk)


# --- the score model and the two-branch law (psa.md §1.7-§1.11, Thm 64) ------------------
def target_mean(dk: sp.Expr = d_k, g: sp.Expr = gamma) -> sp.Expr:
    """a(gamma) = gamma^2 sqrt(d_k): the target score mean of G(d_k, T; gamma)."""
    return g**2 * sp.sqrt(dk)


def squared_scaling_preserves_order() -> Decision:
    """For all reals x, y and every real gamma != 0: x > y iff gamma^2 x > gamma^2 y (z3 over the reals). With
    every score gamma^2 times a gamma-free variable, it makes the argmax of G gamma-invariant (Thm 64 (1)).
    The hypothesis is the weakest the claim needs (it fails at gamma = 0), so no narrower one can stand in."""
    import z3

    x, y, g = z3.Reals("x y gamma")
    return z3_valid((x > y) == (g * g * x > g * g * y), (g != 0,), "gamma != 0 => (x > y iff gamma^2 x > gamma^2 y)")


def annealed_exponent(LL: sp.Expr = L, g: sp.Expr = gamma) -> sp.Expr:
    """Lambda(gamma) = L + ln E e^{s_j} = L + 2 gamma^4 (Thm 64 (2), C1)."""
    return LL + 2 * g**4


def crossover_dk(LL: sp.Expr = L) -> sp.Expr:
    """d_k* = 8 L (Thm 64 (4), C2)."""
    return CROSSOVER_FACTOR * LL


def gamma_c_squared_mean_field(dk: sp.Expr = d_k, LL: sp.Expr = L) -> sp.Expr:
    """gamma_c^2 = 2L / (sqrt(d_k) + sqrt(d_k - 8L)) on d_k >= 8L (Thm 64 (3), C3)."""
    return 2 * LL / (sp.sqrt(dk) + sp.sqrt(dk - crossover_dk(LL)))


def second_root_squared(dk: sp.Expr = d_k, LL: sp.Expr = L) -> sp.Expr:
    """gamma_+^2 = (sqrt(d_k) + sqrt(d_k - 8L)) / 4 (Rem 65)."""
    return (sp.sqrt(dk) + sp.sqrt(dk - crossover_dk(LL))) / 4


def target_noise_log_mgf(dk: sp.Expr = d_k, g: sp.Expr = gamma, s_t: sp.Expr = None) -> sp.Expr:
    """ln E e^{-s*} for the target s* = gamma^2 (sqrt(d_k) + sigma_t Z_0): -a(gamma) + sigma_t^2 gamma^4 / 2."""
    s_t = sigma_t if s_t is None else s_t
    return -target_mean(dk, g) + s_t**2 * g**4 / 2


def annealed_mass_lower_bound(dk: sp.Expr = d_k, LL: sp.Expr = L, g: sp.Expr = gamma, s_t: sp.Expr = None) -> sp.Expr:
    """Annealed (Jensen) lower bound on the expected target mass of G with N = e^L distractors:

        A(gamma) = E[1 / (1 + X)] >= 1 / (1 + E X),  X = sum_j e^{s_j - s*},
        E X = N E e^{s_j} E e^{-s*} = exp(Lambda(gamma) + sigma_t^2 gamma^4 / 2 - a(gamma)),

    since 1/(1 + x) is convex on x >= 0 and the scores are independent (Lemma ``annealed_bound``
    of psa.md §1.8; at sigma_t = 0 its log-odds are exactly a - Lambda)."""
    s_t = sigma_t if s_t is None else s_t
    return 1 / (1 + sp.exp(annealed_exponent(LL, g) + target_noise_log_mgf(dk, g, s_t)))


def annealed_root_squared(dk: sp.Expr = d_k, LL: sp.Expr = L, s_t: sp.Expr = None) -> sp.Expr:
    """The smaller u = gamma^2 where the annealed bound equals 1/2, for target noise sigma_t:
    (2 + sigma_t^2/2) u^2 - sqrt(d_k) u + L = 0, u = 2L / (sqrt(d_k) + sqrt(d_k - (8 + 2 sigma_t^2) L)).
    At sigma_t = 0 it is the mean-field gamma_c^2 of Thm 64 (3)."""
    s_t = sigma_t if s_t is None else s_t
    return 2 * LL / (sp.sqrt(dk) + sp.sqrt(dk - (CROSSOVER_FACTOR + 2 * s_t**2) * LL))


def frozen_line_gap(LL: sp.Expr = L, g: sp.Expr = gamma) -> sp.Expr:
    """Lambda(gamma) - beta b_c with beta = DISTRACTOR_SCALE gamma^2 the distractor inverse
    temperature: the annealed free energy of the distractor REM minus its frozen line. It is
    >= 0 and touches 0 (a double root) exactly at the freezing point beta = b_c."""
    return annealed_exponent(LL, g) - DISTRACTOR_SCALE * g**2 * rem_critical_energy(LL)


def freezing_point(LL: sp.Expr = L) -> sp.Expr:
    """(2L)^{1/4} / sqrt(2): the REM freezing point in gamma, where 2 gamma^2 = b_c."""
    return (2 * LL) ** sp.Rational(1, 4) / sp.sqrt(2)


def rem_critical_energy(LL: sp.Expr = L) -> sp.Expr:
    """b_c = sqrt(2L), where the annealed entropy s(b) = L - b^2/2 vanishes."""
    return sp.sqrt(2 * LL)


def gamma_c_condensed(LL: sp.Expr = L, c: sp.Expr = c_cond) -> sp.Expr:
    """gamma_c = c (2L)^{1/4} / sqrt(2) on d_k < 8L, with the one calibrated constant c."""
    return c * freezing_point(LL)


def mean_field_asymptote(dk: sp.Expr = d_k, LL: sp.Expr = L) -> sp.Expr:
    """gamma_c ~ (L^2 / d_k)^{1/4} as d_k -> infinity."""
    return (LL**2 / dk) ** sp.Rational(1, 4)


def t3_restored_crossing(dk: sp.Expr = d_k, LL: sp.Expr = L, g: sp.Expr = gamma) -> sp.Expr:
    """a_34 - Lambda_34 = gamma (1 + gamma) sqrt(d_k) - (L + gamma^2 + 2 gamma^3 + 2 gamma^4) (§1.9)."""
    return g * (1 + g) * sp.sqrt(dk) - (LL + g**2 + 2 * g**3 + 2 * g**4)


def smallest_positive_root(expr: sp.Expr, var: sp.Symbol = gamma, digits: int = 30) -> sp.Float | None:
    """The smallest positive real root of a polynomial in ``var``, numerically, as a Float of ``digits``
    significant digits (30 by default); None if it has none."""
    poly = sp.Poly(sp.nsimplify(expr) if expr.has(sp.Float) else expr, var)
    try:
        found = poly.nroots(n=digits)
    except NoConvergence:
        # a repeated root stalls the iteration; the square-free part has the same roots, each once
        # (taken only here: over an EX domain it costs about a second)
        found = poly.sqf_part().nroots(n=digits)
    roots = [r for r in found if r.is_real and r > 0]
    return min(roots) if roots else None


# --- deployment (Eq. 64, Props 73, 77) -----------------------------------------------------
def overhead_fraction(d: sp.Expr, T: sp.Expr) -> sp.Expr:
    """Eq. 64: 6d extra FLOPs over 24 d^2 + 4 T d per token per layer."""
    return 6 * d / (24 * d**2 + 4 * T * d)


def int8_range_factor(g: sp.Expr = gamma) -> sp.Expr:
    """Prop 77: |k~|_inf <= (1 + 2 gamma) max |k|_inf."""
    return 1 + 2 * g


def int8_extra_bits(g: sp.Expr = gamma) -> sp.Expr:
    """Delta b = log2(1 + 2 gamma) bits of headroom."""
    return sp.log(int8_range_factor(g), 2)


def int8_levels_retained(g: sp.Expr = gamma) -> sp.Expr:
    """256 / (1 + 2 gamma), before rounding (Table 12 rounds to nearest)."""
    return 256 / int8_range_factor(g)


def extra_state_fraction(d: sp.Expr, layers: sp.Expr, T: sp.Expr) -> sp.Expr:
    """Prop 73 / Table 13: 2 d L_layers extra scalars over a 2 d L_layers T KV cache."""
    return (2 * d * layers) / (2 * d * layers * T)


# --- arithmetic of the printed tables (psa.md §3.6, §5) -----------------------------------
#: a column of exact values read from a printed table
Values = list[sp.Expr] | tuple[sp.Expr, ...]


def sample_mean(xs: Values) -> sp.Expr:
    """The arithmetic mean (exact for exact values; plain floats stay floats)."""
    return sum(xs) / len(xs)


def variance(xs: Values, ddof: int = 0) -> sp.Expr:
    """sum (x - mean)^2 / (n - ddof): the population variance at ddof = 0."""
    m = sample_mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - ddof)


def standard_deviation(xs: Values, ddof: int = 0) -> sp.Expr:
    """sqrt(variance): population s.d. at ddof = 0 (Table 51, erratum 21), sample s.d. at ddof = 1."""
    return sp.sqrt(variance(xs, ddof))


def relative_change(new: sp.Expr, old: sp.Expr) -> sp.Expr:
    """(new - old) / old: the "+5.3%"-type changes of Tables 92-104 (as a fraction)."""
    return (new - old) / old


def hypothesis_margin(winner_loss: sp.Expr, loser_loss: sp.Expr) -> sp.Expr:
    """Tables 116, 120: (L_loser - L_winner) / L_loser for "winner beats loser" (negative: it does not)."""
    return (loser_loss - winner_loss) / loser_loss


def student_t_two_sided_p(t: sp.Expr, df: sp.Expr) -> sp.Expr:
    """Two-sided p of Student's t with ``df`` degrees of freedom: I_{df/(df + t^2)}(df/2, 1/2)."""
    return sp.betainc_regularized(sp.sympify(df) / 2, sp.Rational(1, 2), 0, df / (df + t**2))


def pearson_p_value(r: sp.Expr, n: int) -> sp.Expr:
    """Two-sided p of a Pearson r from n pairs (t = r sqrt((n - 2)/(1 - r^2)), n - 2 d.o.f.)."""
    return sp.betainc_regularized(sp.Rational(n - 2, 2), sp.Rational(1, 2), 0, 1 - r**2)


def f_test_p_value(f: sp.Expr, df1: int, df2: int) -> sp.Expr:
    """Upper tail of F(df1, df2) at ``f``: I_{df2/(df2 + df1 f)}(df2/2, df1/2) (Table 89)."""
    return sp.betainc_regularized(sp.Rational(df2, 2), sp.Rational(df1, 2), 0, df2 / (df2 + df1 * f))


def pooled_t_statistic(a: Values, b: Values) -> sp.Expr:
    """Student's two-sample t with pooled variance, mean(a) - mean(b) over its standard error (Table 84)."""
    na, nb = len(a), len(b)
    ss = (na - 1) * variance(a, 1) + (nb - 1) * variance(b, 1)
    pooled = ss / (na + nb - 2)
    return (sample_mean(a) - sample_mean(b)) / sp.sqrt(pooled * (na + nb) / (na * nb))


def welch_t_statistic(a: Values, b: Values) -> sp.Expr:
    """Welch's t (unpooled variances): the alternative Table 84 did not use."""
    va, vb = variance(a, 1), variance(b, 1)
    return (sample_mean(a) - sample_mean(b)) / sp.sqrt(va / len(a) + vb / len(b))


def task_difficulty(chain: sp.Expr, vocab: sp.Expr) -> sp.Expr:
    """Table 85 [R?]: d(l, V) = sqrt(ln(l + 1) ln V / (ln 25 ln 512)); 1 at (l, V) = (24, 512)."""
    return sp.sqrt(sp.log(chain + 1) * sp.log(vocab) / (sp.log(25) * sp.log(512)))


def log_spaced_angles(lo: sp.Expr, hi: sp.Expr, count: int) -> list[sp.Expr]:
    """``count`` log-spaced points lo (hi/lo)^{k/(count-1)} (Table 61: 20 points on [0.02, pi])."""
    return [lo * (hi / lo) ** sp.Rational(k, count - 1) for k in range(count)]


def bandpass_band(center: sp.Expr, width: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """The bandpass RoPE family of width b: frequencies in [theta (1 - b), theta (1 + b)] (Table 64)."""
    return center * (1 - width), center * (1 + width)


def transformer_parameters(layers: int, width: int, vocab: int, *, tied: bool) -> int:
    """Leading-order parameter count 12 N d^2 + V d (tied) or + 2 V d (untied embeddings);
    biases, LayerNorm and position embeddings are left out (psa.md §3.6)."""
    return 12 * layers * width**2 + (1 if tied else 2) * vocab * width


def step_ratio_limit(rho: sp.Expr) -> sp.Expr:
    """sqrt(E|q_t - q_{t-1}|^2 / E|q_t|^2) = sqrt(2 (1 - rho)) for a stationary isotropic stream
    with lag-one correlation rho: sqrt 2 for i.i.d. tokens (Table 31 at gamma = 0, psa.md §2.2)."""
    var, cov = sp.Symbol("sigma2", positive=True), sp.Symbol("c", real=True)
    step = (var + var - 2 * cov) / var  # E|a - b|^2 = E|a|^2 + E|b|^2 - 2 E a.b, per coordinate
    return sp.sqrt(sp.simplify(step.subs(cov, rho * var)))


def fir_memory(transfer: sp.Expr, zz: sp.Expr = z) -> int:
    """The number of past inputs a causal FIR H(z) (a polynomial in z^{-1}) reads: its degree in z^{-1}."""
    w = sp.Dummy("w")  # not Symbol("w"): a transfer holding a symbol of that name would meet it here
    return int(sp.degree(sp.expand(transfer.subs(zz, 1 / w)), w))


def decode_extra_state(d: sp.Expr, layers: sp.Expr, transfer: sp.Expr, streams: int = 2) -> sp.Expr:
    """Prop 73: persistent state beyond the KV cache when ``streams`` streams (q and k) go through the FIR
    ``transfer``: each keeps its last ``fir_memory`` raw vectors of width d, per layer."""
    return streams * fir_memory(transfer) * d * layers


def kv_cache_size(d: sp.Expr, layers: sp.Expr, T: sp.Expr) -> sp.Expr:
    """The KV cache: one key and one value of width d per token and layer."""
    return 2 * d * layers * T


def chance_level(T: sp.Expr) -> sp.Expr:
    """1/(T - 1): one target among T - 1 candidate keys (psa.md §1.7; Table 7's 0.0714 at T = 15)."""
    return 1 / (sp.sympify(T) - 1)


def query_only_cap(T: sp.Expr) -> sp.Expr:
    """Cor 68: query-only accuracy is capped at 1/(T - 2) (0.077 at T = 15)."""
    return 1 / (sp.sympify(T) - 2)


def spearman_rho(squared_rank_differences: int, n: int) -> sp.Expr:
    """Spearman's rho = 1 - 6 sum d_i^2 / (n (n^2 - 1)) for n untied pairs."""
    return 1 - sp.Rational(6 * squared_rank_differences, n * (n**2 - 1))
