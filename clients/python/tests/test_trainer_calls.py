"""The adapters called exactly as each trainer's current code calls a reward function (argument names,
keyword-only calls, numpy object arrays, the file-path loader), against a live service (TUTOR_REWARD_URL).
Each harness is ours, written from reading the upstream source cited above it."""

import asyncio
import importlib.util
import inspect
import io
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid
import warnings
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tutor_reward import AsyncPlanReward, Client, PlanReward  # noqa: E402
from tutor_reward import client as client_module  # noqa: E402
from tutor_reward.trl import GAMING_SIGNALS, OTHER_SIGNAL  # noqa: E402
from test_trainers import repeated, variant  # noqa: E402

URL = os.environ["TUTOR_REWARD_URL"]
VERL_FILE = os.path.join(os.path.dirname(__file__), "..", "tutor_reward", "verl.py")
OPENRLHF_FILE = os.path.join(os.path.dirname(__file__), "..", "tutor_reward", "openrlhf.py")


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
        self.assertEqual(set(out), {"score", "plan_score", "struct", "pers", "ped", "gated", "flagged", "aboutness", "counted",
                                    "failed"})
        self.assertIn(out["flagged"], (0, 1))
        self.assertTrue(0 <= out["aboutness"] <= 1, out["aboutness"])

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

    def test_on_error_gives_the_fallback_with_the_keys_of_a_scored_sample(self):
        # verl-project/verl@1dda039 verl/experimental/agent_loop/agent_loop.py:1077-1080: each reward_extra_info
        # key of the first sample is read from every sample of the batch, so a failed one must have them all.
        compute_score = verl_load(VERL_FILE, "compute_score")
        ok = compute_score(data_source="d", solution_str=variant(0), ground_truth="python", extra_info={})
        os.environ["TUTOR_REWARD_URL"] = "http://127.0.0.1:9"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            failed = compute_score(data_source="d", solution_str=variant(0), ground_truth="python", extra_info={},
                                   on_error=0.0, retries=0)
        self.assertEqual((failed["score"], failed["failed"], ok["failed"]), (0.0, 1, 0))
        self.assertEqual(set(failed), set(ok))
        self.assertTrue(any("no reward from the service" in str(w.message) for w in caught))
        with self.assertRaises(Exception):
            compute_score(data_source="d", solution_str=variant(0), ground_truth="python", extra_info={}, retries=0)

    def test_validation_rollouts_are_scored_but_not_counted(self):
        # verl's own preprocessors (examples/data_preprocess/*.py) write extra_info.split; the reward loop passes
        # extra_info through (naive.py:42-51) and says nothing else of validation.
        compute_score = verl_load(VERL_FILE, "compute_score")
        Client(URL, run_id=self.run).configure_run(samples_per_step=100)
        train = compute_score(data_source="d", solution_str=variant(0), ground_truth="python",
                              extra_info={"split": "train", "index": 0})
        val = compute_score(data_source="d", solution_str=variant(0), ground_truth="python",
                            extra_info={"split": "test", "index": 0})
        self.assertEqual((train["counted"], val["counted"]), (1, 0))
        self.assertEqual(val["score"], train["score"], "scored with the run's weights")
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 1, "validation left the run alone")

    def test_a_resumed_trainer_replaying_a_finalized_step_is_warned_once(self):
        compute_score = verl_load(VERL_FILE, "compute_score")
        for step in (3, 4):
            compute_score(data_source="d", solution_str=variant(step), ground_truth="python", extra_info={"global_steps": step})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outs = [compute_score(data_source="d", solution_str=variant(i), ground_truth="python", extra_info={"global_steps": 3})
                    for i in range(3)]
        self.assertEqual([o["counted"] for o in outs], [0, 0, 0])
        self.assertEqual(len([w for w in caught if "already finalized" in str(w.message)]), 1)

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
    """trl 1.13.0 (the wheel pip installs here) trl/trainer/grpo_trainer.py:1636-1739 (_calculate_rewards),
    unchanged in this from huggingface/trl@f2cd577 (1.10.0.dev0) but for a length check: keyword arguments
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
        columns = ("struct", "pers", "ped", "gated", "flagged", "aboutness", "failed")
        self.assertEqual(set(metrics), {f"personalplan_reward/{k}_mean" for k in columns}
                         | {f"personalplan_reward/gaming/{code}_mean" for code in GAMING_SIGNALS + (OTHER_SIGNAL,)})
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

    def test_aboutness_logged_per_sample_and_its_batch_mean(self):
        client = Client(URL, run_id=run_id())
        client.configure_run(reward_profile="guarded")  # whose credit a plan's aboutness comes from
        reward = PlanReward(client)
        completions = [variant(0), repeated(), "not a plan", variant(1)]
        _, logged, metrics = self.call(reward, ["Teach me pandas"] * 4, completions, profile=["python"] * 4)
        about = [plan["aboutness"] for plan in reward.last_response["groups"][0]["plans"]]
        self.assertIsNone(about[2], "the service has none for a plan that did not parse")
        self.assertTrue(all(0 <= a <= 1 for a in about[:2] + about[3:]), about)
        expected = [a if a is not None else 0.0 for a in about]
        self.assertEqual(logged["personalplan_reward/aboutness"], expected, "0.0 for the unparsed plan, as its raw axes")
        self.assertAlmostEqual(metrics["personalplan_reward/aboutness_mean"], sum(expected) / 4)

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

    def test_on_error_none_logs_what_a_scored_call_logs_so_that_no_rank_waits(self):
        # trl 1.13.0 trl/trainer/grpo_trainer.py:2866-2878 (_generate_and_score_completions): every
        # rank gathers each log_extra column (gather_object) and each log_metric name (accelerator.gather) in
        # sorted order; a rank that logged fewer names than the others leaves them waiting in the collective.
        dead = Client("http://127.0.0.1:9", run_id=run_id(), timeout=2, retries=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rewards, logged, metrics = self.call(PlanReward(dead, on_error="none"), ["p"] * 2, [variant(0)] * 2,
                                                 profile=["x"] * 2)
        self.assertEqual(rewards, [None, None])
        self.assertTrue(any("advantage 0" in str(w.message) for w in caught))
        _, ok_logged, ok_metrics = self.call(PlanReward(Client(URL, run_id=run_id())), ["p"] * 2, [variant(0)] * 2,
                                             profile=["x"] * 2)
        self.assertEqual(sorted(logged), sorted(ok_logged), "the same columns as a scored call")
        self.assertEqual(sorted(metrics), sorted(ok_metrics), "the same metric names as a scored call")
        self.assertTrue(all(len(v) == 2 and all(math.isnan(x) for x in v) for v in logged.values()), logged)
        self.assertEqual((metrics["personalplan_reward/failed_mean"], ok_metrics["personalplan_reward/failed_mean"]), (1.0, 0.0))
        with self.assertRaises(Exception):
            self.call(PlanReward(dead), ["p"] * 2, [variant(0)] * 2, profile=["x"] * 2)

    def test_evaluation_is_not_counted_without_watch(self):
        # TRL passes log_extra=self._log_completion_extra, a bound method of the trainer, and evaluates with
        # model.eval() (training False).
        class Trainer:
            def __init__(self):
                self.model = SimpleNamespace(training=True)

            def _log_completion_extra(self, column, values):
                pass

        run = run_id()
        trainer = Trainer()
        reward = PlanReward(Client(URL, run_id=run))
        state = SimpleNamespace(global_step=3, epoch=0.0, max_steps=100)
        call = dict(prompts=["p"] * 4, completions=[variant(i) for i in range(4)], completion_ids=[[1]] * 4,
                    profile=["python"] * 4, trainer_state=state, log_extra=trainer._log_completion_extra,
                    log_metric=lambda name, value: None)
        reward(**call)
        trainer.model.training = False
        self.assertEqual(len(reward(**call)), 4)
        view = run_view(run)
        self.assertEqual((view["open_step"]["step"], view["open_step"]["plans"]), (3, 4), "evaluation left the run alone")

    def test_watch_closes_the_last_step_when_training_returns(self):
        # TRL's steps close when the next begins: the last step of training would stay open.
        run = run_id()
        reward = PlanReward(Client(URL, run_id=run))

        class Trainer:
            def train(inner):
                for step in (1, 2):
                    self.call(reward, ["p"] * 4, [variant(i) for i in range(4)], step=step, profile=["python"] * 4)
                return "trained"

        trainer = Trainer()
        reward.watch(trainer)
        reward.watch(trainer)  # watched twice: still one finalize
        self.assertEqual(trainer.train(), "trained")
        view = run_view(run)
        self.assertIsNone(view["open_step"], "the last step was closed")
        self.assertEqual((view["last_finalized_step"], view["finalized_steps"]), (2, 2))
        again = reward.finalize()
        self.assertEqual((again["finalized"], again["run"]["last_finalized_step"]), (None, 2), "again: nothing changes")

    def test_evaluation_with_continuous_batching_is_not_counted(self):
        # trl 1.13.0 grpo_trainer.py L1865: generation with use_transformers_continuous_batching ends with
        # unwrapped_model.train(), so model.training is True when the rewards are asked for, in evaluation too.
        # transformers' Trainer evaluates through self.evaluate (Trainer._evaluate); the reward is asked for in it.
        class Trainer:
            def __init__(self, reward):
                self.model = SimpleNamespace(training=True)
                self.reward = reward

            def _log_completion_extra(self, column, values):
                pass

            def score(self, step):
                return self.reward(prompts=["p"] * 4, completions=[variant(i) for i in range(4)], completion_ids=[[1]] * 4,
                                   profile=["python"] * 4, trainer_state=SimpleNamespace(global_step=step, epoch=0.0),
                                   log_extra=self._log_completion_extra, log_metric=lambda name, value: None)

            def evaluate(self, step):
                self.model.training = False  # model.eval() ...
                self.model.training = True  # ... and continuous batching's unwrapped_model.train()
                return self.score(step)

        for watched in (True, False):
            run = run_id()
            reward = PlanReward(Client(URL, run_id=run))
            trainer = Trainer(reward)
            if watched:
                reward.watch(trainer)
            trainer.score(3)  # a training step (an unwatched trainer is found here)
            self.assertEqual(len(trainer.evaluate(3)), 4)
            trainer.score(4)
            view = run_view(run)
            self.assertEqual((view["finalized_steps"], view["open_step"]["step"], view["open_step"]["plans"]), (1, 4, 4),
                             f"watched={watched}: step 3 held its 4 training plans only")

    def test_identical_calls_and_processes_without_rank_each_count(self):
        # A policy whose entropy has dropped sends identical completions; processes started without RANK send
        # identical bodies. Each call has a key of its own: every one counts.
        run = run_id()
        os.environ.pop("RANK", None)
        client = Client(URL, run_id=run)
        group = [{"query": "Teach me pandas", "profile": "python", "completions": [variant(0)] * 4}]
        for _ in range(8):
            client.score(group, step=0)
        self.assertEqual(run_view(run)["open_step"]["plans"], 32, "8 identical calls, 32 plans")
        # Four processes without RANK sending the same body at the same step.
        code = ("import json, os, sys; from tutor_reward import Client; "
                "Client(os.environ['TUTOR_REWARD_URL'], run_id=sys.argv[1]).score(json.loads(sys.argv[2]), step=0)")
        env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK")}
        env["PYTHONPATH"] = os.path.join(os.path.dirname(__file__), "..")
        procs = [subprocess.Popen([sys.executable, "-c", code, run, json.dumps(group)], env=env) for _ in range(4)]
        self.assertEqual([p.wait(timeout=60) for p in procs], [0] * 4)
        self.assertEqual(run_view(run)["open_step"]["plans"], 48, "each process's 4 plans counted")
        # A resumed trainer (a new process, the same RANK) redoing step 0's first call: a replay.
        resumed = dict(env, RANK="0")
        for _ in range(2):
            subprocess.run([sys.executable, "-c", code, run, json.dumps(group)], env=resumed, check=True, timeout=60)
        self.assertEqual(run_view(run)["open_step"]["plans"], 52, "the same rank's first call of step 0, sent twice: counted once")

    def test_async_reward_function_is_a_coroutine_function_trl_runs_concurrently(self):
        # trl 1.13.0 _calculate_rewards: `inspect.iscoroutinefunction(reward_func)` picks the async path, and
        # the function is awaited on TRL's event loop thread with the same keyword arguments.
        reward = AsyncPlanReward(Client(URL, run_id=None))
        self.assertTrue(inspect.iscoroutinefunction(reward))
        self.assertEqual(reward.__name__, "personalplan_reward")
        kwargs = dict(prompts=["p"] * 4, completions=[variant(i) for i in range(4)], completion_ids=[[1]] * 4,
                      profile=["python"] * 4, trainer_state=SimpleNamespace(global_step=0),
                      log_extra=lambda c, v: None, log_metric=lambda n, v: None)

        async def together():
            return await asyncio.gather(reward(**kwargs), reward(**kwargs))

        first, second = asyncio.run(together())
        self.assertEqual(first, second)
        self.assertEqual(first, PlanReward(Client(URL, run_id=None))(**kwargs))

    def test_a_resumed_trainer_replaying_a_finalized_step_is_warned(self):
        reward = PlanReward(Client(URL, run_id=run_id()))
        for step in (5, 6):
            self.call(reward, ["p"] * 4, [variant(i) for i in range(4)], step=step, profile=["python"] * 4)
        # The resumed trainer samples anew: other completions (the same ones would be a replay of the first call).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.call(reward, ["p"] * 4, [variant(i + 1) for i in range(4)], step=5, profile=["python"] * 4)
            self.call(reward, ["p"] * 4, [variant(i + 2) for i in range(4)], step=5, profile=["python"] * 4)
        late = [w for w in caught if "already finalized" in str(w.message)]
        self.assertEqual(len(late), 1, "warned once for the step")
        self.assertEqual(reward.last_response["run"]["counted"], False)


class DropFirstAnswer:
    """A TCP proxy to the service that forwards the first request and drops its answer (the client sees the
    connection close), as a timeout or a failing load balancer would; later connections pass through."""

    def __init__(self, upstream):
        host, port = upstream.split("//")[1].split(":")
        self.upstream = (host, int(port.rstrip("/")))
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.dropped = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.relay, args=(conn,), daemon=True).start()

    def relay(self, conn):
        with conn, socket.create_connection(self.upstream) as up:
            request = self.read_message(conn)
            if request is None:
                return
            up.sendall(request)
            answer = self.read_message(up)
            if self.dropped == 0:
                self.dropped += 1
                return  # counted by the service, never seen by the client
            conn.sendall(answer or b"")

    @staticmethod
    def read_message(sock):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0)
        while len(body) < length:
            body += sock.recv(65536)
        return head + b"\r\n\r\n" + body

    def close(self):
        self.server.close()


class RetriesTest(unittest.TestCase):
    def setUp(self):
        self.run = run_id()
        self.proxy = DropFirstAnswer(URL)
        self.addCleanup(self.proxy.close)
        Client(URL, run_id=self.run).configure_run(samples_per_step=100)

    def test_verl_single_form_retried_after_a_lost_answer_is_counted_once(self):
        os.environ["TUTOR_REWARD_URL"] = self.proxy.url
        os.environ["TUTOR_REWARD_RUN"] = self.run
        self.addCleanup(os.environ.__setitem__, "TUTOR_REWARD_URL", URL)
        compute_score = verl_load(VERL_FILE, "compute_score")
        out = compute_score(data_source="d", solution_str=variant(0), ground_truth="python", extra_info={"index": 0})
        self.assertEqual(out["failed"], 0)
        self.assertEqual(self.proxy.dropped, 1, "the first answer was lost and the call retried")
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 1, "counted once")
        # The same sample again, as a second rollout of the prompt that came out identical: a new sample.
        compute_score(data_source="d", solution_str=variant(0), ground_truth="python", extra_info={"index": 0})
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 2)

    def test_trl_reward_retried_after_a_lost_answer_is_counted_once(self):
        reward = PlanReward(Client(self.proxy.url, run_id=self.run))
        rewards = reward(prompts=["p"] * 4, completions=[variant(i) for i in range(4)], completion_ids=[[1]] * 4,
                         profile=["python"] * 4, trainer_state=SimpleNamespace(global_step=0))
        self.assertEqual(len(rewards), 4)
        self.assertEqual(self.proxy.dropped, 1, "the first answer was lost and the call retried")
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 4, "counted once")

    def test_openrlhf_post_request_retry_without_a_key_counts_again(self):
        # OpenRLHF/OpenRLHF@3c3be62 openrlhf/utils/agent.py:331-350 (_post_request): the same JSON body posted
        # again after a failure, up to 5 tries, no header of ours. The service cannot tell that retry from an
        # identical sample, and counts every request (docs/trainers.md); tutor_reward.openrlhf is the path with keys.
        body = json.dumps({"query": [variant(1)], "prompts": [""], "labels": ["python"]}).encode()
        url = f"{self.proxy.url}/openrlhf/reward?run_id={self.run}"
        for _ in range(5):
            try:
                req = urllib.request.Request(url, data=body, method="POST", headers={"content-type": "application/json"})
                with urllib.request.urlopen(req, timeout=30) as res:
                    out = json.load(res)
                break
            except (urllib.error.URLError, ConnectionError):
                continue
        self.assertEqual(self.proxy.dropped, 1)
        self.assertEqual(out["extra_logs"]["replayed"], [0])
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 2, "the lost answer's request and its retry")


def openrlhf_reward_func(path):
    """OpenRLHF/OpenRLHF@3c3be62 openrlhf/utils/agent.py:193-200 (SingleTurnAgentExecutor.__init__): a first
    remote_url ending in .py is loaded with spec_from_file_location("reward_func", path), outside any package,
    and its reward_func taken."""
    spec = importlib.util.spec_from_file_location("reward_func", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reward_func


def openrlhf_fetch_via_func(reward_func, query, prompt, label):
    """agent.py:284-292 and 296-314 (execute, _fetch_rewards_via_func): lists of one, on a thread, and the
    first result's rewards, scores and extra_logs read as execute reads them."""

    async def fetch():
        return await asyncio.gather(asyncio.to_thread(reward_func, [query], [prompt], [label]))

    info = asyncio.run(fetch())[0]
    score = info.get("scores")
    return {"reward": info.get("rewards"), "scores": score if score is not None else info.get("rewards"),
            "extra_logs": info.get("extra_logs") or {}}


