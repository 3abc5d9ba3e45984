"""The decision API (hsim.play.choose, ``hsim choose``): any strategy, any decision, any position.

Each decision kind (pass, play, New Moon choice, Kierki trump) is asked from Python and,
for Hearts, from the command line; the seed contract: the answer is a pure function of
(strategy, position, seed, game), and a random strategy's stream changes with the game.
"""

import shlex

import pytest
from click.testing import CliRunner

import hsim
from hsim.cli import main
from hsim.engine.rng import PURPOSE_SEAT, seed_to_u64, stream_state
from hsim.model.cards import CardSet, format_mask, parse_mask
from hsim.model.notation import PositionSpec
from hsim.play.choose import Decision, choose, decide
from hsim.play.position import Position
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import load

BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")
# The position: last on a spade trick won by the KS, holding AS QS 9S.
QS_DEAL = (
    "2C5C6CKS3D4D5D6D7D2H3H4H5H/3C7C8C5S6S8D9DTDJD6H7H8H9H/"
    "4C9CTCASQS9SQDKDADTHJHQHKH/ACJCQCKC2S3S4S7S8STSJS2DAH"
)


def moon_position(rules="classic(moon=new_moon)", scores=(30, 10, 10, 10)):
    """Seat 0 holds the top cards (and the JD): it wins every trick, all 26 points (New
    Moon asks the shooter only from a game score of 26, docs/rules.md A2.2)."""
    hands = [
        "AC KC QC JD AD KD QD AS KS QS AH KH QH",
        "2C 3C 4C 2D 3D 4D 2S 3S 4S 2H 3H 4H 5H",
        "5C 6C 7C 5D 6D 7D 5S 6S 7S 6H 7H 8H 9H",
        "8C 9C TC 8D 9D TD 8S 9S TS TH JH JC JS",
    ]
    p = Position.from_hands(hands, rules=hsim.play.position._rules(rules), scores=scores)
    p.play("2C")
    while p.phase == "play":  # seat 0 wins with its highest, the others play their lowest
        legal = p.legal()
        p.play(max(legal) if p.to_act == 0 else min(legal))
    return p


def test_choose_asks_the_seat_to_act():
    position = Position.from_spec(PositionSpec.parse(BLOCKS, plays="2C 2D"))
    assert choose(load("lowcard"), position) == 26 + 0  # 2S: seat 2's lowest legal spade
    assert position.to_act == 2  # nothing was played
    d = decide("lowcard", position)
    assert d == Decision("play", 2, 26) and str(d) == "2S"


def test_pass_decision_any_seat():
    position = Position.from_spec(PositionSpec.parse(BLOCKS, "left"))
    assert position.phase == "pass"
    for seat in range(4):
        d = decide("lowcard", position, seat=seat)
        assert d.kind == "pass" and d.seat == seat and isinstance(d.value, CardSet)
        assert len(d.value) == 3 and d.value & ~position.hand(seat) == 0
        assert str(d) == format_mask(d.value)
    assert decide("duck", position, seat=2).value == parse_mask("QS KS AS")
    assert decide("lowcard", position).seat == 0
    assert position.phase == "pass" and position.hand(0) == parse_mask(BLOCKS[:26])  # unchanged


def test_play_after_the_pass():
    position = Position.from_spec(
        PositionSpec.parse(BLOCKS, "left", "2C 3C 4C / 2D 3D 4D / 2S 3S 4S / 2H 3H 4H")
    )
    d = decide("heuristic", position)
    assert d.kind == "play" and d.seat == 1 and str(d) == "2C"


@pytest.mark.parametrize("strategy", ["heuristic", "pimc(worlds=4)", "random"])
def test_moon_decision(strategy):
    p = moon_position()
    assert p.phase == "moon"
    d = decide(strategy, p)
    assert d.kind == "moon" and d.seat == 0 and d.value in (0, 1, 2)
    assert str(d) in ("default", "add", "subtract")


def test_moon_choice_reads_the_scores():
    # add (others +26) ends the game at 100 with seat 0 lowest: heuristic and pimc add;
    # from scores where adding loses it subtracts.
    winning = moon_position(scores=(30, 80, 80, 80))
    assert str(decide("heuristic", winning)) == "add" == str(decide("pimc", winning))
    losing = moon_position(scores=(90, 80, 80, 20))
    assert str(decide("heuristic", losing)) == "subtract" == str(decide("pimc", losing))


