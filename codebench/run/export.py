"""A loaded run's rows written out (`codebench export`): JSON lines, CSV, Parquet, or an inspect_ai eval log.

Layouts, one per format:
- jsonl: one stream (a file, or stdout), a JSON object per row with its `kind` first (samples, executions, games, usage,
  instances, steps, in that order), nested fields as JSON;
- csv, parquet: a folder, one file per kind (`samples.csv`, …); a field that holds a list or an object is JSON text;
- inspect: a folder, one inspect_ai log (`.eval`) per model × mode, one EvalSample per planned sample × instance (its
  id the instance, its epoch the sample index + 1), scored `C` when legal and `I` otherwise; a result the report does
  not count has no score and says why in its metadata. Games are not in it (they are no sample of one instance).

Writers go through `codebench.files.open_output`: a file appears whole or not at all, never over an input. pandas and
pyarrow come with the `export` extra, inspect_ai with the `inspect` extra; each missing one is one error naming it.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ..errors import InputError
from ..files import open_output
from ..types import Status
from .results import EXPORT_EXTRA, KINDS, LoadedRun, RunExecution, RunSample

FORMATS = ("jsonl", "csv", "parquet", "inspect")
FOLDERS = ("csv", "parquet", "inspect")  # the formats written as a folder of files
INSPECT_EXTRA = "pip install codebench-puzzles[inspect]"
SCORER = str(Status.LEGAL)  # the inspect score's name: C when the result is legal


def outputs(loaded: LoadedRun, fmt: str, folder: Path) -> list[Path]:
    """The files a folder format writes into `folder`, in order: what a command checks before any is written."""
    if fmt == "inspect":
        return [folder / f"{number:03d}-{_file_name(model)}-{mode}.eval"
                for number, (model, mode) in enumerate(_sides(loaded), start=1)]
    return [folder / f"{kind}.{fmt}" for kind in KINDS]


def write_jsonl(loaded: LoadedRun, out: IO[str]) -> int:
    """Every row as one JSON object with its kind; returns how many."""
    count = 0
    for kind in KINDS:
        for row in loaded.rows(kind):
            out.write(json.dumps({"kind": kind, **_fields(row)}, ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
    return count


def write_folder(loaded: LoadedRun, fmt: str, folder: Path, inputs: Sequence[Path]) -> list[Path]:
    """The files of a folder format (csv, parquet, inspect) written into `folder` (made if missing); returns them.

    Raises:
        InputError: the format's library is not installed, or a file cannot be written.
    """
    files = outputs(loaded, fmt, folder)
    require(fmt)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the folder -o {folder}: {exc.strerror or exc}") from None
    if fmt == "inspect":
        for path, log in zip(files, inspect_logs(loaded)):
            _write_log(log, path, inputs)
        return files
    for path, kind in zip(files, KINDS):
        if fmt == "csv":
            with open_output(path, inputs, option="-o") as out:
                _write_csv(loaded, kind, out)
        else:
            with open_output(path, inputs, binary=True, option="-o") as out:
                _write_parquet(loaded, kind, out)
    return files


LIBRARIES = {"parquet": ("pyarrow", EXPORT_EXTRA), "inspect": ("inspect_ai", INSPECT_EXTRA)}  # format -> (module, extra)


def require(fmt: str) -> None:
    """Raises: InputError, naming the extra to install, when the library `fmt` is written with cannot be imported."""
    if fmt in LIBRARIES:
        module, extra = LIBRARIES[fmt]
        try:
            __import__(module)
        except ImportError:
            raise InputError(f"this format needs {module}: {extra}") from None


def _fields(row: Any) -> dict[str, Any]:
    """A row's fields by name, as they are (tuples become JSON lists when written)."""
    return {field.name: getattr(row, field.name) for field in dataclasses.fields(row)}


def _flat(row: Any) -> dict[str, Any]:
    """A row's fields with each list or object as JSON text: one value per cell of a table."""
    return {name: json.dumps(value, ensure_ascii=False, separators=(",", ":")) if isinstance(value, tuple | list | dict) else value
            for name, value in _fields(row).items()}


def _columns(kind: str) -> list[str]:
    return [field.name for field in dataclasses.fields(KINDS[kind])]


def _write_csv(loaded: LoadedRun, kind: str, out: IO[str]) -> None:
    import csv

    writer = csv.DictWriter(out, fieldnames=_columns(kind), lineterminator="\n")
    writer.writeheader()
    writer.writerows(_flat(row) for row in loaded.rows(kind))


