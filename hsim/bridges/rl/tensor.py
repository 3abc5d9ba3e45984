"""What a learning agent sees and may do: the observation tensor and the action mask.

One observation is ``float32[OBS_LEN]`` for one seat, written by the compiled
:func:`encode` from the engine's ``public`` array and that seat's ``private`` row only,
so another seat's hand cannot reach it (docs/rl.md has the table below, checked by a
test). Seats are *relative*: slot 0 is the observing seat, 1 the seat on its left (the
next to play after it), 2 the next, 3 the seat on its right; with three players slot 3
stays 0.

Actions are ``0..N_ACTIONS-1``: a card ``0..51`` (to play, or to add to a pass: a pass is
three card actions in a row by the same seat); ``52 + c`` a New Moon choice ``c`` (0 the
rule's default, 1 add 26 to the others, 2 subtract 26 from oneself, docs/rules.md A2.3);
``55 + t`` a Kierki trump choice ``t`` (0..3 clubs, diamonds, spades, hearts; 4 no trump,
docs/rules.md B3). The mask (``int8[N_ACTIONS]``) is 1 exactly for the actions the rules
allow now.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hsim.engine._numba import kernel
from hsim.engine.bits import lowest_card
from hsim.engine.hearts import legal_plays as hearts_legal
from hsim.engine.layout import (
    KIND_NAMES,
    P_HEARTS_BROKEN,
    P_KIND,
    P_LEADER,
    P_MOON_SHOOTER,
    P_N_PLAYS,
    P_N_SEATS,
    P_OUT,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_START_RANK,
    P_TRICK,
    P_TRICK_LEN,
    P_TRICKS_WON,
    P_TRUMP,
    P_TRUMP_CHOOSER,
    P_VOIDS,
    R_ALLOW_NO_TRUMP,
    RULES_LEN,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
    TRUMP_NONE,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
    V_SEAT,
)
from hsim.model.cards import format_card
from hsim.model.rules import COUNT_MAX, RULE_FIELDS, RULE_NAMES
from hsim.play.kierki_game import kierki_legal

N_CARDS = 52
MOON_ACTION = 52  # 52, 53, 54: moon choice 0 (default), 1 (add), 2 (subtract)
TRUMP_ACTION = 55  # 55..59: trump clubs, diamonds, spades, hearts, none
N_ACTIONS = 60

#: Scale of the count features: points are divided by 26 (a Hearts deal's total), scores
#: by 100, tricks by 13.
POINTS_SCALE = 26.0
SCORES_SCALE = 100.0
TRICKS_SCALE = 13.0
N_KINDS = len(KIND_NAMES)


@dataclasses.dataclass(frozen=True)
class Field:
    """One named slice of the observation: ``offset`` .. ``offset + size``.

    name: as docs/rl.md names it. meaning: one line (what 1 means, the scale).
    """

    name: str
    offset: int
    size: int
    meaning: str

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


_SPEC = (
    ("hand", 52, "1 for each card held now"),
    ("played", 4 * 52, "per relative seat, 1 for each card it played this deal"),
    ("trick", 4 * 52, "per relative seat, 1 for the card it played to the current trick"),
    ("leader", 4, "1 at the relative seat that led (or leads) the current trick"),
    ("points", 4, "per relative seat, points taken this deal / 26 (Kierki: signed)"),
    ("tricks", 4, "per relative seat, tricks won this deal / 13"),
    ("voids", 16, "per relative seat (4 each), 1 for each suit C, D, S, H it showed void in"),
    ("passed", 52, "1 for each card this seat passed this deal"),
    ("received", 52, "1 for each card this seat received this deal"),
    ("picked", 52, "1 for each card already chosen for the pass being made"),
    ("scores", 4, "per relative seat, game score before this deal / 100"),
    ("pass_direction", 4, "1 at left, right, across or hold (Hearts)"),
    ("decision", 4, "1 at pass, play, moon or trump: the decision asked now (0s: none)"),
    ("hearts_broken", 1, "1 once hearts are broken"),
    ("trick_number", 1, "index of the current trick / 13"),
    ("kind", N_KINDS, "Kierki: 1 at the deal kind (docs/rules.md B1)"),
    ("trump", 4, "Kierki: 1 at the trump suit C, D, S, H of a trump deal"),
    ("trump_chooser", 4, "Kierki: 1 at the relative seat that names trump"),
    ("lottery_rank", 13, "Kierki lottery: 1 at the rank of the first card (2..A)"),
    ("lottery_out", 4, "Kierki lottery: per relative seat, place when out (1 or 2) / 2"),
    ("moon_shooter", 4, "1 at the relative seat asked its New Moon choice"),
    ("three_players", 1, "1 with three seats (Kierki 3)"),
    ("rules", RULES_LEN, "the rules vector, each option scaled to about 0..1 (0s: unused)"),
)


def _fields() -> tuple[Field, ...]:
    out, offset = [], 0
    for name, size, meaning in _SPEC:
        out.append(Field(name, offset, size, meaning))
        offset += size
    return tuple(out)


#: The observation's layout, in order.
FIELDS: tuple[Field, ...] = _fields()
FIELD = {f.name: f for f in FIELDS}
OBS_LEN = FIELDS[-1].offset + FIELDS[-1].size

O_HAND = FIELD["hand"].offset
O_PLAYED = FIELD["played"].offset
O_TRICK = FIELD["trick"].offset
O_LEADER = FIELD["leader"].offset
O_POINTS = FIELD["points"].offset
O_TRICKS = FIELD["tricks"].offset
O_VOIDS = FIELD["voids"].offset
O_PASSED = FIELD["passed"].offset
O_RECEIVED = FIELD["received"].offset
O_PICKED = FIELD["picked"].offset
O_SCORES = FIELD["scores"].offset
O_PASS_DIR = FIELD["pass_direction"].offset
O_DECISION = FIELD["decision"].offset
O_BROKEN = FIELD["hearts_broken"].offset
O_TRICK_NUMBER = FIELD["trick_number"].offset
O_KIND = FIELD["kind"].offset
O_TRUMP = FIELD["trump"].offset
O_CHOOSER = FIELD["trump_chooser"].offset
O_LOTTERY_RANK = FIELD["lottery_rank"].offset
O_LOTTERY_OUT = FIELD["lottery_out"].offset
O_SHOOTER = FIELD["moon_shooter"].offset
O_THREE = FIELD["three_players"].offset
O_RULES = FIELD["rules"].offset


def rules_scale() -> np.ndarray:
    """Return float32[RULES_LEN]: what each rules-vector entry is multiplied by in
    the observation. A switch stays 0/1, an enumerated option's code ``k`` of ``m``
    values becomes ``k / (m - 1)``, a number option (``players``, ``omnibus_value``,
    ``queen_points``) its value over its largest, a count (``end_score``, ``max_deals``, ...) is
    divided by 100; the slots past the last option are 0 (the field keeps its size as
    options are added)."""
    out = np.zeros(RULES_LEN, np.float32)
    out[: len(RULE_NAMES)] = 1
    for i, name in enumerate(RULE_NAMES):
        choices = RULE_FIELDS[name].metadata["choices"]
        if choices is None or name in COUNT_MAX:
            out[i] = 1 / 100
        elif all(isinstance(c, int) and not isinstance(c, bool) for c in choices):
            out[i] = 1 / max(choices)  # numbers (players, omnibus_value, queen_points): v / max
        elif len(choices) > 2:
            out[i] = 1 / (len(choices) - 1)
    return out


def decision_of(status: int) -> int:
    """Return the index 0..3 (pass, play, moon, trump) of an ``ST_NEED_*`` status, -1 else."""
    return {ST_NEED_PASS: 0, ST_NEED_PLAY: 1, ST_NEED_MOON: 2, ST_NEED_TRUMP: 3}.get(status, -1)


@kernel
def _cards(out, offset, mask) -> None:
    while mask:
        c = lowest_card(mask)
        out[offset + c] = 1.0
        mask &= mask - 1


@kernel
def encode(public, private, status, picked, scale, out) -> None:
    """Write the observation of the seat ``private[V_SEAT]`` into ``out`` (float32[OBS_LEN]).

    public: the engine's public array; private: that seat's row only. status: the
    ``ST_NEED_*`` decision this seat is asked now, or any other value when it is asked
    none. picked: 52-bit mask of the cards it chose so far for its pass (0 when not
    passing). scale: :func:`rules_scale`. Layout: :data:`FIELDS`.
    """
    for k in range(out.shape[0]):
        out[k] = 0.0
    me = private[V_SEAT]
    n = public[P_N_SEATS]
    _cards(out, O_HAND, private[V_HAND])
    plays = public[P_N_PLAYS]
    in_trick = public[P_TRICK_LEN]
    for i in range(plays):
        r = (public[P_PLAY_SEAT + i] - me) % n
        c = public[P_PLAY_CARD + i]
        out[O_PLAYED + 52 * r + c] = 1.0
        if i >= plays - in_trick:
            out[O_TRICK + 52 * r + c] = 1.0
    if public[P_LEADER] >= 0:
        out[O_LEADER + (public[P_LEADER] - me) % n] = 1.0
    for s in range(n):
        r = (s - me) % n
        out[O_POINTS + r] = public[P_POINTS + s] / POINTS_SCALE
        out[O_TRICKS + r] = public[P_TRICKS_WON + s] / TRICKS_SCALE
        out[O_SCORES + r] = public[P_SCORES + s] / SCORES_SCALE
        voids = public[P_VOIDS + s]
        for suit in range(4):
            if (voids >> suit) & 1:
                out[O_VOIDS + 4 * r + suit] = 1.0
        if public[P_KIND] >= 0:
            out[O_LOTTERY_OUT + r] = public[P_OUT + s] / 2.0
    _cards(out, O_PASSED, private[V_PASSED])
    _cards(out, O_RECEIVED, private[V_RECEIVED])
    _cards(out, O_PICKED, picked)
    if public[P_PASS_DIR] >= 0:
        out[O_PASS_DIR + public[P_PASS_DIR]] = 1.0
    if status == ST_NEED_PASS:
        out[O_DECISION] = 1.0
    elif status == ST_NEED_PLAY:
        out[O_DECISION + 1] = 1.0
    elif status == ST_NEED_MOON:
        out[O_DECISION + 2] = 1.0
    elif status == ST_NEED_TRUMP:
        out[O_DECISION + 3] = 1.0
    out[O_BROKEN] = 1.0 if public[P_HEARTS_BROKEN] else 0.0
    out[O_TRICK_NUMBER] = public[P_TRICK] / TRICKS_SCALE
    if public[P_KIND] >= 0:
        out[O_KIND + public[P_KIND]] = 1.0
    if public[P_TRUMP] >= 0:
        out[O_TRUMP + public[P_TRUMP]] = 1.0
    if public[P_TRUMP_CHOOSER] >= 0:
        out[O_CHOOSER + (public[P_TRUMP_CHOOSER] - me) % n] = 1.0
    if public[P_START_RANK] >= 0:
        out[O_LOTTERY_RANK + public[P_START_RANK]] = 1.0
    if public[P_MOON_SHOOTER] >= 0:
        out[O_SHOOTER + (public[P_MOON_SHOOTER] - me) % n] = 1.0
    out[O_THREE] = 1.0 if n == 3 else 0.0
    for r in range(scale.shape[0]):
        out[O_RULES + r] = public[P_RULES + r] * scale[r]


@kernel
def legal_actions(public, private, rules, status, picked, kierki) -> int:
    """Return the card actions allowed now as a 52-bit mask (0 for a moon or trump choice).

    private: the deciding seat's row. status: its ``ST_NEED_*`` decision. picked: the
    cards it chose so far for its pass. kierki: 1 under Kierki rules.
    """
    hand = private[V_HAND]
    if status == ST_NEED_PASS:
        return hand & ~picked
    if status == ST_NEED_PLAY:
        if kierki:
            return kierki_legal(public, rules, hand)
        return hearts_legal(public, rules, hand)
    return 0


@kernel
def write_mask(public, private, rules, status, picked, kierki, out) -> None:
    """Write the action mask of a seat asked ``status`` into ``out`` (int8[N_ACTIONS]).

    Arguments as :func:`legal_actions`; a seat asked nothing gets all zeros.
    """
    for k in range(out.shape[0]):
        out[k] = 0
    cards = legal_actions(public, private, rules, status, picked, kierki)
    while cards:
        out[lowest_card(cards)] = 1
        cards &= cards - 1
    if status == ST_NEED_MOON:
        for k in range(3):
            out[MOON_ACTION + k] = 1
    elif status == ST_NEED_TRUMP:
        top = TRUMP_NONE if rules[R_ALLOW_NO_TRUMP] else TRUMP_NONE - 1
        for k in range(top + 1):
            out[TRUMP_ACTION + k] = 1


@kernel
def allowed(public, private, rules, status, picked, kierki, action) -> bool:
    """Return whether ``action`` (0..N_ACTIONS-1) is allowed now (as :func:`write_mask`)."""
    if action < 0 or action >= N_ACTIONS:
        return False
    if action < N_CARDS:
        cards = legal_actions(public, private, rules, status, picked, kierki)
        return (cards >> action) & 1 == 1
    if action < TRUMP_ACTION:
        return status == ST_NEED_MOON
    if status != ST_NEED_TRUMP:
        return False
    top = TRUMP_NONE if rules[R_ALLOW_NO_TRUMP] else TRUMP_NONE - 1
    return action - TRUMP_ACTION <= top


def action_name(action: int) -> str:
    """Return an action as text: ``QS``, ``moon:add``, ``trump:H``.

    >>> action_name(36), action_name(53), action_name(59)
    ('QS', 'moon:add', 'trump:none')
    """
    if 0 <= action < N_CARDS:
        return format_card(action)
    if MOON_ACTION <= action < TRUMP_ACTION:
        return "moon:" + ("default", "add", "subtract")[action - MOON_ACTION]
    if TRUMP_ACTION <= action < N_ACTIONS:
        return "trump:" + ("C", "D", "S", "H", "none")[action - TRUMP_ACTION]
    return f"action {action}"
