/* Lattice v1 reference engine: moves every item every tick, written for clarity.
 *
 * Each tick scans every cell twice. The first scan decides, for every item, whether
 * it moves: an item waits on the slot it targets, which waits on that slot's item,
 * and so on; such a chain ends in an empty slot, a sink, an assembler's answer, a
 * blocked exit, or closes into a ring of full slots, which rotates (the greatest
 * fixed point). The second scan moves the items that were decided to move.
 */
#include "lattice_common.h"

u32 hslip_tick; /* the tick being run, for the slips that need it (LATE) */

/* The order in which contenders for slot 0 are ranked: behind, left, right (§4c). */
static const u32 CONTENDER_ORDER[3] = {0, 1, 2};

enum { UNKNOWN, PENDING, MOVES, STAYS, CONTINUE };

static u32 *slots;   /* per cell: the items of belt slots 0..3, one byte each */
static u8 *decision; /* per cell: two bits per slot (UNKNOWN..STAYS); non-belt exits use slot 3 */
static u8 *incoming; /* per belt cell: the item entering slot 0 this tick */
#if HSLIP == 32
static u8 *side_in; /* per belt cell: the item entering slot 0 comes from the side */
#endif

static inline u8 slot_item(u32 c, u32 s) { return (u8)(slots[c] >> (8 * s)); }
static inline u32 get_decision(u32 c, u32 s) { return (decision[c] >> (2 * s)) & 3; }
static inline void set_decision(u32 c, u32 s, u32 v) {
    decision[c] = (u8)((decision[c] & ~(3u << (2 * s))) | v << (2 * s));
}

static u8 engine_exit_item(World *w, u32 c) {
    u8 k = w->kind[c];
    if (IS_BELT(k)) return slot_item(c, 3);
    if (k == K_SOURCE) return w->src[w->ent[c]].buf;
    if (k == K_ASM) return w->as[w->ent[c]].output;
    return 0;
}

#if HSLIP == 8 || HSLIP == 23
/* Whether the belts from `from` along their exits reach `to` (whose exit targets `from`),
 * every one of them full: a full ring through both. */
static int full_ring(World *w, u32 from, u32 to) {
    u32 cur = from;
    for (u32 n = 0; n < w->ncells; n++) {
        if (!IS_BELT(w->kind[cur]) || slots[cur] < 0x01000000u || !(slots[cur] & 0xFF) ||
            !(slots[cur] & 0xFF00) || !(slots[cur] & 0xFF0000))
            return 0;
        if (cur == to) return 1;
        i32 nxt = neighbor(w, cur, BELT_DIR(w->kind[cur]));
        if (nxt < 0) return 0;
        cur = (u32)nxt;
    }
    return 0;
}
#endif

/* The item holder at cell c (slot s) is the holder of item, (c, s) and (c, 3) are
 * exits when c is a source or an assembler. Returns MOVES / STAYS, or CONTINUE with
 * the slot whose item decides. */
