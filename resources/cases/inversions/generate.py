"""Write the inversions case's stress inputs: `python generate.py` (`case build` runs it).

Six sizes, each twice the last, so the Fuel tab's fitted slope tells an O(n log n) engine
(about 1.1) from an O(n²) one (about 2). Values are drawn from a pool of n/2 random u32s:
about half of them repeat (a tie is never an inversion) and about half have the high bit
set (they are the largest, not negative). Each size has its own seed: a rebuild writes the
same bytes.

Version 2 adds one input of 100,000 values (the first past 92,682, the fewest whose count
can exceed 2^32 - 1): drawn the same way, then sorted into descending order with one value
in fifty moved to a random place, so its answer (about 4.8 billion) needs 64 bits and an
engine that keeps the count in 32 (or 16) bits fails it. It breaks the doubling of sizes on
purpose: the next doubling (128,000) would only cost more fuel to say the same.
"""

import random
from pathlib import Path

SIZES = (500, 1_000, 2_000, 4_000, 8_000, 16_000)
WIDE = 100_000  # the nearly descending input whose answer needs 64 bits


def values(n: int) -> list[int]:
    rng = random.Random(n)
    pool = [rng.getrandbits(32) for _ in range(n // 2)]
    return [rng.choice(pool) for _ in range(n)]


def nearly_descending(n: int) -> list[int]:
    rng = random.Random(n)
    out = sorted(values(n), reverse=True)
    for _ in range(n // 50):
        out.insert(rng.randrange(n), out.pop(rng.randrange(n)))
    return out


def main() -> None:
    out = Path(__file__).parent / "stress"
    out.mkdir(exist_ok=True)
    for n in SIZES:
        (out / f"n-{n}.txt").write_text("\n".join(map(str, values(n))) + "\n")
    (out / f"n-{WIDE}.txt").write_text("\n".join(map(str, nearly_descending(WIDE))) + "\n")


if __name__ == "__main__":
    main()
