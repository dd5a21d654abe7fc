"""The web pages as HTML: pure functions of :mod:`web.model`'s data.

Every text from players or games goes through :func:`esc` (names, actions, narration);
no page carries inline script or style, so the Content-Security-Policy can forbid them.
The same functions write a page's parts for the live update (``state.json``), so a
page updated in place is what a reload would show.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

#: Cache-busting suffix of the static files (change it when they change).
ASSETS = "5"


def esc(value: object) -> str:
    """``value`` as HTML text (quotes too, so it is safe in attributes)."""
    return html.escape(str(value), quote=True)


def when(epoch: float | None, *, relative: bool = False) -> str:
    """A ``<time>`` the page's script shows in the reader's own zone (UTC without it)."""
    if epoch is None:
        return ""
    moment = dt.datetime.fromtimestamp(float(epoch), dt.UTC)
    iso = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    shown = moment.strftime("%d %b %Y, %H:%M UTC")
    rel = ' data-relative="1"' if relative else ""
    return f'<time datetime="{iso}"{rel}>{esc(shown)}</time>'


def document(title: str, body: str, *, body_attrs: Mapping[str, str] | None = None,
             script: bool = True) -> str:
    attrs = "".join(f' data-{esc(k)}="{esc(v)}"' for k, v in (body_attrs or {}).items())
    js = (f'<script src="/static/app.js?v={ASSETS}" defer></script>' if script else "")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta name=\"referrer\" content=\"no-referrer\">"
            "<meta name=\"robots\" content=\"noindex\">"
            f"<title>{esc(title)}</title>"
            f"<link rel=\"stylesheet\" href=\"/static/app.css?v={ASSETS}\">{js}</head>"
            f"<body{attrs}>{body}<footer><p>Warhost · a read-only view of games played on "
            "Discord.</p></footer></body></html>")


def plain_page(status: int, heading: str, text: str) -> str:
    """A page for an error or refusal: what happened, in words; nothing else."""
    return document(f"{heading} — Warhost",
                    f"<main class=\"plain\"><h1>{esc(heading)}</h1><p>{esc(text)}</p>"
                    f"<p class=\"muted\">HTTP {int(status)}</p></main>", script=False)


# -- a game's page ------------------------------------------------------------------------------


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"<strong>{esc(n)}</strong>" for n in names) or "nobody"


def now_part(data: Mapping[str, Any]) -> str:
    """Who must act and until when, or how the game ended."""
    outcome = data.get("outcome")
    status = data.get("status")
    if outcome:
        won = outcome.get("winners") or []
        parts = [f"<p class=\"result\">🏆 Game over: {_names(won)} "
                 f"{'wins' if len(won) == 1 else 'win'}.</p>"]
        if outcome.get("reason"):
            parts.append(f"<p>{esc(outcome['reason'])}</p>")
        standings = outcome.get("standings") or []
        if standings:
            parts.append("<p>Standings: " + " · ".join(
                f"{i}. {esc(n)}" for i, n in enumerate(standings, 1)) + "</p>")
        return "".join(parts)
    if status == "lobby":
        return "<p>The game has not started yet: players are joining in Discord.</p>"
    if status == "aborted":
        return "<p>This game was called off.</p>"
    if status == "finished":
        return "<p>This game is over.</p>"
    rnd = data.get("round")
    prefix = f"Round {int(rnd)}: " if rnd is not None else ""
    to_act = data.get("to_act") or []
    line = (f"<p class=\"to-act\">{esc(prefix)}waiting for {_names(to_act)}.</p>"
            if to_act else f"<p class=\"to-act\">{esc(prefix)}waiting.</p>")
    deadlines = [s for s in data.get("seats") or () if s.get("acting") and s.get("deadline")]
    for seat in deadlines:
        line += (f"<p class=\"deadline\">⏳ {esc(seat['name'])} has until "
                 f"{when(seat['deadline'], relative=True)}.</p>")
    return line


def seats_part(data: Mapping[str, Any]) -> str:
    items = []
    for seat in data.get("seats") or ():
        notes = []
        if seat.get("acting"):
            notes.append("<span class=\"badge\">to act</span>")
        if seat.get("computer"):
            notes.append("<span class=\"badge soft\">computer</span>")
        if seat.get("out"):
            notes.append("<span class=\"badge soft\">out</span>")
        if seat.get("bank"):
            notes.append(f"<span>bank {esc(seat['bank'])}</span>")
        if seat.get("deadline"):
            notes.append(f"<span>until {when(seat['deadline'])}</span>")
        if seat.get("timeouts"):
            notes.append(f"<span>time-outs: {int(seat['timeouts'])}</span>")
        if seat.get("away_until"):
            notes.append(f"<span>on vacation until {when(seat['away_until'])}</span>")
        acting = ' class="acting"' if seat.get("acting") else ""
        items.append(f"<li{acting}>"
                     f"<span class=\"seat-name\">{esc(seat['name'])}</span> "
                     f"{' '.join(notes)}</li>")
    clock = data.get("clock")
    head = f"<p class=\"muted\">Clock: {esc(clock)}</p>" if clock else ""
    return f"{head}<ol class=\"seats\">{''.join(items)}</ol>"


def _lines(lines: Iterable[str]) -> str:
    return "".join(f"<li>{esc(line)}</li>" for line in lines)


def log_part(data: Mapping[str, Any]) -> str:
    turns = list(data.get("turns") or ())
    if not turns:
        return "<p class=\"muted\">No moves yet.</p>"
    items = []
    for turn in reversed(turns):                 # newest first: what a returning player wants
        span = (f"moves {turn['first']}–{turn['last']}" if turn["last"] > turn["first"]
                else f"move {turn['last']}" if turn["last"] == turn["first"] else "")
        items.append(
            f"<li class=\"turn\" data-last=\"{int(turn['last'])}\">"
            f"<h3>{esc(turn['title'])} <small>{esc(span)} {when(turn.get('when'))}</small>"
            f"</h3><ul>{_lines(turn['lines'])}</ul></li>")
    return f"<ol class=\"turns\">{''.join(items)}</ol>"


def private_part(data: Mapping[str, Any]) -> str:
    private = data.get("private")
    if not private:
        return ""
    parts = [f"<p class=\"muted\">Only you see this part: your personal link shows "
             f"{esc(data.get('viewer') or 'your seat')}'s own view. Do not share it.</p>"]
    for section in private.get("sections") or ():
        parts.append(f"<h3>{esc(section['title'])}</h3><ul>{_lines(section['lines'])}</ul>")
    told = private.get("told") or []
    if told:
        parts.append("<h3>Told to you</h3><ul class=\"told\">" + "".join(
            f"<li>{esc(' '.join(t['lines']))} <small>move {int(t['v'])}</small></li>"
            for t in reversed(told)) + "</ul>")
    return "".join(parts)


def step_caption(data: Mapping[str, Any], version: int) -> str:
    """What version ``version`` did, for the frame's caption."""
    if version <= 0:
        return "The start of the game."
    for step in data.get("steps") or ():
        if step["v"] == version:
            return f"Move {version}: " + " ".join(step["lines"])
    return f"Move {version}."