def _write_parquet(loaded: LoadedRun, kind: str, out: IO[bytes]) -> None:
    import pyarrow
    import pyarrow.parquet

    rows = [_flat(row) for row in loaded.rows(kind)]
    table = pyarrow.table({column: [row[column] for row in rows] for column in _columns(kind)})
    buffer = io.BytesIO()  # pyarrow seeks in what it writes; the output may be a pipe
    pyarrow.parquet.write_table(table, buffer)
    out.write(buffer.getvalue())


def _sides(loaded: LoadedRun) -> list[tuple[str, str]]:
    """Each model × mode of the samples, in order of first appearance."""
    return list(dict.fromkeys((sample.model, sample.mode) for sample in loaded.samples))


def _file_name(label: str) -> str:
    """A model label as part of a file name (a label may hold slashes: provider/model)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._") or "model"


def inspect_logs(loaded: LoadedRun) -> list[Any]:
    """One inspect_ai EvalLog per model × mode (in `outputs`' order): one EvalSample per planned sample × instance."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec, EvalStats
    from inspect_ai.model import ModelUsage

    samples = {(sample.run, sample.sample_id): sample for sample in loaded.samples}
    now = datetime.now(UTC).isoformat()
    logs = []
    for model, mode in _sides(loaded):
        results = [row for row in loaded.executions if (row.model, row.mode) == (model, mode)]
        entries = [_eval_sample(row, samples[row.run, row.sample_id]) for row in results]
        counted = [row for row in results if row.not_counted is None]
        legal = sum(row.status == Status.LEGAL for row in counted)
        usage = [u for u in loaded.usage if (u.model, u.mode) == (model, mode)]
        prompt, completion = sum(u.prompt_tokens for u in usage), sum(u.completion_tokens for u in usage)
        spec = EvalSpec(created=now, task=f"codebench/{mode}", model=model,
                        dataset=EvalDataset(name="codebench puzzles", samples=len(entries)),
                        config=EvalConfig(epochs=max((row.sample + 1 for row in results), default=1)),
                        metadata={"runs": list(dict.fromkeys(row.run for row in results)), "mode": mode,
                                  "not_counted": len(results) - len(counted)})
        score = EvalScore(name=SCORER, scorer="codebench", scored_samples=len(counted),
                          unscored_samples=len(results) - len(counted),
                          metrics={"accuracy": EvalMetric(name="accuracy", value=legal / len(counted) if counted else 0.0)})
        logs.append(EvalLog(eval=spec, status="success", samples=entries,
                            results=EvalResults(total_samples=len(entries), completed_samples=len(counted), scores=[score]),
                            stats=EvalStats(started_at=now, completed_at=now, model_usage={model: ModelUsage(
                                input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion,
                                reasoning_tokens=sum(u.reasoning_tokens for u in usage))})))
    return logs


def _eval_sample(row: RunExecution, sample: RunSample) -> Any:
    """One planned sample judged on one instance: the prompt, the reply, the verdict as a score (none when not counted).
    Tokens are the log's, not the sample's: a code-mode reply is judged on every instance of its puzzle."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import CORRECT, INCORRECT, Score

    roles = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    prompt = [roles[message["role"]](content=message["content"]) for message in json.loads(sample.prompt or "[]")]
    output = ModelOutput.from_content(row.model, sample.response or "", error=sample.error,
                                      stop_reason="max_tokens" if sample.truncated else "stop")
    scores = {} if row.not_counted is not None or row.status is None else {SCORER: Score(
        value=CORRECT if row.status == Status.LEGAL else INCORRECT, answer=row.status, explanation=row.detail)}
    metadata = {name: value for name, value in _fields(row).items() if name not in ("run", "sample_id")}
    return EvalSample(id=row.instance_id, epoch=row.sample + 1, input=prompt or "", target="",
                      messages=[*prompt, *([ChatMessageAssistant(content=sample.response)] if sample.response else [])],
                      output=output, scores=scores, metadata={"run": row.run, **metadata,
                                                               "read_status": sample.read_status, "program": sample.program})


def _write_log(log: Any, path: Path, inputs: Sequence[Path]) -> None:
    """An EvalLog into `path` whole: inspect_ai writes it beside, `open_output` puts it in place."""
    import tempfile

    from inspect_ai.log import write_eval_log

    with tempfile.TemporaryDirectory(prefix="codebench-export-") as scratch:
        written = Path(scratch) / path.name
        write_eval_log(log, written, format="eval")
        with open_output(path, inputs, binary=True, option="-o") as out:
            out.write(written.read_bytes())
