"""Environment adapters over the engine: the PettingZoo AEC env, episodes, the batched self-play API,
Gymnasium single and vector envs, the SB3 vector env, how an env calls its opponent, and the
registered Gymnasium ids.
"""
