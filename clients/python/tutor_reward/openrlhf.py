"""OpenRLHF's Python reward-function path: `--reward.remote_url /abs/path/clients/python/tutor_reward/openrlhf.py`.

OpenRLHF (read at OpenRLHF/OpenRLHF@3c3be62, openrlhf/utils/agent.py SingleTurnAgentExecutor) loads a first
remote_url that ends in `.py` with importlib, outside any package, and calls its
`reward_func(queries, prompts, labels)` on a thread (asyncio.to_thread) with lists of one sample; it reads
`rewards`, `scores` and `extra_logs` from the dict returned, as from the HTTP path's JSON answer.

Why this path: OpenRLHF's HTTP path posts the same body again after a failure and can carry no
Idempotency-Key, so a request whose answer was lost is counted again. Here each call has a key of its own,
kept by its retries: counted once, while identical samples (calls of their own) each count.

The service and run come from TUTOR_REWARD_URL (default http://localhost:8080) and TUTOR_REWARD_RUN (default
"default"), the key from TUTOR_REWARD_API_KEY. Evaluation: OpenRLHF sends its evaluation samples through the
same function and says nothing of them; label them `{"profile": …, "evaluation": true}` in the evaluation
data set and they are scored and not counted.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

try:
    from .client import Client
except ImportError:  # loaded from its file path by OpenRLHF: no parent package, so import it by name
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tutor_reward.client import Client


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]) -> dict:
    """OpenRLHF's `reward_func(queries, prompts, labels)`: the service's /openrlhf/reward answer."""
    client = Client(os.environ.get("TUTOR_REWARD_URL", "http://localhost:8080"), run_id=os.environ.get("TUTOR_REWARD_RUN", "default"))
    return client.openrlhf(list(queries), list(prompts), list(labels))