static u32 step(World *w, u32 c, u32 s, u32 *nc, u32 *ns) {
    if (s < 3 && IS_BELT(w->kind[c])) {
#if HSLIP == 3 /* compression_behind_blocked_exit: behind a full slot 3, slots 0 and 1 move only with it */
        if (!slot_item(c, s + 1) && s < 2 && BIG(c) && slot_item(c, 3)) {
            *nc = c;
            *ns = 3;
            return CONTINUE;
        }
#endif
#if HSLIP == 18 /* compression_behind_blocked_exit: late on, slot 0 moves only with a full slot 3 */
        if (!slot_item(c, s + 1) && s == 0 && LATE && slot_item(c, 3)) {
            *nc = c;
            *ns = 3;
            return CONTINUE;
        }
#endif
#if HSLIP == 45 /* straight_belt: on odd ticks an item in slot 2 does not step into an empty slot 3 */
        if (s == 2 && !slot_item(c, 3) && SOUTH(w, c) && (hslip_tick & 1)) return STAYS;
#endif
#if HSLIP == 57 /* chained_movement: slot 3 emptied by an item leaving the belt is not open to slot 2 */
        if (s == 2 && slot_item(c, 3) && SOUTH(w, c)) return STAYS;
#endif
#if HSLIP == 58 /* compression_behind_blocked_exit: on odd ticks items close up behind a full slot 3 only if it moves */
        if (!slot_item(c, s + 1) && SOUTH(w, c) && slot_item(c, 3) && s < 2 && (hslip_tick & 1)) {
            *nc = c;
            *ns = 3;
            return CONTINUE;
        }
#endif
#if HSLIP == 43 /* chained_movement: an item follows into a slot emptied this tick only behind an item of its type */
        if (slot_item(c, s + 1) && EAST(w, c) && slot_item(c, s + 1) != slot_item(c, s)) return STAYS;
#endif
#if HSLIP == 4 /* chained_movement: a slot full at the start of the tick is never open */
        if (slot_item(c, s + 1) && BIG(c)) return STAYS;
#endif
        if (!slot_item(c, s + 1)) return MOVES;
        *nc = c;
        *ns = s + 1;
        return CONTINUE;
    }
    u32 d = (u32)exit_dir(w, (i32)c);
    i32 tc;
    switch (target_of(w, c, d, &tc)) {
#if HSLIP == 25 /* sink_counting: late on, a sink takes at most one item per tick; the rest wait */
    case T_SINK: {
        static u32 *stamp;
        if (!stamp) stamp = lat_alloc((u64)w->ncells * 4 + 8);
        if (!LATE) return MOVES;
        if (stamp[tc] == hslip_tick) return STAYS;
        stamp[tc] = hslip_tick;
        return MOVES;
    }
#else
    case T_SINK: return MOVES;
#endif
    case T_ASM: return asm_accepts(w, w->ent[tc], d) ? MOVES : STAYS;
    case T_BELT: {
        i32 cont[3];
        belt_contenders(w, (u32)tc, cont);
#if HSLIP == 2 /* turn: a big factory's belts never take an item from their right */
        if (BIG(tc) && cont[2] == (i32)c) return STAYS;
#endif
#if HSLIP == 46 /* turn: a belt with a feeder behind it never takes a side-load */
        if (SOUTH(w, tc) && cont[0] >= 0 && cont[0] != (i32)c) return STAYS;
#endif
#if HSLIP == 17 /* turn: late on, belts never take an item from their left */
        if (LATE && cont[1] == (i32)c) return STAYS;
#endif
#if HSLIP == 19 /* chained_movement: late on, an item crosses into the next belt only when its slot 0 was empty */
        if (LATE && slot_item((u32)tc, 0)) return STAYS;
#endif
        const u32 *order = CONTENDER_ORDER;
#if HSLIP == 5 /* side_load_priority: right before left */
        static const u32 RIGHT_FIRST[3] = {0, 2, 1};
        if (BIG(tc)) order = RIGHT_FIRST;
#elif HSLIP == 47 /* side_load_priority: right, then left, then behind */
        static const u32 RIGHT_LEFT_BEHIND[3] = {2, 1, 0};
        if (SOUTH(w, tc)) order = RIGHT_LEFT_BEHIND;
#elif HSLIP == 34 /* side_load_priority: the right side outranks the belt behind */
        static const u32 RIGHT_BEHIND_LEFT[3] = {2, 0, 1};
        if (EAST(w, tc)) order = RIGHT_BEHIND_LEFT;
#elif HSLIP == 20 /* side_load_priority: late on, the left side outranks the belt behind */
        static const u32 LEFT_FIRST[3] = {1, 0, 2};
        if (LATE) order = LEFT_FIRST;
#elif HSLIP == 8 || HSLIP == 23 /* jammed_ring: on a full ring, the ring's own item outranks any feeder (23: late on) */
        if ((HSLIP == 8 ? BIG(tc) : LATE) && slot_item((u32)tc, 0)) {
            for (u32 r = 0; r < 3; r++) {
                i32 cc = cont[r];
                if (cc >= 0 && IS_BELT(w->kind[cc]) && full_ring(w, (u32)tc, (u32)cc)) {
                    if (cc != (i32)c) return STAYS;
                    *nc = (u32)tc;
                    *ns = 0;
                    return CONTINUE;
                }
            }
        }
#endif
        for (u32 r = 0; r < 3; r++) {
            i32 cc = cont[order[r]];
            if (cc >= 0 && engine_exit_item(w, (u32)cc)) {
                if (cc != (i32)c) return STAYS; /* a higher-ranked contender holds an item */
                break;
            }
        }
        if (!slot_item((u32)tc, 0)) return MOVES;
        *nc = (u32)tc;
        *ns = 0;
        return CONTINUE;
    }
    default: return STAYS;
    }
}

/* An item moves out of (c, s): exits hand their item to the target. */
static void moved(World *w, u32 c, u32 s) {
    if (s < 3 && IS_BELT(w->kind[c])) return;
    u32 d = (u32)exit_dir(w, (i32)c);
    i32 tc;
    u8 item = engine_exit_item(w, c);
    if (target_of(w, c, d, &tc) == T_BELT) {
        incoming[tc] = item;
#if HSLIP == 32
        side_in[tc] = BELT_DIR(w->kind[tc]) != d;
#endif
    }
    else
        deliver(w, (u32)tc, item);
}

