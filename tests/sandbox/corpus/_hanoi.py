"""The correct Hanoi solver the corpus programs share; inlined where a program says `from _hanoi import hanoi`."""


def hanoi(instance):
    """A correct answer for any Hanoi instance."""
    moves = []

    def go(k, a, b, c):
        if k:
            go(k - 1, a, c, b)
            moves.append([k, a, b])
            go(k - 1, c, b, a)

    (spare,) = set(instance["pegs"]) - {instance["start"], instance["goal"]}
    go(instance["n"], instance["start"], instance["goal"], spare)
    return {"moves": moves}
