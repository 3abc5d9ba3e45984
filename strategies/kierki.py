"""``kierki``: a rule-based Kierki player (docs/rules.md part B; compiled, deterministic).

It reads what it may see: the cards still out (dealt, not played, not its own), the suits
each seat has shown void in, the current trick. It never draws a random number. There is
no search: each decision scores a few candidate cards, so it keeps within a small factor
of ``random``'s speed (``scripts/bench_kierki.py``).

Penalty deals (B2: tricks, hearts, queens, men, KH, 7th and last, rebel)
    Each deal is one avoidance game with its own price list: a card's price is what
    taking it costs in this deal (:func:`cards_cost`; the rebel adds every category), a
    trick's base price what winning it costs before its cards (:func:`trick_base`: every
    trick in deal 1, the 7th (or with ``priced_trick=sixth`` the 6th) and the last in
    deal 6). The prices are the game's ``point_table`` (B1): hsim's, the servers' or the
    program's.

    - Lead: each suit's lowest legal card is scored by the points the lead is expected
      to cost (:func:`expected_cost`): the chance it wins (each seat that may follow is
      taken to play a random outstanding card of the suit) times the trick's price, the
      card's own, the priced cards of the suit that may fall under it and what a seat
      without the suit would discard. In deals 2, 3, 4 and 6 the highest card of each
      suit is scored too, and ties go to the higher card: a sure winner that costs
      nothing is cashed while no seat is void. Never in deals 1 and 7 (every trick
      costs) nor 5 (KH falls on the first trick its holder cannot follow).
    - Follow: with cards under the winning card it plays the one to be rid of first
      (:func:`most_dangerous`: a priced card, the queen under the king, KH under AH;
      else the likeliest to win a later trick). Last to play on a trick that costs it
      nothing (not in deal 5) it wins with its highest card instead. When every card it
      may play wins, it plays the one of lowest expected cost for the seats still to
      play; a sure winner is its highest card that is not priced.
    - Discard (void in the led suit): :func:`most_dangerous` of the hand: the most
      expensive priced card, else the card that would win most (over many outstanding
      cards of its suit, over a priced card still out, in a short suit).
    - Once nothing left in the deal can cost anything, it sheds its most dangerous card.

Trump deals (B3)
    - Trump choice: the suit of the first cards with the most cards, counting honours
      (6 points a card; A 4, K 3, Q 2, J 1). With ``allow_no_trump``, no trump when no
      suit holds 3 of the cards seen and they hold ``nt_honours`` aces and kings.
    - Lead: a trump that beats every trump out (drawing trumps); else a side-suit card
      that beats every card out in its suit and cannot be ruffed (no trump out, or no
      seat known void in the suit); else, with no trump out, its lowest trump; else the
      lowest card of its longest side suit.
    - Follow: last to play, it wins with its lowest winning card; earlier, with its
      lowest card that beats every card out in the suit, else (or when a later seat is
      known void in the suit and may ruff) it plays its lowest card.
    - Void: it ruffs or overruffs with its lowest trump that wins (one that beats every
      trump out when a later seat may overruff); else it discards its least useful card
      (low, from a short suit, not a sure winner).

Lottery (B4)
    Each legal card is scored by what it opens: in each direction it opens (up, down, or
    both for a new suit) every own card beyond it counts 1 (it comes nearer to being
    playable) and every outstanding card beyond it costs ``lottery_help`` divided by its
    distance (the next card helps another seat at once). Opening the lottery, the other
    suits' cards of the same rank count the same way. The best score is played.

Parameters (defaults: ``kierki(lottery_help=0.4,nt_honours=4)``, tuned in self-play):

- ``lottery_help``: lottery cost of the outstanding card next to a play (halved at
  distance 2, a third at 3, ...), against 1 for each own card;
- ``nt_honours``: with ``allow_no_trump``, the aces and kings among the first cards it
  needs to choose no trump when no suit is long (large: never).
"""

from __future__ import annotations

from numba import njit

