"""What the frontend does for models of well-known libraries before export.

Hugging Face ``transformers`` models return cache objects (``DynamicCache``,
``EncoderDecoderCache``) in their outputs when ``use_cache`` is on, which torch.export can
only flatten once they are registered as pytree nodes; transformers ships the registration
(``transformers.exporters.exporter_dynamo.register_cache_pytrees_for_model``), which we call
for any model whose class derives from ``transformers.PreTrainedModel``. The cache tensors
then come back to the caller inside the same cache object, as in eager.
"""

from __future__ import annotations

import importlib

import torch


def _is_transformers_model(model: torch.nn.Module) -> bool:
    return any(cls.__name__ == "PreTrainedModel" and cls.__module__.startswith("transformers.")
               for cls in type(model).__mro__)


def prepare_for_export(model: torch.nn.Module) -> None:
    """Register what torch.export needs to capture ``model`` (idempotent)."""
    if _is_transformers_model(model):
        exporter = importlib.import_module("transformers.exporters.exporter_dynamo")
        exporter.register_cache_pytrees_for_model(model)