def dice_part(data: Mapping[str, Any]) -> str:
    """The game's dice: the commitment posted in its lobby, and once it is over the seed
    and salt behind it."""
    dice = data.get("dice") or {}
    if not dice.get("committed"):
        return ("<p class=\"muted\">This game began before Warhost committed to its dice.</p>")
    text = (f"<p>Commitment <code>{esc(dice.get('commitment'))}</code>: the SHA-256 of a "
            "secret seed and salt, posted in the lobby before anyone joined.</p>")
    if dice.get("seed"):
        return text + (f"<p>Revealed: seed <code>{esc(dice['seed'])}</code>, salt "
                       f"<code>{esc(dice['salt'])}</code>. Download the record and run "
                       "<code>python -m engine.verify</code> on it to check every roll.</p>")
    return text + ("<p class=\"muted\">The seed is revealed when the game ends; each "
                   "player's join is mixed into it.</p>")


def parts(data: Mapping[str, Any]) -> dict[str, str]:
    """The page's parts that change with a move, by element id."""
    return {"now": now_part(data), "seats-list": seats_part(data), "log-list": log_part(data),
            "private-body": private_part(data), "dice-body": dice_part(data)}


def game_page(data: Mapping[str, Any], base: str) -> str:
    """A game's page. ``base``: its URL path (``/g/<id>`` or a personal link's)."""
    version = int(data["version"])
    title = f"{data['name']} #{int(data['number'])}"
    if data.get("viewer"):
        title += f" · {data['viewer']}'s view"
    section = parts(data)
    started = data.get("status") != "lobby"
    board = ""
    if started:
        caption = step_caption(data, version)
        board = (
            f"<figure class=\"board\"><a id=\"board-link\" "
            f"href=\"{esc(base)}/frame/{version}.png\" target=\"_blank\" rel=\"noopener\">"
            f"<img id=\"board\" "
            f"src=\"{esc(base)}/frame/{version}.png\" alt=\"The board at move {version}\">"
            f"</a><figcaption id=\"caption\">{esc(caption)}</figcaption></figure>"
            f"<nav id=\"replay\" aria-label=\"Replay\">"
            f"<button type=\"button\" id=\"replay-first\" aria-label=\"First move\">«</button>"
            f"<button type=\"button\" id=\"replay-prev\" aria-label=\"Back one move\">◀</button>"
            f"<input type=\"range\" id=\"replay-slider\" min=\"0\" max=\"{version}\" "
            f"value=\"{version}\" aria-label=\"Move shown\">"
            f"<button type=\"button\" id=\"replay-next\" aria-label=\"Forward one move\">▶"
            f"</button><button type=\"button\" id=\"replay-last\" aria-label=\"Latest move\">"
            f"»</button></nav><p id=\"replay-label\" class=\"muted\">Showing the latest "
            f"position (move {version} of {version}). Use ◀ ▶, the slider or the arrow keys.</p>")
    live = ("Live: this page follows the game." if data.get("status") == "active" else "")
    private = (f"<section id=\"private\"><h2>Your view</h2><div id=\"private-body\">"
               f"{section['private-body']}</div></section>" if data.get("private") else "")
    body = (
        f"<header><h1>{esc(data['name'])} <small>#{int(data['number'])}</small></h1>"
        f"<p class=\"muted\" id=\"live\">{live}</p>"
        f"</header><main><section id=\"now\" aria-live=\"polite\">{section['now']}</section>"
        f"<p id=\"changed\" role=\"status\" hidden></p>{board}{private}"
        f"<section id=\"seats\"><h2>Seats</h2><div id=\"seats-list\">{section['seats-list']}"
        f"</div></section><section id=\"log\"><h2>Turns</h2><div id=\"log-list\">"
        f"{section['log-list']}</div></section>"
        f"<section id=\"dice\"><h2>Fair dice</h2><div id=\"dice-body\">"
        f"{section['dice-body']}</div>"
        + (f"<p><a href=\"{esc(base)}/record.json\" download>The game's record</a> "
           "(public facts only while it runs)</p>" if started else "")
        + "</section></main>")
    return document(f"{title} — Warhost", body,
                    body_attrs={"base": base, "version": str(version),
                                "status": str(data.get("status"))})


