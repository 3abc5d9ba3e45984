"""The game viewer: one self-contained HTML page of a replayed game (``hsim view``).

:func:`game_data` turns the deal records of :mod:`hsim.analysis.replay` into plain JSON
data; :func:`render_page` embeds that data in one HTML file with inline CSS and
JavaScript (no network, no library) that steps through the game: the hands as dealt,
the passes, every trick, the end of each deal with its scores.

The page's steps, in order, for each deal: ``deal`` (the hands as dealt), ``pass`` (Hearts,
unless a hold deal: who gave which cards to whom, the hands after the pass), one
``trick`` step per trick, ``lottery`` (a Kierki lottery deal: its plays in order), ``end``
(points, moon, deal and game scores). Elements tests and users can read: ``#rules``,
``#players``, ``#step`` (``data-step``, ``data-kind``, ``data-deal``, ``data-trick``),
``#slider``, ``#prev``, ``#next``, ``#deal-info``, ``#hand-S`` holding ``.card`` elements
with ``data-card="QS"`` (a face-down card has ``data-card=""``), ``#taken-S``,
``#trick-cards`` (``.card`` with ``data-seat``), ``#trick-info`` (``data-leader``,
``data-winner``, ``data-points``), ``#passes``, ``#lottery``, ``#deal-summary`` (at a
deal's end: ``.deal-points`` with ``data-seat``, ``data-points``, ``data-deal-score``), ``#moon``,
``#hearts-broken`` (``data-broken``), ``#scores`` (a ``tr[data-deal]`` per finished deal
with ``td[data-seat]`` game scores).
"""

from __future__ import annotations

import html
import json

from hsim.engine.layout import (
    D_DEAL_SCORE,
    D_LOTTERY_PLACE,
    D_MOON,
    D_MOON_CHOICE,
    D_POINTS,
    D_RECEIVED,
    D_SCORE,
    D_TRUMP,
    MOON_CHOICES,
    TRUMP_CHOICES,
)
from hsim.model.cards import format_card

#: Bumped when the embedded data's shape changes.
DATA_VERSION = 1


def _cards(mask: int) -> list[str]:
    return [format_card(c) for c in range(52) if mask >> c & 1]


def _deal_data(r, seat: int | None) -> dict:
    """Return one deal's data (see :func:`game_data`); other seats' hands and passes are
    null when ``seat`` is given."""
    seats = len(r.rows)
    shown = lambda s: seat is None or s == seat  # noqa: E731 - one test, used four times
    hands = [[format_card(c) for c in h] for h in r.hands]
    passing = r.kind is None and r.pass_direction != "hold"
    passes, held = [], []
    if passing:
        received = [int(r.rows[s, D_RECEIVED]) for s in range(seats)]
        for s in range(seats):
            to = next((t for t in range(seats) if received[t] == r.passes[s]), -1)
            passes.append({"seat": s, "to": to, "cards": _cards(r.passes[s])})
        for s in range(seats):
            dealt = sum(1 << c for c in r.hands[s])
            held.append(_cards(dealt & ~r.passes[s] | received[s]))
    trump = TRUMP_CHOICES[int(r.rows[0, D_TRUMP])] if r.trump_chooser >= 0 else None
    return {
        "deal": r.deal,
        "kind": r.kind,
        "pass_direction": r.pass_direction,
        "dealer": r.dealer,
        "hand_sizes": [len(h) for h in r.hands],
        "hands": [h if shown(s) else None for s, h in enumerate(hands)],
        "passes": [p if shown(p["seat"]) or shown(p["to"]) else None for p in passes],
        "held": [h if shown(s) else None for s, h in enumerate(held)],
        "trump": trump,
        "trump_chooser": r.trump_chooser,
        "trump_seen": [format_card(c) for c in r.trump_seen] if shown(r.trump_chooser) else None,
        "tricks": [
            {
                "leader": t.leader,
                "plays": [[s, format_card(c)] for s, c in t.plays],
                "winner": t.winner,
                "points": t.points,
            }
            for t in r.tricks
        ],
        "lottery": [[s, format_card(c)] for s, c in r.lottery],
        "lottery_place": [int(x) for x in r.rows[:, D_LOTTERY_PLACE]],
        "points": [int(x) for x in r.rows[:, D_POINTS]],
        "moon": [bool(x) for x in r.rows[:, D_MOON]],
        "moon_choice": [MOON_CHOICES[int(x)] for x in r.rows[:, D_MOON_CHOICE]],
        "deal_score": [int(x) for x in r.rows[:, D_DEAL_SCORE]],
        "score": [int(x) for x in r.rows[:, D_SCORE]],
    }


