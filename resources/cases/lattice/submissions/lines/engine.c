/* Lattice v1 "lines" engine: transport lines.
 *
 * A belt whose only contender is the belt behind it (or beside it, a turn) continues
 * that belt's line, so the belts of a factory fall into lines: chains of slots with
 * one head (slot 0 of the first belt, where contenders merge) and one exit (slot 3 of
 * the last belt). A line stores its items front to back with the gap of empty slots
 * ahead of each. Per tick only one gap of a line changes: the front gap when the front
 * item can advance, else the first gap behind the compressed front block. Decisions
 * cross lines only at their ends, where the front item waits on the target's head;
 * that wait follows full lines and closes into rings (which rotate: §4d).
 *
 * Idle lines (compressed behind a blocked exit) are not visited: a line is processed
 * in a tick only when it moved last tick, received an item, or something it waits on
 * changed (its target line, its assembler, a sibling contender).
 */
#include "lattice_common.h"

enum { N_LINE = 1, N_SRC = 2, N_ASM = 3 }; /* exit holders */
#define NODE(kind, idx) ((u32)(kind) << 28 | (idx))
#define NODE_KIND(n) ((n) >> 28)
#define NODE_IDX(n) ((n) & 0x0FFFFFFFu)

enum { UNKNOWN, PENDING, MOVES, STAYS, CONTINUE };

/* What a closed ring of full lines does: it rotates (§4d). A sample may redefine it. */
#ifndef FULL_RING
#define FULL_RING MOVES
#endif

/* The type of a line's item count. A sample may redefine it. */
#ifndef LINE_ITEMS
#define LINE_ITEMS u32
#endif

typedef struct {
    u8 kind;  /* T_NONE, T_SINK, T_ASM, T_BELT (then idx is a line) */
    u8 rank;  /* T_BELT: position in the target line's contender list */
    u8 side;  /* T_ASM: the side of the assembler the exit comes from (accmask bit) */
    u32 cell; /* target cell */
    u32 idx;  /* T_ASM: assembler, T_BELT: line */
} Target;

typedef struct {
    u32 len;   /* slots */
    u32 cell0; /* first belt in line_cells */
    u32 base;  /* ring buffer of `len` entries in item_type / item_gap */
    u32 head;  /* ring position of the front item */
    LINE_ITEMS n; /* items */
    u32 k;     /* items in the compressed block that ends at the exit slot */
    u32 back;  /* empty slots behind the last item */
    Target tg;
    u32 ncont;
    u32 cont[3]; /* contender nodes of the head, highest rank first */
    u32 stamp;   /* tick of `state` */
    u8 state;    /* exit decision this tick */
    u8 incoming; /* item entering slot 0 this tick */
    u32 queued;  /* tick this line was put on the worklist */
    u32 woken;   /* tick this line is on the next active list for */
} Line;

static Line *lines;
static u32 nlines, *line_cells, *line_of; /* line_of: per cell */
static u8 *joins; /* per cell: the belt continues the line of the belt feeding it */
static u8 *item_type;
static u32 *item_gap;
static Target *src_tg, *asm_tg;
static u32 *src_stamp, *asm_stamp;
static u8 *src_state, *asm_state;
static u32 *asm_nodes; /* per assembler, 4 slots: the exit nodes targeting it, or ~0 */
static u32 *work, nwork, *next_active, nnext, cur_t;
static u32 *src_work, nsrc_work, *src_next, nsrc_next, *src_woken; /* sources to decide */
static u32 *src_moved, nsrc_moved; /* sources whose item moves this tick */

static inline u32 at(const Line *l, u32 j) {
    u32 i = l->head + j;
    if (i >= l->len) i -= l->len;
    return l->base + i;
}

static inline u8 line_exit_item(const Line *l) {
    if (!l->n) return 0;
    u32 f = at(l, 0);
    return item_gap[f] ? 0 : item_type[f];
}

static inline u8 node_item(World *w, u32 node) {
    u32 i = NODE_IDX(node);
    switch (NODE_KIND(node)) {
    case N_LINE: return line_exit_item(&lines[i]);
    case N_SRC: return w->src[i].buf;
    default: return w->as[i].output;
    }
}

