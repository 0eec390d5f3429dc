"""Training, evaluation, play (terminal, web, replays) and the ``ginrummy`` command line."""
