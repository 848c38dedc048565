"""The schema of a run's options as a user gives them (config file or flags): names, types and ranges, strictly.

`samples: 2.5`, `seed: x`, `levels: 1`, `base_url: [a]` or an unknown key are refused naming the option as the user
gave it (its flag, or its key in the config file, a `models:` entry by its place and name), the value and what the
option takes, in words derived from its type and bounds (or its `description` where the type says too little).
The options (names, flags, types, defaults, bounds, help) are declared once, in `spec.OPTIONS`; `spec_from_options`
builds the RunSpec from a config and the flags. Imports pydantic and the spec (the spec never imports this module:
pydantic loads only for a run that is built).
"""

from __future__ import annotations

import types
from dataclasses import fields
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator
from pydantic.fields import FieldInfo

import puzzles

from ..costs import Price
from ..errors import ConfigError
from ..files import FOLDER, check_outputs, read_text
from ..model.presets import MAX_RETRIES, MAX_TIMEOUT_S, PRESETS
from ..protocols import protocol_named
from ..types import GameLimits
from .spec import ALL, MIN_SECRET, OPTION, OPTIONS, ModelSpec, Origin, RunOption, RunSpec, limits_from, merged, one_of, parse_range

STRICT = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)
KINDS: dict[Any, str] = {int: "a whole number", float: "a number", str: "text", bool: "true or false", dict: "a mapping"}


class ModelOption(BaseModel):
    """One entry of the config's `models` list: a name alone, or a mapping with its own endpoint and request fields."""

    model_config = STRICT

    name: str = Field(description="text: the model's name as its server serves it")
    label: str | None = None  # what reports call it (default: the name); two entries may serve one name apart
    preset: str | None = Field(None, description=one_of(PRESETS))
    base_url: str | None = None
    api_key_env: str | None = Field(None, description="the name of an environment variable")
    request: dict[str, Any] = Field(default_factory=dict, description="a mapping of request-body fields")
    images: bool = True  # False: a text-only model (an M variant's board picture is not sent)
    idle_timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)  # None: the run's
    request_timeout: float | None = Field(None, ge=0, le=MAX_TIMEOUT_S)
    max_retries: int | None = Field(None, ge=0, le=MAX_RETRIES)

    def spec(self) -> ModelSpec:
        return ModelSpec(self.name.strip(), (self.label or self.name).strip(), self.preset, self.base_url, self.api_key_env,
                         self.request, self.images, self.idle_timeout, self.request_timeout, self.max_retries)


class PriceOption(BaseModel):
    """One model's price, US dollars per million tokens (reasoning tokens are billed as output)."""

    model_config = STRICT

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    batch_input_per_mtok: float | None = Field(None, ge=0)  # through the Batch API (--batch); None: no batch rate
    batch_output_per_mtok: float | None = Field(None, ge=0)


class _Options(BaseModel):
    """What `RunOptions` does besides its fields (which `OPTIONS` declares)."""

    model_config = STRICT

    @field_validator("models", mode="before", check_fields=False)
    @classmethod
    def _named(cls, value: Any) -> Any:
        """A bare name in the list is an entry with only its name."""
        return [{"name": entry} if isinstance(entry, str) else entry for entry in value] if isinstance(value, list) else value

    def model_specs(self) -> tuple[ModelSpec, ...]:
        """The --model flag's names (comma-separated), else the config's entries."""
        if self.model is None and self.models is not None:
            return tuple(entry.spec() for entry in self.models)
        given = self.model or []
        names = given.split(",") if isinstance(given, str) else given
        return tuple(ModelSpec(name.strip()) for name in names if name.strip())

    def puzzle_names(self) -> tuple[str, ...]:
        """The puzzles named (all: all nine); by default all nine, or none when the run names games."""
        if self.puzzles is None:
            return () if self.games is not None else RunSpec.puzzles
        return RunSpec.puzzles if _names(self.puzzles) == (ALL,) else _names(self.puzzles)

    def game_names(self, levels: list[int]) -> tuple[str, ...]:
        """The games named; `all` is every game that has one of `levels` (every game when none has: the spec says so)."""
        if self.games is None:
            return ()
        if _names(self.games) == (ALL,):
            from puzzles.games import game_names, get_game

            return tuple(name for name in game_names() if set(levels) & set(get_game(name).levels)) or tuple(game_names())
        return _names(self.games)

    def opponent_names(self) -> tuple[str, ...]:
        return _names(self.opponents)



