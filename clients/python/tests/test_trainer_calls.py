"""The adapters called exactly as each trainer's current code calls a reward function (argument names,
keyword-only calls, numpy object arrays, the file-path loader), against a live service (TUTOR_REWARD_URL).
Each harness is ours, written from reading the upstream source cited above it."""

import importlib.util
import io
import json
import os
import sys
import unittest
import urllib.request
import uuid
import warnings
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tutor_reward import Client, PlanReward  # noqa: E402
from tutor_reward.trl import GAMING_SIGNALS  # noqa: E402
from test_trainers import repeated, variant  # noqa: E402

URL = os.environ["TUTOR_REWARD_URL"]
VERL_FILE = os.path.join(os.path.dirname(__file__), "..", "tutor_reward", "verl.py")


def run_id():
    return "calls-" + uuid.uuid4().hex[:10]


def run_view(run):
    with urllib.request.urlopen(f"{URL}/runs/{run}") as res:
        return json.load(res)


def verl_load(path, name):
    """verl-project/verl@1dda039 verl/utils/import_utils.py:95-148 (load_module): the file is executed as a
    module of its own, with no package and not registered in sys.modules; the function is then looked up."""
    spec = importlib.util.spec_from_file_location(f"custom_module_{hash(os.path.abspath(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


class VerlCallsTest(unittest.TestCase):
    def setUp(self):
        self.run = run_id()
        os.environ["TUTOR_REWARD_URL"] = URL
        os.environ["TUTOR_REWARD_RUN"] = self.run

    def test_loaded_by_file_path_and_called_as_the_naive_manager_does(self):
        # verl-project/verl@1dda039 verl/experimental/reward_loop/reward_manager/naive.py:66-84: one sample,
        # keyword arguments only; extra_info is the parquet row's dict plus num_turns and rollout_reward_scores.
        compute_score = verl_load(VERL_FILE, "compute_score")
        out = compute_score(data_source="map-ppl", solution_str=variant(0),
                            ground_truth={"tags": np.array(["python", "pandas"], dtype=object), "skills": None},
                            extra_info={"num_turns": 2, "rollout_reward_scores": {}})
        self.assertGreater(out["score"], 0)
        self.assertGreater(out["pers"], 0, "the datasets-style profile (numpy list, None field) was read")
        self.assertEqual(set(out), {"score", "plan_score", "struct", "pers", "ped", "gated", "flagged"})
        self.assertIn(out["flagged"], (0, 1))

    def test_global_steps_from_the_rollout_keep_one_step_one_set_of_weights(self):
        compute_score = verl_load(VERL_FILE, "compute_score")
        Client(URL, run_id=self.run).configure_run(t_warm=0, t_refresh=1)
        scores = []
        for i in range(4):
            info = {"global_steps": np.int64(3), "num_turns": 2, "rollout_reward_scores": {}}
            scores.append(compute_score(data_source="map-ppl", solution_str=variant(0), ground_truth="python", extra_info=info))
        self.assertEqual(len({s["score"] for s in scores}), 1, "same plan, same step: same reward")
        view = run_view(self.run)
        self.assertEqual(view["open_step"]["step"], 3)
        self.assertEqual(view["open_step"]["plans"], 4)

    def test_batch_form_with_numpy_object_arrays_as_the_legacy_batch_manager_passes_them(self):
        # volcengine/verl@b178a3c verl/workers/reward_manager/batch.py:41-76: data_sources and extra_infos are
        # numpy object arrays, solution_strs and ground_truths lists, all passed as keywords.
        compute_score_batch = verl_load(VERL_FILE, "compute_score_batch")
        sols = [variant(i) for i in range(8)]
        out = compute_score_batch(
            data_sources=np.array(["map-ppl"] * 8, dtype=object), solution_strs=sols,
            ground_truths=[{"tags": ["python"]}] * 8,
            extra_infos=np.array([{"index": i // 4, "rollout_reward_scores": {}} for i in range(8)], dtype=object))
        self.assertEqual(len(out), 8)
        for start in (0, 4):
            self.assertAlmostEqual(sum(r["advantage"] for r in out[start:start + 4]), 0.0, places=9)

    def test_batch_form_without_index_groups_by_prompt_not_by_profile(self):
        compute_score_batch = verl_load(VERL_FILE, "compute_score_batch")
        infos = np.array([{"prompt": f"Teach me pandas {i % 2}"} for i in range(8)], dtype=object)
        out = compute_score_batch(data_sources=np.array(["d"] * 8, dtype=object), solution_strs=[variant(i // 2) for i in range(8)],
                                  ground_truths=["python"] * 8, extra_infos=infos)
        # Two prompts sharing one profile: two groups of four, each with advantages summing to zero.
        for parity in (0, 1):
            self.assertAlmostEqual(sum(out[i]["advantage"] for i in range(parity, 8, 2)), 0.0, places=9)


class TrlCallsTest(unittest.TestCase):
    """huggingface/trl@f2cd577 trl/trainer/grpo_trainer.py:1612-1703 (_calculate_rewards): keyword arguments
    only — prompts, completions, completion_ids, every dataset column as a list, trainer_state, log_extra,
    log_metric."""

    def call(self, reward, prompts, completions, step=0, **columns):
        logged, metrics = {}, {}
        out = reward(prompts=prompts, completions=completions, completion_ids=[[1, 2]] * len(completions), **columns,
                     trainer_state=SimpleNamespace(global_step=step, epoch=0.0, max_steps=100),
                     log_extra=lambda column, values: logged.__setitem__(column, list(values)),
                     log_metric=lambda name, value: metrics.__setitem__(name, value))
        return out, logged, metrics

    def test_datasets_profiles_with_none_fields_and_components_logged(self):
        run = run_id()
        reward = PlanReward(Client(URL, run_id=run), num_generations=4)
        profile = {"tags": ["python", "pandas"], "skills": None, "about_me": None, "experience": None, "goals": None}
        prompts = [[{"role": "user", "content": "Teach me pandas"}]] * 4
        completions = [[{"role": "assistant", "content": variant(i)}] for i in range(4)]
        rewards, logged, metrics = self.call(reward, prompts, completions, profile=[profile] * 4)
        self.assertEqual(len(rewards), 4)
        self.assertGreater(logged["personalplan_reward/pers"][0], 0, "the profile was used")
        self.assertEqual(logged["personalplan_reward/gated"], [0.0, 1.0, 1.0, 1.0])
        columns = ("struct", "pers", "ped", "gated", "flagged")
        self.assertEqual(set(metrics), {f"personalplan_reward/{k}_mean" for k in columns}
                         | {f"personalplan_reward/gaming/{code}_mean" for code in GAMING_SIGNALS})
        self.assertAlmostEqual(metrics["personalplan_reward/gated_mean"], 0.75)

    def test_gaming_signals_logged_per_sample_and_per_signal(self):
        reward = PlanReward(Client(URL, run_id=run_id()))
        completions = [variant(0), repeated(), variant(0), repeated()]
        _, logged, metrics = self.call(reward, ["Teach me pandas"] * 4, completions, profile=["python"] * 4)
        flags = [plan["gaming_flags"] for plan in reward.last_response["groups"][0]["plans"]]
        self.assertEqual(logged["personalplan_reward/flagged"], [1.0 if f else 0.0 for f in flags])
        self.assertAlmostEqual(metrics["personalplan_reward/flagged_mean"], sum(1 for f in flags if f) / 4)
        for code in GAMING_SIGNALS:
            share = sum(code in f for f in flags) / 4
            self.assertAlmostEqual(metrics[f"personalplan_reward/gaming/{code}_mean"], share, msg=code)
        self.assertEqual(metrics["personalplan_reward/gaming/duplicate_steps_mean"], 0.5, "the two repeated-step plans")

    def test_gaming_signal_codes_are_the_services(self):
        with urllib.request.urlopen(f"{URL}/docs/json") as res:
            codes = json.load(res)["components"]["schemas"]["GamingSignal"]["properties"]["code"]["enum"]
        self.assertEqual(list(GAMING_SIGNALS), codes, "each signal the service raises has its log_metric")

    def test_one_prompt_two_learners_is_two_groups(self):
        reward = PlanReward(Client(URL, run_id=run_id()))
        profiles = [{"tags": ["python"]}] * 4 + ["Java developer learning SQL"] * 4
        self.call(reward, ["Teach me pandas"] * 8, [variant(i % 4) for i in range(8)], profile=profiles)
        self.assertEqual([g["size"] for g in reward.last_response["groups"]], [4, 4])

    def test_evaluation_batches_are_scored_but_not_counted(self):
        run = run_id()
        trainer = SimpleNamespace(model=SimpleNamespace(training=True))
        reward = PlanReward(Client(URL, run_id=run)).watch(trainer)
        self.call(reward, ["p"] * 4, [variant(i) for i in range(4)], step=5, profile=["python"] * 4)
        trainer.model.training = False  # what TRL's evaluation loop does (model.eval())
        rewards, _, _ = self.call(reward, ["q"] * 4, [variant(i) for i in range(4)], step=6, profile=["python"] * 4)
        self.assertEqual(len(rewards), 4)
        view = run_view(run)
        self.assertEqual((view["open_step"]["step"], view["open_step"]["plans"]), (5, 4), "evaluation left the run alone")
        self.assertEqual(view["finalized_steps"], 0)

    def test_on_error_none_hands_back_none_with_a_warning(self):
        dead = Client("http://127.0.0.1:9", run_id=run_id(), timeout=2, retries=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rewards, logged, metrics = self.call(PlanReward(dead, on_error="none"), ["p"] * 2, [variant(0)] * 2,
                                                 profile=["x"] * 2)
        self.assertEqual(rewards, [None, None])
        self.assertEqual((logged, metrics), ({}, {}), "nothing logged for a batch without rewards")
        self.assertTrue(any("advantage 0" in str(w.message) for w in caught))
        with self.assertRaises(Exception):
            self.call(PlanReward(dead), ["p"] * 2, [variant(0)] * 2, profile=["x"] * 2)


if __name__ == "__main__":
    unittest.main()
