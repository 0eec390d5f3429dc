"""Evaluation: mirrored-pair matches with intervals, tournaments and ratings."""
