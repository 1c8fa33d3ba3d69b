"""theory.gllm.lumped, the two-coordinates-and-the-rest view of a profile behind the general-d partial
derivatives of Prop 8 (ii), Sec 7.5 and Prop 10 (ii): its exact symbols, and a hand computation at d = 4
showing that the lumped form is the full one once R is the sum of the other coordinates' terms."""

import sympy as sp

from attncert.theory import gllm as th

Q = sp.Rational


def test_lumped_is_the_rest_then_the_two_coordinates_with_their_signs():
    rest, a_j, a_k = th.lumped("alpha")
    assert [rest, a_j, a_k] == [
        sp.Symbol("R_alpha", nonnegative=True),
        sp.Symbol("alpha_j", positive=True),
        sp.Symbol("alpha_k", positive=True),
    ]
    # R may vanish (d = 2: no other coordinates) but is never negative (a sum of positive terms)
    assert rest.is_nonnegative and rest.is_zero is None and rest.is_positive is None
    assert a_j.is_positive and a_k.is_positive


def test_lumped_log_gain_equals_the_full_one_at_d_4():
    """alpha = (1, 2, 3, 4)/10, tau = (4, 3, 2, 1)/10, coordinates j = 1, k = 2 at u = (log 2, 0, 0, 0):
    by hand A = 1/20 + 2/10 + 7/10 = 19/20 and T = 8/10 + 3/10 + 3/10 = 7/5, so Phi = log(19/20) + log(7/5)."""
    alpha, tau = [Q(v, 10) for v in (1, 2, 3, 4)], [Q(v, 10) for v in (4, 3, 2, 1)]
    (r_a, a_j, a_k), (r_t, t_j, t_k) = th.lumped("alpha"), th.lumped("tau")
    u_j = sp.log(2)
    lumped = th.log_gain([r_a, a_j, a_k], [r_t, t_j, t_k], [sp.Integer(0), u_j, sp.Integer(0)])
    values = {r_a: alpha[2] + alpha[3], a_j: alpha[0], a_k: alpha[1], r_t: tau[2] + tau[3], t_j: tau[0], t_k: tau[1]}
    full = th.log_gain(alpha, tau, [u_j, 0, 0, 0])
    assert lumped.subs(values) == full == sp.log(Q(19, 20)) + sp.log(Q(7, 5))
