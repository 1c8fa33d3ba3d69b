"""Power law graph attention / PLDR-LLM (Gokden, 2026): the mathematics.

Spec: ``../shared/spec/plga.md`` (§1-§2). Exact where possible: RoPE frequencies are algebraic
numbers base^{-2j/d_k}, the NOTEARS function is h(M) = tr exp(M o M) - d, the twirl constant is
C_Theta = max 1/|sin(omega/2)| over the nonzero difference frequencies.

The ``*_lemma`` functions return named exact facts ``(name, fact)`` for the certificates: each fact
is a SymPy relational, an expression or matrix that must reduce to zero, or a :class:`Decision` of
an exact procedure (z3 over the reals or integers). They are symbolic in every parameter the
paper's statement quantifies over (the size d or d_k, the power k, the base, the angles) unless
their docstring says otherwise.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from functools import cache
from itertools import combinations

import sympy as sp

from attncert.theory.exact import Decision, evaluates_true, matrix_identity, z3_valid

u = sp.Symbol("u", real=True)

#: The RoPE base Theta (§4.1, App. B).
ROPE_BASE = 10_000
#: Head width d_k of the audited model (App. B, D.1).
D_K = 64
#: The A_LM floor epsilon of Def 3.2 (exact).
EPS_FLOOR = sp.Rational(1, 10**9)
#: The LayerNorm epsilon of §2.2 (exact).
EPS_LN = sp.Rational(1, 10**6)
_QUARTER, _HALF = sp.Rational(1, 4), sp.Rational(1, 2)

Fact = tuple[str, object]


def z3_multivariate(poly: sp.Expr, variables: dict[sp.Symbol, object]) -> object:
    """A polynomial with rational coefficients in several symbols as a z3 term, each symbol replaced by its
    z3 twin in ``variables`` (exact coefficients); anything else raises SymPy's PolynomialError or a TypeError."""
    import z3

    symbols = tuple(variables)
    term = z3.RealVal(0)
    for powers, coefficient in sp.Poly(poly, *symbols).terms():
        monomial = z3.RealVal(str(sp.Rational(coefficient)))
        for symbol, power in zip(symbols, powers, strict=True):
            monomial = monomial * variables[symbol] ** power if power else monomial
        term = term + monomial
    return term


def z3_in_sigmoid(expr: sp.Expr, x: sp.Symbol, u: object, s_u: object) -> object:
    """``expr``, a function of x and e^{-x} that is a polynomial in x and s(x) = 1/(1 + e^{-x}) (a derivative
    of an activation built from the sigmoid), as a z3 term in u and s(u): e^{-x} = (1 - s)/s."""
    s = sp.Dummy("s")
    return z3_multivariate(sp.cancel(expr.subs(sp.exp(-x), (1 - s) / s)), {x: u, s: s_u})


def z3_rational_nonnegative(
    expr: sp.Expr, symbol: sp.Symbol, variable: object, hypotheses: tuple = (), how: str = ""
) -> Decision:
    """Decide ``hypotheses => expr >= 0`` for a rational function ``expr`` of ``symbol`` (``variable`` its z3
    twin): with expr = num/den (common denominator, nothing cancelled, so no pole is lost), valid iff
    num * den >= 0 and den != 0 wherever the hypotheses hold (a quotient has its product's sign)."""
    import z3

    num, den = sp.fraction(sp.together(expr))
    top, bottom = z3_multivariate(num, {symbol: variable}), z3_multivariate(den, {symbol: variable})
    return z3_valid(z3.And(top * bottom >= 0, bottom != 0), hypotheses, f"{how}: ({num})/({den}) >= 0")


def z3_abs_at_most(x: object, bound: object) -> object:
    """|x| <= bound as a z3 formula (both sides: -bound <= x <= bound)."""
    import z3

    return z3.And(x <= bound, -bound <= x)


def z3_admits(constraints: tuple, witness: tuple, how: str) -> Decision:
    """Decide that ``constraints`` hold at ``witness``: a lemma's hypotheses must admit the boundary
    cases of the claim, or the lemma proves less than it says. The witness must be one point: with the
    constraints it fixes every variable (decided: no second solution), because a witness such as
    ``x != 1`` is satisfiable away from the boundary it is meant to test."""
    import z3
    from z3.z3util import get_vars

    solver = z3.Solver()
    solver.add(*constraints, *witness)
    answer = solver.check()
    if answer != z3.sat:
        return Decision(False, f"z3: {how} ({answer})")
    model = solver.model()
    variables = {str(v): v for formula in (*constraints, *witness) for v in get_vars(formula)}.values()
    solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in variables]))
    one_point = solver.check() == z3.unsat
    return Decision(one_point, f"z3: {how} ({'satisfiable, at one point' if one_point else 'satisfiable, but not at one point'})")


def z3_range_end(constraints: tuple, variable: object, end: object, *, side: str, pins: tuple = (), how: str) -> Decision:
    """Decide that ``end`` is the ``side`` ("low" or "high") end of ``variable``'s range under ``constraints``:
    they admit ``variable == end`` (``pins`` fixing the other variables: one point, as in ``z3_admits``) and
    imply ``variable >= end`` (low) or ``variable <= end`` (high). One value serves both, so a witness
    moved inside the range (admitted, yet no end) fails, and so do constraints stricter than the range."""
    if side not in ("low", "high"):
        raise ValueError(f"side must be 'low' or 'high', not {side!r}")
    admitted = z3_admits(constraints, (variable == end, *pins), how)
    implied = z3_valid(
        variable >= end if side == "low" else variable <= end,
        constraints,
        f"nothing {'below' if side == 'low' else 'above'} {how}",
    )
    return Decision(admitted.holds and implied.holds, f"{admitted.how}; {implied.how}")


# --- definitions -------------------------------------------------------------------------
def iswiglu(x: sp.Expr = u) -> sp.Expr:
    """iSwiGLU(u) = u * silu(u) = u^2 sigmoid(u) (Def 3.1)."""
    return x**2 / (1 + sp.exp(-x))


def rope_frequency(j: sp.Expr, dk: sp.Expr, base: sp.Expr | None = None) -> sp.Expr:
    """theta_j = base^{-2j/d_k} (eq. 4.1, 0-based j = 0..d_k/2 - 1), exact; base defaults to ROPE_BASE."""
    return sp.sympify(ROPE_BASE if base is None else base) ** (-2 * sp.sympify(j) / dk)


def rope_planes(dk: int) -> int:
    """The number d_k/2 of RoPE planes (eq. 4.1). RoPE rotates coordinate pairs, so d_k must be a positive
    even integer: an odd d_k would leave one coordinate unrotated, which the paper never defines.
    (dk % 2 is nonzero for every non-integer too, NaN and infinities included.)"""
    if dk <= 0 or dk % 2:
        raise ValueError(f"RoPE needs d_k a positive even integer, not {dk}")
    return int(dk) // 2


def rope_frequencies(dk: int = D_K, base: int | None = None) -> list[sp.Expr]:
    """theta_j = base^{-2j/d_k}, j = 0..d_k/2 - 1 (eq. 4.1), exact algebraic numbers."""
    return [rope_frequency(j, dk, base) for j in range(rope_planes(dk))]


def rotation(theta: sp.Expr) -> sp.Matrix:
    """The plane rotation Rot(theta) of one RoPE plane."""
    return sp.Matrix([[sp.cos(theta), -sp.sin(theta)], [sp.sin(theta), sp.cos(theta)]])


def twirl_multiplier(omega: sp.Expr, S: int) -> sp.Expr:
    """mu_S(omega) = |sin(S omega/2)| / (S |sin(omega/2)|): the exact multiplier of frequency omega (Lemma 5.9)."""
    return sp.Abs(sp.sin(S * omega / 2)) / (S * sp.Abs(sp.sin(omega / 2)))


def twirl_constant(dk: int = D_K, base: int | None = None) -> sp.Expr:
    """C_Theta = 1/sin(omega_min/2) with omega_min = theta_{d/2 - 2} - theta_{d/2 - 1} (Lemma 5.9, plga.md C25)."""
    thetas = rope_frequencies(dk, base)
    return 1 / sp.sin((thetas[-2] - thetas[-1]) / 2)


def _adjacency_order(M: sp.Matrix) -> int:
    """d, the order of the square adjacency matrix M: NOTEARS and its closed walks are defined for no other
    (read once here, so that no count of rows or columns can disagree with the other)."""
    if not M.is_square:
        raise ValueError(f"NOTEARS needs a square adjacency matrix, not {M.rows} x {M.cols}")
    return M.rows


def notears(M: sp.Matrix) -> sp.Expr:
    """h(M) = tr exp(M o M) - d (Thm 4.4)."""
    d = _adjacency_order(M)
    return (M.multiply_elementwise(M)).exp().trace() - d


def closed_walk_weights(M: sp.Matrix) -> list[sp.Expr]:
    """tr (M o M)^k for k = 1..d: the total weight of closed walks of length k (eq. 4.12); h(M) is
    sum_k tr (M o M)^k / k!, and a support is acyclic iff all of these vanish."""
    d = _adjacency_order(M)
    N = M.multiply_elementwise(M)
    out, power = [], sp.eye(d)
    for _ in range(d):
        power = power * N
        out.append(power.trace())
    return out


def rank_one_generator(alpha: list[sp.Expr]) -> sp.Matrix:
    """A = 1 alpha^T: identical rows (Prop 3.9)."""
    return sp.ones(len(alpha), 1) * sp.Matrix([alpha])


def commutant_block(c: sp.Expr, s: sp.Expr) -> sp.Matrix:
    """c I + s J on one plane: the torus commutant (Prop 4.1)."""
    return sp.Matrix([[c, -s], [s, c]])


def commutant_projection_block(B: sp.Matrix) -> tuple[sp.Expr, sp.Expr]:
    """The Frobenius projection of a 2 x 2 block onto span{I, J}: (c, s) = ((B11 + B22)/2, (B21 - B12)/2) (Lemma 5.9's P_T)."""
    return (B[0, 0] + B[1, 1]) / 2, (B[1, 0] - B[0, 1]) / 2


# --- Prop 3.6 -----------------------------------------------------------------------------
def density_operator_lemma(gram: Callable[[sp.MatrixExpr], sp.MatrixExpr]) -> list[Fact]:
    """Prop 3.6 for Q of symbolic size S x d_k: D = gram(Q) is symmetric and v^T D v = |Q v|^2 for
    every v (so D is PSD, and D v = 0 iff Q v = 0: ker D = ker Q, rank D = rank Q <= min(S, d_k));
    entrywise D_ij = sum_n Q_ni Q_nj (S times the uncentred second moment)."""
    S, d = sp.symbols("S d_k", integer=True, positive=True)
    Q, v = sp.MatrixSymbol("Q", S, d), sp.MatrixSymbol("v", d, 1)
    D = gram(Q)
    i, j, n = sp.symbols("i j n", integer=True)
    entry = D[i, j].replace(lambda e: isinstance(e, sp.Sum), lambda e: e.xreplace({e.variables[0]: n}))
    return [
        ("D^T = D", matrix_identity((D.T - D).doit(), "D^T - D")),
        ("v^T D v = (Q v)^T (Q v) = |Q v|^2 >= 0", matrix_identity(v.T * D * v - (Q * v).T * (Q * v), "v^T D v - (Q v)^T (Q v)")),
        (
            "D v = 0 => |Q v|^2 = v^T D v = 0 => Q v = 0, and Q v = 0 => D v = Q^T (Q v) = 0",
            matrix_identity(D * v - Q.T * (Q * v), "D v - Q^T (Q v)"),
        ),
        (
            "D_ij = sum_n Q_ni Q_nj (S times the second moment), symbolic i, j, S",
            entry - sp.Sum(Q[n, i] * Q[n, j], (n, 0, S - 1)),
        ),
    ]


