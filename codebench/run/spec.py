"""A run's specification: what decides its results (and so its keys), plus where and how fast to run it.

Built from a YAML config file and command-line flags (flags win) by `options.spec_from_options`, checked as a whole
(pydantic) before anything is written, so a bad value is a ConfigError naming it. Imports `puzzles`, `yaml` (when a file
is read), the shared types, modes and the backend names; never the options module (no import cycle).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import puzzles
from puzzles import Prompting
from puzzles._prompt import MAX_SHOTS, PROMPT_PRESETS, preset_modes

from ..costs import Price
from ..errors import ConfigError, InputError
from ..files import read_text
from ..keys import folder_key
from ..model.presets import DEFAULT_PRESET, MAX_RETRIES, MAX_TIMEOUT_S, PRESETS, Endpoint, Patience, resolve_endpoint
from ..model.presets import flag as endpoint_flag
from ..modes import FORMAT_RETRIES, MODES
from ..protocols import PROTOCOLS, protocol_named
from ..sandbox import BACKENDS, EXECUTORS, check_sandbox
from ..types import MAX_CPU_S, MEMORY_MIB_RANGE, GameLimits, Limits, ModeName, Sampling

BOTH = "both"  # --mode both: every mode, on exactly the same instances
MIN_SECRET = 16  # characters of a games' secret given in a file
SEED_STRIDE = 1_000_003  # sample seeds of different base seeds never meet
OPPONENTS = ("ref", "random", "models")  # whom a model meets in a two-player game: PuzzlePlex's baselines, each other
MAX_COUNT = 10_000  # instances per level, samples, seeds of a check: past this a typo, not a plan
MAX_SEED = 2**31 - 1
MAX_PARALLEL = 64  # results an adaptive step asks at once: past this, a grid with extra steps
MAX_NESTING = 64  # a config's values nest a few levels; deeper is a mistake or an attack on the parsers after it
MAX_SYSTEM_PROMPT = 100_000  # characters of a system message: past this a wrong file, not a prompt
MAX_NODES = 1_000_000  # values in a config, YAML aliases counted wherever they are used (a "billion laughs" is refused)
SET_BY_CODEBENCH = frozenset({"model", "messages", "n", "seed", "temperature", "max_tokens", "max_completion_tokens",
                              "stream", "stream_options"})  # request fields a config may not override
ALL = "all"  # --puzzles all, --games all


def flag(key: str) -> str:
    """The command-line flag of the run option `key` (`OPTIONS` declares them)."""
    return OPTION[key].flags[0] if key in OPTION else endpoint_flag(key)


@dataclass(frozen=True)
class Origin:
    """Where the user gave each run option, so that a message names it as typed: its flag, or the config file's key
    (a `models:` entry by its place and name). An option given nowhere is named by its flag (what to type)."""

    config: str | None = None  # the config file, as given
    in_config: frozenset[str] = frozenset()  # options the config file set and no flag overrode
    given: frozenset[str] = frozenset()  # options set by a flag or the config file

    def name(self, key: str) -> str:
        return f"{key} (in {self.config})" if key in self.in_config else flag(key)

    def entry(self, index: int, label: str | None) -> str:
        """The config's `models:` entry at `index` (its label when known)."""
        named = f" ({label})" if label else ""
        return f"models entry {index + 1}{named}" + (f" in {self.config}" if self.config else "")

    def model_names(self, index: int, model: ModelSpec) -> Callable[[str], str]:
        """How to name the endpoint options of the run's `index`-th model: its `models:` entry's own fields where it
        sets them, else the run's options."""
        if "models" not in self.in_config:
            return lambda key: f"{flag('model')} {model.label}" if key == "model" else self.name(key)
        entry = self.entry(index, model.label)
        own = {"model": True, "api_key_env": model.api_key_env is not None or model.has_own_endpoint,
               "preset": model.has_own_endpoint, "base_url": model.has_own_endpoint}
        return lambda key: f"{entry}: {'name' if key == 'model' else key}" if own.get(key) else self.name(key)