# -- a server's page ------------------------------------------------------------------------------


def server_page(guild_name: str, games: Sequence[Mapping[str, Any]],
                boards: Sequence[Mapping[str, Any]] = (), guild_id: str = "") -> str:
    """A server's page: its games, then (``boards``, from :func:`web.model.board_data`)
    the top of each game's leaderboard."""
    items = []
    for g in games:
        items.append(
            f"<li><a href=\"/g/{esc(g['public_id'])}\">{esc(g['name'])} #{int(g['number'])}</a>"
            f" <span class=\"badge{' soft' if g['status'] != 'active' else ''}\">"
            f"{esc(g['status_text'])}</span><br><span class=\"muted\">"
            f"{esc(', '.join(g['players']))} · {when(g['updated'])}</span></li>")
    listing = (f"<ul class=\"games\">{''.join(items)}</ul>" if items
               else "<p class=\"muted\">No games yet.</p>")
    tops = []
    for board in boards:
        full = leaderboard_url(guild_id, board["kind"])
        tops.append(
            f"<h3>{esc(board['name'])}</h3>{_board_table(guild_id, board)}"
            f"{_computers_line(guild_id, board)}"
            f"<p class=\"more\"><a href=\"{esc(full)}\">Full {esc(board['name'])} "
            f"leaderboard ({int(board['total'])} "
            f"{'player' if board['total'] == 1 else 'players'})</a></p>")
    note = _rating_note(boards[0].get("min_games")) if boards else ""
    ranked = (f"<section id=\"leaderboards\"><h2>Leaderboards</h2>{note}"
              f"{''.join(tops)}</section>" if tops else "")
    jump = ("<nav class=\"switch\" aria-label=\"On this page\"><a href=\"#games\">Games</a>"
            "<a href=\"#leaderboards\">Leaderboards</a></nav>" if tops else "")
    body = (f"<header><h1>{esc(guild_name)}</h1><p class=\"muted\">Games played on this "
            f"server with Warhost.</p>{jump}</header><main class=\"stats\">"
            f"<section id=\"games\">"
            f"<h2>Games</h2>{listing}</section>{ranked}</main>")
    return document(f"{guild_name} — Warhost", body)