# --- Prop 3.7 -----------------------------------------------------------------------------
def power_law_lemma(combine: Callable[[sp.Expr, sp.Expr], sp.Expr]) -> list[Fact]:
    """Prop 3.7 entrywise for symbolic a > 0, p, s, t: positivity A_LM = iSwiGLU + eps >= eps > 0,
    smoothness (the derivatives of a^(p t) stay in the algebra generated by a^(p t), log a, 1/a, p),
    the group law, A^(o 0) = 1 and the log-linear flow."""
    a, p, s, t = sp.symbols("a p s t", positive=True)
    x = sp.Symbol("x", real=True)

    def power(e):
        return sp.exp(e * p * sp.log(a))

    return [
        (
            "iSwiGLU(x) + eps >= eps: {x : iSwiGLU(x) < 0} is empty",
            sp.Eq(sp.solveset(iswiglu(x) < 0, x, sp.S.Reals), sp.S.EmptySet),
        ),
        ("eps > 0", sp.Gt(EPS_FLOOR, 0)),
        ("d/da a^(pt) = (p t / a) a^(pt)", sp.diff(power(t), a) - p * t / a * power(t)),
        ("d/dp a^(pt) = t log(a) a^(pt)", sp.diff(power(t), p) - t * sp.log(a) * power(t)),
        ("group law", power(s + t) - combine(power(s), power(t))),
        ("A^(o 0) = 1 1^T", power(0) - 1),
        ("log-linear flow dL/dt = P o log A", sp.diff(sp.expand_log(sp.log(power(t)), force=True), t) - p * sp.log(a)),
    ]


# --- Prop 3.9 -----------------------------------------------------------------------------
def rank_one_lemma(power_law: Callable[[sp.Expr, sp.Expr], sp.Expr]) -> list[Fact]:
    """Prop 3.9 (i)-(iii) for A = u v^T of symbolic size d (entries A_ij = u_i v_j), s = v^T u:
    A^2 = s A; A^k = power_law(s, k) A for every k >= 1 by induction (base k = 1 and the step k -> k + 1
    with symbolic k); every 2 x 2 minor vanishes (rank <= 1); the matrix determinant lemma
    det(I + a b^T) = 1 + b^T a by a block factorisation; hence chi_A(lambda) = lambda^{d-1}(lambda - s),
    det A = 0 for d >= 2 and the spectrum {0, s}; A/s is idempotent (s != 0), A^2 = 0 (s = 0).
    The paper's A = 1 alpha^T is u = 1, v = alpha (then A 1 = s 1)."""
    d = sp.Symbol("d", integer=True, positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    i, j, l_, m = sp.symbols("i j l_ m", integer=True)
    uu, vv = sp.IndexedBase("u"), sp.IndexedBase("v")

    def A(a, b):
        return uu[a] * vv[b]

    s = sp.Sum(vv[l_] * uu[l_], (l_, 1, d))
    lam, sv = sp.Symbol("lambda", nonzero=True), sp.Symbol("s")
    # factor_terms pulls the factors free of the summation index out of each sum (an exact rewrite)
    square = sp.factor_terms(sp.Sum(A(i, l_) * A(l_, j), (l_, 1, d)))
    step = sp.powsimp(sp.factor_terms(sp.Sum(power_law(s, k) * A(i, l_) * A(l_, j), (l_, 1, d))))
    # matrix determinant lemma: L (Id + a b^T, a; 0, 1) L' = (Id, a; 0, 1 + b^T a) with unit triangular L, L'
    n = sp.Symbol("n", integer=True, positive=True)
    a_, b_ = sp.MatrixSymbol("a", n, 1), sp.MatrixSymbol("b", n, 1)
    Id, one, z = sp.Identity(n), sp.Identity(1), sp.ZeroMatrix(n, 1)
    product = sp.block_collapse(
        sp.BlockMatrix([[Id, z], [b_.T, one]])
        * sp.BlockMatrix([[Id + a_ * b_.T, a_], [z.T, one]])
        * sp.BlockMatrix([[Id, z], [-b_.T, one]])
    )
    target = sp.BlockMatrix([[Id, a_], [z.T, one + b_.T * a_]])
    dd = sp.Symbol("delta", integer=True, nonnegative=True)  # d = delta + 2 >= 2
    chi = lam ** (dd + 1) * (lam - sv)  # lambda^{d-1} (lambda - s); the fact "chi_A at d = delta + 2" ties it to chi_A
    return [
        ("(A^2)_ij = s A_ij", square - s * A(i, j)),
        ("induction base: A^1 = power_law(s, 1) A", power_law(sv, 1) * A(i, j) - A(i, j)),
        (
            "induction step: (A^k A)_ij = power_law(s, k + 1) A_ij for symbolic k",
            step - sp.powsimp(power_law(s, k + 1) * A(i, j)),
        ),
        ("every 2 x 2 minor vanishes: rank A <= 1", A(i, j) * A(l_, m) - A(i, m) * A(l_, j)),
        (
            "determinant lemma: block factorisation of Id + a b^T",
            Decision(
                all(isinstance(sp.expand(blk), sp.ZeroMatrix) for blk in sp.block_collapse(product - target).blocks),
                "sympy block_collapse + expand: L (Id + a b^T, a; 0, 1) L' = (Id, a; 0, 1 + b^T a) blockwise, so "
                "det(Id + a b^T) = det L (Id + a b^T, a; 0, 1) L' = 1 + b^T a (unit triangular L, L')",
            ),
        ),
        (
            "chi_A(lambda) = lambda^d det(Id - u v^T / lambda) = lambda^d (1 - s/lambda) = lambda^{d-1}(lambda - s)",
            sp.expand(lam**d * (1 - sv / lam) - lam ** (d - 1) * (lam - sv)),
        ),
        ("chi_A at d = delta + 2 is the product below", sp.expand((lam**d * (1 - sv / lam)).subs(d, dd + 2) - chi)),
        ("det A = (-1)^d chi_A(0) = 0 for d >= 2", sp.Eq(chi.subs(lam, 0), 0)),
        ("spectrum: lambda^{d-1} = chi_A / (lambda - s) != 0 for lambda != 0 ...", sp.Ne(sp.cancel(chi / (lam - sv)), 0)),
        (
            "... so chi_A(lambda) = 0 iff lambda (lambda - s) = 0 iff lambda in {0, s} (d >= 2)",
            sp.Eq(sp.solveset(sp.Symbol("mu") * (sp.Symbol("mu") - sv), sp.Symbol("mu"), sp.S.Complexes), sp.FiniteSet(0, sv)),
        ),
        ("(A/s)^2 = A/s for s != 0", square / s**2 - A(i, j) / s),
        ("s = 0: (A^2)_ij = 0 (nilpotent of index 2 when alpha != 0)", sp.Eq(square.subs(s, 0), 0)),
        (
            "A = 1 alpha^T: (A 1)_i = sum_l alpha_l = s",
            sp.Sum(A(i, l_), (l_, 1, d)).subs(uu[i], 1) - sp.Sum(vv[l_] * 1, (l_, 1, d)),
        ),
    ]


# --- Prop 4.1 / Cor 7.1 ------------------------------------------------------------------
FrequencyLaw = Callable[[sp.Expr, sp.Expr, sp.Expr], sp.Expr]


def _frequency_symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Expr, sp.Expr]:
    """Symbolic (j, h, d_k, base) with d_k = 2h (every even d_k), 0 <= j, base = 1 + t > 1."""
    j = sp.Symbol("j", integer=True, nonnegative=True)
    h = sp.Symbol("h", integer=True, positive=True)
    t = sp.Symbol("t", positive=True)
    return j, h, 2 * h, 1 + t


@cache
def frequency_structure_lemma(law: FrequencyLaw = rope_frequency) -> tuple[Fact, ...]:
    """For every even d_k = 2h, every base = 1 + t > 1 and every 0 <= j: theta_j = law(j, d_k, base)
    is positive, at most theta_0, strictly decreasing in j, and theta_0 < pi (Prop 4.1 Claim A's
    structural facts), proved on log theta_j = log theta_0 - 2 j log(base)/d_k."""
    j, h, dk, base = _frequency_symbols()
    (t,) = base.free_symbols
    theta0 = sp.simplify(law(0, dk, base))
    # no force=True: the logs split because base = 1 + t > 0 and d_k = 2h > 0, so the assumptions carry it
    log_ratio = sp.expand_log(sp.log(law(j + 1, dk, base) / law(j, dk, base)))
    log_decay = sp.expand_log(sp.log(law(j, dk, base) / theta0))
    # the signs are decided from the assumptions alone: for a base not known to exceed 1 (a wrong family)
    # simplify could run from 1 s to past 15 s, depending on the hash seed, before answering False
    return (
        (
            # the facts below hold for any d_k > 0: this one says which d_k they are about
            "the family d_k = 2h holds every even d_k: at h = 1 and h = 32 its theta_j are those of d_k = 2 and 64",
            sp.Matrix([law(j, dk, base).subs(h, 1) - law(j, 2, base), law(j, dk, base).subs(h, 32) - law(j, 64, base)]),
        ),
        (
            # likewise for the base: the claim is about every base > 1, not a narrower family
            "the family base = 1 + t, t > 0, holds every base > 1: it reaches base -> 1 as t -> 0",
            sp.Eq(base.subs(t, 0), 1),
        ),
        ("theta_j > 0", sp.Gt(law(j, dk, base), 0)),
        (
            # a sign, not a bound, as below: "<= 0" weakened to "<= 1" would still hold and prove nothing
            "log(theta_j / theta_0) = -2 j log(base)/d_k has sign -sign(j): <= 0, and 0 only at j = 0",
            evaluates_true(sp.Eq(sp.sign(sp.factor_terms(sp.expand(log_decay))), -sp.sign(j)), (j, h, t)),
        ),
        (
            # the sign itself, not a bound: "< 0" weakened to "< 1" would still hold and prove nothing
            "log(theta_{j+1}/theta_j) = -2 log(base)/d_k has sign -1 (strictly decreasing)",
            evaluates_true(sp.Eq(sp.sign(sp.factor_terms(sp.expand(log_ratio))), -1), (j, h, t)),
        ),
        (
            # the ratio above is of neighbours: theta_{j+2} < theta_j would hold for a zigzag as well
            "that ratio is one step: log(theta_{j+1}/theta_j) = log(theta_{j+1}/theta_0) - log(theta_j/theta_0)",
            log_ratio - (log_decay.subs(j, j + 1) - log_decay),
        ),
        ("theta_0 < pi", sp.Lt(theta0, sp.pi)),
    )


