"""A run's specification: what decides its results (and so its keys), plus where and how fast to run it.

Built from a YAML config file and command-line flags (flags win), checked as a whole (`_options`, pydantic)
before anything is written, so a bad value is a ConfigError naming it. Imports `puzzles`, `yaml` (when a file is
read), pydantic (when options are checked), the shared types, modes and the backend names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import puzzles

from ..analysis.usage import Price
from ..errors import ConfigError, InputError
from ..model.presets import Patience
from ..modes import FORMAT_RETRIES, MODES
from ..records import FOLDER, check_outputs, read_text
from ..sandbox import BACKENDS, EXECUTORS
from ..types import MAX_CPU_S, MEMORY_MIB_RANGE, GameLimits, Limits, Sampling

BOTH = "both"  # --mode both: every mode, on exactly the same instances
MIN_SECRET = 16  # characters of a games' secret given in a file
SEED_STRIDE = 1_000_003  # sample seeds of different base seeds never meet
OPPONENTS = ("ref", "random", "models")  # whom a model meets in a two-player game: PuzzlePlex's baselines, each other
MAX_COUNT = 10_000  # instances per level, samples, seeds of a check: past this a typo, not a plan
MAX_SEED = 2**31 - 1
SET_BY_CODEBENCH = frozenset({"model", "messages", "n", "seed", "temperature", "max_tokens", "max_completion_tokens",
                              "stream", "stream_options"})  # request fields a config may not override


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
    games, played at `levels` ∩ each game's own levels, `instances_per_level` seeds each, against `opponents`.
    """

    models: tuple[ModelSpec | str, ...]
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    mode: str = "code"  # code, instruction, or both (the two on exactly the same instances)
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
    history: bool = True  # instruction-mode games: the whole conversation each turn (False: PuzzlePlex's ablation)
    legal_hint: bool = False  # instruction-mode games: list the legal moves each turn
    game_limits: GameLimits = field(default_factory=GameLimits)
    game_secret: str | None = None  # salts the games' setups and built-in players; None: the run's own (never in to_json)
    prices: dict[str, Price] = field(default_factory=dict)  # model label -> its price; none assumed
    max_cost: float | None = None  # stop asking once the run's stored requests cost this much (needs every price)
    max_tokens_total: int | None = None  # stop asking once the run's stored requests hold this many tokens
    # how long a request may take (they decide whether a reply arrives, not what was asked: no key holds them)
    idle_timeout: float = Patience.idle_timeout  # seconds without a byte
    request_timeout: float = Patience.request_timeout or 0.0  # seconds per attempt in all, reply included; 0: none
    max_retries: int = Patience.max_retries
    out: Path = Path("runs/default")

    def __post_init__(self) -> None:
        """What types cannot say (types and ranges of option values are `RunOptions`' part)."""
        if self.mode not in (*MODES, BOTH):
            raise ConfigError(f"--mode {self.mode!r}: choose one of {', '.join((*MODES, BOTH))}")
        if not self.models:
            raise ConfigError("give at least one --model")
        object.__setattr__(self, "models", tuple(self._with_request(ModelSpec(m) if isinstance(m, str) else m)
                                                 for m in self.models))
        labels = [model.label for model in self.model_specs]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise ConfigError(f"model {twice[0]!r} is listed twice: give one of the entries a `label` to tell them apart")
        for name, given in self.params.items():
            presentation = puzzles.get_puzzle(name).presentation_params  # raises UnknownPuzzleError with the known names
            for key in given:
                if key not in presentation:
                    allowed = ", ".join(sorted(presentation)) or "none"
                    raise ConfigError(f"--param {name}.{key}: a run sets presentation parameters only ({name}: {allowed}); "
                                      "complexity comes from --levels")
        if self.backend not in BACKENDS:
            raise ConfigError(f"--backend {self.backend!r}: choose one of {', '.join(BACKENDS)}")
        if self.executor not in EXECUTORS:
            raise ConfigError(f"--executor {self.executor!r}: choose one of {', '.join(EXECUTORS)}")
        if self.ray_address is not None and self.executor != "ray":
            raise ConfigError("--ray-address needs --executor ray")
        for name in self.puzzles:
            puzzles.get_puzzle(name)  # raises UnknownPuzzleError with the known names
        outside = sorted(set(self.levels) - set(puzzles.LEVELS))
        if outside or not self.levels:
            raise ConfigError(f"--levels: {outside or 'none'} outside the levels {min(puzzles.LEVELS)}-{max(puzzles.LEVELS)}")
        self._check_games()
        self._check_budgets(labels)

    def _check_budgets(self, labels: list[str]) -> None:
        unknown = sorted(set(self.prices) - set(labels))
        if unknown:
            raise ConfigError(f"--price {unknown[0]}: no model of this run is called that (models: {', '.join(labels)})")
        unpriced = [label for label in labels if label not in self.prices]
        if self.max_cost is not None and unpriced:
            raise ConfigError(f"--max-cost needs a price for every model; {unpriced[0]} has none: give --price "
                              f"{unpriced[0]}=INPUT/OUTPUT (US dollars per million tokens)")

    def _check_games(self) -> None:
        from puzzles.games import get_game

        if not self.puzzles and not self.games:
            raise ConfigError("nothing to run: give --puzzles, --games, or both")
        for name in self.games:
            game = get_game(name)  # raises UnknownPuzzleError with the known names
            if not set(self.levels) & set(game.levels):
                raise ConfigError(f"--levels {','.join(map(str, self.levels))}: the game {name} has levels "
                                  f"{min(game.levels)}-{max(game.levels)}; include one of them")
        unknown = sorted(set(self.opponents) - set(OPPONENTS))
        if unknown or not self.opponents:
            raise ConfigError(f"--opponents: {unknown[0] if unknown else 'none'!r}; choose from {', '.join(OPPONENTS)}, "
                              "comma-separated")
        if "code" in self.modes and self.games and self.executor == "ray":
            raise ConfigError("code-mode games hold a sandbox worker per player for a whole game, which Ray's actors "
                              "cannot: run games with --executor local")

    def game_levels(self, name: str) -> tuple[int, ...]:
        """The run's levels that the game has."""
        from puzzles.games import get_game

        return tuple(level for level in self.levels if level in get_game(name).levels)

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

    def patience(self, model: ModelSpec) -> Patience:
        """How long `model`'s requests may take: its entry's own limits where it sets them, else the run's."""
        deadline = self.request_timeout if model.request_timeout is None else model.request_timeout
        return Patience(idle_timeout=self.idle_timeout if model.idle_timeout is None else model.idle_timeout,
                        request_timeout=deadline or None,
                        max_retries=self.max_retries if model.max_retries is None else model.max_retries)

    def _with_request(self, model: ModelSpec) -> ModelSpec:
        merged = {**_request_body(self.request, "request"), **_request_body(model.request, f"request of {model.label}")}
        return replace(model, request=merged)

    @property
    def modes(self) -> tuple[str, ...]:
        """The modes the run asks in: `both` is every mode, on the same instances."""
        return MODES if self.mode == BOTH else (self.mode,)

    def to_json(self) -> dict[str, Any]:
        """The spec as the run's provenance stores it: the games' secret left out (the store keeps it apart)."""
        data = asdict(self)
        data["out"] = str(self.out)
        del data["game_secret"]
        return data


