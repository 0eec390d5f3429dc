"""Hand-written players: Neller's Simple and the greedy heuristic."""
