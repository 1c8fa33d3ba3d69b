"""Guards found by the second fresh mutation set (issue 11, benchmarks/mutations_fresh2.toml): each test
pins a value that a survivor of that set changed, against an independent computation from the spec."""

import sympy as sp

from attncert.theory import gllm


def test_block_parameter_counts_match_an_enumeration_of_the_block():
    """Prop 1's pre-norm block (gllm.md §1.1, Eq. 6-9), its parameter tensors enumerated one by one: per head
    W_Q, W_K, W_V (d x d_k), W_O (H d_v x d); FFN W_1 (d x d_ff), b_1 (d_ff), W_2 (d_ff x d), b_2 (d); two
    RMSNorm gains (d each), with d_k = d_v = d / H and d_ff = 4 d."""
    for d, heads in ((12, 3), (64, 8), (10, 1)):
        d_k, d_ff = d // heads, 4 * d
        attention = heads * 3 * (d * d_k) + (heads * d_k) * d
        ffn = d * d_ff + d_ff * d
        rest = d_ff + d + 2 * d
        counts = gllm.block_parameter_counts(sp.Integer(d), sp.Integer(heads))
        assert counts == {"attention": attention, "ffn": ffn, "linear": rest}
