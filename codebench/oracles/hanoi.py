"""Tower of Hanoi oracle: the classic recursion, which yields the minimal 2^n − 1 moves.

To move a tower of k disks from `source` to `target`, move the top k − 1 disks to the spare peg,
move disk k, then move the k − 1 disks from the spare peg onto it. Answer: [[disk, from, to], ...].
"""


def solve(instance):
    n, start, goal = instance["n"], instance["start"], instance["goal"]
    spare = next(peg for peg in instance["pegs"] if peg not in (start, goal))
    moves = []

    def move_tower(disks, source, target, via):
        if disks == 0:
            return
        move_tower(disks - 1, source, via, target)
        moves.append([disks, source, target])
        move_tower(disks - 1, via, target, source)

    move_tower(n, start, goal, spare)
    return {"moves": moves}
