"""Train a small Hearts policy with numpy alone, then play it with hsim.

An advantage actor-critic (REINFORCE with a learned baseline) over hsim's vector
environment: one learner seat against three ``random`` seats on many tables at once, a
one-hidden-layer network (ReLU) with a softmax head over the allowed actions and a value
head, trained by hand-written backprop and Adam. Rewards are per trick
(``reward="trick"``: minus the points of each trick the learner takes), so credit reaches
the card that took them.

Usage::

    python examples/rl_train.py --out runs/rl            # a few minutes on 2 cores
    python examples/rl_train.py --quick --out /tmp/rl    # a few seconds (tests)
    hsim gauntlet --candidates runs/rl/policy.py:Policy,lowcard --panel random \\
        --boards 1000 --seed 5

It writes ``policy.npz`` (the weights) and ``policy.py`` (a strategy file playing the
weights greedily) into ``--out``. The same ``--seed`` and ``--updates`` give the same
weights; ``--minutes`` stops early on the clock, which depends on the machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from hsim.bridges.rl.envs import HsimVectorEnv
from hsim.bridges.rl.tensor import N_ACTIONS, OBS_LEN

REWARD_SCALE = 1 / 13  # rewards are points (a deal totals -26); keep the values near 1

POLICY_TEMPLATE = '''\
"""A policy trained by examples/rl_train.py (seed {seed}, {updates} updates), played
greedily: the allowed action of highest logit. Its weights are policy.npz, beside it."""

from pathlib import Path

import numpy as np

from hsim.bridges.rl import PolicyStrategy

_WEIGHTS = Path(__file__).with_name("policy.npz")


class Policy(PolicyStrategy):
    """hsim strategy: a one-hidden-layer network over the observation (docs/rl.md)."""

    def __init__(self) -> None:
        super().__init__()
        with np.load(_WEIGHTS) as w:
            self.w1, self.b1, self.w2, self.b2 = (w[k] for k in ("w1", "b1", "w2", "b2"))

    def policy(self, observation, mask, rng) -> int:
        hidden = np.maximum(observation @ self.w1 + self.b1, 0.0)
        logits = hidden @ self.w2 + self.b2
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))
'''


class Net:
    """obs -> ReLU(obs @ w1 + b1) = h; logits = h @ w2 + b2; value = h @ wv + bv."""

    NAMES = ("w1", "b1", "w2", "b2", "wv", "bv")

    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        self.p = {
            "w1": rng.normal(0, (2 / OBS_LEN) ** 0.5, (OBS_LEN, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0, 0.01, (hidden, N_ACTIONS)),
            "b2": np.zeros(N_ACTIONS),
            "wv": np.zeros((hidden, 1)),
            "bv": np.zeros(1),
        }
        self.p = {k: v.astype(np.float32) for k, v in self.p.items()}

    def forward(self, x: np.ndarray, mask: np.ndarray):
        """Return (hidden, log-probabilities over allowed actions, value)."""
        p = self.p
        h = np.maximum(x @ p["w1"] + p["b1"], 0.0)
        logits = np.where(mask > 0, h @ p["w2"] + p["b2"], -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        value = (h @ p["wv"] + p["bv"])[:, 0]
        return h, logp, value

    def grads(self, x, mask, actions, adv, returns, vf_coef, ent_coef):
        """Return the gradient of the loss
        ``mean(-adv * log pi(a) + vf_coef / 2 * (v - G)**2 - ent_coef * entropy)``."""
        p, n = self.p, len(x)
        h, logp, value = self.forward(x, mask)
        prob = np.exp(logp)  # 0 at the masked actions
        plogp = prob * np.where(mask > 0, logp, 0.0)
        entropy = -plogp.sum(axis=1, keepdims=True)
        # d(-log pi(a))/dlogits = prob - onehot(a); d(-entropy)/dlogits = p (log p + H).
        dlogits = prob * adv[:, None]
        dlogits[np.arange(n), actions] -= adv
        dlogits += ent_coef * (plogp + prob * entropy)
        dvalue = vf_coef * (value - returns)[:, None]
        dlogits /= n
        dvalue /= n
        dh = (dlogits @ p["w2"].T + dvalue @ p["wv"].T) * (h > 0)
        g = {
            "w2": h.T @ dlogits,
            "b2": dlogits.sum(0),
            "wv": h.T @ dvalue,
            "bv": dvalue.sum(0),
            "w1": x.T @ dh,
            "b1": dh.sum(0),
        }
        return g, float(entropy.mean())


class Adam:
    def __init__(self, params: dict, lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict, grads: dict, b1=0.9, b2=0.999, eps=1e-8) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            mhat = self.m[k] / (1 - b1**self.t)
            vhat = self.v[k] / (1 - b2**self.t)
            params[k] -= (self.lr * mhat / (np.sqrt(vhat) + eps)).astype(np.float32)


def train(args) -> Net:
    rng = np.random.default_rng(args.seed)
    net = Net(args.hidden, rng)
    opt = Adam(net.p, args.lr)
    env = HsimVectorEnv(num_envs=args.envs, opponents="random", reward="trick")
    obs, _ = env.reset(seed=args.seed)
    n, t_len = args.envs, args.steps
    xs = np.zeros((t_len, n, OBS_LEN), np.float32)
    masks = np.zeros((t_len, n, N_ACTIONS), np.int8)
    acts = np.zeros((t_len, n), np.int64)
    rews = np.zeros((t_len, n))
    dones = np.zeros((t_len, n), bool)
    deal_reward = np.zeros(n)  # running reward of each table's current deal
    finished: list[float] = []  # rewards of the deals ended since the last print
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    for update in range(1, args.updates + 1):
        for t in range(t_len):
            # The env reuses its arrays on the next step: copy into the rollout.
            xs[t], masks[t] = obs["observation"], obs["action_mask"]
            _, logp, _ = net.forward(xs[t], masks[t])
            # Sample from the masked softmax (Gumbel-max, all tables at once).
            gumbel = -np.log(-np.log(rng.random(logp.shape)))
            acts[t] = np.argmax(logp + gumbel, axis=1)
            obs, rews[t], dones[t], _, _ = env.step(acts[t])
            deal_reward += rews[t]
            finished.extend(deal_reward[dones[t]])
            deal_reward[dones[t]] = 0.0
        # Returns to the deal's end (undiscounted), bootstrapped by the value at the cut.
        _, _, g = net.forward(obs["observation"], obs["action_mask"])
        returns = np.zeros((t_len, n))
        for t in reversed(range(t_len)):
            g = rews[t] * REWARD_SCALE + np.where(dones[t], 0.0, g)
            returns[t] = g
        x = xs.reshape(-1, OBS_LEN)
        m = masks.reshape(-1, N_ACTIONS)
        a = acts.reshape(-1)
        ret = returns.reshape(-1).astype(np.float32)
        _, _, value = net.forward(x, m)
        adv = ret - value
        adv = ((adv - adv.mean()) / (adv.std() + 1e-8)).astype(np.float32)
        grads, entropy = net.grads(x, m, a, adv, ret, args.vf_coef, args.ent_coef)
        opt.step(net.p, grads)
        elapsed = time.perf_counter() - start_wall
        last = update == args.updates or elapsed > 60 * args.minutes
        if update % args.print_every == 0 or last:
            print(
                f"update {update:4d}  deals {len(finished):6d}  "
                f"reward/deal {np.mean(finished):+.3f}  entropy {entropy:.2f}  "
                f"wall {elapsed:5.0f}s",
                flush=True,
            )
            finished.clear()
        if last:
            break
    print(
        f"trained {update} updates ({update * t_len * n} steps) in "
        f"{time.perf_counter() - start_wall:.0f}s wall, "
        f"{time.process_time() - start_cpu:.0f}s CPU"
    )
    args.updates = update
    return net


def save(net: Net, args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "policy.npz", **{k: net.p[k] for k in ("w1", "b1", "w2", "b2")})
    (out / "policy.py").write_text(POLICY_TEMPLATE.format(seed=args.seed, updates=args.updates))
    print(f"wrote {out / 'policy.npz'} and {out / 'policy.py'}")
    print(
        "grade it: hsim gauntlet --candidates "
        f"{out / 'policy.py'}:Policy,lowcard --panel random --boards 1000 --seed 5"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder to write policy.npz and policy.py")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--updates", type=int, default=800, help="gradient updates")
    ap.add_argument("--minutes", type=float, default=10.0, help="stop early after this")
    ap.add_argument("--envs", type=int, default=512, help="tables stepped together")
    ap.add_argument("--steps", type=int, default=32, help="steps per table per update")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--print-every", type=int, default=25)
    ap.add_argument("--quick", action="store_true", help="a few seconds of training")
    args = ap.parse_args(argv)
    if args.quick:
        args.updates, args.envs, args.steps, args.print_every = 10, 64, 16, 5
    save(train(args), args)


if __name__ == "__main__":
    main()
