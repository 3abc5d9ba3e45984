"""Array layouts shared by the engine, the strategies and the runner.

The game state is four arrays, all int64 except the random streams:

``public`` (length ``PUBLIC_LEN``), the part every seat may see, updated in place:

==================  =========================================================
offset              meaning
==================  =========================================================
P_N_SEATS           number of seats, 3 to 6 (4 for classic Hearts)
P_DEAL              deal index within the game, 0-based
P_PASS_DIR          pass direction of this deal: 0 left, 1 right, 2 across, 3 hold
P_TRICK             index of the current trick, 0-based (13 when the deal is over)
P_LEADER            seat that led (or will lead) the current trick
P_TRICK_LEN         cards played to the current trick so far
P_TO_ACT            seat whose decision is asked now
P_HEARTS_BROKEN     1 once a heart (or QS with queen_breaks_hearts) has been played
                    (not in trick 1 with first_trick_breaks_hearts=false)
P_PLAYED            mask of every card played this deal, current trick included
P_TRICK_CARDS       mask of the cards in the current trick
P_LED_SUIT          suit led to the current trick, -1 before the lead
P_N_PLAYS           cards played this deal so far
P_MOON_SHOOTER      seat that shot the moon (set while its moon choice is asked), -1
P_POINTS + s        penalty points seat s has taken this deal
P_TRICKS_WON + s    tricks seat s has won this deal
P_SCORES + s        game score of seat s before this deal
P_VOIDS + s         suits seat s has shown void in this deal (bit per suit)
P_TAKEN + s         mask of the cards seat s has won in tricks this deal
P_PLAY_CARD + i     the i-th card played this deal
P_PLAY_SEAT + i     the seat that played it
P_TRICK_LEADER + t  the seat that led trick t
P_TRICK_WINNER + t  the seat that won trick t (-1 until it is complete)
P_RULES + r         the rules vector (:meth:`hsim.model.rules.Rules.to_array`)
P_KIND              Kierki: deal kind (``hsim.engine.kierki.KIND_*``); Hearts: -1
P_DEALER            Kierki: the dealer of this deal; Hearts: -1
P_TRUMP             Kierki: trump suit 0..3 of a trump deal, -1 none (yet)
P_TRUMP_CHOOSER     Kierki: seat that names (named) trump in a trump deal, else -1
P_START_RANK        Kierki lottery: rank 0..12 of the first card, -1 before it
P_OUT + s           Kierki lottery: 1 or 2 when seat s went out first or second, else 0
==================  =========================================================

In Kierki P_POINTS holds the signed points of the deal so far (penalties negative,
trump tricks and lottery places positive), P_PLAYED is also the lottery's table, and
``public[P_N_SEATS]`` is 3 or 4 (Hearts: 3 to 6). The seats that play are
0..P_N_SEATS-1; each per-seat field has MAX_SEATS slots.

``private`` (shape ``(MAX_SEATS, PRIVATE_LEN)``), row ``s`` seen only by seat ``s``:
V_SEAT, V_HAND (current hand mask), V_DEALT (hand as dealt), V_PASSED, V_RECEIVED.

``hidden`` (length ``HIDDEN_LEN``): the engine's own bookkeeping, never shown to a
strategy (the deck order, pending passes, the phase, error details).

``rngs`` (uint64, shape ``(MAX_SEATS + 1, 1)``): row 0 the deal stream, row 1 + s seat s's stream.
"""

from __future__ import annotations

from hsim.model.rules import KIERKI_KINDS, PASS_DIRECTIONS, RULE_INDEX, RULE_NAMES, option_code  # noqa: F401

MAX_SEATS = 6  # Hearts for 3 to 6 (A1.1); Kierki for 3 or 4
MAX_TRICKS = 17  # Kierki with three players deals 17 cards each

