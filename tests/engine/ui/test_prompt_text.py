"""Card text is reflowed to the terminal, except where its line breaks carry layout."""

from __future__ import annotations

from rich.console import Console

from engine.ui.prompt_text import plain_text, reflow, render_prompt


def test_lines_of_one_paragraph_are_joined() -> None:
    text = "Write the attention of Q, K and\nV, whose keys have d_k\n(a number) components."
    assert (
        reflow(text)
        == "Write the attention of Q, K and V, whose keys have d_k (a number) components."
    )


def test_blank_lines_indented_lines_and_list_items_keep_their_breaks() -> None:
    text = (
        "With d_k = 2 and\n  Q = [[1, 0]]\n  K = [[1, 0], [0, 1]]\nwhat is the first weight?\n"
        "\nOptions:\n- one\n- two\n1. first\n2) second"
    )
    assert reflow(text).split("\n") == [
        "With d_k = 2 and",
        "  Q = [[1, 0]]",
        "  K = [[1, 0], [0, 1]]",
        "what is the first weight?",
        "",
        "Options:",
        "- one",
        "- two",
        "1. first",
        "2) second",
    ]


def test_a_prompt_fills_the_terminal_width_instead_of_the_files() -> None:
    prose = " ".join(["word"] * 40)
    wrapped_at_30 = "\n".join(prose[i : i + 30].strip() for i in range(0, len(prose), 30))
    console = Console(width=80, record=True, color_system=None)
    console.print(render_prompt(wrapped_at_30))
    lines = console.export_text().splitlines()
    assert len(lines) == 3  # 199 characters: three lines of at most 80, not seven of 30
    assert all(len(line) <= 80 for line in lines)


def test_code_blocks_are_left_as_written() -> None:
    prompt = "What is wrong here?\n```python\ndef f(s):\n    return s\n```\nName it."
    console = Console(width=80, record=True, color_system=None)
    console.print(render_prompt(prompt))
    assert "    return s" in console.export_text()


def test_plain_text_wraps_prose_and_list_items_at_80_with_a_hanging_indent() -> None:
    text = (
        "- The maximum depends on the data: it changes from row to row and batch to batch, so\n"
        "  the same pair gets different sharpness in different contexts, and so on and on.\n"
        "```python\n" + "x = 1  # " + "long comment " * 10 + "\n```"
    )
    lines = plain_text(text).split("\n")
    assert lines[0].startswith("- The maximum") and lines[1].startswith("  ")
    assert "".join(line.strip() + " " for line in lines[:3]).startswith(
        "- The maximum depends on the data: it changes from row to row and batch to batch, so "
        "the same pair"
    )
    prose = [line for line in lines if not line.startswith(("```", "x = 1"))]
    assert all(len(line) <= 80 for line in prose)
    assert any(len(line) > 80 for line in lines if line.startswith("x = 1"))  # code as written
