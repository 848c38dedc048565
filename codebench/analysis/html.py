"""The report as one self-contained HTML page: the text report's tables, the figures inline as SVG, a drill-down to
every sample (its prompt, replies, reasoning, program or answer, and each instance's execution), and a replay of every
stored game move by move (the board, what the mover saw, the model's reply or the strategy's move, the verdict).

One file that opens from disk: no server, no external asset, nothing fetched (its Content-Security-Policy forbids it),
only inline CSS and a small vanilla script. Whatever a model or a program wrote is untrusted: it travels as JSON in a
`<script type="application/json">` block with `<`, `>`, `&`, U+2028 and U+2029 written as \\u escapes, so no text can
end the block or open a comment, and the script puts it into the page with `textContent` only; the policy lets no
other script run, inline event handlers included. The tables are escaped here.

Sized for large runs: the list of samples is drawn one page (100 rows) at a time and a sample's detail only when it is
opened; repeated strings (a puzzle's prompt shared by all its code-mode samples, programs shared by content) are stored
once in a string table and referred to by index; output streams, details and issue lists are clipped to 4 KiB each.
Measured on a run of 10,800 executions as the report counts them (the mock model `mixed` in both modes, nine puzzles ×
six levels × ten instances, ten samples; the fake sandbox): `codebench report --html` takes 6.7 s, figures included;
the file is 10.5 MB, nearly all of it the replies, answers and prompts themselves (a level-6 Hanoi answer is 0.5 MB);
in headless Chromium (Debian's, 2-core VM) the list is drawn and usable 1.0 s after opening the file (0.45 s reading
it, 0.45 s parsing the page, 50 ms for the data's JSON.parse), a filter redraws it in under 0.1 s, and a sample's
drill-down is drawn in 20–50 ms (60 executions, or a 0.5 MB reply).
Pure: builds text from a `Report` and the store's `SampleDetail`s; reads no database and writes no file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Sequence
from html import escape
from typing import Any

from ..types import COUNTED_STATUSES, INFRASTRUCTURE_ORDER, ExecutionDetail, GameRow, ModeName, SampleDetail, Status, harmless
from .replays import GAME_FIELDS, TURN_FIELDS, replay_rows
from .report import LEGEND, REGISTRY, Report, headline, notes

CLIP = 4096  # characters kept of each output stream, detail and issue list (the head and the tail, half each)
PAGE = 100  # rows of the sample list drawn at once, and of a sample's executions
PROGRAM_TITLES = {ModeName.CODE: "extracted program", ModeName.INSTRUCTION: "parsed answer"}  # what a mode's judged text is


SAMPLE_FIELDS = ("model", "mode", "puzzle", "sample", "instance", "key", "prompt", "response", "retried", "reasoning",
                 "program", "read_status", "read_detail", "error", "finish_reason", "truncated", "latency_s", "prompt_tokens",
                 "completion_tokens", "reasoning_tokens", "format_retries", "server_model", "temperature", "max_tokens", "seed",
                 "judged")
JUDGED_FIELDS = ("instance", "level", "status", "detail", "execution")
EXECUTION_FIELDS = ("issues", "first_illegal_step", "steps_applied", "cpu_s", "wall_s", "peak_mib", "stdout", "stderr")


def render_html(report: Report, samples: Sequence[SampleDetail], figures: dict[str, str], games: Sequence[GameRow] = ()) -> str:
    """The whole page: `report`'s tables, `figures` (name → SVG markup without prolog), the drill-down of `samples` and
    the replays of `games`."""
    partial = ' class="summary partial"' if report.partial else ' class="summary"'
    links = [*(link for entry in REGISTRY for link in entry.links(report)), ("plots", "plots"), ("samples", "samples")]
    body = [f'<header><h1>codebench report{" (PARTIAL)" if report.partial else ""}</h1><p{partial}>{escape(headline(report))}</p>'
            + "".join(f"<p>{escape(line)}</p>" for line in notes(report)),
            "<nav>" + " ".join(f'<a href="#{anchor}">{escape(label)}</a>' for anchor, label in links) + "</nav></header>",
            *(entry.in_html(report) for entry in REGISTRY), _figures(figures), SAMPLES_SECTION,
            REPLAYS_SECTION if games else "",
            "<footer><ul>" + "".join(f"<li>{escape(line)}</li>" for line in LEGEND) + "</ul></footer>",
            f'<script type="application/json" id="codebench-data">{_script_json(_drill_down(samples, games))}</script>',
            f"<script>{SCRIPT}</script>"]
    # nothing may be fetched; only this page's script runs; images only inline (the heatmap's raster inside its SVG)
    policy = f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '{_sha256(SCRIPT)}'"
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>codebench report</title>\n'
            f"<style>{STYLE}{_status_colours()}</style>\n</head>\n<body>\n" + "\n".join(part for part in body if part)
            + "\n</body>\n</html>\n")


def _figures(figures: dict[str, str]) -> str:
    """The SVGs as drawn by `plots` (its text is XML-escaped by matplotlib); each in a figure named after it."""
    shown = "".join(f'<figure id="plot-{escape(name)}" class="plot">{svg}<figcaption>{escape(name)}</figcaption></figure>'
                    for name, svg in figures.items())
    return '<section id="plots"><h2>Plots</h2>' + (shown or "<p>nothing to draw yet</p>") + "</section>"


def _status_colours() -> str:
    """One colour class per status: legal green, infrastructure grey, every other counted status red."""
    colours = {**{str(s): "#b3261e" for s in COUNTED_STATUSES}, **{str(s): "#6b6b6b" for s in INFRASTRUCTURE_ORDER},
               str(Status.LEGAL): "#1b7f3b"}
    return "".join(f".status-{name}{{color:{colour}}}" for name, colour in colours.items())


# -- the drill-down data --------------------------------------------------------------------------------------------
class _Strings:
    """A string table: each distinct string kept once, everything else refers to it by index. Every string enters
    `harmless`: what a program or a model wrote (controls, bidi overrides, lone surrogates) shows as escapes."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int | None:
        return None if text is None else self.index.setdefault(harmless(text), len(self.index))


