"""Every public name of the PopTorch API reference resolves in our poptorch (issue 15).

The names are parsed from the reference's text (api/reference_names.py). The ones not there yet
are listed in KNOWN_MISSING, each needing a feature of its own; a name missing that is not listed
fails, and so does a listed name that now exists (remove it from the list)."""

from __future__ import annotations

import pytest

from api.reference_names import reference_names, reference_path, resolves

KNOWN_MISSING: frozenset[str] = frozenset()

# The reference documents replicaGrouping() right after VariableRetrievalMode, so the parse
# files it there; it is a method of a wrapped model's weight tensors ("Call this function on
# a weight tensor after applying a PopTorch wrapper"), checked on one.
WEIGHT_METHODS = {"poptorch.VariableRetrievalMode.replicaGrouping": "replicaGrouping"}


def _weight_method_resolves(name: str) -> bool:
    import torch

    import poptorch

    wrapped = poptorch.inferenceModel(torch.nn.Linear(2, 2))
    return callable(getattr(wrapped.weight, WEIGHT_METHODS[name], None))

pytestmark = pytest.mark.skipif(reference_path() is None, reason="the API reference (seed 003) is not present")


def test_reference_parses_to_its_public_names():
    names = reference_names(reference_path().read_text())
    for expected in ("poptorch.Options.anchorTensor", "poptorch.Options.Training", "poptorch.for_loop",
                     "poptorch.OutputMode.EveryN", "poptorch.optim.SGD", "poptorch.PoplarExecutor.getTensorNames",
                     "poptorch.options._PrecisionOptions.setPartialsType", "poptorch.MultiConv.planType"):
        assert expected in names
    assert not [n for n in names if n.endswith((".Note", ".Examples", ".fwd", ".__init__"))]


def test_every_reference_name_resolves():
    names = reference_names(reference_path().read_text())
    missing = [name for name in names
               if not (_weight_method_resolves(name) if name in WEIGHT_METHODS else resolves(name))]
    print(f"{len(names) - len(missing)} of {len(names)} reference names resolve")
    assert sorted(set(missing) - KNOWN_MISSING) == []
    assert sorted(KNOWN_MISSING - set(missing)) == [], "these exist now: remove them from KNOWN_MISSING"