# -- ratings: leaderboards and players ------------------------------------------------------------

def _rating_note(min_games: Any) -> str:
    return ("<p class=\"muted\">Ranked by rating, μ − 3σ: the skill Warhost is nearly sure "
            "a player has (μ: its estimate, σ: how unsure it still is). Players are listed "
            f"after {int(min_games or 0)} rated games.</p>")


def server_url(guild_id: str) -> str:
    return f"/s/{quote(str(guild_id), safe='')}"


def leaderboard_url(guild_id: str, kind: str, period: str = "all", page: int = 1) -> str:
    query = []
    if period != "all":
        query.append(f"period={quote(period, safe='')}")
    if page > 1:
        query.append(f"page={int(page)}")
    tail = "?" + "&".join(query) if query else ""
    return f"{server_url(guild_id)}/leaderboard/{quote(str(kind), safe='')}{tail}"


def player_url(guild_id: str, player: str) -> str:
    return f"{server_url(guild_id)}/player/{quote(str(player), safe=':')}"


def chart_url(guild_id: str, player: str, kind: str, version: str) -> str:
    return (f"{player_url(guild_id, player)}/chart.png?kind={quote(str(kind), safe='')}"
            f"&v={quote(str(version), safe='')}")


def _player_link(guild_id: str, row: Mapping[str, Any]) -> str:
    return f"<a href=\"{esc(player_url(guild_id, row['player']))}\">{esc(row['name'])}</a>"


_RATING_HEAD = ("<th scope=\"col\" class=\"num\">Rating<br><span class=\"sub\">μ ± σ"
                "</span></th>")


def _rating_cell(row: Mapping[str, Any]) -> str:
    """The rating, and under it μ ± σ (one column: a phone has no room for two)."""
    return (f"<td class=\"num\"><strong>{esc(row['rating'])}</strong><br>"
            f"<span class=\"sub\">{esc(row['mu_sigma'])}</span></td>")