def _field(option: RunOption) -> tuple[Any, Any]:
    """An option as a pydantic field: its type (a schema of its own for `models` and `prices`), default and bounds."""
    kind, takes = OWN_SCHEMAS.get(option.name, (option.kind, option.takes))
    default = {"default_factory": lambda: type(option.default)(option.default)} if isinstance(option.default, (dict, list)) \
        else {"default": option.default}
    return kind, Field(**default, description=takes, ge=option.ge, gt=option.gt, le=option.le)


OWN_SCHEMAS = {  # options whose values are mappings checked field by field
    "models": (list[ModelOption] | None, "a list of entries, each a model name or a mapping with its name and any of "
                                         f"{', '.join(list(ModelOption.model_fields)[1:])}"),
    "prices": (dict[str, PriceOption], OPTION["prices"].takes)}
RunOptions = create_model("RunOptions", __base__=_Options, __doc__="Every option `codebench run` takes, as given (config "
                          "file and flags; `OPTIONS` declares them); `RunSpec` is built from it.",
                          **{option.name: _field(option) for option in OPTIONS})


def _names(given: str | list[str]) -> tuple[str, ...]:
    """A comma-separated flag or a config list, as names (duplicates dropped, order kept)."""
    names = given.split(",") if isinstance(given, str) else given
    return tuple(dict.fromkeys(name.strip() for name in names if name.strip()))


def first_problem(exc: ValueError, given: dict[str, Any], origin: Origin) -> str:
    """One line for the first thing wrong: the option as the user gave it, the value, what the option takes (and how
    many more options are wrong). Pydantic's own words (`levels.str`, "input should be") never reach the user."""
    if not isinstance(exc, ValidationError):
        return f"bad run option: {exc}"
    errors = exc.errors()
    fields = {str(e["loc"][0]) for e in errors if e["loc"]}
    more = f" (and {len(fields) - 1} more option(s) wrong)" if len(fields) > 1 else ""
    return _problem(errors[0]["loc"], errors[0]["type"], given, origin) + more


def _problem(loc: tuple[int | str, ...], kind: str, given: dict[str, Any], origin: Origin) -> str:
    key = str(loc[0]) if loc else "?"
    if kind == "extra_forbidden" and len(loc) == 1:
        where = f" in {origin.config}" if key in origin.in_config else ""
        return f"unknown run option {key!r}{where}; known: {', '.join(sorted(RunOptions.model_fields))}"
    value = given.get(key)
    if key == "models" and len(loc) > 2 and isinstance(value, list) and isinstance(value[int(loc[1])], dict):
        entry = value[int(loc[1])]
        label = next((entry[field] for field in ("label", "name") if isinstance(entry.get(field), str)), None)
        return _nested(origin.entry(int(loc[1]), label), ModelOption, str(loc[2]), entry, kind)
    if key == "prices" and len(loc) > 2 and isinstance(value, dict) and isinstance(value.get(loc[1]), dict):
        return _nested(f"{origin.name(key)} of {loc[1]}", PriceOption, str(loc[2]), value[loc[1]], kind)
    return f"{origin.name(key)} {_shown(value)}: give {_expected(RunOptions.model_fields[key])}"


def _nested(where: str, schema: type[BaseModel], field: str, given: dict[str, Any], kind: str) -> str:
    """A problem inside a mapping of its own (a `models:` entry, a price)."""
    if kind == "extra_forbidden":
        return f"{where}: unknown field {field!r}; known: {', '.join(schema.model_fields)}"
    value = "is missing" if kind == "missing" else _shown(given.get(field))
    return f"{where}: {field} {value}: give {_expected(schema.model_fields[field])}"


def _expected(info: FieldInfo) -> str:
    """What a field takes, in words: its description, else its type and bounds."""
    if info.description:
        return info.description
    annotation = info.annotation
    kinds = [kind for kind in (get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,))
             if kind is not type(None)]
    kind = KINDS.get(get_origin(kinds[0]) or kinds[0], "a value")
    low = next((m.ge for m in info.metadata if isinstance(m, Ge)), None)
    above = next((m.gt for m in info.metadata if isinstance(m, Gt)), None)
    high = next((m.le for m in info.metadata if isinstance(m, Le)), None)
    if low is not None and high is not None:
        return f"{kind} from {_shown(low)} to {_shown(high)}"
    bounds = [f"above {_shown(above)}" if above is not None else f"at least {_shown(low)}" if low is not None else "",
              f"at most {_shown(high)}" if high is not None else ""]
    return ", ".join([f"{kind} {bounds[0]}".strip(), *filter(None, bounds[1:])])


