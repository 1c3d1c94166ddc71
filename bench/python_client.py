"""PlanReward called as TRL calls it, timed, for bench/python-client.ts.

    PYTHONPATH=clients/python python3 python_client.py URL RUN_ID BATCH.json WARMUP CALLS

BATCH.json: {"batches": [{"groups": [{"prompt", "profile", "completions": [...]}, ...]}, ...]}, call k taking
batch k (fresh text: no call repeats a sentence of another). Each call passes every group's
samples as huggingface/trl@f2cd577 trl/trainer/grpo_trainer.py:1612-1703 (_calculate_rewards) does, as
clients/python/tests/test_trainer_calls.py (TrlCallsTest.call) does: keyword arguments only, prompts and
completions in conversational form, completion_ids, the profile column, trainer_state (global_step = the
call's index), log_extra and log_metric. After each call, the json floor of that same call: json.dumps of
the body the client sent plus json.loads of the response text it received, taken from the client module's
own json calls (observed through a pass-through stand-in for its `json` module). Prints one JSON line.
"""

import json
import sys
import time
from types import SimpleNamespace

import tutor_reward.client as client_module
from tutor_reward import Client, PlanReward


class _Observed:
    """tutor_reward.client's `json`, passing every call through and keeping the last body and response text."""

    def __init__(self):
        self.body, self.dumps_kw, self.text = None, {}, None

    def dumps(self, obj, **kw):
        if isinstance(obj, dict) and "groups" in obj and not kw.get("sort_keys"):  # the body (not the idempotency key's)
            self.body, self.dumps_kw = obj, kw
        return json.dumps(obj, **kw)

    def loads(self, text, **kw):
        self.text = text
        return json.loads(text, **kw)

    def __getattr__(self, name):  # anything else the client uses
        return getattr(json, name)


def main():
    url, run_id, path, warmup, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    with open(path, encoding="utf-8") as f:
        batches = json.load(f)["batches"]

    def samples(groups):
        prompts, completions, profiles = [], [], []
        for g in groups:
            for c in g["completions"]:
                prompts.append([{"role": "user", "content": g["prompt"]}])
                completions.append([{"role": "assistant", "content": c}])
                profiles.append(g["profile"])
        return prompts, completions, profiles

    observed = _Observed()
    client_module.json = observed
    reward = PlanReward(Client(url, run_id=run_id), num_generations=len(batches[0]["groups"][0]["completions"]))

    call_ms, floor_ms = [], []
    for step in range(warmup + calls):
        logged, metrics = {}, {}
        prompts, completions, profiles = samples(batches[step % len(batches)]["groups"])
        completion_ids = [[1, 2]] * len(completions)
        observed.body = observed.text = None
        t = time.perf_counter()
        rewards = reward(prompts=prompts, completions=completions, completion_ids=completion_ids, profile=profiles,
                         trainer_state=SimpleNamespace(global_step=step, epoch=0.0, max_steps=warmup + calls),
                         log_extra=lambda column, values: logged.__setitem__(column, list(values)),
                         log_metric=lambda name, value: metrics.__setitem__(name, value))
        took = time.perf_counter() - t
        assert len(rewards) == len(completions) and all(r is not None for r in rewards)
        body, text = observed.body, observed.text
        assert body is not None and text is not None, "the client no longer sends through json.dumps/json.loads"
        t = time.perf_counter()
        json.dumps(body, **observed.dumps_kw)
        json.loads(text)
        floor = time.perf_counter() - t
        if step >= warmup:
            call_ms.append(took * 1000)
            floor_ms.append(floor * 1000)
    print(json.dumps({
        "call_ms": call_ms,
        "floor_ms": floor_ms,
        "request_bytes": len(json.dumps(observed.body, **observed.dumps_kw).encode("utf-8")),
        "response_bytes": len(observed.text.encode("utf-8")),
        "groups_in_request": len(observed.body["groups"]),
        "python": sys.version.split()[0],
    }), flush=True)


if __name__ == "__main__":
    main()
