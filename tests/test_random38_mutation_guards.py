"""Guards from the thirty-eighth random mutation set (benchmarks/mutations_random38.toml): the RoPE zero
tests' enclosures at large angles. (Its other survivor, `_lbfgsb`'s default of 10 restarts, is pinned by the
restart-loop test of tests/test_random36_mutation_guards.py.)"""

import sympy as sp

from attncert.theory import plga


def test_commutant_dimension_encloses_large_angles():
    """Each angle's enclosure has a radius relative to the angle (10^(5 - digits) |theta|), so a
    40-digit value of 10^6 pi, off by up to 5e-34, still lies in its box with the exact angle: sin
    10^6 pi = 0 and cos(10^6 pi + pi/3) = cos(pi/3) are then left to SymPy, which proves them. An
    absolute radius (10^(5 - digits) / |theta|) misses the exact angle and calls both nonzero."""
    big = 10**6 * sp.pi
    assert plga.commutant_dimension([big, sp.pi / 2]) == 4 + 2  # Rot(10^6 pi) = I: a block of 4
    assert plga.commutant_dimension([big + sp.pi / 3, sp.pi / 3]) == 2 + 2 + 2 * 2  # one cosine: the pair counts
