/* Lattice v1 "stuck_rings" sample: the lines engine with one wrong rule.
 *
 * It treats every closed ring of full belts as jammed: the ring stands still, where the
 * spec (§4d, the greatest fixed point) makes it rotate as a whole. Everything else is
 * the lines engine, included unchanged.
 */
#define FULL_RING STAYS
#include "lines.c"