def _drill_down(details: Sequence[SampleDetail], games: Sequence[GameRow] = ()) -> dict[str, Any]:
    """Every sample as a row of `SAMPLE_FIELDS` and every game as a row of `GAME_FIELDS`, strings by index into
    `strings`; the filters' choices beside them."""
    strings = _Strings()
    rows = [_sample_row(detail, strings) for detail in details]
    replays = replay_rows(games, strings, _clip)
    order = {str(s): i for i, s in enumerate(Status)}
    statuses = sorted({j.status for d in details for j in d.judged}, key=lambda s: (order.get(s, len(order)), s))
    choices = {"model": list(dict.fromkeys(d.sample.model for d in details)),
               "mode": list(dict.fromkeys(d.sample.mode for d in details)),
               "puzzle": list(dict.fromkeys(d.sample.puzzle for d in details)),
               "level": sorted({j.level for d in details for j in d.judged}), "status": statuses}
    choices["game"] = list(dict.fromkeys(game.game for game in games))
    choices["player"] = sorted({player for game in games for player in game.players})
    return {"fields": {"sample": SAMPLE_FIELDS, "judged": JUDGED_FIELDS, "execution": EXECUTION_FIELDS, "game": GAME_FIELDS,
                       "turn": TURN_FIELDS},
            "page": PAGE, "program_titles": PROGRAM_TITLES, "choices": choices, "samples": rows, "games": replays,
            "strings": list(strings.index)}


def _sample_row(detail: SampleDetail, strings: _Strings) -> list[Any]:
    sample, completion, reading = detail.sample, detail.sample.completion, detail.sample.reading
    program = reading.program.source if reading.program is not None else None
    values = {
        "model": strings(sample.model), "mode": strings(sample.mode), "puzzle": strings(sample.puzzle), "sample": sample.sample,
        "instance": strings(sample.instance_id), "key": strings(sample.key),
        "prompt": [[strings(role), strings(content)] for role, content in _messages(sample.prompt)],
        "response": strings(completion.text), "retried": [strings(text) for text in sample.retried_replies],
        "reasoning": strings(completion.reasoning), "program": strings(program),
        "read_status": strings(None if reading.status is None else str(reading.status)),
        "read_detail": strings(_clip(reading.detail)), "error": strings(None if completion.error is None else _clip(completion.error)),
        "finish_reason": strings(completion.finish_reason), "truncated": completion.truncated,
        "latency_s": _finite(completion.latency_s), "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens, "reasoning_tokens": completion.reasoning_tokens,
        "format_retries": sample.format_retries, "server_model": strings(completion.server_model),
        "temperature": _finite(sample.sampling.temperature), "max_tokens": sample.sampling.max_tokens, "seed": sample.sampling.seed,
        "judged": [[strings(j.instance_id), j.level, strings(j.status), strings(_clip(j.detail)),
                    None if j.execution is None else _execution_row(j.execution, strings)] for j in detail.judged],
    }
    return [values[name] for name in SAMPLE_FIELDS]


