"""Guards from the twenty-first random mutation set (benchmarks/mutations_random21.toml): facts that
no test pinned until a mutant of the line survived."""

import pytest
import sympy as sp

from attncert.theory import gllm as tg
from attncert.theory import psa as tp

_TWO, _THREE = [1, 2], [1, 2, 3]


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("gain: alpha against g", lambda: tg.gain(_TWO, _THREE, _THREE)),
        ("gain: tau against g", lambda: tg.gain(_THREE, _TWO, _THREE)),
        ("log_gain: alpha against u", lambda: tg.log_gain(_TWO, _THREE, _THREE)),
        ("log_gain: tau against u", lambda: tg.log_gain(_THREE, _TWO, _THREE)),
        ("bhattacharyya", lambda: tg.bhattacharyya(_TWO, _THREE)),
        ("optimal_multipliers", lambda: tg.optimal_multipliers(_THREE, _TWO)),
        ("tilted", lambda: tg.tilted(_TWO, _THREE, 1)),
        ("git_form", lambda: tg.git_form(_THREE, _THREE, _TWO)),
        ("cap_ratio", lambda: tg.cap_ratio(_TWO, _THREE)),
        ("level_grading_operator", lambda: tg.level_grading_operator([sp.Matrix([1, 0]), sp.Matrix([0, 1])], [[1]], 2)),
    ],
)
def test_gllm_formulas_refuse_profiles_of_unequal_length(name, call):
    """GLLM's sums run over j = 1..d for every profile at once: a shorter alpha, tau, grade or level
    list is an error, not a sum silently cut to the shortest (zip would drop tau_3 e^{u_3}). The
    message is zip's (or git_form's own), not a shape error met later by chance."""
    with pytest.raises(ValueError, match=r"zip\(\) argument|one length"):
        call()


def test_block_entries_of_a_single_matrix_expression():
    """``block_entries`` on an expression that is no block matrix: one generic entry, 0 when the
    expression vanishes (X - X collapses to ZeroMatrix), X[i, j] otherwise."""
    n = sp.Symbol("n", integer=True, positive=True)
    x = sp.MatrixSymbol("X", n, n)
    i, j = sp.symbols("i j", integer=True)
    assert tp.block_entries(x - x) == sp.Matrix([[0]])
    assert tp.block_entries(2 * x - x) == sp.Matrix([[x[i, j]]])
