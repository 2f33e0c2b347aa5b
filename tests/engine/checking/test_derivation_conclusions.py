"""Lines that state their step after a reason, an implication or a limit, and words that name
another quantity. (Found by the held-out table tests/engine/drills/cases/steps-15-heldout-5.tsv.)"""

from engine.checking.derivation import Assumptions, check_step

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk", "d_{k}")})
ROOFLINE = Assumptions(symbols=("T",), positive=("T",), aliases={"d_k": ("d", "dk")})
BYTES = "8 T d_k + 8 T^2"


# --- a line that opens with its reason states its step in its last clause -------------------


def test_the_conclusion_after_a_reason_in_words_is_the_step() -> None:
    before = "Σ_a (E[q_a^2] E[k_a^2] - E[q_a]^2 E[k_a]^2)"
    line = "since E[q_a^2] = 1 and E[q_a] = 0, each term is 1, so Var(q·k) = d_k"
    verdict = check_step(before, line, expected="d_k", assumptions=SCORES)
    assert verdict.correct, verdict.message
    wrong = check_step(before, line.replace("= d_k", "= d_k^2"), assumptions=SCORES)
    assert wrong.readable and not wrong.correct


def test_a_reason_naming_the_terms_is_not_read_as_the_step() -> None:
    line = "since the products q_a k_a are independent, Σ_a Var(q_a k_a) / d_k"
    verdict = check_step(
        "Var(q·k)/d_k", line, expected="Σ_a Var(q_a k_a) / d_k", assumptions=SCORES
    )
    assert verdict.correct, verdict.message


def test_a_line_that_opens_with_its_expression_keeps_it() -> None:
    # the clause after the comma is the reason here, not the step
    verdict = check_step("Σ_a E[q_a k_a]", "Σ_a E[q_a]^2 E[k_a]^2, so it is 0", assumptions=SCORES)
    assert verdict.readable and not verdict.correct


# --- an arrow after an equation is an implication ------------------------------------------


def test_an_arrow_after_an_equation_implies_the_step_after_it() -> None:
    for line, right in [("d_k/4 = 10 → d_k = 40", True), ("d_k/4 = 10 -> d_k = 14", False)]:
        verdict = check_step(None, line, expected="d_k = 4 * 10 = 40", assumptions=ROOFLINE)
        assert verdict.correct is right, (line, verdict.message)


def test_an_arrow_after_an_expression_is_still_what_it_tends_to() -> None:
    verdict = check_step(None, "intensity → d_k/4", expected="d_k/4", assumptions=ROOFLINE)
    assert verdict.correct, verdict.message


# --- a limit worked out, not taken on trust -------------------------------------------------


def test_a_limit_that_holds_gives_its_value_as_the_step() -> None:
    for line in [
        "lim_{T→∞} d_k/(4(1 + d_k/T)) = d_k/4",
        "\\lim_{T \\to \\infty} \\frac{T d_k}{4(d_k + T)} = \\frac{d_k}{4}",
    ]:
        verdict = check_step(None, line, expected="d_k/4", assumptions=ROOFLINE)
        assert verdict.correct, (line, verdict.message)


def test_a_limit_that_does_not_hold_is_wrong_and_says_what_it_tends_to() -> None:
    verdict = check_step(
        None, "lim_{T→∞} T d_k/(4(d_k + T)) = T/4", expected="d_k/4", assumptions=ROOFLINE
    )
    assert verdict.readable and not verdict.correct
    assert "tends to" in verdict.message and "d_k/4" in verdict.message


# --- a word of what is counted names the quantity ------------------------------------------


def test_a_word_of_what_is_counted_names_the_quantity() -> None:
    verdict = check_step(
        None, "flops(Q K^T) = 2 * T**2 * d_k", expected="2 T^2 d_k", assumptions=ROOFLINE
    )
    assert verdict.correct, verdict.message
    # a function of the question's own quantities is a claim about them, not a name
    claim = check_step(None, "std(q·k) = d_k", expected="d_k", assumptions=SCORES)
    assert not claim.correct
    bytes_ = check_step(None, "bytes(S) = " + BYTES, expected=BYTES, assumptions=ROOFLINE)
    assert bytes_.correct, bytes_.message


# --- means given a vector, and the mean of a vector ------------------------------------------

SOFTMAX = Assumptions(indices=("i", "j", "k"), symbols=("s_i", "m"))


def test_a_mean_given_one_vector_averages_over_the_other() -> None:
    for before, line, expected in [
        ("E[q·k]", "E[q·k] = E[ E[q·k | k] ] = Σ_a E[ E[q_a k_a | k] ]", "Σ_a E[q_a k_a]"),
        ("Σ_a E[q_a k_a]", "Σ_a E[ k_a E[q_a | k] ] = Σ_a E[k_a] E[q_a]", "Σ_a E[q_a] E[k_a]"),
        ("Σ_a E[q_a] E[k_a]", "Σ_a E[k_a · E[q_a | k]] = Σ_a E[k_a · 0] = 0", "0"),
    ]:
        verdict = check_step(before, line, expected=expected, assumptions=SCORES)
        assert verdict.correct, (line, verdict.message)


def test_a_mean_given_a_vector_is_still_random_in_that_vector() -> None:
    # E[q·k | k] = Σ_a E[q_a] k_a depends on k: it is not the number E[q·k]
    verdict = check_step("E[q·k]", "E[q·k | k]", assumptions=SCORES)
    assert verdict.readable and not verdict.correct
    assert "E(q·k | k) is a random quantity" in verdict.message
    wrong = check_step("Σ_a E[q_a k_a]", "Σ_a E[k_a E[q_a | k]] = Σ_a E[k_a]^2", assumptions=SCORES)
    assert wrong.readable and not wrong.correct


