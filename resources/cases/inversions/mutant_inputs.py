"""Small inputs for `lattice-desktop case mutants`: `python mutant_inputs.py FOLDER COUNT`.

A mutant that every smoke test and stress case answers right is run on these too: if it
answers one of them otherwise than merge_sort, it *survived* (the case misses a mistake);
if not, it is counted *equivalent*. So they vary what the cases hold fixed: lengths from 0
to 300, values from a small pool (many ties) or the whole u32 range (high bits), and
orders from random to sorted either way. Deterministic: input i has seed i.
"""

import random
import sys
from pathlib import Path


def sample(i: int) -> list[int]:
    rng = random.Random(i)
    n = rng.choice((0, 1, 2, 3, rng.randint(4, 40), rng.randint(40, 300)))
    pool = [rng.getrandbits(rng.choice((3, 16, 31, 32))) for _ in range(max(1, n // rng.choice((1, 3))))]
    values = [rng.choice(pool) for _ in range(n)]
    order = rng.random()
    if order < 0.2:
        values.sort()
    elif order < 0.4:
        values.sort(reverse=True)
    return values


def main() -> None:
    folder, count = Path(sys.argv[1]), int(sys.argv[2])
    for i in range(count):
        text = rng_text(i)
        (folder / f"input-{i:04}.txt").write_text(text)


def rng_text(i: int) -> str:
    seps = (" ", "\n", "\t", "  ")
    return random.Random(-i).choice(seps).join(map(str, sample(i))) + "\n"


if __name__ == "__main__":
    main()