def _merged(config: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
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
    if isinstance(cpu, bool) or not isinstance(cpu, (int, float)) or not 0 < cpu <= MAX_CPU_S:  # NaN fails too
        raise ConfigError(f"--cpu {cpu!r}: give a positive number of CPU seconds per instance, at most {MAX_CPU_S:g}")
    low, high = MEMORY_MIB_RANGE
    if isinstance(memory, bool) or not isinstance(memory, int) or not low <= memory <= high:
        raise ConfigError(f"--memory {memory!r}: give MiB per instance, {low}-{high}")
    return Limits(cpu_s=float(cpu), memory_mib=memory)


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
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected a mapping of option names to values")
    return data


def spec_from_options(options: dict[str, Any], config: dict[str, Any]) -> RunSpec:
    """Config file values, overridden by the flags given on the command line (None: not given), checked as a whole.

    Raises:
        ConfigError: an unknown option, a value of the wrong type or range (the message names it, the value and
            what is expected).
        InputError: an --out that cannot be a folder to write in (`check_outputs`).
    """
    from ._options import RunOptions, first_problem  # deferred: pydantic loads in ~0.1 s

    flags = {k: str(v) if isinstance(v, Path) else v for k, v in options.items() if v is not None}
    given = {**config, **flags}
    if "model" in options and options["model"] is not None:
        given.pop("models", None)  # the flag replaces the config's list
    if isinstance(config.get("params"), dict) and isinstance(flags.get("params"), dict):  # a --param overrides one key
        given["params"] = _merged(config["params"], flags["params"])
    if isinstance(config.get("prices"), dict) and isinstance(flags.get("prices"), dict):  # a --price overrides one model's
        given["prices"] = {**config["prices"], **flags["prices"]}
    try:
        checked = RunOptions.model_validate(given)
    except ValueError as exc:
        raise ConfigError(first_problem(exc)) from None
    check_outputs([("--out", Path(checked.out), FOLDER)])
    levels = parse_range(checked.levels, "--levels", min(puzzles.LEVELS), max(puzzles.LEVELS)) \
        if isinstance(checked.levels, str) else checked.levels
    secret = None if checked.game_secret_file is None else read_text(Path(checked.game_secret_file), "--game-secret-file").strip()
    if secret is not None and len(secret) < MIN_SECRET:
        raise ConfigError(f"--game-secret-file {checked.game_secret_file}: it holds {len(secret)} characters; a secret needs "
                          f"{MIN_SECRET} or more: write one with python3 -c 'import secrets; print(secrets.token_hex(16))'")
    try:
        game_limits = GameLimits(game_cpu_s=checked.game_cpu, move_cpu_s=checked.move_cpu)
    except ValueError as exc:
        raise ConfigError(f"--game-cpu {checked.game_cpu:g} / --move-cpu {checked.move_cpu:g}: {exc}") from None
    return RunSpec(models=checked.model_specs(), base_url=checked.base_url, api_key_env=checked.api_key_env,
                   preset=checked.preset, mode=checked.mode, puzzles=checked.puzzle_names(), levels=tuple(levels),
                   instances_per_level=checked.instances_per_level, samples=checked.samples, temperature=checked.temperature,
                   max_tokens=checked.max_tokens, seed=checked.seed, limits=limits_from(checked.cpu, checked.memory),
                   max_connections=checked.max_connections, workers=checked.workers, backend=checked.backend,
                   executor=checked.executor, ray_address=checked.ray_address,
                   format_retries=checked.format_retries, request=checked.request, params=checked.params,
                   games=checked.game_names(), opponents=checked.opponent_names(), history=checked.history,
                   legal_hint=checked.legal_hint, game_limits=game_limits, game_secret=secret, out=Path(checked.out),
                   prices={label: Price(price.input_per_mtok, price.output_per_mtok) for label, price in checked.prices.items()},
                   max_cost=checked.max_cost, max_tokens_total=checked.max_tokens_total, idle_timeout=checked.idle_timeout,
                   request_timeout=checked.request_timeout, max_retries=checked.max_retries)
