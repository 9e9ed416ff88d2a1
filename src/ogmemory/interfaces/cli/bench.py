"""``ogmem bench``: benchmarks that print their tables beside baselines run in the same process.

``ogmem bench locomo`` is the documented entry point of the LoCoMo recall benchmark
(``ogmemory.evaluation.locomo``; ``bench/bench_locomo.py`` is a thin script doing the same);
``ogmem bench knowledge`` scores what distillation keeps (``ogmemory.evaluation.knowledge``
and ``.devsessions``; ``bench/bench_knowledge.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...config import Settings
from ...errors import InvalidInput
from ...evaluation.locomo import LocomoReport, print_report, run_locomo
from ...evaluation.loo import VARIANTS, loo_table
from ...recall.config import check_budget
from .bench_knowledge import bench_knowledge
from .common import notice, stdout_console, table

__all__ = ["bench_app"]

bench_app = typer.Typer(
    name="bench",
    help="Run benchmarks; each prints its tables beside baselines run on the same data.",
    no_args_is_help=True,
)


def _check_args(data: Path, budget: int, samples: int | None, run_out: Path | None) -> None:
    if not data.is_file():
        raise InvalidInput(f"--data: no such file: {data}")
    check_budget(budget, "--budget")
    if samples is not None and samples < 1:
        raise InvalidInput(f"--samples must be at least 1, not {samples}")
    if run_out is not None and run_out.is_dir():
        raise InvalidInput(f"--run-out: {run_out} is a directory; give a file name")


def _print_loo(report: LocomoReport) -> None:
    rows = [
        (held, chosen, f"{c14:.3f}", f"{d14:.3f}", f"{cmh:.3f}", f"{dmh:.3f}")
        for held, chosen, c14, d14, cmh, dmh in loo_table(report)
    ]
    stdout_console().print(
        table(
            "Leave one conversation out: settings chosen on the others",
            (
                "held out",
                "chosen on the others",
                "1-4 chosen",
                "1-4 default",
                "multi-hop chosen",
                "multi-hop default",
            ),
            rows,
        )
    )


@bench_app.command("locomo")
def bench_locomo(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            metavar="FILE",
            show_default=False,
            help="A LoCoMo-format JSON file (a list of samples with 'conversation' and 'qa').",
        ),
    ],
    run_out: Annotated[
        Path | None,
        typer.Option(
            "--run-out",
            metavar="RUN.jsonl",
            help="Write one JSON line per question: sample_id, qa_index, the recalled "
            "items (text, dia_ids) and latency_ms.",
        ),
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            metavar="DIR",
            file_okay=False,
            show_default=False,
            help="Keep the benchmark's tenants (account 'locomo', one space per "
            "sample) here. \\[default: a temporary directory, deleted afterwards]",
        ),
    ] = None,
    budget: Annotated[
        int, typer.Option("--budget", metavar="TOKENS", help="Token budget per question.")
    ] = 2000,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            metavar="N",
            show_default=False,
            help="Only the first N conversations. \\[default: all]",
        ),
    ] = None,
    no_baselines: Annotated[
        bool,
        typer.Option("--no-baselines", help="Skip the BM25 / dense / RRF raw-turn baselines."),
    ] = False,
    leave_one_out: Annotated[
        bool,
        typer.Option(
            "--leave-one-out",
            help="Also recall with variants of the settings and "
            "show what choosing them on the other conversations gives on each.",
        ),
    ] = False,
) -> None:
    """Recall every LoCoMo question within the budget and score the evidence turns cited,
    per category, beside BM25 / dense / RRF baselines over the raw turns."""
    _check_args(data, budget, samples, run_out)
    settings = Settings.from_env(home=home)
    report = run_locomo(
        data,
        home=home,
        run_out=run_out,
        budget=budget,
        settings=settings,
        baselines=not no_baselines,
        samples=samples,
        progress=notice,
        configs=VARIANTS if leave_one_out else None,
    )
    if not report.rows:
        typer.echo(f"No question in {data} has evidence turns that could be scored.")
    else:
        print_report(report, stdout_console())
    if leave_one_out and report.by_sample:
        _print_loo(report)
    if run_out is not None:
        notice(f"run file: {run_out}")


bench_app.command("knowledge")(bench_knowledge)
