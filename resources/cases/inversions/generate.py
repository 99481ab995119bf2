"""Write the inversions case's stress inputs: `python generate.py` (`case build` runs it).

Six sizes, each twice the last, so the Fuel tab's fitted slope tells an O(n log n) engine
(about 1.1) from an O(n²) one (about 2). Values are drawn from a pool of n/2 random u32s:
about half of them repeat (a tie is never an inversion) and about half have the high bit
set (they are the largest, not negative). Each size has its own seed: a rebuild writes the
same bytes.
"""

import random
from pathlib import Path

SIZES = (500, 1_000, 2_000, 4_000, 8_000, 16_000)


def values(n: int) -> list[int]:
    rng = random.Random(n)
    pool = [rng.getrandbits(32) for _ in range(n // 2)]
    return [rng.choice(pool) for _ in range(n)]


def main() -> None:
    out = Path(__file__).parent / "stress"
    out.mkdir(exist_ok=True)
    for n in SIZES:
        (out / f"n-{n}.txt").write_text("\n".join(map(str, values(n))) + "\n")


if __name__ == "__main__":
    main()