@cache
def sine_positive_lemma() -> tuple[Fact, ...]:
    """sin > 0 on (0, pi) (SymPy solveset: on [0, pi], sin x <= 0 exactly at the ends), and
    cos a - cos b = -2 sin((a+b)/2) sin((a-b)/2): hence cos is strictly decreasing
    on [0, pi], so distinct angles in (0, pi) have distinct cosines and nonzero sines."""
    x, a, b = sp.symbols("x a b", real=True)
    return (
        (
            # on the closed interval, so that a strict "sin x < 0" (empty everywhere on [0, pi]) cannot pass
            "{x in [0, pi] : sin x <= 0} = {0, pi}, so sin > 0 on (0, pi)",
            sp.Eq(sp.solveset(sp.sin(x) <= 0, x, sp.Interval(0, sp.pi)), sp.FiniteSet(0, sp.pi)),
        ),
        (
            "cos a - cos b = -2 sin((a+b)/2) sin((a-b)/2)",
            sp.expand_trig(sp.cos(a) - sp.cos(b) + 2 * sp.sin((a + b) / 2) * sp.sin((a - b) / 2)).rewrite(sp.exp),
        ),
    )


def block_commutator(ca: sp.Expr, sa: sp.Expr, cb: sp.Expr, sb: sp.Expr) -> sp.Matrix:
    """vec of X -> R_a X - X R_b on a 2 x 2 block (column-major vec): I (x) R_a - R_b^T (x) I."""
    Ra, Rb = commutant_block(ca, sa), commutant_block(cb, sb)
    return sp.kronecker_product(sp.eye(2), Ra) - sp.kronecker_product(Rb.T, sp.eye(2))


@cache
def commutant_block_lemma() -> tuple[Fact, ...]:
    """The 2 x 2-block lemma for rotations R_a = (c_a, -s_a; s_a, c_a) (c^2 + s^2 = 1, symbolic):
    det(I (x) R_a - R_b^T (x) I) = 4 (c_a - c_b)^2, so the off-diagonal block map is injective iff
    cos theta_a != cos theta_b; on a diagonal block the map is sin(theta) K with an integer K of
    rank 2 whose kernel is span{vec I, vec J}: the diagonal kernel is {c I + s J} when sin theta != 0."""
    ca, sa, cb, sb = sp.symbols("c_a s_a c_b s_b", real=True)
    from sympy.polys.matrices import DomainMatrix

    block = DomainMatrix.from_Matrix(block_commutator(ca, sa, cb, sb))
    det = sp.expand(block.domain.to_sympy(block.det()))  # exact polynomial determinant
    det_on_circle = sp.expand(det.subs({sa**2: 1 - ca**2, sb**2: 1 - cb**2}))  # subs also rewrites s^4 = (s^2)^2
    c, s = sp.symbols("c s", real=True)
    K = sp.Matrix([[0, -1, -1, 0], [1, 0, 0, -1], [1, 0, 0, -1], [0, 1, 1, 0]])
    vec_I, vec_J = sp.Matrix([1, 0, 0, 1]), sp.Matrix([0, 1, -1, 0])
    return (
        (
            "det(I (x) R_a - R_b^T (x) I) = 4 (cos a - cos b)^2 on the unit circle",
            sp.expand(det_on_circle - 4 * (ca - cb) ** 2),
        ),
        ("diagonal block: I (x) R - R^T (x) I = sin(theta) K", block_commutator(c, s, c, s) - s * K),
        ("rank K = 2", sp.Eq(K.rank(), 2)),
        ("K vec(I) = 0", K * vec_I),
        ("K vec(J) = 0", K * vec_J),
    )


def commutant_dimension_lemma(law: FrequencyLaw = rope_frequency) -> list[Fact]:
    """dim {G : G R_1 = R_1 G} = d_k for every even d_k and base > 1 (Prop 4.1 Claim B, Cor 7.1): the
    commutator is block diagonal over the (d_k/2)^2 plane pairs; off-diagonal blocks contribute 0
    (cosines distinct by the frequency structure and the sine lemma), diagonal blocks 2 each (sines
    nonzero); the sum is d_k, and d_k^2 - d_k = 4032 at d_k = 64."""
    a = sp.Symbol("a", integer=True, positive=True)
    h = sp.Symbol("h", integer=True, positive=True)
    diagonal, off_diagonal = h, h * (h - 1)  # ordered plane pairs (a, a) and (a, b), a != b
    dim = sp.Sum(2, (a, 1, diagonal)).doit() + sp.Sum(0, (a, 1, off_diagonal)).doit()
    return [
        *frequency_structure_lemma(law),
        *sine_positive_lemma(),
        *commutant_block_lemma(),
        (
            "the blocks are the (d_k/2)^2 plane pairs: d_k/2 diagonal + (d_k/2)(d_k/2 - 1) off-diagonal",
            sp.expand(diagonal + off_diagonal - h**2),
        ),
        ("dim = sum over the d_k/2 diagonal blocks of 2 + sum over off-diagonal blocks of 0 = d_k", dim - 2 * h),
        ("codimension d_k^2 - d_k = 4032 at d_k = 64", sp.Eq(((2 * h) ** 2 - dim).subs(h, 32), 4032)),
    ]


def nonresonance_lemma(law: FrequencyLaw = rope_frequency) -> list[Fact]:
    """Prop 4.1 Claim A for every even d_k and base > 1: with 0 < theta_b < theta_a <= theta_0 < pi,
    2 theta_a, theta_a - theta_b and theta_a + theta_b lie in (0, 2 pi), so none is a multiple of 2 pi
    (the last step by z3 over the reals)."""
    import z3

    _, _, dk, base = _frequency_symbols()
    theta0 = sp.simplify(law(0, dk, base))
    ta, tb, pi, top = z3.Reals("theta_a theta_b pi theta_0")
    # theta_0 = bound < pi, both decided below (for the law, and for SymPy's pi) and assumed by the z3 step:
    # one number for all three. pi > bound is the least the step needs (2 theta_a <= 2 bound < 2 pi); it was
    # pi > 3, never decided of pi itself, so the false pi > 3.142 would have passed as well
    bound = 1
    hyps = (0 < tb, tb < ta, ta <= top, top <= bound, pi > bound)
    # Claim A's three frequencies, written once: the claim, the nonresonance and the resonances all use them
    combos = (2 * ta, ta - tb, ta + tb)
    claim = z3.And(*(z3.And(f > 0, f < 2 * pi) for f in combos))
    n = z3.Int("n")
    lemma_form = z3.And(*(f != 2 * pi * n for f in combos))  # none of the three in 2 pi Z, at one n
    nonresonant = z3.ForAll([n], lemma_form)
    # the statement is not weaker than Claim A: each of the three resonances falsifies it (n = 1, whatever pi is)
    rejects = [z3_valid(z3.Not(nonresonant), (f == 2 * pi,), f"{f} = 2 pi falsifies it") for f in combos]
    # E11: Prop 4.1's form (theta_a != +-theta_b mod 2 pi, theta_a != 0 mod pi), written as printed, is the
    # form built from the three frequencies above (Lemma 5.9's), clause by clause for every n and every real pi
    # (theta_a = pi n <=> 2 theta_a = 2 pi n needs no bound on pi, so none is assumed)
    prop41 = z3.And(ta != pi * n, ta - tb != 2 * pi * n, ta + tb != 2 * pi * n)
    same_forms = z3_valid(
        z3.ForAll([n], prop41 == lemma_form),
        (),
        "theta_a, theta_a -+ theta_b against 2 pi Z: Prop 4.1's form <=> the frequencies' form",
    )
    return [
        *frequency_structure_lemma(law),
        # equality, the top of Prop 4.1's (0, 1]: a looser bound would prove the same, unseen
        ("theta_0 = 1, the top of (0, 1]: 2 theta_0 < 2 pi needs 1 < pi", sp.Eq(theta0, bound)),
        ("... and 1 < pi (the z3 step's hypothesis on pi, decided for pi itself)", sp.Gt(sp.pi, bound)),
        (
            "0 < theta_b < theta_a <= theta_0 <= 1 => 2 theta_a, theta_a -+ theta_b in (0, 2 pi)",
            z3_valid(claim, hyps, "frequencies in (0, 2 pi)"),
        ),
        (
            "those hypotheses admit theta_a = theta_0 = 1 (the top frequency at its bound) with pi = 22/7",
            z3_admits(hyps, (ta == 1, top == 1, tb == z3.RealVal("0.5"), pi == z3.RealVal("22/7")), "theta_a = theta_0 = 1"),
        ),
        (
            "the three frequencies are distinct under those hypotheses (none listed twice)",
            z3_valid(z3.Distinct(*combos), hyps, "distinct"),
        ),
        (
            "... and a number in (0, 2 pi) is no multiple of 2 pi: 2 theta_a, theta_a -+ theta_b not in 2 pi Z",
            z3_valid(z3.Implies(claim, nonresonant), (), "(0, 2 pi) excludes 2 pi Z, whatever pi"),
        ),
        (
            "that statement is Claim A itself: 2 theta_a, theta_a - theta_b or theta_a + theta_b in 2 pi Z falsifies it",
            Decision(all(r.holds for r in rejects), "; ".join(r.how for r in rejects)),
        ),
        ("E11: the two forms of nonresonance (Prop 4.1, Lemma 5.9) are equivalent", same_forms),
    ]


# --- Thm 4.4 ------------------------------------------------------------------------------
def _in_zero_band(row, col, width):
    """Entry (row, col) lies in a zero band of the given width: col < row + width. The one rule
    behind N's band and the powers' bands, so the lemma and its induction cannot disagree."""
    return col < row + width


def zero_band_induction(band: Callable[[object], object], offset: int) -> list[Fact]:
    """The zero bands of the powers of a matrix N with N_ij = 0 whenever j < i + offset, by induction
    on k >= 1 (z3 over the integers): (N^k)_ij = 0 whenever j < i + band(k). Base: band(1) is N's band;
    step: every term (N^k)_il N_lj of (N^{k+1})_ij vanishes when j < i + band(k + 1); then the diagonal
    of N^k vanishes when 0 < band(k). ``band`` maps a z3 integer k to the claimed width."""
    import z3

    i, j, mid, k = z3.Ints("i j l k")
    powers = (k >= 1,)  # the induction starts at k = 1

    def zero_in_n(row, col):
        return _in_zero_band(row, col, offset)

    def zero_in_power(row, col, power):
        return _in_zero_band(row, col, band(power))

    return [
        ("induction base: N^1 has the zero band of N", z3_valid(zero_in_power(i, j, 1) == zero_in_n(i, j), (), "band(1)")),
        (
            "induction step: the zero band of N^{k+1} follows from those of N^k and N",
            z3_valid(
                z3.Implies(zero_in_power(i, j, k + 1), z3.Or(zero_in_power(i, mid, k), zero_in_n(mid, j))),
                powers,
                "(N^{k+1})_ij = sum_l (N^k)_il N_lj: every term vanishes when j < i + band(k+1)",
            ),
        ),
        ("tr N^k = 0 for k >= 1: the diagonal lies in the band", z3_valid(zero_in_power(i, i, k), powers, "i < i + band(k)")),
        ("the induction's hypotheses start at k = 1", z3_range_end(powers, k, 1, side="low", how="k = 1")),
    ]