P_N_SEATS = 0
P_DEAL = 1
P_PASS_DIR = 2
P_TRICK = 3
P_LEADER = 4
P_TRICK_LEN = 5
P_TO_ACT = 6
P_HEARTS_BROKEN = 7
P_PLAYED = 8
P_TRICK_CARDS = 9
P_LED_SUIT = 10
P_N_PLAYS = 11
P_MOON_SHOOTER = 12
P_POINTS = 16  # each per-seat field holds MAX_SEATS slots, seats past the game's unused
P_TRICKS_WON = P_POINTS + MAX_SEATS
P_SCORES = P_TRICKS_WON + MAX_SEATS
P_VOIDS = P_SCORES + MAX_SEATS
P_TAKEN = P_VOIDS + MAX_SEATS
P_PLAY_CARD = P_TAKEN + MAX_SEATS
P_PLAY_SEAT = P_PLAY_CARD + 52
P_TRICK_LEADER = P_PLAY_SEAT + 52
P_TRICK_WINNER = P_TRICK_LEADER + MAX_TRICKS
P_RULES = P_TRICK_WINNER + MAX_TRICKS
RULES_LEN = 48  # room for options to come: len(RULE_NAMES) <= RULES_LEN, the rest 0
P_KIND = P_RULES + RULES_LEN
P_DEALER = P_KIND + 1
P_TRUMP = P_KIND + 2
P_TRUMP_CHOOSER = P_KIND + 3
P_START_RANK = P_KIND + 4
P_OUT = P_KIND + 5
PUBLIC_LEN = P_OUT + MAX_SEATS

V_SEAT = 0
V_HAND = 1
V_DEALT = 2
V_PASSED = 3
V_RECEIVED = 4
PRIVATE_LEN = 8

H_GAME = 0
H_PHASE = 1
H_DECIDER = 2
H_PASS_SEAT = 3
H_ERROR_CODE = 4
H_ERROR_VALUE = 5
H_DEAL_ROWS = 6
H_GAME_ROWS = 7
H_MOON_CHOICE = 8
H_JACK_TAKER = 9
H_BASE_OVER = 10  # 1 once the base game has ended and deals go on for other scorings
H_EXTRA_N = 11  # number of other scorings (--score-also), 0..MAX_EXTRA
H_PENDING_PASS = 12
H_DECK = H_PENDING_PASS + MAX_SEATS
H_SCRATCH = H_DECK + 52  # 4 * MAX_SEATS ints of scratch: deal scores, new scores (twice)
H_EXTRA = H_SCRATCH + 4 * MAX_SEATS
# Each other scoring k owns hidden[H_EXTRA + k * EXTRA_STRIDE :]: its rules vector
# (RULES_LEN), then its game scores (MAX_SEATS), whether its game ended, deals counted.
MAX_EXTRA = 8
X_SCORES = RULES_LEN
X_ENDED = X_SCORES + MAX_SEATS
X_DEALS = X_ENDED + 1
EXTRA_STRIDE = X_DEALS + 3
H_KIERKI = H_EXTRA + MAX_EXTRA * EXTRA_STRIDE
H_TRUMP_CHOICE = H_KIERKI  # Kierki: the trump choice of this deal (0..3, TRUMP_NONE), else -1
H_DRAWS = H_KIERKI + 4  # the shuffle's draws, worked out before its swaps (52 ints)
HIDDEN_LEN = H_DRAWS + 52