class OpenRlhfFunctionTest(unittest.TestCase):
    def setUp(self):
        self.run = run_id()
        os.environ["TUTOR_REWARD_RUN"] = self.run
        self.addCleanup(os.environ.__setitem__, "TUTOR_REWARD_URL", URL)
        Client(URL, run_id=self.run).configure_run(samples_per_step=100)
        self.reward_func = openrlhf_reward_func(OPENRLHF_FILE)

    def test_identical_samples_each_count_and_a_lost_answer_is_counted_once(self):
        out = [openrlhf_fetch_via_func(self.reward_func, variant(0), "", "python") for _ in range(3)]
        self.assertEqual([o["extra_logs"]["counted"] for o in out], [[1], [1], [1]])
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 3, "three identical samples, three samples")
        proxy = DropFirstAnswer(URL)
        self.addCleanup(proxy.close)
        os.environ["TUTOR_REWARD_URL"] = proxy.url
        again = openrlhf_fetch_via_func(self.reward_func, variant(0), "", "python")
        self.assertEqual(proxy.dropped, 1, "the first answer was lost and the call retried")
        self.assertEqual((again["extra_logs"]["replayed"], again["extra_logs"]["counted"]), ([1], [0]))
        self.assertEqual(again["reward"], out[0]["reward"], "the reward as it was given")
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 4, "counted once")

    def test_evaluation_labels_are_scored_not_counted(self):
        label = json.dumps({"profile": {"tags": ["python"]}, "evaluation": True})
        out = openrlhf_fetch_via_func(self.reward_func, variant(0), "", label)
        self.assertEqual(out["extra_logs"]["counted"], [0])
        self.assertEqual(len(out["reward"]), 1)
        trained = openrlhf_fetch_via_func(self.reward_func, variant(0), "", json.dumps({"profile": {"tags": ["python"]}}))
        self.assertEqual(trained["reward"], out["reward"], "the same reward, with the run's weights")
        self.assertEqual(run_view(self.run)["open_step"]["plans"], 1, "only the training sample counted")


