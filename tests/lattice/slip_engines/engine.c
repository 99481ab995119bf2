/* The Lattice v1 reference engine with one rule slip switched on at compile time: the
 * 18 single-rule wrong engines of tests/lattice/mutants.py, in C and fast enough for
 * every stress case. `tests/lattice/wasm_slips.py` builds and runs them.
 *
 * Build with -DSLIP=<NAME>, NAME one of the slips below (each the Python class of the
 * same name in mutants.py). Without SLIP this is resources/engines/reference.c, with the
 * same behaviour (not quite the same code: slot 0's contenders are ranked over four places,
 * the fourth always empty): every switch is an #if on SLIP, and the switch-less branches
 * call the reference's own functions from its lattice_common.h, staged beside this file
 * at build.
 *
 * The state the slips need beyond the reference's is allocated only by the slip that
 * uses it. Where the Python mutant's answer hangs on the order it applies moves (an item
 * landing in slot 1, a sink taking one item), this engine follows the same order: the
 * scan below visits items in the order the Python walk does.
 */
#define SLOT_ONE_LANDING 1
#define NO_SIDE_LOADS 2
#define BELT_MOVES_AS_ONE 3
#define SLOT_OPEN_ONLY_IF_EMPTY 4
#define TRAINS_CUT_AT_BELT_ENDS 5
#define RIGHT_BEFORE_LEFT 6
#define OPPOSITE_ACCEPTED 7
#define RINGS_NEVER_ROTATE 8
#define FULL_RINGS_ALWAYS_ROTATE 9
#define QUEUED_PRODUCTION 10
#define ONE_ITEM_PER_SINK 11
#define CAPACITY_IGNORES_THIS_TICK 12
#define ASSEMBLER_WEST_FIRST 13
#define ASSEMBLER_WEST_SECOND 14
#define CRAFT_WHILE_OUTPUT_WAITS 15
#define EDGE_WRAPS_BY_INDEX 16
#define UNNEEDED_TYPE_TAKEN 17
#define REFUSAL_ENDS_THE_TICK 18

#ifndef SLIP
#define SLIP 0
#elif !(SLIP >= 1 && SLIP <= 18)
#error "SLIP names no slip (see the list at the top of engine.c)"
#endif

/* Slips that change which exit reaches which belt (§3, §4c): these wire exits here. */
#define SLIP_WIRES_BELTS (SLIP == NO_SIDE_LOADS || SLIP == OPPOSITE_ACCEPTED || SLIP == EDGE_WRAPS_BY_INDEX)
/* Slips of phase 2b: these decide assemblers' offers here. */
#define SLIP_OF_OFFERS                                                                              \
    (SLIP == CAPACITY_IGNORES_THIS_TICK || SLIP == ASSEMBLER_WEST_FIRST || SLIP == ASSEMBLER_WEST_SECOND || \
     SLIP == UNNEEDED_TYPE_TAKEN || SLIP == REFUSAL_ENDS_THE_TICK)

#include "lattice_common.h"

/* The order in which contenders for slot 0 are ranked: behind, left, right (§4c), then
 * the cell in front, which only OppositeAccepted lets contend. */
#if SLIP == RIGHT_BEFORE_LEFT
static const u32 CONTENDER_ORDER[4] = {0, 2, 1, 3};
#else
static const u32 CONTENDER_ORDER[4] = {0, 1, 2, 3};
#endif

enum { UNKNOWN, PENDING, MOVES, STAYS, CONTINUE };

static u32 *slots;   /* per cell: the items of belt slots 0..3, one byte each */
static u8 *decision; /* per cell: two bits per slot (UNKNOWN..STAYS); non-belt exits use slot 3 */
static u8 *incoming; /* per belt cell: the item entering slot 0 this tick */

#if SLIP == SLOT_ONE_LANDING
/* per belt cell: the item entering it this tick lands in slot 1 before its slot 0 item
 * moves up there, and is overwritten */
