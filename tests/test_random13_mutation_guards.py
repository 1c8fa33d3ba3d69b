"""Guards from the thirteenth random mutation set (benchmarks/mutations_random13.toml): facts that
no test pinned until a mutant of the line survived."""

import math

import pytest
import sympy as sp

from attncert.solvers.phase import pearson_r
from attncert.theory import plga


@pytest.mark.parametrize(
    ("x", "y"),
    [([1.0, 2.0, 3.0], [1.0]), ([1.0, 2.0], [1.0, 2.0, 3.0]), ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 5.0]])],
)
def test_pearson_r_rejects_unpaired_samples(x, y):
    """Unpaired samples are an error naming the shapes; a length-1 y used to pass as 'constant' (NaN)."""
    with pytest.raises(ValueError, match="same length, got shapes"):
        pearson_r(x, y)


def test_pearson_r_of_fewer_than_two_pairs_is_nan():
    """The coefficient is undefined below two pairs: NaN, as for a constant sample, not an IndexError."""
    assert math.isnan(pearson_r([], []))
    assert math.isnan(pearson_r([1.0], [2.0]))
    assert pearson_r([1.0, 2.0], [3.0, 1.0]) == -1.0


def test_commutant_dimension_refines_an_interval_that_straddles_zero():
    """Rot(10^-40) is a rotation (sin != 0): its commutant is {c I + s J}, dimension 2. The 40-digit
    enclosure straddles sin = 0 and used to be read as sin = 0 (dimension 4); two angles 10^-100 apart
    have distinct cosines only at 160 digits."""
    tiny = sp.Rational(1, 10**40)
    assert plga.commutant_dimension([tiny]) == 2
    assert plga.commutant_dimension([tiny, tiny + sp.Rational(1, 10**100)]) == 4
    assert plga.commutant_dimension([tiny, tiny]) == 8


def test_commutant_dimension_refuses_a_zero_it_cannot_decide():
    """sqrt(5 + 2 sqrt 6) = sqrt 2 + sqrt 3, which SymPy's simplify does not see: the two angles have one
    cosine, every interval straddles 0, and the count is refused rather than guessed."""
    hidden_zero = sp.sqrt(5 + 2 * sp.sqrt(6)) - sp.sqrt(2) - sp.sqrt(3)
    with pytest.raises(ValueError, match=r"cos theta_0 - cos theta_1 is 0 \(intervals to 640 digits"):
        plga.commutant_dimension([sp.Integer(1), 1 + hidden_zero])
