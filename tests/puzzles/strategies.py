"""Hypothesis strategies shared by the puzzle tests."""

from __future__ import annotations

from hypothesis import strategies as st

SCALARS = st.none() | st.booleans() | st.integers(-20, 100) | st.floats(allow_nan=False) | st.text(max_size=6)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=4), children, max_size=6),
    max_leaves=30,
)


def answers_with_field(field: str) -> st.SearchStrategy[object]:
    """Any JSON value, plus objects whose `field` holds any JSON value (reaches deeper code paths)."""
    return JSON_VALUES | st.builds(lambda v: {field: v}, JSON_VALUES)