def _execution_row(execution: ExecutionDetail, strings: _Strings) -> list[Any]:
    issues = "\n".join(f"{issue.get('code')}{'' if issue.get('step') is None else '@' + str(issue.get('step'))}: "
                       f"{issue.get('message')}" for issue in execution.issues)
    values = {"issues": strings(_clip(issues)), "first_illegal_step": execution.first_illegal_step,
              "steps_applied": execution.steps_applied, "cpu_s": _finite(execution.cpu_s), "wall_s": _finite(execution.wall_s),
              "peak_mib": _finite(execution.peak_mib), "stdout": strings(_clip(execution.stdout)),
              "stderr": strings(_clip(execution.stderr))}
    return [values[name] for name in EXECUTION_FIELDS]


def _messages(prompt: str) -> list[tuple[str, str]]:
    """The prompt's chat messages (role, content); a prompt stored in another shape is shown whole, as one message."""
    try:
        messages = json.loads(prompt)
        return [(str(m["role"]), str(m["content"])) for m in messages]
    except (ValueError, TypeError, KeyError, RecursionError):  # RecursionError: JSON nested too deep to read
        return [("prompt", prompt)]


def _clip(text: str) -> str:
    """`text`, or its head and tail with the gap counted: a flood of output must not swell the page."""
    if len(text) <= CLIP:
        return text
    half = CLIP // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters not shown …]\n{text[-half:]}"


def _finite(value: float | None) -> float | None:
    """JSON has no NaN or infinity: they become null, shown as "-"."""
    return None if value is None or not math.isfinite(value) else value


SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _script_json(value: Any) -> str:
    """JSON that cannot end its `<script>` element, open a comment or an entity, or break a line in a JS parser."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(SCRIPT_SAFE)


def _sha256(script: str) -> str:
    """The CSP source that lets exactly this inline script run."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()


SAMPLES_SECTION = """<section id="samples"><h2>Samples</h2>
<noscript><p>The sample list and drill-down need JavaScript.</p></noscript>
<form id="filters" class="filters" autocomplete="off">
<label>model <select id="filter-model"><option value="">all</option></select></label>
<label>mode <select id="filter-mode"><option value="">all</option></select></label>
<label>puzzle <select id="filter-puzzle"><option value="">all</option></select></label>
<label>level <select id="filter-level"><option value="">all</option></select></label>
<label>status <select id="filter-status"><option value="">all</option></select></label>
<label>instance id <input id="filter-instance" type="search" placeholder="e.g. hanoi/L3"></label>
</form>
<p id="sample-count" class="muted"></p>
<table id="sample-list" class="samples"><thead><tr><th>model</th><th>mode</th><th>puzzle</th><th class="num">sample</th>
<th>instance</th><th>levels</th><th>statuses</th></tr></thead><tbody id="sample-rows"></tbody></table>
<p class="pager"><button type="button" id="page-previous">previous</button> <span id="page-number"></span>
<button type="button" id="page-next">next</button></p>
</section>
<section id="detail" hidden></section>"""

