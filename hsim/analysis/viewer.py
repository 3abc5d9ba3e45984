"""The game viewer: one self-contained HTML page of a replayed game (``hsim view``).

:func:`game_data` turns the deal records of :mod:`hsim.analysis.replay` into plain JSON
data; :func:`render_page` embeds that data in one HTML file with inline CSS and
JavaScript (no network, no library) that steps through the game card by card: the hands
as dealt, the passes, every card of every trick, the end of each deal with its scores.

The page's steps, in order, for each deal: ``deal`` (the hands as dealt), ``pass`` (Hearts,
unless a hold deal: who gave which cards to whom, the hands after the pass), one ``play``
step per card played to a trick (the trick's cards so far), one ``lottery`` step per card
of a Kierki lottery deal, ``end`` (points, moon, deal and game scores). Keys: ←/→ one
step, ↑/↓ one whole trick (to the previous/next complete trick, or the deal's next step
that is not a card), PageUp/PageDown one whole deal (to the start of the previous/next
deal), Home/End; the same moves as buttons, and a slider.

Elements tests and users can read: ``#rules``, ``#players``, ``#step`` (``data-step``,
``data-kind``, ``data-deal``, ``data-trick``, ``data-played``: how many cards of the trick,
or of the lottery, are shown), ``#slider``, ``#prev``, ``#next``, ``#prev-trick``,
``#next-trick``, ``#prev-deal``, ``#next-deal``, ``#deal-info``, ``#hand-S`` holding
``.card`` elements with ``data-card="QS"`` (a face-down card has ``data-card=""``),
``#taken-S``, ``#trick-cards`` (``.card`` with ``data-seat``), ``#trick-info``
(``data-leader`` once a card is led; ``data-winner`` and ``data-points`` only once the trick
is complete), ``#passes``, ``#lottery`` (the lottery's cards so far; at its last card,
``.place`` with ``data-seat``, ``data-place``), ``#deal-summary`` (at a deal's end:
``.deal-points`` with ``data-seat``, ``data-points``, ``data-deal-score``), ``#moon``,
``#hearts-broken`` (Hearts only, ``data-broken`` after the card shown, by the rules),
``#scores`` (a ``tr[data-deal]`` per finished deal with ``td[data-seat]`` game scores).

With an analysis (see :func:`game_data`): ``#analysis-summary`` (the analyser,
``.blunders`` with ``data-seat`` and ``data-count``, empty for a seat not analysed), an
analysed card in the trick has class ``analysed`` (and ``blunder``, with a red ``?``
badge), ``data-loss`` and a title listing each legal card's expected points;
``#analysis`` is the panel of the card just played when it was analysed (``data-deal``,
``data-trick``, ``data-seat``; ``li.value`` per legal card, best first, with ``data-card``,
``data-value`` and classes ``played``, ``best``). Without an analysis neither exists.
"""

from __future__ import annotations

import html
import json
import math

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
from hsim.model.cards import HEARTS, QUEEN_SPADES, format_card, suit_of
from hsim.model.rules import Rules, canonical, parse_rules

#: Bumped when the embedded data's shape changes.
DATA_VERSION = 2

#: The keys of one analysed decision (see :func:`game_data`).
DECISION_KEYS = ("deal", "trick", "seat", "played", "values", "best", "loss", "blunder", "worlds")


def _cards(mask: int) -> list[str]:
    return [format_card(c) for c in range(52) if mask >> c & 1]


def hearts_broken(tricks, rules: Rules) -> list[list[bool]]:
    """Return, per trick of a Hearts deal, whether hearts are broken after each card
    played (docs/rules.md A1.6, as the engine's ``breaks_hearts``): a heart breaks them, and
    QS with ``queen_breaks_hearts``; with ``first_trick_breaks_hearts=false`` nothing played
    to the deal's first trick does.

    tricks: the deal's :class:`~hsim.analysis.replay.Trick` list. Returns one list of
    bools per trick, one per play.
    """
    broken, out = False, []
    for k, t in enumerate(tricks):
        after = []
        for _, c in t.plays:
            if k > 0 or rules.first_trick_breaks_hearts:
                broken = (
                    broken
                    or suit_of(c) == HEARTS
                    or (c == QUEEN_SPADES and rules.queen_breaks_hearts)
                )
            after.append(broken)
        out.append(after)
    return out


