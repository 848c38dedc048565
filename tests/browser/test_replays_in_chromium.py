"""The HTML report's Games and Replays sections in a real browser: Debian's Chromium, headless, driven by Playwright.

One real run with games, in instruction mode only (no sandbox): the mock models `oracle` (plays the reference strategy's
move) and `wrong` (an illegal move) on cardnim, tidytower and sudokillm against the built-in players, then
`codebench report --html`. Opened from file://, the page must raise no console or page error and request nothing
beyond its own file; show the scores and the ratings with their intervals; list every stored game and filter them by
game and by player; replay a game move by move (the start board, each move's mover, reply, verdict and board after,
back to the start); show the `wrong` model's illegal move and its seat's status; and show a hostile reply as text that
runs nothing. A full-page screenshot of an opened replay is left in test-artifacts/html-replay.png.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, sync_playwright

from codebench.analysis.html import render_html
from codebench.analysis.plots import figure_svgs
from codebench.analysis.report import build_report
from codebench.cli import main
from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store
from codebench.types import GameRow
from puzzles.games import get_game

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
GAMES = ("cardnim", "tidytower", "sudokillm")
ORACLE, WRONG = "oracle (instruction)", "wrong (instruction)"
HOSTILE_REPLY = ('</script><script>window.pwned = 1</script><img src=x onerror=alert(1)><b>bold</b><!-- '
                 '\u2028\u2029 &amp; </pre>\n```json\n{"card": 8}\n```\n')
HOSTILE_DETAIL = "<img src=x onerror=alert(2)></script>"


def cli(*argv: str) -> None:
    """`codebench ARGV` in-process; it must exit 0."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    assert (exit_info.value.code or 0) == 0, argv


class Replays:
    """The generated pages, the games they were made of, and the browser tab they open in (with what went wrong)."""

    def __init__(self, folder: Path, games: list[GameRow], page: Page) -> None:
        self.folder, self.games, self.page = folder, games, page
        self.path = folder / "report.html"
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def fresh(self, path: Path | None = None) -> None:
        """Open a page anew (the run's report by default): no filter set, no replay open."""
        self.errors.clear()
        self.requests.clear()
        self.page.goto((path or self.path).as_uri())

    def shown(self) -> list[int]:
        """The indices (into `games`) of the listed games, in list order."""
        return self.page.locator("#game-rows tr[data-game]").evaluate_all("rows => rows.map((r) => Number(r.dataset.game))")

    def choose(self, name: str, value: str) -> None:
        self.page.select_option(f"#filter-{name}", value)

    def index(self, game: str, players: tuple[str, ...]) -> int:
        return next(i for i, row in enumerate(self.games) if row.game == game and row.players == players)

    def open(self, index: int) -> None:
        self.page.click(f'#game-rows tr[data-game="{index}"]')
        assert self.page.locator("#replay").is_visible()

    def step(self, name: str) -> None:
        self.page.click(f'#replay button[data-step="{name}"]')

    def position(self) -> str:
        return self.page.inner_text("#replay p.pager > span")

    def board(self) -> str | None:
        return self.page.locator("#replay .step [data-part=board] pre").text_content()

    def verdict(self) -> str | None:
        return self.page.locator("#replay .step p > span.status").text_content()


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replays]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium (as root) to install Debian's chromium")
    folder = tmp_path_factory.mktemp("replays")
    out, secret = folder / "run", folder / "secret"
    secret.write_text("fixed secret 3 of the replay tests")  # the same games every time; cardnim lasts 6 moves between refs
    with start_mock_server(behavior="oracle") as server:  # the model's name picks its behaviour
        cli("run", "--model", "oracle,wrong", "--base-url", server.url, "--mode", "instruction", "--games", ",".join(GAMES),
            "--levels", "1", "--instances-per-level", "1", "--samples", "1", "--game-secret-file", str(secret), "--out", str(out))
    cli("report", str(out), "--html", str(folder / "report.html"), "--format", "json")
    store = Store.for_reading(out / "run.sqlite")
    try:
        games = store.game_rows()
    finally:
        store.close()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield Replays(folder, games, browser.new_page(viewport={"width": 1400, "height": 900}))
        finally:
            browser.close()


