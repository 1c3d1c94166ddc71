"""One OpenRLHF rollout process's burst of reward requests, for bench/openrlhf-burst.ts.

    BURST_PYTHON=/path/to/python-with-aiohttp  python openrlhf_burst.py URL SAMPLES.json

Reads its samples ([{query, prompt, label}, ...]), prints "ready", waits for a line on stdin, then fetches
every sample's reward at once, each as OpenRLHF's SingleTurnAgentExecutor fetches it, and prints one JSON
line: the CPU seconds this process spent, and per sample the milliseconds from its first try to its final answer, whether the reward is None, and
what each try saw (an HTTP status, or the exception's class and socket error when there was none).

The calling logic is ours, written from reading OpenRLHF/OpenRLHF@3c3be6234e0cb353e76bb8019947db9dfe99fca7
openrlhf/utils/agent.py: SingleTurnAgentExecutor.execute (lines 280-299, the reward part) and
_fetch_rewards_via_http (lines 322-356): one aiohttp ClientSession per try, a total timeout of 180 s, 5 tries
with a 1 s sleep after each failed one, payload {query: [q], prompts: [p], labels: [l]}, and a sample whose
tries all fail keeps reward None (the RuntimeError is caught and logged by execute). The engine runs one
execute per sample concurrently (openrlhf/trainer/ray/vllm_engine.py:185-208, asyncio.gather).

What we add only observes: the status of each try (and, for an error status, the `code` of its body, read
before raise_for_status raises), and the time each sample took.
"""

import asyncio
import errno
import json
import logging
import sys
import time

import aiohttp

# openrlhf/utils/logging_utils.py: the executor logs at INFO (to stdout there; to stderr here, whose lines
# the bench sends to a file, since stdout carries the result).
logger = logging.getLogger("openrlhf_burst")
logger.setLevel(logging.DEBUG)
_handler = logging.StreamHandler(sys.stderr)
_handler.setLevel(logging.INFO)
_handler.setFormatter(logging.Formatter("%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s", "%m-%d %H:%M:%S"))
logger.addHandler(_handler)
logger.propagate = False


async def _fetch_rewards_via_http(reward_endpoints, queries_list, prompts_list, labels_list, tries):
    """agent.py:322-356, with `tries` (a list) recording what each try saw."""
    num_servers = len(reward_endpoints)
    batch_size = (len(queries_list) + num_servers - 1) // num_servers
    timeout = aiohttp.ClientTimeout(total=180)

    tasks = []
    for i, rm in enumerate(reward_endpoints):
        start_idx = i * batch_size
        end_idx = min((i + 1) * batch_size, len(queries_list))
        payload = {
            "query": queries_list[start_idx:end_idx],
            "prompts": prompts_list[start_idx:end_idx],
            "labels": labels_list[start_idx:end_idx],
        }

        async def _post_request(url, data, try_max_times=5):
            for _ in range(try_max_times):
                try:
                    async with aiohttp.ClientSession(timeout=timeout) as session:
                        async with session.post(url, json=data) as response:
                            if response.status >= 400:  # observation only: the error body's code
                                tries.append(f"{response.status} {_code(await response.text())}".rstrip())
                            response.raise_for_status()
                            body = await response.json()
                            tries.append(str(response.status))
                            return body
                except aiohttp.ClientResponseError as e:
                    if e.status < 400:  # e.g. a 200 whose body was no JSON
                        tries.append(f"{e.status} {type(e).__name__}")
                    logger.info(f"Request error, please check: {e}")
                except aiohttp.ClientError as e:
                    tries.append(_failure(e))
                    logger.info(f"Request error, please check: {e}")
                except Exception as e:  # pragma: no cover - defensive
                    tries.append(_failure(e))
                    logger.info(f"Unexpected error, please check: {e}")
                await asyncio.sleep(1)

            raise RuntimeError(f"Request error for {try_max_times} times, returning None. Please check the API server.")

        tasks.append(asyncio.create_task(_post_request(rm, payload)))
    return await asyncio.gather(*tasks)


def _failure(e):
    """A try that got no status: the exception's class, and the socket error's name when there is one."""
    number = getattr(e, "errno", None)
    return f"{type(e).__name__} {errno.errorcode.get(number, number)}" if number else type(e).__name__


def _code(text):
    try:
        code = json.loads(text).get("code")
    except (ValueError, AttributeError):
        return ""
    return code if isinstance(code, str) else ""


async def _execute(url, sample):
    """The reward part of SingleTurnAgentExecutor.execute (agent.py:275-299)."""
    tries = []
    reward = None
    start = time.perf_counter()
    try:
        rewards_info_list = await _fetch_rewards_via_http([url], [sample["query"]], [sample["prompt"]], [sample["label"]], tries)
        rewards_info = rewards_info_list[0] if rewards_info_list else None
        if rewards_info:
            reward = rewards_info.get("rewards")
    except Exception as e:
        logger.info(f"[SingleTurnExecutor] Failed to fetch reward from remote RM: {e}")
    return {"ms": (time.perf_counter() - start) * 1000, "none": reward is None, "tries": tries}


async def _burst(url, samples):
    start, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(_execute(url, s) for s in samples))
    return {"wall_ms": (time.perf_counter() - start) * 1000, "cpu_s": time.process_time() - cpu, "samples": results}


def main():
    url, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        samples = json.load(f)
    print("ready", flush=True)
    sys.stdin.readline()  # every process starts at once
    print(json.dumps(asyncio.run(_burst(url, samples))), flush=True)


if __name__ == "__main__":
    main()
