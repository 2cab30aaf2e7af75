"""``IPUStrategy`` (alias ``IPUPlugin``): Lightning's loop over step functions compiled by poptorch.

- ``fit``: ``training_step`` runs as one ``poptorch.trainingModel`` (forward, backward and
  the optimizer from ``configure_optimizers`` on the device). When a learning-rate
  scheduler (or anything else) changes the optimizer's hyper-parameters, the next step
  calls ``setOptimizer``: no recompilation.
- ``validation_step`` / ``test_step`` / ``predict_step`` each run as a
  ``poptorch.inferenceModel`` of the same module, sharing its weights: each is compiled
  once per Trainer run, validation inside ``fit`` does not recompile per epoch, and it
  sees the training wrapper's latest weights.
- Lightning's ``torch.utils.data.DataLoader`` objects become ``poptorch.DataLoader`` objects
  with the same dataset, ``batch_size``, shuffling, workers and collate function: each
  item is a combined batch (``batch_size`` x device iterations x replicas x gradient
  accumulation), one call of the compiled step, one step of Lightning's loop.
- ``Trainer(devices=N)``: N replicas in this process (``replicationFactor(N)``), each on its
  ``batch_size`` slice of every combined batch, gradients averaged across them (PopTorch's
  Mean reduction); the loss handed back to Lightning is the replicas' mean.
- Pipelining: a LightningModule with ``poptorch.BeginBlock(layer, ipu_id=...)`` layers runs
  with PopTorch's default execution strategy, ``PipelinedExecution`` (one stage per IPU).
  Unless ``training_opts`` / ``inference_opts`` are given, the strategy reads the blocks'
  IPUs (p stages) and sets what PopTorch requires of a pipeline: ``gradientAccumulation(2p
  - 1)`` for training (each update then averages 2p - 1 micro-batches) and at least p
  ``deviceIterations`` for inference. ``poptorch.Block`` contexts in the step functions are
  only seen at capture: such pipelines need ``training_opts``.
- Checkpoints (``ModelCheckpoint``, ``Trainer.save_checkpoint``, ``ckpt_path``) read the
  module's ``state_dict`` and the optimizer's, which copy the device's weights and optimizer
  state to the host first.
- ``self.log`` / ``self.log_dict`` in the step functions log the values the compiled step
  returns (see ``_step``). The step is traced once: ``batch_idx`` and other Python values
  are those of the first call.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
from lightning.pytorch.strategies import SingleDeviceStrategy
from lightning.pytorch.trainer.states import RunningStage

import poptorch

from ._step import StepModule, replay
from .accelerator import IPUAccelerator
from .precision import IPUPrecision, from_lightning

_MANY_OPTIMIZERS = (
    "IPUStrategy: configure_optimizers returned {} optimizers; the compiled training step runs one optimizer on the "
    "device (and manual optimization is not available). Use one optimizer, with parameter groups for different "
    "settings per layer")
_STAGES = {"train": "training_step", "val": "validation_step", "test": "test_step", "predict": "predict_step"}


def _options(value: Any, name: str) -> poptorch.Options | None:
    if value is not None and not isinstance(value, poptorch.Options):
        raise TypeError(f"IPUStrategy({name}=...): expected a poptorch.Options, got {type(value).__name__}")
    return value


def _hyperparameters(optimizer: torch.optim.Optimizer) -> list[dict[str, Any]]:
    return [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]


def _mean_loss(out: Any) -> Any:
    if isinstance(out, torch.Tensor) and out.numel() > 1:
        return out.float().mean().to(out.dtype)
    if isinstance(out, dict) and isinstance(out.get("loss"), torch.Tensor) and out["loss"].numel() > 1:
        return {**out, "loss": _mean_loss(out["loss"])}
    return out


class IPUStrategy(SingleDeviceStrategy):
    """Run a LightningModule on ipu-mlir's emulated IPUs (use with ``accelerator="ipu"``).

    Args:
        device_iterations: batches each call of the compiled step processes (when
            ``training_opts`` / ``inference_opts`` are not given).
        autoreport: write PopTorch's profiling report (``Options.enableProfiling``) after
            each call, into ``autoreport_dir`` (default ``./profile``).
        inference_opts / training_opts: ``poptorch.Options`` for the inference / training
            wrappers; they override ``device_iterations``.
        convert_model_to_half: convert the module to float16 (PopTorch's ``model.half()``),
            as ``precision="16-true"``.
    """

    strategy_name = "ipu"

    def __init__(
        self,
        accelerator: Any = None,
        device_iterations: int = 1,
        autoreport: bool = False,
        autoreport_dir: str | None = None,
        inference_opts: poptorch.Options | None = None,
        training_opts: poptorch.Options | None = None,
        convert_model_to_half: bool = False,
        checkpoint_io: Any = None,
        precision_plugin: Any = None,
    ) -> None:
        super().__init__(device=torch.device("cpu"), accelerator=accelerator, checkpoint_io=checkpoint_io,
                         precision_plugin=precision_plugin)
        if isinstance(device_iterations, bool) or not isinstance(device_iterations, int) or device_iterations < 1:
            raise ValueError(f"IPUStrategy(device_iterations={device_iterations!r}): pass an integer of 1 or more")
        self.device_iterations = device_iterations
        self.autoreport = bool(autoreport)
        self.autoreport_dir = autoreport_dir
        self.convert_model_to_half = bool(convert_model_to_half)
        self._user_inference_opts = _options(inference_opts, "inference_opts")
        self._user_training_opts = _options(training_opts, "training_opts")
        # Lightning fills this from Trainer(devices=N) (one host device per replica): N replicas
        self.parallel_devices: list[torch.device] = []
        self._step_module: StepModule | None = None
        self._wrappers: dict[str, poptorch.PoplarExecutor] = {}
        self._pushed: list[dict[str, Any]] | None = None
        # stage ("train", "val", "test", "predict") -> the compiled step's schedule (wrapper.schedule()),
        # kept when the run ends and the wrappers are destroyed
        self.compiled_schedules: dict[str, str] = {}

    # -- precision: whatever Lightning built from Trainer(precision=...) becomes IPUPrecision
    @property
    def precision_plugin(self) -> IPUPrecision:
        return self._precision_plugin if self._precision_plugin is not None else IPUPrecision()

    @precision_plugin.setter
    def precision_plugin(self, plugin: Any) -> None:
        self._precision_plugin = None if plugin is None else from_lightning(plugin)

    @property
    def _precision(self) -> str:
        return "16-true" if self.convert_model_to_half else self.precision_plugin.precision

    # -- options -----------------------------------------------------------------------
    def _make_options(self, user: poptorch.Options | None, replicas: int, training: bool) -> poptorch.Options:
        if user is not None:
            options = user.clone()
        else:  # the strategy's own options: device_iterations, and what the pipeline needs
            options = poptorch.Options().deviceIterations(self.device_iterations)
            stages = self._pipeline_stages
            if stages > 1 and training:
                options.Training.gradientAccumulation(2 * stages - 1)
            elif stages > 1:
                options.deviceIterations(max(self.device_iterations, stages))
        if replicas > 1:
            if options.replication_factor == 1:
                options.replicationFactor(replicas)
            elif options.replication_factor != replicas:
                kind = "training_opts" if training else "inference_opts"
                raise ValueError(
                    f"Trainer(devices={replicas}) asks for {replicas} replicas but IPUStrategy({kind}=...) has "
                    f"replicationFactor({options.replication_factor}); give the number of replicas once (devices=N, "
                    "or replicationFactor with devices=1)")
        if self.autoreport:
            options.enableProfiling(self.autoreport_dir or "./profile")
        return options

    @property
    def _pipeline_stages(self) -> int:
        """The pipeline stages of the LightningModule's ``poptorch.BeginBlock`` layers with
        ``ipu_id``: one per IPU (PopTorch's default AutoStage.SameAsIpu), IPU 0 included (the
        ops before the first block run there). 1 without such layers, or before the module is
        connected."""
        from poptorch.annotations import _block_of  # noqa: PLC2701 - no public reader of BeginBlock

        module = self.lightning_module
        if module is None:
            return 1
        ipus = {block[1] for block in map(_block_of, module.modules()) if block is not None and block[1] is not None}
        return len(ipus | {0}) if ipus else 1

    @property
    def training_opts(self) -> poptorch.Options:
        return self._make_options(self._user_training_opts, self._replicas, training=True)

    @property
    def inference_opts(self) -> poptorch.Options:
        return self._make_options(self._user_inference_opts, self._replicas, training=False)

    @property
    def _replicas(self) -> int:
        return len(self.parallel_devices) if self.parallel_devices else 1

    # -- set-up and tear-down ----------------------------------------------------------
    def setup(self, trainer: Any) -> None:
        if not isinstance(self.accelerator, IPUAccelerator):
            raise ValueError(
                f"IPUStrategy runs on the emulated IPUs: pass accelerator='ipu' to the Trainer (got "
                f"{type(self.accelerator).__name__})")
        module = self.lightning_module
        if not module.automatic_optimization:
            raise ValueError(
                "IPUStrategy: manual optimization (automatic_optimization = False) is not supported: the compiled "
                "training step runs the backward pass and the optimizer on the device. Return the loss from "
                "training_step and let Lightning optimize")
        if trainer.accumulate_grad_batches != 1:
            raise ValueError(
                f"Trainer(accumulate_grad_batches={trainer.accumulate_grad_batches}) with the IPU strategy: gradient "
                "accumulation happens on the device; pass training_opts=poptorch.Options() with "
                f".Training.gradientAccumulation({trainer.accumulate_grad_batches}) instead")
        if trainer.gradient_clip_val:
            raise ValueError(
                "Trainer(gradient_clip_val=...) with the IPU strategy: the gradients never reach the host; use a "
                "poptorch.optim optimizer with max_grad_norm in configure_optimizers instead")
        super().setup(trainer)
        if self.convert_model_to_half:
            module.half()
        self._step_module = StepModule(module, half_inputs=self._precision in ("16-mixed", "16-true"),
                                       half_compute_only=self._precision == "16-mixed")
        self._wrappers, self._pushed = {}, None

    def setup_optimizers(self, trainer: Any) -> None:
        try:
            super().setup_optimizers(trainer)
        except RuntimeError as error:  # Lightning's advice (manual optimization) does not apply here
            if "multiple optimizers" not in str(error):
                raise
            raise ValueError(_MANY_OPTIMIZERS.format("several")) from error
        if len(self.optimizers) > 1:
            raise ValueError(_MANY_OPTIMIZERS.format(len(self.optimizers)))

    def teardown(self) -> None:
        for stage in ("val", "test", "predict", "train"):  # training last: it copies the weights back
            wrapper = self._wrappers.pop(stage, None)
            if wrapper is not None:
                if wrapper.isCompiled():
                    self.compiled_schedules[stage] = wrapper.schedule()
                wrapper.destroy()
        self._step_module = None
        super().teardown()

    # -- data --------------------------------------------------------------------------
    def process_dataloader(self, dataloader: object) -> object:
        if isinstance(dataloader, poptorch.DataLoader) or not isinstance(dataloader, torch.utils.data.DataLoader):
            return dataloader
        trainer = self.lightning_module.trainer
        training = trainer.state.stage == RunningStage.TRAINING
        options = self.training_opts if training else self.inference_opts
        batch_size, sampler = dataloader.batch_size, dataloader.sampler
        if batch_size is None:  # Lightning's predict loop wraps the BatchSampler to track indices
            batch_size = getattr(dataloader.batch_sampler, "batch_size", None)
            sampler = getattr(dataloader.batch_sampler, "sampler", sampler)
        if batch_size is None:
            raise ValueError(
                "IPUStrategy: a DataLoader with a custom batch_sampler (batch_size=None) cannot be turned into a "
                "poptorch.DataLoader of combined batches; pass batch_size (and shuffle) instead")
        shuffle = isinstance(sampler, torch.utils.data.RandomSampler)
        loader = poptorch.DataLoader(
            options, dataloader.dataset, batch_size=batch_size, shuffle=shuffle,
            num_workers=dataloader.num_workers, drop_last=True, collate_fn=dataloader.collate_fn,
            persistent_workers=dataloader.persistent_workers if dataloader.num_workers else None,
        )
        combined = loader.combinedBatchSize
        size = len(dataloader.dataset) if hasattr(dataloader.dataset, "__len__") else None
        if combined and size is not None and size % combined:
            warnings.warn(
                f"IPUStrategy: the {trainer.state.stage.value if trainer.state.stage else ''} dataloader drops the "
                f"last {size % combined} of {size} samples: each compiled step takes whole combined batches of "
                f"{combined} (batch_size {batch_size} x device iterations x replicas x gradient accumulation). Make "
                "the dataset a multiple of that to use every sample", stacklevel=2)
        return loader

    def batch_to_device(self, batch: Any, device: torch.device | None = None, dataloader_idx: int = 0) -> Any:
        return batch  # the host feeds the emulated IPUs

    # -- the compiled steps --------------------------------------------------------------
    def _wrapper(self, stage: str) -> poptorch.PoplarExecutor:
        wrapper = self._wrappers.get(stage)
        if wrapper is None:
            assert self._step_module is not None, "IPUStrategy.setup() has not run"
            if stage == "train":
                wrapper = poptorch.trainingModel(self._step_module, self.training_opts, optimizer=self.optimizers[0])
                self._pushed = _hyperparameters(self.optimizers[0])
            else:
                wrapper = poptorch.inferenceModel(self._step_module, self.inference_opts)
            wrapper.model.step_name = _STAGES[stage]
            self._wrappers[stage] = wrapper
        return wrapper

    def _run(self, stage: str, batch: Any, *step_args: Any) -> Any:
        wrapper = self._wrapper(stage)
        if stage == "train":
            optimizer = self.optimizers[0]
            current = _hyperparameters(optimizer)
            if current != self._pushed:  # a scheduler changed the learning rate: no recompilation
                wrapper.setOptimizer(optimizer)
                self._pushed = current
        wrapper.model.step_args = step_args  # used when the step is captured (the first call)
        try:
            out, logged = wrapper(batch)
        except Exception as error:
            if not wrapper.isCompiled() and "Options" in str(error):
                kind = "training_opts" if stage == "train" else "inference_opts"
                error.add_note(f"With Lightning, pass those poptorch.Options as IPUStrategy({kind}=...).")
                if getattr(self, f"_user_{kind}") is not None and self._pipeline_stages > 1:
                    error.add_note(
                        f"Or leave {kind} out: for a pipeline of {self._pipeline_stages} stages (poptorch.BeginBlock) "
                        f"the strategy's own options accumulate the gradients of 2 x {self._pipeline_stages} - 1 "
                        f"micro-batches in training and run at least {self._pipeline_stages} device iterations in "
                        "inference.")
            raise
        record = self._step_module.records[_STAGES[stage]]
        replay(self.lightning_module, record, logged)
        if not record.has_output:
            return None
        if stage == "train":  # one loss per replica (and per micro-batch): Lightning's loop takes their mean
            out = _mean_loss(out)
        return out

    def training_step(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("train", *args, *kwargs.values())

    def validation_step(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("val", *args, *kwargs.values())

    def test_step(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("test", *args, *kwargs.values())

    def predict_step(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("predict", *args, *kwargs.values())

    @classmethod
    def register_strategies(cls, strategy_registry: Any) -> None:
        strategy_registry.register(cls.strategy_name, cls, description="step functions compiled by poptorch")


class IPUPlugin(IPUStrategy):
    """The seed's name (Lightning 1.x ``plugins=IPUPlugin(...)``): pass it as ``strategy=IPUPlugin(...)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn("IPUPlugin is IPUStrategy's old name; Lightning 2 takes it as strategy=, not plugins=",
                      DeprecationWarning, stacklevel=2)
        super().__init__(*args, **kwargs)
