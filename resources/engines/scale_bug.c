/* Lattice v1 "scale_bug" sample: the lines engine with a bug that only a big factory finds.
 *
 * It keeps a line's item count in one byte: WRONG on purpose. A belt has four slots, so
 * only a line of 64 belts or more can hold 256 items, and a line fills by at most one
 * item a tick, so it must also stand jammed behind its exit for 256 ticks. When the
 * 256th item enters, the count wraps to 0: the line forgets every item it holds, and
 * the items behind it start to flow into a line the engine believes empty. No smoke
 * test comes near; on the bundled case only the two largest stress factories have
 * lines that long and run that many ticks. Everything else is the lines engine,
 * included unchanged (it is fast: this is a contender that would win on fuel).
 */
#define LINE_ITEMS u8
#include "lines.c"