def notears_lemma(loops_are_cycles: bool = True) -> list[Fact]:
    """Thm 4.4 for every d: with N = M o M (entries w^2 >= 0), h(M) = sum_{k>=1} tr N^k / k! and
    tr N^k is the total weight of closed walks of length k, a sum of products of entries of N.
    Acyclic => h = 0: order the vertices topologically, so N_ij = 0 for j < i + 1 (self-loops count
    as cycles); by induction on k (``zero_band_induction``) (N^k)_ij = 0 for j < i + k, so every
    diagonal entry of N^k (k >= 1) vanishes, tr N^k = 0 and h = 0 (h sums from k = 1, where the
    induction starts). A cycle of length L with nonzero weights => one closed walk of positive weight
    prod w_e^2 and all others >= 0, so tr N^L > 0 and h >= tr N^L / L! > 0. ``loops_are_cycles = False``
    is the wrong reading in which a topological order only gives N_ij = 0 for j < i."""
    import z3

    w = sp.Symbol("w", real=True)
    i, j = z3.Int("i"), z3.Int("j")
    offset = 1 if loops_are_cycles else 0  # acyclic: N_ij = 0 whenever j < i + offset
    # the band of N is what a topological order gives, no more and no less: N_ij is free exactly on the
    # edges i -> j the order allows, i < j (a self-loop is a cycle; i <= j in the wrong reading). Written
    # without the offset, so that a band one column wider (offset 2: it proves h = 0 only for the DAGs
    # without the edges i -> i + 1) or narrower fails, where a range end at j = i + offset agreed with any
    topological = i < j if loops_are_cycles else i <= j
    edges_forward = z3_valid(
        z3.Not(_in_zero_band(i, j, offset)) == topological, (), "N_ij is free iff the topological order allows i -> j"
    )
    y = sp.IndexedBase("y", positive=True)  # the squared weights w_e^2 > 0 along a cycle
    m, L = sp.Symbol("m", integer=True), sp.Symbol("L", integer=True, positive=True)
    # pinned by a_0 = 1 and the ratio a_{L+1} / a_L below (an induction), not only by its sign: a
    # wrong weight such as 2/L! is positive too
    coefficient = 1 / sp.factorial(L)
    # the lower bound on h a cycle gives; its sign alone would not tell a product from a quotient of
    # positives, so it is also evaluated on the 2-cycle with squared weights 4 and 9: 4 * 9 / 2! = 18
    cycle_weight = sp.Product(y[m], (m, 1, L))  # the closed walk around the cycle: prod w_e^2
    bound = coefficient * cycle_weight
    return [
        ("entries of N = M o M are >= 0", sp.Ge(w**2, 0)),
        ("the zero band of N is the topological order's, no more and no less: N_ij is free iff i -> j is allowed", edges_forward),
        *zero_band_induction(lambda power: power * offset, offset),
        ("a cycle of length L has closed-walk weight prod w_e^2 > 0", sp.Gt(cycle_weight, 0)),
        ("the weight of tr N^L in h is exp's Taylor coefficient a_L = 1/L!: a_0 = 1", coefficient.subs(L, 0) - 1),
        ("... and a_{L+1} = a_L / (L + 1), from (e^x)' = e^x", coefficient.subs(L, L + 1) - coefficient / (L + 1)),
        ("h >= tr N^L / L! >= prod w_e^2 / L! > 0 when a cycle exists (every term of h is >= 0)", sp.Gt(bound, 0)),
        (
            "... the bound prod w_e^2 / L! on a 2-cycle with w_e^2 = 4, 9 is 18",
            bound.subs(L, 2).doit().subs({y[1]: 4, y[2]: 9}) - 18,
        ),
    ]


# --- Prop 5.2 (iii) ----------------------------------------------------------------------
def softmax_shift_lemma(shift: Callable[[sp.Expr, sp.Expr], sp.Expr]) -> list[Fact]:
    """Prop 5.2 (iii), row level, for rows of any length (every step is termwise, for symbolic
    indices i, j): softmax(z') = softmax(z) if z'_i = shift(z_i, c) with the common shift z_i + c
    ("if"); and softmax(z') = softmax(z) forces z'_i - z_i = log sum e^{z'} - log sum e^{z}, the same
    for every i ("only if", by taking logs)."""
    i, j = sp.symbols("i j", integer=True)
    z, zp = sp.IndexedBase("z", real=True), sp.IndexedBase("zp", real=True)
    # the shift identities hold for every complex c, real ones included: no assumption, so none that
    # could narrow what is proved
    c = sp.Symbol("c")
    Zpos = sp.Symbol("Z", positive=True)  # sum_j e^{z_j}
    Zppos = sp.Symbol("Zp", positive=True)  # sum_j e^{z'_j}
    shifted = sp.exp(shift(z[j], c))
    # no force=True: the logs split because z is real and Z, Z' > 0, so the assumptions carry the proof
    log_p = sp.expand_log(sp.log(sp.exp(z[i]) / Zpos))
    log_pp = sp.expand_log(sp.log(sp.exp(zp[i]) / Zppos))
    return [
        ("if: e^{z'_j} = e^c e^{z_j} for every j, so sum_j e^{z'_j} = e^c sum_j e^{z_j}", shifted - sp.exp(c) * sp.exp(z[j])),
        (
            "if: e^{z'_i} / (e^c sum_j e^{z_j}) = e^{z_i} / sum_j e^{z_j}",
            shifted.subs(j, i) / (sp.exp(c) * Zpos) - sp.exp(z[i]) / Zpos,
        ),
        ("log p_i = z_i - log sum_j e^{z_j}", log_p - (z[i] - sp.log(Zpos))),
        (
            "only if: log p'_i = log p_i gives z'_i - z_i = log Z' - log Z, independent of i",
            (log_pp - log_p) - ((zp[i] - z[i]) - (sp.log(Zppos) - sp.log(Zpos))),
        ),
    ]


# --- Lemma 5.6 ----------------------------------------------------------------------------
def softmax_jacobian_lemma(constant: sp.Expr = sp.S.Half) -> list[Fact]:
    """Lemma 5.6 with the sharp constant (E5), every n: J = diag(p) - p p^T is symmetric PSD
    (x^T J x = sum p_i (x_i - m)^2 with m = sum p_i x_i, using sum p_i = 1), and by Gershgorin its
    eigenvalues are <= p_i - p_i^2 + p_i (1 - p_i) = 2 p_i (1 - p_i) <= constant (z3); so
    |J|_2 <= constant and softmax is constant-Lipschitz (mean value theorem on the convex R^n). Sharp:
    at n = 2, p = (1/2, 1/2), J has the eigenvalue 1/2."""
    import z3

    n = sp.Symbol("n", integer=True, positive=True)
    i = sp.Symbol("i", integer=True)
    # a probability vector and a real direction: the sign fact below reads both assumptions
    p, x = sp.IndexedBase("p", nonnegative=True), sp.IndexedBase("x", real=True)
    mean = sp.Sum(p[i] * x[i], (i, 1, n))
    one = sp.Sum(p[i], (i, 1, n))
    quad = sp.Sum(p[i] * x[i] ** 2, (i, 1, n)) - mean**2  # x^T diag(p) x - (p^T x)^2
    # sum_i p_i (x_i - m)^2 for a real m, split by linearity of the sum; at m = mean it is x^T J x
    m = sp.Symbol("m", real=True)
    square = sp.Sum(p[i] * (x[i] - m) ** 2, (i, 1, n))
    variance = sp.factor_terms(sp.expand(square.expand()))
    # quad is x^T J x itself: checked against the matrix diag(p) - p p^T at n = 3, every p and x
    p3, x3 = sp.Matrix(sp.symbols("p1:4")), sp.Matrix(sp.symbols("x1:4"))
    j3 = (x3.T * (sp.diag(*p3) - p3 * p3.T) * x3)[0, 0]
    at_three = quad.subs(n, 3).doit().subs({p[k]: p3[k - 1] for k in (1, 2, 3)} | {x[k]: x3[k - 1] for k in (1, 2, 3)})
    pi_ = z3.Real("p")
    probability = (pi_ >= 0, pi_ <= 1)
    gersh = z3_valid(2 * pi_ * (1 - pi_) <= z3.RealVal(str(constant)), probability, f"2 p (1 - p) <= {constant} on [0, 1]")
    J2 = sp.Matrix([[sp.Rational(1, 4), -sp.Rational(1, 4)], [-sp.Rational(1, 4), sp.Rational(1, 4)]])
    half = sp.Rational(1, 2)
    return [
        ("x^T J x = sum_i p_i x_i^2 - (sum_i p_i x_i)^2 (the matrix at n = 3)", sp.expand(j3 - at_three)),
        (
            "x^T J x = sum p_i (x_i - m)^2 at m = sum_i p_i x_i when sum p_i = 1",
            sp.expand((variance - quad).subs({one: 1, m: mean})),
        ),
        ("PSD: sum p_i (x_i - m)^2 >= 0 for p_i >= 0 and real x and m", sp.Ge(square, 0)),
        ("Gershgorin row bound 2 p_i (1 - p_i) <= constant", gersh),
        ("the row bound's hypotheses run from p = 0", z3_range_end(probability, pi_, 0, side="low", how="p = 0")),
        (
            "the row bound's hypotheses admit p = 1/2 (the maximiser)",
            z3_admits(probability, (pi_ == z3.RealVal("1/2"),), "p = 1/2"),
        ),
        ("the row bound's hypotheses run to p = 1", z3_range_end(probability, pi_, 1, side="high", how="p = 1")),
        (
            "sharp: diag(p) - p p^T at p = (1/2, 1/2) has eigenvalue 1/2 <= constant",
            sp.Eq(max(J2.eigenvals()), half) & sp.Le(half, constant),
        ),
    ]


