"""The client and the adapters against a live service with API keys (TUTOR_REWARD_URL; the keys it was started
with in TUTOR_REWARD_TEST_SCORE_KEY, TUTOR_REWARD_TEST_READ_KEY and TUTOR_REWARD_TEST_ADMIN_KEY, with scopes
score, read and admin). test/clients/python.test.ts starts such a service and runs this module alone."""

import functools
import os
import pickle
import secrets
import sys
import unittest
import urllib.error
import urllib.request
import uuid
import warnings
from types import SimpleNamespace
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tutor_reward import Client, PlanReward, ServiceError, compute_score, compute_score_batch  # noqa: E402
from test_trainers import variant  # noqa: E402
from test_trainer_calls import VERL_FILE, verl_load  # noqa: E402

URL = os.environ["TUTOR_REWARD_URL"]
SCORE_KEY = os.environ["TUTOR_REWARD_TEST_SCORE_KEY"]
READ_KEY = os.environ["TUTOR_REWARD_TEST_READ_KEY"]
ADMIN_KEY = os.environ["TUTOR_REWARD_TEST_ADMIN_KEY"]
KEYS = (SCORE_KEY, READ_KEY, ADMIN_KEY)


def run_id():
    return "keys-" + uuid.uuid4().hex[:10]


def group():
    return {"query": "Teach me pandas", "profile": {"tags": ["python", "pandas"]},
            "completions": [variant(i) for i in range(4)]}


class KeyedTest(unittest.TestCase):
    """Each test starts with no TUTOR_REWARD_API_KEY and gets the environment back as it found it."""

    def setUp(self):
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)
        os.environ.pop("TUTOR_REWARD_API_KEY", None)
        self.run = run_id()
        os.environ["TUTOR_REWARD_URL"] = URL
        os.environ["TUTOR_REWARD_RUN"] = self.run

    def reader(self):
        return Client(URL, run_id=self.run, api_key=READ_KEY)

    def assertDenied(self, call, status, code, *shown_to_nobody):
        """`call` raises ServiceError(status, code) after exactly one request (an auth error is never retried),
        and none of `shown_to_nobody` (the keys involved) is in the exception's text."""
        with mock.patch("urllib.request.urlopen", wraps=urllib.request.urlopen) as opened:
            with self.assertRaises(ServiceError) as caught:
                call()
        err = caught.exception
        self.assertEqual((err.status, err.code), (status, code), str(err))
        self.assertEqual(opened.call_count, 1, f"HTTP {status} was sent {opened.call_count} times")
        self.assertIn(f"HTTP {status}", str(err))
        self.assertIn(code, str(err))
        for key in shown_to_nobody + KEYS:
            self.assertNotIn(key, str(err))
            self.assertNotIn(key, repr(err))
            self.assertNotIn(key, err.body)
        return err


