"""Rulesets: every parameter of the ruleset table of docs/rules.md, as a frozen value.

>>> r = Ruleset.preset("classic25")
>>> r.gin_bonus, r.big_gin, r.next_dealer
(25, True, 'alternate')
>>> Ruleset.preset("pagat", gin_bonus=25).gin_bonus
25
>>> Ruleset(knock_limit=11)
Traceback (most recent call last):
...
ValueError: knock_limit must be an int in 0..10 or 'upcard', got 11
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Union

from ginenv.game.cards import plain_int
from ginenv.game.checks import checked_flag, checked_int

KnockLimit = Union[int, Literal["upcard"]]
SHUTOUT_MODES = ("bonus", "double", "none")
MAX_BONUS = 1_000
"""Largest allowed bonus (gin, undercut, big gin, game, box): scores stay far from overflow."""
MAX_TARGET = 10_000
"""Largest allowed game target."""
MAX_TURNS = 10_000
"""Largest allowed ``max_turns_per_hand`` (a hand's state grows with it)."""
NEXT_DEALER_MODES = ("winner", "alternate")
BONUSES = ("gin_bonus", "undercut_bonus", "big_gin_bonus", "game_bonus", "box_bonus")


@dataclass(frozen=True)
class Ruleset:
    """One named, documented rules configuration (docs/rules.md, "Rulesets")."""

    name: str = "pagat"
    """Preset this ruleset derives from (informational; overrides keep the name)."""
    knock_limit: KnockLimit = 10
    """Most deadwood a knocker may keep (R14): an int 0..10, or ``"upcard"`` for
    Oklahoma (value of the first upcard; an ace allows gin only)."""
    gin_bonus: int = 20
    """Bonus for going gin (R23).  Every bonus is an int 0..``MAX_BONUS`` (1000)."""
    undercut_bonus: int = 10
    """Bonus to the defender on an undercut (R22)."""
    big_gin: bool = False
    """Whether big gin (all 11 cards melded, no discard) is allowed (R16)."""
    big_gin_bonus: int = 31
    """Bonus for big gin (R24); used only when ``big_gin`` is on."""
    target: int = 100
    """Running points that end the game (R26); 1..``MAX_TARGET`` (10000)."""
    game_bonus: int = 100
    """Bonus to the game winner (R26)."""
    shutout_mode: str = "bonus"
    """Shutout effect: ``"bonus"`` (game bonus doubled), ``"double"`` (winner's
    running points doubled, then bonuses added) or ``"none"``."""
    box_bonus: int = 20
    """Bonus per hand won, added at the end of the game (R27)."""
    next_dealer: str = "winner"
    """Who deals the next hand (R28): ``"winner"`` of the previous hand, or
    ``"alternate"``.  After a dead hand the same dealer deals again."""
    spade_double: bool = False
    """Oklahoma: a spade first upcard doubles all points of the hand."""
    max_turns_per_hand: int = 200
    """Engine safeguard (1..``MAX_TURNS``, 10000): a hand reaching this many draws ends unscored and is
    flagged truncated (two players trading discards cannot hang a run)."""

    def __post_init__(self) -> None:
        ranges = {"target": (1, MAX_TARGET), "max_turns_per_hand": (1, MAX_TURNS),
                  **{bonus: (0, MAX_BONUS) for bonus in BONUSES}}
        for name, (low, high) in ranges.items():  # numpy ints are stored as plain ints
            object.__setattr__(self, name, checked_int(name, getattr(self, name), low, high))
        if not (isinstance(self.knock_limit, str) and self.knock_limit == "upcard"):
            if plain_int(self.knock_limit) not in range(11):
                raise ValueError(f"knock_limit must be an int in 0..10 or 'upcard', got {self.knock_limit!r}")
            object.__setattr__(self, "knock_limit", plain_int(self.knock_limit))
        for flag in ("big_gin", "spade_double"):
            object.__setattr__(self, flag, checked_flag(flag, getattr(self, flag)))
        if self.shutout_mode not in SHUTOUT_MODES:
            raise ValueError(f"shutout_mode must be one of {SHUTOUT_MODES}, got {self.shutout_mode!r}")
        if self.next_dealer not in NEXT_DEALER_MODES:
            raise ValueError(f"next_dealer must be one of {NEXT_DEALER_MODES}, got {self.next_dealer!r}")
        if not isinstance(self.name, str):
            raise ValueError(f"name must be a string, got {self.name!r}")

    @classmethod
    def preset(cls, name: str, /, **overrides: Any) -> "Ruleset":
        """A named preset (``pagat``, ``classic25``, ``oklahoma``, ``eaai``) with overrides.

        ``name`` is positional-only, so the ``name`` field can be overridden too.

        >>> Ruleset.preset("oklahoma").knock_limit
        'upcard'
        >>> Ruleset.preset("classic25", name="seed001", box_bonus=20).name
        'seed001'
        """
        if name not in PRESETS:
            raise ValueError(f"unknown ruleset {name!r}; choose one of {sorted(PRESETS)}")
        return PRESETS[name].with_overrides(**overrides)

    def with_overrides(self, **overrides: Any) -> "Ruleset":
        """A copy with some parameters changed; unknown names are a ``ValueError``.

        >>> Ruleset().with_overrides(target=50).target
        50
        """
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(f"unknown rule parameter(s) {unknown}; known: {sorted(known)}")
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every parameter (JSON serialisable; every field is a plain scalar)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Ruleset":
        """Inverse of :meth:`to_dict`.

        A partial dict starts from the preset its ``name`` names (``pagat``
        defaults for any other name), so ``{"name": "oklahoma"}`` is Oklahoma,
        never pagat values under an Oklahoma label.

        >>> Ruleset.from_dict({"name": "oklahoma", "target": 200}).knock_limit
        'upcard'
        """
        if not isinstance(data, dict):
            raise ValueError(f"a ruleset dict (from Ruleset.to_dict()) was expected, got {type(data).__name__}")
        base = PRESETS.get(data.get("name"), cls()) if isinstance(data.get("name"), str) else cls()
        return base.with_overrides(**data)


PRESETS: dict[str, Ruleset] = {
    "pagat": Ruleset(),
    "classic25": Ruleset(name="classic25", gin_bonus=25, undercut_bonus=25, big_gin=True,
                         shutout_mode="double", box_bonus=25, next_dealer="alternate"),
    "oklahoma": Ruleset(name="oklahoma", knock_limit="upcard", gin_bonus=25, undercut_bonus=25,
                        target=150, box_bonus=25, next_dealer="alternate", spade_double=True),
    "eaai": Ruleset(name="eaai", gin_bonus=25, undercut_bonus=25, game_bonus=0,
                    shutout_mode="none", box_bonus=0, next_dealer="alternate"),
}


def resolve_ruleset(ruleset: "Ruleset | str | None" = None, **overrides: Any) -> Ruleset:
    """A Ruleset from a name, a Ruleset or None (``pagat``), with overrides.

    >>> resolve_ruleset("eaai", target=50).target
    50
    """
    if ruleset is None:
        ruleset = "pagat"
    if isinstance(ruleset, str):
        return Ruleset.preset(ruleset, **overrides)
    if isinstance(ruleset, Ruleset):
        return ruleset.with_overrides(**overrides) if overrides else ruleset  # frozen: safe to share
    raise ValueError(f"ruleset must be a preset name or a Ruleset, got {ruleset!r}")
