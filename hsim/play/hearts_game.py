"""The game loop: one state machine for compiled and plain-Python seats.

:func:`next_decision` moves a game on to the next decision (dealing when a deal starts)
and names the seat and the kind of decision; the answer goes to ``submit_pass``,
``submit_play`` or ``submit_moon``, which validate it and move the game on (scoring a
finished deal, ending the game). :func:`play_games` drives that loop in compiled code
for compiled strategies, given as first-class function values (one bundle per seat,
signatures in :mod:`hsim.engine.signatures`) and called through them, except the light
built-in bots it calls directly (:mod:`hsim.play.seats`); the plain-Python driver in
:mod:`hsim.play.games` drives the same kernels for Python strategies.
"""

from __future__ import annotations

from numba import njit, types

from hsim.engine._numba import kernel, own_code, with_globals
from hsim.engine.common import write_game_rows, write_seat_row
from hsim.engine.hearts import (
    apply_passes,
    bonus_card,
    deal_deck,
    game_end,
    hand_size,
    jack_taker_of,
    legal_plays,
    moon_choice_asked,
    moon_shooter,
    pass_direction,
    play_card,
    rules_seats,
    score_deal,
    seats_of,
    shuffle_deal,
    start_play,
    taker_of,
    valid_pass,
)
from hsim.engine.layout import (
    D_KIND,
    DEAL_COLS,
    EXTRA_STRIDE,
    H_BASE_OVER,
    H_DEAL_ROWS,
    H_DECIDER,
    H_ERROR_CODE,
    H_ERROR_VALUE,
    H_EXTRA,
    H_EXTRA_N,
    H_GAME,
    H_GAME_ROWS,
    H_MOON_CHOICE,
    H_PASS_SEAT,
    H_PENDING_PASS,
    H_PHASE,
    H_SCRATCH,
    MAX_SEATS,
    MOON_SUBTRACT,
    P_DEAL,
    P_KIND,
    P_MOON_SHOOTER,
    P_N_SEATS,
    P_OUT,
    P_PASS_DIR,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_TO_ACT,
    P_TRICK,
    P_TRICKS_WON,
    PASS_HOLD,
    PH_DEAL_START,
    PH_GAME_OVER,
    PH_MOON,
    PH_PASS,
    PH_PLAY,
    R_MAX_DEALS,
    ST_ERR_ILLEGAL,
    ST_ERR_MOON,
    ST_ERR_NOT_HELD,
    ST_ERR_PASS,
    ST_ERR_TRUMP,
    ST_GAME_OVER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_OK,
    V_HAND,
    V_SEAT,
    X_DEALS,
    X_ENDED,
    X_SCORES,
)
from hsim.engine.plays import write_plays
from hsim.engine.rng import PURPOSE_DEAL, PURPOSE_SEAT, stream_state
from hsim.engine.signatures import MOON_FN, PASS_FN, PLAY_FN, loop_signature
from hsim.play.seats import (
    call_moon,
    call_pass,
    call_pass_inlined,
    call_play,
    call_play_inlined,
)
from hsim.strategy.notice import loop_name


@kernel
def new_game(public, private, hidden, rngs, rules, run_seed, game) -> None:
    """Reset the state arrays for game ``game`` of run ``run_seed`` (uint64).

    Derives the deal stream and each seat's stream (hsim.engine.rng), zeroes the scores and
    sets the phase to the start of deal 0. Output row counters in ``hidden`` are kept.
    The seats are the rules' (``players``, 3 to 6, docs/rules.md A1.1); the rows of
    ``private`` and the streams past them stay unused.
    """
    public[:] = 0
    public[P_N_SEATS] = rules_seats(rules)
    public[P_MOON_SHOOTER] = -1
    for i in range(P_KIND, P_OUT):  # Kierki's facts: none yet
        public[i] = -1
    for r in range(rules.shape[0]):
        public[P_RULES + r] = rules[r]
    for s in range(private.shape[0]):
        private[s, :] = 0
        private[s, V_SEAT] = s
    hidden[H_GAME] = game
    hidden[H_PHASE] = PH_DEAL_START
    hidden[H_ERROR_CODE] = 0
    hidden[H_BASE_OVER] = 0
    for k in range(hidden[H_EXTRA_N]):  # other scorings keep their rules, restart scores
        base = H_EXTRA + k * EXTRA_STRIDE
        for j in range(X_SCORES, EXTRA_STRIDE):
            hidden[base + j] = 0
    rngs[0, 0] = stream_state(run_seed, game, PURPOSE_DEAL)
    for s in range(rngs.shape[0] - 1):
        rngs[1 + s, 0] = stream_state(run_seed, game, PURPOSE_SEAT + s)