def table_rows(page: Page, n: int) -> tuple[list[str], list[list[str]]]:
    """The header and the body's cells, as text, of the `n`-th table of the Games section."""
    table = page.locator("#games > table").nth(n)
    header = table.locator("thead th").all_text_contents()
    rows = table.locator("tbody tr").evaluate_all("rows => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    return header, rows


def test_the_page_opens_clean_and_shows_the_scores_and_the_ratings_with_intervals(replays: Replays) -> None:
    replays.fresh()
    assert replays.errors == [] and replays.dialogs == []
    assert set(replays.requests) == {replays.path.as_uri()}  # nothing fetched beside the file
    assert {row.game for row in replays.games} == set(GAMES)
    header, scores = table_rows(replays.page, 0)
    assert header[:3] == ["game", "level", "player"]
    cells = [(game, int(level), player) for game, level, player, *_ in scores]
    expected = {(row.game, row.level, player) for row in replays.games for player in row.players}
    assert len(cells) == len(expected) == len(set(cells)) and set(cells) == expected  # one row per game × level × player
    assert len(expected) == 3 * 4  # per game: oracle, wrong, ref, random
    assert replays.page.locator("#games > table").count() == 1 + 4
    titles = replays.page.locator("#games > h3").all_text_contents()
    assert titles[0] == "Ratings"
    pools = [title.split(":")[0] for title in titles[1:]]
    assert pools == [*GAMES, "all games"]
    for n, pool in enumerate(pools):
        header, ratings = table_rows(replays.page, n + 1)
        assert "95% interval" in header, pool
        players = {row[0] for row in ratings}
        in_pool = {player for row in replays.games if pool in (row.game, "all games") for player in row.players}
        assert players == in_pool, pool
        column = header.index("95% interval")
        for row in ratings:
            found = re.fullmatch(r"\[(-?\d+), (-?\d+)\]", row[column])
            assert found is not None, (pool, row)
            assert int(found[1]) <= int(row[header.index("BT rating")]) <= int(found[2]), (pool, row)


def test_every_stored_game_is_listed_and_the_filters_narrow_the_list(replays: Replays) -> None:
    replays.fresh()
    games = replays.games
    assert len(games) == 28  # two-player games: 4 players in both seat orders, each pair once; tidytower: one each
    assert replays.shown() == list(range(len(games)))
    assert replays.page.inner_text("#game-count") == f"{len(games)} of {len(games)} games"
    listed = replays.page.locator("#game-rows tr").evaluate_all("rows => rows.map((r) => r.cells[0].textContent)")
    assert listed == [row.game for row in games]
    options = replays.page.locator("#filter-player option").all_text_contents()
    assert options == ["all", *sorted({player for row in games for player in row.players})]
    replays.choose("game", "sudokillm")
    expected = [i for i, row in enumerate(games) if row.game == "sudokillm"]
    assert replays.shown() == expected and len(expected) == 12
    assert replays.page.inner_text("#game-count") == f"12 of {len(games)} games"
    replays.choose("player", WRONG)  # both filters at once
    expected = [i for i, row in enumerate(games) if row.game == "sudokillm" and WRONG in row.players]
    assert replays.shown() == expected and len(expected) == 6
    replays.choose("game", "")
    expected = [i for i, row in enumerate(games) if WRONG in row.players]
    assert replays.shown() == expected and len(expected) == 2 * 6 + 1
    replays.choose("player", "random")
    assert replays.shown() == [i for i, row in enumerate(games) if "random" in row.players]
    replays.choose("player", "")
    assert replays.shown() == list(range(len(games)))
    assert replays.page.inner_text("#game-page") == "page 1 of 1"
    assert replays.errors == []


def test_a_two_player_game_steps_from_the_start_through_every_move_and_back(replays: Replays) -> None:
    replays.fresh()
    index = replays.index("cardnim", (ORACLE, "ref"))
    row = replays.games[index]
    moves, kept = row.record["moves"], row.record["kept"]
    assert len(moves) >= 4 and kept[0]["turns"] and not kept[1]  # the model is seat 0; the reference strategy keeps nothing
    game = get_game(row.game)
    state = game.setup(row.level, row.seed, row.secret).state  # under its run's secret
    start = game.render(state)
    replays.open(index)
    assert replays.page.inner_text("#replay > h2") == f"cardnim · level {row.level} · seed {row.seed}"
    summary = replays.page.locator("#replay > ul > li").all_text_contents()
    assert len(summary) == 2 and summary[0].startswith(f"seat 0: {row.record['seats'][0]}: legal")
    assert replays.position() == f"start ({len(moves)} moves)"
    assert replays.board() == start
    assert replays.page.locator('#replay button[data-step="previous"]').is_disabled()
    model_turn = 0
    boards = {start}
    shot = False
    for n, move in enumerate(moves, start=1):
        replays.step("next")
        assert replays.position() == f"move {n} of {len(moves)}"
        seat = move["player"]
        assert replays.page.inner_text("#replay .step > h3") == f"seat {seat} ({row.record['seats'][seat]}) moves"
        replies = replays.page.locator("#replay .step [data-part=reply] pre").all_text_contents()
        if seat == 0:  # the model's move: its reply as it came
            reply = kept[0]["turns"][model_turn]["replies"][0]["text"]
            model_turn += 1
            assert replies == [reply] and "```json" in reply
        else:
            assert replies == []
        observation = replays.page.locator("#replay .step [data-part=observation] pre").text_content()
        assert observation is not None and json.loads(observation) == game.observe(state, seat)
        assert replays.page.locator("#replay .step p > code").text_content() == json.dumps(move["move"])
        assert replays.verdict() == "legal"
        state = game.apply(state, seat, move["move"])
        assert replays.board() == game.render(state)
        boards.add(game.render(state))
        if seat == 0 and n > len(moves) // 2 and not shot:  # a model's move past the middle: its reply on screen
            ARTIFACTS.mkdir(exist_ok=True)
            replays.page.screenshot(path=str(ARTIFACTS / "html-replay.png"), full_page=True)
            shot = True
    assert shot and model_turn == len(kept[0]["turns"]) and len(boards) > 2  # every reply shown; the boards did change
    assert replays.page.locator('#replay button[data-step="next"]').is_disabled()
    assert replays.page.locator('#replay button[data-step="last"]').is_disabled()
    replays.page.click('#replay button[data-step="next"]', force=True)  # disabled: nothing happens
    assert replays.position() == f"move {len(moves)} of {len(moves)}"
    replays.step("first")
    assert replays.position() == f"start ({len(moves)} moves)" and replays.board() == start
    replays.step("last")
    assert replays.position() == f"move {len(moves)} of {len(moves)}" and replays.board() == game.render(state)
    replays.step("previous")
    assert replays.position() == f"move {len(moves) - 1} of {len(moves)}"
    replays.page.click("#replay > button")  # close
    assert replays.page.locator("#replay").is_hidden()
    assert replays.errors == []


def test_a_game_of_the_wrong_model_ends_on_its_illegal_move_and_a_rule_violation(replays: Replays) -> None:
    replays.fresh()
    indices = [i for i, row in enumerate(replays.games) if WRONG in row.players]
    assert len(indices) == 13
    for index in indices:
        row = replays.games[index]
        seat = row.players.index(WRONG)
        last = row.record["moves"][-1]
        assert last["player"] == seat and not last["ok"]
        replays.open(index)
        replays.step("last")
        moves = len(row.record["moves"])
        assert replays.position() == f"move {moves} of {moves}", row.players
        verdict = replays.verdict()
        assert verdict == f"illegal: {last['issue']['code']}: {last['issue']['message']}", row.players
        assert replays.page.locator("#replay .step p > span.status-rule_violation").count() == 1
        reply = replays.page.locator("#replay .step [data-part=reply] pre").all_text_contents()
        assert reply == [row.record["kept"][seat]["turns"][-1]["replies"][0]["text"]]
        summary = replays.page.locator("#replay > ul > li").all_text_contents()
        assert summary[seat].startswith(f"seat {seat}: {row.record['seats'][seat]}: rule_violation ("), summary
        if len(row.players) == 2:
            assert "legal" in summary[1 - seat] and "rule_violation" not in summary[1 - seat]
            assert summary[seat].endswith(" loss") and summary[1 - seat].endswith(" win")
        listed = replays.page.locator(f'#game-rows tr[data-game="{index}"] td >> nth=4').inner_text()
        assert "rule_violation" in listed
    assert replays.errors == []


def hostile_page(replays: Replays) -> tuple[Path, int]:
    """A page of the stored games with one reply and one seat's detail replaced by hostile text; the game's index."""
    index = replays.index("cardnim", (ORACLE, "ref"))
    row = replays.games[index]
    record = json.loads(json.dumps(row.record))  # a deep copy
    record["kept"][0]["turns"][0]["replies"][0]["text"] = HOSTILE_REPLY
    record["details"][0] = HOSTILE_DETAIL
    games = [*replays.games]
    games[index] = dataclasses.replace(row, record=record)
    report = build_report([], [1], boot=50, games=games)
    path = replays.folder / "hostile.html"
    path.write_text(render_html(report, [], figure_svgs(report), games), encoding="utf-8")
    return path, index


def test_a_hostile_reply_in_a_replay_is_only_text(replays: Replays) -> None:
    path, index = hostile_page(replays)
    replays.fresh(path)
    replays.open(index)
    summary = replays.page.locator("#replay > ul > li >> nth=0").text_content()
    assert summary is not None and f"({HOSTILE_DETAIL})" in summary
    replays.step("next")
    assert replays.position().startswith("move 1 of ")
    assert replays.page.locator("#replay .step [data-part=reply] pre").all_text_contents() == [HOSTILE_REPLY]
    assert replays.page.locator("img, b").count() == 0
    assert replays.page.locator("script").count() == 2  # the data block and the page's own script: no more
    assert replays.page.evaluate("typeof window.pwned") == "undefined"
    replays.page.wait_for_timeout(200)  # a late onerror would have fired by now
    assert replays.dialogs == [] and replays.errors == []
    assert set(replays.requests) == {path.as_uri()}  # no image fetched
