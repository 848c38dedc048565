"""Hypothesis strategies shared by the puzzle tests."""

from __future__ import annotations

from collections.abc import Callable

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

# Values that broke validators: past Python's int-to-string limit, non-finite and signed-zero floats,
# bools where integers are due, strings of any script (lone surrogates included) and long ones.
# Built by map: hypothesis reprs the elements of sampled_from, and a 5000-digit integer has no repr.
HUGE_INTS = st.sampled_from([(1, 10, 5000), (-1, 10, 5000), (1, 2, 20000), (1, 10, 4300), (1, 2, 64), (-1, 2, 63)]).map(
    lambda spec: spec[0] * spec[1] ** spec[2]
)
HOSTILE_FLOATS = st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 1e308, -1e308, 5e-324, 1.0])
HOSTILE_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=8) | st.sampled_from(
    ["", "\u2028", "\x00", "A_1", "Fill A", "R", "1", "07", " 1", "+1", "[red]x[/]"]
) | st.integers(1000, 100_000).map(lambda n: "x" * n)
HOSTILE_SCALARS = (
    st.none() | st.booleans() | st.integers(-20, 100) | st.integers() | HUGE_INTS | st.floats() | HOSTILE_FLOATS | HOSTILE_TEXT
)


def nest(value: object, depth: int) -> object:
    """`value` inside `depth` single-element lists, built without recursion."""
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_JSON = st.recursive(
    HOSTILE_SCALARS,
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(HOSTILE_TEXT, children, max_size=6)
        | st.builds(nest, children, st.integers(2, 100))  # deep-ish: on both sides of MAX_DEPTH = 64
    ),
    max_leaves=20,
)


def json_paths(value: object, path: tuple = ()) -> list[tuple]:
    """Every position in a JSON value: list indices and object keys, parents before children."""
    found = [path]
    stack = [(value, path)]
    while stack:
        item, here = stack.pop()
        children = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        for key, child in children:
            found.append((*here, key))
            stack.append((child, (*here, key)))
    return found


def edit_at(value: object, path: tuple, change: Callable[[object], object]) -> object:
    """A copy of `value` with the element at `path` replaced by change(element); copies along the path only."""
    if not path:
        return change(value)
    head, rest = path[0], path[1:]
    copy = list(value) if isinstance(value, list) else dict(value)  # type: ignore[call-overload]
    copy[head] = edit_at(copy[head], rest, change)
    return copy


def perturb(data: st.DataObject, element: object) -> object:
    """One small change to a reference element: off by one, another type or token, or a hostile value."""
    if isinstance(element, bool):
        return data.draw(st.sampled_from([not element, int(element), None, "true"]) | HOSTILE_SCALARS)
    if isinstance(element, int):
        return data.draw(st.sampled_from([element - 1, element + 1, -element, float(element), str(element), True]) | HOSTILE_SCALARS)
    if isinstance(element, str):
        cut = data.draw(st.integers(0, len(element)))
        return data.draw(
            st.sampled_from([element.lower(), element + " ", element[:cut] + element[cut + 1 :], element[:cut] + "X" + element[cut:]])
            | HOSTILE_SCALARS
        )
    if isinstance(element, list) and element:
        index = data.draw(st.integers(0, len(element) - 1))
        shorter, longer = element[:index] + element[index + 1 :], element[:index] + [element[index]] + element[index:]
        return data.draw(st.sampled_from([shorter, longer, element[::-1], [element]]) | HOSTILE_JSON)
    if isinstance(element, dict) and element:
        key = data.draw(st.sampled_from(sorted(element)))
        without = {k: v for k, v in element.items() if k != key}
        renamed = {**without, data.draw(st.sampled_from([key + "0", "0" + key, " " + key, key.lower(), "9" * 5000])): element[key]}
        return data.draw(st.sampled_from([without, renamed]) | HOSTILE_JSON)
    return data.draw(HOSTILE_JSON)