@kernel
def begin_deal(public, private, hidden, rngs, rules) -> None:
    """Deal the cards of deal ``public[P_DEAL]`` and enter its pass (or play) phase."""
    direction = pass_direction(rules, public[P_DEAL])
    public[P_PASS_DIR] = direction
    public[P_MOON_SHOOTER] = -1
    shuffle_deal(private, hidden, rngs[0], seats_of(public), deal_deck(public))
    start_play(public, private)
    if direction == PASS_HOLD:
        hidden[H_PHASE] = PH_PLAY
    else:
        hidden[H_PHASE] = PH_PASS
        hidden[H_PASS_SEAT] = 0


@kernel
def _fail(hidden, code, value):
    hidden[H_ERROR_CODE] = code
    hidden[H_ERROR_VALUE] = value
    return code


@kernel
def submit_pass(public, private, hidden, cards) -> int:
    """Record the pass of the seat being asked (``hidden[H_PASS_SEAT]``); ST_OK or ST_ERR_PASS.

    cards: 3-card mask from that seat's hand. After the last seat, all passes happen at
    once and play starts (A1.2, A1.3).
    """
    s = hidden[H_PASS_SEAT]
    if not valid_pass(private[s, V_HAND], cards):
        return _fail(hidden, ST_ERR_PASS, cards)
    hidden[H_PENDING_PASS + s] = cards
    if s + 1 < seats_of(public):
        hidden[H_PASS_SEAT] = s + 1
    else:
        apply_passes(public, private, hidden)
        start_play(public, private)
        hidden[H_PHASE] = PH_PLAY
    return ST_OK


@kernel
def write_deal_rows(public, private, hidden, deal_score, scores, outcome, shooter, deal_out):
    """Append one deal row per seat to ``deal_out`` (columns D_* of the layout)."""
    row = hidden[H_DEAL_ROWS]
    after_end = hidden[H_BASE_OVER]
    n = seats_of(public)
    for s in range(n):
        r = deal_out[row + s]
        moon = outcome if s == shooter else 0
        write_seat_row(r, public, private, hidden, s, deal_score[s], scores[s], moon, after_end)
        for c in range(D_KIND, DEAL_COLS):  # Kierki's columns
            r[c] = -1
    write_plays(public, deal_out, row, n)  # with --record plays only
    hidden[H_DEAL_ROWS] = row + n