class RetryAfterTest(unittest.TestCase):
    """Retry-After from a full queue (503) or a rate limit (429) is waited out, with jitter; else backoff."""

    def waits(self, statuses, retry_after):
        class Answers:
            def __init__(self):
                self.left = list(statuses)

        answers = Answers()
        slept = []

        def fake_urlopen(req, timeout):
            status = answers.left.pop(0)
            if status == 200:
                res = io.BytesIO(b"{}")
                res.headers = {}  # as urllib's response has them
                return res
            headers = {"retry-after": retry_after} if retry_after else {}
            raise urllib.error.HTTPError(req.full_url, status, "x", headers, io.BytesIO(b"{}"))

        real_open, real_sleep = client_module.urllib.request.urlopen, client_module.time.sleep
        client_module.urllib.request.urlopen, client_module.time.sleep = fake_urlopen, slept.append
        try:
            Client("http://x", run_id=None, backoff=0.5).score([])
        finally:
            client_module.urllib.request.urlopen, client_module.time.sleep = real_open, real_sleep
        return slept

    def test_retry_after_is_honoured_with_jitter(self):
        slept = self.waits([503, 503, 429, 200], "3")
        self.assertEqual(len(slept), 3)
        self.assertTrue(all(3.0 <= s <= 6.0 for s in slept), slept)

    def test_without_retry_after_the_backoff_doubles(self):
        slept = self.waits([503, 502, 200], None)
        self.assertTrue(0.5 <= slept[0] <= 1.0 and 1.0 <= slept[1] <= 2.0, slept)


if __name__ == "__main__":
    unittest.main()
