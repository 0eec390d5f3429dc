"""Neural policies: the actor-critic network, its rule-derived inputs, masked sampling and checkpoints."""
