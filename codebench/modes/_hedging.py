"""Whether a reply hedges: decided by the modes as they read a reply, and stored with the sample (`Reading.hedged`).

A wrong answer stated with "I think" or "probably" is incomplete reasoning, not a confident error (the failure-mode
taxonomy, `codebench.analysis.failures`, reads the flag). Imports the standard library only.
"""

from __future__ import annotations

import re

HEDGES = ("i think", "i believe", "probably", "perhaps", "maybe", "might be", "not sure", "i'm not certain", "it seems",
          "likely", "possibly", "approximately", "i guess", "unclear", "cannot be certain", "may not be")


def _phrase(phrase: str) -> str:
    """A phrase as a pattern: any run of whitespace between words, a straight or curly apostrophe."""
    return r"\s+".join(re.escape(word).replace("'", "['’]") for word in phrase.split())


_HEDGE = re.compile(r"\b(?:" + "|".join(_phrase(p) for p in HEDGES) + r")\b", re.IGNORECASE)


def hedges(text: str) -> bool:
    """Whether a reply hedges (a HEDGES phrase as whole words, any case): a hedged wrong answer is not a confident one."""
    return _HEDGE.search(text) is not None
