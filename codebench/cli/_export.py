"""`codebench export`: a run's rows (samples, executions, games, usage, instances) as JSON lines, CSV, Parquet or an
inspect_ai log; parsing and printing only (`codebench.run.results` reads, `codebench.run.export` writes)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from ..errors import InputError
from ..files import FILE, FOLDER, check_outputs, open_output
from ..run.export import FOLDERS, FORMATS, outputs, require, write_folder, write_jsonl
from ..run.results import databases, load_run, once, store_files
from ..types import harmless
from ._interrupt import interruptible

status = Console(stderr=True, soft_wrap=True)


def export(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (each holds run.sqlite), joined as `report` "
                                                        "joins them.")],
    to: Annotated[str, typer.Option("--to", help="jsonl (one stream, a `kind` per row), csv or parquet (a folder, a file "
                                                 "per kind), inspect (a folder, an inspect_ai log per model and mode).")],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="The file (jsonl; default stdout) or the folder "
                                                                         "(made if missing) to write.")] = None,
) -> None:
    """Every planned sample, each result of a sample on an instance, every game, the usage, the instances and the
    adaptive search steps, one row each, as the report counts them: a row it does not count says why in `not_counted`.
    The runs are only read."""
    if to not in FORMATS:
        raise InputError(f"--to {to!r}: choose {', '.join(FORMATS)}")
    if to in FOLDERS and output is None:
        raise InputError(f"--to {to} writes a folder of files: give it with -o FOLDER")
    inputs = store_files(run_dirs)
    check_outputs([("-o", output, FOLDER if to in FOLDERS else FILE)], inputs)
    once(databases(run_dirs))
    require(to)
    loaded = load_run(run_dirs)
    if to not in FOLDERS:
        with interruptible("the rows written so far are kept whole: export again"), open_output(output, inputs, option="-o") as out:
            count = write_jsonl(loaded, out)
        if output is not None:
            status.print(f"export written: {harmless(str(output))} ({count} rows)", highlight=False, markup=False)
        return
    assert output is not None
    files = outputs(loaded, to, output)
    if output.is_dir():  # its files are checked as the report's: none over an input, a directory or a link
        check_outputs([("-o", path, FILE) for path in files], inputs)
    with interruptible("each file is whole, the new or the old: export again"):
        write_folder(loaded, to, output, inputs)
    status.print(f"export written: {len(files)} files in {harmless(str(output))}", highlight=False, markup=False)
    if to == "inspect" and loaded.steps:  # said, never dropped unsaid: a step is no planned sample × instance
        status.print(f"not in the inspect logs: {len(loaded.steps)} adaptive search steps (run --adaptive); export them "
                     "with --to jsonl, csv or parquet (kind `steps`)", highlight=False, markup=False)