def _deal_data(r, seat: int | None, rules: Rules) -> dict:
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
    broken = None if rules.is_kierki else hearts_broken(r.tricks, rules)
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
                "broken": None if broken is None else broken[k],
            }
            for k, t in enumerate(r.tricks)
        ],
        "lottery": [[s, format_card(c)] for s, c in r.lottery],
        "lottery_place": [int(x) for x in r.rows[:, D_LOTTERY_PLACE]],
        "points": [int(x) for x in r.rows[:, D_POINTS]],
        "moon": [bool(x) for x in r.rows[:, D_MOON]],
        "moon_choice": [MOON_CHOICES[int(x)] for x in r.rows[:, D_MOON_CHOICE]],
        "deal_score": [int(x) for x in r.rows[:, D_DEAL_SCORE]],
        "score": [int(x) for x in r.rows[:, D_SCORE]],
    }


def game_data(
    records,
    *,
    rules: str | Rules,
    players: list[str],
    title: str,
    seat=None,
    analysis=None,
    analyser: str | None = None,
) -> dict:
    """Return the viewer's data for a game's deal records (``replay_game`` and the like).

    rules: the rules (a :class:`~hsim.model.rules.Rules` or a rules string; the page shows
    the canonical string); players: the strategy spec in each seat (4, or 3 in
    3-player Kierki); title: what is shown (e.g. ``game 3 of run seed 7``); seat: show the
    game from this seat (the other seats' hands, passes and the trump chooser's preview
    become null, and only this seat's analysed decisions are kept) or None for every hand
    open. analysis: None, or a list of analysed decisions, each ``{"deal", "trick" (0-based
    trick of that deal), "seat", "played" ("QS"), "values" ({card: expected penalty points
    of the deal for the seat}, one per legal card, lower is better), "best", "loss"
    (played's value minus best's), "blunder" (bool), "worlds" (int)}``, cards played to
    tricks only (a Kierki lottery's are not annotated); analyser: what made them (e.g.
    ``pimc(worlds=200)``).

    Cards are names such as ``QS``. Returns ``{"version", "title", "rules", "players",
    "seats", "kierki", "seat", "analyser", "analysis", "deals": [...]}`` (``analysis``: the
    decisions in play order, each ``values`` ordered best first, or null), one dict per deal
    with: ``deal`` (index), ``kind`` (Kierki deal kind, else null), ``pass_direction``
    (Hearts: ``left`` .. ``hold``, else null), ``dealer`` (Kierki, else -1),
    ``hand_sizes``, ``hands`` (the cards dealt, per seat, in dealing order), ``passes``
    (Hearts unless hold: ``{"seat", "to", "cards"}`` per passer), ``held`` (the hands after
    the pass; empty without one), ``trump`` (``C`` .. ``H`` or ``none``; null without a
    trump choice), ``trump_chooser`` (-1 if none), ``trump_seen`` (the cards the chooser
    saw), ``tricks`` (``{"leader", "plays": [[seat, card], ...], "winner", "points",
    "broken"}``, ``broken``: Hearts, whether hearts are broken after each play, see
    :func:`hearts_broken`; null in Kierki), ``lottery`` ([seat, card] in order, a lottery
    deal), and per seat ``lottery_place`` (1, 2 or 0), ``points``, ``moon`` (bool),
    ``moon_choice`` (``add``, ``subtract`` or null), ``deal_score`` and ``score`` (the game
    score after the deal).

    :raises ValueError: ``seat`` is not a seat of this game; the rules string is not valid;
        a decision of ``analysis`` is malformed or is not a card played in this game.
    """
    seats = len(players)
    if seat is not None and not 0 <= seat < seats:
        raise ValueError(f"--seat must be a seat of this game, 0..{seats - 1}, not {seat}")
    if isinstance(rules, str):
        rules_text, rules = rules, parse_rules(rules)
    else:
        rules_text = canonical(rules)
    decisions = None if analysis is None else _decisions(analysis, records)
    if decisions is not None and seat is not None:
        decisions = [x for x in decisions if x["seat"] == seat]  # others' cards stay hidden
    return {
        "version": DATA_VERSION,
        "title": title,
        "rules": rules_text,
        "players": list(players),
        "seats": seats,
        "kierki": any(r.kind is not None for r in records),
        "seat": seat,
        "analyser": None if analysis is None else analyser,
        "analysis": decisions,
        "deals": [_deal_data(r, seat, rules) for r in records],
    }