class ClientKeyTest(KeyedTest):
    def test_score_key_as_argument_scores_and_is_counted(self):
        out = Client(URL, run_id=self.run, api_key=SCORE_KEY).score([group()], step=0)
        self.assertEqual(len(out["groups"][0]["plans"]), 4)
        out = Client(URL, run_id=self.run, api_key=SCORE_KEY).openrlhf([variant(0)], labels=["python"], step=0)
        self.assertEqual(len(out["rewards"]), 1)
        view = self.reader().run()
        self.assertEqual((view["open_step"]["step"], view["open_step"]["plans"]), (0, 5))

    def test_score_key_from_the_environment(self):
        with mock.patch.dict(os.environ, {"TUTOR_REWARD_API_KEY": SCORE_KEY}):
            client = Client(URL, run_id=self.run)
            out = client.score([group()], step=0)
            self.assertEqual(len(out["groups"][0]["plans"]), 4)
            self.assertEqual(client.run()["open_step"]["plans"], 4)
        self.assertNotIn("TUTOR_REWARD_API_KEY", os.environ)
        # The environment is read when a client is made: one made now has no key.
        self.assertDenied(lambda: Client(URL, run_id=self.run).score([group()], step=1), 401, "unauthorized")

    def test_the_argument_wins_over_the_environment(self):
        os.environ["TUTOR_REWARD_API_KEY"] = "f" * 48
        Client(URL, run_id=self.run, api_key=SCORE_KEY).score([group()], step=0)
        os.environ["TUTOR_REWARD_API_KEY"] = SCORE_KEY
        self.assertDenied(lambda: Client(URL, run_id=self.run, api_key=READ_KEY).score([group()], step=0), 403,
                          "forbidden")

    def test_no_key_is_401_unauthorized_at_once(self):
        # A client that would retry: a retried 401 would show in the request count.
        client = Client(URL, run_id=self.run, retries=3, backoff=1)
        err = self.assertDenied(lambda: client.score([group()], step=0), 401, "unauthorized")
        self.assertIn("Authorization: Bearer", str(err), "the message says how to send a key")
        self.assertDenied(client.run, 401, "unauthorized")
        self.assertDenied(lambda: client.openrlhf([variant(0)]), 401, "unauthorized")
        # Still a ServiceError with its status and code after a trip through pickle (Ray hands exceptions over so).
        again = pickle.loads(pickle.dumps(err))
        self.assertEqual((type(again), again.status, again.code, str(again)),
                         (ServiceError, 401, "unauthorized", str(err)))

    def test_a_wrong_key_is_401_and_never_shown(self):
        wrong = secrets.token_hex(24)
        client = Client(URL, run_id=self.run, api_key=wrong, retries=3, backoff=1)
        err = self.assertDenied(lambda: client.score([group()], step=0), 401, "unauthorized", wrong)
        self.assertIn("not valid", str(err))
        self.assertDenied(client.run, 401, "unauthorized", wrong)
        os.environ["TUTOR_REWARD_API_KEY"] = wrong
        self.assertDenied(lambda: Client(URL, run_id=self.run).score([group()], step=0), 401, "unauthorized", wrong)

    def test_a_key_is_not_in_connection_errors(self):
        dead = Client("http://127.0.0.1:9", run_id=self.run, api_key=SCORE_KEY, timeout=2, retries=0)
        with self.assertRaises((urllib.error.URLError, ConnectionError, TimeoutError)) as caught:
            dead.score([group()], step=0)
        self.assertNotIn(SCORE_KEY, str(caught.exception))
        self.assertNotIn(SCORE_KEY, repr(caught.exception))

    def test_read_key_is_403_forbidden_on_scoring_routes(self):
        client = Client(URL, run_id=self.run, api_key=READ_KEY, retries=3, backoff=1)
        err = self.assertDenied(lambda: client.score([group()], step=0), 403, "forbidden")
        self.assertIn("scope score", str(err), "the message names the scope needed")
        self.assertDenied(lambda: client.openrlhf([variant(0)], labels=["python"]), 403, "forbidden")

    def test_read_key_reads_the_run_and_its_history_and_only_admin_changes_runs(self):
        scorer = Client(URL, run_id=self.run, api_key=SCORE_KEY)
        admin = Client(URL, run_id=self.run, api_key=ADMIN_KEY)
        reader = self.reader()
        self.assertEqual(admin.configure_run(t_warm=0, t_refresh=1)["config"]["t_refresh"], 1)
        for step in range(3):
            scorer.score([group()], step=step)
        admin.score([group()], step=3)  # admin includes score
        view = reader.run()
        self.assertEqual(view["open_step"]["step"], 3)
        self.assertEqual(view["finalized_steps"], 3)
        history = reader.history()
        self.assertEqual((history["run_id"], history["total"]), (self.run, 3))
        self.assertEqual([row["step"] for row in history["rows"]], [0, 1, 2])
        self.assertEqual(len(reader.history(csv=True).strip().split("\n")), 1 + 3)
        for client in (reader, scorer):
            self.assertDenied(lambda: client.configure_run(t_refresh=2), 403, "forbidden")
            self.assertDenied(client.finalize, 403, "forbidden")
            self.assertDenied(client.delete_run, 403, "forbidden")
        self.assertEqual(reader.run()["finalized_steps"], 3, "the denied calls changed nothing")
        self.assertEqual(admin.finalize()["run"]["finalized_steps"], 4)
        admin.delete_run()
        self.assertDenied(reader.run, 404, "run_not_found")


