"""Cryptarithm oracle: column-by-column backtracking with carries, least significant column first.

Column c states  carry_in + Σ (addend letters in column c) = result[c] + 10 · carry_out.  Written
as Σ a_x · d_x + carry_in ≡ 0 (mod 10), with a_x the letter's count among the column's addend
letters, minus 1 for the result's letter, it fixes one free letter once the others are chosen: when
some free letter has a coefficient prime to 10 its digit is solved for instead of guessed. Digits
are distinct and a word of two or more letters does not start with 0; after the last column the
carry must be 0. A wrong guess is caught in the column where it is made, not at the end.

After every guess a bound check prunes too: the equation still to satisfy from column c upwards,
carry_in + Σ weight_x · d_x = 0, must be reachable with the free letters at their extreme unused
digits. Within a column the letters of largest weight are guessed first, so this bites early.
"""

from collections import Counter


def solve(instance):
    addends, result = instance["addends"], instance["result"]
    words = addends + [result]
    letters = sorted(set("".join(words)))
    if len(letters) > 10 or max(len(w) for w in addends) > len(result):
        raise ValueError(f"{' + '.join(addends)} = {result} has no solution")
    lowest = {x: 1 if any(len(w) > 1 and w[0] == x for w in words) else 0 for x in letters}

    # Per column: {letter: a_x} over its addend letters and result letter, and the addend counts.
    columns = []
    for c in range(len(result)):
        counts = Counter(w[-1 - c] for w in addends if c < len(w))
        coefficient = dict(counts)
        coefficient[result[-1 - c]] = coefficient.get(result[-1 - c], 0) - 1
        columns.append((coefficient, counts, result[-1 - c]))
    # weight[c][x]: the value letter x has in the equation left over at column c, read in units of
    # 10^c (addends count +, the result −); carry_in + Σ weight[c][x] · d_x must come out 0.
    weight = []
    for c in range(len(result)):
        w = Counter()
        for word, sign in [(a, 1) for a in addends] + [(result, -1)]:
            for place, x in enumerate(reversed(word)):
                if place >= c:
                    w[x] += sign * 10 ** (place - c)
        weight.append(sorted(w.items(), key=lambda item: -abs(item[1])))

    digit = {}  # letter -> digit
    used = set()

    def place(letter, d):
        digit[letter] = d
        used.add(d)

    def remove(letter):
        used.discard(digit.pop(letter))

    def column(c, carry):
        if c == len(columns):
            return carry == 0
        if not feasible(c, carry):
            return False
        coefficient = columns[c][0]
        free = [x for x in coefficient if x not in digit]
        forced = next((x for x in free if coefficient[x] % 2 and coefficient[x] % 5), None)
        size = dict(weight[c])
        guessed = sorted((x for x in free if x != forced), key=lambda x: -abs(size[x]))  # big values first
        return guess(c, carry, guessed, forced)

    def feasible(c, carry):
        """Can the equation left at column c still balance? Bounds with free letters at extreme digits."""
        spare = [d for d in range(10) if d not in used]
        nonzero = spare[1:] if spare and spare[0] == 0 else spare
        low = high = carry
        for x, w in weight[c]:
            d = digit.get(x)
            if d is not None:
                low += w * d
                high += w * d
                continue
            options = nonzero if lowest[x] else spare
            if not options:
                return False
            low += w * (options[0] if w > 0 else options[-1])
            high += w * (options[-1] if w > 0 else options[0])
        return low <= 0 <= high

    def guess(c, carry, guessed, forced):
        if guessed:
            letter, rest = guessed[0], guessed[1:]
            for d in range(lowest[letter], 10):
                if d not in used:
                    place(letter, d)
                    if feasible(c, carry) and guess(c, carry, rest, forced):
                        return True
                    remove(letter)
            return False
        coefficient = columns[c][0]
        if forced is None:
            return finish(c, carry)
        partial = carry + sum(a * digit[x] for x, a in coefficient.items() if x != forced)
        d = (-partial * pow(coefficient[forced] % 10, -1, 10)) % 10
        if d in used or d < lowest[forced]:
            return False
        place(forced, d)
        if finish(c, carry):
            return True
        remove(forced)
        return False

    def finish(c, carry):
        """Every letter of column c has a digit: check it and move on with its carry."""
        _, counts, result_letter = columns[c]
        total = carry + sum(k * digit[x] for x, k in counts.items()) - digit[result_letter]
        return total % 10 == 0 and column(c + 1, total // 10)

    if not column(0, 0):
        raise ValueError(f"{' + '.join(addends)} = {result} has no solution")
    return {"mapping": {letter: digit[letter] for letter in letters}}