def game_data(records, *, rules: str, players: list[str], title: str, seat=None) -> dict:
    """Return the viewer's data for a game's deal records (``replay_game`` and the like).

    rules: the canonical rules string; players: the strategy spec in each seat (4, or 3
    in 3-player Kierki); title: what is shown (e.g. ``game 3 of run seed 7``); seat: show
    the game from this seat (the other seats' hands, passes and the trump chooser's
    preview become null) or None for every hand open.

    Cards are names such as ``QS``. Returns ``{"version", "title", "rules", "players",
    "seats", "kierki", "seat", "deals": [...]}``, one dict per deal with: ``deal`` (index),
    ``kind`` (Kierki deal kind, else null), ``pass_direction`` (Hearts: ``left`` ..
    ``hold``, else null), ``dealer`` (Kierki, else -1), ``hand_sizes``, ``hands`` (the cards
    dealt, per seat, in dealing order), ``passes`` (Hearts unless hold: ``{"seat", "to",
    "cards"}`` per passer), ``held`` (the hands after the pass; empty without one),
    ``trump`` (``C`` .. ``H`` or ``none``; null without a trump choice),
    ``trump_chooser`` (-1 if none), ``trump_seen`` (the cards the chooser saw),
    ``tricks`` (``{"leader", "plays": [[seat, card], ...], "winner", "points"}``),
    ``lottery`` ([seat, card] in order, a lottery deal), and per seat ``lottery_place``
    (1, 2 or 0), ``points``, ``moon`` (bool), ``moon_choice`` (``add``, ``subtract`` or
    null), ``deal_score`` and ``score`` (the game score after the deal).

    :raises ValueError: ``seat`` is not a seat of this game.
    """
    seats = len(players)
    if seat is not None and not 0 <= seat < seats:
        raise ValueError(f"--seat must be a seat of this game, 0..{seats - 1}, not {seat}")
    return {
        "version": DATA_VERSION,
        "title": title,
        "rules": rules,
        "players": list(players),
        "seats": seats,
        "kierki": any(r.kind is not None for r in records),
        "seat": seat,
        "deals": [_deal_data(r, seat) for r in records],
    }