@kernel
def finish_deal(public, private, hidden, rules, choice, deal_out, game_out) -> None:
    """Score the finished deal (A2), record it, and end the game or start the next deal (A3).

    With other scorings (``hidden[H_EXTRA_N]`` > 0, ``--score-also``) the deal is also
    scored under each, and deals go on until the base game and every other scoring's game
    have ended; after the base game's end its scores stay as they were (strategies keep
    seeing them) and the deal rows are flagged D_AFTER_END.
    """
    n = seats_of(public)  # 3 to 6 (A1.1)
    points = public[P_POINTS : P_POINTS + n]
    tricks = public[P_TRICKS_WON : P_TRICKS_WON + n]
    before = public[P_SCORES : P_SCORES + n]
    jack = jack_taker_of(public)
    deal_score = hidden[H_SCRATCH : H_SCRATCH + n]
    scores = hidden[H_SCRATCH + n : H_SCRATCH + 2 * n]
    outcome = score_deal(rules, points, tricks, jack, before, choice, deal_score, scores)
    shooter = moon_shooter(rules, points, jack)
    base_over = hidden[H_BASE_OVER]
    if base_over:
        for s in range(n):
            scores[s] = before[s]
    write_deal_rows(public, private, hidden, deal_score, scores, outcome, shooter, deal_out)
    deals = public[P_DEAL] + 1
    all_over = True
    if not base_over:
        for s in range(n):
            public[P_SCORES + s] = scores[s]
        ended_by = game_end(rules, scores, deals)
        if ended_by >= 0:
            write_game_rows(hidden, game_out, scores, n, deals, ended_by, 0, False)
            hidden[H_BASE_OVER] = 1
        else:
            all_over = False
    x_deal = hidden[H_SCRATCH + 2 * n : H_SCRATCH + 3 * n]
    x_new = hidden[H_SCRATCH + 3 * n : H_SCRATCH + 4 * n]
    for k in range(hidden[H_EXTRA_N]):
        base = H_EXTRA + k * EXTRA_STRIDE
        if hidden[base + X_ENDED]:
            continue
        x_rules = hidden[base : base + X_SCORES]
        x_scores = hidden[base + X_SCORES : base + X_SCORES + n]
        x_jack = taker_of(public, bonus_card(x_rules))  # its own bonus card (A2.3)
        score_deal(x_rules, points, tricks, x_jack, x_scores, choice, x_deal, x_new)
        for s in range(n):
            x_scores[s] = x_new[s]
        hidden[base + X_DEALS] = deals
        ended_by = game_end(x_rules, x_scores, deals)
        if ended_by >= 0:
            hidden[base + X_ENDED] = 1
            write_game_rows(hidden, game_out, x_scores, n, deals, ended_by, k + 1, False)
        else:
            all_over = False
    if all_over:
        hidden[H_PHASE] = PH_GAME_OVER
    else:
        public[P_DEAL] = deals
        hidden[H_PHASE] = PH_DEAL_START


@kernel
def max_deals_of(rules, hidden) -> int:
    """Return the most deals a game can take: the largest ``max_deals`` of every scoring."""
    most = rules[R_MAX_DEALS]
    for k in range(hidden[H_EXTRA_N]):
        most = max(most, hidden[H_EXTRA + k * EXTRA_STRIDE + R_MAX_DEALS])
    return most


@kernel
def submit_play(public, private, hidden, rules, card, deal_out, game_out) -> int:
    """Play ``card`` for the seat to act; ST_OK, ST_ERR_NOT_HELD or ST_ERR_ILLEGAL.

    After the last trick the deal is scored, unless the shooter's New Moon choice is
    needed first (phase PH_MOON).
    """
    legal = legal_plays(public, rules, private[public[P_TO_ACT], V_HAND])
    return submit_legal_play(public, private, hidden, rules, card, legal, deal_out, game_out)


@kernel
def submit_legal_play(public, private, hidden, rules, card, legal, deal_out, game_out) -> int:
    """:func:`submit_play` given ``legal``, the mask :func:`legal_plays` gives for the hand
    of the seat to act now (the compiled loop has it already: the mask it showed the
    strategy), so that it is not worked out twice per card.
    """
    s = public[P_TO_ACT]
    if card < 0 or card > 51 or not (private[s, V_HAND] >> card) & 1:
        return _fail(hidden, ST_ERR_NOT_HELD, card)
    if not (legal >> card) & 1:
        return _fail(hidden, ST_ERR_ILLEGAL, card)
    play_card(public, private, s, card)
    n = seats_of(public)
    if public[P_TRICK] == hand_size(n):
        points = public[P_POINTS : P_POINTS + n]
        shooter = moon_shooter(rules, points, jack_taker_of(public))
        if moon_choice_asked(rules, public[P_SCORES : P_SCORES + n], shooter):
            public[P_MOON_SHOOTER] = shooter
            hidden[H_PHASE] = PH_MOON
        else:
            finish_deal(public, private, hidden, rules, 0, deal_out, game_out)
    return ST_OK