static u8 engine_exit_item(World *w, u32 c) {
    u8 k = w->kind[c];
    if (IS_BELT(k)) {
        const Line *l = &lines[line_of[c]];
        return line_cells[l->cell0 + (l->len >> 2) - 1] == c ? line_exit_item(l) : 0;
    }
    if (k == K_SOURCE) return w->src[w->ent[c]].buf;
    if (k == K_ASM) return w->as[w->ent[c]].output;
    return 0;
}

static inline u32 get_state(u32 node) {
    u32 i = NODE_IDX(node);
    switch (NODE_KIND(node)) {
    case N_LINE: return lines[i].stamp == cur_t ? lines[i].state : UNKNOWN;
    case N_SRC: return src_stamp[i] == cur_t ? src_state[i] : UNKNOWN;
    default: return asm_stamp[i] == cur_t ? asm_state[i] : UNKNOWN;
    }
}

static inline void set_state(u32 node, u32 s) {
    u32 i = NODE_IDX(node);
    switch (NODE_KIND(node)) {
    case N_LINE: lines[i].stamp = cur_t; lines[i].state = (u8)s; break;
    case N_SRC: src_stamp[i] = cur_t; src_state[i] = (u8)s; break;
    default: asm_stamp[i] = cur_t; asm_state[i] = (u8)s;
    }
}

static inline const Target *node_target(u32 node) {
    u32 i = NODE_IDX(node);
    switch (NODE_KIND(node)) {
    case N_LINE: return &lines[i].tg;
    case N_SRC: return &src_tg[i];
    default: return &asm_tg[i];
    }
}

static inline void queue(u32 li) {
    if (lines[li].queued != cur_t) {
        lines[li].queued = cur_t;
        work[nwork++] = li;
    }
}

static inline void wake(u32 li) {
    if (lines[li].woken != cur_t + 1) {
        lines[li].woken = cur_t + 1;
        next_active[nnext++] = li;
    }
}

/* A source holding an item is decided each tick until it is refused; then it sleeps
 * until its target changes. */
static inline void wake_source(u32 i) {
    if (src_woken[i] != cur_t + 1) {
        src_woken[i] = cur_t + 1;
        src_next[nsrc_next++] = i;
    }
}

static inline void wake_node(u32 node) {
    if (NODE_KIND(node) == N_LINE) wake(NODE_IDX(node));
    else if (NODE_KIND(node) == N_SRC) wake_source(NODE_IDX(node));
}

static void wake_asm_contenders(u32 a) {
    for (u32 q = 0; q < 4; q++)
        if (asm_nodes[4 * a + q] != ~0u) wake_node(asm_nodes[4 * a + q]);
}

/* The head of a line takes an item this tick unless the line is full and stuck. */
static inline int head_open_static(const Line *l) { return l->back > 0 || l->n > l->k; }

/* One step of a decision: MOVES / STAYS, or CONTINUE with the (full) line waited on. */
static u32 step(World *w, u32 node, u32 *next) {
    const Target *tg = node_target(node);
    switch (tg->kind) {
    case T_SINK: return MOVES;
    case T_ASM: return (w->as[tg->idx].accmask >> tg->side) & 1 ? MOVES : STAYS;
    case T_BELT: {
        const Line *y = &lines[tg->idx];
        for (u32 j = 0; j < tg->rank; j++)
            if (node_item(w, y->cont[j])) return STAYS; /* a higher-ranked contender holds an item */
        if (head_open_static(y)) return MOVES;
        *next = NODE(N_LINE, tg->idx);
        return CONTINUE;
    }
    default: return STAYS;
    }
}

/* The exit of `node` moves this tick: hand its item over. */
static void moved(World *w, u32 node) {
    const Target *tg = node_target(node);
    u8 item = node_item(w, node);
    if (tg->kind == T_BELT) {
        lines[tg->idx].incoming = item;
        queue(tg->idx);
    } else {
        deliver(w, tg->cell, item);
        if (tg->kind == T_ASM) wake_asm_contenders(tg->idx);
    }
    if (NODE_KIND(node) == N_LINE) queue(NODE_IDX(node));
    if (NODE_KIND(node) == N_SRC) src_moved[nsrc_moved++] = NODE_IDX(node);
}

