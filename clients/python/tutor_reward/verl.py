"""verl reward adapters: point `reward.custom_reward_function.path` at this file (verl loads it by path,
outside any package), or use `pkg://tutor_reward.verl`.

Single form (the `naive` reward manager, verl's default):
`compute_score(data_source, solution_str, ground_truth, extra_info)` scores one sample alone (no group is
visible): reward = Σ_k w_k R_k + R_hard. When verl's rollout puts the trainer step into extra_info
(`global_steps`), the sample is counted into that step, so weights never change within a rollout batch;
otherwise it goes through the run's automatic steps (set the run's `samples_per_step` to the batch size).

Batch form (verl's `batch` reward manager, which only versions before February 2026 have, with
`reward_model.use_reward_loop=False reward_model.reward_manager=batch`, `name=compute_score_batch`): the
batch is grouped into rollout groups by prompt and scored with group z-scores, one step per call.

Fields read: `ground_truth` is the learner profile (object, list of tags, free text or JSON string; None
fields are absent); from `extra_info`: `index` (the prompt's id) and `prompt` or `query` (its text), both
optional, and `global_steps`. The service address and run come from TUTOR_REWARD_URL (default
http://localhost:8080) and TUTOR_REWARD_RUN (default "default"); the API key from TUTOR_REWARD_API_KEY, or
from an `api_key` keyword argument (verl passes `custom_reward_function.reward_kwargs` as keywords).

Validation: verl calls the same function for its validation rollouts and tells it nothing; a sample whose
`extra_info.split` is "test", "val" or "validation" (as verl's data preprocessors write it) or whose
`extra_info.validate` is true is scored with the run's current weights and never counted into the run.

Failures: `on_error="raise"` (default) raises once the client's retries are spent, which fails verl's batch;
`on_error=<number>` returns that number as the score, with `failed: 1`, and warns (reward_kwargs:
`+reward.custom_reward_function.reward_kwargs.on_error=0.0`; `retries`, the client's, 6 by default, with
Retry-After or exponential backoff). Every result has the same keys, as verl gathers each key over the batch.

Resumed trainers: a sample of a step the run has already finalized is scored but not counted (`counted: 0`);
the adapter warns once per such step.
"""

from __future__ import annotations

import json
import numbers
import os
import sys
import warnings
from typing import Any, Optional, Sequence

try:
    from .client import Client
except ImportError:  # loaded from its file path by verl: no parent package, so import it by name
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tutor_reward.client import Client


def _client(api_key: Optional[str], retries: Optional[int] = None) -> Client:
    client = Client(os.environ.get("TUTOR_REWARD_URL", "http://localhost:8080"),
                    run_id=os.environ.get("TUTOR_REWARD_RUN", "default"), api_key=api_key)
    if retries is not None:
        client.retries = int(retries)
    return client


