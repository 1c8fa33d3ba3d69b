"""Deployment claims: Props 73, 76, 77 and Eq. 64 (psa.md §2.2, §3.1-§3.3)."""

from __future__ import annotations

import sympy as sp

from attncert.certificates.engine.evidence import all_exact, exact_zero, within
from attncert.certificates.engine.model import Context, Evidence, Method, Mutant, Provenance, Scope, Verdict
from attncert.certificates.engine.registry import certificate
from attncert.certificates.psa import claim
from attncert.solvers import psa_operators as ops
from attncert.solvers.backend import get_backend
from attncert.theory import psa as th

g = th.gamma
d, T, layers = sp.symbols("d T L_layers", positive=True)


@certificate(
    "psa.incremental_decoding_equals_full_recompute",
    claim=claim(
        "Prop 73",
        "decoding token by token with a cache of sheared keys and the previous raw q, k equals full recomputation",
        Provenance.VERBATIM,
        "Prop 73",
    ),
    method=Method.NUMERIC,
    expected=Verdict.VERIFIED,
    params={"carry_previous": True},
    mutant=Mutant("the previous raw q, k not carried (p_t = 0 at every step)", {"carry_previous": False}),
    tags=("prop73", "deployment"),
)
def incremental_decoding(ctx: Context, *, carry_previous) -> Evidence:
    backend = get_backend(ctx.backend)
    seq, width = 48, 16
    q, k, v = (backend.standard_normal(ctx.seed + i, (seq, width)) for i in range(3))
    worst = 0.0
    for gam_q, gam_k in ((0.5, 0.5), (0.0, 1.0), (2.0, 0.3)):
        full = ops.causal_attention(backend, q, k, v, gam_q, gam_k)
        inc = ops.incremental_decode(backend, q, k, v, gam_q, gam_k, carry_previous=carry_previous)
        diff = float(backend.xp.max(backend.xp.abs(full - inc)))
        worst = diff if not diff <= worst else worst  # a NaN difference must fail, not vanish in max()
    return within(
        worst,
        tolerance=1e-12,
        what="max |incremental - full| over 3 (gamma_q, gamma_k), T = 48, d_k = 16",
        details={"backend": backend.name},
    )


@certificate(
    "psa.extra_state_is_one_over_T_of_the_cache",
    claim=claim(
        "Prop 73; Table 13",
        "the extra persistent state is 2d per layer, 2d L_layers in total: 1/T of the 2d L_layers T KV cache",
        Provenance.VERBATIM,
        "Prop 73",
        "Table 13",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"transfer": th.transfer_function()},
    mutant=Mutant(
        "a two-step difference 1 + gamma (1 - z^-2) (two past inputs per stream)", {"transfer": 1 + g * (1 - th.z**-2)}
    ),
    tags=("prop73", "deployment"),
)
def extra_state(ctx: Context, *, transfer) -> Evidence:
    # independent count: q and k each keep fir_memory(H) raw vectors of width d per layer
    derived = th.decode_extra_state(d, layers, transfer) / th.kv_cache_size(d, layers, T)
    return all_exact(
        [
            ("state counted from the filter's memory = 1/T", sp.Eq(derived, 1 / T)),
            (
                "Prop 73's fraction (theory.extra_state_fraction) = the counted one",
                sp.Eq(th.extra_state_fraction(d, layers, T), derived),
            ),
        ],
        proved="the shear H(z) = 1 + gamma (1 - z^-1) reads one past input: 2 d L_layers scalars, 1/T of the cache",
        scope=Scope.GENERAL,
        assumptions=("d, L_layers, T > 0 symbolic",),
        details={"fir memory": th.fir_memory(transfer)},
    )


@certificate(
    "psa.shared_prefix_gives_identical_sheared_keys",
    claim=claim(
        "Prop 76",
        "the shear is a causal two-tap FIR: two sequences sharing an n-token prefix have identical sheared keys at positions < n",
        Provenance.VERBATIM,
        "Prop 76",
    ),
    method=Method.NUMERIC,
    expected=Verdict.VERIFIED,
    params={"lookahead": False},
    mutant=Mutant("a centred (non-causal) difference k_{t+1} - k_{t-1}", {"lookahead": True}),
    tags=("prop76", "deployment"),
)
def shared_prefix(ctx: Context, *, lookahead) -> Evidence:
    backend = get_backend(ctx.backend)
    xp = backend.xp
    prefix, tail_a, tail_b = (backend.standard_normal(ctx.seed + i, (n, 16)) for i, n in enumerate((20, 12, 12)))
    a, b = xp.concat([prefix, tail_a]), xp.concat([prefix, tail_b])

    def keys(x):
        if lookahead:
            nxt = xp.concat([x[1:], x[-1:]])
            prev = xp.concat([x[:1], x[:-1]])
            return x + 0.8 * (nxt - prev) / 2
        return ops.sheared_stream(backend, x, 0.8)

    differences = float(xp.max(xp.abs(keys(a)[:20] - keys(b)[:20])))
    return within(differences, tolerance=0.0, what="max |k~_a - k~_b| on the shared 20-token prefix (bitwise)")