/* Decide the exit of `node` and every exit its decision waits on (greatest fixed point). */
static u32 decide(World *w, u32 node) {
    u32 cur = node, result, next = 0;
    for (;;) {
        u32 st = get_state(cur);
        if (st == MOVES || st == STAYS) {
            result = st;
            break;
        }
        if (st == PENDING) { /* back at the start: a ring of full lines rotates */
            result = FULL_RING;
            break;
        }
        set_state(cur, PENDING);
        u32 r = step(w, cur, &next);
        if (r != CONTINUE) {
            result = r;
            break;
        }
        cur = next;
    }
    cur = node;
    while (get_state(cur) == PENDING) {
        set_state(cur, result);
        if (result == MOVES) moved(w, cur);
        if (step(w, cur, &next) != CONTINUE) break;
        cur = next;
    }
    return get_state(node);
}

/* A line on the worklist: decide its exit, then let its head take from its candidate. */
static void process(World *w, u32 li) {
    Line *l = &lines[li];
    u32 exit_moves = 0;
    if (line_exit_item(l)) exit_moves = decide(w, NODE(N_LINE, li)) == MOVES;
    if (!head_open_static(l) && !exit_moves) return;
    for (u32 j = 0; j < l->ncont; j++)
        if (node_item(w, l->cont[j])) {
            decide(w, l->cont[j]);
            return;
        }
}

static inline void extend_block(Line *l) {
    while (l->k < l->n && item_gap[at(l, l->k)] == 0) l->k++;
}

/* Apply this tick's moves to a line; returns whether anything about it changed. */
static u32 update(Line *l, u32 exit_moves) {
    u32 changed = 0;
    if (l->n) {
        u32 f = at(l, 0);
        if (item_gap[f] > 0) { /* everything advances */
            l->back++;
            changed = 1;
            if (--item_gap[f] == 0) {
                l->k = 1;
                extend_block(l);
            }
        } else if (exit_moves) { /* the front leaves; everything advances */
            l->head = l->head + 1 == l->len ? 0 : l->head + 1;
            l->n--;
            l->k--;
            l->back++;
            changed = 1;
        } else if (l->k < l->n) { /* the block waits; the items behind its first gap advance */
            u32 g = at(l, l->k);
            l->back++;
            changed = 1;
            if (--item_gap[g] == 0) {
                l->k++;
                extend_block(l);
            }
        }
    }
    if (l->incoming) {
        u32 slot = at(l, l->n);
        item_type[slot] = l->incoming;
        if (l->n == 0) {
            item_gap[slot] = l->len - 1;
            l->k = 0;
        } else {
            item_gap[slot] = l->back - 1;
            if (l->k == l->n && l->back == 1) l->k++;
        }
        l->n++;
        l->back = 0;
        l->incoming = 0;
        changed = 1;
    }
    return changed;
}

static void asm_consumed(World *w, u32 a) {
    (void)w;
    wake_asm_contenders(a);
}

