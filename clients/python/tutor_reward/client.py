"""HTTP client for the tutoring reward service, standard library only."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import socket
import time
import uuid
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Optional


class ServiceError(RuntimeError):
    """The service answered with an error status (4xx other than 429 are not retried).

    `status`: the HTTP status; `code`: the error body's `code` (`unauthorized`, `forbidden`, `run_not_found`,
    ...), None when the body has none; `body`: the body as received.
    """

    def __init__(self, status: int, body: str):
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body
        self.code = _error_code(body)

    def __reduce__(self):  # picklable: verl's Ray workers hand their exceptions to the driver pickled
        return type(self), (self.status, self.body)


def _error_code(body: str) -> Optional[str]:
    try:
        code = json.loads(body).get("code")
    except (ValueError, AttributeError):  # not JSON, or not an object
        return None
    return code if isinstance(code, str) else None


log = logging.getLogger("tutor_reward")

# This process, for the keys of a process that has no RANK: two such processes never share a key.
_PROCESS = "pid-" + uuid.uuid4().hex


class Client:
    """Talks to one run of the service.

    Every counting call carries an Idempotency-Key, so a call retried after a timeout or a dropped connection
    is answered again by the service and never counted twice.

    Retries: 429 and 5xx answers and failed connections are retried up to `retries` times, waiting what the
    service's Retry-After says (a 503 when its queue is full, a 429 at a rate limit) or else an exponential
    backoff, each wait with random jitter so that many clients refused together do not return together. The
    first failed try of a call logs a warning (logger "tutor_reward") naming the URL. Until the service has
    answered once, a refused connection (nothing listens there: a wrong port, a service not started) fails
    at once instead, unless `patient` (a service still starting); once it has answered, a refused connection
    is retried like any other failure, for a service that went away mid-training.
    """

    def __init__(self, base_url: str = "http://localhost:8080", run_id: Optional[str] = "default",
                 timeout: float = 120.0, retries: int = 6, backoff: float = 0.5,
                 api_key: Optional[str] = None, patient: bool = False):
        """`api_key`: sent as `Authorization: Bearer`; defaults to $TUTOR_REWARD_API_KEY (none if unset)."""
        self.base_url = base_url.rstrip("/")
        self.patient = patient
        # Whether the service has answered this client yet (any HTTP answer, errors included).
        self._reached = False
        self.api_key = api_key if api_key is not None else os.environ.get("TUTOR_REWARD_API_KEY") or None
        self.run_id = run_id
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        # Calls made so far per (run, step, process), for each call's key (score).
        self._calls: dict = {}

    def _request(self, method: str, path: str, body: Any = None, headers: Optional[dict] = None,
                 raw: bool = False) -> Any:
        """`body`: an object to send as JSON, or its JSON already encoded (bytes)."""
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode("utf-8")
        hdrs = {"accept": "application/json"}
        if self.api_key:
            hdrs["authorization"] = "Bearer " + self.api_key
        if data is not None:
            hdrs["content-type"] = "application/json"
        hdrs.update(headers or {})
        attempt = 0
        while True:
            req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=hdrs)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    self._reached = True
                    text = res.read().decode("utf-8")
                    if raw:
                        return text
                    out = json.loads(text) if text else None
                    # A retry answered from its receipt: the same answer, counted nothing now.
                    if isinstance(out, dict) and res.headers.get("idempotent-replayed") == "true":
                        out["replayed"] = True
                    return out
            except urllib.error.HTTPError as err:
                self._reached = True
                text = err.read().decode("utf-8", "replace")
                # A rate limit or a full queue is worth waiting out; other client errors are not.
                retriable = err.code >= 500 or err.code == 429
                if not retriable or attempt >= self.retries:
                    raise ServiceError(err.code, text) from None
                wait = err.headers.get("retry-after")
                delay = float(wait) if wait and wait.isdigit() else self.backoff * 2 ** attempt
                failure = f"HTTP {err.code} {_error_code(text) or ''}".strip()
            except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
                reason = err.reason if isinstance(err, urllib.error.URLError) else err
                nobody = isinstance(reason, (ConnectionRefusedError, socket.gaierror))
                if nobody and not self._reached and not self.patient:
                    raise ConnectionError(
                        f"tutor_reward: nothing answers at {self.base_url} ({reason}): is the service running there? "
                        "Client(patient=True) waits for one that is still starting") from None
                if attempt >= self.retries:
                    raise
                delay = self.backoff * 2 ** attempt
                failure = str(reason)
            if attempt == 0:
                log.warning("tutor_reward: %s %s%s failed (%s); retrying, up to %d times", method, self.base_url, path,
                            failure, self.retries)
            attempt += 1
            time.sleep(delay * random.uniform(1.0, 2.0))

    def score(self, groups: list, step: Optional[int] = None, options: Optional[dict] = None,
              palette: Optional[list] = None, idempotency_key: Optional[str] = None,
              process: Optional[str] = None) -> dict:
        """POST /score-plan. `groups` are dicts with query, profile and completions.

        The call's Idempotency-Key names the call, not its content: the calling process (`process`, e.g. a
        trainer's process index; else $RANK; else this process alone), the step, the call's place among this
        client's calls of that step, and the body. Its retries keep it (replayed, not counted twice); a
        resumed trainer that redoes a step with the same process index, place and samples sends it again
        (replayed); two calls of identical content — identical completions, or processes without RANK — are
        two keys, each counted.
        """
        body: dict = {"groups": groups, "run_id": self.run_id}
        if step is not None:
            body["step"] = int(step)
        if options:
            body["options"] = options
        if palette:
            body["palette"] = palette
        data = json.dumps(body).encode("utf-8")
        if idempotency_key is None:
            who = process if process is not None else os.environ.get("RANK") or os.environ.get("LOCAL_RANK") or _PROCESS
            place = (self.run_id, step, who)
            self._calls[place] = self._calls.get(place, -1) + 1
            call = f"{who}\n{step}\n{self._calls[place]}\n".encode("utf-8")
            idempotency_key = hashlib.sha256(call + data).hexdigest()
        return self._request("POST", "/score-plan", data, {"idempotency-key": idempotency_key})

    def openrlhf(self, query: list, prompts: Optional[list] = None, labels: Optional[list] = None,
                 step: Optional[int] = None, count: bool = True) -> dict:
        """POST /openrlhf/reward: samples scored one by one, counted into `step` or the run's automatic steps.

        Each call has a key of its own, kept by its retries: a retry is counted once, and two calls with
        identical samples (a rollout group whose samples came out the same) are both counted.
        `count=False`: scored with the run's current weights and counted nowhere (validation).
        """
        body: dict = {"query": query}
        if prompts is not None:
            body["prompts"] = prompts
        if labels is not None:
            body["labels"] = labels
        run = urllib.parse.quote(self.run_id or "default", safe="")
        at = ("" if step is None else f"&step={int(step)}") + ("" if count else "&count=false")
        return self._request("POST", f"/openrlhf/reward?run_id={run}{at}", body, {"idempotency-key": uuid.uuid4().hex})

    def configure_run(self, **config: Any) -> dict:
        return self._request("PUT", f"/runs/{self._run()}", config)

    def run(self) -> dict:
        return self._request("GET", f"/runs/{self._run()}")

    def history(self, offset: int = 0, limit: int = 1000, csv: bool = False):
        fmt = "csv" if csv else "json"
        return self._request("GET", f"/runs/{self._run()}/history?offset={offset}&limit={limit}&format={fmt}",
                             raw=csv)

    def finalize(self, step: Optional[int] = None) -> dict:
        """POST /runs/:id/finalize. `step`: the step to close; if another step has begun meanwhile the service
        answers 409 (step_conflict) and closes nothing, and a step already finalized is a no-op."""
        body = None if step is None else {"step": int(step)}
        return self._request("POST", f"/runs/{self._run()}/finalize", body)

    def delete_run(self) -> None:
        self._request("DELETE", f"/runs/{self._run()}")

    def _run(self) -> str:
        if self.run_id is None:
            raise ValueError("this client is stateless (run_id=None)")
        return urllib.parse.quote(self.run_id, safe="")