def _board_table(guild_id: str, board: Mapping[str, Any]) -> str:
    """A leaderboard's rows as a table (in a box that scrolls sideways when too wide)."""
    rows = board.get("rows") or []
    if not rows:
        when_ = " in the last 30 days" if board.get("period") == "30d" else ""
        return (f"<p class=\"muted\">Nobody has {int(board.get('min_games') or 0)} rated "
                f"games{when_} yet.</p>")
    period = board.get("period") == "30d"
    head = (f"<th scope=\"col\" class=\"num\">#</th><th scope=\"col\">Player</th>"
            f"{_RATING_HEAD}<th scope=\"col\" class=\"num\">Games</th>"
            f"<th scope=\"col\" class=\"num\">Wins</th>")
    if period:
        head += ("<th scope=\"col\" class=\"num\">30 days<br><span class=\"sub\">"
                 "games</span></th>")
    lines = []
    for r in rows:
        extra = ""
        if period:
            extra = (f"<td class=\"num\"><strong>{esc(r.get('change') or '')}</strong><br>"
                     f"<span class=\"sub\">{int(r.get('period_games') or 0)}</span></td>")
        lines.append(
            f"<tr><td class=\"num\">{int(r['rank'])}</td><td class=\"who\">"
            f"{_player_link(guild_id, r)}</td>{_rating_cell(r)}<td class=\"num\">"
            f"{int(r['games'])}</td><td class=\"num\">{int(r['wins'])}</td>{extra}</tr>")
    return (f"<div class=\"table-scroll\"><table class=\"ratings\"><thead><tr>{head}</tr>"
            f"</thead><tbody>{''.join(lines)}</tbody></table></div>")


def _computers_line(guild_id: str, board: Mapping[str, Any]) -> str:
    bots = board.get("computers") or []
    if not bots:
        return ""
    shown = " · ".join(f"{_player_link(guild_id, c)} <span class=\"nowrap\">"
                       f"{esc(c['rating'])} ({esc(c['mu_sigma'])})</span>" for c in bots)
    return f"<p class=\"computers\">Computer levels: {shown}</p>"


def _crumbs(guild_name: str, guild_id: str) -> str:
    return (f"<p class=\"crumbs\"><a href=\"{esc(server_url(guild_id))}\">"
            f"← {esc(guild_name)}</a></p>")


def leaderboard_page(guild_name: str, guild_id: str, board: Mapping[str, Any]) -> str:
    """One page of a game's leaderboard on a server, with its period switch and pager."""
    kind, period = str(board["kind"]), str(board["period"])
    page, count = int(board["page"]), int(board["pages"])
    switch = []
    for value, label in (("all", "All time"), ("30d", "Last 30 days")):
        current = ' aria-current="page"' if value == period else ""
        switch.append(f"<a href=\"{esc(leaderboard_url(guild_id, kind, value))}\""
                      f"{current}>{label}</a>")
    pager = []
    if page > 1:
        back = leaderboard_url(guild_id, kind, period, page - 1)
        pager.append(f"<a rel=\"prev\" href=\"{esc(back)}\">← Previous</a>")
    pager.append(f"<span>Page {page} of {count}</span>")
    if page < count:
        on = leaderboard_url(guild_id, kind, period, page + 1)
        pager.append(f"<a rel=\"next\" href=\"{esc(on)}\">Next →</a>")
    total = int(board["total"])
    least = int(board.get("min_games") or 0)
    what = f"with {least} rated games or more" + (
        ", who played one in the last 30 days" if period == "30d" else "")
    body = (
        f"<header>{_crumbs(guild_name, guild_id)}<h1>{esc(board['name'])} "
        f"<small>leaderboard</small></h1><p class=\"muted\">{total} "
        f"{'player' if total == 1 else 'players'} {what}.</p></header>"
        f"<main class=\"stats\"><section id=\"leaderboard\">"
        f"<nav class=\"switch\" aria-label=\"Period\">{''.join(switch)}</nav>"
        f"{_board_table(guild_id, board)}"
        f"<nav class=\"pager\" aria-label=\"Pages\">{' '.join(pager)}</nav>"
        f"{_computers_line(guild_id, board)}"
        f"{_rating_note(board.get('min_games'))}"
        f"</section></main>")
    return document(f"{board['name']} leaderboard · {guild_name} — Warhost", body)