/* Decide the item at (c, s) and every item its decision waits on. */
static void resolve(World *w, u32 c, u32 s) {
    u32 cc = c, cs = s, result, nc, ns;
    for (;;) {
        u32 st = get_decision(cc, cs);
        if (st == MOVES || st == STAYS) {
            result = st;
            break;
        }
        if (st == PENDING) { /* back at the start: a ring of full slots rotates */
#if HSLIP == 7 /* ring_rotation: a big factory's full rings stand still */
            result = BIG(cc) ? STAYS : MOVES;
#elif HSLIP == 49 /* ring_rotation: full rings south of y = 15 rotate one tick in three */
            result = SOUTH(w, cc) && hslip_tick % 3 ? STAYS : MOVES;
#elif HSLIP == 22 /* ring_rotation: late on, full rings rotate only on even ticks */
            result = LATE && (hslip_tick & 1) ? STAYS : MOVES;
#else
            result = MOVES;
#endif
            break;
        }
        set_decision(cc, cs, PENDING);
        u32 r = step(w, cc, cs, &nc, &ns);
        if (r != CONTINUE) {
            result = r;
            break;
        }
        cc = nc;
        cs = ns;
    }
    cc = c;
    cs = s;
    while (get_decision(cc, cs) == PENDING) {
        set_decision(cc, cs, result);
        if (result == MOVES) moved(w, cc, cs);
        if (step(w, cc, cs, &nc, &ns) != CONTINUE) break;
        cc = nc;
        cs = ns;
    }
}

static void engine_init(World *w) {
    slots = lat_alloc((u64)w->ncells * 4 + 8);
    decision = lat_alloc(w->ncells + 8);
    incoming = lat_alloc(w->ncells + 8);
#if HSLIP == 32
    side_in = lat_alloc(w->ncells + 8);
#endif
}

static void engine_tick(World *w, u32 t) {
    hslip_tick = t;
    produce(w, t);
    accept_pass(w);
    for (u32 c = 0; c < w->ncells; c++) {
        u8 k = w->kind[c];
        if (IS_BELT(k)) {
            for (u32 s = 0; s < 4; s++)
                if (slot_item(c, s) && get_decision(c, s) == UNKNOWN) resolve(w, c, s);
        } else if ((k == K_SOURCE || k == K_ASM) && engine_exit_item(w, c) &&
                   get_decision(c, 3) == UNKNOWN) {
            resolve(w, c, 3);
        }
    }
    for (u32 c = 0; c < w->ncells; c++) {
        u8 k = w->kind[c];
        if (IS_BELT(k)) {
            u32 old = slots[c], now = incoming[c];
            for (u32 s = 0; s < 4; s++) {
                u32 item = (old >> (8 * s)) & 255;
                if (!item) continue;
                if (get_decision(c, s) != MOVES)
                    now |= item << (8 * s);
#if HSLIP == 31 /* straight_belt: an item in slot 1 with slots 2 and 3 empty goes straight to slot 3 */
                else if (s == 1 && EAST(w, c) && !((old >> 16) & 255) && !((old >> 24) & 255))
                    now |= item << 24;
#endif
#if HSLIP == 16 /* straight_belt: late on, an item with two empty slots ahead skips one */
                else if (s < 2 && LATE && !((old >> (8 * (s + 1))) & 255) && !((old >> (8 * (s + 2))) & 255))
                    now |= item << (8 * (s + 2));
#endif
                else if (s < 3)
                    now |= item << (8 * (s + 1));
            }
#if HSLIP == 32 /* turn: a side-load lands in slot 1 when it is free */
            if (EAST(w, c) && side_in[c] && !((now >> 8) & 255)) now = (now & ~255u) | (now & 255u) << 8;
            side_in[c] = 0;
#endif
#if HSLIP == 1 /* straight_belt: an item entering a big factory's belt lands in slot 1 when it is free */
            if (BIG(c) && incoming[c] && !((now >> 8) & 255)) now = (now & ~255u) | (now & 255u) << 8;
#endif
            slots[c] = now;
            incoming[c] = 0;
        } else if (k == K_SOURCE && get_decision(c, 3) == MOVES) {
            w->src[w->ent[c]].buf = 0;
        } else if (k == K_ASM && get_decision(c, 3) == MOVES) {
            w->as[w->ent[c]].output = 0;
        }
        decision[c] = 0;
    }
    craft(w, 0);
}

static void engine_emit_belts(World *w, Emit *e) {
    for (u32 c = 0; c < w->ncells; c++)
        if (IS_BELT(w->kind[c]) && slots[c])
            for (u32 s = 0; s < 4; s++)
                if (slot_item(c, s)) emit_belt_item(e, c, s, slot_item(c, s));
}