static u8 *overwritten;
#endif
#if SLIP == ONE_ITEM_PER_SINK
static u32 *fed_by; /* per sink cell: 1 + the cell of the exit it takes from this tick, 0 = none */
#endif
#if SLIP == FULL_RINGS_ALWAYS_ROTATE
static u32 *ring_cells, *ring_end, nrings; /* the belts of ring r: ring_cells[ring_end[r-1]..ring_end[r]) */
#endif
#if SLIP == QUEUED_PRODUCTION
static u8 *owed; /* per source: a production was skipped while its buffer was full */
#endif
#if SLIP == UNNEEDED_TYPE_TAKEN
static u64 *unneeded; /* per assembler and type: items of types its recipe does not use */
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

/* ---- wiring: exits, their targets and the contenders of a slot 0 (§3, §4b, §4c) ---- */

#if SLIP_WIRES_BELTS
/* the neighbour of c in direction d, or -1 (EdgeWrapsByIndex: c ± 1 / c ± W in 0..W·H) */
static inline i32 slip_neighbor(const World *w, u32 c, u32 d) {
#if SLIP == EDGE_WRAPS_BY_INDEX
    i32 t = (i32)c + DX[d] + DY[d] * (i32)w->w;
    return t >= 0 && t < (i32)w->ncells ? t : -1;
#else
    return neighbor(w, c, d);
#endif
}
#endif

/* what the exit at c (direction d) targets; *tc receives the target cell */
static inline u32 exit_target(const World *w, u32 c, u32 d, i32 *tc) {
#if SLIP_WIRES_BELTS
    i32 t = slip_neighbor(w, c, d);
    *tc = t;
    if (t < 0) return T_NONE;
    u8 k = w->kind[t];
    if (k == K_SINK) return T_SINK;
    if (k == K_ASM) return T_ASM;
    if (!IS_BELT(k)) return T_NONE;
    if (BELT_DIR(k) == (u8)OPP(d) && SLIP != OPPOSITE_ACCEPTED) return T_NONE; /* head-on */
    if (BELT_DIR(k) != d && SLIP == NO_SIDE_LOADS) return T_NONE; /* from the side */
    return T_BELT;
#else
    return target_of(w, c, d, tc);
#endif
}

/* the cells whose exits contend for slot 0 of belt b: [behind, left, right, front], -1 if
 * none. A slip's wiring takes a cell where its exit reaches b (as mutants.py does). */
static inline void contenders_of(const World *w, u32 b, i32 out[4]) {
#if SLIP_WIRES_BELTS
    u32 d = BELT_DIR(w->kind[b]);
    const u32 side[4] = {OPP(d), LEFT(d), RIGHT(d), d};
    for (u32 r = 0; r < 4; r++) {
        i32 o = slip_neighbor(w, b, side[r]), od = exit_dir(w, o), tc;
        out[r] = od >= 0 && exit_target(w, (u32)o, (u32)od, &tc) == T_BELT && tc == (i32)b ? o : -1;
    }
#else
    belt_contenders(w, b, out);
    out[3] = -1;
#endif
}

/* Phase 2b with the slip's offers: which neighbour exits each assembler accepts. */
static void offers_pass(World *w) {
#if SLIP_OF_OFFERS
#if SLIP == ASSEMBLER_WEST_FIRST
    static const u32 ORDER[4] = {D_W, D_S, D_E, D_N};
#elif SLIP == ASSEMBLER_WEST_SECOND
    static const u32 ORDER[4] = {D_N, D_W, D_E, D_S};
#else
    static const u32 ORDER[4] = {D_N, D_E, D_S, D_W};
#endif
    for (u32 i = 0; i < w->nas; i++) {
        Assembler *a = &w->as[i];
        u32 taken[4] = {0, 0, 0, 0};
        u8 mask = 0;
        for (u32 r = 0; r < 4; r++) {
            u32 q = ORDER[r];
            if (a->nb[q] < 0) continue;
            u8 k = engine_exit_item(w, (u32)a->nb[q]);
            if (!k) continue;
            i32 j = asm_input(a, k);
            if (j < 0) {
#if SLIP == UNNEEDED_TYPE_TAKEN
                mask |= (u8)(1u << q); /* taken, and kept */
#elif SLIP == REFUSAL_ENDS_THE_TICK
                break;
#endif
                continue;
            }
#if SLIP == CAPACITY_IGNORES_THIS_TICK
            if (a->buf[j] >= 2 * a->cnt[j]) continue; /* this tick's takes not counted */
#elif SLIP == REFUSAL_ENDS_THE_TICK
            if (a->buf[j] + taken[j] >= 2 * a->cnt[j]) break;
#else
            if (a->buf[j] + taken[j] >= 2 * a->cnt[j]) continue;
#endif
            taken[j]++;
            mask |= (u8)(1u << q);
        }
        a->accmask = mask;
    }
#else
    accept_pass(w);
#endif
}

