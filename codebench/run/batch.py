"""Batch mode (`--batch`): a run's requests go through the provider's Batch API, a round at a time.

A round is every request the run's open conversations wait for: first the opening request of every sample not stored
yet (code mode: the programs'; instruction mode: the answers'; code-mode games: the strategies'), then the format
retries those replies need, and so on until every conversation has ended. A round goes once every open conversation
waits for a reply (none is still reading the last one): per model, its requests as one JSONL file and one batch
(`ModelClient.submit_batch`), polled until it ends, its replies read as a direct reply is read. Each batch's id is
stored with the keys of its requests (`keys.request_key`) as soon as it is created, so a stopped run polls that batch
again when re-run instead of submitting its requests anew, and takes its replies as they are; a request a batch ended
without answering (it failed, expired or was cancelled) is submitted again, and so is one a run read an error for (an
`api_error`, asked again on a re-run as a direct request is). Instruction-mode games (a request
per move, each waiting for the last) are not played in batch mode: the spec refuses them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..keys import content_key
from ..model.client import BatchRequest, BatchState
from ..types import Completion, ReplySource
from .store import Store

POLL_FIRST_S, POLL_GROWTH, POLL_MAX_S = 0.5, 1.5, 60.0  # how often a batch is asked how it stands: soon, then rarely
MAX_REQUESTS = 10_000  # requests per batch (OpenAI takes 50,000; its output file is read line by line anyway)
MAX_BYTES = 100 << 20  # of a batch's input file (OpenAI takes 200 MB)
Waiters = dict[str, tuple[BatchRequest, list["asyncio.Future[Completion]"]]]  # request key -> it, and who waits for it


@runtime_checkable
class BatchClient(Protocol):
    """What batch mode needs of a model's client (`codebench.model.ModelClient`)."""

    async def submit_batch(self, requests: Sequence[BatchRequest], tag: str) -> str: ...

    async def batch(self, batch_id: str) -> BatchState: ...

    async def batch_replies(self, state: BatchState) -> dict[str, Completion]: ...