def _fact(label: str, value: object) -> str:
    return f"<div><dt>{esc(label)}</dt><dd>{esc(value)}</dd></div>"


def player_page(guild_name: str, guild_id: str, data: Mapping[str, Any]) -> str:
    """A player's results on a server: totals, streaks, and each game's rating, rank and
    chart."""
    games, wins = int(data["games"]), int(data["wins"])
    facts = [_fact("Games", games),
             _fact("Wins", f"{wins} ({data['win_share']})" if data.get("win_share")
                   else wins),
             _fact("Current streak", f"{int(data['current_streak'])} "
                   f"{'win' if data['current_streak'] == 1 else 'wins'}"),
             _fact("Best streak", f"{int(data['best_streak'])} "
                   f"{'win' if data['best_streak'] == 1 else 'wins'}"),
             _fact("Favourite game", data.get("favourite") or "—"),
             _fact("Time per decision", data.get("average_decision") or "—"),
             _fact("Time-outs", int(data["timeouts"]))]
    kinds = list(data.get("kinds") or ())
    rated = ""
    if kinds:
        lines, charts = [], []
        for k in kinds:
            if k.get("rank") is not None:
                rank = f"#{int(k['rank'])} of {int(k['ranked'])}"
                if k.get("listed", True):
                    href = leaderboard_url(guild_id, k["kind"], page=int(k["page"] or 1))
                    rank = f"<a href=\"{esc(href)}\">{esc(rank)}</a>"
                else:
                    rank = esc(rank)
            elif data.get("computer"):
                rank = "<span class=\"muted\">not ranked</span>"
            else:
                rank = "<span class=\"muted\">not yet</span>"
            lines.append(
                f"<tr><th scope=\"row\" class=\"who\">{esc(k['name'])}</th>"
                f"{_rating_cell(k)}<td class=\"num\">{int(k['games'])}</td>"
                f"<td class=\"num\">{int(k['wins'])}</td><td class=\"num\">{rank}</td></tr>")
            src = chart_url(guild_id, data["player"], k["kind"], k["chart"])
            charts.append(
                f"<figure class=\"chart\"><img src=\"{esc(src)}\" width=\"800\" "
                f"height=\"400\" loading=\"lazy\" alt=\"{esc(data['name'])}: "
                f"{esc(k['name'])} rating after each of {int(k['games'])} rated games\">"
                f"<figcaption>{esc(k['name'])}: the rating after each rated game (μ, the "
                f"band μ ± σ, and μ − 3σ dashed).</figcaption></figure>")
        table = (
            "<div class=\"table-scroll\"><table class=\"ratings\"><thead><tr>"
            f"<th scope=\"col\">Game</th>{_RATING_HEAD}<th scope=\"col\" class=\"num\">"
            "Games</th><th scope=\"col\" class=\"num\">Wins</th><th scope=\"col\" "
            f"class=\"num\">Rank</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
            "</div>")
        rated = table + "".join(charts)
    else:
        rated = "<p class=\"muted\">No rated games yet.</p>"
    body = (
        f"<header>{_crumbs(guild_name, guild_id)}<h1>{esc(data['name'])}</h1>"
        f"<p class=\"muted\">Results on this server's finished games.</p></header>"
        f"<main class=\"stats\"><section id=\"summary\"><h2>Overall</h2>"
        f"<dl class=\"facts\">{''.join(facts)}</dl></section>"
        f"<section id=\"ratings\"><h2>Ratings</h2>{rated}</section></main>")
    return document(f"{data['name']} · {guild_name} — Warhost", body)


def landing_page() -> str:
    body = ("<header><h1>Warhost</h1></header><main class=\"plain\"><p>This server shows "
            "games played on Discord with Warhost. Every game's page is linked from its "
            "channel: press <strong>View on the web</strong> under a turn, or use "
            "<code>/game web</code> for your own view.</p></main>")
    return document("Warhost", body, script=False)