from hsim.engine._numba import kernel
from hsim.engine.bits import above, below, highest_card, lowest_card, popcount, suit_bits
from hsim.engine.hearts import HEARTS_MASK, SUIT_MASK
from hsim.engine.kierki import (
    KH_BIT,
    KIND_KING_OF_HEARTS,
    KIND_LOTTERY,
    KIND_REBEL,
    KIND_TRICKS,
    KIND_TRUMP,
    MEN_MASK,
    QUEENS_MASK,
    TWOS,
    deal_penalty_cards,
    deck_mask,
    hand_size,
    priced_trick_penalty,
)
from hsim.engine.layout import (
    P_KIND,
    P_LED_SUIT,
    P_N_SEATS,
    P_PLAYED,
    P_RULES,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    P_TRUMP,
    P_VOIDS,
    R_ALLOW_NO_TRUMP,
    R_POINT_TABLE,
    R_PRICED_TRICK,
    TRUMP_NONE,
    V_HAND,
    V_SEAT,
)
from hsim.engine.native import PLAY_AT_SIG, data_ptr
from hsim.engine.signatures import PLAY_SIG, TRUMP_SIG
from hsim.strategies.random_bot import pass_cards  # Kierki never passes (B1)
from hsim.strategy.contract import CompiledStrategy, Param

# params array order
K_LOTTERY_HELP = 0
K_NT_HONOURS = 1

PENALTY_CARDS = HEARTS_MASK | QUEENS_MASK | MEN_MASK  # every card some penalty deal prices
QH_BIT = KH_BIT >> 1
JH_BIT = KH_BIT >> 2


@kernel
def void_count(public, me: int, n: int, first: int, count: int, s: int) -> int:
    """Return how many of the ``count`` seats from ``me + first`` on have shown void in
    suit ``s``."""
    k = 0
    seat = me + first
    for _ in range(count):
        if seat >= n:  # cheaper than a modulo by a variable
            seat -= n
        k += (public[P_VOIDS + seat] >> s) & 1
        seat += 1
    return k


# -- penalty deals (B2) -------------------------------------------------------------------


@kernel
def prices_of(public) -> int:
    """Return the code of the prices the deal is played under, which every price
    function below takes as ``p``: the ``point_table`` option (B1), the player count and
    the ``priced_trick`` option, packed as ``(point_table * 2 + n - 3) * 2 + priced_trick``.
    """
    n = public[P_N_SEATS]
    return (public[P_RULES + R_POINT_TABLE] * 2 + n - 3) * 2 + public[P_RULES + R_PRICED_TRICK]


@kernel
def trick_price(kind: int, p: int, cards: int, t: int) -> int:
    """Return the engine's penalty (<= 0, B2) of trick ``t`` (0-based) holding the cards of
    mask ``cards`` under the prices ``p`` (:func:`prices_of`)."""
    return priced_trick_penalty(kind, ((p >> 1) & 1) + 3, cards, t, p >> 2, p & 1)


@njit(cache=True)  # not inlined: called at many sites
def cards_cost(kind: int, p: int, cards: int) -> int:
    """Return what taking the cards of mask ``cards`` costs in a deal of ``kind`` (>= 0):
    the engine's trick penalty (B2) of those cards, less that of an empty trick, under
    the prices ``p`` (:func:`prices_of`).
    """
    if cards & PENALTY_CARDS == 0:
        return 0
    return trick_price(kind, p, 0, 0) - trick_price(kind, p, cards, 0)


@kernel
def priced_cards(kind: int) -> int:
    """Return the mask of the cards that cost something in a deal of ``kind``."""
    if kind == KIND_REBEL:
        return PENALTY_CARDS
    return deal_penalty_cards(kind)


@njit(cache=True)  # not inlined: called at many sites
def trick_base(kind: int, p: int, t: int) -> int:
    """Return what winning trick ``t`` (0-based) costs before its cards (>= 0) under the
    prices ``p`` (:func:`prices_of`)."""
    return -trick_price(kind, p, 0, t)


