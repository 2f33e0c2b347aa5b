"""The `attnquiz` command line: a thin shell over the engine.

Heavy modules (SymPy via the checker, the store, rich layouts) are imported inside the commands
that use them, so `attnquiz --help` starts at once.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

import engine
from engine.help_types import install as _plain_help_types

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker

_plain_help_types()

app = typer.Typer(
    name="attnquiz",
    help="Learn scaled dot-product attention, softmax(Q Kᵀ/√d_k) V: spaced-repetition quizzes "
    "with answers checked by meaning.\n\nExample: attnquiz 15  (review set 15, the attention "
    "chapter)",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Store folder (default: $ATTNQUIZ_HOME, else the user data folder).",
        show_default=False,
    ),
]
SetArg = Annotated[str, typer.Argument(help="Question set, e.g. 15.", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"attnquiz {engine.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Learn scaled dot-product attention."""


@app.command()
def quiz(
    ctx: typer.Context,
    set_name: SetArg,
    new: Annotated[
        int | None,
        typer.Option(
            "--new", min=0, max=9999, help="New cards per day (kept for next time; default 10)."
        ),
    ] = None,
    retention: Annotated[
        float | None,
        typer.Option(
            "--retention",
            min=0.7,
            max=0.99,
            help="Desired retention for FSRS (kept for next time; default 0.9).",
        ),
    ] = None,
    cram: Annotated[
        bool, typer.Option("--cram", help="Review every card without changing the schedule.")
    ] = False,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only cards with this tag (repeatable).")
    ] = None,
    confidence: Annotated[
        bool | None,
        typer.Option(
            "--confidence/--no-confidence",
            help="After each typed answer, say sure or unsure (kept for next time).",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Review a set: due cards first, then new ones (FSRS scheduling).

    Inside a session type :hint, :undo (take back the last answer) or :quit.
    When standard input is not a terminal, each question reads one line (scripted mode).

    Example: attnquiz quiz 15 --new 5
    """
    from engine.commands.quiz import run_quiz

    raise typer.Exit(
        run_quiz(
            set_name,
            new,
            retention,
            cram,
            tuple(tag or ()),
            data_dir,
            confidence,
            checker=_checker(ctx),
        )
    )


@app.command()
def check(
    ctx: typer.Context,
    set_name: SetArg,
    item: Annotated[
        str,
        typer.Argument(help="Item id, e.g. var-dot (a drill id with --step).", show_default=False),
    ],
    answer: Annotated[str, typer.Option("--answer", "-a", help="The answer to grade.")],
    as_json: JsonOpt = False,
    data_dir: DataDir = None,
    step: Annotated[
        int | None,
        typer.Option(
            "--step", help="Grade a line of the derivation drill ITEM at step N (1-based)."
        ),
    ] = None,
) -> None:
    """Grade one answer without touching the schedule (exit 0 right, 1 wrong).

    Example: attnquiz check 15 var-dot --answer "d"
    Example: attnquiz check 15 mean-var-dot --step 2 --answer "Σ_i E[q_i] E[k_i]"
    """
    from engine.commands.check import run_check

    raise typer.Exit(
        run_check(set_name, item, answer, as_json, data_dir, step, checker=_checker(ctx))
    )


@app.command("list")
def list_items(set_name: SetArg, data_dir: DataDir = None) -> None:
    """List a set's items with their ids, kinds, tags and due dates.

    Example: attnquiz list 15
    """
    from engine.commands.listing import run_list

    raise typer.Exit(run_list(set_name, data_dir))


@app.command()
def stats(
    set_name: SetArg,
    as_json: JsonOpt = False,
    retention: Annotated[
        float | None,
        typer.Option(
            "--retention", min=0.7, max=0.99, help="Desired retention (default: your setting)."
        ),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Counts, measured retention, due forecast and leeches of a set.

    Example: attnquiz stats 15 --json
    """
    from engine.commands.stats import run_stats

    raise typer.Exit(run_stats(set_name, as_json, retention, data_dir))


@app.command()
def settings(
    retention: Annotated[
        float | None,
        typer.Option("--retention", min=0.7, max=0.99, help="Desired retention for FSRS."),
    ] = None,
    new: Annotated[
        int | None, typer.Option("--new", min=0, max=9999, help="New cards per day.")
    ] = None,
    confidence: Annotated[
        bool | None,
        typer.Option(
            "--confidence/--no-confidence",
            help="Ask sure or unsure after each typed answer.",
            show_default=False,
        ),
    ] = None,
    leeches: Annotated[
        str | None,
        typer.Option(
            "--leeches",
            help="A card missed 4 times: 'suspend' it (out of the reviews) or only 'flag' it.",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
    data_dir: DataDir = None,
) -> None:
    """Show your settings, or change them; every command uses them from then on.

    Example: attnquiz settings --retention 0.85 --new 5
    """
    from engine.commands.settings import run_settings

    raise typer.Exit(run_settings(retention, new, confidence, leeches, as_json, data_dir))


@app.command()
def unsuspend(
    set_name: SetArg,
    items: Annotated[
        list[str] | None,
        typer.Argument(help="Item ids (default: every suspended card).", show_default=False),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Bring suspended cards (leeches) back into the daily reviews.

    Example: attnquiz unsuspend 15 std-512
    """
    from engine.commands.settings import run_unsuspend

    raise typer.Exit(run_unsuspend(set_name, items or None, data_dir))


@app.command()
def lint(
    ctx: typer.Context,
    paths: Annotated[
        list[Path], typer.Argument(help="Bank files or folders to check.", show_default=False)
    ],
) -> None:
    """Validate banks and re-check every answer they state (exit 2 on any problem).

    Example: attnquiz lint quizzes/
    """
    from engine.commands.lint import run_lint

    raise typer.Exit(run_lint(paths, checker=_checker(ctx)))


@app.command()
def drill(
    ctx: typer.Context,
    set_name: SetArg,
    name: Annotated[
        str | None,
        typer.Argument(
            help="One drill by id, e.g. backward-pass (default: the due ones).", show_default=False
        ),
    ] = None,
    timed: Annotated[
        bool, typer.Option("--timed", help="The five-minute memorization drill instead.")
    ] = False,
    rapid: Annotated[
        bool,
        typer.Option("--rapid", help="Rapid-fire shapes with fresh dimension names, timed."),
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, help="With --rapid: replay the round of this seed."),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Derivation drills, every line checked: the due ones, or the one named.

    Type one line per step; a line that follows and gets further skips steps.
    A miss shows a hint, a second miss the expected step. Inside a drill type
    :hint, :skip or :quit. Finishing a drill is one review of its card.
    --timed and --rapid race the clock: the five essentials, or shapes.
    When standard input is not a terminal, each step or answer reads one line.

    Example: attnquiz drill 15 softmax-jacobian; attnquiz drill 15 --rapid
    """
    from engine.commands.drill import run_drill

    raise typer.Exit(
        run_drill(set_name, name, timed, data_dir, rapid=rapid, seed=seed, checker=_checker(ctx))
    )


@app.command()
def submit(
    file: Annotated[Path, typer.Argument(help="Your Python file.", show_default=False)],
    func: Annotated[
        str | None, typer.Option("--func", help="The function to check (default: found by name).")
    ] = None,
    no_time: Annotated[bool, typer.Option("--no-time", help="Check only; do not time.")] = False,
    as_json: JsonOpt = False,
    memory_mb: Annotated[
        int, typer.Option("--memory-mb", min=64, max=65536, help="Memory limit of your code.")
    ] = 2048,
    seconds: Annotated[
        float, typer.Option("--seconds", min=0.5, max=600, help="Time limit per call.")
    ] = 10.0,
    exercise: Annotated[
        str | None,
        typer.Option("--exercise", help="Grade the file as this coding exercise (see exercises)."),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Grade again on every save until it passes.")
    ] = False,
    data_dir: DataDir = None,
) -> None:
    """Check your attention (or softmax) code in a sandbox, name the mistake, time it on this CPU.

    Exit 0 when every case passes, 1 otherwise.

    Example: attnquiz submit mine.py --func attention
    Example: attnquiz submit stable-softmax.py --exercise stable-softmax --watch
    """
    from engine.commands.submit import run_submit, run_submit_exercise

    if exercise is not None:
        raise typer.Exit(
            run_submit_exercise(
                file,
                exercise,
                data_dir,
                func=func,
                as_json=as_json,
                watch=watch,
                no_time=no_time,
                memory_mb=memory_mb,
                seconds=seconds,
            )
        )
    raise typer.Exit(run_submit(file, func, no_time, as_json, memory_mb, seconds, watch=watch))


@app.command()
def exercises(
    set_name: SetArg,
    exercise_id: Annotated[
        str | None,
        typer.Argument(help="Write this exercise's starter file ID.py here.", show_default=False),
    ] = None,
    hints: Annotated[
        bool, typer.Option("--hints", help="Show the exercise's hints, gentlest first.")
    ] = False,
    as_json: JsonOpt = False,
    data_dir: DataDir = None,
) -> None:
    """List the coding exercises of a set with their state, or start one.

    Example: attnquiz exercises 15
    Example: attnquiz exercises 15 stable-softmax   (writes stable-softmax.py)
    """
    from engine.commands import exercises as command

    if exercise_id is None:
        raise typer.Exit(command.run_list_exercises(set_name, data_dir, as_json))
    if hints:
        raise typer.Exit(command.run_show_hints(set_name, exercise_id, data_dir))
    raise typer.Exit(command.run_write_starter(set_name, exercise_id, data_dir))


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def bench(ctx: typer.Context) -> None:
    """Time the Numba kernel against NumPy and torch on this CPU (benchmarks/attention.py).

    Options are passed on: --quick, --rounds N, --seconds S, --keep-openblas-env, --output F.
    Runs from a source checkout (the benchmarks are not part of the wheel).

    Example: attnquiz bench --quick
    """
    import subprocess

    from engine.errors import UsageError
    from engine.paths import REPO_ROOT

    script = REPO_ROOT / "benchmarks" / "attention.py"
    if not script.is_file():
        raise UsageError(
            "the benchmarks ship with the source, not the wheel: run `attnquiz bench` from a "
            "clone installed with `pip install -e .` (torch for the comparison: `.[bench]`)"
        )
    raise typer.Exit(subprocess.call([sys.executable, str(script), *ctx.args]))


@app.command()
def export(
    set_name: SetArg,
    anki: Annotated[
        Path,
        typer.Option("--anki", help="The Anki package to write (.apkg).", show_default=False),
    ],
    with_schedule: Annotated[
        bool,
        typer.Option("--with-schedule", help="Carry each card's due date and interval over."),
    ] = False,
    data_dir: DataDir = None,
) -> None:
    """Write a set as an Anki deck; exporting again updates the same notes.

    Example: attnquiz export 15 --anki attention.apkg
    """
    from engine.commands.export import run_export

    raise typer.Exit(run_export(set_name, anki, with_schedule, data_dir))


lab_app = typer.Typer(
    help="Experiments on the reference kernel, drawn in the terminal.\n\n"
    "Example: attnquiz lab scaling",
    no_args_is_help=True,
)
app.add_typer(lab_app, name="lab")


@lab_app.command("scaling")
def lab_scaling(
    d_k: Annotated[
        int, typer.Option("--d-k", min=2, max=4096, help="Key dimension of the main run.")
    ] = 64,
    tokens: Annotated[
        int, typer.Option("--tokens", min=2, max=16, help="Tokens (rows of the heatmaps).")
    ] = 8,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the random Q, K, V.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Why divide by √d_k: the same Q, K, V with and without the scale, as heatmaps.

    Example: attnquiz lab scaling --d-k 256
    """
    from engine.commands.lab import run_lab_scaling

    raise typer.Exit(run_lab_scaling(d_k, tokens, seed, as_json))


@app.command()
def optimize(
    reset: Annotated[
        bool, typer.Option("--reset", help="Go back to FSRS's default parameters.")
    ] = False,
    as_json: JsonOpt = False,
    data_dir: DataDir = None,
) -> None:
    """Fit FSRS parameters to your own review history and use them from then on.

    Needs the optional extra: pip install 'attnquiz\\[optimize]' (it brings torch).

    Example: attnquiz optimize
    """
    from engine.commands.optimize import run_optimize

    raise typer.Exit(run_optimize(reset, as_json, data_dir))


COMMANDS = {
    "quiz",
    "check",
    "list",
    "stats",
    "lint",
    "submit",
    "exercises",
    "drill",
    "bench",
    "export",
    "lab",
    "optimize",
    "settings",
    "unsuspend",
}


def _with_default_command(args: list[str]) -> list[str]:
    """`attnquiz 15 ...` means `attnquiz quiz 15 ...`."""
    for index, arg in enumerate(args):
        if arg.startswith("-"):
            continue
        if arg not in COMMANDS:
            return [*args[:index], "quiz", *args[index:]]
        break
    return args


# Commands that grade: their checker's worker starts before Typer is even parsed, so that its
# SymPy import overlaps the rest of start-up.
GRADING_COMMANDS = {"quiz", "check", "drill", "lint"}


def _checker(ctx: typer.Context) -> Checker | None:
    """The checker `main` started for this command (None when the app runs without `main`)."""
    checker: Checker | None = ctx.obj
    return checker


@functools.cache
def _click_app() -> Any:
    """`app` as the Click command Typer builds from it, built once per process: calling `app`
    itself builds it afresh each time, reading every command's signature and type hints (tens
    of ms), which a process that runs the command line many times over would pay on each run."""
    from typer.main import get_command

    return get_command(app)


def main(argv: list[str] | None = None, *, checker: Checker | None = None) -> int:
    """Run the command line: its exit code. A grading command gets `checker` if given (its
    owner keeps it warm and stops it), else a new one, started before Typer parses anything and
    stopped at the end (`engine.commands.frame.checker_for`)."""
    from engine.commands.errors import run_guarded

    args = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    from engine.ui.script_line import sane_widths, tolerant_output, tolerant_stdin

    tolerant_stdin()
    tolerant_output()
    sane_widths()
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in GRADING_COMMANDS or {"-h", "--help"} & set(args):
        return run_guarded(lambda: _click_app()(args, prog_name="attnquiz", standalone_mode=False))

    def run() -> object:
        from engine.commands.frame import checker_for

        with checker_for(checker) as running:
            return _click_app()(args, prog_name="attnquiz", standalone_mode=False, obj=running)

    return run_guarded(run)


if __name__ == "__main__":
    sys.exit(main())