def test_trump_decision_in_kierki():
    k = Position.from_game(
        "kierki4", ["kierki", "random", "random", "random"], seed=1, until="trump"
    )
    assert k.phase == "trump" and len(k.hand(k.to_act)) == 5  # only the first 5 cards seen
    d = decide("kierki", k)
    assert d.kind == "trump" and d.seat == k.to_act and 0 <= d.value <= 3
    assert str(d) in ("clubs", "diamonds", "spades", "hearts")
    picks = {decide("random", k, seed=0, game=g).value for g in range(40)}
    assert picks <= {0, 1, 2, 3} and len(picks) >= 3
    assert eval(repr(k), {"Position": Position}).state.hidden.tolist() == k.state.hidden.tolist()
    with pytest.raises(StrategyError, match="does not play kierki"):
        decide("heuristic", k)


def test_seed_contract_same_seed_and_game_same_answer():
    p = Position.from_text(f"deal={QS_DEAL};plays=2C 3C 4C AC 2S KS 5S")
    for spec in ("random", "pimc(worlds=6)", "heuristic"):
        for seed, game in [(0, 0), (7, 3), (2**64 - 1, 10**6)]:
            assert decide(spec, p, seed, game) == decide(spec, p, seed, game)
    with pytest.raises(ValueError, match="0..2..64-1"):
        decide("random", p, 2**64, 0)  # a larger seed would repeat a smaller one's stream
    with pytest.raises(ValueError, match="0..2..63-1"):
        decide("random", p, 0, 2**63)


def test_seed_contract_stream_differs_by_game():
    p = Position.from_text(f"deal={QS_DEAL};plays=2C 3C 4C AC 2S KS 5S")
    by_game = [decide("random", p, seed=3, game=g).value for g in range(40)]
    assert len(set(by_game)) == 3  # AS, QS, 9S all drawn: game 0's stream is not the only one
    by_seed = [decide("random", p, seed=s, game=0).value for s in range(40)]
    assert by_game != by_seed


class Recorder:
    """A plain-Python strategy that reports the first number of its stream as its card."""

    seen: list = []

    def pass_cards(self, obs, rng):
        return sum(1 << c for c in obs.hand_cards()[:3])

    def play(self, obs, legal, rng):
        Recorder.seen.append(int(rng.integers(1 << 62)))
        return min(c for c in range(52) if legal >> c & 1)


def test_python_strategy_gets_the_documented_stream(monkeypatch):
    import numpy as np

    monkeypatch.setattr(hsim.strategy.loader, "find", lambda name: Recorder)
    p = Position.from_text(f"deal={QS_DEAL};plays=2C 3C 4C AC 2S KS 5S")
    Recorder.seen = []
    decide("recorder", p, seed=11, game=4)
    state = int(stream_state(seed_to_u64(11), 4, PURPOSE_SEAT + p.to_act))
    assert Recorder.seen == [int(np.random.Generator(np.random.PCG64(state)).integers(1 << 62))]


def test_decide_refuses_what_is_not_due():
    p = moon_position("classic")  # no New Moon: the deal is scored, no decision left
    assert p.phase in ("deal_over", "game_over")
    with pytest.raises(ValueError, match="no decision is due"):
        decide("heuristic", p)
    play = Position.from_spec(PositionSpec.parse(BLOCKS, plays="2C"))
    with pytest.raises(ValueError, match="drop seat"):
        decide("heuristic", play, seat=1)
    with pytest.raises(ValueError, match="game index"):
        decide("heuristic", play, game=-1)


class Cheater:
    def pass_cards(self, obs, rng):
        return 7

    def play(self, obs, legal, rng):
        return 36  # the QS, whatever is legal


def test_decide_refuses_an_illegal_answer(monkeypatch):
    monkeypatch.setattr(hsim.strategy.loader, "find", lambda name: Cheater)
    p = Position.from_spec(PositionSpec.parse(BLOCKS, plays="2C"))
    with pytest.raises(StrategyError, match="chose QS, which is not legal here"):
        decide("cheater", p)
    with pytest.raises(StrategyError, match=r"passed \[2C 3C 4C\], not 3 cards of its hand"):
        decide("cheater", Position.from_spec(PositionSpec.parse(BLOCKS, "left")), seat=3)