# Rules vector indices (docs/rules.md parts A, B) and option codes, derived from the
# fields of hsim.model.rules.Rules and their allowed values (RULE_INDEX, option_code), never
# numbered by hand: reordering the fields or an option's values renumbers the engine
# alike. They are plain ints at import, so numba compiles them in (and hsim.engine._numba keys the
# cache on rules.py too).
R_PASSING = RULE_INDEX["passing"]
R_LEAD_ANY_CLUB = RULE_INDEX["lead_any_club"]
R_FIRST_TRICK_POINTS = RULE_INDEX["first_trick_points"]
R_FIRST_TRICK_ONLY_POINTS = RULE_INDEX["first_trick_only_points"]
R_HEARTS_MUST_BE_BROKEN = RULE_INDEX["hearts_must_be_broken"]
R_QUEEN_BREAKS_HEARTS = RULE_INDEX["queen_breaks_hearts"]
R_FIRST_TRICK_BREAKS_HEARTS = RULE_INDEX["first_trick_breaks_hearts"]
R_LEAD_HEARTS_INSTEAD_OF_QUEEN = RULE_INDEX["lead_hearts_instead_of_queen"]
R_QUEEN_WAITS = RULE_INDEX["queen_waits_for_broken_hearts"]
R_HEART_POINTS = RULE_INDEX["heart_points"]
R_PINK_LADY = RULE_INDEX["pink_lady"]
R_QUEEN_POINTS = RULE_INDEX["queen_points"]  # the points themselves, 13 or 0
R_BLACK_MARIA = RULE_INDEX["black_maria"]
R_MOON = RULE_INDEX["moon"]
R_NEW_MOON_ANY_SCORE = RULE_INDEX["new_moon_any_score"]
R_MOON_REQUIRES_JACK = RULE_INDEX["moon_requires_jack"]
R_OMNIBUS = RULE_INDEX["omnibus"]
R_JACK_IN_MOON_DEAL = RULE_INDEX["jack_in_moon_deal"]
R_OMNIBUS_CARD = RULE_INDEX["omnibus_card"]
R_OMNIBUS_VALUE = RULE_INDEX["omnibus_value"]  # the points themselves, 10 or 5
R_NO_TRICK_BONUS = RULE_INDEX["no_trick_bonus"]
R_CLAMP_AT_ZERO = RULE_INDEX["clamp_at_zero"]
R_PERFECT_100 = RULE_INDEX["perfect_100"]
R_END_SCORE = RULE_INDEX["end_score"]
R_END_WHEN = RULE_INDEX["end_when"]
R_NO_DRAW = RULE_INDEX["no_draw"]
R_MAX_DEALS = RULE_INDEX["max_deals"]
R_GAME = RULE_INDEX["game"]
R_REMOVED_CARD = RULE_INDEX["removed_card"]
R_REMOVED_PAIR = RULE_INDEX["removed_pair"]
R_PLAYERS = RULE_INDEX["players"]  # the number of seats itself, 3 to 6
R_REBEL = RULE_INDEX["rebel"]
R_TRUMP_TRICK_VALUE = RULE_INDEX["trump_trick_value"]  # resolved: Rules.trump_points
R_TRUMP_CHOOSER = RULE_INDEX["trump_chooser"]
R_ALLOW_NO_TRUMP = RULE_INDEX["allow_no_trump"]
R_MUST_TRUMP = RULE_INDEX["must_trump"]
R_LOTTERY_LEADER = RULE_INDEX["lottery_leader"]
R_STOP_WHEN_NO_PENALTIES = RULE_INDEX["stop_when_no_penalties"]
R_KING_OF_HEARTS_FIRST_CHANCE = RULE_INDEX["king_of_hearts_first_chance"]
R_HEART_LEAD_BAN = RULE_INDEX["heart_lead_ban"]
R_POINT_TABLE = RULE_INDEX["point_table"]
R_PRICED_TRICK = RULE_INDEX["priced_trick"]
assert len(RULE_NAMES) <= RULES_LEN
assert X_SCORES == RULES_LEN

# Option codes: the value of an enumerated option as the rules vector holds it, named
# <OPTION>_<VALUE> (switches are 0/1 and counts the number, with no names).
PASSING_CYCLE = option_code("passing", "cycle")
PASSING_NONE = option_code("passing", "none")
PASSING_LEFT = option_code("passing", "left")
PASSING_RIGHT = option_code("passing", "right")
FIRST_TRICK_POINTS_FORBIDDEN = option_code("first_trick_points", "forbidden")
FIRST_TRICK_POINTS_ALLOWED = option_code("first_trick_points", "allowed")
FIRST_TRICK_ONLY_POINTS_QUEEN = option_code("first_trick_only_points", "queen")
FIRST_TRICK_ONLY_POINTS_ANY = option_code("first_trick_only_points", "any")
HEART_POINTS_ONE = option_code("heart_points", "one")
HEART_POINTS_RANK = option_code("heart_points", "rank")
MOON_CLASSIC = option_code("moon", "classic")
MOON_NEW_MOON = option_code("moon", "new_moon")
MOON_OFF = option_code("moon", "off")
MOON_SHOOTER_GAINS = option_code("moon", "shooter_gains")
MOON_SMART = option_code("moon", "smart")
OMNIBUS_CARD_JD = option_code("omnibus_card", "JD")
OMNIBUS_CARD_TD = option_code("omnibus_card", "TD")
REMOVED_CARD_2D = option_code("removed_card", "2D")
REMOVED_CARD_2C = option_code("removed_card", "2C")
REMOVED_CARD_2S = option_code("removed_card", "2S")
REMOVED_PAIR_2D_2C = option_code("removed_pair", "2D+2C")
REMOVED_PAIR_2D_2S = option_code("removed_pair", "2D+2S")
NO_TRICK_BONUS_OFF = option_code("no_trick_bonus", "off")
NO_TRICK_BONUS_NO_POINTS = option_code("no_trick_bonus", "no_points")
NO_TRICK_BONUS_NO_TRICKS = option_code("no_trick_bonus", "no_tricks")
END_WHEN_REACHED = option_code("end_when", "reached")
END_WHEN_EXCEEDED = option_code("end_when", "exceeded")
GAME_HEARTS = option_code("game", "hearts")
GAME_KIERKI = option_code("game", "kierki")
TRUMP_CHOOSER_DEALER_LEFT = option_code("trump_chooser", "dealer_left")
TRUMP_CHOOSER_DEALER = option_code("trump_chooser", "dealer")
LOTTERY_LEADER_DEALER = option_code("lottery_leader", "dealer")
LOTTERY_LEADER_DEALER_LEFT = option_code("lottery_leader", "dealer_left")
HEART_LEAD_BAN_EVERY_HEART = option_code("heart_lead_ban", "every_heart")
HEART_LEAD_BAN_KING_OF_HEARTS = option_code("heart_lead_ban", "king_of_hearts")
HEART_LEAD_BAN_NONE = option_code("heart_lead_ban", "none")
POINT_TABLE_HSIM = option_code("point_table", "hsim")
POINT_TABLE_SERVERS = option_code("point_table", "servers")
POINT_TABLE_PROGRAM = option_code("point_table", "program")
PRICED_TRICK_SEVENTH = option_code("priced_trick", "seventh")
PRICED_TRICK_SIXTH = option_code("priced_trick", "sixth")

