"""Which function `submit` checks, found by reading the file (never by running it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_ref.calling import CallPlan
from attention_ref.discovery import SubmissionError, find_function


def write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_a_known_attention_name_wins_over_helpers(tmp_path: Path) -> None:
    path = write(
        tmp_path, "def softmax(x):\n    pass\n\ndef attention(Q, K, V, mask=None):\n    pass\n"
    )
    found = find_function(path)
    assert (found.name, found.target, found.takes_mask) == ("attention", "attention", True)


def test_a_softmax_alone_is_a_softmax_target(tmp_path: Path) -> None:
    found = find_function(write(tmp_path, "def stable_softmax(s, axis=-1):\n    pass\n"))
    assert (found.name, found.target) == ("stable_softmax", "softmax")


@pytest.mark.parametrize(
    ("source", "target"),
    [("def mine(q, k, v):\n    pass\n", "attention"), ("def mine(s):\n    pass\n", "softmax")],
)
def test_the_one_public_function_is_judged_by_its_parameters(tmp_path, source, target) -> None:
    assert find_function(write(tmp_path, source + "def _helper():\n    pass\n")).target == target


def test_func_names_the_function(tmp_path: Path) -> None:
    path = write(tmp_path, "def a(Q, K, V):\n    pass\n\ndef b(x):\n    pass\n")
    assert find_function(path, "b").target == "softmax"
    with pytest.raises(SubmissionError, match="no function 'c'") as info:
        find_function(path, "c")
    assert info.value.verdict == "not_found"


def test_the_attention_function_wins_over_a_softmax_helper(tmp_path: Path) -> None:
    path = write(tmp_path, "def a(Q, K, V):\n    pass\n\ndef b(x):\n    pass\n")
    found = find_function(path)
    assert (found.name, found.target) == ("a", "attention")
    assert "only function" in found.why


def test_the_function_calling_the_others_wins_and_says_why(tmp_path: Path) -> None:
    source = (
        "def scores(q, k, v):\n    pass\n\n"
        "def self_attention(q, k, v):\n    return scores(q, k, v)\n"
    )
    found = find_function(write(tmp_path, source))
    assert found.name == "self_attention" and "calls" in found.why


def test_known_names_break_ties(tmp_path: Path) -> None:
    source = "def mine(q, k, v):\n    pass\n\ndef sdpa(q, k, v):\n    return mine(q, k, v)\n"
    assert find_function(write(tmp_path, source)).name == "sdpa"


def test_a_class_with_a_no_argument_constructor_is_used_through_forward(tmp_path) -> None:
    source = (
        "class Attention:\n    def __init__(self, scale=None):\n        pass\n"
        "    def forward(self, q, k, v, attn_mask=None):\n        pass\n"
        "    def __call__(self, *args):\n        return self.forward(*args)\n"
    )
    found = find_function(write(tmp_path, source))
    assert (found.name, found.target, found.takes_mask) == ("Attention.forward", "attention", True)
    assert "class Attention" in found.why


def test_weights_in_the_signature_get_how_attnquiz_calls_and_func(tmp_path) -> None:
    path = write(tmp_path, "def self_attention(X, W_q, W_k, W_v):\n    pass\n")
    with pytest.raises(SubmissionError) as info:
        find_function(path)
    message = str(info.value)
    assert info.value.verdict == "not_found"
    assert "self_attention(X, W_q, W_k, W_v)" in message
    assert "f(Q, K, V)" in message and "--func" in message


def test_a_class_needing_constructor_arguments_is_explained(tmp_path: Path) -> None:
    source = "class MHA:\n    def __init__(self, d_model):\n        pass\n"
    source += "    def forward(self, x):\n        pass\n"
    with pytest.raises(SubmissionError, match="constructor arguments"):
        find_function(write(tmp_path, source))


@pytest.mark.parametrize(
    ("signature", "roles"),
    [
        ("q, k, v, mask", {"mask": "mask"}),
        ("Q, K, V, d_k", {"d_k": "d_k"}),
        ("q, k, v, is_causal=False, dropout_p=0.0", {"is_causal": "causal", "dropout_p": "zero"}),
        # A padding mask is over keys, not a causal mask: left at its default.
        ("query, key, value, key_padding_mask=None, need_weights=True", {}),
        ("q, k, v, attn_mask=None, key_padding_mask=None", {"attn_mask": "mask"}),
    ],
)
def test_parameters_after_qkv_get_roles(tmp_path: Path, signature: str, roles) -> None:
    found = find_function(write(tmp_path, f"def attention({signature}):\n    pass\n"))
    assert found.roles == roles


def test_the_rank_written_for_is_read_from_the_code(tmp_path: Path) -> None:
    source = "def attention(Q, K, V):\n    B, T, d = Q.shape\n    return Q @ K.transpose(0, 2, 1)\n"
    assert find_function(write(tmp_path, source)).hints.rank == 3
    torch = "def attention(Q, K, V):\n    return Q @ K.transpose(-2, -1)\n"
    assert find_function(write(tmp_path, torch)).hints.torch_transpose


def test_a_syntax_error_is_an_error_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match=r"SyntaxError: .* \(line 2\)") as info:
        find_function(write(tmp_path, "def attention(Q, K, V):\n    return Q @@ K\n"))
    assert info.value.verdict == "error"


def test_nothing_runs_while_looking(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').close()\n\ndef attention(Q, K, V):\n    pass\n"
    assert find_function(write(tmp_path, source)).name == "attention"
    assert not marker.exists()


@pytest.mark.parametrize("decorator", ["staticmethod", "classmethod"])
def test_a_static_method_of_a_layer_needing_arguments_is_the_attention(
    tmp_path: Path, decorator: str
) -> None:
    first = "cls, " if decorator == "classmethod" else ""
    source = (
        "class MultiHeadAttention:\n"
        "    def __init__(self, d_model, n_heads):\n        pass\n"
        f"    @{decorator}\n    def scaled_dot_product(({first}q, k, v, mask=None):\n        pass\n"
        "    def __call__(self, x):\n        return self.scaled_dot_product(x, x, x)\n"
    ).replace("((", "(")
    found = find_function(write(tmp_path, source))
    assert (found.name, found.target, found.takes_mask) == (
        "MultiHeadAttention.scaled_dot_product",
        "attention",
        True,
    )
    assert "called without an instance" in found.why
    named = find_function(write(tmp_path, source), "MultiHeadAttention.scaled_dot_product")
    assert named.parameters == ("q", "k", "v", "mask")


def test_an_ordinary_method_of_a_layer_needing_arguments_stays_uncallable(tmp_path) -> None:
    source = (
        "class Layer:\n    def __init__(self, d):\n        pass\n"
        "    def attend(self, q, k, v):\n        pass\n"
    )
    with pytest.raises(SubmissionError) as raised:
        find_function(write(tmp_path, source))
    assert raised.value.verdict == "not_found"


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("def attention(Q, K, V):\n    return " + "-" * 100_000 + "Q\n", "too deeply"),
        ("def attention(Q, K, V):\n    return Q\x00\n", "null bytes"),
    ],
)
def test_a_file_the_parser_refuses_says_why_in_words(
    tmp_path: Path, source: str, words: str
) -> None:
    with pytest.raises(SubmissionError) as caught:
        find_function(write(tmp_path, source))
    message = str(caught.value)
    assert words in message and "None" not in message and not message.endswith(": ")


@pytest.mark.parametrize(
    ("made", "name", "parameters"),
    [
        ("attention = _impl", "attention", ("q", "k", "v", "scale")),
        ("attention = partial(_impl, scale=None)", "attention", ("q", "k", "v")),
        ("attention = functools.partial(_impl, scale=None)", "attention", ("q", "k", "v")),
        ("attention = njit(cache=True)(_impl)", "attention", ("q", "k", "v", "scale")),
        ("attention = jax.jit(partial(_impl, scale=2.0))", "attention", ("q", "k", "v")),
        (
            "attention = np.vectorize(_impl, signature=SIGNATURE)",
            "attention",
            ("q", "k", "v", "scale"),
        ),
        (
            "attention = jax.vmap(_impl, in_axes=(0, None, None))",
            "attention",
            ("q", "k", "v", "scale"),
        ),
        ("attn = Layer(dropout=0.1)", "attn.forward", ("q", "k", "v", "mask")),
        ("attn = Base(0.1)", "attn", ("q", "k", "v")),
        ("attention = make(scale=2.0)", "attention", ("query", "key", "value", "mask")),
    ],
)
def test_a_callable_the_module_makes_is_called_as_the_module_leaves_it(
    tmp_path: Path, made: str, name: str, parameters: tuple[str, ...]
) -> None:
    # A private implementation, classes needing constructor arguments: only what the module
    # builds from them at its top level can be called with (Q, K, V).
    source = (
        "def _impl(q, k, v, scale=None):\n    pass\n\n"
        "class Base:\n    def __init__(self, p):\n        pass\n"
        "    def __call__(self, q, k, v):\n        pass\n\n"
        "class Layer(Base):\n    def forward(self, q, k, v, mask=None):\n        pass\n\n"
        "def make(scale):\n    def inner(query, key, value, mask=None):\n        pass\n"
        "    return inner\n\n"
    )
    found = find_function(write(tmp_path, source + made + "\n"))
    assert (found.name, found.target, found.parameters) == (name, "attention", parameters)
    assert f"made by the file as {made}" in found.why


def test_a_value_computed_from_a_function_is_not_a_function(tmp_path: Path) -> None:
    source = (
        "def _impl(q, k, v):\n    pass\n\nelapsed = timed(_impl, Q, K, V)\nout = _impl(Q, K, V)\n"
    )
    with pytest.raises(SubmissionError) as raised:
        find_function(write(tmp_path, source))
    assert raised.value.verdict == "not_found"


@pytest.mark.parametrize(
    ("parameter", "role"),
    [("padding_mask", "padding"), ("key_mask", "padding"), ("attn_bias", "bias")],
)
def test_a_required_padding_mask_or_bias_is_filled_not_refused(
    tmp_path: Path, parameter: str, role: str
) -> None:
    # A mask over keys is not a causal mask, and a bias is not a mask: the grader gives one
    # that masks nothing, or zeros, so the function can be called.
    found = find_function(write(tmp_path, f"def attention(q, k, v, {parameter}):\n    pass\n"))
    assert found.roles == {parameter: role} and parameter in found.required
    assert not found.takes_mask


@pytest.mark.parametrize("parameter", ["key_mask", "attn_bias", "use_bias"])
def test_an_optional_padding_mask_or_bias_keeps_its_default(tmp_path: Path, parameter: str) -> None:
    source = f"def attention(q, k, v, {parameter}=None):\n    pass\n"
    assert find_function(write(tmp_path, source)).roles == {}


def test_a_required_switch_named_for_a_bias_still_makes_the_function_uncallable(
    tmp_path: Path,
) -> None:
    with pytest.raises(SubmissionError) as raised:
        find_function(write(tmp_path, "def attention(q, k, v, use_bias):\n    pass\n"))
    assert raised.value.verdict == "not_found"


DATACLASS_CALL = "    def __call__(self, q, k, v):\n        pass\n"


@pytest.mark.parametrize(
    ("fields", "constructible"),
    [
        ("    head_dim: int\n", False),
        ("    head_dim: int = field()\n", False),
        ("    head_dim: int = 0\n    extra: dict = field(default_factory=dict)\n", True),
        ("    cache: dict = field(init=False)\n    LIMIT: ClassVar[int]\n", True),
    ],
)
def test_a_dataclass_needs_arguments_when_a_field_has_no_default(
    tmp_path: Path, fields: str, constructible: bool
) -> None:
    source = (
        "from dataclasses import dataclass, field\nfrom typing import ClassVar\n\n"
        f"@dataclass\nclass Attention:\n{fields}{DATACLASS_CALL}"
    )
    if constructible:
        assert find_function(write(tmp_path, source)).name == "Attention.__call__"
        return
    with pytest.raises(SubmissionError) as raised:
        find_function(write(tmp_path, source))
    assert raised.value.verdict == "not_found"
    assert "class Attention needs constructor arguments" in str(raised.value)


def test_a_function_defined_under_a_top_level_if_or_try_is_found(tmp_path: Path) -> None:
    source = (
        "try:\n    from scipy.special import softmax\nexcept ImportError:\n"
        "    def softmax(x, axis=-1):\n        pass\n\n"
        "if HAVE_EINSUM:\n    def attention(q, k, v):\n        pass\n"
        "else:\n    def attention(q, k, v, mask=None):\n        pass\n"
    )
    found = find_function(write(tmp_path, source))
    assert (found.name, found.parameters) == ("attention", ("q", "k", "v", "mask"))


def test_a_function_defined_only_under_the_main_guard_is_not(tmp_path: Path) -> None:
    source = 'if __name__ == "__main__":\n    def attention(q, k, v):\n        pass\n'
    with pytest.raises(SubmissionError) as raised:
        find_function(write(tmp_path, source))
    assert raised.value.verdict == "not_found"


def test_dropout_or_training_on_by_default_is_turned_off_and_nothing_else(tmp_path: Path) -> None:
    # Evaluated as a careful grader evaluates a layer: dropout off, not in training mode; a
    # dropout layer object (default None) and switches already off keep their defaults.
    source = (
        "def attention(q, k, v, dropout_p=0.1, training=True, dropout=None, verbose=False):\n"
        "    pass\n"
    )
    found = find_function(write(tmp_path, source))
    assert found.on_by_default == {"dropout_p", "training"}
    args = (np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)))
    assert CallPlan(found).keywords(args, causal=False) == {"dropout_p": 0.0, "training": False}


@pytest.mark.parametrize("interface_first", [True, False])
def test_an_interface_is_not_the_implementation(tmp_path: Path, interface_first: bool) -> None:
    # An abstract class cannot be made, and a method that only raises NotImplementedError is
    # a stub: the class that implements it is checked, wherever it stands in the file.
    interface = (
        "class Base(ABC):\n    @abstractmethod\n    def forward(self, q, k, v):\n        ...\n\n"
        "class Stub:\n    def forward(self, q, k, v):\n"
        '        """To be written."""\n        raise NotImplementedError\n\n'
    )
    implementation = "class Impl(Base):\n    def forward(self, q, k, v):\n        return q\n\n"
    body = interface + implementation if interface_first else implementation + interface
    protocol = "class Attends(Protocol):\n    def forward(self, q, k, v): ...\n\n"
    source = "from abc import ABC, abstractmethod\n\n" + body + protocol
    assert find_function(write(tmp_path, source)).name == "Impl.forward"


def test_a_stub_alone_is_still_the_function_checked(tmp_path: Path) -> None:
    source = "def attention(Q, K, V):\n    raise NotImplementedError\n"
    assert find_function(write(tmp_path, source)).name == "attention"