# --- Lemma 5.9 ----------------------------------------------------------------------------
def geometric_sum_lemma(multiple: int = 1) -> list[Fact]:
    """Lemma 5.9's multiplier for symbolic S and omega, written in y = e^{i omega/2} (|y| = 1, y^2 != 1):
    sum_{n=1}^S y^{2n} = y^2 (y^{2S} - 1)/(y^2 - 1) (geometric series) equals
    y^{S+1} sin(S omega/2)/sin(omega/2) with sin(m omega/2) = (y^m - y^{-m})/(2i); as |y^{S+1}| = 1,
    |sum| = |sin(S omega/2)/sin(omega/2)| and mu_S = |sum|/S. ``multiple`` = 2 is the wrong
    sin(S omega)/sin(omega)."""
    S = sp.Symbol("S", integer=True, positive=True)
    n = sp.Symbol("n", integer=True)
    q = sp.Symbol("q", nonzero=True)  # q = y^2 = e^{i omega} != 1
    y = sp.Symbol("y", nonzero=True)
    series = sp.summation(q**n, (n, 1, S))
    general = series.args[1][0] if isinstance(series, sp.Piecewise) else series

    shift = sp.summation(q ** (n + 1), (n, 0, S - 1)) - series  # 0-based positions: the sum times e^{i omega}

    def sin_half(m):
        return (y ** (m * multiple) - y ** (-m * multiple)) / (2 * sp.I)

    omega = sp.Symbol("omega", real=True)
    m = sp.Symbol("m", integer=True, positive=True)
    return [
        ("sum_{n=1}^S q^n = q (q^S - 1)/(q - 1) for q != 1", sp.cancel(general - q * (q**S - 1) / (q - 1))),
        # the ratio below cancels sin_half's constant, so its reading as a sine is checked on its own
        (
            "(y^m - y^{-m})/(2i) is sin(m omega/2) at y = e^{i omega/2} (sin(m omega) in the wrong reading)",
            (sin_half(m).subs(y, sp.exp(sp.I * omega / 2)) - sp.sin(multiple * m * omega / 2)).rewrite(sp.exp),
        ),
        (
            "y^2 (y^{2S} - 1)/(y^2 - 1) = y^{S+1} sin(S omega/2)/sin(omega/2)",
            sp.cancel(y**2 * (y ** (2 * S) - 1) / (y**2 - 1) - y ** (S + 1) * sin_half(S) / sin_half(1)),
        ),
        ("E9: 0-based positions n = 0..S-1 give q^{-1} times the same sum (same modulus)", sp.simplify(shift)),
    ]


def symmetric_projection_lemma(
    projection: Callable[[sp.Matrix], tuple[sp.Expr, sp.Expr]] = commutant_projection_block,
) -> list[Fact]:
    """Lemma 5.9's P_T on one plane: (c, s) = projection(B) is the Frobenius projection onto
    span{I, J} (the residual B - (c I + s J) is orthogonal to I and J), and for symmetric M every
    diagonal block is symmetric, so the J_2 part s vanishes: P_T(M) = (+)_j c_j I_2."""
    B = sp.Matrix(2, 2, sp.symbols("b11 b12 b21 b22", real=True))
    c, s = projection(B)
    residual = B - commutant_block(c, s)
    J = commutant_block(0, 1)
    Bsym = B.subs(B[1, 0], B[0, 1])
    return [
        ("<B - P B, I>_F = 0", (residual.T * sp.eye(2)).trace()),
        ("<B - P B, J>_F = 0", (residual.T * J).trace()),
        ("symmetric block: J_2 component s = 0", projection(Bsym)[1]),
    ]


# --- Lemma 5.11 --------------------------------------------------------------------------
def layer_norm_lemma(radius: Callable[[sp.Expr, sp.Expr, sp.Expr], sp.Expr]) -> list[Fact]:
    """Lemma 5.11 (i)-(iii) for rows of symbolic length d: the mean of r + delta 1 is rbar + delta, so
    the centred row and the variance (hence rho) are shift invariant; rho(c r) - rho(r) has the stated
    closed form per centred component; |u|^2 = sum (r_i - rbar)^2/(v + eps) = d v/(v + eps) = radius,
    < d for eps > 0; and 1 - (1 + x)^{-1/2} <= x/2 on x >= 0, both by the derivative sign (f(0) = 0,
    f' = (1 - (1 + x)^{-3/2})/2 >= 0, decided by z3 in y = sqrt(1 + x) >= 1) and directly
    (y^3 - 3y + 2 = (y - 1)^2 (y + 2) >= 0, z3)."""
    import z3

    d = sp.Symbol("d", integer=True, positive=True)
    k = sp.Symbol("k", integer=True)
    r = sp.IndexedBase("r", real=True)
    delta = sp.Symbol("delta", real=True)
    eps, c, V, var = sp.symbols("epsilon c V v", positive=True)
    xc = sp.Symbol("x", real=True)
    mean_shift = sp.Sum(r[k] + delta, (k, 1, d)) / d - (sp.Sum(r[k], (k, 1, d)) / d + delta)
    squares = sp.Symbol("Q", positive=True)  # sum (r_i - rbar)^2 = d v
    difference = c * xc / sp.sqrt(c**2 * V + eps) - xc / sp.sqrt(V + eps)
    formula = xc / sp.sqrt(V) * (1 / sp.sqrt(1 + eps / (c**2 * V)) - 1 / sp.sqrt(1 + eps / V))
    x = sp.Symbol("x", nonnegative=True)
    f = x / 2 - (1 - (1 + x) ** sp.Rational(-1, 2))  # the claim's right side minus its left side
    y_sym, y = sp.Symbol("y", positive=True), z3.Real("y")
    at_least_one = (y >= 1,)  # y = sqrt(1 + x) over the whole x >= 0

    def nonnegative_in_y(expr: sp.Expr, how: str) -> Decision:
        # at x = y^2 - 1 (y > 0, so sqrt(y^2) = y) expr is a rational function of y
        return z3_rational_nonnegative(expr.subs(x, y_sym**2 - 1), y_sym, y, at_least_one, f"{how} on y >= 1")

    return [
        ("mean(r + delta 1) = mean(r) + delta (so centred row and variance are unchanged)", sp.simplify(mean_shift)),
        ("scale difference formula", sp.simplify(difference - formula)),
        ("|u|^2 = (d v)/(v + eps) = radius", sp.simplify(squares / (var + eps) - radius(d, var, eps)).subs(squares, d * var)),
        # a sign, not a bound: "< 0" weakened to "< 1" would still hold for every d, v, eps
        (
            "d v/(v + eps) < d: d v/(v + eps) - d has sign -1",
            sp.Eq(sp.sign(sp.factor(sp.together(d * var / (var + eps) - d))), -1),
        ),
        ("f(0) = 0 for f = x/2 - 1 + (1 + x)^(-1/2)", f.subs(x, 0)),
        ("f'(x) = (1 - (1 + x)^(-3/2))/2", sp.diff(f, x) - (1 - (1 + x) ** sp.Rational(-3, 2)) / 2),
        ("f' >= 0 on x >= 0, in y = sqrt(1 + x) >= 1", nonnegative_in_y(sp.diff(f, x), "f'(y^2 - 1)")),
        ("1 - (1 + x)^(-1/2) <= x/2 on x >= 0, in y = sqrt(1 + x) >= 1", nonnegative_in_y(f, "f(y^2 - 1)")),
        ("the hypotheses start at y = 1 (x = 0, v = eps)", z3_range_end(at_least_one, y, 1, side="low", how="y = 1")),
    ]


def layer_norm_jacobian_lemma(projection_weight: int = 1) -> list[Fact]:
    """Lemma 5.11 (iv): for u(r) = P r / sqrt(v + eps), v = |P r|^2 / d (P the centring matrix, symbolic
    size d), the chain rule gives du/dr = P/sqrt(w) - P r (P^T P r)^T/(d w^{3/2}) (w = v + eps), which
    equals the stated factorisation (I - u u^T/d) P / sqrt(v + eps) (``projection_weight`` 1 on u u^T/d)."""
    d = sp.Symbol("d", integer=True, positive=True)
    P, r = sp.MatrixSymbol("P", d, d), sp.MatrixSymbol("r", d, 1)
    w = sp.Symbol("w", positive=True)
    chain = P / sp.sqrt(w) - P * r * r.T * P.T * P / (d * w ** sp.Rational(3, 2))
    uu = P * r / sp.sqrt(w)
    stated = (sp.Identity(d) - projection_weight * uu * uu.T / d) * P / sp.sqrt(w)
    return [("du/dr = (I - u u^T/d) P / sqrt(v + eps)", matrix_identity(chain - stated, "chain rule - (I - u u^T/d) P/sqrt(w)"))]


# --- Thm 5.4 (ii), Cor 7.1, Conj 8.3 footnote 12 -----------------------------------------
def absorption_lemma(operator: Callable[[sp.Expr, sp.Expr], sp.Matrix]) -> list[Fact]:
    """Thm 5.4 (ii): (X W + 1 b^T) G = X (W G) + 1 (b^T G) for X, W, b, G of symbolic sizes; on one
    plane with symbolic angle theta and positions n, m, G = operator(c, s) commutes with every R_n and
    R_{-n} G R_m = G R_{m-n} (the block-diagonal R_n lift this plane by plane)."""
    S, d = sp.symbols("S d", integer=True, positive=True)
    X, W, G = sp.MatrixSymbol("X", S, d), sp.MatrixSymbol("W", d, d), sp.MatrixSymbol("G", d, d)
    b, one = sp.MatrixSymbol("b", d, 1), sp.MatrixSymbol("1", S, 1)
    c, s, x, y = sp.symbols("c s x y", real=True)
    Gp = operator(c, s)
    return [
        (
            "affine absorption",
            matrix_identity((X * W + one * b.T) * G - (X * (W * G) + one * (b.T * G)), "(X W + 1 b^T) G - X (W G) - 1 (b^T G)"),
        ),
        (
            "Rot(x) G* = G* Rot(x) for every angle x (so R_n G* = G* R_n, RoPE(Q G*) = RoPE(Q) G*)",
            sp.expand(rotation(x) * Gp - Gp * rotation(x)),
        ),
        (
            "group law Rot(x) Rot(y) = Rot(x + y), hence R_{-n} G* R_m = G* R_{-n} R_m = G* R_{m-n}",
            sp.expand(sp.expand_trig(rotation(x) * rotation(y) - rotation(x + y))),
        ),
    ]


def injectivity_lemma(probe: Callable[[sp.MatrixExpr], sp.MatrixExpr] = lambda D: D) -> list[Fact]:
    """Cor 7.1 injectivity for symbolic d_k: R_0 = I, so at n = m = 0 the score map is
    (q, k) -> q^T D k with D = G - G'; probing with all q, k (unrestricted reachability) reads every
    entry D_ij = e_i^T D e_j, so equal score maps force G = G'. ``probe`` is the operator the probes
    see (D itself when q, k range over all of R^{d_k})."""
    d = sp.Symbol("d_k", integer=True, positive=True)
    D = sp.MatrixSymbol("D", d, d)
    i, j = sp.symbols("i j", integer=True)
    return [
        ("R_0 = Rot(0) = I on every plane", rotation(0) - sp.eye(2)),
        ("score map at n = m = 0 is q^T D k", matrix_identity(sp.Identity(d) * D * sp.Identity(d) - D, "I D I - D")),
        ("the probes read every entry: (probe D)_ij = D_ij", probe(D)[i, j] - D[i, j]),
    ]


def congruence_lemma(transform: Callable[[sp.MatrixExpr, sp.MatrixExpr], sp.MatrixExpr]) -> list[Fact]:
    """Conj 8.3 footnote 12 for symbolic d: the symmetric part of transform(G, S) = S^{-T} G S^{-1} is
    S^{-T} sym(G) S^{-1}, a congruence, so its inertia is that of sym(G) (Sylvester's law of inertia)."""
    d = sp.Symbol("d", integer=True, positive=True)
    G, S = sp.MatrixSymbol("G", d, d), sp.MatrixSymbol("S", d, d)
    T = transform(G, S)
    Si = S.I
    return [
        (
            "sym(T) = S^{-T} sym(G) S^{-1}",
            matrix_identity((T + T.T) / 2 - Si.T * (G + G.T) * Si / 2, "sym(T) - S^{-T} sym(G) S^{-1}"),
        )
    ]