PASS_LEFT, PASS_RIGHT, PASS_ACROSS, PASS_HOLD = 0, 1, 2, 3

MOON_DEFAULT, MOON_ADD, MOON_SUBTRACT = 0, 1, 2
MOON_CHOICES = (None, "add", "subtract")

# Engine phases (hidden[H_PHASE]).
PH_DEAL_START = 0
PH_PASS = 1
PH_PLAY = 2
PH_MOON = 3
PH_GAME_OVER = 4
PH_TRUMP = 5  # Kierki: the chooser names trump

# What advance() returns.
ST_GAME_OVER = 0
ST_NEED_PASS = 1
ST_NEED_PLAY = 2
ST_NEED_MOON = 3
ST_OK = 4
ST_NEED_TRUMP = 5
ST_ERR_PASS = 10  # a pass that is not exactly three cards of the hand
ST_ERR_NOT_HELD = 11  # a play of a card not in the hand
ST_ERR_ILLEGAL = 12  # a play of a held card the rules forbid now
ST_ERR_MOON = 13  # a moon choice other than 0, 1, 2
ST_ERR_TRUMP = 14  # a trump choice other than a suit 0..3 (or 4, no trump, where allowed)

# Kierki deal kinds (B1), named in the order of the codes hsim.engine.kierki.KIND_*.
KIND_NAMES = KIERKI_KINDS

# Trump choices (Kierki B3): a suit 0..3 (clubs, diamonds, spades, hearts) or no trump.
TRUMP_NONE = 4
TRUMP_CHOICES = ("C", "D", "S", "H", "none")

# deal rows (one per seat per deal), columns of the int64 record.
D_GAME, D_DEAL, D_SEAT, D_PASS_DIR, D_HAND, D_PASSED, D_RECEIVED = range(7)
D_HEARTS, D_QUEEN_SPADES, D_JACK_DIAMONDS, D_TRICKS, D_POINTS = range(7, 12)
D_MOON, D_MOON_CHOICE, D_DEAL_SCORE, D_SCORE = range(12, 16)
D_AFTER_END = 16  # 1: dealt after the base game ended, for other scorings only
D_TAKEN = 17  # mask of the cards the seat won in tricks (the bonus card's taker, A2.3)
# Kierki (-1 in Hearts rows): deal kind, dealer, trump choice (0..3 suit, 4 none; -1 not a
# trump deal), the seat that chose it, lottery place (1, 2; 0 none).
D_KIND, D_DEALER, D_TRUMP, D_TRUMP_CHOOSER, D_LOTTERY_PLACE = range(18, 23)
DEAL_COLS = 23
# --record plays: deal rows get PLAY_SLOTS more columns, the deal's plays in order
# (hsim.engine.plays); 17 slots a row hold the 52 plays of 4 rows and 51 of 3.
PLAY_SLOTS = 17

# game rows (one per seat per game).
G_GAME, G_SEAT, G_SCORE, G_PLACE, G_WINNER, G_DEALS, G_ENDED_BY = range(7)
G_SCORING = 7  # 0 the base rules, k + 1 the k-th other scoring
GAME_COLS = 8
ENDED_BY = ("end_score", "max_deals", "all_deals")  # all_deals: Kierki's fixed deal count
ENDED_ALL_DEALS = 2
