"""The model's side of a game: code mode's strategy prompt, and instruction mode's seat at the table.

Code mode asks once per (model, game, sample) for a program defining `class Strategy` (`templates/games/strategy.md.j2`:
the rules, the API, the move schema, an example observation with a legal move, the game's limits); `ask_strategy` reads it
as code mode reads any program and the match stage seats it in a sandbox. Instruction mode is the game itself: a `ChatSeat` holds
one conversation per game, the rules once (`opening.md.j2`), then each turn the opponent's moves and the new
observation (`turn.md.j2`), with PuzzlePlex's options: the whole history (default) or, `history=False`, only the
rules and the current turn; up to `format_retries` corrective follow-ups when no move can be read; the legal moves
as a hint. An M variant's board picture goes to the model as an image part (unless the model takes text only).

Seats run in a match thread and call the async model client on the run's event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import threading
from dataclasses import dataclass
from typing import Any

from puzzles import read_answer
from puzzles.games import Answer, Forfeit, Game, Setup

from ..modes import FORMAT_RETRIES, ChatModel, Reply
from ..modes._templates import compact_json, template
from ..modes.code import ask_program
from ..types import Completion, GameLimits, Limits, ModeName, Prompt, ReplySource, Sampling, Status

STRATEGY_ENTRY = "Strategy"
EXAMPLE_LEVEL, EXAMPLE_SEED = 1, 0
LEGAL_HINT_MAX = 100  # moves listed at most by the legal-moves hint
IMAGE_FIELD = "image"  # where an M variant's observation carries its board picture (base64 PNG)
MOVE_REMINDER = ("I could not find your move: your reply must end with one JSON object in a ```json code block that "
                 "follows the move schema. Reply again, ending with that block.")
WAIT_S = 0.25  # how often a seat waiting for the model checks whether the run is stopping


async def ask_strategy(prompt: Prompt, sampling: Sampling, model: ChatModel) -> Reply:
    """Code mode's request for a game: the reply's program must define `class Strategy`."""
    return await ask_program(prompt, sampling, model, STRATEGY_ENTRY)


def render_strategy_prompt(game: Game, game_limits: GameLimits, limits: Limits) -> Prompt:
    """Code mode's prompt for `game`: no instance, so one program plays every level.

    Raises:
        InputError: a template is missing (the message says where).
    """
    setup = game.setup(EXAMPLE_LEVEL, EXAMPLE_SEED)
    observation = game.observe(setup.state, 0)
    move = game.strategies["ref"](game, observation, 0, random.Random(0))
    context = {"name": game.name, "title": game.title, "players": game.players, "mode": ModeName.CODE,
               "levels": {level: dict(params) for level, params in game.levels.items()},
               "move_schema": compact_json(game.move_schema), "example_observation": compact_json(_shown(observation)),
               "example_move": compact_json(move), "memory_mib": limits.memory_mib,
               "game_limits": {"move_cpu_s": f"{game_limits.move_cpu_s:g}", "move_wall_s": f"{game_limits.move_wall_limit_s:g}",
                           "game_cpu_s": f"{game_limits.game_cpu_s:g}"}}
    system = template("games", "_strategy_system").render(context).strip() + "\n"
    user = template("games", "strategy").render(context).strip() + "\n"
    return Prompt(game.name, ModeName.CODE, (("system", system), ("user", user)))


@dataclass(frozen=True)
class ChatOptions:
    """How instruction mode plays (part of a match's key: another option is another game)."""

    history: bool = True
    legal_hint: bool = False
    format_retries: int = FORMAT_RETRIES
    images: bool = True  # False: the model takes text only, the picture stays out


class ChatSeat:
    """A model playing turn by turn in one conversation (a `puzzles.games.Player`; called from a match thread).

    `stop` is set when the run ends early: a seat waiting for the model then gives up (raises CancelledError).
    """

    def __init__(self, name: str, model: ChatModel, sampling: Sampling, options: ChatOptions,
                 loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
        self.name, self.model, self.sampling, self.options = name, model, sampling, options
        self.loop, self.stop = loop, stop
        self.turns: list[dict[str, Any]] = []  # each turn's replies, as they come

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        self.game, self.player, self.turns = game, seat, []
        context = {"name": game.name, "title": game.title, "players": game.players, "player": self.player, "mode": ModeName.INSTRUCTION,
                   "levels": {level: dict(params) for level, params in game.levels.items()},
                   "move_schema": compact_json(game.move_schema)}
        self.opening = [{"role": "system", "content": template("games", "_play_system").render(context).strip() + "\n"},
                        {"role": "user", "content": template("games", "opening").render(context).strip() + "\n"}]
        self.history: list[dict[str, Any]] = []  # the turns so far: their messages and the replies
        return None

    def move(self, observation: Any, since: list[dict[str, Any]]) -> Answer:
        """The model's move as JSON text (the engine judges it), or the outcome that ends the game for this seat."""
        message = self._turn_message(observation, since)
        messages = [*self.opening, *(self.history if self.options.history else []), message]
        turn = len(self.turns)
        replies: list[dict[str, Any]] = []
        self.turns.append({"replies": replies})  # kept as it grows: a turn the run's budget cuts short still shows its replies
        for retry in range(self.options.format_retries + 1):
            completion = self._complete(messages, turn, retry)
            replies.append(_reply_record(completion))
            if completion.error is not None:
                return Answer(forfeit=Forfeit(str(Status.API_ERROR), completion.error), wall_s=_latency(replies))
            answer = read_answer(completion.text).text
            if answer is not None:
                self.history += [message, {"role": "assistant", "content": completion.text}]
                return Answer(text=answer, wall_s=_latency(replies))
            messages = [*messages, {"role": "assistant", "content": completion.text}, {"role": "user", "content": MOVE_REMINDER}]
        cut = " (the last reply was cut off at max_tokens)" if completion.truncated else ""
        return Answer(forfeit=Forfeit(str(Status.NO_ANSWER), f"no move could be read after {self.options.format_retries} "
                                                             f"format retries{cut}"), wall_s=_latency(replies))

    def finish(self) -> dict[str, Any]:
        tokens = [reply.get("completion_tokens") or 0 for turn in self.turns for reply in turn["replies"]]
        return {"turns": self.turns, "completion_tokens": sum(tokens),
                "prompt_tokens": sum(reply.get("prompt_tokens") or 0 for turn in self.turns for reply in turn["replies"])}

    def _turn_message(self, observation: Any, since: list[dict[str, Any]]) -> dict[str, Any]:
        image = observation.get(IMAGE_FIELD) if isinstance(observation, dict) else None
        shown = _shown(observation)
        legal = None
        if self.options.legal_hint:
            moves = self.game.legal_moves(observation, self.player)
            listed = ", ".join(json.dumps(move) for move in moves[:LEGAL_HINT_MAX])
            legal = listed + (f" (the first {LEGAL_HINT_MAX} of {len(moves)})" if len(moves) > LEGAL_HINT_MAX else "") or "none"
        opponent_moves = [json.dumps(entry["move"]) for entry in since if entry["player"] != self.player]
        text = template("games", "turn").render(
            observation=compact_json(shown), legal_moves=legal, opponent_moves=opponent_moves,
            turn=len(self.turns) + 1, image=bool(image and self.options.images)).strip() + "\n"
        if not (image and self.options.images):
            return {"role": "user", "content": text}
        return {"role": "user", "content": [{"type": "text", "text": text},
                                            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}}]}

    def _complete(self, messages: list[dict[str, Any]], turn: int, retry: int) -> Completion:
        """One reply, from the event loop; its seed moves on with every turn and retry, so no two requests repeat.

        Raises:
            BudgetReached: the run's budget is used up: the request was not sent (the game is held for a resume).
        """
        seed = self.sampling.seed + 1000 * turn + retry
        future = asyncio.run_coroutine_threadsafe(
            self.model.complete(messages, temperature=self.sampling.temperature, max_tokens=self.sampling.max_tokens,
                                seed=seed), self.loop)
        while True:
            try:
                return future.result(WAIT_S)
            except concurrent.futures.TimeoutError:
                if self.stop.is_set():
                    future.cancel()
                    raise concurrent.futures.CancelledError from None


def _shown(observation: Any) -> Any:
    """The observation as text shows it: the picture (sent apart, as an image) left out."""
    if isinstance(observation, dict) and IMAGE_FIELD in observation:
        return {key: value for key, value in observation.items() if key != IMAGE_FIELD}
    return observation


def _reply_record(completion: Completion) -> dict[str, Any]:
    """One reply as the game's record keeps it, with what the client changed in it (`notes`), if anything, and where it
    came from unless it was asked directly (`reply_source`: the cache, a batch)."""
    extra: dict[str, Any] = {"notes": list(completion.notes)} if completion.notes else {}
    if completion.reply_source != ReplySource.API:
        extra["reply_source"] = str(completion.reply_source)
    return {"text": completion.text, "error": completion.error, "finish_reason": completion.finish_reason,
            "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
            "reasoning_tokens": completion.reasoning_tokens, "latency_s": round(completion.latency_s, 4), **extra}


def _latency(replies: list[dict[str, Any]]) -> float:
    return sum(reply["latency_s"] for reply in replies)