/* Does assembler a take the item of the exit at c (direction d) this tick? */
static inline int takes_offer(const World *w, u32 a, u32 c, u32 d) {
#if SLIP == EDGE_WRAPS_BY_INDEX
    /* one cell may reach the assembler from two sides (a grid one cell wide) */
    const Assembler *as = &w->as[a];
    for (u32 q = 0; q < 4; q++)
        if (as->nb[q] == (i32)c && (as->accmask >> q & 1)) return 1;
    (void)d;
    return 0;
#else
    (void)c;
    return asm_accepts(w, a, d);
#endif
}

/* End of phase 2: an item moved into sink / assembler cell tc. */
static inline void slip_deliver(World *w, u32 tc, u8 type) {
#if SLIP == UNNEEDED_TYPE_TAKEN
    if (w->kind[tc] == K_ASM && asm_input(&w->as[w->ent[tc]], type) < 0) {
        unneeded[w->ent[tc] * 256 + type]++;
        return;
    }
#endif
    deliver(w, tc, type);
}

/* ---- phase 2 ---- */

#if SLIP == ONE_ITEM_PER_SINK
/* The sink at tc takes from the exit at c: only the first exit that asks this tick (asked
 * again, it answers the same). */
static inline int sink_takes(u32 tc, u32 c) {
    if (!fed_by[tc]) fed_by[tc] = c + 1;
    return fed_by[tc] == c + 1;
}
#endif

/* The item holder at cell c (slot s) is the holder of item, (c, s) and (c, 3) are
 * exits when c is a source or an assembler. Returns MOVES / STAYS, or CONTINUE with
 * the slot whose item decides. */
