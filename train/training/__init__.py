"""Training: the run config, PPO, rollout collection, GAE, the league, behaviour cloning, checkpoints, curves."""
