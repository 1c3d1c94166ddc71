"""verl reward adapters: point `custom_reward_function.path` at this file.

Single form (NaiveRewardManager): `compute_score(data_source, solution_str, ground_truth, extra_info)`
scores one sample alone (no group is visible): reward = Σ_k w_k R_k + R_hard, through the same automatic
steps as OpenRLHF. Batch form (BatchRewardManager, `custom_reward_function.name=compute_score_batch`):
the batch is grouped by prompt (ground_truth, extra_info["index"]) and scored as rollout groups, one step
per call, so the composed rewards are z-scored within each group as in the paper.

ground_truth carries the learner profile (object, free text or JSON string). The service address and run
come from TUTOR_REWARD_URL (default http://localhost:8080) and TUTOR_REWARD_RUN (default "default").
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Sequence

from .client import Client


def _client() -> Client:
    return Client(os.environ.get("TUTOR_REWARD_URL", "http://localhost:8080"),
                  run_id=os.environ.get("TUTOR_REWARD_RUN", "default"))


def _profile(ground_truth: Any) -> Any:
    if isinstance(ground_truth, str) and ground_truth.strip().startswith("{"):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            return ground_truth
    if isinstance(ground_truth, dict) and "profile" in ground_truth:
        return ground_truth["profile"]
    return ground_truth if ground_truth is not None else ""


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Optional[dict] = None) -> dict:
    out = _client().openrlhf([solution_str], labels=[_profile(ground_truth)])
    logs = out["extra_logs"]
    return {"score": out["rewards"][0], "plan_score": out["scores"][0], "struct": logs["struct"][0],
            "pers": logs["pers"][0], "ped": logs["ped"][0], "gated": logs["gated"][0]}


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Optional[Sequence[Optional[dict]]] = None) -> list:
    extra_infos = extra_infos or [None] * len(solution_strs)
    groups: dict = {}
    for i, (gt, info) in enumerate(zip(ground_truths, extra_infos)):
        index = (info or {}).get("index")
        key = json.dumps([gt, index], sort_keys=True, default=str)
        groups.setdefault(key, []).append(i)
    payload, order = [], []
    for indices in groups.values():
        first = indices[0]
        info = extra_infos[first] or {}
        payload.append({"id": str(len(payload)), "query": str(info.get("query", "")),
                        "profile": _profile(ground_truths[first]),
                        "completions": [solution_strs[i] for i in indices]})
        order.append(indices)
    response = _client().score(payload)
    results: list = [None] * len(solution_strs)
    for group, indices in zip(response["groups"], order):
        for plan, i in zip(group["plans"], indices):
            results[i] = {"score": plan["reward"], "plan_score": plan["score"], "advantage": plan["advantage"],
                          "struct": plan["raw"]["struct"], "pers": plan["raw"]["pers"], "ped": plan["raw"]["ped"],
                          "gated": 1 if plan["gate"]["failed"] else 0}
    return results