def embed_json(data: dict) -> str:
    """Return ``data`` as JSON safe inside a ``<script>`` element (no ``</script>``, no
    ``<!--``: ``<``, ``>`` and ``&`` are written as ``\\u`` escapes)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_page(records, *, rules: str, players: list[str], title: str, seat=None) -> str:
    """Return the whole HTML page of a game (see :func:`game_data` for the arguments).

    :raises ValueError: ``seat`` is not a seat of this game.
    """
    data = game_data(records, rules=rules, players=players, title=title, seat=seat)
    return _PAGE.format(
        title=html.escape(f"hsim: {title}"),
        css=_CSS,
        data=embed_json(data),
        js=_JS,
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div>rules <code id="rules"></code></div>
  <ol id="players" start="0"></ol>
</header>
<nav>
  <button id="prev" type="button" title="previous step (left arrow)">&larr; Prev</button>
  <input id="slider" type="range" min="0" value="0" aria-label="step">
  <button id="next" type="button" title="next step (right arrow)">Next &rarr;</button>
  <span id="step"></span>
</nav>
<div id="deal-info"></div>
<main id="table"></main>
<section id="events">
  <div id="passes"></div>
  <div id="lottery"></div>
  <div id="deal-summary"></div>
  <div id="moon"></div>
  <div id="hearts-broken"></div>
</section>
<section>
  <h2>Scores after each deal</h2>
  <table id="scores"><thead></thead><tbody></tbody></table>
</section>
<script type="application/json" id="game-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1em; background: #f4f4ef; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
h2 { font-size: 1.05em; }
header ol { margin: .3em 0; padding-left: 2em; }
nav { display: flex; gap: .6em; align-items: center; margin: .6em 0; }
nav input { flex: 1; max-width: 40em; }
#deal-info { font-weight: 600; margin: .4em 0; }
#table { display: grid; grid-template-columns: 1fr 1.2fr 1fr; grid-template-rows: auto auto auto;
  gap: .6em; background: #2e6b3f; padding: .8em; border-radius: .5em; max-width: 70em; }
.seat { background: #fff8; border-radius: .4em; padding: .4em; min-height: 4.2em; }
.seat.view { outline: 3px solid #ffd54a; }
.seat h3 { margin: 0 0 .3em; font-size: .95em; }
.pos-bottom { grid-column: 2; grid-row: 3; } .pos-left { grid-column: 1; grid-row: 2; }
.pos-top { grid-column: 2; grid-row: 1; } .pos-right { grid-column: 3; grid-row: 2; }
#centre { grid-column: 2; grid-row: 2; background: #fff3; border-radius: .4em; padding: .5em;
  text-align: center; color: #fff; min-height: 6em; }
.card { display: inline-block; min-width: 1.9em; padding: .15em .2em; margin: .1em;
  background: #fff; border: 1px solid #999; border-radius: .25em; text-align: center;
  font-weight: 600; color: #111; }
.card.red { color: #c0161c; }
.card.back { background: repeating-linear-gradient(45deg, #35579b, #35579b 3px, #4a6fbf 3px,
  #4a6fbf 6px); color: transparent; }
.card.win { outline: 3px solid #ffd54a; }
.taken { font-size: .85em; color: #333; }
#trick-info { margin-top: .4em; }
#events div { margin: .3em 0; }
#scores { border-collapse: collapse; }
#scores td, #scores th { border: 1px solid #bbb; padding: .15em .6em; text-align: right; }
"""

_JS = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const N = DATA.seats;
const SUIT = { C: "\u2663", D: "\u2666", S: "\u2660", H: "\u2665" };
const POS = N === 4 ? ["bottom", "left", "top", "right"] : ["bottom", "left", "right"];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function card(name, extra) {
  if (!name) return el("span", Object.assign({ class: "card back", "data-card": "" }, extra), "?");
  const red = name[1] === "H" || name[1] === "D";
  return el("span", Object.assign({ class: red ? "card red" : "card", "data-card": name }, extra),
            cardText(name));
}
const ORDER = (name) => "CDSH".indexOf(name[1]) * 13 + "23456789TJQKA".indexOf(name[0]);
const bySuit = (a, b) => ORDER(a) - ORDER(b);
function cardText(name) { return (name[0] === "T" ? "10" : name[0]) + SUIT[name[1]]; }
function seatName(s) { return "seat " + s + " (" + DATA.players[s] + ")"; }

// The steps of the game, in order (see hsim/analysis/viewer.py).
const STEPS = [];
DATA.deals.forEach((d, i) => {
  STEPS.push({ kind: "deal", deal: i });
  if (d.passes.length) STEPS.push({ kind: "pass", deal: i });
  d.tricks.forEach((t, k) => STEPS.push({ kind: "trick", deal: i, trick: k }));
  if (d.lottery.length) STEPS.push({ kind: "lottery", deal: i });
  STEPS.push({ kind: "end", deal: i });
});