def _shown(value: Any) -> str:
    """A value as the message shows it: numbers as written, anything else as Python writes it (cut at 60 characters)."""
    whole = isinstance(value, float) and value.is_integer()  # 1e9 as 1000000000, not 1e+09; nan and inf as written
    text = str(int(value)) if whole else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def spec_from_options(options: dict[str, Any], config: dict[str, Any], config_path: Path | None = None) -> RunSpec:
    """Config file values (read from `config_path`), overridden by the flags given on the command line (None: not
    given), checked as a whole; every message names the option as the user gave it, flag or config key.

    Raises:
        ConfigError: an unknown option, a value of the wrong type or range (the message names it, the value and
            what is expected), or an option that does not apply to the run.
        InputError: an --out that cannot be a folder to write in (`check_outputs`).
    """
    flags = {k: str(v) if isinstance(v, Path) else v for k, v in options.items() if v is not None}
    given = {**config, **flags}
    replaced = {"models"} if "model" in flags else set()
    for key in replaced:
        given.pop(key, None)  # the --model flag replaces the config's list
    if isinstance(config.get("params"), dict) and isinstance(flags.get("params"), dict):  # a --param overrides one key
        given["params"] = merged(config["params"], flags["params"])
    if isinstance(config.get("prices"), dict) and isinstance(flags.get("prices"), dict):  # a --price overrides one model's
        given["prices"] = {**config["prices"], **flags["prices"]}
    origin = Origin(str(config_path) if config_path is not None else "the config file",
                    frozenset(set(config) - set(flags) - replaced), frozenset(given))
    try:
        checked = RunOptions.model_validate(given)
    except ValueError as exc:
        raise ConfigError(first_problem(exc, given, origin)) from None
    cache = None if checked.no_cache or checked.cache is None else Path(checked.cache)
    check_outputs([(origin.name("out"), Path(checked.out), FOLDER), (origin.name("cache"), cache, FOLDER)])
    levels = parse_range(checked.levels, origin.name("levels"), min(puzzles.LEVELS), max(puzzles.LEVELS)) \
        if isinstance(checked.levels, str) else checked.levels
    secret_option = origin.name("game_secret_file")
    secret = None if checked.game_secret_file is None else read_text(Path(checked.game_secret_file), secret_option).strip()
    if secret is not None and len(secret) < MIN_SECRET:
        raise ConfigError(f"{secret_option} {checked.game_secret_file}: it holds {len(secret)} characters; a secret needs "
                          f"{MIN_SECRET} or more: write one with python3 -c 'import secrets; print(secrets.token_hex(16))'")
    if checked.system_prompt is not None and checked.system_prompt_file is not None:
        raise ConfigError(f"{origin.name('system_prompt')} and {origin.name('system_prompt_file')}: give one of them")
    system_file = origin.name("system_prompt_file")
    system_prompt = checked.system_prompt if checked.system_prompt_file is None else \
        read_text(Path(checked.system_prompt_file), system_file)
    converted = {"models": checked.model_specs(), "system_prompt": system_prompt,
                 "templates": None if checked.templates is None else Path(checked.templates),
                 "puzzles": checked.puzzle_names(), "levels": tuple(levels),
                 "games": checked.game_names(levels), "opponents": checked.opponent_names(), "out": Path(checked.out), "cache": cache,
                 "prices": {label: Price(**price.model_dump()) for label, price in checked.prices.items()}}
    as_given = {field.name: getattr(checked, field.name) for field in fields(RunSpec)
                if field.name in RunOptions.model_fields and field.name not in converted}  # the same name, the same value
    values = {**as_given, **converted, "game_cpu": checked.game_cpu, "move_cpu": checked.move_cpu}
    if checked.protocol is not None:  # its settings where the user gave none (`--games all`: its games); RunSpec checks the rest
        every_game = checked.games is not None and _names(checked.games) == (ALL,)
        values = protocol_named(checked.protocol, origin.name("protocol")).resolve(
            values, origin.given - ({"games"} if every_game else set()))
    game_limits = GameLimits(game_cpu_s=values.pop("game_cpu"), move_cpu_s=values.pop("move_cpu"))
    return RunSpec(**values, limits=limits_from(checked.cpu, checked.memory), game_secret=secret, game_limits=game_limits,
                   origin=origin)
