"""Guards from the forty-third random mutation set (benchmarks/mutations_random43.toml): the documented
radius of the commutant count's enclosures, 10^(5 - digits) relative, tested where a tenfold radius fails.
(The failed-client hook, installed once, is tested in tests/test_random_mutation_guards.py.)"""

import pytest
import sympy as sp

from attncert.theory import plga


def test_commutant_count_decides_a_gap_one_digit_above_its_finest_radius():
    """At 640 digits each angle's box has relative radius 10^-635, so a difference of cosines is known to
    about sin(1) 2 10^-635. Angles 1 and 1 + 10^-634 have cosines sin(1) 10^-634 apart, which those boxes
    separate: the count is 4 (no block pair shares a cosine, each rotation's own block gives 2); boxes ten
    times wider straddle 0. Angles 1 and 1 + 10^-635 are refused; boxes ten times narrower separate them."""
    assert plga.commutant_dimension([sp.Integer(1), 1 + sp.Integer(10) ** -634]) == 4
    with pytest.raises(ValueError, match="cannot decide"):
        plga.commutant_dimension([sp.Integer(1), 1 + sp.Integer(10) ** -635])
