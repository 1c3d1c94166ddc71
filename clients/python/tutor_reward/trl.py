"""A reward function for TRL's GRPOTrainer.

    from tutor_reward import PlanReward
    reward = PlanReward("http://localhost:8080", run_id="personalplan-8b", num_generations=8)
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], args=GRPOConfig(num_generations=8, ...),
                          train_dataset=dataset)  # dataset columns: prompt, profile (and optionally query)

TRL calls it with the batch's prompts and completions and every other dataset column as a keyword
argument. The samples are grouped by prompt (one rollout group per prompt), sent with
step = trainer_state.global_step, and the composed rewards R_i come back in the original order. TRL then
normalizes them within each group, (R_i − mean) / (std + 1e-4), which is the paper's advantage A_i.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional, Sequence, Union

from .client import Client


def _text(value: Any) -> str:
    """Completion or prompt text: a string, or a conversation (list of {role, content} messages)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for m in value:
            if isinstance(m, dict):
                content = m.get("content", "")
                if isinstance(content, list):  # multimodal content parts
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                parts.append(str(content))
        return "\n".join(parts)
    return str(value)


def _completion_text(value: Any) -> str:
    if isinstance(value, list):  # conversational: the assistant turn(s) are the completion
        assistant = [m for m in value if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        return _text(assistant or value)
    return _text(value)


def _query_text(prompt: Any) -> str:
    if isinstance(prompt, list):
        users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        return _text(users[-1:] or prompt)
    return _text(prompt)


class PlanReward:
    """TRL reward function backed by POST /score-plan.

    profile_column: dataset column holding the learner profile (object or free text).
    query_column: dataset column holding the learner query; default: the prompt's last user message.
    num_generations: when given, warns if a prompt's group in the batch is not that size (with several
        processes, keep per_device_train_batch_size a multiple of num_generations so no group is split).
    """

    def __init__(self, client: Union[Client, str] = "http://localhost:8080", run_id: Optional[str] = "default",
                 profile_column: str = "profile", query_column: Optional[str] = None,
                 num_generations: Optional[int] = None, name: str = "personalplan_reward"):
        self.client = client if isinstance(client, Client) else Client(client, run_id=run_id)
        self.profile_column = profile_column
        self.query_column = query_column
        self.num_generations = num_generations
        self.__name__ = name  # TRL logs each reward function under its __name__
        self.last_response: Optional[dict] = None

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 trainer_state: Any = None, **columns: Any) -> list:
        groups: dict = {}
        for i, prompt in enumerate(prompts):
            key = json.dumps(prompt, sort_keys=True, default=str)
            groups.setdefault(key, []).append(i)
        profiles = columns.get(self.profile_column)
        queries = columns.get(self.query_column) if self.query_column else None
        payload, order = [], []
        for key, indices in groups.items():
            if self.num_generations is not None and len(indices) != self.num_generations:
                warnings.warn(f"prompt group of {len(indices)} samples, expected {self.num_generations}: "
                              "z-scores are taken within what one call sees", RuntimeWarning, stacklevel=2)
            first = indices[0]
            payload.append({
                "id": str(len(payload)),
                "query": _text(queries[first]) if queries is not None else _query_text(prompts[first]),
                "profile": profiles[first] if profiles is not None and profiles[first] is not None else "",
                "completions": [_completion_text(completions[i]) for i in indices],
            })
            order.append(indices)
        step = getattr(trainer_state, "global_step", None) if trainer_state is not None else None
        response = self.client.score(payload, step=step)
        self.last_response = response
        rewards = [0.0] * len(completions)
        for group, indices in zip(response["groups"], order):
            for plan, i in zip(group["plans"], indices):
                rewards[i] = float(plan["reward"])
        return rewards