# --- Prop 6.1 -----------------------------------------------------------------------------
def scale_covariance_lemma(f: Callable[[sp.Expr, sp.Expr, sp.Expr], sp.Expr]) -> list[Fact]:
    """Prop 6.1 / Cor 6.2. Direct direction: f(u) = f(c, p, u) satisfies f(lambda u) = g(lambda) f(u) with g
    independent of u. Forcing: covariance at (lambda, mu), (mu, 1), (lambda mu, 1) gives
    g(lambda mu) f(1) = g(lambda) g(mu) f(1), so g solves the multiplicative Cauchy equation with g(1) = 1;
    under differentiability, d/dmu at mu = 1 gives lambda g'(lambda) = p g(lambda) with p = g'(1), whose
    solution with g(1) = 1 is lambda^p, and f(u) = f(1) g(u) = f(1) u^p. (Measurable solutions of Cauchy's
    equation are the same powers: Aczel's theorem, cited, not re-proved.)"""
    uu, lam, mu, c, p = sp.symbols("u lambda mu c p", positive=True)
    g = sp.simplify(f(lam * uu, c, p) / f(uu, c, p))
    gf = sp.Function("g")
    F1 = sp.Symbol("f1", positive=True)  # f(1)
    # the three instances of covariance, as linear equations in the unknown values of f
    f_mu, f_lm = sp.symbols("f_mu f_lm")
    eqs = [sp.Eq(f_lm, gf(lam) * f_mu), sp.Eq(f_mu, gf(mu) * F1), sp.Eq(f_lm, gf(lam * mu) * F1)]
    sol = sp.solve(eqs[:2], [f_lm, f_mu], dict=True)[0]
    cauchy = sp.simplify(eqs[2].lhs.subs(sol) - eqs[2].rhs.subs(sol))  # = F1 (g(lam) g(mu) - g(lam mu))
    xi = sp.Symbol("xi")
    at_one = sp.diff(gf(lam * mu) - gf(lam) * gf(mu), mu).subs(mu, 1)  # d/dmu of the Cauchy equation at mu = 1
    euler = lam * sp.diff(gf(lam), lam) - sp.Subs(sp.Derivative(gf(xi), xi), xi, 1) * gf(lam)
    ode = sp.dsolve(sp.Eq(lam * gf(lam).diff(lam), p * gf(lam)), gf(lam), ics={gf(1): 1})
    return [
        ("f(lambda u)/f(u) is independent of u", sp.Eq(sp.diff(g, uu), 0)),
        ("g(lambda mu) = g(lambda) g(mu) for that g", sp.simplify(g.subs(lam, lam * mu) - g * g.subs(lam, mu))),
        (
            "covariance forces f(1) (g(lambda) g(mu) - g(lambda mu)) = 0",
            sp.expand(cauchy - F1 * (gf(lam) * gf(mu) - gf(lam * mu))),
        ),
        ("f(1) != 0 (f > 0), so the factor cancels: g(lambda mu) = g(lambda) g(mu)", sp.Ne(F1, 0)),
        (
            "d/dmu at mu = 1: lambda g'(lambda) = g'(1) g(lambda), i.e. lambda g' = p g with p = g'(1)",
            sp.simplify((at_one - euler).doit()),
        ),
        ("lambda g' = p g, g(1) = 1 => g(lambda) = lambda^p", ode.rhs - lam**p),
    ]


@contextlib.contextmanager
def iv_precision(bits: int) -> Iterator[None]:
    """Interval arithmetic at ``bits`` of precision (mpmath.iv has no workprec of its own)."""
    import mpmath

    old = mpmath.iv.prec
    mpmath.iv.prec = bits
    try:
        yield
    finally:
        mpmath.iv.prec = old


# interval precisions tried before a zero test gives up: 40, 80, 160, 320, 640 digits (each rung doubles)
_ENCLOSURE_DIGITS = tuple(40 * 2**k for k in range(5))


def commutant_dimension(thetas: list[sp.Expr]) -> int:
    """dim {G : G R_1 = R_1 G} for R_1 = (+)_j Rot(theta_j), real closed-form angles, counted block by
    block with the 2 x 2-block lemma (``commutant_block_lemma``): the block pair (a, b) contributes 0
    when cos theta_a != cos theta_b; otherwise sin theta_b = +-sin theta_a, and it contributes 2 when
    sin theta_a != 0 and 4 when sin theta_a = 0 (then R_a = R_b = +-I). Each zero test is decided: "not
    zero" by an outward-rounded interval excluding 0, from 40 digits refined up to 640; "zero" by SymPy
    simplifying it to 0. ValueError when neither decides (a zero SymPy cannot prove, or a nonzero
    below the finest interval)."""
    import mpmath

    boxes: dict[tuple[int, int], object] = {}

    def box(j: int, digits: int):
        """theta_j in an interval of relative radius 10^(5 - digits) around its digits-digit value."""
        if (j, digits) not in boxes:
            mid = sp.Float(sp.N(thetas[j], digits), digits)
            radius = sp.Float(10, digits) ** (5 - digits) * max(1, abs(mid))
            boxes[j, digits] = mpmath.iv.mpf([str(mid - radius), str(mid + radius)])
        return boxes[j, digits]

    def is_zero(enclose: Callable[[int], object], exact: sp.Expr, label: str) -> bool:
        for digits in _ENCLOSURE_DIGITS:
            with iv_precision(int(3.33 * digits) + 64):
                interval = enclose(digits)
            if interval.a > 0 or interval.b < 0:
                return False
            if digits == _ENCLOSURE_DIGITS[0] and sp.simplify(exact) == 0:
                return True
        raise ValueError(f"cannot decide whether {label} is 0 (intervals to {digits} digits, exact simplification)")

    sin_zero = [
        is_zero(lambda digits, a=a: mpmath.iv.sin(box(a, digits)), sp.sin(t), f"sin theta_{a}") for a, t in enumerate(thetas)
    ]
    dim = 0
    for a, ta in enumerate(thetas):
        block = 4 if sin_zero[a] else 2  # a block pair (a, b) with one cosine, (a, a) included
        dim += block
        for b in range(a + 1, len(thetas)):
            if is_zero(
                lambda digits, a=a, b=b: mpmath.iv.cos(box(a, digits)) - mpmath.iv.cos(box(b, digits)),
                sp.cos(ta) - sp.cos(thetas[b]),
                f"cos theta_{a} - cos theta_{b}",
            ):
                dim += 2 * block  # (a, b) and (b, a): one decision, as the cosine test is symmetric
    return dim


