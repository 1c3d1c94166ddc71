"""A real trl.GRPOTrainer (trl 1.13.0) on CPU with a tiny randomly initialised model, rewarded by PlanReward
against a live service. Run by test/trl/grpo-trainer.trl.ts, alone or under `torchrun --nproc_per_node 2`.

Nothing is downloaded: the tokenizer is built here with `tokenizers`, the model from a LlamaConfig.
Each rank writes <out>/rank-<r>.json: what its reward returned per call, the steps trained and the keys
logged, for the test to hold against the run the service kept.

Calling code read: trl 1.13.0 trl/trainer/grpo_trainer.py (_calculate_rewards, the flush of
_pending_extra_logs/_pending_metrics in _generate_and_score_completions, log).
"""

import argparse
import faulthandler
import inspect
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, TrainerCallback  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from tutor_reward import AsyncPlanReward, Client, PlanReward  # noqa: E402

DEAD_URL = "http://127.0.0.1:9"  # discard port: nothing listens, connections are refused at once
NUM_GENERATIONS = 4

QUERIES = ["Teach me pandas", "How do I read a CSV file", "Explain Python lists", "Help me learn SQL joins",
           "Show me git branches", "Teach me regular expressions", "How do I plot with matplotlib",
           "Explain recursion in Python"]
TAGS = [["python", "pandas"], ["python", "csv"], ["python"], ["sql"], ["git"], ["python", "regex"],
        ["python", "matplotlib"], ["python"]]
# Words a plan is made of, so that sampled completions read as (bad) plans rather than <unk>.
PLAN_WORDS = ("{ } [ ] : , agents subtasks steps execution_order id role tools tutor instruction depends_on "
              "human_input tool CodeInterpreterTool CodeDocsSearchTool ask show practice check explain example "
              "learner the a of to with and what file data").split()


def build_tokenizer():
    words = sorted({w.lower() for q in QUERIES for w in q.split()} | set(PLAN_WORDS))
    vocab = {"<pad>": 0, "<eos>": 1, "<unk>": 2}
    for w in words:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def build_model(tokenizer):
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                         bos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    return LlamaForCausalLM(config)


def dataset(indices):
    # `profile` a struct column, as datasets gives a JSON profile (missing fields None).
    return Dataset.from_dict({"prompt": [QUERIES[i] for i in indices],
                              "profile": [{"tags": TAGS[i], "about_me": None} for i in indices]})


class RecordingReward(PlanReward):
    """PlanReward as TRL calls it, noting what each call returned and whether TRL was training: not when
    transformers' evaluation_loop is on the stack (Trainer.evaluate runs every evaluation through it), a
    record independent of how PlanReward tells; `model_training` is what the model says then."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = []

    def __call__(self, *args, **kwargs):
        trainer = getattr(kwargs.get("log_extra"), "__self__", None)
        model_training = bool(trainer.model.training) if trainer is not None else None
        evaluating = any(frame.function == "evaluation_loop" for frame in inspect.stack(0))
        state = kwargs.get("trainer_state")
        out = super().__call__(*args, **kwargs)
        self.calls.append({"training": not evaluating, "model_training": model_training,
                           "step": getattr(state, "global_step", None), "n": len(out),
                           "rewards": [None if r is None else float(r) for r in out]})
        return out


class LogKeys(TrainerCallback):
    def __init__(self):
        self.logs = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        self.logs.append({k: (v if isinstance(v, (int, float, str)) or v is None else str(v))
                          for k, v in (logs or {}).items()})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--run-id", required=True)
    p.add_argument("--out-dir", required=True, help="directory for rank-<r>.json")
    p.add_argument("--output-dir", required=True, help="trainer output (checkpoints)")
    p.add_argument("--on-error", default="raise", choices=["raise", "none"])
    p.add_argument("--dead-rank", type=int, default=None, help="this rank's reward points at a dead URL")
    p.add_argument("--max-steps", type=int, default=3)
    p.add_argument("--eval", action="store_true", help="eval_strategy steps with an eval_dataset")
    p.add_argument("--watch", action="store_true", help="reward.watch(trainer)")
    p.add_argument("--continuous-batching", action="store_true",
                   help="use_transformers_continuous_batching: generation ends with model.train(), in evaluation too")
    p.add_argument("--async", dest="use_async", action="store_true",
                   help="the reward as AsyncPlanReward: TRL's async path (its event loop thread)")
    p.add_argument("--save-steps", type=int, default=0)
    p.add_argument("--resume", default=None, help="checkpoint directory to resume from")
    p.add_argument("--dump-at", type=float, default=0,
                   help="epoch seconds at which to print every thread's stack, so a hang shows where it waits")
    a = p.parse_args()

    started = time.monotonic()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    os.makedirs(a.out_dir, exist_ok=True)
    # torchrun starts each rank in a session of its own: the test kills a hung rank by this id.
    with open(os.path.join(a.out_dir, f"pid-{rank}"), "w") as f:
        f.write(str(os.getpid()))
    if a.dump_at:
        # A file per rank: dumped at once into the shared stderr, the ranks' stacks interleave.
        stack_file = open(os.path.join(a.out_dir, f"stack-{rank}.txt"), "w")  # noqa: SIM115 — open until exit
        faulthandler.dump_traceback_later(max(1.0, a.dump_at - time.time()), exit=False, file=stack_file)
    url = DEAD_URL if a.dead_rank == rank else a.url
    # Few retries: a dead URL is refused at once, and each retry's backoff is training time on the other rank.
    reward = RecordingReward(Client(url, run_id=a.run_id, timeout=60, retries=1, backoff=0.2),
                             num_generations=NUM_GENERATIONS, on_error=a.on_error)

    tokenizer = build_tokenizer()
    args = GRPOConfig(
        output_dir=a.output_dir, use_cpu=True, bf16=False, report_to="none", seed=0,
        num_generations=NUM_GENERATIONS, per_device_train_batch_size=NUM_GENERATIONS,  # whole groups per rank
        per_device_eval_batch_size=NUM_GENERATIONS, max_completion_length=8, max_steps=a.max_steps,
        logging_steps=1, learning_rate=1e-3, disable_tqdm=True, dataloader_num_workers=0,
        eval_strategy="steps" if a.eval else "no", eval_steps=2 if a.eval else None,
        save_strategy="steps" if a.save_steps else "no", save_steps=a.save_steps or 500, save_only_model=False,
        use_transformers_continuous_batching=a.continuous_batching,
    )
    logs = LogKeys()
    trainer = GRPOTrainer(model=build_model(tokenizer), reward_funcs=[AsyncPlanReward(reward) if a.use_async else reward],
                          args=args,
                          train_dataset=dataset(range(len(QUERIES))),
                          eval_dataset=dataset([0, 3]) if a.eval else None,
                          processing_class=tokenizer, callbacks=[logs])
    if a.watch:
        reward.watch(trainer)
    trainer.train(resume_from_checkpoint=a.resume)

    keys = sorted({k for log in logs.logs for k in log})
    result = {"rank": rank, "world_size": world, "url": url, "global_step": trainer.state.global_step,
              "calls": reward.calls, "metric_keys": keys, "logs": logs.logs,
              "seconds": round(time.monotonic() - started, 2)}
    with open(os.path.join(a.out_dir, f"rank-{rank}.json"), "w") as f:
        json.dump(result, f)
    print(f"grpo_run rank {rank}: {trainer.state.global_step} steps in {result['seconds']} s", file=sys.stderr)
    # The result is written: leave now. Under torchrun, freeing the trainer and gloo's process group at exit
    # sometimes aborts ("terminate called without an active exception") or blocks, after a good run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