// The cards each seat holds at a step (null: a hand this view does not show).
function handsAt(st) {
  const d = DATA.deals[st.deal];
  const start = st.kind === "deal" || !d.passes.length ? d.hands : d.held;
  const gone = new Set();
  const played = st.kind === "trick" ? st.trick + 1 : (st.kind === "end" ? d.tricks.length : 0);
  for (const t of d.tricks.slice(0, played)) for (const [, c] of t.plays) gone.add(c);
  if (st.kind === "lottery" || st.kind === "end") for (const [, c] of d.lottery) gone.add(c);
  return start.map((h, s) => {
    if (h !== null) return h.filter((c) => !gone.has(c));
    let left = d.hand_sizes[s];
    for (const t of d.tricks.slice(0, played)) for (const [p] of t.plays) if (p === s) left--;
    if (st.kind === "lottery" || st.kind === "end")
      for (const [p] of d.lottery) if (p === s) left--;
    return new Array(Math.max(left, 0)).fill("");
  });
}

function buildTable() {
  const table = $("table");
  for (let s = 0; s < N; s++) {
    const box = el("div", { class: "seat pos-" + POS[s] + (DATA.seat === s ? " view" : ""),
                            id: "seat-" + s, "data-seat": s });
    box.append(el("h3", {}, seatName(s)), el("div", { class: "hand", id: "hand-" + s }),
               el("div", { class: "taken", id: "taken-" + s }));
    table.append(box);
  }
  const centre = el("div", { id: "centre" });
  centre.append(el("div", { id: "trick-cards" }), el("div", { id: "trick-info" }));
  table.append(centre);
  const head = $("scores").tHead.insertRow();
  head.append(el("th", {}, "deal"));
  for (let s = 0; s < N; s++) head.append(el("th", {}, "seat " + s));
  DATA.players.forEach((p, s) => $("players").append(el("li", { "data-seat": s }, p)));
  $("title").textContent = DATA.title + (DATA.seat === null ? "" : ", seen from seat " + DATA.seat);
  $("rules").textContent = DATA.rules;
  $("slider").max = STEPS.length - 1;
}

