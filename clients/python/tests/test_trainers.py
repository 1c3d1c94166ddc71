"""Client tests against a live service (TUTOR_REWARD_URL); test/clients/python.test.ts starts one."""

import csv
import io
import json
import math
import os
import sys
import unittest
import uuid
import warnings
from types import SimpleNamespace

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tutor_reward import Client, PlanReward, compute_score, compute_score_batch  # noqa: E402

URL = os.environ["TUTOR_REWARD_URL"]

PLAN = {
    "agents": [
        {"id": "tutor", "role": "Python tutor", "tools": ["CodeDocsSearchTool", "CodeInterpreterTool"]},
        {"id": "coach", "role": "Practice coach", "tools": ["CodeInterpreterTool"]},
    ],
    "subtasks": [{"id": "s1", "name": "Learn pandas groupby"}, {"id": "s2", "name": "Practice"}],
    "steps": [
        {"id": "a", "subtask": "s1", "agent": "tutor", "instruction": "Ask what the learner already knows about SQL",
         "depends_on": [], "human_input": True},
        {"id": "b", "subtask": "s1", "agent": "tutor", "instruction": "Demonstrate pandas groupby with an example",
         "tool": "CodeDocsSearchTool", "depends_on": ["a"]},
        {"id": "c", "subtask": "s2", "agent": "coach", "instruction": "Learner implements a monthly report",
         "tool": "CodeInterpreterTool", "depends_on": ["b"], "human_input": True},
        {"id": "d", "subtask": "s2", "agent": "coach", "instruction": "Verify the totals", "tool": "CodeInterpreterTool",
         "depends_on": ["c"]},
    ],
    "execution_order": ["a", "b", "c", "d"],
}


