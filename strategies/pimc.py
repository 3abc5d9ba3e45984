"""``pimc``: perfect-information Monte Carlo over ``heuristic`` playouts.

It searches Hearts for 3 or 4 players; with 5 or 6 seats (docs/rules.md A1.1) it plays
``heuristic``'s cards (its pass and moon choice work at any count).

For each decision the seat samples ``worlds`` deals of the hidden cards that agree with
everything it has seen (:func:`sample_hands`): the cards played and by whom, the suits
each seat has shown void in, the cards it passed (the receiver holds them unless it has
played them) and every seat's hand size. Worlds that explain the observation badly are
mostly resampled (up to 30 tries; when none is kept, the likeliest try is used):

- ``play_infer``: a world in which the other seats played ``k`` cards that ``heuristic``
  would not have played in their seat, had the world been true, is kept with
  probability ``play_infer ** k`` (:func:`play_surprises` replays the deal);
- ``pass_infer``: a world in which the seat that passed to this one kept ``k`` cards
  ``heuristic`` would have passed before one it did pass is kept with probability
  ``pass_infer ** k`` (:func:`pass_surprises`; the cards it received itself excuse three);
- ``infer``: a world that gives the QS to a seat that passed up ``k`` chances to shed it
  is kept with probability ``infer ** k`` (:func:`queen_passes`).

In every world each legal card is scored by ``playouts`` playouts. With ``rollout=1``
(the default) every seat of a playout is ``heuristic`` itself (its compiled ``play``,
default parameters), each seeing only its own hand of the world, as in a real game
(:func:`heuristic_playout`); ``heuristic`` draws no random numbers, so one playout per
world is enough unless ``noise`` (the probability of a random legal card) is set. With
``rollout=0`` the playouts use a fast noisy policy that sees every hand (:func:`policy`:
lead low where others can overtake, duck under the winning card, shed high cards on
clean tricks, dump QS, high spades and high hearts when void). Once at most
``exact_cards`` cards are left in the hands the world's remaining tricks are searched
exactly instead (:func:`exact_values`, max^n: every seat picks the card that minimises
its own deal score in that world, ties broken by ``tie``). A card's value is the deciding
seat's deal score summed over the worlds (A2: shooting the moon, bonuses and options
included, scored by the engine's ``score_deal``); the lowest wins, ties going to the
playout policy's own card. Every card's playouts in a world draw the same random numbers
(common random numbers), and cards with no live card between them are scored once.

Measured on the ladder (``hsim ladder --bots heuristic,pimc(...) --boards 150 --seed 1``,
pimc's edge over three ``heuristic`` seats, points per deal, 95% intervals; the
differences are paired over the same boards):

- the old defaults (noisy policy, 5 playouts, noise 0.1, pimc's own pass):
  +0.756 [+0.530, +0.982];
- ``heuristic`` playouts, 1 per world, noise 0: +1.175 [+0.967, +1.384]
  (+0.419 [+0.218, +0.621] over the old);
- and ``heuristic``'s pass (``passing=1``): +1.419 [+1.232, +1.606] (+0.244
  [+0.001, +0.486] over the line above);
- and ``play_infer=0.2``: +2.248 [+2.055, +2.440] (+0.829 [+0.651, +1.007] over the
  line above, +1.492 [+1.243, +1.740] over the old defaults);
- and ``defend=2`` (below): +2.509 [+2.321, +2.697], +0.166 [+0.036, +0.296] over
  ``defend=1``, which scores +2.343 [+2.170, +2.516] on these boards;
- and the searched pass (``passing=2``, below): +2.765 [+2.589, +2.941]
  (+0.256 [+0.038, +0.475] over the line above);
- and the moon plan (``moon_plan=1``, the defaults, below): +3.323 [+3.114, +3.533] on
  the same boards.

The settings compared with "the defaults" from here to the searched pass were measured
with ``heuristic``'s pass, and those before ``defend=2`` against ``defend=1``: add
``passing=1`` (and ``defend=1``) to each ``pimc`` spec to repeat them. Every comparison
in this docstring but ``moon_plan``'s own (below) was measured with ``moon_plan=0``: add
it to each ``pimc`` spec too.

``pass_infer=0.3`` on top of the defaults measured +0.038 [-0.139, +0.215] (paired, same
150 boards): no effect that could be told apart, so it is off by default (1).
``play_infer`` costs about 4x the time of a decision (the replay of the deal in every
try); a try's count stops as soon as neither more surprises nor the draw can change
whether it is kept or whether it is the likeliest so far: every result is the one a full
count gives, and a decision costs 5% to 12% less (``python
scripts/bench_pimc_inference.py``). The earlier tuning with the noisy policy found that
more worlds helped up to about 80 and that an exact search of the last four tricks
played worse than the playouts (the max^n opponents know every card), so the exact
search covers the last two tricks.

``play_infer`` models the other seats as ``heuristic``. Against three ``random`` seats it
measured -0.158 [-0.291, -0.025] points per deal against ``play_infer=1`` (sprt, 88
boards, seed 12). ``model_trust`` stops judging a seat that no world of 8 explains as
``heuristic`` (:func:`excused_seats`); ``model_trust=0.3`` measured +0.015 [-0.103,
+0.132] against ``random`` seats (160 boards, seed 12) and -0.178 [-0.317, -0.039]
against ``heuristic`` seats (136 boards, seed 11), so it is off by default (1).

``model_noise`` models a seat that plays unlike ``heuristic`` as partly random: in the
playouts it plays a random legal card with probability ``model_noise`` times its share of
plays with a choice that ``heuristic`` would not have made (the best of 8 worlds,
:func:`seat_noises`; from its third such play; at most 1). A ``random`` seat's share is
about 0.6, a ``heuristic`` seat's 0 at the median. ``pimc(model_noise=1.5)`` minus the
defaults, paired (``hsim gauntlet --candidates 'pimc,pimc(model_noise=1.5)' --panel
random,heuristic,shooter,duck --boards 100``, points per deal), seed 1 / seed 2: ``random``
+0.135 [+0.024, +0.246] / +0.097 [-0.053, +0.247]; ``duck`` +0.399 [+0.156, +0.642] /
+0.136 [-0.122, +0.394]; ``heuristic`` -0.053 [-0.243, +0.137] / -0.110 [-0.344, +0.124];
``shooter`` -0.071 [-0.275, +0.133] / +0.034 [-0.179, +0.247]; against three
``openspiel:ismcts(simulations=1000)`` (``--rules openspiel``, 30 boards) seed 2 +0.473
[-0.040, +0.986], seed 3 -0.042 [-0.566, +0.482]. A gain against the random-like seats,
none shown against the others: off by default (0).

``shooters`` models the other seats as possible moon shooters: in each world each of
them plays the playouts as ``shooter`` (it goes for the moon when its hand of the world
makes it plausible, else plays as ``heuristic``) with this probability, so the search
sees what a high card shed early costs when a seat shoots. Paired with the defaults
(``hsim gauntlet --candidates 'pimc,pimc(shooters=0.3),pimc(shooters=1)' --panel
shooter,heuristic,random --boards 60 --seed 1``, points per deal; moons conceded in
points of %): ``shooters=0.3`` ``shooter`` +0.078 [-0.140, +0.295], moons -0.2 [-0.9,
+0.5]; ``heuristic`` +0.223 [+0.005, +0.442]; ``random`` -0.137 [-0.302, +0.028]; whole
panel +0.055 [-0.085, +0.194]. ``shooters=1`` ``shooter`` -0.116 [-0.409, +0.176], moons
-0.5 [-1.2, +0.2]; whole panel -0.079 [-0.247, +0.088]. Moons conceded to three
``shooter`` seats: 7.2% of pimc's deals, 6.9% and 6.6% with these. No gain shown: off by
default (0).

``shooter_infer=1`` (with ``play_infer``) judges each other seat of a world by whichever
of ``heuristic`` and ``shooter`` explains more of its plays (:func:`mixed_surprises`): a
seat that leads its masters early, as a shooter does, is then explained by worlds that
give it a moon hand rather than by worlds in which ``heuristic`` would have led those
cards, and in such a world it plays the playouts as ``shooter``. Alone, paired with
``shooter_infer=0,no_feed=0`` (``hsim gauntlet --candidates
'pimc(shooter_infer=0,no_feed=0),pimc(shooter_infer=1,no_feed=0)' --panel
shooter,heuristic,random --boards 100``, points per deal; moons conceded in points of %),
seed 1 / seed 2: ``shooter`` +0.317 [+0.067, +0.567] / +0.217 [-0.020, +0.454], moons
conceded 5.7% to 4.9% / 5.9% to 4.3%; ``heuristic`` +0.204 [+0.005, +0.403] / -0.079
[-0.318, +0.161]; ``random`` +0.010 [-0.131, +0.151] / -0.033 [-0.188, +0.121]; whole
panel +0.177 [+0.060, +0.294] / +0.035 [-0.104, +0.174]. Against three
``openspiel:ismcts(simulations=1000)`` (``--rules openspiel``, 30 boards, seeds 1 and 5),
paired with runs of ``shooter_infer=0`` on the same boards: -0.187 [-0.579, +0.204]. With
``no_feed=1`` (below) it is the default (1).

``max_worlds`` spends more time where it may change the card: once ``worlds`` worlds are
scored, while the two best cards' mean deal scores differ, but by less than ``close``
points, it scores ``worlds // 2`` more, up to ``max_worlds`` worlds in all; a decision then costs
at most about ``max_worlds / worlds`` times an ordinary one (0, the default: off).
``pimc(worlds=40,max_worlds=160)`` against the defaults (80 worlds), three ``heuristic``
seats: +0.049 [-0.060, +0.158] points per deal (240 boards, seed 11), at 1.1-1.4x the
time per decision: no gain shown. ``pimc(max_worlds=240)`` against three
``openspiel:ismcts(simulations=1000)`` (``--rules openspiel``, 30 boards, seeds 1, 5 and
3), paired with runs of the defaults on the same boards: +0.176 [-0.169, +0.520] over the
90 boards, at 1.5-1.8x the CPU per decision; against ``shooter``, ``heuristic`` and
``random`` seats (60 boards, seed 1) +0.060 [-0.090, +0.210]: no gain shown.

Two choices are made before any search (:func:`sure_choices`): the QS is dropped
whenever it loses the trick (a discard, or a spade under an AS or KS already played),
unless the seat winning the trick so far holds every point taken and at least one (it
may be shooting the moon: then the search decides); and on trick 1, once it carries
points, the search picks only among the cards that do not beat the winning card, when
there is one.

Against a moon (``defend=1``): the playouts model every other seat as
``heuristic``, which rarely shoots, so the search alone let ``shooter`` seats through.
When ``heuristic`` sees a seat that may be shooting (its
:func:`~hsim.strategies.heuristic.moon_threat`), only ``heuristic``'s defences are
searched (:func:`moon_stops`): take a trick with points from that seat, lead a heart
nothing beats, feed it no points, discard points to another seat, keep high cards under
it. Measured against three ``shooter`` seats (200 games in each of the four seats, seed 1,
``worlds=40``), against the version before this and ``heuristic``'s old defence: moons
conceded in 6.0% of its deals instead of 7.5%, its score 5.69 [5.53, 5.86]
points per deal instead of 6.18 [6.00, 6.36] (paired over the games: -0.55
[-0.72, -0.39]).

``defend=2`` (the default) keeps those defences only when ``shooter`` explains the
named seat's plays better than ``heuristic`` in one of 8 sampled worlds: outside
opponents hold every point taken often without shooting, and each defence spent on them
costs a trick. Paired with ``defend=1`` (``hsim gauntlet --candidates
'pimc(defend=1),pimc(defend=2)' --panel shooter,heuristic,random --boards 60``, points per
deal), seed 1 / seed 2: whole panel +0.222 [+0.094, +0.349] / +0.166 [+0.047, +0.285],
moons conceded to ``shooter`` seats unchanged; on the ladder (above) +0.166; against three
``openspiel:ismcts(simulations=1000)`` (``--rules openspiel``, 30 boards) +0.305 /
+0.356 (intervals include zero). ``defend=0`` leaves every card to the search: it gains
less on the panel and concedes more moons to ``shooter`` seats (docs/bots.md).

``no_feed=1`` (the default): void in the led suit, the seat discards no point card onto a
trick whose winner so far holds every point taken, :data:`NO_FEED_POINTS` (13) at least
(:func:`no_feed`), whatever ``defend`` decides: a point card given to a seat on its way to
a moon brings the moon closer, and the ``heuristic`` playouts rarely see one. With
``shooter_infer=1`` (the defaults), paired with ``shooter_infer=0,no_feed=0`` (``hsim
gauntlet --candidates 'pimc(shooter_infer=0,no_feed=0),pimc' --panel
shooter,heuristic,random --boards 100 --seed S``), seed 1 / seed 2, points per deal:
``shooter`` +0.301 [+0.043, +0.559] / +0.257 [+0.009, +0.504], moons conceded 5.7% to
4.4% / 5.9% to 4.0%; ``heuristic`` +0.027 [-0.182, +0.237] / -0.070 [-0.320, +0.179];
``random`` -0.062 [-0.198, +0.074] / -0.086 [-0.247, +0.075]; whole panel +0.089 [-0.023,
+0.201] / +0.033 [-0.109, +0.176]. Against three
``openspiel:ismcts(simulations=1000)`` (``--rules openspiel``, 30 boards, seeds 1 and 5,
both bots in one gauntlet): +0.188 [-0.275, +0.651] and +0.264 [-0.365, +0.893], +0.226
[-0.153, +0.605] over the 60 boards. Elsewhere in this docstring, "the defaults" that a
setting is paired with are ``shooter_infer=0,no_feed=0`` with the rest of the defaults.

``moon_plan=1`` (the default) weighs the seat's own moon as a second plan. Its playouts
play it as ``heuristic``, which goes for the moon only from a hand of its own moon shape,
so the search alone seldom sees a moon it could shoot. While a moon is still open to the
seat (it holds every point taken, or none is taken, and under Omnibus the JD can still be
its own: :func:`~hsim.strategies.heuristic.may_still_shoot`) and it holds points or a
hand of ``shooter``'s moon shape (:func:`~hsim.strategies.shooter.moon_hand`), each card is
scored twice in the same worlds: playing on as ``heuristic``, and going for the moon with
``shooter``'s moon cards (:func:`~hsim.strategies.shooter.moon_card`) until another seat
takes a point. The card keeps the lower of its two sums. Paired with ``moon_plan=0``
(points per deal): against three ``openspiel:ismcts(simulations=1000)`` (``--rules
openspiel``, 30 boards), seeds 5, 1 and 3: +0.804 [+0.346, +1.261], +0.162 [-0.506,
+0.831] and +0.449 [-0.259, +1.158], over the 90 boards +0.472 [+0.123, +0.821];
``hsim gauntlet --candidates 'pimc(moon_plan=0),pimc' --panel shooter,heuristic,random
--boards 60 --seed 1``: ``shooter`` +0.239 [+0.041, +0.438], ``heuristic`` +0.543
[+0.299, +0.787], ``random`` -0.059 [-0.115, -0.004] (``random`` seats break some
attempts), whole panel +0.241 [+0.115, +0.367], moons conceded unchanged. It shoots the
moon in 2.3% of its deals against three ``shooter`` seats (0.7% with ``moon_plan=0``),
2.8% against ``heuristic`` (0.6%) and 0.8% to 1.8% against ISMCTS (0.3% to 0.7%). CPU
per decision: about the same against the family panel, 1.07x against ISMCTS (2.8 ms
against 2.6 ms).

The pass (``passing=2``, the default) is searched (:func:`searched_pass`): of the
PASS_POOL cards ``heuristic`` most wants to pass (its own three among them), each set of
three is scored over ``pass_worlds`` sampled deals of the other hands, every seat passing
and playing as ``heuristic`` (:func:`pass_values`), and the lowest mean deal score
passes; ties keep ``heuristic``'s pass. Paired with ``passing=1`` (``hsim gauntlet
--candidates 'pimc(passing=1),pimc' --panel shooter,heuristic,random --boards 60 --seed
1``, points per deal): ``shooter`` +0.732 [+0.377, +1.087], moons conceded 2.3 points of
% fewer; ``heuristic`` +0.311 [-0.020, +0.641]; ``random`` +0.002 [-0.217, +0.222];
whole panel +0.348 [+0.151, +0.546]; CPU per decision, the pass counted as one, 3.1-3.8
ms against 1.9-3.0 ms in the same runs; more in docs/bots.md. ``passing=1`` is
``heuristic``'s pass (moon passes included); ``passing=0`` pimc's own table
(:func:`pass_cards`): QS when it is poorly guarded, AS/KS when the spades are short, high
hearts, then the high cards of short side suits. The New Moon choice ends the game in the
shooter's favour when it can, else keeps the margin to the best opponent largest
(:func:`moon_choice`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hsim.engine.bits import highest_card, lowest_card, nth_card, popcount
from hsim.engine.hearts import (
    HEARTS_MASK,
    HIGH_SPADES,
    QS_BIT,
    QUEEN_SPADES,
    SPADES_MASK,
    SUIT_MASK,
    apply_passes,
    bonus_card,
    costly_mask_at,
    deal_bonus_card,
    deal_deck,
    deal_penalty_points,
    game_end,
    hand_size,
    jack_taker_of,
    legal_plays,
    pass_target,
    penalty_mask,
    penalty_mask_at,
    plain_values_at,
    planes_points,
    play_card,
    reset_deal,
    score_deal,
    seats_of,
    start_play,
    value_planes,
)
from hsim.engine.layout import (
    FIRST_TRICK_POINTS_FORBIDDEN,
    H_PENDING_PASS,
    HIDDEN_LEN,
    MOON_ADD,
    MOON_DEFAULT,
    MOON_SUBTRACT,
    P_DEAL,
    P_HEARTS_BROKEN,
    P_LEADER,
    P_LED_SUIT,
    P_MOON_SHOOTER,
    P_N_PLAYS,
    P_N_SEATS,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    P_TRICKS_WON,
    P_VOIDS,
    PASS_HOLD,
    PRIVATE_LEN,
    PUBLIC_LEN,
    R_FIRST_TRICK_BREAKS_HEARTS,
    R_FIRST_TRICK_POINTS,
    R_NO_DRAW,
    R_OMNIBUS,
    R_QUEEN_BREAKS_HEARTS,
    R_QUEEN_POINTS,
    R_QUEEN_WAITS,
    RULES_LEN,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
    V_SEAT,
)
from hsim.engine.rng import below
from hsim.engine.signatures import MOON_SIG, PASS_SIG, PLAY_SIG
from hsim.strategies import heuristic, shooter
from hsim.strategy.contract import CompiledStrategy, Param

# heuristic's own compiled play, with its default parameters: pimc's playout policy
# (rollout=1) and its choice between cards of equal value.
heuristic_play = heuristic.play
HEURISTIC_PARAMS = np.array(
    [float(p.default) for p in heuristic.STRATEGY.params.values()], np.float64
)

# shooter's compiled play and parameters: the playouts' model of a seat going for the moon
# (``shooters``).
shooter_play = shooter.play
SHOOTER_PARAMS = np.array([float(p.default) for p in shooter.STRATEGY.params.values()], np.float64)

NOISE_SCALE = 1 << 20
SEARCH_SEATS = 4  # the search's state holds 4 seats; with 5 or 6 heuristic plays (A1.1)
PASS_SIGNAL = 8.0  # a pass whose least dangerous card is below this says little

# The compact state of a deal in a sampled world (int64 array of S_LEN), for playouts
# and the exact search: copying it is far cheaper than copying the engine's arrays.
S_HAND = 0  # + seat: the seat's hand
S_POINTS = 4  # + seat: penalty points taken
S_TRICKS = 8  # + seat: tricks won
S_LEADER = 12
S_TLEN = 13  # cards in the current trick
S_LED = 14  # suit led, -1 before the lead
S_BEST = 15  # highest card of the led suit in the trick
S_WIN = 16  # seat that played it
S_TCARDS = 17  # mask of the trick's cards
S_BROKEN = 18
S_TRICK = 19
S_TO_ACT = 20
S_JACK = 21  # seat that took the bonus card (JD, or TD with omnibus_card=TD), -1
S_PLAYED = 22
S_BONUS = 23  # the bonus card's bit (docs/rules.md A2.3)
S_VALUES = 24  # + k: bit plane k of the cards' penalty values (hearts.value_planes)
S_PENALTY = 28  # the cards that carry points (docs/rules.md A1.8)
S_SEATS = 29  # the seats of the deal, 4 or 3 (docs/rules.md A1.1)
S_LEN = 30
BREAK_QUEEN = 1  # break_flags: QS breaks hearts (queen_breaks_hearts)
BREAK_NOT_TRICK_1 = 2  # nothing played to trick 1 breaks them (first_trick_breaks_hearts=false)


# -- sampling the hidden hands --------------------------------------------------------------
@njit(cache=True)
def _hall_ok(suit_left, suit_seats, cap, me):
    """Return whether the unassigned cards (counted per suit) still fit the capacities.

    Hall's condition for the transport of cards to seats: for every set S of the other
    seats, the cards that only seats of S may hold are at most S's free places.
    """
    for sub in range(1, 16):
        if (sub >> me) & 1:
            continue
        room = 0
        for s in range(4):
            if (sub >> s) & 1:
                room += cap[s]
        need = 0
        for u in range(4):
            if suit_seats[u] & ~sub == 0:
                need += suit_left[u]
        if need > room:
            return False
    return True


@njit(cache=True)
def sample_hands(public, private, rng, hands):
    """Deal the cards this seat cannot see to the other seats, consistently with what it saw.

    public: int64[PUBLIC_LEN]; private: int64[PRIVATE_LEN], the deciding seat's row;
    rng: uint64[1]; hands: int64[4], written with every seat's hand (the own hand as it
    is; 0 for seat 3 of a 3-seat deal). Every unseen card goes to exactly one other seat;
    each seat gets its hand size (13, or 17 with 3 seats) minus the cards it has played;
    no seat gets a suit it has shown void in; the cards this seat passed and that are
    unplayed stay with their receiver. Each card goes to a seat with
    probability proportional to its free places, among the seats that keep the rest
    placeable (Hall's condition), so the deal is uniform when no void constrains it.
    Returns True; False only if the observation is inconsistent (the voids are then
    ignored).
    """
    me = private[V_SEAT]
    played = public[P_PLAYED]
    n = seats_of(public)
    everyone = (1 << n) - 1
    cap = np.zeros(4, np.int64)
    for s in range(4):
        cap[s] = hand_size(n) if s < n else 0
        hands[s] = 0
    for i in range(public[P_N_PLAYS]):
        cap[public[P_PLAY_SEAT + i]] -= 1
    hands[me] = private[V_HAND]
    cap[me] = 0
    unknown = deal_deck(public) & ~played & ~private[V_HAND]
    direction = public[P_PASS_DIR]
    if direction != PASS_HOLD and private[V_PASSED] != 0:
        to = pass_target(me, direction, n)
        kept = private[V_PASSED] & ~played
        hands[to] = kept
        cap[to] -= popcount(kept)
        unknown &= ~kept
    suit_seats = np.zeros(4, np.int64)  # bit s: seat s may hold this suit
    suit_left = np.zeros(4, np.int64)
    ok = True
    for u in range(4):
        for s in range(n):
            if s != me and not (public[P_VOIDS + s] >> u) & 1:
                suit_seats[u] |= 1 << s
        suit_left[u] = popcount(unknown & (SUIT_MASK << (13 * u)))
    if not _hall_ok(suit_left, suit_seats, cap, me):
        ok = False
        for u in range(4):
            suit_seats[u] = everyone & ~(1 << me)
    rest = unknown
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        u = c // 13
        suit_left[u] -= 1
        allowed = suit_seats[u]
        while True:
            total = 0
            for s in range(4):
                if (allowed >> s) & 1:
                    total += cap[s]
            if total <= 0:  # cannot happen when Hall's condition held before
                allowed = everyone & ~(1 << me)
                continue
            r = below(rng, total)
            seat = 0
            for s in range(4):
                if (allowed >> s) & 1:
                    if r < cap[s]:
                        seat = s
                        break
                    r -= cap[s]
            cap[seat] -= 1
            if _hall_ok(suit_left, suit_seats, cap, me):
                hands[seat] |= 1 << c
                break
            cap[seat] += 1
            allowed &= ~(1 << seat)
    return ok


# -- the compact deal state -----------------------------------------------------------------
@njit(cache=True)
def init_state(public, hands, st):
    """Write into ``st`` (int64[S_LEN]) the deal state of ``public`` with ``hands``."""
    for s in range(4):
        st[S_HAND + s] = hands[s]
        st[S_POINTS + s] = public[P_POINTS + s]
        st[S_TRICKS + s] = public[P_TRICKS_WON + s]
    st[S_LEADER] = public[P_LEADER]
    tlen = public[P_TRICK_LEN]
    st[S_TLEN] = tlen
    led = public[P_LED_SUIT]
    st[S_LED] = led
    best = -1
    win = -1
    n = public[P_N_PLAYS]
    for i in range(n - tlen, n):
        c = public[P_PLAY_CARD + i]
        if c // 13 == led and c > best:
            best = c
            win = public[P_PLAY_SEAT + i]
    st[S_BEST] = best
    st[S_WIN] = win
    st[S_TCARDS] = public[P_TRICK_CARDS]
    st[S_BROKEN] = public[P_HEARTS_BROKEN]
    st[S_TRICK] = public[P_TRICK]
    st[S_TO_ACT] = public[P_TO_ACT]
    st[S_JACK] = jack_taker_of(public)
    st[S_PLAYED] = public[P_PLAYED]
    st[S_BONUS] = 1 << deal_bonus_card(public)
    value_planes(public[P_RULES : P_RULES + RULES_LEN], st[S_VALUES : S_VALUES + 4])
    st[S_PENALTY] = penalty_mask_at(public, P_RULES)
    st[S_SEATS] = seats_of(public)


@njit(cache=True)
def break_flags(rules):
    """Return what breaks hearts under ``rules`` (A1.6) as the ``breaks`` flags of
    :func:`_step`: BREAK_QUEEN (QS does too), BREAK_NOT_TRICK_1 (nothing in trick 1 does).
    """
    flags = 0
    if rules[R_QUEEN_BREAKS_HEARTS]:
        flags |= BREAK_QUEEN
    if rules[R_FIRST_TRICK_BREAKS_HEARTS] == 0:
        flags |= BREAK_NOT_TRICK_1
    return flags


@njit(cache=True, inline="always")
def _step(st, c, breaks):
    """Play card ``c`` for the seat to act in state ``st``; close the trick when complete.

    breaks: :func:`break_flags` of the rules (what breaks hearts, A1.6).
    """
    s = st[S_TO_ACT]
    bit = 1 << c
    st[S_HAND + s] &= ~bit
    st[S_PLAYED] |= bit
    st[S_TCARDS] |= bit
    suit = c // 13
    if st[S_TLEN] == 0:
        st[S_LED] = suit
        st[S_BEST] = c
        st[S_WIN] = s
    elif suit == st[S_LED] and c > st[S_BEST]:
        st[S_BEST] = c
        st[S_WIN] = s
    broke = suit == 3 or (c == QUEEN_SPADES and breaks & BREAK_QUEEN)
    if broke and (st[S_TRICK] > 0 or not breaks & BREAK_NOT_TRICK_1):
        st[S_BROKEN] = 1
    st[S_TLEN] += 1
    if st[S_TLEN] < st[S_SEATS]:
        st[S_TO_ACT] = s + 1 if s + 1 < st[S_SEATS] else 0  # (s + 1) % seats, no division
        return
    w = st[S_WIN]
    cards = st[S_TCARDS]
    st[S_POINTS + w] += planes_points(
        st[S_VALUES], st[S_VALUES + 1], st[S_VALUES + 2], st[S_VALUES + 3], cards
    )
    st[S_TRICKS + w] += 1
    if cards & st[S_BONUS]:
        st[S_JACK] = w
    st[S_TRICK] += 1
    st[S_TLEN] = 0
    st[S_TCARDS] = 0
    st[S_LED] = -1
    st[S_LEADER] = w
    st[S_TO_ACT] = w


@njit(cache=True, inline="always")
def _legal(st, scratch, rules, hand):
    """Return the legal cards of ``hand`` (the seat to act) by the engine's own kernel."""
    scratch[P_TRICK] = st[S_TRICK]
    scratch[P_HEARTS_BROKEN] = st[S_BROKEN]
    scratch[P_TRICK_LEN] = st[S_TLEN]
    scratch[P_LED_SUIT] = st[S_LED]
    return legal_plays(scratch, rules, hand)


@njit(cache=True, inline="always")
def _score(st, rules, before, ds, ns):
    """Write into ``ds`` the deal scores (A2: moon, bonuses) of the finished deal ``st``."""
    score_deal(
        rules,
        st[S_POINTS : S_POINTS + 4],
        st[S_TRICKS : S_TRICKS + 4],
        st[S_JACK],
        before,
        MOON_DEFAULT,
        ds,
        ns,
    )


@njit(cache=True, inline="always")
def _highest_rank(cards):
    """Return the card of highest rank in non-empty ``cards`` (ties: the higher suit)."""
    best = -1
    for u in range(4):
        part = cards & (SUIT_MASK << (13 * u))
        if part:
            c = highest_card(part)
            if best < 0 or c % 13 >= best % 13:
                best = c
    return best


# -- the playout policy ---------------------------------------------------------------------
@njit(cache=True)
def policy(st, legal, rng, noise):
    """Return a card of ``legal`` for the seat to act in ``st`` by a cheap heuristic.

    With probability ``noise / NOISE_SCALE`` a uniformly random legal card. Otherwise
    (the hands of the sampled world are known to it, as to every seat of a playout):

    - leading: the lowest card of the suit where it is likeliest to be beaten (few
      outstanding cards under it, many over it), never a suit nobody else can follow
      when avoidable, nor the QS or a spade above it while the QS is out; low spades
      are welcome leads while another seat holds the QS;
    - following: last on a trick without points, its highest card but the QS; else the
      highest card under the trick's best card; forced to win, its highest card but the
      QS when the trick is safe (no points, every later seat follows, not hearts, not
      spades with the QS out), else its lowest;
    - void: the QS, then AS/KS while the QS is out, then the highest heart, then the
      highest-ranked card.
    """
    if noise > 0 and below(rng, NOISE_SCALE) < noise:
        return nth_card(legal, below(rng, popcount(legal)))
    seat = st[S_TO_ACT]
    hand = st[S_HAND + seat]
    qs_out = not (st[S_PLAYED] & QS_BIT)
    tlen = st[S_TLEN]
    if tlen == 0:
        others = 0
        for s in range(4):
            if s != seat:
                others |= st[S_HAND + s]
        best = -1
        best_key = 1 << 30
        for u in range(4):
            part = legal & (SUIT_MASK << (13 * u))
            if part == 0:
                continue
            c = lowest_card(part)
            out = others & (SUIT_MASK << (13 * u))
            n_below = popcount(out & ((1 << c) - 1))
            n_above = popcount(out) - n_below
            key = 3 * n_below - n_above
            if n_above == 0:
                key += 60  # nobody can take it over
            if u == 2 and qs_out:
                if c >= QUEEN_SPADES:
                    key += 40  # QS itself, or AS/KS that may catch it
                elif not (hand & QS_BIT):
                    key -= 4  # low spades flush the queen out
            elif u == 3:
                key += 1
            if key < best_key:
                best_key = key
                best = c
        return best
    led = st[S_LED]
    suit = SUIT_MASK << (13 * led)
    follow = legal & suit
    n = st[S_SEATS]
    if follow:
        rest = follow & ~QS_BIT
        clean = not (st[S_TCARDS] & st[S_PENALTY])
        if tlen == n - 1 and rest and clean:
            return highest_card(rest)  # last on a clean trick: shed the highest for free
        under = follow & ((1 << st[S_BEST]) - 1)
        if under:
            return highest_card(under)
        if rest == 0:
            return QUEEN_SPADES
        if tlen == n - 1:
            return highest_card(rest)
        safe = clean and led != 3 and not (led == 2 and qs_out)
        for k in range(1, n - tlen):
            if not (st[S_HAND + (seat + k) % n] & suit):
                safe = False
        if safe:
            return highest_card(rest)
        return lowest_card(rest)
    if legal & QS_BIT:
        return QUEEN_SPADES
    if qs_out and not (hand & QS_BIT) and legal & HIGH_SPADES:
        return highest_card(legal & HIGH_SPADES)
    hearts = legal & HEARTS_MASK
    if hearts:
        return highest_card(hearts)
    return _highest_rank(legal)


@njit(cache=True)
def playout(st, scratch, rules, rng, noise, breaks):
    """Play the deal ``st`` out with :func:`policy` for every seat (changes ``st``)."""
    while st[S_TRICK] < hand_size(st[S_SEATS]):
        hand = st[S_HAND + st[S_TO_ACT]]
        legal = _legal(st, scratch, rules, hand)
        if legal & (legal - 1):
            c = policy(st, legal, rng, noise)
        else:
            c = lowest_card(legal)
        _step(st, c, breaks)


@njit(cache=True)
def world_private(public, private, hands, priv):
    """Write into ``priv`` (int64[4, PRIVATE_LEN]) every seat's private row in a world.

    The deciding seat keeps its own row; another seat gets its sampled hand, its hand
    after the pass as its dealt hand (its pass is unknown) and no pass.
    """
    me = private[V_SEAT]
    for s in range(4):
        for k in range(PRIVATE_LEN):
            priv[s, k] = 0
        priv[s, V_SEAT] = s
        priv[s, V_HAND] = hands[s]
        priv[s, V_DEALT] = hands[s]
    for i in range(public[P_N_PLAYS]):
        s = public[P_PLAY_SEAT + i]
        priv[s, V_DEALT] |= 1 << public[P_PLAY_CARD + i]
    for k in range(PRIVATE_LEN):
        priv[me, k] = private[k]


@njit(cache=True)
def heuristic_playout(
    pub, priv, rules, rng, seat_noise, hparams, shooter_seats, sparams, moon_seat=-1
):
    """Play the deal out with ``heuristic`` in every seat (changes ``pub`` and ``priv``).

    pub: a copy of the engine's public array, advanced with the engine's ``play_card``;
    priv: int64[4, PRIVATE_LEN] (:func:`world_private`). Each seat sees only its own row,
    as in a real game. seat_noise: int64[4]; with probability ``seat_noise[s] /
    NOISE_SCALE`` seat ``s`` plays a uniformly random legal card instead.
    shooter_seats: int64[4]; a seat with 1 plays ``shooter`` (parameters ``sparams``)
    instead of ``heuristic``: it goes for the moon when its hand of the world makes it
    plausible. moon_seat: a seat (or -1) that goes for the moon whatever its hand, with
    ``shooter``'s moon cards, while the moon is open to it, then plays as ``heuristic``.
    """
    n_tricks = hand_size(seats_of(pub))
    while pub[P_TRICK] < n_tricks:
        s = pub[P_TO_ACT]
        hand = priv[s, V_HAND]
        legal = legal_plays(pub, rules, hand)
        if legal & (legal - 1) == 0:
            c = lowest_card(legal)
        elif seat_noise[s] > 0 and below(rng, NOISE_SCALE) < seat_noise[s]:
            c = nth_card(legal, below(rng, popcount(legal)))
        elif s == moon_seat and heuristic.may_still_shoot(pub, s):
            c = shooter.moon_card(pub, priv[s], legal, deal_deck(pub) & ~pub[P_PLAYED] & ~hand)
        elif shooter_seats[s]:
            c = shooter_play(pub, priv[s], legal, rng, sparams)
        else:
            c = heuristic_play(pub, priv[s], legal, rng, hparams)
        play_card(pub, priv, s, c)


@njit(cache=True)
def final_score(pub, rules, before, me, ds, ns):
    """Return seat ``me``'s deal score (A2: moon, bonuses and options included; the rule's
    default moon choice) once the deal in ``pub`` is played out, by the engine's
    ``score_deal``. before: int64[4], the game scores before the deal; ds, ns: int64[4]
    scratch (every seat's deal score and new score)."""
    score_deal(
        rules,
        pub[P_POINTS : P_POINTS + 4],
        pub[P_TRICKS_WON : P_TRICKS_WON + 4],
        jack_taker_of(pub),
        before,
        MOON_DEFAULT,
        ds,
        ns,
    )
    return ds[me]


# -- the exact search -----------------------------------------------------------------------
@njit(cache=True, inline="always")
def _skip_equivalent(c, legal, live, special):
    """Return whether ``c`` plays like the next lower live card of its suit in ``legal``.

    live: the cards still held or in the current trick. Two cards of one hand with no
    live card between them are interchangeable, unless one carries its own score.
    """
    below_c = live & ((1 << c) - 1) & (SUIT_MASK << (13 * (c // 13)))
    if below_c == 0:
        return False
    p = highest_card(below_c)
    return bool((legal >> p) & 1) and not ((special >> p) & 1) and not ((special >> c) & 1)


# Per-level bookkeeping of the exact search (int64 array of width A_LEN per level).
A_MOVES = 0  # cards not tried yet
A_LEGAL = 1
A_LIVE = 2  # cards held or in the trick: the separators of equivalent cards
A_SEAT = 3
A_FIRST = 4  # 1 until a child's value is taken
A_VAL = 8  # + seat: the node's deal scores so far
A_LEN = 12


@njit(cache=True, inline="always")
def _open(stack, aux, level, scratch, rules):
    """Set the search bookkeeping of the (unfinished) node ``stack[level]``."""
    st = stack[level]
    seat = st[S_TO_ACT]
    legal = _legal(st, scratch, rules, st[S_HAND + seat])
    aux[level, A_MOVES] = legal
    aux[level, A_LEGAL] = legal
    aux[level, A_LIVE] = (
        st[S_HAND] | st[S_HAND + 1] | st[S_HAND + 2] | st[S_HAND + 3] | st[S_TCARDS]
    )
    aux[level, A_SEAT] = seat
    aux[level, A_FIRST] = 1


@njit(cache=True, inline="always")
def _take(aux, level, v, root, tie):
    """Offer the child value ``v`` (int64[4] or row) to node ``level`` (max^n choice)."""
    seat = aux[level, A_SEAT]
    own = v[seat]
    best = aux[level, A_VAL + seat]
    if (
        aux[level, A_FIRST]
        or own < best
        or (own == best and tie * (v[root] - aux[level, A_VAL + root]) > 0)
    ):
        aux[level, A_FIRST] = 0
        for s in range(4):
            aux[level, A_VAL + s] = v[s]


@njit(cache=True)
def _maxn(stack, aux, base, scratch, rules, root, tie, before, ds, ns, special, breaks):
    """Search the deal ``stack[base]`` to its end; write its deal scores to aux[base, A_VAL:].

    max^n: the seat to act takes the child that minimises its own deal score; ties go to
    the child worst for ``root``, then to the lowest card. Iterative (numba cannot cache
    recursive functions); ``stack`` and ``aux`` need a row per card left, plus one.
    """
    n_tricks = hand_size(stack[base, S_SEATS])
    if stack[base, S_TRICK] >= n_tricks:
        _score(stack[base], rules, before, ds, ns)
        for s in range(4):
            aux[base, A_VAL + s] = ds[s]
        return
    _open(stack, aux, base, scratch, rules)
    level = base
    while True:
        moves = aux[level, A_MOVES]
        if moves == 0:
            if level == base:
                return
            level -= 1
            _take(aux, level, aux[level + 1, A_VAL : A_VAL + 4], root, tie)
            continue
        c = lowest_card(moves)
        aux[level, A_MOVES] = moves & (moves - 1)
        if _skip_equivalent(c, aux[level, A_LEGAL], aux[level, A_LIVE], special):
            continue
        nxt = level + 1
        stack[nxt, :] = stack[level]
        _step(stack[nxt], c, breaks)
        if stack[nxt, S_TRICK] >= n_tricks:
            _score(stack[nxt], rules, before, ds, ns)
            _take(aux, level, ds, root, tie)
            continue
        _open(stack, aux, nxt, scratch, rules)
        level = nxt


@njit(cache=True)
def _setup(public):
    """Return (scratch public array, rules vector, scores before, special cards)."""
    rules = public[P_RULES : P_RULES + RULES_LEN].copy()
    scratch = np.zeros(PUBLIC_LEN, np.int64)
    scratch[P_RULES : P_RULES + RULES_LEN] = rules
    scratch[P_N_SEATS] = public[P_N_SEATS]
    before = public[P_SCORES : P_SCORES + 4].copy()
    special = QS_BIT
    if not plain_values_at(rules, 0):
        special |= penalty_mask(rules)  # cards of one suit may differ in points (A1.8)
    if rules[R_OMNIBUS]:
        special |= 1 << bonus_card(rules)
    return scratch, rules, before, special


@njit(cache=True, inline="always")
def cards_left(public):
    """Return the cards still in the hands: 52 (51 with 3 seats, A1.1) minus those played."""
    n = seats_of(public)
    return n * hand_size(n) - public[P_N_PLAYS]


@njit(cache=True)
def exact_values(public, hands, out, tie=1):
    """Solve the deal exactly from ``public`` with every hand known (max^n, own scores).

    hands: int64[4], the seats' hands now. out: int64[52], written for each legal card of
    the seat to act with the deal score that seat ends with after playing it (other
    cards: 0). Returns the mask of legal cards.
    """
    scratch, rules, before, special = _setup(public)
    breaks = break_flags(rules)
    n_left = cards_left(public)
    stack = np.zeros((n_left + 2, S_LEN), np.int64)
    aux = np.zeros((n_left + 2, A_LEN), np.int64)
    ds = np.zeros(4, np.int64)
    ns = np.zeros(4, np.int64)
    init_state(public, hands, stack[0])
    seat = stack[0, S_TO_ACT]
    legal = _legal(stack[0], scratch, rules, hands[seat])
    moves = legal
    while moves:
        c = lowest_card(moves)
        moves &= moves - 1
        stack[1, :] = stack[0]
        _step(stack[1], c, breaks)
        _maxn(stack, aux, 1, scratch, rules, seat, tie, before, ds, ns, special, breaks)
        out[c] = aux[1, A_VAL + seat]
    return legal


# -- the decision ---------------------------------------------------------------------------
@njit(cache=True)
def queen_passes(public, rules, flags):
    """Count in ``flags[s]`` the chances seat ``s`` had to shed the QS and did not take.

    A chance: a discard (void in the led suit) after trick 1, or a spade played under an
    AS or KS that was winning the trick. A seat that held the QS would almost always
    have shed it there, so worlds giving it the QS are unlikely (:func:`pimc_values`).
    """
    for s in range(4):
        flags[s] = 0
    if rules[R_QUEEN_WAITS]:
        return
    n = public[P_N_PLAYS]
    seats = seats_of(public)
    best = -1
    led = -1
    for i in range(n):
        c = public[P_PLAY_CARD + i]
        seat = public[P_PLAY_SEAT + i]
        if i % seats == 0:
            led = c // 13
            best = c
            continue
        if c != QUEEN_SPADES:
            if c // 13 != led:
                if i >= seats or rules[R_FIRST_TRICK_POINTS] != FIRST_TRICK_POINTS_FORBIDDEN:
                    flags[seat] += 1
            elif led == 2 and best > QUEEN_SPADES:
                flags[seat] += 1
        if c // 13 == led and c > best:
            best = c


@njit(cache=True)
def pass_surprises(public, private, hands):
    """Count the cards the seat that passed to this one kept in world ``hands`` although
    ``heuristic`` would have passed them before a card it did pass, beyond what its own
    received cards can explain.

    The passer's hand at the pass is its hand in the world, with the cards it has played
    and those it passed (this seat's received cards). Each card it kept whose
    ``heuristic`` pass danger (at that hand) exceeds the least dangerous card it passed is
    a surprise. Across, the passer received this seat's pass, which is known and removed;
    left or right it received three unknown cards, so the first three surprises are free.
    0 when nothing was passed, or when the least dangerous card passed is a low card
    (below PASS_SIGNAL: a pass of low cards, as a moon shooter's, says little).
    """
    direction = public[P_PASS_DIR]
    received = private[V_RECEIVED]
    if direction == PASS_HOLD or received == 0:
        return 0
    me = private[V_SEAT]
    seats = seats_of(public)
    passer = -1
    for s in range(seats):
        if s != me and pass_target(s, direction, seats) == me:
            passer = s
    if passer < 0:
        return 0
    kept = hands[passer]
    for i in range(public[P_N_PLAYS]):
        if public[P_PLAY_SEAT + i] == passer:
            kept |= 1 << public[P_PLAY_CARD + i]
    kept &= ~received
    free = 3
    if pass_target(me, direction, seats) == passer:
        kept &= ~private[V_PASSED]
        free = 0
    before = kept | received
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    guard = HEURISTIC_PARAMS[2]
    low = 1e9
    rest = received
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        low = min(low, heuristic.pass_danger(before, c, omnibus, guard))
    if low < PASS_SIGNAL:
        return 0
    count = 0
    rest = kept
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        if heuristic.pass_danger(before, c, omnibus, guard) > low:
            count += 1
    return max(0, count - free)


@njit(cache=True)
def play_surprises(public, private, hands, rng, hparams, limit, pub, priv):
    """Count the cards the other seats played this deal that ``heuristic`` would not have
    played in their seat had the world been ``hands`` (stopping at ``limit``).

    The deal is replayed from its first lead with every seat's hand of the world plus the
    cards it has played since (:func:`world_private`: another seat's pass is unknown); at
    each play of another seat with a choice, ``heuristic`` is asked for its card from that
    seat's view. pub, priv: scratch (int64[PUBLIC_LEN], int64[4, PRIVATE_LEN]).
    """
    counts = np.zeros(8, np.int64)
    return surprises_by_seat(public, private, hands, rng, hparams, limit, pub, priv, counts)


@njit(cache=True)
def surprises_by_seat(public, private, hands, rng, hparams, limit, pub, priv, counts):
    """As :func:`play_surprises`, seat by seat: return the sum over the other seats of
    their surprises beyond ``counts[s]`` (the surprises excused for seat ``s``: 0 trusts
    its play to be ``heuristic``'s, 52 ignores it), stopping at ``limit``. counts:
    int64[8], read at ``0..3``, then written with the surprises of seat ``s`` at ``s`` and
    the plays where it had a choice at ``4 + s``.
    """
    as_shooter = np.zeros(4, np.int64)
    return mixed_surprises(
        public, private, hands, rng, hparams, hparams, False, limit, pub, priv, counts,
        as_shooter,
    )  # fmt: skip


@njit(cache=True)
def mixed_surprises(
    public, private, hands, rng, hparams, sparams, mix, limit, pub, priv, counts, as_shooter
):
    """As :func:`surprises_by_seat`; with ``mix``, each other seat is judged by whichever
    of ``heuristic`` and ``shooter`` (parameters ``sparams``) explains more of its plays
    in the world: its surprises are the fewer of the two counts (``counts[s]``), and
    ``as_shooter[s]`` (int64[4]) is 1 when ``shooter`` explains strictly more. ``shooter``
    is asked only while a moon is open to the seat (``heuristic.may_still_shoot``: every
    point taken is its own and the JD can still be; else it plays as ``heuristic``). An
    excused seat (52) is neither judged nor marked. Counts and marks stop where the sum
    reaches ``limit``.
    """
    excused = np.zeros(4, np.int64)
    h = np.zeros(4, np.int64)  # surprises under heuristic
    sh = np.zeros(4, np.int64)  # under shooter
    for s in range(4):
        excused[s] = counts[s]
        counts[s] = 0
        counts[4 + s] = 0
        as_shooter[s] = 0
    n = public[P_N_PLAYS]
    if n == 0 or limit <= 0:
        return 0
    me = private[V_SEAT]
    pub[:] = public
    world_private(public, private, hands, priv)
    for i in range(n):
        priv[public[P_PLAY_SEAT + i], V_HAND] |= 1 << public[P_PLAY_CARD + i]
    reset_deal(pub, seats_of(public), public[P_PLAY_SEAT])
    rules = public[P_RULES : P_RULES + RULES_LEN]
    count = 0
    for i in range(n):
        s = public[P_PLAY_SEAT + i]
        c = public[P_PLAY_CARD + i]
        if s != me and excused[s] < 52:
            legal = legal_plays(pub, rules, priv[s, V_HAND])
            if legal & (legal - 1):
                counts[4 + s] += 1
                before = counts[s]
                hc = heuristic_play(pub, priv[s], legal, rng, hparams)
                h[s] += hc != c
                if mix:
                    sc = hc
                    if heuristic.may_still_shoot(pub, s):
                        sc = shooter_play(pub, priv[s], legal, rng, sparams)
                    sh[s] += sc != c
                    counts[s] = min(h[s], sh[s])
                    as_shooter[s] = sh[s] < h[s]
                else:
                    counts[s] = h[s]
                if counts[s] > before and counts[s] > excused[s]:
                    count += 1
                    if count >= limit:
                        return count
        play_card(pub, priv, s, c)
    return count


#: Worlds drawn, unweighted, to judge whether a seat plays like ``heuristic``.
TRUST_WORLDS = 8

#: Points taken, all by one seat, from which ``no_feed`` discards no point card to it:
#: half the deal's 26, a moon well under way.
NO_FEED_POINTS = 13


@njit(cache=True)
def surprise_shares(public, private, rng, hparams, pub, priv, best, chances):
    """Write per seat the fewest plays ``heuristic`` does not explain over
    :data:`TRUST_WORLDS` worlds drawn without weights (``best``, int64[4]) and its plays
    with a choice (``chances``, int64[4]); ``best / chances`` is the seat's share of
    surprises (:func:`surprises_by_seat`)."""
    hands = np.zeros(4, np.int64)
    counts = np.zeros(8, np.int64)
    best[:] = 52
    chances[:] = 0
    for _ in range(TRUST_WORLDS):
        sample_hands(public, private, rng, hands)
        counts[:] = 0
        surprises_by_seat(public, private, hands, rng, hparams, 52, pub, priv, counts)
        for s in range(4):
            best[s] = min(best[s], counts[s])
            chances[s] = counts[4 + s]


@njit(cache=True)
def excused_seats(private, best, chances, trust, excused):
    """Set ``excused[s]`` to 52 for each other seat whose share of surprises
    (``best / chances``, :func:`surprise_shares`) exceeds ``trust`` (units of
    1/NOISE_SCALE), 0 for the rest; seats with fewer than 3 plays with a choice stay
    trusted (0). Measured over positions 20..40 cards into a deal: a ``heuristic``
    seat's best-of-8 share is 0 at the median (0.22 at the 90th percentile), a
    ``random`` or ``lowcard`` seat's 0.6 (0.33..0.38 at the 10th)."""
    me = private[V_SEAT]
    for s in range(4):
        excused[s] = 0
        if s != me and chances[s] >= 3 and best[s] * NOISE_SCALE > trust * chances[s]:
            excused[s] = 52


@njit(cache=True)
def seat_noises(private, best, chances, noise, model_noise, seat_noise):
    """Set each seat's playout noise (``seat_noise``, int64[4], units of 1/NOISE_SCALE):
    ``noise``, raised for another seat with 3 or more plays with a choice to
    ``model_noise`` times its share of surprises (``best / chances``,
    :func:`surprise_shares`), at most NOISE_SCALE."""
    seat_noise[:] = noise
    me = private[V_SEAT]
    for s in range(4):
        if s != me and chances[s] >= 3:
            q = min(NOISE_SCALE, best[s] * model_noise // chances[s])
            seat_noise[s] = max(noise, q)


@njit(cache=True)
def pimc_values(
    public,
    private,
    legal,
    rng,
    worlds,
    playouts,
    exact_cards,
    noise,
    tie,
    infer,
    total,
    rollout=0,
    pass_infer=NOISE_SCALE,
    play_infer=NOISE_SCALE,
    max_worlds=0,
    close=0,
    model_trust=NOISE_SCALE,
    model_noise=0,
    shooters=0,
    shooter_infer=0,
    moon_plan=0,
    stop_early=True,
):
    """Write into ``total[c]`` the deciding seat's deal score summed over the worlds;
    return the number of worlds sampled.

    For each of ``worlds`` sampled deals: with at most ``exact_cards`` cards left in the
    hands, the exact max^n score after each legal card; else the sum over ``playouts``
    playouts. Cards that play alike (no live card between them) share one computation.
    noise: the policy's random-card probability in units of 1/NOISE_SCALE. infer: a world
    that gives the QS to a seat that passed up ``k`` chances to shed it
    (:func:`queen_passes`) is kept with probability ``infer ** k`` (resampled otherwise,
    up to 30 times), in units of 1/NOISE_SCALE; and one where the seat that passed to this
    one kept ``k`` cards it would have passed first (:func:`pass_surprises`) with
    probability ``pass_infer ** k`` (same units); and one where the other seats played
    ``k`` cards ``heuristic`` would not have played there (:func:`play_surprises`) with
    probability ``play_infer ** k``. When no try of 30 is kept, the likeliest one is used.
    rollout: the playout policy, 0
    :func:`policy` for every seat (each sees every hand of the world), 1 ``heuristic``
    for every seat (each sees only its own hand, :func:`heuristic_playout`).
    model_trust: ``play_infer`` counts a seat's surprises only if the best of
    :data:`TRUST_WORLDS` unweighted worlds explains all but at most this share of its
    plays with a choice (in units of 1/NOISE_SCALE; :func:`excused_seats`); a seat that
    does not play like ``heuristic`` is then not judged by it (NOISE_SCALE: every seat is).
    max_worlds, close: once ``worlds`` worlds are scored, while the two best cards' mean
    scores differ, but by less than ``close`` (points, in units of 1/NOISE_SCALE), score
    ``worlds // 2`` more (at least 1), up to ``max_worlds`` in all (0 or below
    ``worlds``: no more): more time on close decisions, within that budget.
    model_noise: with ``rollout`` 1, another seat plays a random card in the playouts with
    probability ``model_noise`` times its share of plays ``heuristic`` does not explain
    (:func:`seat_noises`; units of 1/NOISE_SCALE; 0: ``noise`` for every seat).
    shooters: with ``rollout`` 1, in each world each other seat plays the playouts as
    ``shooter`` with this probability (units of 1/NOISE_SCALE; drawn once per world, so
    every card meets the same seats), else as ``heuristic``.
    shooter_infer: with ``play_infer`` and ``rollout`` 1, 1 judges each other seat of a
    world by ``heuristic`` or ``shooter``, whichever explains more of its plays
    (:func:`mixed_surprises`); a seat ``shooter`` explains better plays that world's
    playouts as ``shooter`` (at an exact ending only the worlds' weights change).
    moon_plan: with ``rollout`` 1 and more than ``exact_cards`` cards left, 1 scores each
    card twice while a moon is open to this seat and it holds points or a moon hand
    (``shooter``'s :func:`~hsim.strategies.shooter.moon_hand`): playing on as
    ``heuristic`` and going for the moon (``moon_seat`` of :func:`heuristic_playout`), in
    the same worlds; each card keeps the lower of its two sums.
    stop_early: stop counting a try's ``play_infer`` surprises once its fate is settled
    (False counts each up to the limit: the same results, slower; for tests).
    """
    me = private[V_SEAT]
    scratch, rules, before, special = _setup(public)
    breaks = break_flags(rules)
    n_left = cards_left(public)
    exact = n_left <= exact_cards
    hands = np.zeros(4, np.int64)
    stack = np.zeros((n_left + 2, S_LEN), np.int64)
    aux = np.zeros((n_left + 2, A_LEN), np.int64)
    ds = np.zeros(4, np.int64)
    ns = np.zeros(4, np.int64)
    work = np.zeros(S_LEN, np.int64)
    pub = public.copy()
    priv0 = np.zeros((4, PRIVATE_LEN), np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    hparams = HEURISTIC_PARAMS.copy()  # writable, as the play signature wants
    sparams = SHOOTER_PARAMS.copy()
    shooter_seats = np.zeros(4, np.int64)
    live = (deal_deck(public) & ~public[P_PLAYED]) | public[P_TRICK_CARDS]
    reps = 0
    moves = legal
    while moves:
        c = lowest_card(moves)
        moves &= moves - 1
        if not _skip_equivalent(c, legal, live, special):
            reps |= 1 << c
    for c in range(52):
        total[c] = 0
    flags = np.zeros(4, np.int64)
    queen_passes(public, rules, flags)
    best_hands = np.zeros(4, np.int64)
    as_shooter = np.zeros(4, np.int64)
    best_shooters = np.zeros(4, np.int64)
    mix = shooter_infer > 0 and rollout == 1
    play_limit = 0  # mismatches past which a world's weight is below 1/1000 (or 0)
    if play_infer < NOISE_SCALE:
        play_limit = 1
        p = play_infer
        while p * 1000 >= NOISE_SCALE and play_limit < 52:
            p = p * play_infer // NOISE_SCALE
            play_limit += 1
    excused = np.zeros(8, np.int64)  # per seat: 52 when its play is not modelled
    seat_noise = np.full(4, noise, np.int64)
    modelled = model_noise if rollout == 1 else 0
    judged = play_limit > 0 and model_trust < NOISE_SCALE
    if judged or modelled > 0:  # one count of surprises serves both
        best = np.zeros(4, np.int64)
        chances = np.zeros(4, np.int64)
        surprise_shares(public, private, rng, hparams, pub, priv, best, chances)
        if judged:
            excused_seats(private, best, chances, model_trust, excused)
        if modelled > 0:
            seat_noises(private, best, chances, noise, modelled, seat_noise)
    counts = np.zeros(8, np.int64)
    peek = rng.copy()  # scratch: a draw read ahead of the stream
    own_moon = (
        moon_plan > 0
        and rollout == 1
        and not exact
        and heuristic.may_still_shoot(public, me)
        and (public[P_POINTS + me] > 0 or shooter.moon_hand(private[V_HAND], sparams))
    )
    moon_total = np.zeros(52 if own_moon else 0, np.int64)  # this seat going for the moon
    target = worlds
    done = 0
    while done < target:
        done += 1
        best_keep = -1
        for _try in range(30):
            sample_hands(public, private, rng, hands)
            holder = -1  # the QS is played when no hand holds it
            for s in range(4):
                if hands[s] & QS_BIT:
                    holder = s
            keep = NOISE_SCALE
            if holder >= 0 and holder != me and not (private[V_PASSED] & QS_BIT):
                for _k in range(flags[holder]):
                    keep = keep * infer // NOISE_SCALE
            if pass_infer < NOISE_SCALE:
                for _k in range(pass_surprises(public, private, hands)):
                    keep = keep * pass_infer // NOISE_SCALE
            as_shooter[:] = 0
            if play_limit > 0 and keep > 0:
                # Stop counting once the try's weight is at most both the draw that
                # would keep it and the best weight so far: more surprises change
                # neither outcome. The draw is read ahead, not taken: the stream and
                # every result stay those of a full count.
                cut = play_limit
                if stop_early:
                    peek[0] = rng[0]
                    bar = min(below(peek, NOISE_SCALE), best_keep)
                    cut = 0
                    w = keep
                    while cut < play_limit and w > bar:
                        w = w * play_infer // NOISE_SCALE
                        cut += 1
                counts[:4] = excused[:4]
                k = mixed_surprises(
                    public, private, hands, rng, hparams, sparams, mix, cut, pub, priv,
                    counts, as_shooter,
                )  # fmt: skip
                for _k in range(k):
                    keep = keep * play_infer // NOISE_SCALE
            if keep >= NOISE_SCALE or below(rng, NOISE_SCALE) < keep:
                best_keep = -2
                break
            if keep > best_keep:
                best_keep = keep
                best_hands[:] = hands
                best_shooters[:] = as_shooter
        if best_keep != -2:
            hands[:] = best_hands
            as_shooter[:] = best_shooters
        init_state(public, hands, stack[0])
        if rollout == 1:
            world_private(public, private, hands, priv0)
            for s in range(4):  # set afresh for each world
                shooter_seats[s] = 0
                if shooters > 0 and s != me and below(rng, NOISE_SCALE) < shooters:
                    shooter_seats[s] = 1
                if mix and as_shooter[s]:
                    shooter_seats[s] = 1
        seed = rng[0]  # every card's playouts draw the same numbers (common random numbers)
        moves = reps
        while moves:
            c = lowest_card(moves)
            moves &= moves - 1
            if exact:
                stack[1, :] = stack[0]
                _step(stack[1], c, breaks)
                _maxn(stack, aux, 1, scratch, rules, me, tie, before, ds, ns, special, breaks)
                total[c] += aux[1, A_VAL + me]
            elif rollout == 1:
                after = seed
                for plan in range(2 if own_moon else 1):  # 1: this seat goes for the moon
                    sums = moon_total if plan == 1 else total
                    rng[0] = seed
                    for _k in range(playouts):
                        pub[:] = public
                        priv[:, :] = priv0
                        play_card(pub, priv, me, c)
                        heuristic_playout(
                            pub, priv, rules, rng, seat_noise, hparams, shooter_seats, sparams,
                            me if plan == 1 else -1,
                        )  # fmt: skip
                        sums[c] += final_score(pub, rules, before, me, ds, ns)
                    if plan == 0:
                        after = rng[0]
                rng[0] = after  # the next worlds are drawn as without the moon plan
            else:
                rng[0] = seed
                for _k in range(playouts):
                    work[:] = stack[0]
                    _step(work, c, breaks)
                    playout(work, scratch, rules, rng, noise, breaks)
                    _score(work, rules, before, ds, ns)
                    total[c] += ds[me]
        if done == target and target < max_worlds:
            # 0: the best cards scored alike in every world so far
            gap = _gap(np.minimum(total, moon_total) if own_moon else total, reps)
            if gap > 0 and gap * NOISE_SCALE < close * done * (1 if exact else playouts):
                target = min(max_worlds, target + max(1, worlds // 2))
    if own_moon:  # each card keeps its better plan
        moves = reps
        while moves:
            c = lowest_card(moves)
            moves &= moves - 1
            total[c] = min(total[c], moon_total[c])
    # Cards that play like a representative share its value.
    moves = legal & ~reps
    while moves:
        c = lowest_card(moves)
        moves &= moves - 1
        p = highest_card(live & ((1 << c) - 1) & (SUIT_MASK << (13 * (c // 13))))
        total[c] = total[p]  # p < c is a representative or was filled before c
    return done


@njit(cache=True, inline="always")
def _gap(total, cards):
    """Return the second-lowest minus the lowest ``total`` among the mask ``cards`` (0 with
    fewer than two cards)."""
    best = second = np.int64(1) << 62
    while cards:
        c = lowest_card(cards)
        cards &= cards - 1
        if total[c] < best:
            best, second = total[c], best
        elif total[c] < second:
            second = total[c]
    return 0 if second == np.int64(1) << 62 else second - best


@njit(cache=True)
def decide(
    public,
    private,
    legal,
    rng,
    worlds,
    playouts,
    exact_cards,
    noise,
    tie,
    infer,
    rollout=0,
    pass_infer=NOISE_SCALE,
    play_infer=NOISE_SCALE,
    max_worlds=0,
    close=0,
    model_trust=NOISE_SCALE,
    model_noise=0,
    shooters=0,
    shooter_infer=0,
    moon_plan=0,
):
    """Return pimc's card (see :func:`pimc_values`): the lowest total, ties to the policy
    (``heuristic``'s card when ``rollout`` is 1)."""
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    total = np.zeros(52, np.int64)
    pimc_values(
        public,
        private,
        legal,
        rng,
        worlds,
        playouts,
        exact_cards,
        noise,
        tie,
        infer,
        total,
        rollout,
        pass_infer,
        play_infer,
        max_worlds,
        close,
        model_trust,
        model_noise,
        shooters,
        shooter_infer,
        moon_plan,
        True,
    )
    best = -1
    moves = legal
    while moves:
        c = lowest_card(moves)
        moves &= moves - 1
        if best < 0 or total[c] < total[best]:
            best = c
    # Ties go to the noiseless policy's card, played from the true hand.
    st = np.zeros(S_LEN, np.int64)
    hands = np.zeros(4, np.int64)
    hands[private[V_SEAT]] = private[V_HAND]
    init_state(public, hands, st)
    if rollout == 1:
        h = heuristic_play(public, private, legal, rng, HEURISTIC_PARAMS.copy())
    else:
        h = policy(st, legal, rng, 0)
    if (legal >> h) & 1 and total[h] == total[best]:
        return h
    return best


@njit(cache=True)
def sure_choices(public, legal):
    """Return the cards of ``legal`` left to search (module doc): only the QS when it can
    be dropped on a trick it cannot win, under the usual card values (A1.8) and unless the
    trick's winner so far holds every point taken, at least one; on trick 1 once it
    carries points, only the cards that do not beat the winning card when there is one;
    else ``legal``.
    """
    n = public[P_TRICK_LEN]
    if n == 0:
        return legal
    led = public[P_LED_SUIT]
    suit = SUIT_MASK << (13 * led)
    best = -1
    wseat = -1
    k0 = public[P_N_PLAYS] - n
    for k in range(k0, k0 + n):
        c = public[P_PLAY_CARD + k]
        if c // 13 == led and c > best:
            best = c
            wseat = public[P_PLAY_SEAT + k]
    plain = public[P_RULES + R_QUEEN_POINTS] and plain_values_at(public, P_RULES)
    if plain and legal & QS_BIT and (led != 2 or best > QUEEN_SPADES):
        total = 0
        for s in range(4):
            total += public[P_POINTS + s]
        if not (total > 0 and public[P_POINTS + wseat] == total):
            return QS_BIT
    if public[P_TRICK] == 0 and deal_penalty_points(public, public[P_TRICK_CARDS]) > 0:
        losing = legal & ~(suit & ~((1 << best) - 1))
        if losing:
            return losing
    return legal


@njit(cache=True)
def moon_stops(public, private, legal):
    """Return the cards of ``legal`` left to search against a possible moon, a seat that
    ``heuristic``'s :func:`~hsim.strategies.heuristic.moon_threat` names (its default
    parameters); ``legal`` when there is none. The playouts model every other seat as
    ``heuristic``, which rarely shoots, so the search alone lets a moon through; these
    are ``heuristic``'s defences:

    - leading: a heart no outstanding heart beats, when there is one;
    - the threat wins the trick so far: a card that takes it from it when the trick
      carries points (the QS last); unable to, the lowest card other than the QS (the
      high cards may stop it later); void in the led suit, a card without points;
    - another seat wins it and the threat has played or is void: void in the led suit,
      a point card (the moon is stopped at no cost).
    """
    me = private[V_SEAT]
    threat = heuristic.moon_threat(public, me, HEURISTIC_PARAMS)
    if threat < 0:
        return legal
    n = public[P_TRICK_LEN]
    if n == 0:
        hearts = legal & HEARTS_MASK
        if hearts:
            top = highest_card(hearts)
            out = deal_deck(public) & ~public[P_PLAYED] & ~private[V_HAND]
            if out & HEARTS_MASK and out & HEARTS_MASK & ~((2 << top) - 1) == 0:
                return 1 << top
        return legal
    wcard = heuristic.winning_card(public)
    led = public[P_LED_SUIT]
    follow = legal & (SUIT_MASK << (13 * led))
    if heuristic.seat_of(public, wcard) != threat:
        played = (threat - public[P_LEADER]) % seats_of(public) < n
        if follow == 0 and (played or (public[P_VOIDS + threat] >> led) & 1):
            points = legal & penalty_mask_at(public, P_RULES)
            return points if points else legal
        return legal
    if follow == 0:
        safe = legal & ~penalty_mask_at(public, P_RULES)
        return safe if safe else legal
    over = follow & ~((2 << wcard) - 1)
    if over == 0:
        return 1 << heuristic.stopper_keeping(follow, costly_mask_at(public, P_RULES))
    if deal_penalty_points(public, public[P_TRICK_CARDS]) > 0:
        keep = over & ~costly_mask_at(public, P_RULES)
        return keep if keep else over
    return legal


@njit(cache=True)
def no_feed(public, legal):
    """Return the cards of ``legal`` other than point cards when this seat is void in the
    led suit and the trick's winner so far holds every point taken, at least
    :data:`NO_FEED_POINTS` (a moon under way: each point card discarded to it brings the
    moon closer); else ``legal``, also when every legal card carries points."""
    if public[P_TRICK_LEN] == 0:
        return legal
    if legal & (SUIT_MASK << (13 * public[P_LED_SUIT])):
        return legal
    winner = heuristic.seat_of(public, heuristic.winning_card(public))
    total = 0
    for s in range(seats_of(public)):
        total += public[P_POINTS + s]
    if total < NO_FEED_POINTS or public[P_POINTS + winner] != total:
        return legal
    safe = legal & ~penalty_mask_at(public, P_RULES)
    return safe if safe else legal


@njit(cache=True)
def shooter_like(public, private, rng):
    """Return whether the seat ``heuristic``'s :func:`~hsim.strategies.heuristic.moon_threat`
    names (its default parameters) plays like ``shooter``: in one of :data:`TRUST_WORLDS`
    worlds drawn without weights, ``shooter`` explains strictly more of its plays this
    deal than ``heuristic`` (:func:`mixed_surprises`). False when no seat is named."""
    threat = heuristic.moon_threat(public, private[V_SEAT], HEURISTIC_PARAMS)
    if threat < 0:
        return False
    hands = np.zeros(4, np.int64)
    counts = np.zeros(8, np.int64)
    as_shooter = np.zeros(4, np.int64)
    pub = public.copy()
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    hparams = HEURISTIC_PARAMS.copy()
    sparams = SHOOTER_PARAMS.copy()
    for _ in range(TRUST_WORLDS):
        sample_hands(public, private, rng, hands)
        counts[:] = 0
        mixed_surprises(
            public, private, hands, rng, hparams, sparams, True, 52, pub, priv, counts,
            as_shooter,
        )  # fmt: skip
        if as_shooter[threat]:
            return True
    return False


@njit(cache=True)
def _settings(params):
    """Return the search's settings from the parameter vector (STRATEGY.params order):
    worlds, playouts, exact_cards, noise, tie, infer, rollout, pass_infer, play_infer,
    max_worlds, close, model_trust, model_noise, shooters, shooter_infer, moon_plan;
    probabilities, ``close`` and ``model_noise`` in units of 1/NOISE_SCALE."""
    return (
        max(1, int(params[0])),
        max(1, int(params[1])),
        int(params[2]),
        int(params[3] * NOISE_SCALE),
        int(params[4]),
        int(params[5] * NOISE_SCALE),
        int(params[6]),
        int(params[7] * NOISE_SCALE),
        int(params[9] * NOISE_SCALE),
        int(params[11]),
        int(params[12] * NOISE_SCALE),
        int(params[13] * NOISE_SCALE),
        int(params[14] * NOISE_SCALE),
        int(params[15] * NOISE_SCALE),
        int(params[16]),
        int(params[18]),
    )


@njit(PLAY_SIG, cache=True)
def play(public, private, legal, rng, params):
    """Play the card with the lowest mean deal score over sampled worlds (module doc).
    With 5 or 6 seats (docs/rules.md A1.1) the search does not run: heuristic plays."""
    if seats_of(public) > SEARCH_SEATS:
        return heuristic.play(public, private, legal, rng, HEURISTIC_PARAMS.copy())
    legal = sure_choices(public, legal)
    if params[10] == 1 or (params[10] == 2 and shooter_like(public, private, rng)):
        legal = moon_stops(public, private, legal)
    if params[19]:
        legal = no_feed(public, legal)
    s = _settings(params)
    return decide(
        public,
        private,
        legal,
        rng,
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[5],
        s[6],
        s[7],
        s[8],
        s[9],
        s[10],
        s[11],
        s[12],
        s[13],
        s[14],
        s[15],
    )


@njit(cache=True)
def search_totals(public, private, legal, rng, params, total, stop_early):
    """Write into ``total[c]`` (int64[52]), for every card ``c`` of the mask ``legal``, the
    deciding seat's deal scores summed over the worlds :func:`play` would sample with
    ``params`` (STRATEGY.params order), every legal card searched (none set aside first).
    ``stop_early``: False counts every try's surprises in full (:func:`pimc_values`; the
    totals are the same). Returns ``(worlds, per)``: the worlds scored, and the scores
    summed per card (``worlds`` x ``playouts``; ``worlds`` in an exact ending); ``(0, 0)``,
    ``total`` untouched, with 5 or 6 seats, where the search does not run."""
    if seats_of(public) > SEARCH_SEATS:
        return 0, 0
    s = _settings(params)
    worlds = pimc_values(
        public,
        private,
        legal,
        rng,
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[5],
        total,
        s[6],
        s[7],
        s[8],
        s[9],
        s[10],
        s[11],
        s[12],
        s[13],
        s[14],
        s[15],
        stop_early,
    )
    exact = cards_left(public) <= s[2]
    return worlds, worlds * (1 if exact else s[1])


@njit(cache=True)
def card_means(public, private, legal, rng, params, means):
    """Write into ``means[c]``, for every card ``c`` of the mask ``legal``, the deciding
    seat's mean deal score after playing ``c`` (points of docs/rules.md A2, moon and
    options included; lower is better) over worlds sampled from this seat's observation
    (``public`` and its own ``private`` row, never the hidden hands), as :func:`play`
    searches them with ``params`` (STRATEGY.params order), but over every legal card:
    no card is set aside first (:func:`sure_choices`, :func:`moon_stops`). Other entries
    are NaN. Returns the number of worlds (0, every entry NaN, with 5 or 6 seats, where
    the search does not run). means: float64[52]."""
    total = np.zeros(52, np.int64)
    worlds, per = search_totals(public, private, legal, rng, params, total, True)
    for c in range(52):
        means[c] = total[c] / per if per > 0 and (legal >> c) & 1 else np.nan
    return worlds


# -- the pass and the moon choice -----------------------------------------------------------
PASS_POOL = 6  # a searched pass picks 3 of this many cards: heuristic's 3, then the likeliest


@njit(cache=True)
def pass_pool(public, private, hparams, base):
    """Return the mask of the PASS_POOL cards a searched pass chooses from: ``base``
    (``heuristic``'s own pass, a 3-card mask), then the held cards ``heuristic`` most wants
    to pass (its ``pass_danger`` at the dealt hand; ties: the lower card). Fewer when the
    hand is smaller."""
    hand = private[V_HAND]
    pool = base
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    bonus = deal_bonus_card(public)
    while popcount(pool) < PASS_POOL and pool != hand:
        best = -1
        best_danger = -1e18
        rest = hand & ~pool
        while rest:
            c = lowest_card(rest)
            rest &= rest - 1
            d = heuristic.pass_danger(hand, c, omnibus, hparams[2], bonus)
            if d > best_danger:
                best = c
                best_danger = d
        pool |= 1 << best
    return pool


@njit(cache=True)
def pass_values(public, private, rng, worlds, passes, total):
    """Write into ``total[k]`` this seat's deal score (A2, moon included; lower is better)
    summed over ``worlds`` sampled deals after passing ``passes[k]`` (3-card masks of its
    hand), for every ``k``.

    Each world deals the cards this seat does not hold at random to the other seats; each
    of them passes as ``heuristic``, and the deal is played out with ``heuristic`` in every
    seat, each seeing its own hand and pass (:func:`heuristic_playout`). Every pass meets
    the same worlds (common random numbers). 3 or 4 seats.
    """
    me = private[V_SEAT]
    n = seats_of(public)
    size = hand_size(n)
    rules = public[P_RULES : P_RULES + RULES_LEN].copy()
    before = public[P_SCORES : P_SCORES + 4].copy()
    hparams = HEURISTIC_PARAMS.copy()
    sparams = SHOOTER_PARAMS.copy()
    no_noise = np.zeros(4, np.int64)
    no_shooters = np.zeros(4, np.int64)
    ds = np.zeros(4, np.int64)
    ns = np.zeros(4, np.int64)
    pub = public.copy()
    dealt = np.zeros((4, PRIVATE_LEN), np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    hidden = np.zeros(HIDDEN_LEN, np.int64)  # the world's passes, where the engine keeps them
    unseen = deal_deck(public) & ~private[V_HAND]
    deck = np.zeros(52, np.int64)
    m = 0
    while unseen:
        deck[m] = lowest_card(unseen)
        unseen &= unseen - 1
        m += 1
    total[:] = 0
    for _w in range(worlds):
        for i in range(m - 1, 0, -1):  # Fisher-Yates
            j = below(rng, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        dealt[:, :] = 0
        at = 0
        for s in range(n):
            dealt[s, V_SEAT] = s
            hand = private[V_HAND]
            if s != me:
                hand = 0
                for _k in range(size):
                    hand |= 1 << deck[at]
                    at += 1
            dealt[s, V_HAND] = hand
            dealt[s, V_DEALT] = hand
        for s in range(n):
            if s != me:
                hidden[H_PENDING_PASS + s] = heuristic.pass_cards(public, dealt[s], rng, hparams)
        for k in range(passes.shape[0]):
            hidden[H_PENDING_PASS + me] = passes[k]
            priv[:, :] = dealt
            apply_passes(public, priv, hidden)
            pub[:] = public
            start_play(pub, priv)
            heuristic_playout(pub, priv, rules, rng, no_noise, hparams, no_shooters, sparams)
            total[k] += final_score(pub, rules, before, me, ds, ns)


@njit(cache=True)
def searched_pass(public, private, rng, worlds):
    """Return the pass (3-card mask) with the lowest summed deal score over ``worlds``
    sampled deals (:func:`pass_values`) among the 3-card sets of :func:`pass_pool`;
    ties and 5 or 6 seats: ``heuristic``'s pass."""
    hparams = HEURISTIC_PARAMS.copy()
    base = heuristic.pass_cards(public, private, rng, hparams)
    if seats_of(public) > SEARCH_SEATS or worlds < 1:
        return base
    cards = np.zeros(PASS_POOL, np.int64)
    rest = pass_pool(public, private, hparams, base)
    n_cards = 0
    while rest:
        cards[n_cards] = lowest_card(rest)
        rest &= rest - 1
        n_cards += 1
    passes = np.zeros(20, np.int64)  # C(PASS_POOL, 3)
    k = 0
    for a in range(n_cards):
        for b in range(a + 1, n_cards):
            for c in range(b + 1, n_cards):
                passes[k] = (1 << cards[a]) | (1 << cards[b]) | (1 << cards[c])
                k += 1
    passes = passes[:k]
    total = np.zeros(k, np.int64)
    pass_values(public, private, rng, worlds, passes, total)
    best = base
    best_total = 1 << 62
    for i in range(k):
        if passes[i] == base:
            best_total = total[i]
    for i in range(k):
        if total[i] < best_total:
            best = passes[i]
            best_total = total[i]
    return best


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):
    """Pass ``heuristic``'s three cards (``passing`` 1); with ``passing`` 2 the 3 of
    :func:`pass_pool` that score best over ``pass_worlds`` sampled deals
    (:func:`searched_pass`); with 0 the three most dangerous cards by pimc's own table
    (module doc)."""
    if params[8] == 1:
        return heuristic.pass_cards(public, private, rng, HEURISTIC_PARAMS.copy())
    if params[8] == 2:
        return searched_pass(public, private, rng, int(params[17]))
    hand = private[V_HAND]
    spades = hand & SPADES_MASK
    low_spades = popcount(spades & ((1 << QUEEN_SPADES) - 1))
    danger = np.zeros(52, np.int64)
    keep_queen = (hand & QS_BIT) != 0 and low_spades >= 4
    for c in range(52):
        if not (hand >> c) & 1:
            continue
        u = c // 13
        r = c % 13
        length = popcount(hand & (SUIT_MASK << (13 * u)))
        if c == QUEEN_SPADES:
            d = 0 if keep_queen else 100
        elif u == 2 and r > 10:  # AS, KS
            d = 0 if low_spades >= 4 or keep_queen else 90 + r
        elif u == 2:
            d = r  # low spades guard the queen: keep them
        elif u == 3:
            d = 30 + 4 * r if r >= 8 else 2 * r
        else:
            d = 3 * r + (12 if length <= 3 else 0) + (6 if length <= 2 else 0)
        danger[c] = d * 64 + r * 4 + u  # ties: higher rank, then higher suit
    out = 0
    for _ in range(3):
        best = -1
        for c in range(52):
            free = ((hand >> c) & 1) != 0 and ((out >> c) & 1) == 0
            if free and (best < 0 or danger[c] > danger[best]):
                best = c
        out |= 1 << best
    return out


@njit(MOON_SIG, cache=True)
def moon_choice(public, private, rng, params):
    """New Moon: take the outcome that ends the game won, else the widest margin.

    Each outcome is scored by the engine's ``score_deal`` (clamp, Perfect 100, the JD in
    a moon deal included). An outcome that ends the game (A3) counts +1000 when the
    shooter is then lowest and -1000 otherwise, plus the lowest opponent's score minus
    the shooter's. Ties keep the rule's default (0).
    """
    me = public[P_MOON_SHOOTER]
    if me < 0:
        me = private[V_SEAT]
    rules = public[P_RULES : P_RULES + RULES_LEN]
    n = seats_of(public)
    before = public[P_SCORES : P_SCORES + n]
    points = public[P_POINTS : P_POINTS + n]
    tricks = public[P_TRICKS_WON : P_TRICKS_WON + n]
    jack = jack_taker_of(public)
    deal_score = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    best_choice = MOON_DEFAULT
    best_value = -(1 << 40)
    for choice in (MOON_ADD, MOON_SUBTRACT):
        score_deal(rules, points, tricks, jack, before, choice, deal_score, scores)
        low_other = 1 << 40
        for s in range(seats_of(public)):
            if s != me:
                low_other = min(low_other, scores[s])
        value = low_other - scores[me]
        if game_end(rules, scores, public[P_DEAL] + 1) >= 0:
            lowest = scores[me] < low_other or (scores[me] == low_other and not rules[R_NO_DRAW])
            value = 1000 + value if lowest else -1000 + value
        if value > best_value:
            best_value = value
            best_choice = choice
        elif value == best_value:
            best_choice = MOON_DEFAULT
    return best_choice


STRATEGY = CompiledStrategy(
    name="pimc",
    pass_cards=pass_cards,
    play=play,
    moon_choice=moon_choice,
    # The upper bounds keep a decision finite: worlds x playouts x legal cards playouts,
    # and an exact search whose size grows factorially with the cards left (16: the last
    # four tricks, already slow).
    params={
        "worlds": Param(80, int, 1, 10_000),
        "playouts": Param(1, int, 1, 10_000),
        "exact_cards": Param(8, int, 0, 16),
        "noise": Param(0, float, 0, 1),
        "tie": Param(1, int, -1, 1),
        "infer": Param(0.2, float, 0, 1),
        "rollout": Param(1, int, 0, 1),
        "pass_infer": Param(1, float, 0, 1),
        "passing": Param(2, int, 0, 2),
        "play_infer": Param(0.2, float, 0, 1),
        "defend": Param(2, int, 0, 2),
        "max_worlds": Param(0, int, 0, 100_000),
        "close": Param(1, float, 0, 26),
        "model_trust": Param(1, float, 0, 1),
        "model_noise": Param(0, float, 0, 4),
        "shooters": Param(0, float, 0, 1),
        "shooter_infer": Param(1, int, 0, 1),
        "pass_worlds": Param(200, int, 1, 100_000),
        "moon_plan": Param(1, int, 0, 1),
        "no_feed": Param(1, int, 0, 1),
    },
    param_help={
        "worlds": "hidden deals sampled per decision",
        "playouts": "policy playouts per world and legal card (before the exact search)",
        "exact_cards": "search exactly (max^n) once at most this many cards are left in hands",
        "noise": "probability that the playout policy plays a random legal card",
        "tie": "exact search, a seat indifferent between cards: 1 the worst for the deciding "
        "seat, -1 the best, 0 the lowest card",
        "infer": "keep a world giving the QS to a seat that passed up k chances to shed it "
        "with probability infer**k (1: no inference)",
        "rollout": "playout policy: 1 heuristic in every seat (each sees its own hand), "
        "0 the fast noisy policy (sees every hand)",
        "pass_infer": "keep a world where the seat that passed to this one kept k cards "
        "heuristic would have passed first with probability pass_infer**k (1: no inference)",
        "passing": "the pass: 2 searched (of the 6 cards heuristic most wants to pass, the 3 "
        "that score best over pass_worlds sampled deals), 1 heuristic's (moon passes "
        "included), 0 pimc's own table",
        "play_infer": "keep a world where the others played k cards heuristic would not "
        "have played there with probability play_infer**k (1: no inference)",
        "defend": "2: take a trick with points from a seat heuristic sees shooting the moon, "
        "and feed it no points, before searching, when shooter explains that seat's plays "
        "better than heuristic in one of 8 worlds; 1: whenever heuristic sees it; "
        "0: the search alone",
        "max_worlds": "on a close decision, sample worlds//2 more worlds at a time up to "
        "this many in all (the time budget: about max_worlds/worlds decisions; 0: off)",
        "close": "a decision is close while its two best cards' mean deal scores differ "
        "by less than this many points",
        "model_trust": "play_infer judges a seat only if some of 8 worlds explains all but "
        "this share of its plays as heuristic's (1: every seat)",
        "model_noise": "in the playouts another seat plays a random card with probability "
        "model_noise x its share of plays heuristic would not have made (0: noise)",
        "shooters": "in the playouts another seat plays as shooter (goes for the moon when "
        "its hand of the world makes it plausible) with this probability per world",
        "shooter_infer": "1: play_infer judges each other seat by heuristic or shooter, "
        "whichever explains its plays in the world; a seat shooter explains plays the "
        "playouts as shooter",
        "pass_worlds": "passing=2: sampled deals, each played out by heuristic after every "
        "candidate pass",
        "moon_plan": "1: while a moon is open to this seat and it holds points or a moon "
        "hand, each card is also scored going for the moon in the playouts and keeps the "
        "better plan (0: off)",
        "no_feed": "1: void in the led suit, discard no point card to the trick's winner "
        "so far when it holds every point taken, 13 at least (0: the search decides)",
    },
    description="perfect-information Monte Carlo: sampled deals, playouts, exact endings",
)
