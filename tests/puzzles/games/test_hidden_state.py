"""Hidden state stays hidden (issue 26): a secret salts every setup and every built-in player's RNG, so a program that
carries a copy of the generator and searches the public seeds finds no setup that fits what it sees, and plays no
better than the reference; the same program given the secret recovers the hidden state and the reference's choices,
and wins (so the test can fail). ExclusivityParticles hides nothing: there, the copy can find nothing to use. Without a
secret a setup is the same for everyone, as `codebench puzzles play --seed` needs."""

from __future__ import annotations

import copy
import functools
import math
import random
import statistics
from collections import Counter, deque
from typing import Any

import pytest

from puzzles.games import Answer, Forfeit, Game, Player, Setup, Strategy, StrategyPlayer, get_game, new_secret, play, player_view
from puzzles.games.beatorbomb import VALUE
from puzzles.games.maxtarget import clairvoyant

JSON = Any
LEVEL = 1
SEEDS = range(50)  # the games played, seeds a report would publish
SEARCHED = range(200)  # the seeds the cheater's copy of the generator tries: every seed played, and more
SECRET = "5d1c8e0f3b7a92c4e6d1f0a8b3c5e7d9"  # the run's secret (a draw of new_secret()), unknown to the cheater
Z = 3.0  # standard errors a mean may lie above the baseline by chance (one-sided, p ≈ 0.0013)
UNMOVED = {"largertarget": ("bags",), "maxtarget": ("bags",), "rubyrisks": ("boxes", "total_rubies"),  # what the cheater
           "beatorbombsto": ("my_cards", "hand_total"), "exclusivityparticles": ("dimension", "distance")}  # looks setups up by


def unmoved(game: Game, observation: JSON) -> str:
    """The parts of a first observation that no move before it changes (the opponent may have moved first)."""
    return repr([observation[key] for key in UNMOVED[game.name]])


@functools.cache
def looked_up(name: str, guess: str, seat: int) -> dict[str, list[Setup]]:
    """The cheater's copy of the generator, run once over the searched seeds under the secret it believes: the
    setups by what their first observation shows of them."""
    game, found = get_game(name), {}
    for seed in SEARCHED:
        setup = game.setup(LEVEL, seed, guess)
        found.setdefault(unmoved(game, game.observe(setup.state, seat)), []).append(setup)
    return found


class Line:
    """A setup the cheater holds possible, played along: its whole state, with the cheater's moves and the reference's
    in the other seat, replayed with the RNG `play` gives it (from the setup and the seat, salted by the same secret)."""

    def __init__(self, game: Game, setup: Setup, seat: int) -> None:
        self.game, self.seat, self.setup, self.state, self.played = game, seat, setup, setup.state, 0
        self.opponent = StrategyPlayer("ref", game.reference_move) if game.players == 2 else None
        if self.opponent is not None:
            self.opponent.begin(game, setup, 1 - seat)

    def shows(self, observation: JSON, mine: list[JSON]) -> bool:
        """Whether this setup, played on to now (the cheater's moves `mine`, the reference's replayed), shows the
        cheater what it sees. Lines are played on only when asked, so the first that fits is all a move costs."""
        while (seat := self.game.to_move(self.state)) is not None and (seat != self.seat or self.played < len(mine)):
            if seat == self.seat:
                move, self.played = mine[self.played], self.played + 1
            else:
                move = self.opponent.move(self.game.observe(self.state, seat), []).move
            if not self.game.legal(self.state, seat, move).ok:
                return False
            self.state = self.game.apply(self.state, seat, move)
        return self.game.observe(self.state, self.seat) == observation

    def predicted(self) -> JSON:
        """The reference's next move, seen from its own observation with a copy of its RNG (neither is changed)."""
        assert self.opponent is not None
        return self.game.reference_move(self.game, self.game.observe(self.state, 1 - self.seat), 1 - self.seat,
                                        copy.deepcopy(self.opponent.rng))


class Cheater:
    """A program carrying a copy of the generator: it learns only what any seat learns (`player_view`), matches its
    observations to the setups of the searched seeds under the secret it believes, and plays knowing the hidden state
    of the first setup still consistent with what it sees; with none left, it plays as the reference."""

    name = "cheater"

    def __init__(self, guess: str) -> None:
        self.guess = guess

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        view = player_view(game, setup, seat)  # the setup itself is not looked at: a program outside never has it
        self.game, self.seat, self.mine = game, view["player"], []
        self.lines: deque[Line] | None = None
        self.rng = random.Random(f"cheater|{seat}")
        return None

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Answer:
        if self.lines is None:
            found = looked_up(self.game.name, self.guess, self.seat).get(unmoved(self.game, observation), [])
            self.lines = deque(Line(self.game, setup, self.seat) for setup in found)
        while self.lines and not self.lines[0].shows(observation, self.mine):
            self.lines.popleft()
        move = (KNOWING[self.game.name](self.lines[0], self.rng) if self.lines
                else self.game.reference_move(self.game, observation, self.seat, self.rng))
        self.mine.append(move)
        return Answer(move)

    def finish(self) -> dict[str, JSON]:
        return {}


# -- omniscient play, per game: what a player knowing the hidden state (and the reference's next choice) does -----
def knowing_largertarget(line: Line, rng: random.Random) -> JSON:
    """The index whose next coin is worth most: the true order is known."""
    bags = line.state["true_bags"]
    return {"bag": max((index for index, bag in enumerate(bags) if bag), key=lambda index: bags[index][0])}


