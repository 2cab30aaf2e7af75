"""Command-line tools: thin ``main()`` functions behind the ``ipu-opt`` and ``ipu-translate`` scripts."""
