"""The worker's JSON-lines protocol, spoken directly: every line it prints is a reply."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.checking.worker.main import PROTOCOL, answer_request

# Real worker processes, started cold.
pytestmark = pytest.mark.slow


def talk(lines: list[str]) -> list[dict]:
    """Run a worker on `lines` (then end of input) and return everything it printed."""
    result = subprocess.run(
        [sys.executable, "-m", "engine.checking.worker"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def request(home: Path, request_id: int, answer: str) -> str:
    item = open_set("15", home).item("var-dot")
    assert item is not None
    data = item.model_dump(mode="json")
    return json.dumps(
        {"id": request_id, "op": "grade", "kind": item.kind, "item": data, "answer": answer}
    )


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """One real worker's replies to two requests, then to lines that are no request, then to
    one more request: one worker start for the tests below."""
    home = tmp_path_factory.mktemp("store")
    return talk(
        [
            request(home, 1, "d"),
            request(home, 2, "d^2"),
            "not json",
            "[1, 2]",
            '{"id": 3, "op": "exec"}',
            request(home, 4, "d"),
        ]
    )


def test_the_worker_says_it_is_ready_then_answers_each_request_in_order(
    conversation: list[dict],
) -> None:
    ready, first, second = conversation[:3]
    assert ready["ready"] is True and ready["protocol"] == PROTOCOL
    assert first["id"] == 1 and first["verdict"]["correct"] is True
    assert second["id"] == 2 and second["verdict"]["correct"] is False


def test_a_line_that_is_no_request_gets_a_protocol_error_and_the_worker_goes_on(
    conversation: list[dict],
) -> None:
    replies = conversation[2:]  # from the last good reply on
    assert len(replies) == 5
    assert [r.get("error") for r in replies[1:]] == ["protocol", "protocol", "protocol", None]
    assert replies[3]["message"] == "unknown request 'exec'"
    assert replies[4]["id"] == 4 and replies[4]["verdict"]["correct"] is True


def test_an_unknown_kind_or_a_self_rated_item_is_refused() -> None:
    unknown = answer_request(b'{"id": 1, "op": "grade", "kind": "nope", "item": {}}')
    assert unknown == {"id": 1, "error": "protocol", "message": "no typed item of kind 'nope'"}
    recall = {"id": "r", "kind": "recall", "prompt": "p", "back": "b"}
    line = json.dumps({"id": 2, "op": "grade", "kind": "recall", "item": recall, "answer": "x"})
    assert answer_request(line.encode())["error"] == "protocol"


@pytest.mark.parametrize("answer", [None, 3, ["d"]])
def test_a_grade_request_without_a_text_answer_is_refused(answer: object) -> None:
    item = {"id": "x", "kind": "expression", "prompt": "p", "answer": "d"}
    line = json.dumps({"id": 5, "op": "grade", "kind": "expression", "item": item})
    if answer is not None:
        line = line[:-1] + f', "answer": {json.dumps(answer)}}}'
    reply = answer_request(line.encode())
    assert reply["id"] == 5 and reply["error"] == "protocol"
    assert reply["message"].startswith("request answer: ")