static void engine_tick(World *w, u32 t) {
    cur_t = t;
    u32 *sswap = src_work;
    src_work = src_next;
    src_next = sswap;
    nsrc_work = nsrc_next;
    nsrc_next = 0;
    for (u32 i = 0; i < w->nsrc; i++) { /* phase 1, noting the sources that produce */
        Source *s = &w->src[i];
        if (!s->buf && s->phase == 0) {
            s->buf = s->type;
            if (src_woken[i] != t) {
                src_woken[i] = t;
                src_work[nsrc_work++] = i;
            }
        }
        if (++s->phase == s->period) s->phase = 0;
    }
    accept_pass(w);
    /* the worklist starts as the lines woken last tick */
    u32 *swap = work;
    work = next_active;
    next_active = swap;
    nwork = nnext;
    nnext = 0;
    for (u32 i = 0; i < nwork; i++) lines[work[i]].queued = t;
    for (u32 i = 0; i < nsrc_work; i++)
        if (w->src[src_work[i]].buf) decide(w, NODE(N_SRC, src_work[i]));
    for (u32 i = 0; i < w->nas; i++)
        if (w->as[i].output) decide(w, NODE(N_ASM, i));
    for (u32 i = 0; i < nwork; i++) process(w, work[i]);
    for (u32 i = 0; i < nwork; i++) {
        u32 li = work[i];
        Line *l = &lines[li];
        u32 decided = l->stamp == t, exit_moves = decided && l->state == MOVES;
        if (update(l, exit_moves)) {
            for (u32 j = 0; j < l->ncont; j++) wake_node(l->cont[j]);
        }
        /* asleep only when compressed behind an exit that was refused this tick */
        if (l->n > l->k || (l->n && !(decided && l->state == STAYS))) wake(li);
    }
    for (u32 i = 0; i < nsrc_moved; i++) w->src[src_moved[i]].buf = 0;
    nsrc_moved = 0;
    for (u32 i = 0; i < w->nas; i++)
        if (w->as[i].output && asm_stamp[i] == t && asm_state[i] == MOVES) w->as[i].output = 0;
    craft(w, asm_consumed);
}

/* ---- building the lines ---- */

/* The node whose exit is at cell c (a belt must be its line's last belt). */
static u32 node_at(World *w, u32 c) {
    u8 k = w->kind[c];
    if (IS_BELT(k)) return NODE(N_LINE, line_of[c]);
    return NODE(k == K_SOURCE ? N_SRC : N_ASM, w->ent[c]);
}

/* Does belt b continue the line of the belt feeding it (its only contender is a belt)? */
static int continues(World *w, u32 b) {
    i32 cont[3];
    belt_contenders(w, b, cont);
    u32 n = (cont[0] >= 0) + (cont[1] >= 0) + (cont[2] >= 0);
    if (n != 1) return 0;
    i32 c = cont[0] >= 0 ? cont[0] : cont[1] >= 0 ? cont[1] : cont[2];
    return IS_BELT(w->kind[c]);
}

/* The belt after b in its line, or -1. */
static i32 successor(World *w, u32 b) {
    i32 tc;
    if (target_of(w, b, BELT_DIR(w->kind[b]), &tc) != T_BELT) return -1;
    return joins[tc] ? tc : -1;
}

static void make_target(World *w, u32 c, u32 d, Target *tg) {
    i32 tc;
    tg->kind = (u8)target_of(w, c, d, &tc);
    tg->cell = (u32)tc;
    if (tg->kind == T_ASM) {
        tg->idx = w->ent[tc];
        tg->side = (u8)OPP(d);
    } else if (tg->kind == T_BELT) {
        tg->idx = line_of[tc];
        i32 cont[3];
        belt_contenders(w, (u32)tc, cont);
        u32 r = 0;
        for (u32 j = 0; j < 3 && cont[j] != (i32)c; j++) r += cont[j] >= 0;
        tg->rank = (u8)r;
    }
}

static void build_line(World *w, u32 start, u32 *used) {
    Line *l = &lines[nlines];
    l->cell0 = *used;
    u32 c = start;
    for (;;) {
        line_of[c] = nlines;
        line_cells[(*used)++] = c;
        i32 nx = successor(w, c);
        if (nx < 0 || line_of[nx] != ~0u) break;
        c = (u32)nx;
    }
    l->len = (*used - l->cell0) * 4;
    l->back = l->len;
    nlines++;
}

