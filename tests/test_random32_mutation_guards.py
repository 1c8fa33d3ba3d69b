"""Guards from the thirty-second random mutation set (benchmarks/mutations_random32.toml): code that the set
showed could be read two ways, now read once and tested."""

import pytest
import sympy as sp

from attncert.theory import plga


@pytest.mark.parametrize("lemma", [plga.notears, plga.closed_walk_weights], ids=["notears", "closed-walks"])
def test_notears_refuses_a_non_square_matrix(lemma):
    """NOTEARS and its closed walks are defined on square adjacency matrices only (thirty-second set: both
    read the order as shape[0], where shape[1] gave the same number unseen); a 2 x 3 matrix is refused by
    name, before any product."""
    with pytest.raises(ValueError, match="square adjacency matrix, not 2 x 3"):
        lemma(sp.ones(2, 3))


def test_notears_counts_the_order_once():
    """h(0) = tr exp(0) - d = d - d = 0 at every order, and d closed-walk weights, all zero, for d = 1..4."""
    for d in range(1, 5):
        assert plga.notears(sp.zeros(d, d)) == 0
        assert plga.closed_walk_weights(sp.zeros(d, d)) == [0] * d
