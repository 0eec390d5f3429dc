"""Training, evaluation and the ``ginrummy`` command line."""