class Batches:
    """The run's rounds. The pipeline says how many conversations will ask (`expect`) and when each ends (`ended`);
    a conversation's request waits in `complete` until its round is answered."""

    def __init__(self, clients: Mapping[str, BatchClient], store: Store, note: Callable[[str], None]) -> None:
        self.clients, self.store, self.note = clients, store, note
        self.open = 0  # conversations that will ask or are asking
        self.waiting = 0  # of those, the ones waiting for a reply: in the round to send, or in one sent
        self.next: dict[str, Waiters] = {}  # model -> the requests of the round to send
        self.rounds: set[asyncio.Task[None]] = set()

    def expect(self, conversations: int) -> None:
        self.open += conversations

    def ended(self) -> None:
        """A conversation ended (answered, held by the budget, or failed)."""
        self.open -= 1
        self._send_when_ready()

    async def complete(self, model: str, key: str, messages: list[dict[str, Any]], *, temperature: float,
                       max_tokens: int | None, seed: int) -> Completion:
        """The reply to one request (key `key`), once its round is answered.

        Raises:
            ModelError: the endpoint refused the round (no Batch API, a bad key) or could not be reached.
        """
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        waiters = self.next.setdefault(model, {})
        waiters.setdefault(key, (BatchRequest(key, messages, temperature, max_tokens, seed), []))[1].append(future)
        self.waiting += 1
        self._send_when_ready()
        return await future

    def _send_when_ready(self) -> None:
        """Send the next round once every open conversation waits for a reply."""
        if not self.next or self.waiting < self.open:
            return
        round_, self.next = self.next, {}
        for model, waiters in round_.items():
            task = asyncio.ensure_future(self._round(model, waiters))
            self.rounds.add(task)
            task.add_done_callback(self.rounds.discard)

    async def _round(self, model: str, waiters: Waiters) -> None:
        """One model's requests of a round, answered (or failed: every waiter is told)."""
        try:
            replies = await self._replies(model, {key: request for key, (request, _) in waiters.items()})
        except Exception as exc:
            failure = exc
            self._tell(waiters, lambda _: failure)
            return
        self._tell(waiters, lambda key: replies.get(key) or Completion(
            "", None, False, None, None, 0.0, None, "the batch ended without a reply to this request",
            reply_source=ReplySource.BATCH))

    def _tell(self, waiters: Waiters, outcome: Callable[[str], Completion | Exception]) -> None:
        for key, (_, futures) in waiters.items():
            found = outcome(key)
            for future in futures:
                self.waiting -= 1  # told now: it is busy reading until it asks again or ends
                if future.done():
                    continue
                if isinstance(found, Exception):
                    future.set_exception(found)
                else:
                    future.set_result(found)

    async def _replies(self, model: str, requests: dict[str, BatchRequest]) -> dict[str, Completion]:
        """The replies to `requests`: those a batch submitted earlier (by a stopped run) holds, the rest from new ones."""
        client = self.clients[model]
        earlier = [(batch_id, keys, read) for batch_id, keys, read in self.store.batches(model) if keys & requests.keys()]
        replies: dict[str, Completion] = {}
        for (_, _, read), found in zip(earlier, await asyncio.gather(
                *(self._ended(client, model, batch_id, earlier=True) for batch_id, _, _ in earlier))):
            replies.update({key: reply for key, reply in found.items() if key in requests and not (read and reply.error)})
        rest = [key for key in requests if key not in replies]
        tried = sorted(batch_id for batch_id, keys, _ in earlier if keys & set(rest))
        submitted = []
        for chunk in _chunks([requests[key] for key in rest]):
            keys = [request.key for request in chunk]
            # the tag is the same for the same requests of this run after the same batches: a batch created whose id was
            # not stored (the run was killed just then) is found by it and adopted, never created twice
            batch_id = await client.submit_batch(chunk, content_key("batch", str(self.store.path.resolve()), keys, tried))
            self.store.add_batch(batch_id, model, keys)
            self.note(f"note: {model}: batch {batch_id} of {len(keys)} requests submitted; a stopped run polls it again")
            submitted.append(batch_id)
        for found in await asyncio.gather(*(self._ended(client, model, batch_id, earlier=False) for batch_id in submitted)):
            replies.update({key: reply for key, reply in found.items() if key in requests})
        self.store.batches_read([*(batch_id for batch_id, _, _ in earlier), *submitted])
        return replies

    async def _ended(self, client: BatchClient, model: str, batch_id: str, *, earlier: bool) -> dict[str, Completion]:
        """The replies of a batch, polled until it ends."""
        if earlier:
            self.note(f"note: {model}: polling batch {batch_id}, submitted by an earlier run into this directory, instead "
                      "of submitting its requests again")
        delay = POLL_FIRST_S
        while not (state := await client.batch(batch_id)).ended:
            await asyncio.sleep(delay)
            delay = min(delay * POLL_GROWTH, POLL_MAX_S)
        problem = f" ({state.problem})" if state.problem else ""
        again = "" if state.status == "completed" else \
            f"; its requests without a reply are submitted again {'now' if earlier else 'when the run is run again'}"
        self.note(f"note: {model}: batch {batch_id} {state.status}{problem}: {state.done} of {state.total} requests "
                  f"answered{again}")
        return await client.batch_replies(state)

    def close(self) -> None:
        for task in self.rounds:
            task.cancel()


def _chunks(requests: Sequence[BatchRequest]) -> list[list[BatchRequest]]:
    """The requests in batches of at most MAX_REQUESTS and about MAX_BYTES each."""
    chunks: list[list[BatchRequest]] = [[]]
    size = 0
    for request in requests:
        weight = sum(len(str(message.get("content", ""))) for message in request.messages) + 200
        if chunks[-1] and (len(chunks[-1]) >= MAX_REQUESTS or size + weight > MAX_BYTES):
            chunks.append([])
            size = 0
        chunks[-1].append(request)
        size += weight
    return [chunk for chunk in chunks if chunk]