@dataclass(frozen=True)
class ModelSpec:
    """One model of a run: the name its server serves, what reports call it, and where it lives.

    An entry that names its own `preset` or `base_url` takes its endpoint (and `api_key_env`) from its own fields
    only; otherwise from the run's top-level ones. `request` holds extra request-body fields (`reasoning_effort`,
    a nested `extra_body` merged in as the OpenAI SDK does), the run's top-level ones under the model's own. The
    timeouts and the retry count, where set, win over the run's (None: the run's).
    """

    name: str
    label: str = ""  # "" → the name
    preset: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    request: dict[str, Any] = field(default_factory=dict)
    images: bool = True  # False: the model takes text only (an M variant's board picture is not sent)
    idle_timeout: float | None = None
    request_timeout: float | None = None  # 0: no deadline
    max_retries: int | None = None

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)

    @property
    def has_own_endpoint(self) -> bool:
        return self.preset is not None or self.base_url is not None


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's results (and so its keys), plus where and how fast to run it.

    `models` may be given as bare names; they become `ModelSpec`s with the run's top-level `request` merged in.
    `params` maps a puzzle to presentation parameters (rubik's `reveal_scramble`), in both modes. `games` are PuzzlePlex's
    games, played at `levels` ∩ each game's own levels, `instances_per_level` seeds each (or a game's own `game_seeds`),
    against `opponents`. `protocol` names the published setting the run follows (`codebench.protocols`), which the
    spec's values must keep (options.spec_from_options fills them in, `game_seeds` by game kind).
    """

    models: tuple[ModelSpec | str, ...]
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    mode: str = ModeName.CODE  # code, instruction, or both (the two on exactly the same instances)
    puzzles: tuple[str, ...] = tuple(puzzles.puzzle_names())
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    instances_per_level: int = 3
    samples: int = 4
    temperature: float = 0.7
    max_tokens: int | None = None  # no cap of ours: the server's own (the model's context) applies; see the README
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    max_connections: int = 8
    workers: int | None = None
    backend: str = "docker"
    executor: str = "local"  # or ray: the backend's workers on every node of a Ray cluster
    ray_address: str | None = None  # with ray: "auto", "ray://host:port"; None starts a Ray instance here
    format_retries: int = FORMAT_RETRIES  # instruction mode: corrective follow-ups when nothing parseable came back
    request: dict[str, Any] = field(default_factory=dict)
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    games: tuple[str, ...] = ()
    opponents: tuple[str, ...] = OPPONENTS
    game_seeds: dict[str, int] = field(default_factory=dict)  # seeds per level of the games named (a protocol's, by kind)
    protocol: str | None = None  # a published setting (codebench.protocols.PROTOCOLS) the run follows
    history: bool = True  # instruction-mode games: the whole conversation each turn (False: PuzzlePlex's ablation)
    legal_hint: bool = False  # instruction-mode games: list the legal moves each turn
    # how prompts are posed (`prompting()`): each changes the prompts' text, so the keys of what they ask; None, 0: default
    system_prompt: str | None = None  # replaces the system message of every prompt
    templates: Path | None = None  # a folder of templates overriding the shipped ones
    shots: int = 0  # instruction mode's puzzles: worked examples as earlier turns
    prompt_preset: str | None = None  # one of PuzzlePlex's variants (puzzles' PROMPT_PRESETS)
    game_limits: GameLimits = field(default_factory=GameLimits)
    game_secret: str | None = None  # salts the games' setups and built-in players; None: the run's own (never in to_json)
    prices: dict[str, Price] = field(default_factory=dict)  # model label -> its price; none assumed
    max_cost: float | None = None  # stop asking once the run's stored requests cost this much (needs every price)
    max_tokens_total: int | None = None  # stop asking once the run's stored requests hold this many tokens
    # how long a request may take (they decide whether a reply arrives, not what was asked: no key holds them)
    idle_timeout: float = Patience.idle_timeout  # seconds without a byte
    request_timeout: float = Patience.request_timeout or 0.0  # seconds per attempt in all, reply included; 0: none
    max_retries: int = Patience.max_retries
    # how replies are got (neither changes what is asked, so no key holds them)
    cache: Path | None = None  # the response cache's folder, shared across runs (None: none)
    batch: bool = False  # send the requests through the provider's Batch API, a round at a time
    # an adaptive search per model × mode × puzzle (`run.search`) instead of levels × instances_per_level × samples
    adaptive: bool = False
    target_width: float = 1.0  # λ units: a search stops once its threshold's 95% credible interval is narrower
    search_budget: int = 60  # counted results: a search stops once it has this many, whatever the interval's width
    search_parallel: int = 1  # results a search asks at once at each λ it chooses
    out: Path = Path("runs/default")
    origin: Origin = field(default_factory=Origin, compare=False, repr=False)  # how messages name options; no result

    def __post_init__(self) -> None:
        """What types cannot say (types and ranges of option values are `RunOptions`' part); every message names the
        option as the user gave it (`origin`)."""
        name = self.origin.name
        object.__setattr__(self, "out", Path(self.out))  # a caller's str is as good as a Path
        if self.templates is not None:
            object.__setattr__(self, "templates", Path(self.templates))
        if self.cache is not None:
            object.__setattr__(self, "cache", Path(self.cache))
        if self.mode not in (*MODES, BOTH):
            raise ConfigError(f"{name('mode')} {self.mode!r}: choose one of {', '.join((*MODES, BOTH))}")
        if not self.models:
            raise ConfigError(f"give at least one {flag('model')} (or a models: list in the config file)")
        object.__setattr__(self, "models", tuple(self._with_request(index, ModelSpec(m) if isinstance(m, str) else m)
                                                 for index, m in enumerate(self.models)))
        for index, model in enumerate(self.model_specs):
            for field_name, text in (("name", model.name), ("label", model.label)):
                if not text.isprintable():  # a newline, an escape or a bidi override would forge or garble every line
                    where = f"{self.origin.entry(index, None)}: {field_name}" if "models" in self.origin.in_config \
                        else flag("model")
                    raise ConfigError(f"{where} {text!r} holds a control character: give the name its server serves "
                                      "(and a label that prints)")
        labels = [model.label for model in self.model_specs]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            where = name("models") if "models" in self.origin.in_config else name("model")
            raise ConfigError(f"{where}: model {twice[0]!r} is listed twice: give one of the entries a `label` to tell "
                              "them apart")
        self._check_choices()
        if self.protocol is not None:
            protocol_named(self.protocol, name("protocol")).check(
                {"mode": self.mode, "puzzles": self.puzzles, "samples": self.samples, "games": self.games, "levels": self.levels,
                 "opponents": self.opponents, "game_cpu": self.game_limits.game_cpu_s, "move_cpu": self.game_limits.move_cpu_s},
                name)
        self._check_prompting()
        self._check_games()
        self._check_budgets(labels)
        self._check_applies()
        if self.adaptive:
            self._check_adaptive()

    def _check_choices(self) -> None:
        name = self.origin.name
        outside = sorted(set(self.levels) - set(puzzles.LEVELS))
        if outside or not self.levels:
            raise ConfigError(f"{name('levels')}: {outside or 'none'} outside the levels {min(puzzles.LEVELS)}-{max(puzzles.LEVELS)}")
        for puzzle, given in self.params.items():
            found = _found(puzzles.get_puzzle, puzzle, f"{name('params')} {puzzle}")
            for key in given:
                if key not in found.presentation_params:
                    allowed = ", ".join(sorted(found.presentation_params)) or "none"
                    raise ConfigError(f"{name('params')} {puzzle}.{key}: a run sets presentation parameters only ({puzzle}: "
                                      f"{allowed}); complexity comes from {name('levels')}")
            try:  # the values' types, as generating an instance would check them
                found.params_for_level(min(self.levels), random.Random(0), given)
            except puzzles.PuzzleError as exc:
                raise ConfigError(f"{name('params')} {puzzle}: {exc}") from None
        check_sandbox(self.backend, self.executor, self.workers, self.ray_address, name)
        for puzzle in self.puzzles:
            _found(puzzles.get_puzzle, puzzle, name("puzzles"))

    def _check_prompting(self) -> None:
        name = self.origin.name
        system = name("system_prompt_file" if "system_prompt_file" in self.origin.given else "system_prompt")
        if self.system_prompt is not None and not self.system_prompt.strip():
            raise ConfigError(f"{system}: it is empty: give the text of the system message, or leave the option out for each "
                              "prompt's own")
        if self.system_prompt is not None and len(self.system_prompt) > MAX_SYSTEM_PROMPT:
            raise ConfigError(f"{system}: {len(self.system_prompt):,} characters; a system message of at most "
                              f"{MAX_SYSTEM_PROMPT:,} is taken")
        if self.templates is not None and not self.templates.is_dir():
            raise ConfigError(f"{name('templates')} {self.templates}: not a folder: give a folder laid out as the shipped "
                              "templates (e.g. instruction/hanoi.md.j2, rules/hanoi.md.j2)")
        if self.prompt_preset is not None and self.prompt_preset not in PROMPT_PRESETS:
            raise ConfigError(f"{name('prompt_preset')} {self.prompt_preset!r}: choose one of {', '.join(PROMPT_PRESETS)}")

    def _check_budgets(self, labels: list[str]) -> None:
        name = self.origin.name
        unknown = sorted(set(self.prices) - set(labels))
        if unknown:
            raise ConfigError(f"{name('prices')} {unknown[0]}: no model of this run is called that (models: {', '.join(labels)})")
        unpriced = [label for label in labels if label not in self.prices]
        if self.max_cost is not None and unpriced:
            raise ConfigError(f"{name('max_cost')} needs a price for every model; {unpriced[0]} has none: give {flag('prices')} "
                              f"{unpriced[0]}=INPUT/OUTPUT (US dollars per million tokens)")
        no_rate = [label for label, price in self.prices.items() if not price.has_batch_rate]
        if self.batch and no_rate:  # else its batch requests would go uncosted, its budget blind to them
            raise ConfigError(f"{flag('batch')}: the price of {no_rate[0]} has no batch rate: give {flag('prices')} "
                              f"{no_rate[0]}=INPUT/OUTPUT/BATCH_INPUT/BATCH_OUTPUT (the Batch API's own dollars per million "
                              "tokens)")

    def _check_games(self) -> None:
        from puzzles.games import get_game

        name = self.origin.name
        if not self.puzzles and not self.games:
            raise ConfigError(f"nothing to run: give {flag('puzzles')}, {flag('games')}, or both")
        found = [_found(get_game, game, name("games")) for game in self.games]
        stray = sorted(set(self.game_seeds) - set(self.games))
        if stray or not all(isinstance(n, int) and 1 <= n <= MAX_COUNT for n in self.game_seeds.values()):
            raise ConfigError(f"game_seeds {self.game_seeds}: give 1-{MAX_COUNT} seeds per level for games of the run only")
        missing = [game for game in found if not set(self.levels) & set(game.levels)]
        shown = ",".join(map(str, self.levels))
        if missing and len(missing) == len(found) > 1:
            raise ConfigError(f"{name('levels')} {shown}: no game of the run has any of them (their levels: "
                              f"{_span({level for game in found for level in game.levels})})")
        if missing:
            raise ConfigError(f"{name('levels')} {shown}: the game {missing[0].name} has levels {_span(missing[0].levels)}; "
                              "include one of them")
        unknown = sorted(set(self.opponents) - set(OPPONENTS))
        if unknown or not self.opponents:
            given = repr(unknown[0]) if unknown else "names none"
            raise ConfigError(f"{name('opponents')} {given}: choose from {', '.join(OPPONENTS)}, comma-separated")
        two_player = [game for game in self.games if get_game(game).players == 2]
        if two_player and set(self.opponents) == {"models"} and len(self.models) == 1:
            raise ConfigError(f"{name('opponents')} models: a model meets only the other models of the run, and it has one "
                              f"({self.model_specs[0].label}), so {', '.join(two_player)} would not be played: add ref or random "
                              f"to {flag('opponents')}, or give another {flag('model')}")
        if self.batch and ModeName.INSTRUCTION in self.modes and self.games:
            raise ConfigError(f"{flag('batch')}: instruction-mode games are played a request per move, each waiting for the "
                              f"last, which a batch cannot do: play the games in {flag('mode')} code, or drop {flag('batch')}")

    def _check_applies(self) -> None:
        """Refuse an option the user gave that this run would ignore, saying what it applies to and what to add."""
        from puzzles.games import get_game

        code, instruction, games = ModeName.CODE in self.modes, ModeName.INSTRUCTION in self.modes, bool(self.games)
        add_code, add_instruction = f": add {flag('mode')} code or both", f": add {flag('mode')} instruction or both"
        add_games = f": add {flag('games')}"
        alone = [game for game in self.games if get_game(game).players == 1]
        preset = preset_modes(self.prompt_preset) if self.prompt_preset in PROMPT_PRESETS else MODES
        rules = {  # option: (whether it applies, to what, why not or what to add when it does not)
            "format_retries": (instruction, "instruction mode", add_instruction),
            "history": (games and instruction, "instruction-mode games", add_instruction if games else add_games),
            "legal_hint": (games and instruction, "instruction-mode games", add_instruction if games else add_games),
            "game_cpu": (games and code, "code-mode games", add_code if games else add_games),
            "move_cpu": (games and code, "code-mode games", add_code if games else add_games),
            "game_secret_file": (games, "games", add_games),
            "opponents": (len(alone) < len(self.games), "two-player games",
                          f" ({', '.join(alone)} {'is' if len(alone) == 1 else 'are'} played alone)" if games else add_games),
            "cpu": (code and bool(self.puzzles), "code mode's puzzles", f": add {flag('puzzles')}" if code else add_code),
            "shots": (instruction and bool(self.puzzles), "instruction mode's puzzles (code mode's prompts show a worked "
                      "example of their own)", f": add {flag('puzzles')}" if instruction else add_instruction),
            "target_width": (self.adaptive, "adaptive searches", f": add {flag('adaptive')}"),
            "search_budget": (self.adaptive, "adaptive searches", f": add {flag('adaptive')}"),
            "search_parallel": (self.adaptive, "adaptive searches", f": add {flag('adaptive')}"),
            "prompt_preset": (bool(set(preset) & set(self.modes)), f"{' and '.join(preset)} mode for {self.prompt_preset}",
                              f": add {flag('mode')} {preset[0]} or both"),
            **{key: (code, "code mode", add_code) for key in ("memory", "workers", "backend", "executor")},
            **{key: (not all(m.has_own_endpoint for m in self.model_specs), "models without an endpoint of their own",
                     ", and every models entry names its own") for key in ("base_url", "api_key_env", "preset")},
        }
        for key, (applies, scope, remedy) in rules.items():
            if key in self.origin.given and not applies:
                raise ConfigError(f"{self.origin.name(key)} applies only to {scope}{remedy}")
        for puzzle, given in self.params.items():
            if puzzle not in self.puzzles:
                raise ConfigError(f"{self.origin.name('params')} {puzzle}.{next(iter(given), '')}: {puzzle} is not among this "
                                  f"run's puzzles ({', '.join(self.puzzles) or 'none'})")

    def _check_adaptive(self) -> None:
        """An adaptive run asks one result at a time per search, on instances the design chooses: refuse the options
        that would shape another run, and puzzles without a complexity axis to search along."""
        given = self.origin.given
        for key, why in (("levels", "the search chooses each complexity itself, any its generator supports"),
                         ("instances_per_level", "each result is asked on a fresh instance of the complexity chosen"),
                         ("samples", "a search asks its results one step at a time (code mode: one program); "
                                     "--search-parallel asks several a step"),
                         ("games", "games have no complexity axis to search along"),
                         ("protocol", "a protocol fixes levels and samples"),
                         ("batch", "each choice waits for the result before it")):
            if key in given or (key in ("games", "protocol", "batch") and getattr(self, key)):
                raise ConfigError(f"{self.origin.name(key)} cannot go with {flag('adaptive')}: {why}; drop one of the two")
        for name in self.puzzles:
            try:
                puzzles.get_puzzle(name).complexity_axis()
            except puzzles.PuzzleError as exc:
                raise ConfigError(f"{flag('adaptive')}: {exc}; leave {name} out of {self.origin.name('puzzles')}") from None

    def game_levels(self, name: str) -> tuple[int, ...]:
        """The run's levels that the game has."""
        from puzzles.games import get_game

        return tuple(level for level in self.levels if level in get_game(name).levels)

    def seeds_per_level(self, game: str) -> int:
        """How many seeds the game is played on at each level: its own where the run sets one, else instances_per_level."""
        return self.game_seeds.get(game, self.instances_per_level)

    def sampling(self, sample: int) -> Sampling:
        """Sample `sample`'s sampling: its own seed, and sample seeds of different base seeds never meet."""
        return Sampling(self.temperature, self.max_tokens, self.seed * SEED_STRIDE + sample)

    @property
    def model_specs(self) -> tuple[ModelSpec, ...]:
        """`models`, typed: every entry is a `ModelSpec` once the spec exists."""
        return tuple(m for m in self.models if isinstance(m, ModelSpec))

    def endpoint_options(self, model: ModelSpec) -> tuple[str | None, str | None, str | None]:
        """(base_url, api_key_env, preset) of a model: its own when it names an endpoint, else the run's."""
        if model.has_own_endpoint:
            return model.base_url, model.api_key_env, model.preset
        return self.base_url, model.api_key_env or self.api_key_env, self.preset

    def endpoints(self) -> dict[str, Endpoint]:
        """Every model's endpoint by label, its key read.

        Raises:
            ModelConfigError: options that cannot work, named as the user gave them (the flag, or the `models:` entry).
        """
        return {model.label: resolve_endpoint(model.name, *self.endpoint_options(model), request=model.request,
                                              name=self.origin.model_names(index, model))
                for index, model in enumerate(self.model_specs)}

    def patience(self, model: ModelSpec) -> Patience:
        """How long `model`'s requests may take: its entry's own limits where it sets them, else the run's."""
        deadline = self.request_timeout if model.request_timeout is None else model.request_timeout
        return Patience(idle_timeout=self.idle_timeout if model.idle_timeout is None else model.idle_timeout,
                        request_timeout=deadline or None,
                        max_retries=self.max_retries if model.max_retries is None else model.max_retries)

    def _with_request(self, index: int, model: ModelSpec) -> ModelSpec:
        own = f"{self.origin.entry(index, model.label)}: request" if "models" in self.origin.in_config else f"request of {model.label}"
        merged = {**_request_body(self.request, self.origin.name("request")), **_request_body(model.request, own)}
        return replace(model, request=merged)

    @property
    def modes(self) -> tuple[ModeName, ...]:
        """The modes the run asks in: `both` is every mode, on the same instances."""
        return MODES if self.mode == BOTH else (ModeName(self.mode),)

    def prompting(self) -> Prompting:
        """How the run's prompts are posed (the default: as the shipped templates say)."""
        return Prompting(self.system_prompt, self.templates, self.prompt_preset, self.shots)

    def prompt_options(self) -> dict[str, Any]:
        """The prompt options this run sets, under their config names (none for a run of the shipped prompts)."""
        given = {"system_prompt": self.system_prompt, "templates": None if self.templates is None else str(self.templates),
                 "shots": self.shots or None, "prompt_preset": self.prompt_preset}
        return {key: value for key, value in given.items() if value is not None}

    def prompting_identity(self) -> dict[str, Any]:
        """What of the prompting decides a model's replies in an instruction-mode game (its matches' keys hold it, the
        prompts' text not): the system message, a preset that changes instruction mode's prompts, the templates folder
        by its content; nothing for a run of the shipped prompts, so its keys are those of earlier versions."""
        try:
            folder = folder_key(self.templates) if self.templates is not None else None
        except OSError as exc:
            raise InputError(f"{self.origin.name('templates')} {self.templates}: cannot read a template in it: "
                             f"{exc.strerror or exc}") from None
        chats = self.prompt_preset is not None and ModeName.INSTRUCTION in preset_modes(self.prompt_preset)
        posed = {"system": self.system_prompt.strip() if self.system_prompt is not None else None,
                 "preset": self.prompt_preset if chats else None, "templates": folder}
        used = {key: value for key, value in posed.items() if value is not None}
        return {"prompting": used} if used else {}

    def to_json(self) -> dict[str, Any]:
        """The spec as the run's provenance stores it: the games' secret left out (the store keeps it apart)."""
        data = asdict(self)
        data["out"] = str(self.out)
        data["templates"] = None if self.templates is None else str(self.templates)
        data["cache"] = None if self.cache is None else str(self.cache)
        del data["game_secret"], data["origin"]
        return data


def _span(levels: Any) -> str:
    """Levels as '1-3' when they run without a gap, else '1,3,5'."""
    found = sorted(levels)
    return f"{found[0]}-{found[-1]}" if found == list(range(found[0], found[-1] + 1)) else ",".join(map(str, found))


def _found(get: Callable[[str], Any], name: str, option: str) -> Any:
    """`get(name)`; an unknown name is refused naming `option` (the message lists the known names)."""
    try:
        return get(name)
    except puzzles.PuzzleError as exc:
        raise ConfigError(f"{option}: {exc}") from None


def merged(config: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
    """Per-puzzle parameters of the config, each key overridden by the flags' (types are `RunOptions`' to check)."""
    merged = dict(config)
    for puzzle, values in flags.items():
        earlier = merged.get(puzzle)
        merged[puzzle] = {**earlier, **values} if isinstance(earlier, dict) and isinstance(values, dict) else values
    return merged


def _request_body(fields: dict[str, Any], where: str) -> dict[str, Any]:
    """Extra request-body fields, a nested `extra_body` flattened in (the SDK's spelling of the same thing).

    Raises:
        ConfigError: a field codebench sets itself (the message says which option sets it).
    """
    body = {key: value for key, value in fields.items() if key != "extra_body"}
    nested = fields.get("extra_body", {})
    if not isinstance(nested, dict):
        raise ConfigError(f"{where}: extra_body must be a mapping of request fields")
    body.update(nested)
    taken = sorted(SET_BY_CODEBENCH & set(body))
    if taken:
        raise ConfigError(f"{where}: {taken[0]!r} is set by codebench (see --temperature, --max-tokens, --seed, --model); "
                          "remove it from the request fields")
    return body


def limits_from(cpu: Any, memory: Any) -> Limits:
    """The limits of `--cpu SECONDS --memory MIB`.

    Raises:
        ConfigError: a value of the wrong type or out of range (the message names the option and the range).
    """
    return Limits(cpu_s=_cpu_seconds(cpu, "--cpu", "instance", MAX_CPU_S), memory_mib=_memory_mib(memory, "instance"))


def player_limits(game_cpu: Any, move_cpu: Any, memory: Any) -> tuple[GameLimits, Limits]:
    """A program player's game limits (`--game-cpu`, `--move-cpu`) and its worker's limits (`--memory`, and a move's CPU
    as the worker's limit per task), each checked under its own name and range.

    Raises:
        ConfigError: a value of the wrong type or out of range (the message names the option and its range).
    """
    move = _cpu_seconds(move_cpu, "--move-cpu", "move", MAX_CPU_S)
    game_limits = GameLimits(game_cpu_s=_cpu_seconds(game_cpu, "--game-cpu", "game", 10 * MAX_CPU_S), move_cpu_s=move)
    return game_limits, Limits(cpu_s=move, memory_mib=_memory_mib(memory, "program player"))


def _cpu_seconds(value: Any, option: str, per: str, most: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= most:  # NaN fails too
        raise ConfigError(f"{option} {value!r}: give a positive number of CPU seconds per {per}, at most {most:g}")
    return float(value)


def _memory_mib(value: Any, per: str) -> int:
    low, high = MEMORY_MIB_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"--memory {value!r}: give MiB per {per}, {low}-{high}")
    return value


def parse_range(text: str, option: str, low: int, high: int, most: int = MAX_COUNT) -> list[int]:
    """'1-6', '1,3,5' or '4' as a sorted list of distinct integers, each in low..high, at most `most` of them.

    Raises:
        InputError: anything else (the message names the option and the bounds).
    """
    values: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            start, stop = int(first), int(last if dash else first)
        except ValueError:
            raise InputError(f"{option} {text!r}: expected a range such as 1-6, a list such as 1,3,5, or one number") from None
        if not low <= start <= stop <= high:
            raise InputError(f"{option} {text!r}: {part.strip()!r} must go upwards within {low}-{high}")
        if stop - start + 1 + len(values) > most:
            raise InputError(f"{option} {text!r} names more than {most} values")
        values.update(range(start, stop + 1))
    return sorted(values)


def load_config(path: Path | None) -> dict[str, Any]:
    """The option mapping of a YAML config file ({} without one).

    Raises:
        InputError: the file cannot be read (missing, too large, not UTF-8).
        ConfigError: not YAML, or not a mapping.
    """
    if path is None:
        return {}
    import yaml  # deferred: only a run with --config needs it

    try:
        data = yaml.safe_load(read_text(path, "--config")) or {}
    except yaml.YAMLError as exc:
        why = " ".join(str(exc).split())  # YAML's messages span lines
        raise ConfigError(f"cannot read --config {path}: {why}") from None
    except RecursionError:  # PyYAML composes nested collections recursively
        raise ConfigError(f"--config {path}: its values nest deeper than YAML can read (at most {MAX_NESTING} levels)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected a mapping of option names to values")
    nesting, nodes = _shape(data)
    if nesting == math.inf:
        raise ConfigError(f"--config {path}: a value holds itself (an alias inside its own anchor)")
    if nesting > MAX_NESTING:
        raise ConfigError(f"--config {path}: its values nest {nesting:.0f} levels deep (at most {MAX_NESTING})")
    if nodes > MAX_NODES:
        raise ConfigError(f"--config {path}: it holds {nodes:,.0f} values once its aliases are expanded (at most {MAX_NODES:,})")
    return data


def _shape(data: Any) -> tuple[float, float]:
    """(How deep collections nest, how many values there are once aliases are expanded) in a loaded YAML document,
    without recursion; a collection that holds itself counts as infinitely deep."""
    done: dict[int, tuple[float, float]] = {}
    open_now: set[int] = set()
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        item, closing = stack.pop()
        children = list(item.values()) if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None or id(item) in done:
            continue
        if closing:
            open_now.discard(id(item))
            shapes = [done.get(id(child), (0, 1)) for child in children]
            done[id(item)] = (1 + max((depth for depth, _ in shapes), default=0), 1 + sum(size for _, size in shapes))
        elif id(item) in open_now:
            return math.inf, math.inf
        else:
            open_now.add(id(item))
            stack.append((item, True))
            stack.extend((child, False) for child in children)
    return done[id(data)]


@dataclass(frozen=True)
class RunOption:
    """One option of `codebench run`, declared once: its config key (`name`), its flag, type, default, bounds and help.
    `codebench run`'s flags, the config file's keys and the checked `RunOptions` (run/options.py) are all made from
    `OPTIONS`; a library caller gives `RunSpec` the same values (under `RunSpec`'s names where they differ)."""

    name: str
    kind: Any  # the type a config value must have (strictly: 2.5 is no count, "3" no number)
    default: Any
    help: str  # the flag's help, without its default
    shown: str | None = None  # the default as help shows it (default: the value itself)
    takes: str | None = None  # what a value must be, in words, where the type and bounds say too little
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    flag: tuple[str, ...] = ()  # the flag's declarations (default: --name-with-dashes)
    flag_kind: Any = None  # what the flag parses, where the config takes more (comma-separated names: str)
    config_only: bool = False  # no flag: the config file's key alone

    @property
    def flags(self) -> tuple[str, ...]:
        return self.flag or ("--" + self.name.replace("_", "-"),)

    def help_text(self) -> str:
        """The flag's help, its default included (typer shows none for an option that is None until given)."""
        shown = self.shown if self.shown is not None else "yes" if self.default is True else "no" if self.default is False \
            else str(self.default)
        return f"{self.help} Default: {shown}."


def one_of(choices: Any) -> str:
    return f"one of {', '.join(choices)}"


NAMES = "comma-separated in one string, or a list"
OPTIONS = (
    RunOption("model", str | list[str] | None, None, "Model name(s), comma-separated.", "none (give one, or a models: list in "
              "the config)", takes=f"model names, {NAMES}", flag_kind=str),
    RunOption("models", Any, None, "A list of model entries, each a name or a mapping of its own endpoint and request.",
              "none", config_only=True),  # its type is the config schema's: run/options.py
    RunOption("base_url", str | None, None, "OpenAI-compatible endpoint URL.", "the preset's URL"),
    RunOption("api_key_env", str | None, None, "Environment variable holding the API key.", "the preset's usual variable",
              takes="the name of an environment variable"),
    RunOption("preset", str | None, None, f"Default URL, key variable and request shape: {', '.join(PRESETS)}.",
              f"{DEFAULT_PRESET} without --base-url", takes=one_of(PRESETS)),
    RunOption("request", dict[str, Any], {}, "Request-body fields for every model.", "none",
              takes="a mapping of request-body fields", config_only=True),
    RunOption("params", dict[str, dict[str, Any]], {}, "PUZZLE.KEY=VALUE presentation parameter, e.g. "
              "rubik.reveal_scramble=true (repeatable).", "none", takes="a mapping of puzzle to its presentation parameters, "
              "e.g. {rubik: {reveal_scramble: true}}", flag=("--param", "-p"), flag_kind=list[str]),
    RunOption("mode", str, RunSpec.mode, "code (a solver program), instruction (the answer itself) or both.",
              takes=one_of((*MODES, BOTH))),
    RunOption("puzzles", str | list[str] | None, None, "Comma-separated puzzle names, or all.", "all nine, or none with --games",
              takes=f"puzzle names, {NAMES}, or {ALL}", flag_kind=str),
    RunOption("levels", str | list[int], list(RunSpec.levels), "Levels, e.g. 1-6 or 1,3,5.", _span(RunSpec.levels),
              takes="a list such as [1, 3, 5], or a range such as '1-6'", flag_kind=str),
    RunOption("instances_per_level", int, RunSpec.instances_per_level, "Instances per level.", ge=1, le=MAX_COUNT),
    RunOption("samples", int, RunSpec.samples, "Programs or answers drawn per model and question (n of pass@k).", ge=1,
              le=MAX_COUNT),
    RunOption("temperature", float, RunSpec.temperature, "Sampling temperature.", ge=0, le=2),
    RunOption("max_tokens", int | None, RunSpec.max_tokens, "Completion tokens per request.", "no cap of ours: the "
              "server's", ge=1),
    RunOption("seed", int, RunSpec.seed, "Base seed for instances and sampling.", ge=0, le=MAX_SEED),
    RunOption("cpu", float, Limits.cpu_s, "CPU seconds per instance.", f"{Limits.cpu_s:g}", gt=0, le=MAX_CPU_S),
    RunOption("memory", int, Limits.memory_mib, "MiB of memory per instance.", ge=MEMORY_MIB_RANGE[0],
              le=MEMORY_MIB_RANGE[1], config_only=True),
    RunOption("max_connections", int, RunSpec.max_connections, "Concurrent model requests.", ge=1, le=1024),
    RunOption("workers", int | None, RunSpec.workers, "Sandbox workers.", "one per core"),  # its range: check_sandbox
    RunOption("backend", str, RunSpec.backend, "docker, local (bubblewrap) or unsafe-local (trusted code only).",
              takes=one_of(BACKENDS)),
    RunOption("executor", str, RunSpec.executor, "local, or ray: the backend on every node of a Ray cluster.",
              takes=one_of(EXECUTORS)),
    RunOption("ray_address", str | None, RunSpec.ray_address, "With --executor ray: auto or ray://host:port.",
              "start Ray here"),
    RunOption("format_retries", int, RunSpec.format_retries, "Instruction mode: follow-ups when no answer can be read.",
              ge=0, le=20),
    RunOption("protocol", str | None, RunSpec.protocol, "A published setting as one flag: "
              + "; ".join(f"{p.name} ({p.title}: {p.samples} samples, seeds per level "
                          + ", ".join(f"{n} {kind}" for kind, n in p.seeds.items()) + ")" for p in PROTOCOLS.values())
              + ". --games, --levels narrow it; --samples, --instances-per-level scale it; another value of an option it "
              "sets is refused.", "none", takes=one_of(PROTOCOLS)),
    RunOption("games", str | list[str] | None, None, "Comma-separated game names, or all: PuzzlePlex's games, played in "
              "both seats against --opponents.", "none", takes=f"game names, {NAMES}, or {ALL}", flag_kind=str),
    RunOption("opponents", str | list[str], list(RunSpec.opponents), "Whom a model meets in two-player games: ref, random, "
              "models (each other), comma-separated.", ",".join(RunSpec.opponents),
              takes=f"any of {', '.join(OPPONENTS)}, {NAMES}", flag_kind=str),
    RunOption("history", bool, RunSpec.history, "Instruction-mode games: send the whole conversation each turn, or only "
              "the rules and this turn.", "--history", flag=("--history/--no-history",)),
    RunOption("legal_hint", bool, RunSpec.legal_hint, "Instruction-mode games: list the legal moves each turn.",
              flag=("--legal-hint",)),
    RunOption("system_prompt", str | None, None, "Text replacing the system message of every prompt (puzzles and games, both "
              "modes).", "each prompt's own"),
    RunOption("system_prompt_file", str | None, None, "A file whose text replaces the system message of every prompt (instead "
              "of --system-prompt).", "none", flag_kind=Path),
    RunOption("templates", str | None, None, "A folder of prompt templates laid out as the shipped ones (e.g. "
              "instruction/hanoi.md.j2, rules/hanoi.md.j2, games/opening.md.j2) that override them; each is rendered for every "
              "planned puzzle and game before the first request.", "the shipped templates", flag_kind=Path),
    RunOption("shots", int, RunSpec.shots, "Instruction mode's puzzles: worked examples (level-1 instances with reference "
              "answers, never the one asked) as earlier user and assistant turns.", ge=0, le=MAX_SHOTS),
    RunOption("prompt_preset", str | None, RunSpec.prompt_preset, "One of PuzzlePlex's prompting variants: "
              + "; ".join(f"{name} ({preset.help})" for name, preset in PROMPT_PRESETS.items()) + ".", "none",
              takes=one_of(PROMPT_PRESETS)),
    RunOption("game_cpu", float, GameLimits.game_cpu_s, "Code-mode games: CPU seconds a strategy may spend over a game "
              "(PuzzlePlex's).", f"{GameLimits.game_cpu_s:g}", gt=0, le=10 * MAX_CPU_S),
    RunOption("move_cpu", float, GameLimits.move_cpu_s, "Code-mode games: CPU seconds per move.",
              f"{GameLimits.move_cpu_s:g}", gt=0, le=MAX_CPU_S),
    RunOption("game_secret_file", str | None, None, "Games: a file holding the secret that salts every setup and built-in "
              f"player ({MIN_SECRET}+ characters); give runs to be pooled or compared the same file.",
              "a new secret per run, kept in its database", flag_kind=Path),
    RunOption("prices", dict[str, Any], {}, "MODEL=INPUT/OUTPUT: US dollars per million prompt / completion tokens; "
              "MODEL=INPUT/OUTPUT/BATCH_INPUT/BATCH_OUTPUT adds the Batch API's (repeatable).", "none assumed", takes="a mapping of model "
              "label to {input_per_mtok: DOLLARS, output_per_mtok: DOLLARS}, and batch_input_per_mtok, "
              "batch_output_per_mtok for --batch", flag=("--price",), flag_kind=list[str]),  # each price's type: run/options.py
    RunOption("max_cost", float | None, RunSpec.max_cost, "Stop asking once the run's requests cost this many dollars "
              "(needs a --price for every model).", "no budget", gt=0),
    RunOption("max_tokens_total", int | None, RunSpec.max_tokens_total, "Stop asking once the run's requests hold this "
              "many prompt + completion tokens.", "no budget", ge=1),
    RunOption("idle_timeout", float, RunSpec.idle_timeout, "Seconds a request may go without a byte before it is retried "
              "(reasoning models can think in silence).", f"{RunSpec.idle_timeout:g}", gt=0, le=MAX_TIMEOUT_S),
    RunOption("request_timeout", float, RunSpec.request_timeout, "Seconds one attempt may take in all, the streamed reply "
              "included; 0: no deadline.", f"{RunSpec.request_timeout:g}", ge=0, le=MAX_TIMEOUT_S),
    RunOption("max_retries", int, RunSpec.max_retries, "Retries of a request that timed out, was cut off or got 429/5xx.",
              ge=0, le=MAX_RETRIES),
    RunOption("cache", str | None, None, "Folder of a response cache shared across runs: a request asked before, the same "
              "in every field, is answered from it (free; its tokens shown), a new reply kept for the next run.", "none",
              takes="a folder", flag_kind=Path),
    RunOption("no_cache", bool, False, "Ask every request afresh and keep nothing, whatever --cache (or the config) says.",
              flag=("--no-cache",)),
    RunOption("batch", bool, RunSpec.batch, "Send the requests through the provider's Batch API (OpenAI's files and "
              "batches; format retries as a further round): cheaper, slower; a stopped run resumes polling its batches.",
              flag=("--batch",)),
    RunOption("adaptive", bool, RunSpec.adaptive, "Per model, mode and puzzle, choose each next instance's complexity "
              "(any its generator supports) from the results judged so far, until the collapse threshold's 95% interval is "
              "narrower than --target-width or --search-budget results are counted; instead of --levels × "
              "--instances-per-level × --samples.", flag=("--adaptive",)),
    RunOption("target_width", float, RunSpec.target_width, "With --adaptive: the width, in the puzzle's complexity units, "
              "that the threshold's 95% credible interval must get below.", f"{RunSpec.target_width:g}", gt=0, le=10**6),
    RunOption("search_budget", int, RunSpec.search_budget, "With --adaptive: the most results a search counts (one "
              "that failed for the endpoint or the sandbox is asked again, not counted).", ge=1, le=MAX_COUNT),
    RunOption("search_parallel", int, RunSpec.search_parallel, "With --adaptive: results a search asks at once at each "
              "complexity it chooses, each on its own instance (for slow models; 1 spends the fewest results).", ge=1,
              le=MAX_PARALLEL),
    RunOption("out", str, str(RunSpec.out), "Run directory (re-running the same command resumes).", flag_kind=Path),
)
OPTION = {option.name: option for option in OPTIONS}