class TrlKeyTest(KeyedTest):
    def call(self, reward, step=0):
        return reward(prompts=["Teach me pandas"] * 4, completions=[variant(i) for i in range(4)], completion_ids=None,
                      trainer_state=SimpleNamespace(global_step=step), profile=["python"] * 4)

    def test_reward_with_the_key_as_argument_in_training_and_evaluation(self):
        trainer = SimpleNamespace(model=SimpleNamespace(training=True))
        reward = PlanReward(URL, run_id=self.run, num_generations=4, api_key=SCORE_KEY).watch(trainer)
        rewards = self.call(reward, step=2)
        self.assertEqual(len(rewards), 4)
        self.assertTrue(all(rewards[0] > r for r in rewards[1:]), "gated plans rank below the clean one")
        # Evaluation scores through a stateless client of its own: it must carry the key too.
        trainer.model.training = False
        self.assertEqual(len(self.call(reward, step=3)), 4)
        view = self.reader().run()
        self.assertEqual((view["open_step"]["step"], view["open_step"]["plans"]), (2, 4))

    def test_reward_with_the_key_from_the_environment(self):
        os.environ["TUTOR_REWARD_API_KEY"] = SCORE_KEY
        rewards = self.call(PlanReward(URL, run_id=self.run), step=1)
        self.assertEqual(len(rewards), 4)
        self.assertEqual(self.reader().run()["open_step"]["plans"], 4)

    def test_reward_without_a_key_or_with_the_read_key_fails_clearly(self):
        self.assertDenied(lambda: self.call(PlanReward(URL, run_id=self.run)), 401, "unauthorized")
        self.assertDenied(lambda: self.call(PlanReward(URL, run_id=self.run, api_key=READ_KEY)), 403, "forbidden")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rewards = self.call(PlanReward(URL, run_id=self.run, api_key=READ_KEY, on_error="none"))
        self.assertEqual(rewards, [None] * 4)
        messages = [str(w.message) for w in caught]
        self.assertTrue(any("HTTP 403" in m and "forbidden" in m for m in messages), messages)
        self.assertFalse(any(key in m for m in messages for key in KEYS))


class VerlKeyTest(KeyedTest):
    def test_key_from_the_environment_single_and_batch_form_and_loaded_by_file_path(self):
        os.environ["TUTOR_REWARD_API_KEY"] = SCORE_KEY
        self.assertGreater(compute_score("map-ppl", variant(0), {"tags": ["pandas"]})["score"], 0)
        out = compute_score_batch(["map-ppl"] * 4, [variant(i) for i in range(4)], ["python"] * 4, [{"index": 0}] * 4)
        self.assertAlmostEqual(sum(r["advantage"] for r in out), 0.0, places=9)
        by_path = verl_load(VERL_FILE, "compute_score")
        self.assertGreater(by_path(data_source="map-ppl", solution_str=variant(0), ground_truth="python",
                                   extra_info={"global_steps": 5})["score"], 0)
        self.assertEqual(self.reader().run()["open_step"]["step"], 5)

    def test_key_as_keyword_argument_as_verl_passes_reward_kwargs(self):
        # verl's get_custom_reward_fn adds custom_reward_function.reward_kwargs to every call's keywords.
        single = functools.partial(verl_load(VERL_FILE, "compute_score"), api_key=SCORE_KEY)
        batch = functools.partial(verl_load(VERL_FILE, "compute_score_batch"), api_key=SCORE_KEY)
        self.assertGreater(single(data_source="map-ppl", solution_str=variant(0), ground_truth="python",
                                  extra_info={})["score"], 0)
        out = batch(data_sources=["map-ppl"] * 4, solution_strs=[variant(i) for i in range(4)],
                    ground_truths=["python"] * 4, extra_infos=[{"index": 0}] * 4)
        self.assertEqual(len(out), 4)
        self.assertEqual(compute_score("map-ppl", variant(0), "python", {}, api_key=SCORE_KEY)["gated"], 0)

    def test_without_a_key_or_with_the_read_key_fails_clearly(self):
        self.assertDenied(lambda: compute_score("map-ppl", variant(0), "python"), 401, "unauthorized")
        self.assertDenied(lambda: compute_score_batch(["d"] * 2, [variant(0)] * 2, ["python"] * 2), 401, "unauthorized")
        self.assertDenied(lambda: compute_score("map-ppl", variant(0), "python", api_key=READ_KEY), 403, "forbidden")
        os.environ["TUTOR_REWARD_API_KEY"] = READ_KEY
        self.assertDenied(lambda: compute_score_batch(["d"] * 2, [variant(0)] * 2, ["python"] * 2), 403, "forbidden")


if __name__ == "__main__":
    unittest.main()