static void engine_init(World *w) {
    u32 nbelts = 0;
    for (u32 c = 0; c < w->ncells; c++) nbelts += IS_BELT(w->kind[c]);
    line_of = lat_alloc((u64)w->ncells * 4 + 8);
    for (u32 c = 0; c < w->ncells; c++) line_of[c] = ~0u;
    line_cells = lat_alloc((u64)nbelts * 4 + 8);
    joins = lat_alloc(w->ncells + 8);
    u32 nl = 0;
    for (u32 c = 0; c < w->ncells; c++)
        if (IS_BELT(w->kind[c])) {
            joins[c] = (u8)continues(w, c);
            nl += !joins[c];
        }
    /* rings without a line start add at most one line per belt; count exactly below */
    lines = lat_alloc((u64)(nl + 1) * sizeof(Line));
    nlines = 0;
    u32 used = 0;
    for (u32 c = 0; c < w->ncells; c++)
        if (IS_BELT(w->kind[c]) && !joins[c]) build_line(w, c, &used);
    if (used < nbelts) { /* what is left are closed rings: one line each */
        u32 rings = 0;
        for (u32 c = 0; c < w->ncells; c++)
            if (IS_BELT(w->kind[c]) && line_of[c] == ~0u) {
                rings++;
                for (u32 x = c; line_of[x] == ~0u; x = (u32)successor(w, x)) line_of[x] = ~1u;
            }
        Line *more = lat_alloc((u64)(nl + rings + 1) * sizeof(Line));
        for (u32 i = 0; i < nlines; i++) more[i] = lines[i];
        lines = more;
        for (u32 c = 0; c < w->ncells; c++)
            if (IS_BELT(w->kind[c]) && line_of[c] == ~1u) {
                for (u32 x = c; line_of[x] == ~1u; x = (u32)successor(w, x)) line_of[x] = ~0u;
                build_line(w, c, &used);
            }
    }
    item_type = lat_alloc((u64)nbelts * 4 + 8);
    item_gap = lat_alloc((u64)nbelts * 16 + 8);
    for (u32 i = 0; i < nlines; i++) {
        Line *l = &lines[i];
        l->base = 4 * l->cell0;
        u32 last = line_cells[l->cell0 + l->len / 4 - 1], first = line_cells[l->cell0];
        make_target(w, last, BELT_DIR(w->kind[last]), &l->tg);
        i32 cont[3];
        belt_contenders(w, first, cont);
        for (u32 j = 0; j < 3; j++)
            if (cont[j] >= 0) l->cont[l->ncont++] = node_at(w, (u32)cont[j]);
    }
    src_tg = lat_alloc((u64)w->nsrc * sizeof(Target) + 8);
    src_stamp = lat_alloc((u64)w->nsrc * 4 + 8);
    src_state = lat_alloc(w->nsrc + 8);
    for (u32 i = 0; i < w->nsrc; i++) make_target(w, w->src[i].c, w->src[i].dir, &src_tg[i]);
    asm_tg = lat_alloc((u64)w->nas * sizeof(Target) + 8);
    asm_stamp = lat_alloc((u64)w->nas * 4 + 8);
    asm_state = lat_alloc(w->nas + 8);
    asm_nodes = lat_alloc((u64)w->nas * 16 + 8);
    for (u32 i = 0; i < w->nas; i++) {
        make_target(w, w->as[i].c, w->as[i].dir, &asm_tg[i]);
        for (u32 q = 0; q < 4; q++) {
            i32 nb = w->as[i].nb[q];
            asm_nodes[4 * i + q] = nb >= 0 ? node_at(w, (u32)nb) : ~0u;
        }
    }
    src_work = lat_alloc((u64)w->nsrc * 4 + 8);
    src_next = lat_alloc((u64)w->nsrc * 4 + 8);
    src_woken = lat_alloc((u64)w->nsrc * 4 + 8);
    src_moved = lat_alloc((u64)w->nsrc * 4 + 8);
    nsrc_work = nsrc_next = nsrc_moved = 0;
    work = lat_alloc((u64)nlines * 4 + 8);
    next_active = lat_alloc((u64)nlines * 4 + 8);
    nwork = nnext = 0;
}

static void engine_emit_belts(World *w, Emit *e) {
    (void)w;
    for (u32 i = 0; i < nlines; i++) {
        const Line *l = &lines[i];
        u32 pos = l->len;
        for (u32 j = 0; j < l->n; j++) {
            u32 s = at(l, j);
            pos -= item_gap[s] + 1;
            emit_belt_item(e, line_cells[l->cell0 + (pos >> 2)], pos & 3, item_type[s]);
        }
    }
}
