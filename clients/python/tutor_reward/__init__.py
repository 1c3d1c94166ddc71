"""Stdlib-only clients for the tutoring reward service: an HTTP client, a TRL reward function and verl
compute_score adapters."""

__version__ = "0.2.0"  # the service's version; pyproject.toml and a test keep them equal

from .client import Client, ServiceError
from .trl import AsyncPlanReward, PlanReward
from .verl import compute_score, compute_score_batch

__all__ = ["Client", "ServiceError", "PlanReward", "AsyncPlanReward", "compute_score", "compute_score_batch"]