def knowing_maxtarget(line: Line, rng: random.Random) -> JSON:
    """A pick of the clairvoyant plan: a bag whose next coin begins a best split of the picks left."""
    state = line.state
    drawn = Counter(pick["bag"] for pick in state["picks"])
    left = [bag[drawn[index]:] for index, bag in enumerate(state["bags"])]
    budget = state["budget"] - len(state["picks"])
    best = clairvoyant(left, budget)
    return {"bag": next(index for index, bag in enumerate(left)
                        if bag and bag[0] + clairvoyant([*left[:index], bag[1:], *left[index + 1:]], budget - 1) == best)}


def knowing_rubyrisks(line: Line, rng: random.Random) -> JSON:
    """Exactly what the box holds."""
    return {"rubies": line.state["contents"][len(line.state["requests"])]}


def knowing_beatorbombsto(line: Line, rng: random.Random) -> JSON:
    """The answer to the reference's choice this round (the pending one, or the one its RNG will draw): beat a card
    that competes with the lowest card above it (tie it if none, else give up the lowest), and compete with the lowest
    card against one given up."""
    hand = sorted(line.state["hands"][line.seat], key=VALUE.__getitem__)
    theirs = line.state["pending"] if line.seat == 1 else line.predicted()
    if theirs["action"] == "give up":
        return {"card": hand[0], "action": "compete"}
    above = [card for card in hand if VALUE[card] > VALUE[theirs["card"]]]
    card = above[0] if above else theirs["card"] if theirs["card"] in hand else None
    return {"card": card, "action": "compete"} if card else {"card": hand[0], "action": "give up"}


def knowing_exclusivityparticles(line: Line, rng: random.Random) -> JSON:
    """The reference's move: nothing is hidden, so the setup adds nothing to what the observation shows."""
    return line.game.reference_move(line.game, line.game.observe(line.state, line.seat), line.seat, rng)


KNOWING = {"largertarget": knowing_largertarget, "maxtarget": knowing_maxtarget, "rubyrisks": knowing_rubyrisks,
           "beatorbombsto": knowing_beatorbombsto, "exclusivityparticles": knowing_exclusivityparticles}


def cheater_scores(game: Game, guess: str) -> tuple[list[float], int]:
    """The cheater's score in every game of SEEDS (both seats of a two-player game) under SECRET, against `ref`; and
    the number of games it ended holding the true setup first (its state, that is: `env` aside)."""
    scores, recovered = [], 0
    for seed in SEEDS:
        setup = game.setup(LEVEL, seed, SECRET)
        for seat in range(game.players):
            cheater = Cheater(guess)
            seats: list[Player | tuple[str, Strategy]] = [("ref", game.reference_move)] * game.players
            seats[seat] = cheater
            scores.append(play(game, setup, seats).outcome.scores[seat])
            recovered += bool(cheater.lines) and hidden(cheater.lines[0].setup) == hidden(setup)
    return scores, recovered


def hidden(setup: Setup) -> dict[str, JSON]:
    return {key: value for key, value in setup.state.items() if key != "env"}


def ref_scores(game: Game) -> list[float]:
    """The reference's own score in every game of SEEDS under SECRET (one-player games)."""
    return [play(game, game.setup(LEVEL, seed, SECRET), [("ref", game.reference_move)]).outcome.scores[0] for seed in SEEDS]


def above_baseline(scores: list[float], baseline: list[float] | None) -> float:
    """How far the mean score lies above the baseline, in standard errors. Two players: the baseline is ½, what the
    reference scores against itself over both seats of a setup, and a mean of n scores in [0, 1] has a standard error
    of at most ½/√n. One player: the baseline is the reference's score on the same setup, and the standard error is
    that of the mean of the paired differences (0 differences: 0 unless the mean moved)."""
    if baseline is None:
        return (statistics.fmean(scores) - 0.5) / (0.5 / math.sqrt(len(scores)))
    differences = [score - base for score, base in zip(scores, baseline)]
    spread = statistics.stdev(differences) / math.sqrt(len(differences))
    mean = statistics.fmean(differences)
    return mean / spread if spread else math.copysign(math.inf, mean) if mean else 0.0


@pytest.mark.parametrize("name", sorted(UNMOVED))
def test_a_copy_of_the_generator_wins_nothing_without_the_secret_and_wins_with_it(name: str) -> None:
    game = get_game(name)
    baseline = ref_scores(game) if game.players == 1 else None
    blind, _ = cheater_scores(game, "")
    told, told_recovered = cheater_scores(game, SECRET)
    assert above_baseline(blind, baseline) <= Z and told_recovered == len(told)
    if name == "exclusivityparticles":  # nothing is hidden: a setup of the same d and k is the very game it plays
        assert told == blind
    else:
        assert above_baseline(told, baseline) > Z


def test_a_secret_salts_the_setup_and_the_builtin_players_and_stays_out_of_everything_shown() -> None:
    for game in map(get_game, sorted(UNMOVED)):
        secret = new_secret()
        plain, salted = game.setup(LEVEL, 3), game.setup(LEVEL, 3, secret)
        assert plain == game.setup(LEVEL, 3, "") and plain.state["env"] == f"{game.name}|L{LEVEL}|3"  # as it always was
        assert salted.id == plain.id and salted.state != plain.state and salted == game.setup(LEVEL, 3, secret)
        rngs = []
        for setup in (plain, salted):
            player = StrategyPlayer("ref", game.reference_move)
            player.begin(game, setup, 0)
            rngs.append(player.rng.getstate())
        assert rngs[0] == random.Random(f"{plain.id}|seat0|ref").getstate() != rngs[1]
        record = play(game, salted, [("ref", game.reference_move)] * game.players)
        assert secret not in repr([salted, salted.to_json(), record.to_json()])  # the state: every observation's source