@certificate(
    "psa.int8_headroom_bound_holds",
    claim=claim(
        "Prop 77 (bound)",
        "|k~_t|_inf <= (1 + gamma)|k_t|_inf + gamma |k_{t-1}|_inf <= (1 + 2 gamma) max |k|_inf",
        Provenance.VERBATIM,
        "Prop 77",
    ),
    method=Method.NUMERIC,
    expected=Verdict.VERIFIED,
    params={"factor": th.int8_range_factor},
    mutant=Mutant("range factor 1 + gamma", {"factor": lambda gg: 1 + gg}),
    tags=("prop77", "deployment"),
)
def int8_bound(ctx: Context, *, factor) -> Evidence:
    backend = get_backend(ctx.backend)
    xp = backend.xp
    worst = -float("inf")
    for i, gam in enumerate((0.05, 0.1, 0.2, 0.4, 1.0)):
        k = backend.standard_normal(ctx.seed + i, (64, 64, 32))  # batch x time x width
        k_tilde = ops.sheared_stream(backend, xp.permute_dims(k, (1, 0, 2)), gam)
        lhs = xp.max(xp.abs(k_tilde), axis=(0, 2))
        bound = float(factor(sp.Float(gam))) * xp.max(xp.abs(k), axis=(1, 2))
        excess = float(xp.max(lhs - bound))
        worst = excess if not excess <= worst else worst  # NaN-propagating
    # the check passes when the bound is never exceeded: residual = max(0, worst excess)
    return within(
        max(worst, 0.0),
        tolerance=0.0,
        what="largest excess of |k~|_inf over the bound, 64 sequences x 5 gammas",
        details={"max(lhs - bound)": worst, "backend": backend.name},
    )


@certificate(
    "psa.int8_headroom_is_tight_at_nyquist",
    claim=claim(
        "Prop 77 (tightness)",
        "the bound is attained when k_{t-1} = -k_t (Nyquist input): cost exactly log2(1 + 2 gamma) bits",
        Provenance.VERBATIM,
        "Prop 77",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"previous": lambda kt: -kt},
    mutant=Mutant("a constant input k_{t-1} = k_t", {"previous": lambda kt: kt}),
    tags=("prop77", "deployment"),
)
def int8_tight(ctx: Context, *, previous) -> Evidence:
    kt = sp.Symbol("k", positive=True)
    gp = sp.Symbol("gamma", positive=True)
    sheared = th.sheared(sp.Matrix([kt]), sp.Matrix([previous(kt)]), gp)[0]
    # the headroom actually needed at this input, in bits, from the sheared value itself
    needed_bits = sp.log(sp.cancel(sp.Abs(sheared) / kt), 2)
    bits_from_levels = sp.expand_log(8 - sp.log(th.int8_levels_retained(gp), 2), force=True)  # valid: gamma > 0
    return all_exact(
        [
            ("|k~| = (1 + 2 gamma)|k| (the bound is attained)", sp.Eq(sp.Abs(sheared), th.int8_range_factor(gp) * kt)),
            ("bits needed log2(|k~|/|k|) = Prop 77's extra bits", sp.Eq(needed_bits, th.int8_extra_bits(gp))),
            (
                "8 - log2(levels retained) = Prop 77's extra bits",
                sp.Eq(bits_from_levels, th.int8_extra_bits(gp)),
            ),
        ],
        proved="at k_{t-1} = -k_t the sheared key is exactly (1 + 2 gamma) k_t: log2(1 + 2 gamma) bits are needed",
        scope=Scope.GENERAL,
        assumptions=("gamma > 0", "k_t > 0 (the sign is symmetric)"),
    )


@certificate(
    "psa.overhead_fraction_simplifies",
    claim=claim(
        "Eq. 64",
        "overhead = 6d/(24 d^2 + 4 T d) = 6/(24 d + 4 T) = 3/(12 d + 2 T)",
        Provenance.VERBATIM,
        "Eq. 64",
    ),
    method=Method.SYMBOLIC,
    expected=Verdict.PROVED,
    params={"claimed": 6 / (24 * d + 4 * T)},
    mutant=Mutant("6/(24 d + 2 T)", {"claimed": 6 / (24 * d + 2 * T)}),
    tags=("eq64", "deployment"),
)
def overhead(ctx: Context, *, claimed) -> Evidence:
    return exact_zero(
        sp.cancel(th.overhead_fraction(d, T) - claimed),
        proved=f"cancel gives {sp.sstr(sp.cancel(th.overhead_fraction(d, T)))}",
        scope=Scope.GENERAL,
        assumptions=("d, T > 0 symbolic",),
    )
