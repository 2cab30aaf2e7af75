"""poptorch.DataLoader in Sync mode (SEMANTICS "Data"): combinedBatchSize for D, G and
batch_size, map-style and iterable datasets, drop_last, workers, batch_sampler, shuffle and
the partitioning between processes (Options.Distributed)."""

from __future__ import annotations

import itertools
import warnings

import expected
import pytest
import torch
from loader_datasets import DictSamples, Squares, Stream

import poptorch


def make_options(d: int = 1, g: int = 1) -> poptorch.Options:
    opts = poptorch.Options().deviceIterations(d)
    opts.Training.gradientAccumulation(g)
    return opts


COMBOS = list(itertools.product([1, 3], [1, 2], [1, 2]))  # D, G, batch_size


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("drop_last", [True, False])
@pytest.mark.parametrize("d,g,batch_size", COMBOS)
def test_map_style_combined_batch(d, g, batch_size, drop_last, workers):
    combined = batch_size * d * g
    with warnings.catch_warnings(record=True):
        loader = poptorch.DataLoader(make_options(d, g), Squares(29), batch_size=batch_size, num_workers=workers,
                                     drop_last=drop_last)
        got = list(loader)
    assert loader.combinedBatchSize == combined
    want = expected.map_style(29, combined, drop_last)
    expected.same_batches(got, want)
    assert len(loader) == len(want)


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("drop_last", [True, False])
@pytest.mark.parametrize("d,g,batch_size", COMBOS)
def test_iterable_combined_batch(d, g, batch_size, drop_last, workers):
    """Each torch worker batches its own slice; an incomplete worker batch is dropped
    (drop_last=True) or yielded (drop_last=False), as torch does per worker."""
    combined = batch_size * d * g
    loader = poptorch.DataLoader(make_options(d, g), Stream(29), batch_size=batch_size, num_workers=workers,
                                 drop_last=drop_last)
    assert loader.combinedBatchSize == combined
    expected.same_batches(list(loader), expected.iterable(29, combined, drop_last, workers))


def test_drop_last_false_warns_about_the_short_batch():
    with pytest.warns(UserWarning, match=r"not a multiple of combinedBatchSize \(6\).*only 4 samples"):
        loader = poptorch.DataLoader(make_options(3), Squares(10), batch_size=2, drop_last=False)
    assert [len(b[0]) for b in loader] == [6, 4]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loader = poptorch.DataLoader(make_options(3), Squares(10), batch_size=2)
    assert [len(b[0]) for b in loader] == [6]


def test_dicts_and_properties():
    opts = make_options(2)
    loader = poptorch.DataLoader(opts, DictSamples(8), batch_size=2)
    assert loader.options is opts
    assert isinstance(loader, torch.utils.data.DataLoader)
    expected.same_batches(list(loader), expected.map_style(8, 4, True))
    loader.terminate()  # Sync: no effect
    expected.same_batches(list(loader), expected.map_style(8, 4, True))


def test_shuffle_is_a_permutation_per_epoch():
    torch.manual_seed(0)
    loader = poptorch.DataLoader(make_options(2), Squares(12), batch_size=2, shuffle=True)
    first = [i for b in loader for i in expected.indices_of(b)]
    second = [i for b in loader for i in expected.indices_of(b)]
    assert sorted(first) == sorted(second) == list(range(12))
    assert first != list(range(12)) and first != second


def test_batch_sampler():
    sampler = [[0, 5], [2, 3, 4], [7]]
    loader = poptorch.DataLoader(make_options(), Squares(8), batch_sampler=sampler)
    assert loader.combinedBatchSize is None
    assert [expected.indices_of(b) for b in loader] == sampler


@pytest.mark.parametrize("kwargs", [{"batch_size": 2}, {"shuffle": True}])
def test_batch_sampler_excludes_batch_size_and_shuffle(kwargs):
    with pytest.raises(ValueError, match="batch_sampler gives the batches, so it cannot be combined"):
        poptorch.DataLoader(make_options(), Squares(8), batch_sampler=[[0, 1]], **kwargs)


