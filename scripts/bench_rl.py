"""Environment steps per CPU-second of hsim's learning environments, against a Python loop
over OpenSpiel's ``hearts`` and the ``heartsgym`` package, all in one run.

Usage::

    python scripts/bench_rl.py [--batch 1024] [--seconds 3] [--seed S] [--json]

Every row plays random legal actions for ``--seconds`` CPU-seconds (``time.process_time()``,
all of this process's threads) after a short warm-up that is not timed (the numba code is
loaded, or compiled, at import, before any row). A step is one decision of the seat(s) the
row's agent plays; the policy's own time is counted with the environment's:

- vector env: ``HsimVectorEnv(num_envs=--batch)``, the learner at seat 0 against three
  compiled opponents (``random``, then ``heuristic``) that play inside the same compiled
  call. The policy is numpy over the whole batch (a uniform draw from each table's mask).
  A step is one table's learner action, so one ``step()`` call is ``--batch`` steps.
- AEC env: ``HsimAECEnv``, all four seats agents, the standard ``agent_iter()`` /
  ``last()`` / ``step()`` loop with a random legal action picked in Python from the mask.
  A step is one ``env.step`` call with an action; the four ``step(None)`` calls that
  retire the agents at the end of each deal are timed but not counted.
- single-agent env: ``HsimEnv``, one learner action a step, three compiled ``random``
  opponents played between its steps.
- OpenSpiel loop: ``pyspiel.load_game("hearts")``, per step ``state.legal_actions()`` and
  ``state.apply_action(random choice)``. Chance nodes (the pass direction, then the 52
  dealt cards one at a time) are sampled from ``state.chance_outcomes()`` and timed but
  not counted as steps. The reference of the "vs OpenSpiel" column. A second row also
  asks ``state.information_state_tensor(player)`` before each step, as an agent would
  (hsim's environments compute their observation every step); it is only shown.
- heartsgym: ``HeartsGym.Hearts`` from PyPI (legacy ``gym``), one card play a step; it has
  no action mask, so the legal slots are found with its ``isActionValid`` (timed). It
  deals with Python's global ``random``, has no passing (52 steps a deal) and builds its
  observation in Python each step.

The targets (the issue's): vector env at batch >= 1024 at least 1,000,000 steps per
CPU-second; AEC env at least the OpenSpiel loop; single-agent env at least 4x the OpenSpiel
loop. A deal of hsim's classic rules is 52 plays plus 12 pass actions (none on every fourth
deal, the hold); OpenSpiel's is the same, its pass direction drawn by chance.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time

import numpy as np

from hsim.bridges.rl.aec import HsimAECEnv
from hsim.bridges.rl.envs import HsimEnv, HsimVectorEnv

WARMUP_S = 0.2


def timed(deal, seconds: float, start=None) -> tuple[int, int, float]:
    """Call ``deal()`` (which plays on and returns the steps it took) for ``seconds``
    CPU-seconds after ``WARMUP_S`` untimed, then ``start()`` if given; return (steps,
    calls, CPU-seconds).

    The clock is read between calls only, so the last call may run over the budget: the
    CPU-seconds are what was used, not the budget."""
    t0 = time.process_time()
    while time.process_time() - t0 < WARMUP_S:
        deal()
    if start is not None:
        start()
    steps = calls = 0
    t0 = time.process_time()
    while (used := time.process_time() - t0) < seconds:
        steps += deal()
        calls += 1
    return steps, calls, used


def vector_row(batch: int, opponents: str, seconds: float, seed: int) -> dict:
    env = HsimVectorEnv(num_envs=batch, rules="classic", opponents=opponents, seat=0)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    u = np.empty((batch, 60))
    tally = {"deals": 0, "illegal": 0, "policy_s": 0.0}

    def step() -> int:
        nonlocal obs
        t0 = time.process_time()
        # Uniform over each table's allowed actions: a uniform draw zeroed off the mask,
        # its largest survivor (a mask is never empty: autoreset always asks the learner).
        rng.random(out=u)
        np.multiply(u, obs["action_mask"], out=u)
        actions = u.argmax(1)
        tally["policy_s"] += time.process_time() - t0
        obs, _, ended, _, info = env.step(actions)
        tally["deals"] += int(ended.sum())
        tally["illegal"] += int(info["illegal"].sum()) if "illegal" in info else 0
        return batch

    steps, calls, cpu = timed(
        step, seconds, start=lambda: tally.update(deals=0, illegal=0, policy_s=0.0)
    )
    note = f"{calls} step() calls, the policy {tally['policy_s'] / cpu:.0%} of the CPU"
    if tally["illegal"]:
        note += f"; {tally['illegal']} REFUSED actions"
    return {
        "row": f"vector env, batch {batch}, {opponents} opponents",
        "steps": steps,
        "cpu_s": cpu,
        "deals": tally["deals"],
        "note": note,
    }


def aec_row(seconds: float, seed: int) -> dict:
    env = HsimAECEnv(rules="classic")
    env.reset(seed=seed)
    rng = random.Random(seed)

    def deal() -> int:
        n = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)  # PettingZoo's way to retire an agent: not a decision
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(legal[rng.randrange(len(legal))])
            n += 1
        env.reset()  # no seed: the next deal of the same run
        return n

    steps, deals, cpu = timed(deal, seconds)
    return {"row": "AEC env, 4 agents", "steps": steps, "cpu_s": cpu, "deals": deals}


def single_row(seconds: float, seed: int) -> dict:
    env = HsimEnv(rules="classic", opponents="random", seat=0)
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)

    def deal() -> int:
        nonlocal obs
        n = 0
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(legal[rng.randrange(len(legal))])
            n += 1
        obs, _ = env.reset()
        return n

    steps, deals, cpu = timed(deal, seconds)
    return {
        "row": "single-agent env, random opponents",
        "steps": steps,
        "cpu_s": cpu,
        "deals": deals,
    }


def openspiel_row(seconds: float, seed: int, tensor: bool = False) -> dict:
    name = "OpenSpiel loop" + (" + information_state_tensor" if tensor else " (pyspiel hearts)")
    try:
        import pyspiel
    except ImportError:
        return {"row": name, "skipped": "pyspiel is not installed"}
    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    chance = [0]

    def deal() -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                chance[0] += 1
            else:
                if tensor:  # what an agent would look at: hsim's envs pay for theirs
                    state.information_state_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                n += 1
        return n

    steps, deals, cpu = timed(deal, seconds, start=lambda: chance.__setitem__(0, 0))
    return {
        "row": name,
        "steps": steps,
        "cpu_s": cpu,
        "deals": deals,
        "note": f"chance steps timed, not counted (~{chance[0] / max(deals, 1):.0f} a deal)",
    }


def heartsgym_row(seconds: float, seed: int) -> dict:
    try:
        # Legacy gym prints a warning about NumPy 2 on import: not ours to show.
        with contextlib.redirect_stderr(io.StringIO()):
            from HeartsGym import Hearts
    except ImportError as exc:
        return {"row": "heartsgym", "skipped": f"does not import ({exc})"}
    random.seed(seed)  # it deals and shuffles its action slots with the global stream
    env = Hearts()
    env.reset()
    rng = random.Random(seed)

    def deal() -> int:
        n = 0
        done = False
        while not done:
            legal = [i for i in range(13) if env.isActionValid(i)]
            _, _, done = env.step(legal[rng.randrange(len(legal))])
            n += 1
        env.reset()
        return n

    steps, deals, cpu = timed(deal, seconds)
    return {
        "row": "heartsgym 0.43 (PyPI)",
        "steps": steps,
        "cpu_s": cpu,
        "deals": deals,
        "note": "no passing; legal slots via isActionValid",
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--batch", type=int, default=1024, help="vector env tables (default 1024)")
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU-seconds a row (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="run seed of every row (default 1)")
    ap.add_argument(
        "--json", action="store_true", help="print one JSON object (the table goes to stderr)"
    )
    args = ap.parse_args(argv)
    if args.batch < 1 or args.seconds <= 0:
        ap.error("--batch must be at least 1 and --seconds positive")
    out = sys.stderr if args.json else sys.stdout

    # One after the other in this process, never in parallel: each row is one core's work.
    benches = [
        lambda: openspiel_row(args.seconds, args.seed),
        lambda: openspiel_row(args.seconds, args.seed, tensor=True),
        lambda: vector_row(args.batch, "random", args.seconds, args.seed),
        lambda: vector_row(args.batch, "heuristic", args.seconds, args.seed),
        lambda: aec_row(args.seconds, args.seed),
        lambda: single_row(args.seconds, args.seed),
        lambda: heartsgym_row(args.seconds, args.seed),
    ]
    rows = []
    for bench in benches:
        row = bench()
        if "skipped" not in row:
            row["per_cpu_s"] = row["steps"] / row["cpu_s"]
        rows.append(row)
        print(f"measured: {row['row']}", file=sys.stderr, flush=True)

    reference = rows[0].get("per_cpu_s")
    targets = {
        "vector env, batch": (1_000_000, "absolute", ">= 1,000,000/CPU-s"),
        "AEC env": (1.0, "ratio", ">= OpenSpiel loop"),
        "single-agent env": (4.0, "ratio", ">= 4x OpenSpiel loop"),
    }
    print(
        f"classic rules, random legal actions, {args.seconds:g} CPU-s a row, seed {args.seed}",
        file=out,
    )
    print(
        "| environment | steps | CPU-s | steps/CPU-s | vs OpenSpiel | steps/deal | target | note |",
        file=out,
    )
    print("|---|---:|---:|---:|---:|---:|---|---|", file=out)
    for row in rows:
        if "skipped" in row:
            print(f"| {row['row']} | not measured: {row['skipped']} ||||||", file=out)
            continue
        ratio = row["per_cpu_s"] / reference if reference else None
        row["vs_openspiel"] = ratio
        target = ""
        for prefix, (goal, kind, words) in targets.items():
            if not row["row"].startswith(prefix) or "heuristic" in row["row"]:
                continue
            if prefix.startswith("vector") and args.batch < 1024:
                continue  # the target is for batches of 1024 or more
            value = row["per_cpu_s"] if kind == "absolute" else ratio
            if value is not None:
                row["target_met"] = value >= goal
                target = f"{words}: {'met' if row['target_met'] else 'NOT met'}"
        print(
            f"| {row['row']} | {row['steps']:,} | {row['cpu_s']:.2f} | {row['per_cpu_s']:,.0f} | "
            + (f"{ratio:.2f}x" if ratio is not None else "-")
            + f" | {row['steps'] / max(row['deals'], 1):.1f} | {target} | {row.get('note', '')} |",
            file=out,
        )
    if args.json:
        print(json.dumps({"batch": args.batch, "seconds": args.seconds, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
