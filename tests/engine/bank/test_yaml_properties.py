"""Property tests: no text an author (or a fuzzer) writes makes the bank reader raise."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bank.loader import load_bank_file
from engine.bank.yaml_source import YamlDocument, parse_yaml_text
from tests.conftest import warm_checker

yaml_ish = st.text(
    alphabet=st.sampled_from(list("abc:- \n\t[]{}&*!'\"#|>%@`,?0123456789")), max_size=200
)


@settings(max_examples=300, deadline=None)
@given(yaml_ish)
def test_any_text_gives_a_value_or_problems_never_an_exception(text: str) -> None:
    doc = parse_yaml_text(text, YamlDocument(path="x.yaml"))
    for problem in doc.problems:
        assert problem.startswith("x.yaml:")
        line = int(problem.split(":")[1])
        assert 1 <= line <= text.count("\n") + 2


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_any_unicode_file_loads_or_reports_problems(tmp_path_factory, text: str) -> None:
    path = Path(tmp_path_factory.mktemp("bank")) / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_bank_file(path, "demo.yaml", checker=warm_checker())
    assert loaded.problems or loaded.header is not None
