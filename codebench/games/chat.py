"""The model's side of a game: code mode's strategy prompt, and instruction mode's seat at the table.

Code mode asks once per (model, game, sample) for a program defining `class Strategy` (`templates/games/strategy.md.j2`:
the rules, the API, the move schema, an example observation with a legal move, the game's limits); `ask_strategy` reads it
as code mode reads any program and the match stage seats it in a sandbox. Instruction mode is the game itself: a `ChatSeat` holds
one conversation per game, the rules once (`opening.md.j2`), then each turn the opponent's moves and the new
observation (`turn.md.j2`), with PuzzlePlex's options: the whole history (default) or, `history=False`, only the
rules and the current turn; up to `format_retries` corrective follow-ups when no move can be read; the legal moves
as a hint. An M variant's board picture goes to the model as an image part (unless the model takes text only). Both
modes' prompts are posed as the run's `Prompting` says (its system message, its templates, a preset's example).

Seats run in a match thread and call the async model client on the run's event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import random
import threading
from dataclasses import dataclass
from typing import Any

from puzzles import Prompting, read_answer
from puzzles.games import Answer, Forfeit, Game, Setup

from ..modes import FORMAT_RETRIES, ChatModel, Reply
from ..modes._templates import compact_json, render, system_message
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


def render_strategy_prompt(game: Game, game_limits: GameLimits, limits: Limits, prompting: Prompting | None = None) -> Prompt:
    """Code mode's prompt for `game`: no instance, so one program plays every level; posed as `prompting` says.

    Raises:
        InputError: a template is missing (the message says where), or fails to render (its file and Jinja's error).
    """
    prompting = prompting or Prompting()
    context = {"name": game.name, "title": game.title, "players": game.players, "mode": ModeName.CODE,
               "levels": {level: dict(params) for level, params in game.levels.items()},
               "move_schema": compact_json(game.move_schema),
               "examples": [example_move(game)][:prompting.examples(ModeName.CODE)], "memory_mib": limits.memory_mib,
               "game_limits": {"move_cpu_s": f"{game_limits.move_cpu_s:g}", "move_wall_s": f"{game_limits.move_wall_limit_s:g}",
                               "game_cpu_s": f"{game_limits.game_cpu_s:g}"}}
    system = system_message("games", context, prompting, "_strategy_system")
    return Prompt(game.name, ModeName.CODE, (("system", system), ("user", render("games", "strategy", context, prompting))))


@functools.cache
def example_move(game: Game) -> dict[str, str]:
    """The worked example of a game's prompts: player 0's first observation in a level-1 game, and the move the reference
    strategy makes from it (as JSON texts)."""
    setup = game.setup(EXAMPLE_LEVEL, EXAMPLE_SEED)
    observation = game.observe(setup.state, 0)
    move = game.strategies["ref"](game, observation, 0, random.Random(0))
    return {"observation_json": compact_json(_shown(observation)), "move_json": compact_json(move)}


def opening(game: Game, seat: int, prompting: Prompting) -> list[dict[str, Any]]:
    """Instruction mode's first messages of a game for the player in `seat`: the system message and the rules.

    Raises:
        InputError: a template is missing, or fails to render (the message names its file and Jinja's error).
    """
    context = {"name": game.name, "title": game.title, "players": game.players, "player": seat, "mode": ModeName.INSTRUCTION,
               "levels": {level: dict(params) for level, params in game.levels.items()},
               "move_schema": compact_json(game.move_schema),
               "examples": [example_move(game)] if prompting.examples(ModeName.INSTRUCTION) else []}
    return [{"role": "system", "content": system_message("games", context, prompting, "_play_system")},
            {"role": "user", "content": render("games", "opening", context, prompting)}]


def check_chat_templates(game: Game, options: ChatOptions, prompting: Prompting) -> None:
    """Render what instruction mode says in `game` (the opening of each seat, a turn of the example game) before any
    request, so a template that fails stops the run before it starts.

    Raises:
        InputError: a template is missing, or fails to render (the message names its file and Jinja's error).
    """
    for seat in range(game.players):
        opening(game, seat, prompting)
    setup = game.setup(EXAMPLE_LEVEL, EXAMPLE_SEED)
    _turn_text(game, 0, game.observe(setup.state, 0), [json.loads(example_move(game)["move_json"])], 1, options, prompting)


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
                 loop: asyncio.AbstractEventLoop, stop: threading.Event, prompting: Prompting | None = None) -> None:
        self.name, self.model, self.sampling, self.options = name, model, sampling, options
        self.loop, self.stop, self.prompting = loop, stop, prompting or Prompting()
        self.turns: list[dict[str, Any]] = []  # each turn's replies, as they come

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        self.game, self.player, self.turns = game, seat, []
        self.opening = opening(game, seat, self.prompting)
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
        opponent_moves = [entry["move"] for entry in since if entry["player"] != self.player]
        text = _turn_text(self.game, self.player, observation, opponent_moves, len(self.turns) + 1, self.options, self.prompting)
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


def _turn_text(game: Game, player: int, observation: Any, opponent_moves: list[Any], turn: int, options: ChatOptions,
               prompting: Prompting) -> str:
    """One turn's message: the opponent's moves since the last, what the player sees now, the legal moves when hinted."""
    image = observation.get(IMAGE_FIELD) if isinstance(observation, dict) else None
    legal = None
    if options.legal_hint:
        moves = game.legal_moves(observation, player)
        listed = ", ".join(json.dumps(move) for move in moves[:LEGAL_HINT_MAX])
        legal = listed + (f" (the first {LEGAL_HINT_MAX} of {len(moves)})" if len(moves) > LEGAL_HINT_MAX else "") or "none"
    return render("games", "turn", {"observation": compact_json(_shown(observation)), "legal_moves": legal,
                                    "opponent_moves": [json.dumps(move) for move in opponent_moves], "turn": turn,
                                    "image": bool(image and options.images)}, prompting)


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