def test_position_prints_as_a_pasteable_position():
    text = f"deal={QS_DEAL};direction=hold;plays=2C 3C 4C AC 2S KS 5S"
    p = Position.from_text(text)
    assert repr(p) == f"Position.from_text({text!r})"
    assert eval(repr(p), {"Position": Position}).to_text() == text
    assert str(p) == f"--deal {QS_DEAL} --pass-direction hold --plays '2C 3C 4C AC 2S KS 5S'"
    passed = Position.from_spec(
        PositionSpec.parse(BLOCKS, "across", "2C 3C 4C / 2D 3D 4D / 2S 3S 4S / 2H 3H 4H", "2C"),
        hsim.play.position._rules("openspiel"),
        scores=(1, 2, 3, 4),
    )
    again = eval(repr(passed), {"Position": Position})
    assert again.to_text() == passed.to_text() and again.scores == (1, 2, 3, 4)
    assert again.rules == passed.rules and "rules='openspiel'" in repr(passed)
    assert str(passed).startswith("--rules openspiel --deal")
    assert repr(p.legal()) == "CardSet('9S QS AS')"
    assert str(p.hand(2)) == "9C TC QD KD AD 9S QS AS TH JH QH KH"  # 4C played


def test_cardset_prints_and_behaves_as_a_mask():
    s = CardSet("AH 2C QS")
    assert str(s) == "2C QS AH" and repr(s) == "CardSet('2C QS AH')"
    assert eval(repr(s), {"CardSet": CardSet}) == s and s == parse_mask("2C QS AH")
    assert list(s) == [0, 36, 51] and len(s) == 3 and "QS" in s and 36 in s and "AS" not in s
    assert isinstance(s & parse_mask("QS"), CardSet) and str(s | CardSet("3C")) == "2C 3C QS AH"
    assert s & (s - 1) == parse_mask("QS AH")  # '-' stays integer arithmetic
    assert str(s.difference(CardSet("QS"))) == "2C AH" and str(s.suit(2)) == "QS"
    assert hsim.CardSet is CardSet and hsim.Position is Position and hsim.decide is decide
    with pytest.raises(ValueError, match="52 bits"):
        CardSet(1 << 52)
    with pytest.raises(ValueError):
        CardSet(-1)


def test_cli_choose_play():
    r = CliRunner().invoke(
        main, ["choose", "--strategy", "lowcard", "--deal", BLOCKS, "--plays", "2C 2D"]
    )
    assert r.exit_code == 0 and r.stdout.strip() == "2S"
    r = CliRunner().invoke(main, ["choose", "--strategy", "nobot", "--deal", BLOCKS])
    assert r.exit_code != 0 and "unknown strategy" in r.output


def test_cli_choose_pass_and_seed():
    args = ["choose", "--strategy", "duck", "--deal", BLOCKS, "--pass-direction", "left"]
    r = CliRunner().invoke(main, [*args, "--seat", "2"])
    assert r.exit_code == 0 and r.stdout.strip() == "QS KS AS", r.output
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0 and len(r.stdout.split()) == 3
    args = ["choose", "--strategy", "random", "--deal", QS_DEAL, "--plays", "2C 3C 4C AC 2S KS 5S"]
    outs = {
        CliRunner().invoke(main, [*args, "--seed", "3", "--game", str(g)]).stdout for g in range(30)
    }
    assert outs == {"9S\n", "QS\n", "AS\n"}
    one = [*args, "--seed", "3", "--game", "5"]
    assert CliRunner().invoke(main, one).stdout == CliRunner().invoke(main, one).stdout
    r = CliRunner().invoke(main, [*args, "--seat", "1"])
    assert r.exit_code == 2 and "--seat picks a passer" in r.output


def test_cli_choose_moon():
    p = moon_position()
    flags = shlex.split(str(p))  # the position as printed pastes into the command line
    assert flags[:2] == ["--rules", "classic(moon=new_moon)"] and "--scores" in flags
    r = CliRunner().invoke(main, ["choose", "--strategy", "heuristic", *flags])
    assert r.exit_code == 0 and r.stdout.strip() == str(decide("heuristic", p)), r.output
    r = CliRunner().invoke(
        main, ["choose", "--strategy", "pimc", *flags[:-2], "--scores", "30,80,80,80"]
    )
    assert r.exit_code == 0 and r.stdout.strip() == "add", r.output
    r = CliRunner().invoke(main, ["choose", "--strategy", "heuristic", *p.spec().flags()])
    assert r.exit_code == 2 and "no decision is due" in r.output  # classic: no New Moon
    r = CliRunner().invoke(main, ["choose", "--strategy", "heuristic", *flags[:-1], "1,2"])
    assert r.exit_code == 2 and "one game score per seat" in r.output
