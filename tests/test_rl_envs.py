"""The environments for learning agents (hsim.bridges.rl, docs/rl.md): the PettingZoo and
Gymnasium checkers, no hidden card in an observation, seeds that replay, rewards equal to
the engine's scores, masks equal to the legal plays, a policy back at the table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from hsim.analysis.replay import replay_game  # noqa: E402
from hsim.bridges.rl import PolicyStrategy  # noqa: E402
from hsim.bridges.rl.aec import HsimAECEnv  # noqa: E402
from hsim.bridges.rl.envs import HsimEnv, HsimVectorEnv  # noqa: E402
from hsim.bridges.rl.tables import (  # noqa: E402
    T_ERROR_VALUE,
    T_STATUS,
    IllegalActionError,
    observe,
)
from hsim.bridges.rl.tensor import (  # noqa: E402
    FIELD,
    FIELDS,
    MOON_ACTION,
    N_ACTIONS,
    OBS_LEN,
    TRUMP_ACTION,
)
from hsim.engine.layout import (  # noqa: E402
    D_DEAL_SCORE,
    G_SCORE,
    G_SEAT,
    P_HEARTS_BROKEN,
    P_N_PLAYS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_TRICK,
    P_TRICK_LEN,
    ST_GAME_OVER,
    ST_NEED_PLAY,
    V_HAND,
)
from hsim.errors import StrategyError  # noqa: E402
from hsim.model.cards import parse_card  # noqa: E402
from hsim.model.rules import parse_rules  # noqa: E402
from hsim.play.games import play_range  # noqa: E402
from hsim.strategy.contract import LoadedStrategy  # noqa: E402
from hsim.strategy.loader import load, load_players  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULES = ["classic", "kierki4", "kierki3", "classic(moon=new_moon)", "hearts3"]


def _random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("rules", RULES)
def test_the_aec_env_passes_pettingzoo_api_test(rules):
    api_test(HsimAECEnv(rules=rules), num_cycles=600, verbose_progress=False)


@pytest.mark.parametrize("rules", ["classic", "kierki4", "kierki3", "hearts3"])
def test_the_single_agent_env_passes_gymnasium_check_env(rules):
    check_env(HsimEnv(rules=rules, opponents="random"), skip_render_check=False)


def test_the_observation_table_in_docs_matches_the_layout():
    doc = (ROOT / "docs" / "rl.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\d+)\.\.(\d+) \|", doc, re.M)
    assert [(name, int(a), int(b)) for name, a, b in rows] == [
        (f.name, f.offset, f.offset + f.size - 1) for f in FIELDS
    ]
    assert f"{OBS_LEN}" in doc


# -- no leaks, and the oracle ------------------------------------------------------------


def _positions(rules: str, n: int, seed: int = 0):
    """Yield (env, seat asked) at ``n`` decisions of random play in an AEC env."""
    env = HsimAECEnv(rules=rules, mode="game")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if env.terminations[env.agent_selection]:
            env.reset()
        agent = env.agent_selection
        yield env, env.agent_name_mapping[agent]
        env.step(_random_action(env.observe(agent)["action_mask"], rng))


@pytest.mark.parametrize("rules", ["classic", "kierki4", "kierki3", "hearts3"])
def test_swapping_two_other_seats_hidden_cards_leaves_an_observation_unchanged(rules):
    seen_change = 0
    for step, (env, me) in enumerate(_positions(rules, 400, seed=3)):
        if step % 7:
            continue
        private = env.tables.private[0]
        n = env.rules.players
        a, b = [(me + k) % n for k in (1, 2)]
        if not private[a, V_HAND] or not private[b, V_HAND]:
            continue
        agent = f"seat_{me}"
        before = env.observe(agent)
        other_before = env.observe(f"seat_{a}")["observation"]
        card_a = int(private[a, V_HAND]) & -int(private[a, V_HAND])
        card_b = int(private[b, V_HAND]) & -int(private[b, V_HAND])
        saved = private.copy()
        private[a, V_HAND] ^= card_a | card_b
        private[b, V_HAND] ^= card_a | card_b
        after = env.observe(agent)
        other_after = env.observe(f"seat_{a}")["observation"]
        private[:] = saved
        assert np.array_equal(before["observation"], after["observation"])
        assert np.array_equal(before["action_mask"], after["action_mask"])
        seen_change += not np.array_equal(other_before, other_after)
    assert seen_change > 10  # the swap is seen by a seat that holds the cards


def test_the_oracle_gives_every_hand_only_when_asked():
    plain = HsimEnv(opponents="random")
    _, info = plain.reset(seed=5)
    assert "hidden" not in info
    oracle = HsimEnv(opponents="random", oracle=True)
    obs, info = oracle.reset(seed=5)
    hands = info["hidden"]
    assert hands.shape == (4, 52) and hands.sum() == 52
    own = obs["observation"][FIELD["hand"].slice]
    assert np.array_equal(hands[0], own)
    tables = HsimVectorEnv(num_envs=3, rules="kierki3", opponents="kierki", oracle=True)
    obs, _ = tables.reset(seed=5)
    _, _, _, _, info = tables.step(obs["action_mask"].argmax(1))
    hidden = info["hidden"]
    assert hidden.shape == (3, 4, 52) and not hidden[:, 3].any()
    for i in range(3):
        seat = info["seat"][i]
        assert np.array_equal(hidden[i, seat], obs["observation"][i, FIELD["hand"].slice])


# -- seeds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["classic", "kierki4"])
def test_reset_seed_deals_the_games_hsim_replay_plays(rules):
    env = HsimEnv(rules=rules, opponents="random", oracle=True)
    rng = np.random.default_rng(1)
    records, _ = replay_game(parse_rules(rules), [load("random")] * 4, seed=42, game=0)
    obs, info = env.reset(seed=42)
    for deal in range(3):
        assert (info["game"], info["deal"]) == (0, deal)
        pub = env.tables.public[0]
        held = [set(np.flatnonzero(h).tolist()) for h in info["hidden"][:4]]
        for i in range(int(pub[P_N_PLAYS])):  # Kierki: the leader may have played already
            held[int(pub[P_PLAY_SEAT + i])].add(int(pub[P_PLAY_CARD + i]))
        record = records[deal]
        if record.trump_chooser >= 0:  # the chooser holds only its first cards yet
            continue
        assert held == [set(h) for h in record.hands]
        done = False
        while not done:
            obs, _, done, _, info = env.step(_random_action(obs["action_mask"], rng))
        obs, info = env.reset()


def test_the_same_seed_gives_the_same_episode_and_another_seed_another():
    def run(seed):
        env = HsimEnv(opponents="heuristic", seat=2, reward="trick")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [obs["observation"].copy()]
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(_random_action(obs["action_mask"], rng))
            trace.append(np.append(obs["observation"], reward))
        return trace

    a, b, c = run(7), run(7), run(8)
    assert len(a) == len(b) and all(map(np.array_equal, a, b))
    assert not np.array_equal(a[0], c[0])


def test_vector_tables_play_the_run_games_in_turn():
    env = HsimVectorEnv(num_envs=3, opponents="random")
    _, info = env.reset(seed=9)
    assert info["game"].tolist() == [0, 1, 2]
    single = HsimEnv(opponents="random")
    obs, _ = single.reset(seed=9)
    vobs, _ = env.reset(seed=9)
    assert np.array_equal(vobs["observation"][0], obs["observation"])
    rng = np.random.default_rng(2)
    games_seen = set()
    for _ in range(400):
        actions = [_random_action(m, rng) for m in vobs["action_mask"]]
        vobs, _, ended, _, info = env.step(np.array(actions))
        games_seen.update(int(g) for g in info["game"])
    assert {3, 4, 5} <= games_seen  # each table's next game is i + 3


# -- rewards equal the engine's scores -----------------------------------------------------


class Scripted:
    """A plain-Python strategy that answers with the actions an environment recorded."""

    games = ("hearts", "kierki")

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def _next(self) -> int:
        return self.actions.pop(0)

    def pass_cards(self, obs, rng) -> int:
        return sum(1 << self._next() for _ in range(3))

    def play(self, obs, legal, rng) -> int:
        return self._next()

    def moon_choice(self, obs, rng) -> int:
        return self._next() - MOON_ACTION

    def trump_choice(self, obs, rng) -> int:
        return self._next() - TRUMP_ACTION


@pytest.mark.parametrize(
    "rules", ["classic(moon=new_moon,end_score=60)", "kierki4", "kierki3", "hearts3"]
)
@pytest.mark.parametrize("reward", ["deal", "trick"])
def test_a_random_policys_rewards_are_the_engines_deal_scores(rules, reward):
    env = HsimAECEnv(rules=rules, mode="game", reward=reward)
    env.reset(seed=11)
    rng = np.random.default_rng(4)
    n = env.rules.players
    actions: list[list[int]] = [[] for _ in range(n)]
    by_deal: dict[int, np.ndarray] = {}
    for agent in env.agent_iter():
        obs, _, done, _, info = env.last()
        s = env.agent_name_mapping[agent]
        if done:
            env.step(None)
            continue
        action = _random_action(obs["action_mask"], rng)
        actions[s].append(action)
        env.step(action)
        paid = np.array([env.rewards[f"seat_{k}"] for k in range(n)])
        deal = info["deal"]  # the deal the action was played in (the step may end it)
        by_deal[deal] = by_deal.get(deal, np.zeros(n)) + paid
    players = [
        LoadedStrategy(
            spec=f"scripted{s}",
            name="scripted",
            kind="python",
            python_factory=lambda a=actions[s]: Scripted(a),
            games=("hearts", "kierki"),
        )  # fmt: skip
        for s in range(n)
    ]
    records, _ = replay_game(parse_rules(rules), players, seed=11, game=0)
    sign = 1.0 if env.rules.is_kierki else -1.0
    assert len(records) == len(by_deal)
    for record in records:
        expected = sign * record.rows[:, D_DEAL_SCORE].astype(float)
        assert np.allclose(by_deal[record.deal], expected), record.deal


# -- masks equal the legal plays -----------------------------------------------------------


def _classic_legal(hand: int, trick_cards: list[int], first_trick: bool, broken: bool) -> set:
    """Classic Hearts legality written out plainly (docs/rules.md A1), for comparison."""
    cards = {c for c in range(52) if (hand >> c) & 1}
    points = {c for c in cards if c // 13 == 3} | ({36} & cards)
    if not trick_cards:
        if first_trick:
            return {parse_card("2C")}
        non_hearts = {c for c in cards if c // 13 != 3}
        return cards if broken or not non_hearts else non_hearts
    led = trick_cards[0] // 13
    follow = {c for c in cards if c // 13 == led}
    if follow:
        return follow
    if first_trick and cards - points:
        return cards - points
    if first_trick and 36 in cards:
        return {36}
    return cards


def test_the_mask_is_the_set_of_legal_plays_over_thousands_of_positions():
    checked = 0
    for env, me in _positions("classic", 4000, seed=21):
        t = env.tables
        if int(t.table[0, T_STATUS]) != ST_NEED_PLAY:  # passes are checked below
            continue
        pub = t.public[0]
        n_plays, in_trick = int(pub[P_N_PLAYS]), int(pub[P_TRICK_LEN])
        trick = [int(pub[P_PLAY_CARD + i]) for i in range(n_plays - in_trick, n_plays)]
        hand = int(t.private[0, me, V_HAND])
        expected = _classic_legal(hand, trick, int(pub[P_TRICK]) == 0, bool(pub[P_HEARTS_BROKEN]))
        mask = env.observe(f"seat_{me}")["action_mask"]
        assert set(np.flatnonzero(mask).tolist()) == expected
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize("rules", ["classic", "kierki4", "kierki3", "hearts3"])
def test_every_action_outside_the_mask_is_refused_and_every_one_inside_taken(rules):
    env = HsimAECEnv(rules=rules, illegal="raise")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for step in range(300):
        agent = env.agent_selection
        if env.terminations[agent]:
            env.reset()
            continue
        mask = env.observe(agent)["action_mask"]
        if step % 10 == 0:
            saved = [a.copy() for a in (env.tables.public, env.tables.private, env.tables.table)]
            for action in np.flatnonzero(mask == 0)[:: max(1, int(rng.integers(1, 8)))]:
                with pytest.raises(IllegalActionError, match="not allowed now"):
                    env.step(int(action))
            now = (env.tables.public, env.tables.private, env.tables.table)
            saved[2][:, T_ERROR_VALUE] = now[2][:, T_ERROR_VALUE]  # the last refusal, noted
            assert all(map(np.array_equal, saved, now))
        env.step(_random_action(mask, rng))


# -- errors and edges ---------------------------------------------------------------------


def test_a_refused_action_is_penalised_and_asked_again_by_default():
    env = HsimEnv(opponents="random")
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    again, reward, done, _, info = env.step(bad)
    assert reward == -1.0 and not done and info["illegal"]
    assert np.array_equal(again["observation"], obs["observation"])
    with pytest.raises(IllegalActionError, match="not an int|action is an int"):
        env.step("QS")
    _, reward, _, _, info = env.step(2**70)  # an int, but no action: refused likewise
    assert reward == -1.0 and info["illegal"]


def test_the_vector_env_refuses_one_table_and_steps_the_others():
    env = HsimVectorEnv(num_envs=4, opponents="random")
    obs, _ = env.reset(seed=3)
    first = obs["observation"].copy()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]])
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    obs, rewards, _, _, info = env.step(actions)
    assert info["illegal"].tolist() == [False, False, True, False]
    assert rewards[2] == -1.0
    assert np.array_equal(obs["observation"][2], first[2])
    assert not np.array_equal(obs["observation"][0], first[0])
    strict = HsimVectorEnv(num_envs=2, opponents="random", illegal="raise")
    obs, _ = strict.reset(seed=3)
    with pytest.raises(IllegalActionError, match="table 1: action"):
        strict.step(np.array([int(np.flatnonzero(obs["action_mask"][0])[0]), 99]))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mode": "hand"}, "mode must be one of"),
        ({"reward": "win"}, "reward must be one of"),
        ({"seat": 4}, "seat must be 0..3"),
        ({"opponents": ["random"] * 2}, "give 3 strategy specs"),
        ({"illegal": "ignore"}, "illegal must be one of"),
    ],
)
def test_bad_settings_are_refused_with_the_allowed_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        HsimEnv(**kwargs)


def test_the_vector_env_refuses_an_opponent_it_cannot_compile_in():
    with pytest.raises(ValueError, match="not a compiled strategy"):
        HsimVectorEnv(num_envs=2, opponents=f"{ROOT}/examples/plain_bot.py:AvoidPoints")
    with pytest.raises(ValueError, match="one opponent spec"):
        HsimVectorEnv(num_envs=2, opponents=["random", "lowcard", "duck"], seat="rotate")
    with pytest.raises(StrategyError):
        HsimVectorEnv(num_envs=2, opponents="no_such_bot")


def test_a_plain_python_opponent_plays_between_the_learners_steps():
    spec = f"{ROOT}/examples/plain_bot.py:AvoidPoints"
    env = HsimEnv(opponents=[spec, "random", spec], reward="trick")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(1)
    total, done = 0.0, False
    while not done:
        obs, reward, done, _, info = env.step(_random_action(obs["action_mask"], rng))
        total += reward
    assert total in {-float(k) for k in range(27)} | {-26.0}
    assert info["deal"] == 0


def test_seat_rotate_moves_the_learner_one_seat_each_episode():
    env = HsimEnv(opponents="random", seat="rotate")
    seats = []
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(5):
        seats.append(info["seat"])
        done = False
        while not done:
            obs, _, done, _, info = env.step(_random_action(obs["action_mask"], rng))
        obs, info = env.reset()
    assert seats == [0, 1, 2, 3, 0]


def test_render_shows_the_table_as_text():
    env = HsimEnv(rules="kierki3", opponents="kierki", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "kierki3" in text and "seat 2" in text and "seat 3" not in text


def test_a_finished_episode_observation_asks_nothing():
    env = HsimEnv(opponents="random")
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(_random_action(obs["action_mask"], rng))
    assert obs["action_mask"].sum() == 0
    assert obs["observation"][FIELD["decision"].slice].sum() == 0
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)


def test_observe_writes_one_seats_view_without_gymnasium_types():
    env = HsimAECEnv()
    env.reset(seed=0)
    t = env.tables
    obs = np.zeros(OBS_LEN, np.float32)
    mask = np.zeros(N_ACTIONS, np.int8)
    observe(t.public[0], t.private[0, 1], t.rules_array, ST_GAME_OVER, 0, 0, t.scale, obs, mask)
    assert mask.sum() == 0 and obs[FIELD["hand"].slice].sum() == 13


# -- a policy back at the table ------------------------------------------------------------


class LowestAllowed:
    """Plays and passes the lowest-numbered cards it may: the rule the policy below learns."""

    games = ("hearts", "kierki")

    def pass_cards(self, obs, rng) -> int:
        hand, out = obs.hand, 0
        for _ in range(3):
            low = hand & -hand
            out |= low
            hand ^= low
        return out

    def play(self, obs, legal, rng) -> int:
        return (legal & -legal).bit_length() - 1

    def trump_choice(self, obs, rng) -> int:
        return 0


def _lowest_policy(observation, mask, rng):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("rules", ["classic", "kierki4"])
def test_a_policy_plays_at_the_table_as_the_same_rule_written_as_a_strategy(rules):
    def seat(factory, name):
        return LoadedStrategy(
            spec=name, name=name, kind="python", python_factory=factory,
            games=("hearts", "kierki"),
        )  # fmt: skip

    r = parse_rules(rules)
    other = load("random")
    policy = seat(lambda: PolicyStrategy(_lowest_policy), "policy")
    written = seat(LowestAllowed, "written")
    a = play_range(r, [policy, other, policy, other], seed=6, first=0, stop=3)
    b = play_range(r, [written, other, written, other], seed=6, first=0, stop=3)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert len(a[0]) > 12


def test_a_policy_that_answers_outside_its_mask_is_a_strategy_error():
    bad = LoadedStrategy(
        spec="bad", name="bad", kind="python",
        python_factory=lambda: PolicyStrategy(lambda o, m, rng: 59),
    )  # fmt: skip
    with pytest.raises(StrategyError, match="the policy answered 59"):
        play_range(parse_rules("classic"), [bad] + [load("random")] * 3, seed=1, first=0, stop=1)


def test_the_python_examples_of_docs_rl_run_as_written():
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "rl.md").read_text(), re.S)
    runnable = [b for b in blocks if "np.load(" not in b]  # the policy file needs weights
    assert len(runnable) == 3
    exec(compile("\n".join(runnable), "docs/rl.md", "exec"), {})


def test_the_training_example_writes_a_policy_that_plays_at_the_table(tmp_path):
    out = tmp_path / "rl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_train.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "policy.npz").exists()
    players = load_players([f"{out}/policy.py:Policy"] + ["random"] * 3)
    deals, games = play_range(parse_rules("classic"), players, seed=1, first=0, stop=2)
    assert len(games) == 8 and len(deals) >= 8
    again = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_train.py"), "--quick", "--out",
         str(tmp_path / "again")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "policy.npz").read_bytes() == (out / "policy.npz").read_bytes()


def test_plain_python_opponents_play_as_in_a_tournament_and_reseed(py_bot):
    spec = py_bot("PyRandom")
    rules = "classic(end_score=40)"
    env = HsimEnv(rules=rules, opponents=[spec] * 3, mode="game")

    def game_total(seed: int) -> float:
        obs, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            total += reward
        return total

    first = game_total(3)
    game_total(4)
    assert game_total(3) == first  # the plain-Python seats' streams follow the seed
    learner = LoadedStrategy(
        spec="lowest", name="lowest", kind="python", python_factory=LowestAllowed
    )
    _, games = replay_game(parse_rules(rules), [learner] + [load(spec)] * 3, seed=3, game=0)
    score = games[(games[:, G_SEAT] == 0)][0, G_SCORE]
    assert first == -float(score)


# -- what an attacker found -----------------------------------------------------------------


def test_rotate_in_the_vector_env_seats_the_opponent_at_every_other_seat():
    from hsim.play.seats import C_PLAY

    env = HsimVectorEnv(num_envs=2, opponents="lowcard", seat="rotate")
    env.reset(seed=1)
    assert env.tables.codes[:4, C_PLAY].tolist() == [2, 2, 2, 2]  # lowcard's code, no random


def test_after_an_opponents_error_the_learner_cannot_play_its_seat(py_bot):
    env = HsimEnv(opponents=[py_bot("NotHeld")] + ["random"] * 2)
    rng = np.random.default_rng(0)
    with pytest.raises(StrategyError):
        obs, _ = env.reset(seed=1)
        for _ in range(400):
            obs, _, done, _, _ = env.step(_random_action(obs["action_mask"], rng))
            if done:
                obs, _ = env.reset()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)
    obs, _ = env.reset(seed=2)  # a reset starts over cleanly
    assert obs["action_mask"].sum() > 0


@pytest.mark.parametrize("actions", [[3.7, 3.2], ["3", "4"], [True, False], [[1], [2]], [1]])
def test_the_vector_env_refuses_actions_that_are_not_one_integer_per_table(actions):
    env = HsimVectorEnv(num_envs=2, opponents="random")
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(np.array([0, 0]))
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="integers"):
        env.step(actions)
    _, rewards, _, _, info = env.step(np.array([2**64 - 1, 2**63], dtype=np.uint64))
    assert rewards.tolist() == [-1.0, -1.0] and info["illegal"].all()


def test_the_aec_env_clears_the_illegal_flag_and_says_to_reset_first():
    env = HsimAECEnv()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="reset"):
        env.last()
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(59)
    assert env.infos[agent]["illegal"]
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert "illegal" not in env.infos[agent]


def test_seeds_are_checked_before_anything_changes():
    from hsim.errors import ConfigError

    for env in (HsimEnv(), HsimVectorEnv(num_envs=2), HsimAECEnv()):
        env.reset(seed=np.uint64(5))
        for bad in (-1, 2**64, 1.5, True):
            with pytest.raises(ConfigError, match="seed"):
                env.reset(seed=bad)


def test_the_policy_file_of_docs_rl_plays_at_the_table(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "rl.md").read_text(), re.S)
    (policy,) = [b for b in blocks if "np.load(" in b]
    (tmp_path / "mypolicy.py").write_text(policy)
    weights = np.random.default_rng(0).standard_normal((OBS_LEN, N_ACTIONS)).astype(np.float32)
    np.save(tmp_path / "weights.npy", weights)
    players = load_players([f"{tmp_path}/mypolicy.py:Mine"] + ["duck"] * 3)
    _, games = play_range(parse_rules("classic"), players, seed=1, first=0, stop=1)
    assert len(games) == 4


def test_gymnasium_ids_are_registered_by_importing_the_package():
    import gymnasium

    import hsim.bridges.rl  # noqa: F401

    env = gymnasium.make("hsim/Kierki-v0", opponents="kierki")
    obs, info = env.reset(seed=3)
    assert obs["observation"][FIELD["kind"].slice].sum() == 1 and info["game"] == 0
    vec = gymnasium.make_vec("hsim/Hearts-v0", num_envs=3, opponents="duck")
    assert isinstance(vec, HsimVectorEnv) and vec.num_envs == 3


def test_the_vector_env_gives_each_ended_episodes_last_observation():
    env = HsimVectorEnv(num_envs=2, opponents="random")
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, _, ended, _, info = env.step([_random_action(m, rng) for m in obs["action_mask"]])
        if ended.any():
            break
    final = info["final_obs"]
    assert set(final) == {"observation", "action_mask"} and not final["action_mask"].any()
    i = int(np.flatnonzero(info["_final_obs"])[0])
    assert final["observation"][i, FIELD["hand"].slice].sum() == 0  # every card played
    assert info["deal"][i] == 1  # the table's next deal has begun