def variant(i):
    """Plans of varying quality: clean, cyclic, unauthorized tool, truncated."""
    plan = json.loads(json.dumps(PLAN))
    kind = i % 4
    if kind == 1:
        plan["steps"][0]["depends_on"] = ["d"]
    elif kind == 2:
        plan["steps"][1]["tool"] = "ShellTool"
    text = json.dumps(plan)
    return text[: len(text) // 2] if kind == 3 else "```json\n" + text + "\n```"


def repeated():
    """A plan built for the soft rewards, not the learner: one step said twelve times by one agent."""
    plan = json.loads(json.dumps(PLAN))
    plan["steps"] = [dict(plan["steps"][1], id=f"r{i}", depends_on=[f"r{i - 1}"] if i else []) for i in range(12)]
    plan["execution_order"] = [step["id"] for step in plan["steps"]]
    return json.dumps(plan)


def run_id():
    return "py-" + uuid.uuid4().hex[:10]


class TrlRewardTest(unittest.TestCase):
    def test_groups_by_prompt_and_returns_rewards_in_order(self):
        client = Client(URL, run_id=run_id())
        reward = PlanReward(client, num_generations=4)
        # Two prompts interleaved, as conversations; completions are assistant messages.
        prompts, completions, profiles = [], [], []
        for i in range(8):
            p = i % 2
            prompts.append([{"role": "user", "content": f"Teach me pandas, variant {p}"}])
            completions.append([{"role": "assistant", "content": variant(i // 2)}])
            profiles.append({"tags": ["python", "pandas"]} if p == 0 else "Java developer learning SQL")
        rewards = reward(prompts=prompts, completions=completions, completion_ids=None,
                         trainer_state=SimpleNamespace(global_step=7), profile=profiles)
        self.assertEqual(len(rewards), 8)
        self.assertEqual(reward.__name__, "personalplan_reward")
        groups = reward.last_response["groups"]
        self.assertEqual([g["size"] for g in groups], [4, 4])
        for g, offset in zip(groups, (0, 1)):
            for j, plan in enumerate(g["plans"]):
                self.assertEqual(rewards[offset + 2 * j], plan["reward"])
            clean = g["plans"][0]["reward"]
            self.assertTrue(all(clean > p["reward"] for p in g["plans"][1:]), "gated plans rank below the clean one")
        run = client.run()
        self.assertEqual(run["open_step"]["step"], 7)
        self.assertEqual(run["open_step"]["plans"], 8)

    def test_reference_column_is_the_groups_reference(self):
        # Under guarded, a reference replaces the estimate of what the plan says by its share of the reference:
        # the same plan is paid differently against a reference it covers and one it does not.
        paid = {}
        for name, reference in (("covered", ["Group the rows with groupby for the monthly report and check the totals."]),
                                ("missed", ["Solve the quadratic with the discriminant and report both roots."])):
            client = Client(URL, run_id=run_id())
            client.configure_run(reward_profile="guarded")
            reward = PlanReward(client)
            reward(prompts=["Teach me pandas"] * 2, completions=[variant(0)] * 2,
                   trainer_state=SimpleNamespace(global_step=0), profile=["python"] * 2, reference=[reference] * 2)
            paid[name] = reward.last_response["groups"][0]["plans"][0]["aboutness"]
        self.assertGreater(paid["covered"], paid["missed"])

    def test_identical_calls_count_and_a_retry_with_its_key_is_replayed(self):
        # Two calls with the same completions are two batches of samples (a low-entropy policy); a call sent
        # again with its key (what the client's own retries send) is a retry.
        client = Client(URL, run_id=run_id())
        reward = PlanReward(client)
        args = dict(prompts=["p"] * 4, completions=[variant(i) for i in range(4)],
                    trainer_state=SimpleNamespace(global_step=0), profile=["python"] * 4)
        self.assertEqual(reward(**args), reward(**args))
        self.assertEqual(client.run()["open_step"]["plans"], 8)
        groups = [{"query": "p", "profile": "python", "completions": [variant(0)] * 4}]
        first = client.score(groups, step=0, idempotency_key="call-1")
        again = client.score(groups, step=0, idempotency_key="call-1")
        self.assertEqual((again.pop("replayed"), "replayed" in first), (True, False), "the replay says so")
        self.assertEqual(again, first, "with the answer as it was given")
        self.assertEqual(client.run()["open_step"]["plans"], 12, "the retry was replayed, not counted")

    def test_warns_on_unexpected_group_size(self):
        reward = PlanReward(Client(URL, run_id=run_id()), num_generations=4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reward(prompts=["p", "p"], completions=[variant(0), variant(1)], profile=["x", "x"])
        self.assertTrue(any("expected 4" in str(w.message) for w in caught))


class VerlTest(unittest.TestCase):
    def setUp(self):
        os.environ["TUTOR_REWARD_URL"] = URL
        os.environ["TUTOR_REWARD_RUN"] = run_id()

    def test_single_form(self):
        good = compute_score("map-ppl", variant(0), json.dumps({"profile": {"tags": ["pandas"]}}))
        bad = compute_score("map-ppl", variant(3), "free text profile")
        self.assertGreater(good["score"], 0)
        self.assertEqual(good["gated"], 0)
        self.assertEqual(bad["score"], -10)
        self.assertEqual(bad["gated"], 1)
        gamed = compute_score("map-ppl", repeated(), "python")
        self.assertEqual(gamed["flagged"], 1, "the repeated-step plan raised a signal")
        self.assertTrue(all(0 <= r["aboutness"] <= 1 for r in (good, bad, gamed)))
        self.assertEqual(compute_score("map-ppl", "not a plan", "python")["aboutness"], 0, "0 when the plan did not parse")

    def test_batch_form_groups_by_prompt(self):
        sols = [variant(i) for i in range(8)]
        gts = [{"tags": ["python"]}] * 4 + ["Java developer"] * 4
        infos = [{"index": 0}] * 4 + [{"index": 1}] * 4
        out = compute_score_batch(["map-ppl"] * 8, sols, gts, infos)
        self.assertEqual(len(out), 8)
        for start in (0, 4):
            group = out[start:start + 4]
            self.assertAlmostEqual(sum(r["advantage"] for r in group), 0.0, places=9)
            self.assertTrue(all(group[0]["score"] > r["score"] for r in group[1:]))
        self.assertTrue(all(r["flagged"] in (0, 1) for r in out))
        gamed = compute_score_batch(["map-ppl"] * 2, [variant(0), repeated()], ["python"] * 2, [{"index": 0}] * 2)
        self.assertEqual(gamed[1]["flagged"], 1, "the repeated-step plan raised a signal")
        self.assertTrue(all(0 <= r["aboutness"] <= 1 for r in out + gamed))
        mixed = compute_score_batch(["d"] * 2, [variant(0), "not a plan"], ["python"] * 2, [{"index": 0}] * 2)
        self.assertEqual(mixed[1]["aboutness"], 0, "0 when the plan did not parse, as in the single form")


def project_capped_simplex(v, lo, hi):
    """The nearest point to v whose entries lie in [lo, hi] and sum to 1: clip(v - tau) for the shift tau
    that makes the sum 1, found by bisection (the service solves it another way)."""
    def total(tau):
        return sum(min(hi, max(lo, x - tau)) for x in v)
    below, above = min(v) - hi, max(v) - lo  # total(below) = n*hi >= 1 >= n*lo = total(above)
    for _ in range(2000):
        mid = (below + above) / 2
        if mid in (below, above):
            break
        if total(mid) > 1:
            below = mid
        else:
            above = mid
    return [min(hi, max(lo, x - above)) for x in v]


class AdaptiveWeightsTest(unittest.TestCase):
    """Recomputes EMA and weights from the run's CSV history with this file's own implementation."""

    def test_history_matches_independent_recomputation(self):
        client = Client(URL, run_id=run_id())
        client.configure_run(t_warm=10, t_refresh=20, alpha=0.2, eta_w=0.5)
        for step in range(120):
            # Profile signals the plans never mention: personalization lags the target.
            group = {"query": "q", "profile": {"tags": ["haskell", "erlang"]},
                     "completions": [variant(step + j) for j in range(4)]}
            client.score([group], step=step)
        client.finalize()
        rows = list(csv.DictReader(io.StringIO(client.history(limit=1000, csv=True))))
        self.assertEqual(len(rows), 120)
        config = client.run()["config"]
        w0 = config["w0"]
        w = [w0["struct"], w0["pers"], w0["ped"]]
        total = sum(w)
        w = [x / total for x in w]
        m = None
        axes = ("struct", "pers", "ped")
        for row in rows:
            step = int(row["step"])
            used = [float(row["w_" + k]) for k in axes]
            for a, b in zip(used, w):
                self.assertTrue(math.isclose(a, b, rel_tol=0, abs_tol=1e-12), f"step {step} weights")
            mean = [float(row["mean_" + k]) for k in axes]
            m = mean if m is None else [(1 - config["alpha"]) * x + config["alpha"] * y for x, y in zip(m, mean)]
            if step >= config["t_warm"] and (step - config["t_warm"]) % config["t_refresh"] == 0:
                # The service's reading of the bounds (docs/rewards.md section 6): the step normalized, then
                # projected onto the weights within [w_min, w_max] that sum to 1.
                raw = [x * math.exp(config["eta_w"] * (config["rho"] - e)) for x, e in zip(w, m)]
                w = project_capped_simplex([x / sum(raw) for x in raw], config["w_min"], config["w_max"])
                self.assertTrue(all(config["w_min"] <= float(row["w_after_" + k]) <= config["w_max"] for k in axes))
            for k, x in zip(axes, m):
                self.assertTrue(math.isclose(float(row["ema_" + k]), x, rel_tol=0, abs_tol=1e-12))
            self.assertEqual(row["refreshed"] == "1",
                             step >= config["t_warm"] and (step - config["t_warm"]) % config["t_refresh"] == 0)
        final = client.run()["weights"]
        for k, x in zip(axes, w):
            self.assertTrue(math.isclose(final[k], x, rel_tol=0, abs_tol=1e-12))
        self.assertGreater(final["pers"], 1 / 3, "weight moved toward the lagging axis")


if __name__ == "__main__":
    unittest.main()