def _plain(value: Any) -> Any:
    """numpy arrays and scalars (as parquet columns come back) as plain lists and numbers."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _ground_truth(ground_truth: Any) -> Any:
    # A JSON object given as a string is read as the object; anything else, as it is.
    ground_truth = _plain(ground_truth)
    if isinstance(ground_truth, str) and ground_truth.strip().startswith("{"):
        try:
            return json.loads(ground_truth)
        except ValueError:
            return ground_truth
    return ground_truth


def _profile(ground_truth: Any) -> Any:
    ground_truth = _ground_truth(ground_truth)
    if isinstance(ground_truth, dict) and "profile" in ground_truth:
        return ground_truth["profile"]
    return ground_truth if ground_truth is not None else ""


def _reference(ground_truth: Any) -> Any:
    # {"profile": ..., "reference": ...}: what a good answer says, for the guarded reward (batch form only).
    ground_truth = _ground_truth(ground_truth)
    return ground_truth.get("reference") if isinstance(ground_truth, dict) else None


def _info(extra_info: Any) -> dict:
    return extra_info if isinstance(extra_info, dict) else {}


def _step(info: dict) -> Optional[int]:
    step = info.get("global_steps")  # numpy integers are numbers.Integral too
    return int(step) if isinstance(step, numbers.Integral) and not isinstance(step, bool) else None


VALIDATION_SPLITS = ("test", "val", "validation")
_warned_late: set = set()


def _validating(info: dict) -> bool:
    return bool(info.get("validate")) or str(info.get("split", "")).lower() in VALIDATION_SPLITS


def _on_error(on_error: Any) -> Optional[float]:
    """The fallback score, or None to raise."""
    if on_error == "raise":
        return None
    if isinstance(on_error, numbers.Real) and not isinstance(on_error, bool):
        return float(on_error)
    raise ValueError(f'on_error must be "raise" or a number, not {on_error!r}')


def _warn_late(run: Optional[str], step: Any) -> None:
    if (run, step) not in _warned_late:
        _warned_late.add((run, step))
        warnings.warn(f"step {step} of run {run!r} was already finalized (a resumed trainer replaying it?): its samples "
                      "are scored with that step's weights but not counted again", RuntimeWarning, stacklevel=3)


def _failed(fallback: float, err: Exception) -> dict:
    warnings.warn(f"tutor_reward: no reward from the service ({err}); scored {fallback} instead", RuntimeWarning, stacklevel=3)
    nan = float("nan")
    return {"score": fallback, "plan_score": nan, "struct": nan, "pers": nan, "ped": nan, "gated": nan, "flagged": nan,
            "aboutness": nan, "counted": 0, "failed": 1}


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Optional[dict] = None,
                  *, api_key: Optional[str] = None, on_error: Any = "raise", retries: Optional[int] = None,
                  **_: Any) -> dict:
    fallback = _on_error(on_error)
    info = _info(extra_info)
    client = _client(api_key, retries)
    try:
        out = client.openrlhf([solution_str], labels=[_profile(ground_truth)], step=_step(info),
                              count=not _validating(info))
    except Exception as err:  # noqa: BLE001 — any failure once the client's retries are spent
        if fallback is None:
            raise
        return _failed(fallback, err)
    logs = out["extra_logs"]
    if logs.get("profile_ignored", [0])[0]:
        warnings.warn(f"ground_truth could not be read as a learner profile, scored without one: {ground_truth!r:.200}",
                      RuntimeWarning, stacklevel=2)
    if not logs["counted"][0] and not _validating(info):
        _warn_late(client.run_id, logs["step"][0])
    return {"score": out["rewards"][0], "plan_score": out["scores"][0], "struct": logs["struct"][0],
            "pers": logs["pers"][0], "ped": logs["ped"][0], "gated": logs["gated"][0], "flagged": logs["flagged"][0],
            "aboutness": logs["aboutness"][0], "counted": logs["counted"][0], "failed": 0}


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Optional[Sequence[Optional[dict]]] = None, *, api_key: Optional[str] = None,
                        on_error: Any = "raise", retries: Optional[int] = None, **_: Any) -> list:
    fallback = _on_error(on_error)
    # verl passes numpy object arrays: never test them for truth, iterate them.
    n = len(solution_strs)
    infos = [_info(x) for x in extra_infos] if extra_infos is not None else [{}] * n
    groups: dict = {}
    for i in range(n):
        info = infos[i]
        # One rollout group per prompt: its index when the dataset has one, else its text, else the profile.
        prompt = info.get("index", info.get("prompt", info.get("query")))
        key = json.dumps([_plain(ground_truths[i]), _plain(prompt)], sort_keys=True, default=str)
        groups.setdefault(key, []).append(i)
    payload, order = [], []
    for indices in groups.values():
        first = indices[0]
        info = infos[first]
        group = {"id": str(len(payload)), "query": str(info.get("prompt", info.get("query", ""))),
                 "profile": _profile(ground_truths[first]), "completions": [solution_strs[i] for i in indices]}
        reference = _reference(ground_truths[first])
        if reference is not None:
            group["reference"] = reference
        payload.append(group)
        order.append(indices)
    client = _client(api_key, retries)
    # A validation batch (every sample marked so) is scored without a run: nothing of it is counted.
    validating = n > 0 and all(_validating(i) for i in infos)
    if validating:
        client.run_id = None
    try:
        response = client.score(payload, options={"detail": "rewards"})
    except Exception as err:  # noqa: BLE001 — any failure once the client's retries are spent
        if fallback is None:
            raise
        return [dict(_failed(fallback, err), advantage=float("nan")) for _ in range(n)]
    counted = 0 if validating or not (response.get("run") or {}).get("counted", True) else 1
    results: list = [None] * len(solution_strs)
    for group, indices in zip(response["groups"], order):
        for plan, i in zip(group["plans"], indices):
            results[i] = {"score": plan["reward"], "plan_score": plan["score"], "advantage": plan["advantage"],
                          "struct": plan["raw"]["struct"], "pers": plan["raw"]["pers"], "ped": plan["raw"]["ped"],
                          "gated": 1 if plan["gate"]["failed"] else 0, "flagged": 1 if plan["gaming_flags"] else 0,
                          # null when the service gives none: 0, as the single form (OpenRLHF's numbers) has it.
                          "aboutness": plan["aboutness"] or 0.0, "counted": counted, "failed": 0}
    return results