@kernel
def worst_card_cost(kind: int, p: int, cards: int) -> int:
    """Return the price of the most expensive single card of mask ``cards``."""
    m = cards & priced_cards(kind)
    if m == 0:
        return 0
    if kind != KIND_REBEL:
        return cards_cost(kind, p, 1 << lowest_card(m))  # one price per deal
    best = 0
    for group in (KH_BIT, QH_BIT, JH_BIT, QUEENS_MASK, MEN_MASK, HEARTS_MASK):
        if m & group:
            v = cards_cost(kind, p, 1 << lowest_card(m & group))
            if v > best:
                best = v
    return best


@kernel
def danger(kind: int, p: int, c: int, hand: int, out: int) -> float:
    """Return how likely card ``c`` is to win an unwanted trick later, and how much it
    would catch: the outstanding cards of its suit it beats against those that beat it,
    a penalty card still out under it, a short suit.
    """
    out_s = out & suit_bits(c // 13)
    n_below = popcount(out_s & below(c))
    n_above = popcount(out_s & above(c))
    d = float(c % 13) + 2.0 * n_below - 3.0 * n_above
    if n_above == 0 and n_below > 0:
        d += 8.0  # a sure winner once the suit is led
    d += 0.2 * cards_cost(kind, p, out_s & below(c))
    if popcount(hand & suit_bits(c // 13)) <= 2:
        d += 5.0  # a void to come
    return d


@kernel
def most_dangerous(kind: int, p: int, cards: int, hand: int, out: int) -> int:
    """Return the card of non-empty mask ``cards`` to get rid of first: the most
    expensive, then the most dangerous (:func:`danger`)."""
    # danger grows with the rank within a suit: only the priced cards and the highest
    # card of each suit can come first
    m = cards & priced_cards(kind)
    for s in range(4):
        mine = cards & suit_bits(s)
        if mine:
            m |= 1 << highest_card(mine)
    best = -1
    best_key = -1e18
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = 1000.0 * cards_cost(kind, p, 1 << c) + danger(kind, p, c, hand, out)
        if key > best_key:
            best_key = key
            best = c
    return best


@kernel
def expected_cost(
    kind: int,
    p: int,
    t: int,
    c: int,
    trick: int,
    out: int,
    followers: int,
    voids: int,
    dump: float,
) -> float:
    """Return the points that playing ``c`` as the (current or new) winner of the trick
    is expected to cost.

    ``trick``: the cards already in it; ``followers``: the seats still to play after it
    that may hold its suit, ``voids`` those known void (they discard, ``dump`` each).
    Each follower is taken to play a random outstanding card of the suit: the trick is
    won when all of them play under ``c``. ``p``: the prices (:func:`prices_of`).
    """
    out_s = out & suit_bits(c // 13)
    n_out = popcount(out_s)
    low = out_s & below(c)
    n_below = popcount(low)
    k = followers if followers < n_out else n_out
    if k <= 0 or n_below == n_out:
        p_win = 1.0
    elif n_below < k:
        p_win = 0.0  # some follower must play over it
    else:
        f = n_below / n_out
        p_win = 1.0
        for _ in range(k):
            p_win *= f
    if p_win == 0.0:
        return 0.0
    cost = float(trick_base(kind, p, t) + cards_cost(kind, p, trick | (1 << c)))
    if k > 0 and n_below > 0:
        cost += cards_cost(kind, p, low) * k / n_below
    cost += voids * dump
    if followers > k:
        cost += (followers - k) * dump  # seats without the suit discard too
    return p_win * cost


@kernel
def penalty_lead(public, kind: int, n: int, me: int, hand: int, legal: int, out: int) -> int:
    """Return the lead of a penalty deal with the lowest expected cost (see module doc)."""
    p = prices_of(public)
    t = public[P_TRICK]
    dump = float(worst_card_cost(kind, p, out))
    # Where every trick may cost (B2.1, B2.7) or one card costs a fortune that its
    # holder drops on the first trick it can (B2.5), high leads only feed the others.
    shed_high = kind not in (KIND_TRICKS, KIND_KING_OF_HEARTS, KIND_REBEL)
    best = -1
    best_key = 1e18
    for s in range(4):
        mine = legal & suit_bits(s)
        if mine == 0:
            continue
        voids = void_count(public, me, n, 1, n - 1, s)
        length = popcount(hand & suit_bits(s))
        low = lowest_card(mine)
        for c in (low, highest_card(mine)):
            if c != low and not shed_high:
                continue
            key = expected_cost(kind, p, t, c, 0, out, n - 1 - voids, voids, dump)
            key -= 0.01 * (c % 13) + 0.001 * (4 - min(length, 4))
            if key < best_key:
                best_key = key
                best = c
    return best


@kernel
def penalty_follow(public, kind: int, n: int, me: int, hand: int, legal: int, out: int) -> int:
    """Return the card to follow suit with in a penalty deal (see module doc)."""
    p = prices_of(public)
    t = public[P_TRICK]
    trick = public[P_TRICK_CARDS]
    led = public[P_LED_SUIT]
    remaining = n - 1 - public[P_TRICK_LEN]
    w = highest_card(trick & suit_bits(led))
    under = legal & below(w)
    over = legal & above(w)
    if remaining == 0 and over and kind != KIND_KING_OF_HEARTS:
        # last to play: the cheapest win, the highest card among equals (not in B2.5,
        # where the lead it brings is a risk)
        base = trick_base(kind, p, t)
        best = highest_card(over)
        best_cost = base + cards_cost(kind, p, trick | (1 << best))
        plain = over & ~priced_cards(kind)
        if best_cost and plain:
            best = highest_card(plain)
            best_cost = base + cards_cost(kind, p, trick | (1 << best))
        if best_cost == 0 or under == 0:
            return best  # a free trick: win it with a high card
    if under:
        return most_dangerous(kind, p, under, hand, out)
    voids = void_count(public, me, n, 1, remaining, led)
    dump = float(worst_card_cost(kind, p, out))
    best = -1
    best_key = 1e18
    m = over
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = expected_cost(kind, p, t, c, trick, out, remaining - voids, voids, dump)
        key -= 0.01 * (c % 13)
        if key < best_key:
            best_key = key
            best = c
    return best


@kernel
def penalty_play(public, private, legal: int) -> int:
    """Return the card to play in a penalty deal (B2)."""
    kind = public[P_KIND]
    n = public[P_N_SEATS]
    me = private[V_SEAT]
    hand = private[V_HAND]
    out = deck_mask(n) & ~public[P_PLAYED] & ~hand
    p = prices_of(public)
    t = public[P_TRICK]
    live = cards_cost(kind, p, out | hand | public[P_TRICK_CARDS])
    if live == 0 and trick_base(kind, p, t) == 0:
        free = True
        for u in range(t + 1, hand_size(n)):
            if trick_base(kind, p, u):
                free = False
                break
        if free:
            return most_dangerous(kind, p, legal, hand, out)
    led = public[P_LED_SUIT]
    if led < 0:
        return penalty_lead(public, kind, n, me, hand, legal, out)
    if legal & suit_bits(led):
        return penalty_follow(public, kind, n, me, hand, legal, out)
    return most_dangerous(kind, p, legal, hand, out)


# -- trump deals (B3) ---------------------------------------------------------------------


@kernel
def top_cards(cards: int, out_s: int) -> int:
    """Return the cards of mask ``cards`` (one suit) that beat every card of ``out_s``."""
    if out_s == 0:
        return cards
    return cards & ~((2 << highest_card(out_s)) - 1)


@kernel
def may_overruff(public, me: int, n: int, remaining: int, led: int, trump: int) -> bool:
    """Return whether a seat still to play is known void in ``led`` but not in trumps."""
    seat = me
    for _ in range(remaining):
        seat = seat + 1 if seat + 1 < n else 0
        v = public[P_VOIDS + seat]
        if (v >> led) & 1 and not (v >> trump) & 1:
            return True
    return False


@kernel
def trump_discard(cards: int, hand: int, out: int) -> int:
    """Return the least useful card of non-empty mask ``cards``: low, from a short suit,
    not a sure winner."""
    best = -1
    best_key = 1 << 30
    for s in range(4):
        mine = cards & suit_bits(s)
        if mine == 0:
            continue
        c = lowest_card(mine)
        key = 3 * (c % 13) + 2 * popcount(hand & suit_bits(s))
        if top_cards(1 << c, out & suit_bits(s)):
            key += 100
        if key < best_key:
            best_key = key
            best = c
    return best


@kernel
def trump_lead(public, me: int, n: int, hand: int, legal: int, out: int, trump: int) -> int:
    """Return the lead of a trump deal (see module doc)."""
    tmask = suit_bits(trump) if trump >= 0 else 0
    my_t = legal & tmask
    out_t = out & tmask
    if my_t and out_t and highest_card(my_t) > highest_card(out_t):
        return highest_card(my_t)
    best = -1
    best_n = -1
    for s in range(4):
        if s == trump:
            continue
        mine = legal & suit_bits(s)
        if mine == 0:
            continue
        out_s = out & suit_bits(s)
        c = highest_card(mine)
        if top_cards(1 << c, out_s) == 0:
            continue
        if out_t and (out_s == 0 or void_count(public, me, n, 1, n - 1, s)):
            continue  # may be ruffed
        k = popcount(out_s)
        if k > best_n:
            best_n = k
            best = c
    if best >= 0:
        return best
    if my_t and out_t == 0:
        return lowest_card(my_t)  # no one else holds a trump
    side = legal & ~tmask
    if side == 0:
        return lowest_card(legal)
    best_len = 0
    for s in range(4):
        mine = side & suit_bits(s)
        k = popcount(mine)
        if k > best_len:
            best_len = k
            best = lowest_card(mine)
    return best


@kernel
def trump_play(public, private, legal: int) -> int:
    """Return the card to play in a trump deal (B3): win tricks."""
    n = public[P_N_SEATS]
    me = private[V_SEAT]
    hand = private[V_HAND]
    out = deck_mask(n) & ~public[P_PLAYED] & ~hand
    trump = public[P_TRUMP]
    led = public[P_LED_SUIT]
    if led < 0:
        return trump_lead(public, me, n, hand, legal, out, trump)
    tmask = suit_bits(trump) if trump >= 0 else 0
    out_t = out & tmask
    trick = public[P_TRICK_CARDS]
    remaining = n - 1 - public[P_TRICK_LEN]
    smask = suit_bits(led)
    follow = legal & smask
    if follow:
        if led != trump and trick & tmask:
            return lowest_card(follow)  # ruffed: it cannot win
        over = follow & above(highest_card(trick & smask))
        if over == 0:
            return lowest_card(follow)
        if remaining == 0:
            return lowest_card(over)
        if led != trump and out_t and may_overruff(public, me, n, remaining, led, trump):
            return lowest_card(follow)
        top = top_cards(over, out & smask)
        if top:
            return lowest_card(top)
        return lowest_card(follow)  # keep the high card for when it is a sure winner
    my_t = legal & tmask
    if my_t:
        if trick & tmask:
            my_t &= above(highest_card(trick & tmask))
        if my_t:
            if remaining and out_t and may_overruff(public, me, n, remaining, led, trump):
                top = top_cards(my_t, out_t)
                if top:
                    return lowest_card(top)
            return lowest_card(my_t)
        side = legal & ~tmask
        return trump_discard(side if side else legal, hand, out)
    return trump_discard(legal, hand, out)


@njit(TRUMP_SIG, cache=True)
def trump_choice(public, private, rng, params):
    """Name the suit of the first cards with the best count and high cards (B3); no trump
    (where allowed) for a spread hand of aces and kings."""
    seen = private[V_HAND]
    best = 0
    best_key = -1
    longest = 0
    for s in range(4):
        mine = (seen >> (13 * s)) & SUIT_MASK
        k = popcount(mine)
        if k > longest:
            longest = k
        honours = 0
        for r in range(9, 13):
            if (mine >> r) & 1:
                honours += r - 8  # J 1, Q 2, K 3, A 4
        key = (6 * k + honours) * 64 + honours * 4 + s  # ties: more honours, higher suit
        if key > best_key:
            best_key = key
            best = s
    if public[P_RULES + R_ALLOW_NO_TRUMP] and longest < 3:
        top = popcount(seen & ((TWOS << 12) | (TWOS << 11)))
        if top >= params[K_NT_HONOURS]:
            return TRUMP_NONE
    return best


# -- the lottery (B4) ---------------------------------------------------------------------


@kernel
def run_value(hand: int, others: int, c: int, beyond: int, help_weight: float) -> float:
    """Return the lottery value of opening the cards of mask ``beyond`` (the rest of
    ``c``'s suit on one side of it): 1 for each own card (it comes nearer to being
    playable), minus ``help_weight`` / distance for each outstanding card (it helps the
    others, the next card at once)."""
    v = float(popcount(hand & beyond))
    m = others & beyond
    while m:
        x = lowest_card(m)
        m &= m - 1
        v -= help_weight / abs(x - c)
    return v


@kernel
def lottery_play(public, private, legal: int, help_weight: float) -> int:
    """Return the lottery card (B4) that best opens own cards and least helps others."""
    n = public[P_N_SEATS]
    hand = private[V_HAND]
    table = public[P_PLAYED]
    others = deck_mask(n) & ~table & ~hand
    best = -1
    best_key = -1e18
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        row = (table >> (13 * (c // 13))) & SUIT_MASK
        key = 0.0
        if row == 0 or c % 13 > highest_card(row):
            key += run_value(hand, others, c, above(c), help_weight)
        if row == 0 or c % 13 < lowest_card(row):
            key += run_value(hand, others, c, below(c), help_weight)
        if table == 0:  # the first card sets the rank every other suit opens with
            rank = (TWOS << (c % 13)) & ~(1 << c)
            key += popcount(hand & rank) - help_weight * popcount(others & rank)
        key += 0.001 * (c % 13)
        if key > best_key:
            best_key = key
            best = c
    return best


# -- the entry point ----------------------------------------------------------------------


@njit(PLAY_AT_SIG, cache=True, _nrt=False)
def play_at(public, private, legal, rng, params):
    """Play by the deal kind: avoid the deal's penalties, win trump tricks, shed well; the
    native entry the loops call (:mod:`hsim.engine.native`), over the arrays' data
    pointers. Compiled without NRT, as the heuristic's decisions: it allocates nothing."""
    kind = public[P_KIND]
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    if kind == KIND_LOTTERY:
        return lottery_play(public, private, legal, params[K_LOTTERY_HELP])
    if kind == KIND_TRUMP:
        return trump_play(public, private, legal)
    return penalty_play(public, private, legal)


@njit(PLAY_SIG, cache=True, _nrt=False)
def play(public, private, legal, rng, params):
    """Play by the deal kind (:func:`play_at` over the arrays' data)."""
    return play_at(data_ptr(public), data_ptr(private), legal, data_ptr(rng), data_ptr(params))


STRATEGY = CompiledStrategy(
    name="kierki",
    pass_cards=pass_cards,
    play=play,
    trump_choice=trump_choice,
    native_play=play_at,
    games=("kierki",),
    params={"lottery_help": Param(0.4, float, 0, 10), "nt_honours": Param(4, float, 0, 9)},
    param_help={
        "lottery_help": "lottery: cost of the outstanding card next to a play (/distance)",
        "nt_honours": "allow_no_trump: aces and kings seen needed for no trump (no long suit)",
    },
    description="Kierki: avoids each deal's penalties, wins trump tricks, sheds well",
)
