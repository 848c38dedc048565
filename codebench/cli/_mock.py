"""`codebench mock-server`: parsing and printing only; the server is `codebench.model.mock_server`."""

from __future__ import annotations

import os
import sys
import threading
from typing import Annotated, Optional

import typer

from ..errors import InputError
from ..model.mock_behaviors import BEHAVIORS
from ..model.presets import MOCK_PORT, THINK_TAGS
from ._interrupt import interruptible


def mock_server_command(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = MOCK_PORT,
    behavior: Annotated[str, typer.Option(help=f"Default behaviour ({', '.join(BEHAVIORS)}; thinker: reasoning, "
                                               "its reasoning streamed over --think seconds; collapse-M or collapse-M-S: "
                                               "success falls with complexity λ as a logistic of midpoint M, slope S); "
                                               "a request's model naming one overrides it.")] = "oracle",
    latency: Annotated[float, typer.Option(help="Seconds to wait before each answer.")] = 0.0,
    fail_429_every: Annotated[int, typer.Option(help="Answer every k-th request with 429 (0: never).")] = 0,
    fail_500_every: Annotated[int, typer.Option(help="Answer every k-th request with 500 (0: never).")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the mixed behaviour.")] = 0,
    api_key_env: Annotated[Optional[str], typer.Option(help="Require the key held by this environment variable "
                                                            "(default: accept any key).")] = None,
    think: Annotated[float, typer.Option(help="Seconds the thinker thinks (streaming a reasoning chunk every "
                                              "--chunk-interval) before it answers.")] = 10.0,
    think_per_kchar: Annotated[float, typer.Option(help="Seconds the thinker thinks on top, per 1000 prompt characters "
                                                        "(bigger instances, longer thinking).")] = 0.0,
    chunk_interval: Annotated[float, typer.Option(help="Seconds between the thinker's reasoning chunks.")] = 0.5,
    stall: Annotated[float, typer.Option(help="Seconds a streamed reply pauses after --stall-after chunks.")] = 0.0,
    stall_after: Annotated[int, typer.Option(help="Chunks a streamed reply sends before its --stall.")] = 1,
    streaming: Annotated[str, typer.Option(help="on (stream as OpenAI does), reject (400, as servers that cannot "
                                                "stream do) or ignore (answer streamed requests plainly).")] = "on",
    reasoning_field: Annotated[str, typer.Option(help=f"Where reasoning goes: a field name, {THINK_TAGS} (inside the "
                                                      "content) or '' (not returned).")] = "reasoning_content",
    batch_delay: Annotated[float, typer.Option(help="Seconds a batch (the Batch API: files and batches) stays in progress "
                                                    "before it is answered.")] = 1.0,
) -> None:
    """Serve an OpenAI-compatible mock model on loopback until Ctrl-C (for demos and tests)."""
    from ..model.mock_server import start_mock_server

    key = os.environ.get(api_key_env) if api_key_env else None
    if api_key_env and not key:
        raise InputError(f"environment variable {api_key_env} is not set: export it, or drop --api-key-env to accept any key")
    server = start_mock_server(port=port, behavior=behavior, latency_s=latency, fail_429_every=fail_429_every,
                               fail_500_every=fail_500_every, seed=seed, api_key=key,
                               log=lambda line: print(line, file=sys.stderr, flush=True), think_s=think,
                               think_per_kchar_s=think_per_kchar, chunk_interval_s=chunk_interval, stall_s=stall,
                               stall_after=stall_after, streaming=streaming, reasoning_field=reasoning_field,
                               batch_delay_s=batch_delay)
    try:
        with interruptible("the mock server stopped"):  # exits 130 on Ctrl-C, 143 on SIGTERM, as every command does
            print(f"mock server listening on {server.url} (behavior {behavior}); Ctrl-C stops it", flush=True)
            print(f"try: codebench run --mode code --base-url {server.url} --model {behavior}", flush=True)
            threading.Event().wait()
    finally:
        server.close()