# --- Prop 3.11 (ii)-(iv) ----------------------------------------------------------------------
def row_factorisation_lemma(shared: bool = True) -> list[Fact]:
    """Prop 3.11 (ii)-(iv) from the row factorisation A(x)_i = phi(LN(D(x))_i), decided by z3 with
    uninterpreted functions (any sets of inputs, rows and heads): (ii) all rows of all A(x) equal one
    alpha* iff phi is constant alpha* on the union of the rows; (iii) with phi shared by the heads
    (``shared``), a constant phi forces A^(h) = 1 alpha*^T with the same alpha* for every head; (iv) the
    Frobenius bound sum_i |phi(r_i) - phi(r'_i)|^2 <= Lip^2 sum_i |r_i - r'_i|^2 from the per-row
    Lipschitz inequality (a sum of nonnegative slacks)."""
    import z3

    X, Row, Vec, Head = z3.DeclareSort("X"), z3.DeclareSort("Row"), z3.DeclareSort("Vec"), z3.DeclareSort("Head")
    index = z3.IntSort()
    row = z3.Function("row", X, index, Row)  # row i of LN(D(x))
    phi = z3.Function("phi", Row, Vec)
    alpha = z3.Const("alpha", Vec)
    x, r = z3.Const("x", X), z3.Const("r", Row)
    i = z3.Int("i")
    rows_equal = z3.ForAll([x, i], phi(row(x, i)) == alpha)
    const_on_union = z3.ForAll([r], z3.Implies(z3.Exists([x, i], row(x, i) == r), phi(r) == alpha))
    head_row = z3.Function("head_row", Head, X, index, Row)
    phi_h = z3.Function("phi_h", Head, Row, Vec)
    h = z3.Const("h", Head)

    def learner(hh, rr):
        return phi(rr) if shared else phi_h(hh, rr)

    every_head = z3.ForAll([h, x, i], learner(h, head_row(h, x, i)) == alpha)
    k = sp.Symbol("k", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    slack = sp.IndexedBase("sigma", nonnegative=True)  # Lip^2 |r_k - r'_k|^2 - |phi(r_k) - phi(r'_k)|^2 >= 0 per row
    return [
        (
            "(ii) rows equal alpha* for all x <=> phi = alpha* on the union of the rows",
            z3_valid(rows_equal == const_on_union, (), "(ii)"),
        ),
        (
            "(iii) a constant shared phi forces A^(h) = 1 alpha*^T for every head",
            z3_valid(every_head, (z3.ForAll([r], phi(r) == alpha),), "(iii)"),
        ),
        ("(iv) Lip^2 |LN D - LN D'|_F^2 - |A - A'|_F^2 = sum of per-row slacks >= 0", sp.Ge(sp.Sum(slack[k], (k, 1, n)), 0)),
    ]


# --- Prop 5.2 (ii) ------------------------------------------------------------------------
def order_parameter_lemma(piecewise: bool = True) -> list[Fact]:
    """Prop 5.2 (ii) with the piecewise convention m = 0 when the numerator vanishes: for norms
    n_1, n_2 >= 0 and a difference norm |n_1 - n_2| <= delta <= n_1 + n_2 (triangle inequalities), m = 0 iff
    delta = 0 (z3 over the reals); so m = 0 over all pairs iff T is exactly input-invariant. Without the
    piecewise convention (``piecewise`` False) the 0/0 case leaves m undetermined and the equivalence fails."""
    import z3

    n1, n2, delta, m = z3.Reals("n1 n2 delta m")
    ratio = m * (n1 + n2) / 2 == delta
    definition = z3.If(delta == 0, m == 0, ratio) if piecewise else ratio
    # both triangle inequalities of norms: |n_1 - n_2| <= delta <= n_1 + n_2 (delta = 0 forces n_1 = n_2)
    hyps = (n1 >= 0, n2 >= 0, delta >= n1 - n2, delta >= n2 - n1, delta <= n1 + n2, definition)
    # every end of the triangle inequalities stays inside the hypotheses: D constant, delta = n_1 + n_2,
    # and delta = |n_1 - n_2|
    return [
        ("m = 0 iff the numerator |D(x1) - D(x2)| vanishes", z3_valid((m == 0) == (delta == 0), hyps, "m = 0 <=> delta = 0")),
        ("the hypotheses admit delta = 0", z3_admits(hyps, (n1 == 0, n2 == 0, delta == 0, m == 0), "D constant")),
        ("the hypotheses admit delta = n_1 + n_2 (m = 2)", z3_admits(hyps, (n1 == 1, n2 == 1, delta == 2, m == 2), "equality")),
        (
            "the hypotheses admit delta = |n_1 - n_2| (m = 2/3 at n_1 = 2, n_2 = 1)",
            z3_admits(hyps, (n1 == 2, n2 == 1, delta == 1, m * 3 == 2), "reverse equality"),
        ),
    ]


# --- Thm 5.4 (iii) ------------------------------------------------------------------------
def gradient_asymmetry_lemma() -> list[Fact]:
    """Thm 5.4 (iii): for L(theta) = ell(G(theta), theta) the chain rule gives dL/dtheta = (collapsed
    term d ell/d theta at fixed G) + <d ell/dG, dG/dtheta>; on the toy ell = (g - 1)^2 + theta^2,
    G = theta^2, differentiated as a whole at theta = 2, dL/dtheta = 28 while the collapsed term is 4:
    the extra term is 24 != 0, so the gradients differ."""
    theta, g, t2 = sp.symbols("theta g t2", real=True)
    ell, G = sp.Function("ell"), sp.Function("G")
    total = sp.diff(ell(G(theta), theta), theta)
    collapsed = sp.Subs(sp.Derivative(ell(G(theta), t2), t2), t2, theta)  # d ell / d theta at fixed G
    extra = sp.Derivative(ell(G(theta), theta), G(theta)) * sp.Derivative(G(theta), theta)
    toy_ell, toy_G = (g - 1) ** 2 + theta**2, theta**2
    toy_total = sp.diff(toy_ell.subs(g, toy_G), theta).subs(theta, 2)  # L(theta) differentiated as a whole
    toy_collapsed = sp.diff(toy_ell, theta).subs(g, toy_G).subs(theta, 2)
    toy_extra = (sp.diff(toy_ell, g) * sp.diff(toy_G, theta)).subs(g, toy_G).subs(theta, 2)
    return [
        ("dL/dtheta = collapsed term + <d ell/dG, dG/dtheta> (ell, G arbitrary differentiable)", total - collapsed - extra),
        (
            "toy at theta = 2: dL/dtheta = 28, the collapsed term 4, the G-term 24 (nonzero), 28 = 4 + 24",
            sp.Eq(toy_total, 28) & sp.Eq(toy_collapsed, 4) & sp.Eq(toy_extra, 24),
        ),
    ]


# --- Remark 4.5, Cor 5.13, E3, E6 --------------------------------------------------------
def positivity_obstruction_lemma(floor_exponent: int = 2) -> list[Fact]:
    """Remark 4.5 (inferred; Lean trace_exp_ge_of_diag_bound): for N >= 0 with diagonal >= e, tr e^N >= d + tr N
    >= d + d e, because every term tr N^k / k! (k >= 2) is >= 0. For A_LM >= eps entrywise, N = A o A has
    diagonal >= eps^2 (z3), so h(A_LM) >= d_k eps^2 = 6.4e-17 and log(tr e^N / d_k) >= log(1 + eps^2) > 0:
    exact acyclicity is unattainable. ``floor_exponent`` = 1 is the wrong floor eps."""
    floor, dk = EPS_FLOOR, D_K
    import z3

    k = sp.Symbol("k", integer=True)
    kk = sp.Symbol("k", integer=True, nonnegative=True)
    K = sp.Symbol("K", integer=True, positive=True)
    term = sp.IndexedBase("U", nonnegative=True)  # U_k = tr N^{k+1} / (k+1)!: walk weight >= 0 over k! > 0
    a, e = z3.Reals("a e")
    e_val = z3.RealVal(str(floor))
    floored = (a >= e, e == e_val)
    floor_sq = floor**floor_exponent  # the diagonal floor of N = A o A, eps^2: one value for every fact below
    trace_ratio_floor = (dk + dk * floor_sq) / dk  # tr e^N / d_k >= (d + tr N) / d >= (d_k + d_k eps^2) / d_k
    return [
        ("k! > 0", sp.Gt(sp.factorial(kk), 0)),
        ("tr e^N - d - tr N = lim_K sum_{k=1}^K tr N^{k+1}/(k+1)!, every partial sum >= 0", sp.Ge(sp.Sum(term[k], (k, 1, K)), 0)),
        (
            f"A_ii >= eps => A_ii^2 >= eps^{floor_exponent}",
            z3_valid(a * a >= e**floor_exponent, floored, "a >= eps => a^2 >= floor"),
        ),
        ("the hypotheses start at A_ii = eps (the floor itself)", z3_range_end(floored, a, e_val, side="low", how="a = eps")),
        (f"d_k eps^2 = 6.4e-17 at d_k = {dk}", sp.Eq(dk * floor_sq, sp.Rational(64, 10**18))),
        ("tr e^N >= d_k + d_k eps^2 gives tr e^N / d_k >= 1 + eps^2", sp.Eq(trace_ratio_floor, 1 + floor_sq)),
        # a sign, not a bound: "> 0" weakened to "> -1" would hold for any ratio and prove nothing
        ("log(tr e^N / d_k) >= log(1 + eps^2), of sign +1", sp.Eq(sp.sign(sp.log(trace_ratio_floor)), 1)),
    ]


def sigmoid(x: sp.Expr) -> sp.Expr:
    """The logistic sigmoid."""
    return 1 / (1 + sp.exp(-x))


def iswiglu_derivative_envelope(U: sp.Expr, quadratic: sp.Expr = _QUARTER) -> sp.Expr:
    """2 U sigma(U) + U^2/4: the D.7 bound on sup_{|u| <= U} |iSwiGLU'(u)| (Cor 5.13)."""
    return 2 * U * sigmoid(U) + quadratic * U**2


def envelope_lemma(quadratic: sp.Expr = _QUARTER) -> list[Fact]:
    """Cor 5.13 / D.7 envelopes for every U > 0: sup_{|u| <= U} |iSwiGLU'(u)| <= 2 U s(U) + quadratic U^2 and
    sup |silu'| <= s(U) + U/4. SymPy gives the derivatives and the facts on s (s' = s(1 - s) > 0, so
    s(|u|) <= s(U); s(-x) = 1 - s(x)); z3 decides the resulting real inequality with s(u), s(|u|), s(U) as
    variables constrained by those facts."""
    import z3

    x = sp.Symbol("x", real=True)
    s = sigmoid(x)
    U, u, a, sa, sU, sg = z3.Reals("U u a s_a s_U s_u")
    # the hypotheses list what the proof needs: s(|u|) <= 1 (without it both envelopes fail), not the strict
    # s(|u|) < 1 that holds as well, and nothing on s(U) beyond s(U) >= s(|u|) (s(U) < 1 is true but unused).
    # |u| s(|u|) <= U s(U) is true as well, and not listed: it follows from 0 <= |u| <= U and s(|u|) <= s(U)
    monotone = (a >= 0, a <= U, z3.Or(u == a, u == -a), sa >= z3.RealVal("0.5"), sa <= 1, sU >= sa)
    sign = z3.If(u >= 0, sg == sa, sg == 1 - sa)
    hyps = (U > 0, *monotone, sign)
    # u = 0 (a = 0) and u = +-U (a = U, s(|u|) = s(U)) must stay inside the hypotheses: the envelopes hold
    # on the whole |u| <= U, both ends included. Each witness states its point as relations (u == 0, u = +-U
    # as the ends of u's range), then pins the rest with numbers, so no change of a number can move it.
    at_zero = (u == 0, a == 0, U == 1, sa == z3.RealVal("0.5"), sg == sa, sU == z3.RealVal("0.75"))
    at_an_edge = (a == U, sU == sa, U == 1, sa == z3.RealVal("0.75"))
    half, inside = z3.RealVal("0.5"), (U == 1, sa == z3.RealVal("0.6"), sU == z3.RealVal("0.75"))
    # the derivatives SymPy computes: the closed-form facts check them and z3 reads them, not a retyped copy
    isw_prime, silu_prime = sp.diff(iswiglu(x), x), sp.diff(x * s, x)
    d_isw, d_silu = z3_in_sigmoid(isw_prime, x, u, sg), z3_in_sigmoid(silu_prime, x, u, sg)
    # the silu' bound's slope, written once for the z3 step and for its tightness: a smaller one fails the z3
    # step, and a larger one is not silu''s own excess over s at 0+. The tightness compares that excess with
    # the slope itself, not a gap with 0, which a degenerate rewrite (the gap times U) would also reach
    top = sp.Symbol("U", positive=True)
    slope = sp.Rational(1, 4)
    silu_bound = sigmoid(top) + slope * top
    isw_bound = iswiglu_derivative_envelope(top, quadratic)
    return [
        ("iSwiGLU' = 2 u s + u^2 s (1 - s)", sp.cancel(sp.together(isw_prime - (2 * x * s + x**2 * s * (1 - s))))),
        ("silu' = s + u s (1 - s)", sp.cancel(sp.together(silu_prime - (s + x * s * (1 - s))))),
        ("s' = s (1 - s) > 0 (s increasing)", sp.Gt(sp.factor(sp.diff(s, x)), 0)),
        ("s(-x) = 1 - s(x)", sp.together(sigmoid(-x) - (1 - s))),
        (
            "|iSwiGLU'(u)| <= 2 U s(U) + quadratic U^2 on |u| <= U",
            z3_valid(z3_abs_at_most(d_isw, z3_in_sigmoid(isw_bound, top, U, sU)), hyps, "iSwiGLU' envelope"),
        ),
        (
            # the envelope exceeds the derivative's own size at u = U by exactly U^2 (1/4 - s(1 - s)) = U^4/16 +
            # o(U^4): a larger linear or quadratic coefficient would still be an upper bound, with an excess of
            # order U or U^2, so only this pins both. The exact order and constant: a lower power would read 0
            "the envelope is tight at u = U as U -> 0+: (envelope(U) - iSwiGLU'(U)) / U^4 -> 1/16",
            sp.Eq(sp.limit((isw_bound - isw_prime.subs(x, top)) / top**4, top, 0, "+"), sp.Rational(1, 16)),
        ),
        (
            "|silu'(u)| <= s(U) + U/4 on |u| <= U",
            z3_valid(z3_abs_at_most(d_silu, z3_in_sigmoid(silu_bound, top, U, sU)), hyps, "silu' envelope"),
        ),
        (
            "U/4 is the least slope: (silu'(U) - s(U)) / U -> 1/4 as U -> 0+, so s(U) + c U fails near 0 for c < 1/4",
            sp.Eq(sp.limit((silu_prime.subs(x, top) - sigmoid(top)) / top, top, 0, "+"), slope),
        ),
        ("the hypotheses admit u = 0 (no point of |u| <= U excluded)", z3_admits(hyps, at_zero, "u = 0, U = 1")),
        (
            "the hypotheses run to u = U (the edge of |u| <= U)",
            z3_range_end(hyps, u, U, side="high", pins=(*at_an_edge, sg == sa), how="u = U = 1"),
        ),
        (
            "the hypotheses run from u = -U (negative u, where s(u) = 1 - s(|u|))",
            z3_range_end(hyps, u, -U, side="low", pins=(*at_an_edge, sg == 1 - sa), how="u = -U = -1"),
        ),
        # inside the range, where s(|u|) != 1/2 tells the two signs apart: the switch s(u) = s(|u|) or
        # 1 - s(|u|) sits at u = 0, not anywhere in (-U, U) that the ends and u = 0 would not see
        ("the hypotheses give s(u) = s(|u|) at u = 1/2", z3_admits(hyps, (u == half, a == u, sg == sa, *inside), "u = 1/2")),
        (
            "the hypotheses give s(u) = 1 - s(|u|) at u = -1/2",
            z3_admits(hyps, (u == -half, a == -u, sg == 1 - sa, *inside), "u = -1/2"),
        ),
    ]


def preactivation_bound_lemma(factor: sp.Expr = 1) -> list[Fact]:
    """E3: for every d, |(W A)_ij| <= sum_k |W_ik| |A_kj| <= |W|_inf |A|_max (the row sum times the max), i.e.
    factor * |W|_inf |A|_max with factor = 1: the paper's extra factor d_k is not needed. Tight: W = 2 1 1^T/d_k,
    A = 3 1 1^T give (W A)_ij = 6 = |W|_inf |A|_max, so the paper's bound is loose by exactly d_k there."""
    k = sp.Symbol("k", integer=True)
    d = sp.Symbol("d", integer=True, positive=True)
    w = sp.IndexedBase("w", nonnegative=True)  # |W_ik|
    gap = sp.IndexedBase("g", nonnegative=True)  # |A|_max - |A_kj| >= 0
    dk = D_K
    # the witness W = 2 1 1^T / d_k, A = 3 1 1^T: no norm is 1, so a norm dropped or divided by cannot pass
    w_inf, a_max = 2, 3
    row_sum = dk * sp.Rational(w_inf, dk)  # |W|_inf, the row sum of W
    entry = sum(sp.Rational(w_inf, dk) * a_max for _ in range(dk))  # (W A)_11 = sum_k W_1k A_k1
    return [
        (
            "|W|_inf |A|_max - sum_k |W_ik| |A_kj| = sum_k |W_ik| (|A|_max - |A_kj|) >= 0",
            sp.Ge(sp.Sum(w[k] * gap[k], (k, 1, d)), 0),
        ),
        # equality, not <=: the bound is attained, so no smaller factor is valid and no larger one is tight
        (
            f"witness at d_k = {dk}: (W A)_11 = {w_inf * a_max} = factor |W|_inf |A|_max (attained)",
            sp.Eq(entry, factor * row_sum * a_max),
        ),
        (
            f"slack of the paper's bound on the witness: d_k |W|_inf |A|_max / |(W A)_11| = {dk}",
            sp.Eq(dk * row_sum * a_max / entry, dk),
        ),
    ]


def layer_norm_proxy_lemma(constant: sp.Expr = _HALF) -> list[Fact]:
    """E6 (Lemma 5.11 (ii) undersold): for x = eps/v > 0 and S >= 1, sqrt((1 + x)/(1 + x/S^2)) - 1 <= sqrt(1 + x) - 1
    <= constant x with constant 1/2 (z3 in y = sqrt(1 + x), z = sqrt((1 + x)/(1 + x/S^2))): the proxy eps/(2 v) is a
    rigorous bound for every v > 0, with first-order coefficient (1 - S^{-2})/2."""
    import z3

    X, S, y, z = z3.Reals("x S y z")
    floor_x, floor_s = 0, 1  # the corner (x, S) = (0, 1) of the claimed range: no perturbation, no rescaling
    hyps = (X >= 0, S >= 1, y >= 0, y * y == 1 + X, z >= 0, z * z * (1 + X / (S * S)) == 1 + X)
    xs, Ss = sp.Symbol("x", positive=True), sp.Symbol("S", positive=True)
    series = sp.series(sp.sqrt((1 + xs) / (1 + xs / Ss**2)) - 1, xs, 0, 2).removeO()
    return [
        ("sqrt((1+x)/(1+x/S^2)) <= sqrt(1+x)", z3_valid(z <= y, hyps, "z <= y")),
        (f"sqrt(1+x) - 1 <= {constant} x", z3_valid(y - 1 <= z3.RealVal(str(constant)) * X, hyps, "y - 1 <= c x")),
        # the corner, an end in both x and S: were it inside (S = 2), the hypotheses could exclude S in [1, 2) unseen
        (
            "the hypotheses start at x = 0 (with S = 1)",
            z3_range_end(hyps, X, floor_x, side="low", pins=(S == floor_s, y == 1, z == 1), how="x = 0, S = 1"),
        ),
        (
            "the hypotheses start at S = 1 (with x = 0)",
            z3_range_end(hyps, S, floor_s, side="low", pins=(X == floor_x, y == 1, z == 1), how="S = 1, x = 0"),
        ),
        # a point with S != 1, where z^2 = (1 + x)/(1 + x/S^2) pins the S-dependence of z's equation
        (
            "the hypotheses admit x = 3, S = 2 (z^2 = 16/7)",
            z3_admits(hyps, (X == 3, S == 2, y == 2, 7 * z * z == 16), "x = 3, S = 2"),
        ),
        ("first-order coefficient (1 - S^{-2})/2", sp.simplify(series - (1 - Ss**-2) * xs / 2)),
    ]


def position_window_lemma(window: int = 2) -> list[Fact]:
    """E14: Prop 4.1's equivalence on positions {1..S}: if R_{-n} G R_m depends only on m - n for n, m in
    {1..window}, then (window >= 2) the pairs (1, 1) and (2, 2) give G' = R^{-1} G' R for G' = R^{-1} G R,
    so R G' = G' R, hence G = R G' R^{-1} = G' commutes with R = R_1 (symbolic size, R invertible). With a
    window of one position there is no second pair and nothing follows."""
    d = sp.Symbol("d_k", integer=True, positive=True)
    R, G = sp.MatrixSymbol("R", d, d), sp.MatrixSymbol("G", d, d)
    Gp = R.I * G * R
    pairs = [(n, n) for n in range(1, window + 1)]
    has_both = {(1, 1), (2, 2)} <= set(pairs)
    return [
        ("the window contains the pairs (1, 1) and (2, 2) (offset 0 twice)", Decision(has_both, f"positions 1..{window}")),
        (
            "(1, 1) vs (2, 2): R^{-1} G R = R^{-2} G R^2 is G' = R^{-1} G' R",
            matrix_identity((R.I * Gp * R - R.I * R.I * G * R * R).doit(), "R^{-1} G' R - R^{-2} G R^2"),
        ),
        ("G' = R^{-1} G' R gives R G' = G' R", matrix_identity((R * (R.I * Gp * R) - Gp * R).doit(), "R (R^{-1} G' R) - G' R")),
        ("G = R G' R^{-1}, so G = G' commutes with R", matrix_identity((R * Gp * R.I - G).doit(), "R G' R^{-1} - G")),
    ]


def contraction_consequences_lemma(with_lipschitz: bool = True) -> list[Fact]:
    """Prop 5.12 (ii)-(iii) for any norms (z3 over the reals on the norm values): (ii) the transfer display
    |phi(LN D_x) - phi(LN D_y)| <= Lip(phi) [delta_LN(x) + L_LN |r_x - r_y| + delta_LN(y)] from the triangle
    inequality and the Lipschitz bounds; Jung: the equilateral triangle of diameter 1 has circumradius
    1/sqrt(3) > 1/2, so a set of diameter D need not fit in a ball of radius D/2; (iii) with the row
    factorisation A_i = phi(r_i), a lower Lipschitz bound c_0 on phi separates the rows of A by c_0 |r - r'|."""
    import z3

    a, b, c, e, dx, dy, K, L, c0, rows = z3.Reals("a b c e delta_x delta_y K L c0 rows")
    hyps = (K >= 0, L >= 0, dx >= 0, dy >= 0, e >= 0, a <= K * b, b <= dx + c + dy, c <= L * e)
    bound = (K if with_lipschitz else 1) * (dx + L * e + dy)  # the control drops only the factor Lip(phi)
    norms = (a, b, c, e, dx, dy, K, L)  # the display's norms and constants
    # every norm 0, and their sum 0 beside it: a constant changed in either part leaves no solution, where the
    # tuple alone read as v == 1 was still one point. (A sum of squares = 0 said it in one relation, but its
    # one-point check ran past two minutes on a mutated, nonlinear hypothesis a <= K / b.)
    zero = (*(v == 0 for v in norms), z3.Sum(*norms) == 0)
    # every bound tight at once, every norm positive: the display is sharp, and no hypothesis is
    # stricter than the triangle inequality or a Lipschitz bound (a stricter one still implies the display).
    # Any positive values are such a point; distinct ones other than 1 keep a product from reading as a
    # quotient and one term from standing for another. Every value is written out, the tight ones too
    # (c = L e, b = dx + c + dy, a = K b), so that the point checked is the one the evidence names
    sharp = (K == 2, L == 3, e == 5, dx == 7, dy == 11, c == 15, b == 33, a == 66)
    positive = tuple(v > 0 for v in norms)
    separation = (rows == a, a >= c0 * e)  # A_i = phi(r_i) and phi's lower Lipschitz bound
    # Jung's example, computed from its vertices rather than quoted: circumradius |vertex - centroid|
    vertices = [sp.Matrix([0, 0]), sp.Matrix([1, 0]), sp.Matrix([sp.S.Half, sp.sqrt(3) / 2])]
    centre = (vertices[0] + vertices[1] + vertices[2]) / 3
    # every pair of vertices, and the set of (Euclidean) distances to the centre: no index to mistype, and a
    # check of fewer sides or radii would still pass on this equilateral triangle
    sides = [(p - q).norm() for p, q in combinations(vertices, 2)]
    radii = {(centre - v).norm() for v in vertices}
    return [
        ("(ii) transfer display", z3_valid(a <= bound, hyps, "triangle inequality and Lipschitz bounds")),
        ("(ii) its hypotheses admit every norm and constant = 0 (no case excluded)", z3_admits(hyps, zero, "all zero")),
        (
            "(ii) its hypotheses admit the sharp case: every bound tight, every norm positive, a = bound",
            z3_admits(
                (*hyps, *positive, a == bound), sharp, "K = 2, L = 3, |r_x - r_y| = 5, delta = 7, 11, c = 15, b = 33: a = 66"
            ),
        ),
        ("(ii) Jung: the triangle below is equilateral with side 1", sp.Matrix(sides) - sp.ones(3, 1)),
        ("(ii) Jung: its centroid is equidistant from the vertices (the circumcentre)", sp.Eq(len(radii), 1)),
        ("(ii) Jung: its circumradius 1/sqrt(3) exceeds 1/2", sp.Gt(sp.Min(*radii), sp.S.Half)),
        ("(iii) rows of A differ by >= c0 |r - r'|", z3_valid(rows >= c0 * e, separation, "A_i = phi(r_i)")),
        (
            "(iii) its hypotheses admit equality in the lower Lipschitz bound",
            # equality sits with the constraints, the point is written out: unit values would let
            # c0 / e stand for c0 e (set 50), and a point off equality would still satisfy a >= c0 e
            z3_admits((*separation, a == c0 * e), (c0 == 2, e == 3, a == 6), "a = c0 |r - r'| = 2 * 3"),
        ),
    ]
