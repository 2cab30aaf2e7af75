"""The IPU Model runtime: decodes a ``poplar.graph`` into steps calling torch kernels
(``decoder``, ``kernels/``) and runs them on emulated IPUs (``device_store``,
``pipeline_executor``); ``interpreter`` is the public entry."""