static u32 step(World *w, u32 c, u32 s, u32 *nc, u32 *ns) {
    if (s < 3 && IS_BELT(w->kind[c])) {
#if SLIP == BELT_MOVES_AS_ONE
        if (slot_item(c, 3)) { /* the belt's items share the fate of its slot 3 item */
            *nc = c;
            *ns = 3;
            return CONTINUE;
        }
#endif
        if (!slot_item(c, s + 1)) return MOVES;
#if SLIP == SLOT_OPEN_ONLY_IF_EMPTY
        return STAYS;
#endif
        *nc = c;
        *ns = s + 1;
        return CONTINUE;
    }
    u32 d = (u32)exit_dir(w, (i32)c);
    i32 tc;
    switch (exit_target(w, c, d, &tc)) {
#if SLIP == ONE_ITEM_PER_SINK
    case T_SINK: return sink_takes((u32)tc, c) ? MOVES : STAYS;
#else
    case T_SINK: return MOVES;
#endif
    case T_ASM: return takes_offer(w, w->ent[tc], c, d) ? MOVES : STAYS;
    case T_BELT: {
        i32 cont[4];
        contenders_of(w, (u32)tc, cont);
        for (u32 r = 0; r < 4; r++) {
            i32 cc = cont[CONTENDER_ORDER[r]];
            if (cc >= 0 && engine_exit_item(w, (u32)cc)) {
                if (cc != (i32)c) return STAYS; /* a higher-ranked contender holds an item */
                break;
            }
        }
        if (!slot_item((u32)tc, 0)) return MOVES;
#if SLIP == SLOT_OPEN_ONLY_IF_EMPTY || SLIP == TRAINS_CUT_AT_BELT_ENDS
        return STAYS;
#endif
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
    if (exit_target(w, c, d, &tc) == T_BELT) {
        incoming[tc] = item;
#if SLIP == SLOT_ONE_LANDING
        /* mutants.py applies moves in the order its walk met them, and so does this
         * scan: a slot 0 item met later on this walk is still PENDING here */
        overwritten[tc] = slot_item((u32)tc, 0) && get_decision((u32)tc, 0) == PENDING;
#endif
    } else {
        slip_deliver(w, (u32)tc, item);
    }
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
#if SLIP == RINGS_NEVER_ROTATE
            result = STAYS; /* ... or, in this slip, stands still */
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

#if SLIP == FULL_RINGS_ALWAYS_ROTATE
/* the belt an exit of belt c hands on to, or -1 */
static inline i32 next_belt(const World *w, u32 c) {
    i32 tc;
    return exit_target(w, c, BELT_DIR(w->kind[c]), &tc) == T_BELT ? tc : -1;
}

/* Every closed loop of belts, each handing on to the next, whoever outranks them. */
static void find_rings(World *w) {
    u32 *walk = lat_alloc((u64)w->ncells * 4 + 8); /* 1 + the cell a walk started from */
    ring_cells = lat_alloc((u64)w->ncells * 4 + 8);
    ring_end = lat_alloc((u64)w->ncells * 4 + 8);
    u32 n = 0;
    for (u32 b = 0; b < w->ncells; b++) {
        if (!IS_BELT(w->kind[b]) || walk[b]) continue;
        i32 x = (i32)b;
        while (x >= 0 && !walk[x]) {
            walk[x] = b + 1;
            x = next_belt(w, (u32)x);
        }
        if (x < 0 || walk[x] != b + 1) continue; /* ends, or runs into an earlier walk */
        i32 y = x;
        do {
            ring_cells[n++] = (u32)y;
            y = next_belt(w, (u32)y);
        } while (y != x);
        ring_end[nrings++] = n;
    }
}

/* A ring whose every slot is full rotates, whatever was decided. */
static void rotate_full_rings(World *w) {
    for (u32 r = 0, i = 0; r < nrings; r++) {
        u32 end = ring_end[r], full = 1;
        for (u32 j = i; j < end && full; j++) {
            u32 v = slots[ring_cells[j]];
            full = (v & 0xFF) && (v & 0xFF00) && (v & 0xFF0000) && (v & 0xFF000000u);
        }
        for (u32 j = i; j < end && full; j++)
            for (u32 s = 0; s < 4; s++)
                if (get_decision(ring_cells[j], s) != MOVES) {
                    set_decision(ring_cells[j], s, MOVES);
                    moved(w, ring_cells[j], s);
                }
        i = end;
    }
}
#endif

#if SLIP == QUEUED_PRODUCTION
/* Phase 1 with a queue of one: a production due while the buffer is full is made on the
 * first tick the buffer is empty and no production is due. */
static void produce_queued(World *w, u32 t) {
    for (u32 i = 0; i < w->nsrc; i++) {
        Source *s = &w->src[i];
        u32 due = s->phase == 0;
        if (s->buf && due) {
            owed[i] = 1;
        } else if (!s->buf && owed[i] && !due) {
            s->buf = s->type;
            owed[i] = 0;
        } else if (due) {
            owed[i] = 0;
        }
    }
    produce(w, t);
}
#endif

#if SLIP == CRAFT_WHILE_OUTPUT_WAITS
/* Phase 3 without waiting for the output to be taken. */
static void craft_at_once(World *w) {
    for (u32 i = 0; i < w->nas; i++) {
        Assembler *a = &w->as[i];
        if (a->remaining > 0 && --a->remaining == 0) a->output = a->product;
        if (a->remaining) continue;
        u32 ok = 1;
        for (u32 j = 0; j < a->nin; j++) ok &= a->buf[j] >= a->cnt[j];
        if (!ok) continue;
        for (u32 j = 0; j < a->nin; j++) a->buf[j] -= a->cnt[j];
        a->remaining = a->time;
    }
}
#endif

static void engine_init(World *w) {
    slots = lat_alloc((u64)w->ncells * 4 + 8);
    decision = lat_alloc(w->ncells + 8);
    incoming = lat_alloc(w->ncells + 8);
#if SLIP == SLOT_ONE_LANDING
    overwritten = lat_alloc(w->ncells + 8);
#endif
#if SLIP == ONE_ITEM_PER_SINK
    fed_by = lat_alloc((u64)w->ncells * 4 + 8);
#endif
#if SLIP == FULL_RINGS_ALWAYS_ROTATE
    nrings = 0;
    find_rings(w);
#endif
#if SLIP == QUEUED_PRODUCTION
    owed = lat_alloc(w->nsrc + 8);
#endif
#if SLIP == UNNEEDED_TYPE_TAKEN
    unneeded = lat_alloc((u64)w->nas * 256 * 8 + 8);
#endif
#if SLIP == EDGE_WRAPS_BY_INDEX
    /* the parser wired each assembler's neighbours without wrapping: wire them again */
    for (u32 i = 0; i < w->nas; i++) {
        Assembler *a = &w->as[i];
        for (u32 q = 0; q < 4; q++) {
            i32 o = slip_neighbor(w, a->c, q), od = exit_dir(w, o), tc;
            a->nb[q] = od >= 0 && exit_target(w, (u32)o, (u32)od, &tc) == T_ASM && tc == (i32)a->c ? o : -1;
        }
    }
#endif
}

static void engine_tick(World *w, u32 t) {
#if SLIP == QUEUED_PRODUCTION
    produce_queued(w, t);
#else
    produce(w, t);
#endif
    offers_pass(w);
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
#if SLIP == FULL_RINGS_ALWAYS_ROTATE
    rotate_full_rings(w);
#endif
    for (u32 c = 0; c < w->ncells; c++) {
        u8 k = w->kind[c];
        if (IS_BELT(k)) {
            u32 old = slots[c], now = incoming[c];
#if SLIP == SLOT_ONE_LANDING
            /* mutants.py lands the item in slot 1 when that slot is empty at the moment
             * it applies the move. Slot 0 empty at the start: when slot 1 was empty or its
             * item moves on. Slot 0 full (its item moves up to slot 1): when that item is
             * applied after this one, which then overwrites it (lost); else slot 0. */
            if (now) {
                if (old & 255) {
                    if (overwritten[c]) now = 0; /* lost */
                } else if (!(old >> 8 & 255) || get_decision(c, 1) == MOVES) {
                    now <<= 8;
                }
            }
            overwritten[c] = 0;
#endif
            for (u32 s = 0; s < 4; s++) {
                u32 item = (old >> (8 * s)) & 255;
                if (!item) continue;
                if (get_decision(c, s) != MOVES)
                    now |= item << (8 * s);
                else if (s < 3)
                    now |= item << (8 * (s + 1));
            }
            slots[c] = now;
            incoming[c] = 0;
        } else if (k == K_SOURCE && get_decision(c, 3) == MOVES) {
            w->src[w->ent[c]].buf = 0;
        } else if (k == K_ASM && get_decision(c, 3) == MOVES) {
            w->as[w->ent[c]].output = 0;
        }
#if SLIP == ONE_ITEM_PER_SINK
        fed_by[c] = 0;
#endif
        decision[c] = 0;
    }
#if SLIP == CRAFT_WHILE_OUTPUT_WAITS
    craft_at_once(w);
#else
    craft(w, 0);
#endif
}

static void engine_emit_belts(World *w, Emit *e) {
    for (u32 c = 0; c < w->ncells; c++)
        if (IS_BELT(w->kind[c]) && slots[c])
            for (u32 s = 0; s < 4; s++)
                if (slot_item(c, s)) emit_belt_item(e, c, s, slot_item(c, s));
#if SLIP == UNNEEDED_TYPE_TAKEN
    /* the types an assembler kept without needing them are in its buffer records too */
    for (u32 i = 0; i < w->nas; i++)
        for (u32 k = 1; k < 256; k++)
            if (unneeded[i * 256 + k]) emit(e, 6ull << 56 | (u64)w->as[i].c << 16 | k, unneeded[i * 256 + k]);
#endif
}
