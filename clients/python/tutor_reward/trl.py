"""A reward function for TRL's GRPOTrainer.

    from tutor_reward import PlanReward
    reward = PlanReward("http://localhost:8080", run_id="personalplan-8b", num_generations=8)
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], args=GRPOConfig(num_generations=8, ...),
                          train_dataset=dataset)  # dataset columns: prompt, profile (and optionally query)

TRL (GRPOTrainer._calculate_rewards) calls it with keyword arguments only: prompts, completions,
completion_ids, every other dataset column, trainer_state, log_extra and log_metric. The samples are
grouped into rollout groups by prompt, profile and query, sent with step = trainer_state.global_step, and
the composed rewards R_i come back in the original order. TRL then normalizes them within each group,
(R_i − mean) / (std + 1e-4), which is the paper's advantage A_i.

Evaluation: TRL does not tell a reward function whether it is evaluating. Give the reward its trainer
(`reward.watch(trainer)`); while `trainer.model.training` is false — which is how TRL itself tells an
evaluation step — plans are scored statelessly and never counted into the run.

Failures: `on_error="raise"` (default) raises after the client's retries; `on_error="none"` warns and
returns None for every sample of the call, which TRL turns into an advantage of 0.

Logged per call: each sample's raw axes, `gated` and `flagged` (1.0 when its plan raised a gaming signal)
through log_extra, their batch means through log_metric, and per gaming signal the share of the batch's
plans that raised it (`{name}/gaming/{code}_mean`).
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional, Sequence, Union

from .client import Client

# The service's gaming signal codes (GamingSignal.code): each is logged on every call, 0 when none raised it,
# so that TRL's mean over a logging window counts the batches without it.
GAMING_SIGNALS = ("bare_keywords", "keyword_stuffing", "duplicate_steps", "off_topic", "cue_only_phase",
                  "degenerate_structure")


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
                 num_generations: Optional[int] = None, name: str = "personalplan_reward",
                 on_error: str = "raise", api_key: Optional[str] = None):
        if on_error not in ("raise", "none"):
            raise ValueError('on_error must be "raise" or "none"')
        self.client = client if isinstance(client, Client) else Client(client, run_id=run_id, api_key=api_key)
        self.profile_column = profile_column
        self.query_column = query_column
        self.num_generations = num_generations
        self.on_error = on_error
        self.__name__ = name  # TRL logs each reward function under its __name__
        self.last_response: Optional[dict] = None
        self._trainer: Any = None

    def watch(self, trainer: Any) -> "PlanReward":
        """Score evaluation batches (trainer.model.training false) without counting them into the run."""
        self._trainer = trainer
        return self

    def _evaluating(self) -> bool:
        model = getattr(self._trainer, "model", None)
        return model is not None and not getattr(model, "training", True)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 trainer_state: Any = None, log_extra: Any = None, log_metric: Any = None, **columns: Any) -> list:
        profiles = columns.get(self.profile_column)
        queries = columns.get(self.query_column) if self.query_column else None
        # One rollout group per prompt, profile and query: one prompt asked by two learners is two groups.
        groups: dict = {}
        for i, prompt in enumerate(prompts):
            key = json.dumps([prompt, profiles[i] if profiles is not None else None,
                              queries[i] if queries is not None else None], sort_keys=True, default=str)
            groups.setdefault(key, []).append(i)
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
        evaluating = self._evaluating()
        client = Client(self.client.base_url, run_id=None, timeout=self.client.timeout, retries=self.client.retries,
                        backoff=self.client.backoff, api_key=self.client.api_key) if evaluating else self.client
        try:
            response = client.score(payload, step=None if evaluating else step, options={"detail": "rewards"})
        except Exception as err:  # noqa: BLE001 — any failure after the client's retries
            if self.on_error == "raise":
                raise
            warnings.warn(f"{self.__name__}: no rewards for this batch ({err}); TRL gives these samples advantage 0",
                          RuntimeWarning, stacklevel=2)
            return [None] * len(completions)
        self.last_response = response
        rewards = [0.0] * len(completions)
        per_sample = {column: [0.0] * len(completions) for column in ("struct", "pers", "ped", "gated", "flagged")}
        signals = dict.fromkeys(GAMING_SIGNALS, 0)
        for group, indices in zip(response["groups"], order):
            for plan, i in zip(group["plans"], indices):
                rewards[i] = float(plan["reward"])
                for axis in ("struct", "pers", "ped"):
                    per_sample[axis][i] = float(plan["raw"][axis])
                per_sample["gated"][i] = 1.0 if plan["gate"]["failed"] else 0.0
                per_sample["flagged"][i] = 1.0 if plan["gaming_flags"] else 0.0
                for code in plan["gaming_flags"]:
                    signals[code] = signals.get(code, 0) + 1  # a code newer than this client is logged too
        n = max(1, len(completions))
        if log_extra is not None:
            for column, values in per_sample.items():
                log_extra(f"{self.__name__}/{column}", values)
        if log_metric is not None:
            for column, values in per_sample.items():
                log_metric(f"{self.__name__}/{column}_mean", sum(values) / n)
            for code, plans in signals.items():
                log_metric(f"{self.__name__}/gaming/{code}_mean", plans / n)
        return rewards