def _decisions(analysis, records) -> list[dict]:
    """Return the analysed decisions checked against the game, in play order, each one's
    ``values`` ordered best first (ties: the best card, then the deck's order).

    :raises ValueError: a decision is not a dict of :data:`DECISION_KEYS`, or names a
        deal, trick or seat of no play, or a card other than the one played there, or its
        values are not finite numbers naming the played and the best card.
    """
    deals = {r.deal: r for r in records}
    order = {format_card(c): c for c in range(52)}
    seen, out = set(), []
    for i, x in enumerate(analysis):
        where = f"analysis decision {i}"
        if not isinstance(x, dict) or set(DECISION_KEYS) - set(x):
            missing = sorted(set(DECISION_KEYS) - set(x)) if isinstance(x, dict) else "all"
            raise ValueError(f"{where}: not a decision (missing keys: {missing})")
        deal, trick, seat = x["deal"], x["trick"], x["seat"]
        where += f" (deal {deal}, trick {trick}, seat {seat})"
        r = deals.get(deal) if isinstance(deal, int) else None
        if r is None or not isinstance(trick, int) or not 0 <= trick < len(r.tricks):
            raise ValueError(f"{where}: no such trick in this game")
        played = {s: format_card(c) for s, c in r.tricks[trick].plays}
        if seat not in played or played[seat] != x["played"]:
            raise ValueError(
                f"{where}: the game has {played.get(seat, 'no card')} there, not {x['played']}"
            )
        if (deal, trick, seat) in seen:
            raise ValueError(f"{where}: analysed twice")
        seen.add((deal, trick, seat))
        values = x["values"]
        if (
            not isinstance(values, dict)
            or not {x["played"], x["best"]} <= set(values)
            or set(values) - set(order)
            or not all(_finite(v) for v in (*values.values(), x["loss"]))
        ):
            raise ValueError(
                f"{where}: values must be finite numbers per card, the played and the best"
                " card among them"
            )
        best = x["best"]
        ranked = sorted(values, key=lambda c: (values[c], c != best, order[c]))
        step = [s for s, _ in r.tricks[trick].plays].index(seat)
        out.append(
            (deal, trick, step, {**x, "values": {c: float(values[c]) for c in ranked},
                                 "loss": float(x["loss"]), "blunder": bool(x["blunder"])})
        )  # fmt: skip
    return [d for *_, d in sorted(out, key=lambda t: t[:3])]