@kernel
def submit_moon(public, private, hidden, rules, choice, deal_out, game_out) -> int:
    """Apply the shooter's New Moon choice (0 default, 1 add, 2 subtract); ST_OK or ST_ERR_MOON."""
    if choice < 0 or choice > MOON_SUBTRACT:
        return _fail(hidden, ST_ERR_MOON, choice)
    hidden[H_MOON_CHOICE] = choice
    finish_deal(public, private, hidden, rules, choice, deal_out, game_out)
    return ST_OK


@kernel
def next_decision(public, private, hidden, rngs, rules) -> int:
    """Move the game on to its next decision and say whose and which it is.

    Deals the cards when a deal starts. Returns ST_NEED_PASS, ST_NEED_PLAY or
    ST_NEED_MOON with the deciding seat in ``hidden[H_DECIDER]`` (and
    ``public[P_TO_ACT]``), or ST_GAME_OVER. The answer goes to the matching
    ``submit_*`` kernel, whoever gives it: a compiled strategy or a Python one.
    """
    if hidden[H_PHASE] == PH_DEAL_START:
        begin_deal(public, private, hidden, rngs, rules)
    phase = hidden[H_PHASE]
    if phase == PH_PASS:
        s = hidden[H_PASS_SEAT]
        public[P_TO_ACT] = s
        st = ST_NEED_PASS
    elif phase == PH_PLAY:
        s = public[P_TO_ACT]
        st = ST_NEED_PLAY
    elif phase == PH_MOON:
        s = public[P_MOON_SHOOTER]
        public[P_TO_ACT] = s
        st = ST_NEED_MOON
    else:
        return ST_GAME_OVER
    hidden[H_DECIDER] = s
    return st


PLAY_GAMES_SIG = loop_signature(
    types.UniTuple(PASS_FN, MAX_SEATS),
    types.UniTuple(PLAY_FN, MAX_SEATS),
    types.UniTuple(MOON_FN, MAX_SEATS),
)


@njit(PLAY_GAMES_SIG, cache=True, _nrt=False)
def play_games(
    run_seed,
    first_game,
    n_games,
    rules,
    codes,
    pass_fns,
    play_fns,
    moon_fns,
    params,
    public,
    private,
    hidden,
    rngs,
    deal_out,
    game_out,
):
    """Play games ``first_game ..`` with compiled seats; return how many were completed.

    codes: int64[4, N_CODES], how each seat's decisions are called
    (:func:`hsim.play.seats.seat_codes`): a built-in directly, else its function in
    ``pass_fns``, ``play_fns``, ``moon_fns`` (one per seat). Stops early, between games,
    when ``deal_out`` could not hold another game of ``max_deals`` deals, or on an error
    (``hidden[H_ERROR_CODE]`` set, the failing game in ``hidden[H_GAME]`` and seat in
    ``hidden[H_DECIDER]``). Rows are appended from the counters ``hidden[H_DEAL_ROWS]``
    and ``hidden[H_GAME_ROWS]``.
    """
    n = rules_seats(rules)
    need = n * max_deals_of(rules, hidden)
    done = 0
    while done < n_games:
        if deal_out.shape[0] - hidden[H_DEAL_ROWS] < need:
            break
        if game_out.shape[0] - hidden[H_GAME_ROWS] < n * (1 + hidden[H_EXTRA_N]):
            break
        new_game(public, private, hidden, rngs, rules, run_seed, first_game + done)
        st = next_decision(public, private, hidden, rngs, rules)
        while st != ST_GAME_OVER:
            s = hidden[H_DECIDER]
            if st == ST_NEED_PLAY:
                legal = legal_plays(public, rules, private[s, V_HAND])
                card = call_play(
                    codes[s], play_fns, s, public, private[s], legal, rngs[1 + s], params[s]
                )
                st = submit_legal_play(
                    public, private, hidden, rules, card, legal, deal_out, game_out
                )
            elif st == ST_NEED_PASS:
                cards = call_pass(codes[s], pass_fns, s, public, private[s], rngs[1 + s], params[s])
                st = submit_pass(public, private, hidden, cards)
            else:
                choice = call_moon(
                    codes[s], moon_fns, s, public, private[s], rngs[1 + s], params[s]
                )
                st = submit_moon(public, private, hidden, rules, choice, deal_out, game_out)
            if st != ST_OK:
                return done
            st = next_decision(public, private, hidden, rngs, rules)
        done += 1
    return done


