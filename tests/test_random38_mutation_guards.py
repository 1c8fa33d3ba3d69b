"""Guards from the thirty-eighth random mutation set (benchmarks/mutations_random38.toml): the L-BFGS-B
cross-check's documented number of restarts, and the RoPE zero tests' enclosures at large angles."""

import numpy as np
import sympy as sp

from attncert.solvers import grades
from attncert.theory import plga


def test_lbfgsb_restarts_at_most_ten_times_by_default(scripted_minimize):
    """`_lbfgsb`'s docstring: at most 10 restarts by default. A run that only halves the distance to the
    optimum each time is run 11 times (the first run and ten restarts), ending at 2^-11."""
    calls = scripted_minimize(lambda x: x / 2)
    assert grades._lbfgsb(None, np.array([1.0]), [(0.0, 1.0)]).fun == 2.0**-11
    assert len(calls) == 11


def test_commutant_dimension_encloses_large_angles():
    """Each angle's enclosure has a radius relative to the angle (10^(5 - digits) |theta|), so a
    40-digit value of 10^6 pi, off by up to 5e-34, still lies in its box with the exact angle: sin
    10^6 pi = 0 and cos(10^6 pi + pi/3) = cos(pi/3) are then left to SymPy, which proves them. An
    absolute radius (10^(5 - digits) / |theta|) misses the exact angle and calls both nonzero."""
    big = 10**6 * sp.pi
    assert plga.commutant_dimension([big, sp.pi / 2]) == 4 + 2  # Rot(10^6 pi) = I: a block of 4
    assert plga.commutant_dimension([big + sp.pi / 3, sp.pi / 3]) == 2 + 2 + 2 * 2  # one cosine: the pair counts