function show(i) {
  i = Math.max(0, Math.min(STEPS.length - 1, i));
  const st = STEPS[i], d = DATA.deals[st.deal];
  const step = $("step");
  step.dataset.step = i; step.dataset.kind = st.kind; step.dataset.deal = d.deal;
  step.dataset.trick = st.kind === "trick" ? st.trick : "";
  let what = { deal: "dealt", pass: "passes", lottery: "lottery", end: "end of the deal" }[st.kind];
  if (st.kind === "trick") what = "trick " + (st.trick + 1) + " of " + d.tricks.length;
  step.textContent = "step " + (i + 1) + " of " + STEPS.length + ": deal " + d.deal + ", " + what;
  $("slider").value = i;

  let info = "deal " + d.deal;
  if (d.kind !== null) info += ": " + d.kind.replace(/_/g, " ") + ", dealer seat " + d.dealer;
  else info += ": pass " + d.pass_direction;
  if (d.trump !== null) {
    info += "; trump " + (d.trump === "none" ? "none" : SUIT[d.trump]) +
      " named by " + seatName(d.trump_chooser);
    if (d.trump_seen) info += ", who saw " + d.trump_seen.map(cardText).join(" ");
  }
  const di = $("deal-info");
  di.textContent = info;
  di.dataset.deal = d.deal; di.dataset.kind = d.kind || ""; di.dataset.trump = d.trump || "";
  di.dataset.chooser = d.trump_chooser; di.dataset.passDirection = d.pass_direction || "";

  handsAt(st).forEach((h, s) =>
    $("hand-" + s).replaceChildren(...[...h].sort(bySuit).map((c) => card(c))));
  const played = st.kind === "trick" ? st.trick + 1 : (st.kind === "end" ? d.tricks.length : 0);
  const taken = new Array(N).fill(0), tricksWon = new Array(N).fill(0);
  let broken = false;
  for (const t of d.tricks.slice(0, played)) {
    taken[t.winner] += t.points; tricksWon[t.winner]++;
    if (t.plays.some(([, c]) => c[1] === "H")) broken = true;
  }
  for (let s = 0; s < N; s++)
    $("taken-" + s).textContent = tricksWon[s] + " tricks, " + taken[s] + " points";

  const tc = $("trick-cards"), ti = $("trick-info");
  tc.replaceChildren(); ti.textContent = "";
  for (const k of ["leader", "winner", "points"]) delete ti.dataset[k];
  if (st.kind === "trick") {
    const t = d.tricks[st.trick];
    for (const [s, c] of t.plays) {
      const e = card(c, { "data-seat": s, title: seatName(s) });
      if (s === t.winner) e.classList.add("win");
      tc.append(e);
    }
    ti.dataset.leader = t.leader; ti.dataset.winner = t.winner; ti.dataset.points = t.points;
    ti.textContent =
      "seat " + t.leader + " led; seat " + t.winner + " won, " + t.points + " points";
  }

  const passes = $("passes");
  passes.replaceChildren();
  if (st.kind === "pass" || (d.passes.length && st.kind !== "deal")) {
    passes.append(el("span", {}, "passes (" + d.pass_direction + "): "));
    d.passes.forEach((p) => {
      if (p === null) return;
      const row = el("span", { class: "pass", "data-seat": p.seat, "data-to": p.to },
                     " seat " + p.seat + " \u2192 seat " + p.to + ": ");
      p.cards.forEach((c) => row.append(card(c)));
      passes.append(row);
    });
  }

  const lot = $("lottery");
  lot.replaceChildren();
  if (d.lottery.length && (st.kind === "lottery" || st.kind === "end")) {
    lot.append(el("span", {}, "lottery plays in order: "));
    for (const [s, c] of d.lottery) lot.append(card(c, { "data-seat": s, title: seatName(s) }));
    d.lottery_place.forEach((p, s) => {
      if (p) lot.append(el("span", { class: "place", "data-seat": s, "data-place": p },
                           " seat " + s + " out " + (p === 1 ? "first" : "second") + ";"));
    });
  }

  const sum = $("deal-summary");
  sum.replaceChildren();
  if (st.kind === "end") {
    sum.append(el("span", {}, "deal " + d.deal + " over:"));
    for (let s = 0; s < N; s++)
      sum.append(el("span", { class: "deal-points", "data-seat": s, "data-points": d.points[s],
                               "data-deal-score": d.deal_score[s] },
                    " seat " + s + " " + d.points[s] + " points, deal score " + d.deal_score[s] +
                    (s < N - 1 ? ";" : "")));
  }

  const moon = $("moon");
  moon.textContent = ""; moon.dataset.shooter = "";
  if (st.kind === "end") {
    const s = d.moon.indexOf(true);
    if (s >= 0) {
      moon.dataset.shooter = s;
      moon.textContent = "\u263E " + seatName(s) + " shot the moon" +
        (d.moon_choice[s] ? " (" + d.moon_choice[s] + ")" : "");
    }
  }
  const hb = $("hearts-broken");
  hb.dataset.broken = broken;
  hb.textContent = st.kind === "trick" || st.kind === "end"
    ? (broken ? "hearts broken" : "hearts not broken") : "";

  const body = $("scores").tBodies[0];
  body.replaceChildren();
  for (let k = 0; k <= i; k++) {
    if (STEPS[k].kind !== "end") continue;
    const e = DATA.deals[STEPS[k].deal];
    const row = body.insertRow();
    row.dataset.deal = e.deal;
    row.append(el("th", {}, String(e.deal)));
    e.score.forEach((x, s) => row.append(el("td", {
      "data-seat": s, "data-deal-score": e.deal_score[s], "data-points": e.points[s],
      title: "deal " + e.deal_score[s] + ", points " + e.points[s] }, String(x))));
  }
  $("prev").disabled = i === 0;
  $("next").disabled = i === STEPS.length - 1;
}

buildTable();
let current = 0;
const go = (i) => { current = Math.max(0, Math.min(STEPS.length - 1, i)); show(current); };
$("prev").addEventListener("click", () => go(current - 1));
$("next").addEventListener("click", () => go(current + 1));
$("slider").addEventListener("input", (e) => go(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.target === $("slider")) return;  // the slider moves itself with the arrow keys
  if (e.key === "ArrowRight") { go(current + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { go(current - 1); e.preventDefault(); }
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(STEPS.length - 1);
});
go(0);
"""