def test_a_mean_given_a_vector_of_a_product_of_sums_is_not_guessed() -> None:
    verdict = check_step("Var(q·k)", "E[E[(q·k)^2 | k]]", assumptions=SCORES)
    assert not verdict.correct and "not worked out here" in verdict.message


def test_the_dot_product_of_two_means_is_the_sum_of_the_products_of_means() -> None:
    for line in ["E[q·k] = E[q]·E[k]", "E[q]^T E[k]", "E[q]ᵀE[k]"]:
        verdict = check_step(
            "Σ_a E[q_a k_a]", line, expected="Σ_a E[q_a] E[k_a]", assumptions=SCORES
        )
        assert verdict.correct, (line, verdict.message)
    wrong = check_step("Σ_a E[q_a k_a]", "E[q]·E[q]", assumptions=SCORES)
    assert wrong.readable and not wrong.correct


# --- a Σ's body ends before the factors that do not use its index ----------------------------


def test_a_fraction_times_one_written_as_a_fraction_is_the_asked_fraction() -> None:
    expected = "e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})"
    verdict = check_step(
        "e^{s_i} / Σ_j e^{s_j}",
        "e^{s_i}/Σ_j e^{s_j} · e^{-m}/e^{-m}",
        expected=expected,
        assumptions=SOFTMAX,
    )
    assert verdict.correct, verdict.message
    # the other way round it is not the asked fraction: e^{+m} where e^{-m} is asked
    flipped = check_step(
        "e^{s_i} / Σ_j e^{s_j}",
        "e^{s_i}/Σ_j e^{s_j} · e^{m}/e^{m}",
        expected=expected,
        assumptions=SOFTMAX,
    )
    assert not flipped.correct


# --- the largest score, over any index -------------------------------------------------------


def test_the_largest_score_is_one_number_whatever_its_index_is_called() -> None:
    shift = Assumptions(
        indices=("i", "j", "k"), symbols=("s_i", "m"), definitions={"m": "max_j s_j"}
    )
    before, expected = "e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})", "e^{s_i - m} / Σ_j e^{s_j - m}"
    for line in [
        "e^{s_i - max_k s_k} / Σ_j e^{s_j - max_k s_k}",
        "e^{s_i - \\max_{k} s_{k}} / Σ_j e^{s_j - max_j(s_j)}",
    ]:
        verdict = check_step(before, line, expected=expected, assumptions=shift)
        assert verdict.correct, (line, verdict.message)
    # the max in the numerator only: the learner is told about m, the drill's name for it
    wrong = check_step(before, "e^{s_i - max_k s_k} / Σ_j e^{s_j}", assumptions=shift)
    assert wrong.readable and not wrong.correct and "max" not in wrong.message
    # a max whose index is not the member's is not the largest score
    other = check_step(before, "e^{s_i - max_k s_j} / Σ_j e^{s_j - m}", assumptions=shift)
    assert not other.readable


# --- the Jacobian as a matrix ----------------------------------------------------------------

JACOBIAN = Assumptions(
    indices=("i", "j", "k"),
    symbols=("s_i",),
    definitions={"p_i": "e^{s_i} / Σ_k e^{s_k}"},
    aliases={"p_i": ("softmax_i",)},
)
QUOTIENT = "(δ_ij e^{s_i} Σ_k e^{s_k} - e^{s_i} e^{s_j}) / (Σ_k e^{s_k})^2"


def test_the_jacobian_as_a_matrix_is_read_entry_by_entry() -> None:
    for line in ["diag(p) - p p^T", "J = \\operatorname{diag}(p) − pp^{T}"]:
        verdict = check_step(QUOTIENT, line, expected="p_i δ_ij - p_i p_j", assumptions=JACOBIAN)
        assert verdict.correct, (line, verdict.message)
    entry = "(diag(p) − p pᵀ)_{ij} = p_i (δ_ij − p_j)"
    verdict = check_step(
        "p_i δ_ij - p_i p_j", entry, expected="p_i (δ_ij - p_j)", assumptions=JACOBIAN
    )
    assert verdict.correct, verdict.message


def test_a_matrix_form_that_is_not_the_jacobian_is_wrong() -> None:
    for line in ["diag(p) − pᵀp", "diag(p) + p pᵀ", "(diag(p) − p pᵀ)_{ji} = p_i (δ_ij − p_i)"]:
        verdict = check_step(QUOTIENT, line, assumptions=JACOBIAN)
        assert not verdict.correct, line
    # the step after it asks for the factored entry: the matrix again is a restatement
    again = check_step(
        "p_i δ_ij - p_i p_j", "diag(p) − p pᵀ", expected="p_i (δ_ij - p_j)", assumptions=JACOBIAN
    )
    assert not again.correct


# --- a name the line defines after its expression --------------------------------------------


def test_a_name_the_line_defines_stands_for_its_definition() -> None:
    line = "(δ_ij e^{s_i} Z − e^{s_i} e^{s_j}) / Z^2 with Z = Σ_k e^{s_k}"
    verdict = check_step("∂p_i/∂s_j", line, expected=QUOTIENT, assumptions=JACOBIAN)
    assert verdict.correct, verdict.message
    # Z for the sum where its square is asked: the definition does not make it right
    wrong = check_step(
        "∂p_i/∂s_j", line.replace("Z^2", "Z"), expected=QUOTIENT, assumptions=JACOBIAN
    )
    assert wrong.readable and not wrong.correct
    # a name the question knows is not redefined by words after the line
    known = check_step(
        "∂p_i/∂s_j", "p_i δ_ij - p_j with p_j = p_i p_j", expected=QUOTIENT, assumptions=JACOBIAN
    )
    assert not known.correct