def _finite(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def embed_json(data: dict) -> str:
    """Return ``data`` as JSON safe inside a ``<script>`` element (no ``</script>``, no
    ``<!--``: ``<``, ``>`` and ``&`` are written as ``\\u`` escapes)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_page(records, **options) -> str:
    """Return the whole HTML page of a game; ``options`` are :func:`game_data`'s (rules,
    players, title, seat, analysis, analyser).

    :raises ValueError: as :func:`game_data`.
    """
    data = game_data(records, **options)
    return _PAGE.format(
        title=html.escape(f"hsim: {data['title']}"),
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
  <div id="analysis-summary" hidden></div>
</header>
<nav>
  <button id="prev-deal" type="button"
    title="start of the previous deal (Page Up)">&#x21E4; Deal</button>
  <button id="prev-trick" type="button"
    title="previous whole trick (up arrow)">&#x21A5; Trick</button>
  <button id="prev" type="button" title="previous card (left arrow)">&larr; Prev</button>
  <input id="slider" type="range" min="0" value="0" aria-label="step">
  <button id="next" type="button" title="next card (right arrow)">Next &rarr;</button>
  <button id="next-trick" type="button"
    title="next whole trick (down arrow)">Trick &#x21A7;</button>
  <button id="next-deal" type="button"
    title="start of the next deal (Page Down)">Deal &#x21E5;</button>
  <span id="step"></span>
</nav>
<div id="keys">keys: &larr;/&rarr; one card, &uarr;/&darr; one trick,
  Page Up/Page Down one deal, Home/End</div>
<div id="deal-info"></div>
<main id="table"></main>
<section id="events">
  <div id="passes"></div>
  <div id="lottery"></div>
  <div id="deal-summary"></div>
  <div id="moon"></div>
  <div id="hearts-broken"></div>
  <div id="analysis" hidden></div>
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
.card.analysed { position: relative; box-shadow: 0 0 0 2px #7fb2ff; }
.card.blunder { box-shadow: 0 0 0 2px #d62828; }
.card .badge { position: absolute; top: -.7em; right: -.6em; background: #d62828; color: #fff;
  border-radius: 50%; width: 1.2em; height: 1.2em; line-height: 1.2em; font-size: .8em; }
#keys { font-size: .8em; color: #555; }
#analysis { background: #fff; border: 1px solid #bbb; border-radius: .4em; padding: .4em .8em;
  max-width: 40em; }
#analysis ol { margin: .3em 0; padding-left: 1.6em; }
#analysis li.best { font-weight: 700; color: #1d6b2f; }
#analysis li.played { background: #ffe9a8; }
#analysis li.played.blunder-pick { background: #f8c6c6; }
#analysis-summary .blunders { margin-right: .8em; }
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

// The steps of the game, in order (see hsim/analysis/viewer.py): one per card played.
const STEPS = [];
DATA.deals.forEach((d, i) => {
  STEPS.push({ kind: "deal", deal: i });
  if (d.passes.length) STEPS.push({ kind: "pass", deal: i });
  d.tricks.forEach((t, k) => t.plays.forEach((_, j) =>
    STEPS.push({ kind: "play", deal: i, trick: k, played: j + 1 })));
  d.lottery.forEach((_, j) => STEPS.push({ kind: "lottery", deal: i, played: j + 1 }));
  STEPS.push({ kind: "end", deal: i });
});
// A step that ends a whole trick (or is no card): where the up/down keys stop.
const wholeTrick = (st) => st.kind === "play"
  ? st.played === DATA.deals[st.deal].tricks[st.trick].plays.length
  : st.kind !== "lottery" || st.played === DATA.deals[st.deal].lottery.length;

// The analysed decisions by deal, trick and seat.
const DECISION = new Map();
for (const x of DATA.analysis || []) DECISION.set(x.deal + "/" + x.trick + "/" + x.seat, x);
const decisionOf = (deal, trick, seat) => DECISION.get(deal + "/" + trick + "/" + seat);

// The (seat, card) plays made by a step, in order; the tricks complete at it.
function playedAt(st) {
  const d = DATA.deals[st.deal];
  if (st.kind === "deal" || st.kind === "pass") return [];
  const upTo = st.kind === "play" ? st.trick : d.tricks.length;
  const out = [];
  for (const t of d.tricks.slice(0, upTo)) out.push(...t.plays);
  if (st.kind === "play") out.push(...d.tricks[st.trick].plays.slice(0, st.played));
  else out.push(...d.lottery.slice(0, st.kind === "lottery" ? st.played : d.lottery.length));
  return out;
}
function tricksDone(st) {
  const d = DATA.deals[st.deal];
  if (st.kind === "play") return st.trick + (wholeTrick(st) ? 1 : 0);
  return st.kind === "deal" || st.kind === "pass" ? 0 : d.tricks.length;
}

// The cards each seat holds at a step (a hand this view does not show: face-down cards).
function handsAt(st) {
  const d = DATA.deals[st.deal];
  const start = st.kind === "deal" || !d.passes.length ? d.hands : d.held;
  const plays = playedAt(st);
  const gone = new Set(plays.map(([, c]) => c));
  return start.map((h, s) => {
    if (h !== null) return h.filter((c) => !gone.has(c));
    const left = d.hand_sizes[s] - plays.filter(([p]) => p === s).length;
    return new Array(Math.max(left, 0)).fill("");
  });
}

// Whether hearts are broken after a step (Hearts; null before the first card, or Kierki).
function brokenAt(st) {
  const d = DATA.deals[st.deal];
  if (DATA.kierki || st.kind === "deal" || st.kind === "pass" || !d.tricks.length) return null;
  if (st.kind === "play") return d.tricks[st.trick].broken[st.played - 1];
  const last = d.tricks[d.tricks.length - 1].broken;
  return last[last.length - 1];
}

function valuesText(x) {
  return Object.entries(x.values).map(([c, v]) => cardText(c) + " " + v.toFixed(2) +
    (c === x.best ? " best" : "") + (c === x.played ? " played" : "")).join("\n");
}
function markDecision(e, x) {
  e.classList.add("analysed");
  e.dataset.loss = x.loss;
  if (x.blunder) { e.classList.add("blunder"); e.append(el("span", { class: "badge" }, "?")); }
  e.title += "\nexpected points (" + x.worlds + " worlds):\n" + valuesText(x);
}
function showDecision(x) {
  const box = $("analysis");
  box.replaceChildren();
  box.hidden = !x;
  if (!x) return;
  Object.assign(box.dataset, { deal: x.deal, trick: x.trick, seat: x.seat });
  box.append(el("div", {}, seatName(x.seat) + " played " + cardText(x.played) +
    " in trick " + (x.trick + 1) + ": " + (x.played === x.best ? "the best card"
      : "best " + cardText(x.best) + ", " + x.loss.toFixed(2) + " points lost") +
    (x.blunder ? " \u2014 a blunder" : "") + " (expected points of the deal, " + x.worlds +
    " worlds, lower is better)"));
  const list = el("ol");
  for (const [c, v] of Object.entries(x.values)) {
    const li = el("li", { class: "value", "data-card": c, "data-value": v });
    li.append(card(c), document.createTextNode(" " + v.toFixed(2)));
    if (c === x.best) li.classList.add("best");
    if (c === x.played) li.classList.add("played");
    if (c === x.played && x.blunder) li.classList.add("blunder-pick");
    list.append(li);
  }
  box.append(list);
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
  if (!DATA.analysis) { $("analysis").remove(); $("analysis-summary").remove(); }
  else {
    const sum = $("analysis-summary");
    sum.hidden = false;
    sum.append(el("span", {}, "analysis by " + (DATA.analyser || "an analyser") + " (" +
      DATA.analysis.length + " cards): blunders "));
    for (let s = 0; s < N; s++) {
      const mine = DATA.analysis.filter((x) => x.seat === s);
      const count = mine.filter((x) => x.blunder).length;
      sum.append(el("span", { class: "blunders", "data-seat": s,
                              "data-count": mine.length ? count : "" },
                    "seat " + s + ": " + (mine.length ? count : "not analysed")));
    }
  }
}

function show(i) {
  i = Math.max(0, Math.min(STEPS.length - 1, i));
  const st = STEPS[i], d = DATA.deals[st.deal];
  const step = $("step");
  step.dataset.step = i; step.dataset.kind = st.kind; step.dataset.deal = d.deal;
  step.dataset.trick = st.kind === "play" ? st.trick : "";
  step.dataset.played = st.played || "";
  let what = { deal: "dealt", pass: "passes", end: "end of the deal" }[st.kind];
  if (st.kind === "play")
    what = "trick " + (st.trick + 1) + " of " + d.tricks.length + ", card " + st.played;
  if (st.kind === "lottery") what = "lottery, card " + st.played + " of " + d.lottery.length;
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
  const done = tricksDone(st);
  const taken = new Array(N).fill(0), tricksWon = new Array(N).fill(0);
  for (const t of d.tricks.slice(0, done)) { taken[t.winner] += t.points; tricksWon[t.winner]++; }
  for (let s = 0; s < N; s++)
    $("taken-" + s).textContent = tricksWon[s] + " tricks, " + taken[s] + " points";

  const tc = $("trick-cards"), ti = $("trick-info");
  tc.replaceChildren(); ti.textContent = "";
  for (const k of ["leader", "winner", "points"]) delete ti.dataset[k];
  let decision = null;
  if (st.kind === "play") {
    const t = d.tricks[st.trick], whole = wholeTrick(st);
    t.plays.slice(0, st.played).forEach(([s, c], j) => {
      const e = card(c, { "data-seat": s, title: seatName(s) });
      if (whole && s === t.winner) e.classList.add("win");
      const x = decisionOf(d.deal, st.trick, s);
      if (x) { markDecision(e, x); if (j === st.played - 1) decision = x; }
      tc.append(e);
    });
    ti.dataset.leader = t.leader;
    ti.textContent = "seat " + t.leader + " led";
    if (whole) {
      ti.dataset.winner = t.winner; ti.dataset.points = t.points;
      ti.textContent += "; seat " + t.winner + " won, " + t.points + " points";
    }
  }
  if (DATA.analysis) showDecision(decision);

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
    const shown = st.kind === "lottery" ? st.played : d.lottery.length;
    lot.append(el("span", {}, "lottery plays in order: "));
    for (const [s, c] of d.lottery.slice(0, shown))
      lot.append(card(c, { "data-seat": s, title: seatName(s) }));
    if (shown === d.lottery.length) d.lottery_place.forEach((p, s) => {
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
  const hb = $("hearts-broken"), broken = brokenAt(st);
  if (broken === null) { delete hb.dataset.broken; hb.textContent = ""; }
  else {
    hb.dataset.broken = broken;
    hb.textContent = broken ? "hearts broken" : "hearts not broken";
  }

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
  for (const id of ["prev", "prev-trick", "prev-deal"]) $(id).disabled = i === 0;
  for (const id of ["next", "next-trick", "next-deal"]) $(id).disabled = i === STEPS.length - 1;
}

buildTable();
let current = 0;
const go = (i) => { current = Math.max(0, Math.min(STEPS.length - 1, i)); show(current); };
// The nearest step after (dir 1) or before (dir -1) the current one that passes the test.
function seek(dir, test) {
  for (let i = current + dir; i >= 0 && i < STEPS.length; i += dir) if (test(STEPS[i])) return i;
  return dir > 0 ? STEPS.length - 1 : 0;
}
const MOVES = {
  prev: () => current - 1, next: () => current + 1,
  "prev-trick": () => seek(-1, wholeTrick), "next-trick": () => seek(1, wholeTrick),
  "prev-deal": () => seek(-1, (st) => st.kind === "deal"),
  "next-deal": () => seek(1, (st) => st.kind === "deal"),
};
for (const [id, to] of Object.entries(MOVES)) $(id).addEventListener("click", () => go(to()));
$("slider").addEventListener("input", (e) => go(Number(e.target.value)));
const KEYS = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "prev-trick",
               ArrowDown: "next-trick", PageUp: "prev-deal", PageDown: "next-deal" };
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.target === $("slider")) return;  // the slider moves itself with the arrow keys
  if (KEYS[e.key]) { go(MOVES[KEYS[e.key]]()); e.preventDefault(); }
  else if (e.key === "Home") { go(0); e.preventDefault(); }
  else if (e.key === "End") { go(STEPS.length - 1); e.preventDefault(); }
});
go(0);
"""