REPLAYS_SECTION = """<section id="replays"><h2>Replays</h2>
<form id="game-filters" class="filters" autocomplete="off">
<label>game <select id="filter-game"><option value="">all</option></select></label>
<label>player <select id="filter-player"><option value="">all</option></select></label>
</form>
<p id="game-count" class="muted"></p>
<table class="samples"><thead><tr><th>game</th><th class="num">level</th><th class="num">seed</th><th>seats</th>
<th>statuses</th><th>scores</th><th class="num">moves</th></tr></thead><tbody id="game-rows"></tbody></table>
<p class="pager"><button type="button" id="game-previous">previous</button> <span id="game-page"></span>
<button type="button" id="game-next">next</button></p>
</section>
<section id="replay" hidden></section>"""

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1400px;padding:0 1.5rem 3rem;
color:#1d1d1f;background:#fff}
h1{margin:1.2rem 0 .2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{margin:1.2rem 0 .4rem}
nav a{margin-right:.8rem}.summary{font-size:1.05rem}.partial{border-left:4px solid #b3261e;padding-left:.5rem}.muted{color:#6b6b6b}
table{border-collapse:collapse;margin:.3rem 0 1rem;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #e4e4e4;padding:.2rem .55rem;text-align:left;vertical-align:top}
th{background:#f5f5f7}.num{text-align:right}
figure.plot{margin:1rem 0;overflow-x:auto}figure.plot svg{max-width:100%;height:auto}
figcaption{color:#6b6b6b;font-size:.9rem}
.filters{display:flex;flex-wrap:wrap;gap:.4rem 1rem;margin:.5rem 0}.filters label{display:flex;gap:.3rem;align-items:center}
table.samples tbody tr{cursor:pointer}table.samples tbody tr:hover,table.samples tbody tr:focus{background:#eef4ff}
.status{margin-right:.5rem;white-space:nowrap}
#detail,#replay{border:1px solid #ccd;border-radius:6px;padding:.5rem 1rem 1rem;margin-top:1.5rem;background:#fbfbfd}
#detail>button,#replay>button{float:right;margin-top:.8rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}dl.facts dt{color:#6b6b6b}dl.facts dd{margin:0}
pre{white-space:pre-wrap;word-break:break-word;background:#f5f5f7;padding:.5rem;border-radius:4px;max-height:32rem;
overflow:auto;margin:.2rem 0 .6rem}
td pre{max-height:16rem;margin:0}.message h4{margin:.4rem 0 .1rem;text-transform:uppercase;font-size:.8rem;color:#555}
"""

SCRIPT = """
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("codebench-data").textContent);
  const S = data.strings;
  const at = (names) => Object.fromEntries(names.map((name, i) => [name, i]));
  const F = at(data.fields.sample), J = at(data.fields.judged), X = at(data.fields.execution);
  const $ = (id) => document.getElementById(id);
  const text = (i) => (i === null || i === undefined ? "" : S[i]);
  const num = (v, digits) => (v === null || v === undefined ? "-" : digits === undefined ? String(v) : v.toFixed(digits));
  const statusOrder = new Map(data.choices.status.map((status, i) => [status, i]));

  function el(tag, content, className) {
    const node = document.createElement(tag);
    if (content !== undefined && content !== null) node.textContent = String(content);
    if (className) node.className = className;
    return node;
  }

  const filters = {};
  for (const name of ["model", "mode", "puzzle", "level", "status"]) {
    filters[name] = $("filter-" + name);
    for (const value of data.choices[name]) filters[name].add(new Option(String(value), String(value)));
    filters[name].addEventListener("change", apply);
  }
  const search = $("filter-instance");
  search.addEventListener("input", apply);
  let shown = [];
  let page = 0;

  function matches(s, f) {
    if ((f.model && text(s[F.model]) !== f.model) || (f.mode && text(s[F.mode]) !== f.mode)
        || (f.puzzle && text(s[F.puzzle]) !== f.puzzle)) return false;
    if (!f.level && !f.status && !f.instance) return true;
    return s[F.judged].some((j) => (!f.level || String(j[J.level]) === f.level)
      && (!f.status || text(j[J.status]) === f.status)
      && (!f.instance || text(j[J.instance]).toLowerCase().includes(f.instance)));
  }

  function apply() {
    const f = {instance: search.value.trim().toLowerCase()};
    for (const name in filters) f[name] = filters[name].value;
    shown = [];
    data.samples.forEach((s, i) => { if (matches(s, f)) shown.push(i); });
    page = 0;
    draw();
  }

  function draw() {
    const pages = Math.max(1, Math.ceil(shown.length / data.page));
    $("sample-rows").replaceChildren(...shown.slice(page * data.page, (page + 1) * data.page).map(listRow));
    $("sample-count").textContent = `${shown.length} of ${data.samples.length} samples`;
    $("page-number").textContent = `page ${page + 1} of ${pages}`;
    $("page-previous").disabled = page === 0;
    $("page-next").disabled = page >= pages - 1;
  }

  function statusSpan(status, label) {
    return el("span", label, "status status-" + status);
  }

  function listRow(i) {
    const s = data.samples[i];
    const judged = s[F.judged];
    const row = el("tr");
    row.dataset.sample = String(i);
    row.tabIndex = 0;
    const levels = [...new Set(judged.map((j) => j[J.level]))].sort((a, b) => a - b).join(" ");
    const instance = s[F.instance] === null ? `${judged.length} instances` : text(s[F.instance]);
    for (const value of [text(s[F.model]), text(s[F.mode]), text(s[F.puzzle])]) row.append(el("td", value));
    row.append(el("td", s[F.sample], "num"), el("td", instance), el("td", levels || "-"));
    const counts = new Map();
    for (const j of judged) counts.set(text(j[J.status]), (counts.get(text(j[J.status])) || 0) + 1);
    const mix = el("td");
    for (const status of [...counts.keys()].sort((a, b) => statusOrder.get(a) - statusOrder.get(b))) {
      mix.append(statusSpan(status, `${status} ${counts.get(status)}`));
    }
    row.append(mix);
    return row;
  }

  function pick(event) {
    const row = event.target.closest("tr[data-sample]");
    if (row) openSample(Number(row.dataset.sample));
  }
  $("sample-rows").addEventListener("click", pick);
  $("sample-rows").addEventListener("keydown", (event) => { if (event.key === "Enter") pick(event); });
  $("page-previous").addEventListener("click", () => { page -= 1; draw(); });
  $("page-next").addEventListener("click", () => { page += 1; draw(); });

  function part(title, name, ...content) {
    const section = el("section", null, "part");
    section.dataset.part = name;
    section.append(el("h3", title), ...content);
    return section;
  }

  function facts(s) {
    const none = (value) => value || "-";
    const rows = [
      ["key", text(s[F.key])],
      ["instance", s[F.instance] === null ? "every planned instance of the puzzle" : text(s[F.instance])],
      ["read status", s[F.read_status] === null ? "none: judged on each instance" : text(s[F.read_status])],
      ["read detail", none(text(s[F.read_detail]))],
      ["error", none(text(s[F.error]))],
      ["finish reason", none(text(s[F.finish_reason]))],
      ["truncated", s[F.truncated] ? "yes: cut off at max_tokens" : "no"],
      ["latency", `${num(s[F.latency_s], 3)} s`],
      ["tokens: prompt, completion, reasoning",
       [s[F.prompt_tokens], s[F.completion_tokens], s[F.reasoning_tokens]].map((v) => num(v)).join(", ")],
      ["format retries", s[F.format_retries]],
      ["server model", none(text(s[F.server_model]))],
      ["sampling", `temperature ${num(s[F.temperature])}, max_tokens ${num(s[F.max_tokens])}, seed ${s[F.seed]}`],
    ];
    const list = el("dl", null, "facts");
    for (const [name, value] of rows) list.append(el("dt", name), el("dd", value));
    return list;
  }

  function output(content) {
    const cell = el("td");
    if (!content) {
      cell.textContent = "-";
      return cell;
    }
    const box = el("details");
    box.append(el("summary", `${content.length} characters`), el("pre", content));
    cell.append(box);
    return cell;
  }

  function executionRow(j) {
    const row = el("tr");
    row.append(el("td", text(j[J.instance])), el("td", j[J.level], "num"));
    const status = el("td");
    status.append(statusSpan(text(j[J.status]), text(j[J.status])));
    row.append(status, el("td", text(j[J.detail]) || "-"));
    const x = j[J.execution];
    if (x === null) {
      const cell = el("td", "not run: the reply's read status holds for every instance", "muted");
      cell.colSpan = 8;
      row.append(cell);
      return row;
    }
    row.append(output(text(x[X.issues])), el("td", num(x[X.first_illegal_step]), "num"), el("td", num(x[X.steps_applied]), "num"),
               el("td", num(x[X.cpu_s], 3), "num"), el("td", num(x[X.wall_s], 3), "num"), el("td", num(x[X.peak_mib], 1), "num"),
               output(text(x[X.stdout])), output(text(x[X.stderr])));
    return row;
  }

  function executions(judged) {
    if (!judged.length) return part("per-instance executions", "executions", el("p", "none stored yet", "muted"));
    const table = el("table", null, "executions");
    const head = el("tr");
    for (const name of ["instance", "level", "status", "detail", "validator issues", "first illegal step", "steps applied",
                        "cpu_s", "wall_s", "peak MiB", "stdout", "stderr"]) head.append(el("th", name));
    table.createTHead().append(head);
    const body = table.createTBody();
    const more = el("button");
    more.type = "button";
    let drawn = 0;
    function drawMore() {
      body.append(...judged.slice(drawn, drawn + data.page).map(executionRow));
      drawn = Math.min(judged.length, drawn + data.page);
      more.hidden = drawn >= judged.length;
      more.textContent = `show ${Math.min(data.page, judged.length - drawn)} more of ${judged.length - drawn}`;
    }
    more.addEventListener("click", drawMore);
    drawMore();
    return part(`per-instance executions (${judged.length})`, "executions", table, more);
  }

  function openSample(i) {
    const s = data.samples[i];
    const detail = $("detail");
    const close = el("button", "close");
    close.type = "button";
    close.addEventListener("click", () => { detail.hidden = true; });
    const parts = [part("prompt", "prompt", ...s[F.prompt].map(([role, content]) => {
      const message = el("div", null, "message");
      message.append(el("h4", text(role)), el("pre", text(content)));
      return message;
    }))];
    parts.push(part("final response", "response", el("pre", text(s[F.response]))));
    const retried = s[F.retried];
    if (retried.length) {
      parts.push(part(`earlier replies that got a format retry (${retried.length})`, "retried",
                      ...retried.map((reply) => el("pre", text(reply)))));
    }
    if (s[F.reasoning] !== null) parts.push(part("reasoning", "reasoning", el("pre", text(s[F.reasoning]))));
    if (s[F.program] !== null) {
      const mode = text(s[F.mode]);
      const title = Object.hasOwn(data.program_titles, mode) ? data.program_titles[mode] : "program";
      parts.push(part(title, "program", el("pre", text(s[F.program]))));
    }
    parts.push(executions(s[F.judged]));
    const title = [text(s[F.model]), text(s[F.mode]), text(s[F.puzzle]), `sample ${s[F.sample]}`].join(" · ");
    detail.replaceChildren(close, el("h2", title), facts(s), ...parts);
    detail.hidden = false;
    detail.scrollIntoView();
  }

  apply();

  // -- replays ---------------------------------------------------------------------------------------------------
  if (!data.games.length) return;
  const G = at(data.fields.game), T = at(data.fields.turn);
  const gameFilters = {game: $("filter-game"), player: $("filter-player")};
  for (const name in gameFilters) {
    for (const value of data.choices[name]) gameFilters[name].add(new Option(value, value));
    gameFilters[name].addEventListener("change", applyGames);
  }
  let games = [];
  let gamePage = 0;

  function applyGames() {
    const game = gameFilters.game.value, player = gameFilters.player.value;
    games = [];
    data.games.forEach((g, i) => {
      if ((!game || text(g[G.game]) === game) && (!player || g[G.players].some((p) => text(p) === player))) games.push(i);
    });
    gamePage = 0;
    drawGames();
  }

  function drawGames() {
    const pages = Math.max(1, Math.ceil(games.length / data.page));
    $("game-rows").replaceChildren(...games.slice(gamePage * data.page, (gamePage + 1) * data.page).map(gameRow));
    $("game-count").textContent = `${games.length} of ${data.games.length} games`;
    $("game-page").textContent = `page ${gamePage + 1} of ${pages}`;
    $("game-previous").disabled = gamePage === 0;
    $("game-next").disabled = gamePage >= pages - 1;
  }

  function gameRow(i) {
    const g = data.games[i];
    const row = el("tr");
    row.dataset.game = String(i);
    row.tabIndex = 0;
    const statuses = el("td");
    g[G.statuses].forEach((status) => statuses.append(statusSpan(text(status), text(status))));
    row.append(el("td", text(g[G.game])), el("td", g[G.level], "num"), el("td", g[G.seed], "num"),
               el("td", g[G.seats].map(text).join(" vs ")), statuses, el("td", g[G.scores].join(" : ")),
               el("td", g[G.turns].length, "num"));
    return row;
  }

  function pickGame(event) {
    const row = event.target.closest("tr[data-game]");
    if (row) openGame(Number(row.dataset.game));
  }
  $("game-rows").addEventListener("click", pickGame);
  $("game-rows").addEventListener("keydown", (event) => { if (event.key === "Enter") pickGame(event); });
  $("game-previous").addEventListener("click", () => { gamePage -= 1; drawGames(); });
  $("game-next").addEventListener("click", () => { gamePage += 1; drawGames(); });

  function openGame(i) {
    const g = data.games[i];
    const replay = $("replay");
    const turns = g[G.turns];
    const close = el("button", "close");
    close.type = "button";
    close.addEventListener("click", () => { replay.hidden = true; });
    const seats = g[G.seats].map((seat, s) => {
      const result = g[G.results] ? ` ${g[G.results][s]}` : "";
      const detail = text(g[G.details][s]);
      return `seat ${s}: ${text(seat)}: ${text(g[G.statuses][s])}${detail ? " (" + detail + ")" : ""}, score ${g[G.scores][s]}${result}`;
    });
    const summaryList = el("ul");
    seats.forEach((line) => summaryList.append(el("li", line)));
    const step = el("div", null, "step");
    const position = el("span");
    const buttons = ["first", "previous", "next", "last"].map((name) => {
      const button = el("button", name);
      button.type = "button";
      button.dataset.step = name;
      return button;
    });
    const controls = el("p", null, "pager");
    controls.append(...buttons, " ", position);
    let current = -1;  // -1: the start position, before any move
    function drawStep() {
      position.textContent = current < 0 ? `start (${turns.length} moves)` : `move ${current + 1} of ${turns.length}`;
      buttons[0].disabled = buttons[1].disabled = current < 0;
      buttons[2].disabled = buttons[3].disabled = current >= turns.length - 1;
      if (current < 0) {
        step.replaceChildren(part("board", "board", el("pre", text(g[G.start]) || "not available: another version of the game")));
        return;
      }
      const t = turns[current];
      const parts = [el("h3", `seat ${t[T.player]} (${text(g[G.seats][t[T.player]])}) moves`)];
      if (t[T.observation] !== null) parts.push(part("what it saw", "observation", el("pre", text(t[T.observation]))));
      t[T.replies].forEach((reply, r) => parts.push(part(t[T.replies].length > 1 ? `reply ${r + 1} of ${t[T.replies].length}`
                                                          : "reply", "reply", el("pre", text(reply)))));
      const verdict = el("p");
      verdict.append(el("strong", "move: "), el("code", text(t[T.move]) || "none"), " ",
                     statusSpan(text(t[T.verdict]).startsWith("legal") ? "legal" : "rule_violation", text(t[T.verdict])),
                     el("span", ` cpu ${num(t[T.cpu_s], 3)} s, wall ${num(t[T.wall_s], 3)} s`, "muted"));
      parts.push(verdict);
      if (t[T.board] !== null) parts.push(part("board after the move", "board", el("pre", text(t[T.board]))));
      step.replaceChildren(...parts);
    }
    controls.addEventListener("click", (event) => {
      const name = event.target.dataset && event.target.dataset.step;
      if (!name) return;
      current = name === "first" ? -1 : name === "last" ? turns.length - 1
        : name === "previous" ? Math.max(-1, current - 1) : Math.min(turns.length - 1, current + 1);
      drawStep();
    });
    const title = [text(g[G.game]), `level ${g[G.level]}`, `seed ${g[G.seed]}`].join(" · ");
    replay.replaceChildren(close, el("h2", title), summaryList, controls, step);
    drawStep();
    replay.hidden = false;
    replay.scrollIntoView();
  }

  applyGames();
})();
"""