@pytest.mark.parametrize("bad", [dict(batch_size=0), dict(num_workers=-1), dict(mode="Often")])
def test_bad_arguments(bad):
    with pytest.raises(ValueError, match="batch_size must be|num_workers must be|is not a poptorch.DataLoaderMode"):
        poptorch.DataLoader(make_options(), Squares(8), **bad)


def test_options_first():
    with pytest.raises(TypeError, match="first argument must be the poptorch.Options"):
        poptorch.DataLoader(Squares(8), Squares(8), batch_size=2)


def test_persistent_workers_reuse_the_workers():
    loader = poptorch.DataLoader(make_options(), Squares(8), batch_size=4, num_workers=2)
    assert loader.persistent_workers
    list(loader)
    workers = loader._iterator._workers
    list(loader)
    assert loader._iterator._workers is workers
    loader = poptorch.DataLoader(make_options(), Squares(8), batch_size=4, num_workers=2, persistent_workers=False)
    assert not loader.persistent_workers


def distributed_options(process_id: int, processes: int, d: int = 1, seed: int | None = None) -> poptorch.Options:
    opts = make_options(d)
    opts.Distributed.configureProcessId(process_id, processes)
    if seed is not None:
        opts.randomSeed(seed)
    return opts


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [True, False])
def test_distributed_parts_are_disjoint(shuffle, drop_last):
    """Three processes (one loader each, as each process would build): disjoint parts,
    the same number of batches, together the dataset (less what drop_last drops); with
    randomSeed the shuffle agrees across processes, so the parts stay disjoint."""
    size, processes = 40, 3
    parts = []
    for pid in range(processes):
        with warnings.catch_warnings(record=True):
            loader = poptorch.DataLoader(distributed_options(pid, processes, 2, seed=7), Squares(size), batch_size=2,
                                         shuffle=shuffle, drop_last=drop_last)
        parts.append([[i for i in expected.indices_of(b)] for b in loader])
    flat = [sorted(i for b in part for i in b) for part in parts]
    every = sorted(i for part in flat for i in part)
    assert len(set(every)) == len(every)
    if drop_last:
        assert len({len(p) for p in parts}) == 1 and all(len(b) == 4 for p in parts for b in p)
        assert len(every) == 36  # 3 processes x 3 batches of 4
    else:
        assert every == list(range(size))
    if not shuffle:
        assert flat[0] == list(range(len(flat[0])))  # contiguous parts, in order
        assert flat[1][0] == len(flat[0])


def test_distributed_shuffle_changes_per_epoch_and_needs_a_seed():
    loader = poptorch.DataLoader(distributed_options(1, 2, seed=3), Squares(16), batch_size=2, shuffle=True)
    first = [i for b in loader for i in expected.indices_of(b)]
    second = [i for b in loader for i in expected.indices_of(b)]
    assert sorted(first) != sorted(second) or first != second
    with pytest.raises(ValueError, match=r"call options.randomSeed\(N\) with the same N in every process"):
        poptorch.DataLoader(distributed_options(0, 2), Squares(16), batch_size=2, shuffle=True)


def test_distributed_iterable_and_manual_partitioning():
    parts = [[i for b in poptorch.DataLoader(distributed_options(p, 2), Stream(12), batch_size=2)
              for i in expected.indices_of(b)] for p in range(2)]
    assert parts == [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11]]
    manual = poptorch.DataLoader(distributed_options(1, 2), Squares(8), batch_size=2,
                                 auto_distributed_partitioning=False)
    assert [i for b in manual for i in expected.indices_of(b)] == list(range(8))


def test_replication_and_input_groups_count():
    """R / I replicas read their own slice: combinedBatchSize counts R / I (replicated
    execution itself is refused by the wrappers today)."""
    opts = make_options(2, 3).replicationFactor(4)
    assert poptorch.DataLoader(opts, Squares(100), batch_size=2).combinedBatchSize == 2 * 2 * 4 * 3
    opts.inputReplicaGrouping(2)
    assert poptorch.DataLoader(opts, Squares(100), batch_size=2).combinedBatchSize == 2 * 2 * 2 * 3