#: The loops compiled with a bot in them, by the bot's name: (its native play and pass
#: entries, the loop) (:func:`play_games_with`).
_LOOPS_WITH: dict[str, tuple[tuple, object]] = {}


def can_play_in_loop(bundle) -> bool:
    """Return whether ``bundle`` can be compiled into a loop of its own
    (:func:`play_games_with`): it asks for one (``in_loop``) and its native play and pass
    entries are hsim's own code, whose source is in the cache key. A strategy file or
    module that sets ``in_loop`` plays at its native entries instead."""
    entries = (bundle.native_play, bundle.native_pass)
    return bundle.in_loop and all(
        getattr(e, "py_func", None) is not None and own_code(e.py_func) for e in entries
    )


def play_games_with(bundle):
    """Return :func:`play_games` compiled with ``bundle``'s native pass and play inlined.

    bundle: a built-in :class:`hsim.strategy.contract.CompiledStrategy` with native entries and
    ``in_loop`` set (hsim's own code only: its source is in the cache key,
    :func:`hsim.engine._numba.with_globals`). The loop is play_games' own code, with
    :func:`hsim.play.seats.call_play_inlined` / ``call_pass_inlined`` for its calls:
    seats coded :data:`hsim.play.seats.INLINED` (``seat_codes(..., inlined=bundle)``)
    run the bot's decisions inside the loop, any other seat as in play_games. Compiled
    (or loaded from the cache) on the first call in a process, then kept.

    :raises ValueError: not :func:`can_play_in_loop`.
    """
    entries = (bundle.native_play, bundle.native_pass)
    kept = _LOOPS_WITH.get(bundle.name)
    if kept is not None and kept[0][0] is entries[0] and kept[0][1] is entries[1]:
        return kept[1]  # the same entries: a bundle of another's name never gets this loop
    if not can_play_in_loop(bundle):
        raise ValueError(f"{bundle.name}: only a built-in bot's native entries go in a loop")
    name = loop_name(bundle.name)
    play = kernel(
        with_globals(
            call_play_inlined,
            name.replace("play_games", "call_play"),
            inlined_play=kernel(bundle.native_play.py_func),
        )
    )
    pass_ = kernel(
        with_globals(
            call_pass_inlined,
            name.replace("play_games", "call_pass"),
            inlined_pass=kernel(bundle.native_pass.py_func),
        )
    )
    code = with_globals(play_games.py_func, name, call_play=play, call_pass=pass_)
    loop = njit(PLAY_GAMES_SIG, cache=True, _nrt=False)(code)
    _LOOPS_WITH[bundle.name] = (entries, loop)
    return loop


def loops_with_bots() -> tuple:
    """Return the loops :func:`play_games_with` has made in this process (none is made
    here: asking which were compiled must not compile one)."""
    return tuple(loop for _, loop in _LOOPS_WITH.values())


ERROR_NAMES = {
    ST_ERR_PASS: "a pass that is not exactly three cards of its hand",
    ST_ERR_NOT_HELD: "a card it does not hold",
    ST_ERR_ILLEGAL: "a card the rules do not allow now",
    ST_ERR_MOON: "a moon choice other than 0 (default), 1 (add) or 2 (subtract)",
    ST_ERR_TRUMP: "a trump choice other than a suit 0..3 (or 4, no trump, if allow_no_trump)",
}
