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

Evaluation: TRL does not tell a reward function whether it is evaluating. While `trainer.model.training` is
false — which is how TRL itself tells an evaluation step — plans are scored statelessly and never counted
into the run. The trainer is the one whose `log_extra` TRL passes (a bound method of the trainer), or the
one given to `reward.watch(trainer)`.

Failures: `on_error="raise"` (default) raises after the client's retries; `on_error="none"` warns and
returns None for every sample of the call, which TRL turns into an advantage of 0. Either way every call
logs the same columns and metrics (NaN when there are no rewards): with several processes, TRL gathers
them across ranks, and a rank that logged fewer would leave the others waiting for ever.

Logged per call: each sample's raw axes, `gated`, `flagged` (1.0 when its plan raised a gaming signal) and
`aboutness` (the plan's G, how far it is about its question and says something of its own about it, 0–1;
0.0 when the service gives none: the plan did not parse, or the paper profile scored it) through
log_extra, their batch means through log_metric, per gaming signal the share of the batch's plans that
raised it (`{name}/gaming/{code}_mean`, codes newer than this client under `other`), and `failed_mean`
(1.0 for a call that got no rewards).

Resumed trainers: a step the run has already finalized is scored with its weights but not counted; the
reward warns once per such step.
"""

from __future__ import annotations

import asyncio
import json
import math
import warnings
from typing import Any, Optional, Sequence, Union

from .client import Client

# The service's gaming signal codes (GamingSignal.code): each is logged on every call, 0 when none raised it,
# so that TRL's mean over a logging window counts the batches without it.
GAMING_SIGNALS = ("bare_keywords", "keyword_stuffing", "duplicate_steps", "off_topic", "cue_only_phase",
                  "degenerate_structure")
# Every rank must log the same metric names: a code this client does not know is counted here.
OTHER_SIGNAL = "other"
COLUMNS = ("struct", "pers", "ped", "gated", "flagged", "aboutness")


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


_EVALUATING = "_tutor_reward_evaluating"


def _mark_evaluation(trainer: Any) -> None:
    """Counts, on the trainer, the evaluations under way.

    TRL's own signal is model.training (trl 1.13.0 grpo_trainer.py: `mode = "train" if self.model.training
    else "eval"`), read before generating; generation with continuous batching sets it back to True
    (`unwrapped_model.train()`, L1865) before the rewards are asked for, in evaluation too. transformers'
    Trainer runs every evaluation through `evaluate` (its training loop's `_evaluate` calls `self.evaluate`),
    so a reward asked for inside it is evaluation whatever model.training says.
    """
    if hasattr(trainer, _EVALUATING) or not callable(getattr(trainer, "evaluate", None)):
        return
    setattr(trainer, _EVALUATING, 0)
    evaluate = trainer.evaluate

    def marked(*args: Any, **kwargs: Any) -> Any:
        setattr(trainer, _EVALUATING, getattr(trainer, _EVALUATING) + 1)
        try:
            return evaluate(*args, **kwargs)
        finally:
            setattr(trainer, _EVALUATING, getattr(trainer, _EVALUATING) - 1)

    trainer.evaluate = marked


def _process_index(log_extra: Any, watched: Any) -> Optional[str]:
    """The trainer's process index (accelerate's, which it has whether or not RANK is set), for the call keys."""
    trainer = watched if watched is not None else getattr(log_extra, "__self__", None)
    index = getattr(getattr(trainer, "accelerator", None), "process_index", None)
    return None if index is None else str(index)


class PlanReward:
    """TRL reward function backed by POST /score-plan.

    profile_column: dataset column holding the learner profile (object or free text).
    query_column: dataset column holding the learner query; default: the prompt's last user message.
    reference_column: dataset column holding what a good answer says (a reference plan's steps or a worked
        solution, as an SFT data set has them), sent as the group's `reference` when the column is there; the
        guarded reward then credits covering it.
    num_generations: when given, warns if a prompt's group in the batch is not that size (with several
        processes, keep per_device_train_batch_size a multiple of num_generations so no group is split).
    """

    def __init__(self, client: Union[Client, str] = "http://localhost:8080", run_id: Optional[str] = "default",
                 profile_column: str = "profile", query_column: Optional[str] = None,
                 reference_column: str = "reference", num_generations: Optional[int] = None, name: str = "personalplan_reward",
                 on_error: str = "raise", api_key: Optional[str] = None):
        if on_error not in ("raise", "none"):
            raise ValueError('on_error must be "raise" or "none"')
        self.client = client if isinstance(client, Client) else Client(client, run_id=run_id, api_key=api_key)
        self.profile_column = profile_column
        self.query_column = query_column
        self.reference_column = reference_column
        self.num_generations = num_generations
        self.on_error = on_error
        self.__name__ = name  # TRL logs each reward function under its __name__
        self.last_response: Optional[dict] = None
        self._trainer: Any = None
        self._warned_late: set = set()
        # The last step this function counted into the run: the step finalize() closes.
        self._last_step: Optional[int] = None

    def watch(self, trainer: Any) -> "PlanReward":
        """Score evaluation batches without counting them into the run, from the trainer's first evaluation on,
        and close the last step when `trainer.train()` returns (finalize).

        Without it the trainer is found at the first call (TRL's log_extra is its bound method), so an
        evaluation before any training step (eval_on_start) is told only by model.training, and the last step
        stays open until finalize() is called.
        """
        self._trainer = trainer
        _mark_evaluation(trainer)
        train = getattr(trainer, "train", None)
        if callable(train) and not getattr(train, "_finalizes", False):
            def train_then_finalize(*args: Any, **kwargs: Any) -> Any:
                out = train(*args, **kwargs)
                self.finalize()
                return out

            train_then_finalize._finalizes = True  # type: ignore[attr-defined]
            trainer.train = train_then_finalize
        return self

    def finalize(self) -> Optional[dict]:
        """Closes the last step this function counted into the run; the service's answer (`finalized`, `run`).

        A run's step closes when the next one begins, so without this the last step of training stays open
        (its plans never fold into the EMA or the history). Every process may call it: closing a closed step
        changes nothing. None when nothing was counted.
        """
        if self._last_step is None:
            return None
        return self.client.finalize(self._last_step)

    def _evaluating(self, log_extra: Any) -> bool:
        # TRL passes its own bound method as log_extra: its __self__ is the trainer.
        trainer = self._trainer if self._trainer is not None else getattr(log_extra, "__self__", None)
        if trainer is None:
            return False
        _mark_evaluation(trainer)
        if getattr(trainer, _EVALUATING, 0) > 0:
            return True
        model = getattr(trainer, "model", None)
        return model is not None and not getattr(model, "training", True)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 trainer_state: Any = None, log_extra: Any = None, log_metric: Any = None, **columns: Any) -> list:
        profiles = columns.get(self.profile_column)
        queries = columns.get(self.query_column) if self.query_column else None
        references = columns.get(self.reference_column)
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
            group = {
                "id": str(len(payload)),
                "query": _text(queries[first]) if queries is not None else _query_text(prompts[first]),
                "profile": profiles[first] if profiles is not None and profiles[first] is not None else "",
                "completions": [_completion_text(completions[i]) for i in indices],
            }
            if references is not None and references[first] is not None:
                group["reference"] = references[first]
            payload.append(group)
            order.append(indices)
        step = getattr(trainer_state, "global_step", None) if trainer_state is not None else None
        evaluating = self._evaluating(log_extra)
        client = Client(self.client.base_url, run_id=None, timeout=self.client.timeout, retries=self.client.retries,
                        backoff=self.client.backoff, api_key=self.client.api_key) if evaluating else self.client
        n = len(completions)
        try:
            response = client.score(payload, step=None if evaluating else step, options={"detail": "rewards"},
                                    process=_process_index(log_extra, self._trainer))
        except Exception as err:  # noqa: BLE001 — any failure after the client's retries
            if self.on_error == "raise":
                raise
            warnings.warn(f"{self.__name__}: no rewards for this batch ({err}); TRL gives these samples advantage 0",
                          RuntimeWarning, stacklevel=2)
            nan = float("nan")
            self._log(log_extra, log_metric, {c: [nan] * n for c in COLUMNS}, dict.fromkeys(GAMING_SIGNALS + (OTHER_SIGNAL,), nan),
                      n, failed=True)
            return [None] * n
        self.last_response = response
        if not evaluating and step is not None:
            self._last_step = int(step)
        run = response.get("run") or {}
        if run.get("status") == "late" and run.get("step") not in self._warned_late:
            self._warned_late.add(run.get("step"))
            warnings.warn(f"{self.__name__}: step {run.get('step')} of run {run.get('id')!r} was already finalized (a "
                          "resumed trainer replaying it?): scored with that step's weights, not counted again",
                          RuntimeWarning, stacklevel=2)
        rewards = [0.0] * n
        per_sample = {column: [0.0] * n for column in COLUMNS}
        signals = dict.fromkeys(GAMING_SIGNALS + (OTHER_SIGNAL,), 0)
        for group, indices in zip(response["groups"], order):
            for plan, i in zip(group["plans"], indices):
                rewards[i] = float(plan["reward"])
                for axis in ("struct", "pers", "ped"):
                    per_sample[axis][i] = float(plan["raw"][axis])
                per_sample["gated"][i] = 1.0 if plan["gate"]["failed"] else 0.0
                per_sample["flagged"][i] = 1.0 if plan["gaming_flags"] else 0.0
                # null when the service gives none (not parsed, or the paper profile): 0.
                per_sample["aboutness"][i] = float(plan["aboutness"] or 0.0)
                for code in plan["gaming_flags"]:
                    key = code if code in signals else OTHER_SIGNAL
                    signals[key] += 1
        self._log(log_extra, log_metric, per_sample, {code: k / max(1, n) for code, k in signals.items()}, n,
                  failed=False)
        return rewards

    def _log(self, log_extra: Any, log_metric: Any, per_sample: dict, shares: dict, n: int, failed: bool) -> None:
        """The same columns and metric names on every call, failed or not (TRL gathers them across ranks)."""
        if log_extra is not None:
            for column, values in per_sample.items():
                log_extra(f"{self.__name__}/{column}", values)
        if log_metric is not None:
            for column, values in per_sample.items():
                log_metric(f"{self.__name__}/{column}_mean", sum(values) / max(1, n) if not failed else math.nan)
            for code, share in shares.items():
                log_metric(f"{self.__name__}/gaming/{code}_mean", share)
            log_metric(f"{self.__name__}/failed_mean", 1.0 if failed else 0.0)


def AsyncPlanReward(*args: Any, **kwargs: Any):  # noqa: N802 — stands beside PlanReward, takes the same arguments
    """PlanReward as an `async def` function, which TRL runs concurrently with its other async reward functions.

    TRL tells an async reward function by `inspect.iscoroutinefunction`, which is false for any object with
    an async `__call__` before Python 3.12, so this is a function; the PlanReward behind it is its `.reward`
    (for `watch` and `last_response`), or the one given as its only argument. The HTTP call runs on a
    thread of the event loop's executor.
    """
    given = len(args) == 1 and not kwargs and isinstance(args[0], PlanReward)
    reward = args[0] if given else PlanReward(*args, **kwargs)

    async def call(**columns: Any) -> list:
        return await asyncio.to_thread(reward, **columns)

    call.__name__ = reward.__name__
    call.reward = reward  # type: ignore[attr-defined]
    return call
