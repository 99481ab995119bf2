/* A third-party-style Lattice v1 engine: correct, self-contained, and about twice as
 * costly as the bundled reference (1.98x to 2.16x its fuel on the bundled stress cases).
 *
 * Written from the spec alone, in another style than the reference. The reference follows
 * each item's chain of waits forward once, caching each decision as it goes; this engine
 * is a defensive one that works in whole-grid passes and checks its own step. Phase 2
 * (movement) is a sweep of five passes:
 *
 *   1. label   every item SURE (its target is free), MAYBE (it waits on the item in its
 *              target slot) or STAY (refused, or not the candidate for its target);
 *   2. block   from every STAY, walk backwards through the items waiting on it and mark
 *              them STAY too; whatever is still MAYBE moves (the greatest fixed point:
 *              a closed ring of full slots, none of them blocked, rotates);
 *   3. verify  judge every item again against its target's label and trap unless the
 *              labels are a fixed point of the movement rule (§4d);
 *   4. pull    build the next grid cell by cell: each slot pulls the item that lands in
 *              it, each sink and assembler pulls the items its neighbours hand it;
 *   5. replay  push every item where its label sends it into a scratch grid and trap
 *              unless that is the pulled grid, with the same number of deliveries.
 *
 * and every tick runs the sweep twice, once visiting the grid from its first cell and once
 * from its last, and traps unless both reach the same labels, grid and deliveries (the
 * rule's fixed point must not depend on the order of the visit). The second sweep's grid is
 * kept; only it adds the deliveries to the sinks and assemblers.
 *
 * Neighbours, exit directions and the candidate of every slot 0 are computed again each
 * time they are needed (from the cell index, with a division), never cached. Sources and
 * assemblers keep their buffer / output in slot 3 of their cell, so every exit is "slot 3".
 * No libc, no imports: a bump allocator over wasm memory.
 */

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

#define EXPORT(name) __attribute__((export_name(name)))

/* ---- memory ---- */

extern unsigned char __heap_base;
static u32 brk, brk_end;

static void *grab(u64 n) {
    if (!brk) {
        brk = (u32)&__heap_base;
        brk_end = (u32)__builtin_wasm_memory_size(0) * 65536u;
    }
    u64 p = ((u64)brk + 15) & ~(u64)15;
    u64 top = p + n;
    if (top > brk_end) {
        u64 pages = (top - brk_end + 65535) / 65536;
        if (top > 0xFFFF0000ull || __builtin_wasm_memory_grow(0, (unsigned long)pages) == (unsigned long)-1)
            __builtin_trap();
        brk_end += (u32)(pages * 65536);
    }
    brk = (u32)top;
    return (void *)(unsigned long)p;
}

/* ---- the world ---- */

enum { EMPTY, WALL, BELT, SOURCE, SINK, ASSEMBLER };
enum { NORTH, EAST, SOUTH, WEST, NOWHERE };
enum { NONE, SURE, MAYBE, STAY }; /* an item's label; SURE and MAYBE move */

typedef struct {
    u8 kind, dir; /* dir: the exit's direction, NOWHERE for cells without one */
    u32 ent;      /* index of its source / sink / assembler */
} Cell;

typedef struct {
    u32 x, y, period;
    u8 dir, type;
} Source;

typedef struct {
    u32 time;
    u8 product, n, in[4], cnt[4];
} Recipe;

typedef struct {
    u32 x, y, c, time, remaining;
    u8 dir, product, n, accepted;
    u8 in[4];
    u32 cnt[4], buf[4];
} Assembler;

typedef struct {
    u64 count[256];
} Sink;

static u32 W, H, N;
static u64 T, S;
static Cell *cell;
static u8 (*now)[4];      /* the items of slots 0..3 of every cell at the start of the tick */
static u8 (*next[2])[4];  /* the next grid, as each of the two sweeps built it */
static u8 (*marks[2])[4]; /* each sweep's labels */
static u8 (*label)[4];    /* the running sweep's labels */
static u8 (*into)[4];     /* the running sweep's next grid */
static u8 (*scratch)[4];  /* pass 5's own picture of the next grid, zero between ticks */
static u32 backwards;     /* the running sweep visits the grid from its last cell */
static Recipe recipe[256];
static Source *src;
static Assembler *asm_;
static Sink *sink;
static u32 nsrc, nasm, nsink, src_cap, asm_cap;

static inline u32 opposite(u32 d) { return (d + 2) & 3; }
static inline u32 left_of(u32 d) { return (d + 3) & 3; }
static inline u32 right_of(u32 d) { return (d + 1) & 3; }

/* the cell next to c in direction d, or -1 past the edge */
static i32 neighbour(u32 c, u32 d) {
    u32 x = c % W, y = c / W;
    if (d == NORTH) return y == 0 ? -1 : (i32)(c - W);
    if (d == EAST) return x + 1 == W ? -1 : (i32)(c + 1);
    if (d == SOUTH) return y + 1 == H ? -1 : (i32)(c + W);
    return x == 0 ? -1 : (i32)(c - 1);
}

/* does the cell n (a neighbour) have an exit pointing in direction d? */
static inline int exits_towards(i32 n, u32 d) { return n >= 0 && cell[n].dir == d; }

/* the candidate for slot 0 of belt b: the first contender holding an item among the cell
 * behind, the left neighbour and the right neighbour (§4c), or -1 */
static i32 candidate(u32 b) {
    u32 d = cell[b].dir;
    i32 n = neighbour(b, opposite(d));
    if (exits_towards(n, d) && now[n][3]) return n;
    n = neighbour(b, left_of(d));
    if (exits_towards(n, right_of(d)) && now[n][3]) return n;
    n = neighbour(b, right_of(d));
    if (exits_towards(n, left_of(d)) && now[n][3]) return n;
    return -1;
}

/* the four slots of cell c in grid g as one word (0: the cell holds no item) */
static inline u32 held(u8 (*g)[4], u32 c) {
    u32 v;
    __builtin_memcpy(&v, g[c], 4);
    return v;
}

static inline void clear(u8 (*g)[4], u32 c) {
    u32 zero = 0;
    __builtin_memcpy(g[c], &zero, 4);
}

/* the i-th cell the running sweep visits */
static inline u32 cell_at(u32 i) { return backwards ? N - 1 - i : i; }

static inline int moves(u32 c, u32 s) { return label[c][s] == SURE || label[c][s] == MAYBE; }

/* ---- phase 1: production ---- */

static void produce(u64 t) {
    for (u32 i = 0; i < nsrc; i++) {
        Source *so = &src[i];
        u32 c = so->y * W + so->x;
        if (!now[c][3] && (t - 1) % so->period == 0) now[c][3] = so->type;
    }
}

/* ---- phase 2b: what every assembler takes, judged on the start of the tick ---- */

static i32 input_index(const Assembler *a, u8 type) {
    for (u32 j = 0; j < a->n; j++)
        if (a->in[j] == type) return (i32)j;
    return -1;
}

static void offers(void) {
    for (u32 i = 0; i < nasm; i++) {
        Assembler *a = &asm_[i];
        u32 taken[4] = {0, 0, 0, 0};
        a->accepted = 0;
        for (u32 q = 0; q < 4; q++) { /* N, E, S, W */
            i32 n = neighbour(a->c, q);
            if (!exits_towards(n, opposite(q)) || !now[n][3]) continue;
            i32 j = input_index(a, now[n][3]);
            if (j < 0 || a->buf[j] + taken[j] >= 2 * a->cnt[j]) continue;
            taken[j]++;
            a->accepted |= (u8)(1u << q);
        }
    }
}

/* ---- phase 2: movement ---- */

/* The label of the item at (c, s) given its target's state: SURE, MAYBE or STAY. With
 * `settled` the target's own label decides a MAYBE (the check of pass 3). */
static u32 judge(u32 c, u32 s, int settled) {
    if (cell[c].kind == BELT && s < 3) {
        if (!now[c][s + 1]) return SURE;
        if (!settled) return MAYBE;
        return moves(c, s + 1) ? MAYBE : STAY;
    }
    u32 d = cell[c].dir;
    i32 t = neighbour(c, d);
    if (t < 0) return STAY;
    switch (cell[t].kind) {
    case SINK: return SURE;
    case ASSEMBLER: return (asm_[cell[t].ent].accepted >> opposite(d)) & 1 ? SURE : STAY;
    case BELT:
        if (cell[t].dir == opposite(d) || candidate((u32)t) != (i32)c) return STAY;
        if (!now[t][0]) return SURE;
        if (!settled) return MAYBE;
        return moves((u32)t, 0) ? MAYBE : STAY;
    default: return STAY;
    }
}

/* pass 1: every item's label, every empty slot NONE */
static void label_items(void) {
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        clear(label, c); /* NONE */
        if (!held(now, c)) continue;
        u8 k = cell[c].kind;
        if (k == BELT) {
            for (u32 s = 0; s < 4; s++)
                if (now[c][s]) label[c][s] = (u8)judge(c, s, 0);
        } else if ((k == SOURCE || k == ASSEMBLER) && now[c][3]) {
            label[c][3] = (u8)judge(c, 3, 0);
        }
    }
}

/* pass 2: a staying item blocks the item waiting on its slot, and so on backwards */
static void block_from(u32 c, u32 s) {
    for (;;) {
        i32 pc;
        u32 ps;
        if (cell[c].kind != BELT) return; /* nothing waits on a source's or assembler's exit */
        if (s > 0) {
            pc = (i32)c;
            ps = s - 1;
        } else {
            pc = candidate(c);
            ps = 3;
            if (pc < 0) return;
        }
        if (!now[pc][ps] || label[pc][ps] != MAYBE) return;
        label[pc][ps] = STAY;
        c = (u32)pc;
        s = ps;
    }
}

static void block(void) {
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        if (!held(now, c)) continue;
        for (u32 s = 0; s < 4; s++)
            if (now[c][s] && label[c][s] == STAY) block_from(c, s);
    }
}

/* pass 3: every label must follow from its target's (the rule of §4d) */
static void verify(void) {
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        if (!held(now, c)) continue;
        u8 k = cell[c].kind;
        for (u32 s = 0; s < 4; s++) {
            if (!now[c][s]) continue;
            if (k != BELT && (s < 3 || (k != SOURCE && k != ASSEMBLER))) __builtin_trap();
            u32 want = judge(c, s, 1), got = label[c][s];
            if ((want == STAY) != (got == STAY)) __builtin_trap();
        }
    }
}

/* pass 4: the next grid, each cell pulling what lands in it; with `deliver` the items
 * handed to sinks and assemblers are counted there too (only one sweep does) */
static u64 pull(int deliver) {
    u64 handed = 0;
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        u8 k = cell[c].kind;
        if (k == BELT) {
            for (u32 s = 3; s > 0; s--) {
                if (now[c][s] && !moves(c, s))
                    into[c][s] = now[c][s];
                else if (now[c][s - 1] && moves(c, s - 1))
                    into[c][s] = now[c][s - 1];
                else
                    into[c][s] = 0;
            }
            if (now[c][0] && !moves(c, 0)) {
                into[c][0] = now[c][0];
            } else {
                i32 from = candidate(c);
                into[c][0] = from >= 0 && moves((u32)from, 3) ? now[from][3] : 0;
            }
        } else if (k == SOURCE || k == ASSEMBLER) {
            into[c][3] = now[c][3] && !moves(c, 3) ? now[c][3] : 0;
        }
        if (k == SINK || k == ASSEMBLER) {
            for (u32 q = 0; q < 4; q++) {
                i32 n = neighbour(c, q);
                if (!exits_towards(n, opposite(q)) || !now[n][3] || !moves((u32)n, 3)) continue;
                u8 item = now[n][3];
                handed++;
                if (!deliver) continue;
                if (k == SINK) {
                    sink[cell[c].ent].count[item]++;
                } else {
                    Assembler *a = &asm_[cell[c].ent];
                    a->buf[input_index(a, item)]++;
                }
            }
        }
    }
    return handed;
}

/* pass 5: replay the tick item by item, pushing each item where its label sends it (where
 * pass 4 pulled), and trap unless both give the same grid and the same deliveries */
static void replay(u64 handed) {
    u64 delivered = 0;
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        if (!held(now, c)) continue;
        for (u32 s = 0; s < 4; s++) {
            u8 item = now[c][s];
            if (!item) continue;
            u32 to = c, slot = s;
            if (moves(c, s)) {
                if (cell[c].kind == BELT && s < 3) {
                    slot = s + 1;
                } else {
                    i32 t = neighbour(c, cell[c].dir);
                    if (t < 0) __builtin_trap();
                    if (cell[t].kind != BELT) {
                        delivered++;
                        continue;
                    }
                    to = (u32)t;
                    slot = 0;
                }
            }
            if (scratch[to][slot]) __builtin_trap(); /* two items in one slot */
            scratch[to][slot] = item;
        }
    }
    if (delivered != handed) __builtin_trap();
    for (u32 i = 0; i < N; i++) {
        u32 c = cell_at(i);
        if (held(scratch, c) != held(into, c)) __builtin_trap();
        clear(scratch, c);
    }
}

/* One sweep of phase 2 over the grid in one direction; the second sweep's grid is the one
 * kept, and only it applies the deliveries. */
static u64 sweep(u32 which) {
    backwards = which;
    label = marks[which];
    into = next[which];
    label_items();
    block();
    verify();
    u64 handed = pull(which == 1);
    replay(handed);
    return handed;
}

/* Both sweeps must reach the same decisions, the same grid and the same deliveries: the
 * movement rule's fixed point does not depend on the order the grid is visited in. */
static void agree(u64 handed_first, u64 handed_second) {
    if (handed_first != handed_second) __builtin_trap();
    for (u32 c = 0; c < N; c++) {
        if (held(next[0], c) != held(next[1], c)) __builtin_trap();
        if (!held(now, c)) continue;
        for (u32 s = 0; s < 4; s++)
            if ((marks[0][c][s] == STAY) != (marks[1][c][s] == STAY)) __builtin_trap();
    }
}

static void move(void) {
    u64 first = sweep(0);
    u64 second = sweep(1);
    agree(first, second);
    u8 (*old)[4] = now;
    now = next[1];
    next[1] = old;
}

/* ---- phase 3: crafting ---- */

static void craft(void) {
    for (u32 i = 0; i < nasm; i++) {
        Assembler *a = &asm_[i];
        if (a->remaining > 0 && --a->remaining == 0) now[a->c][3] = a->product;
        if (a->remaining || now[a->c][3]) continue;
        u32 ready = 1;
        for (u32 j = 0; j < a->n; j++)
            if (a->buf[j] < a->cnt[j]) ready = 0;
        if (!ready) continue;
        for (u32 j = 0; j < a->n; j++) a->buf[j] -= a->cnt[j];
        a->remaining = a->time;
    }
}

static void tick(u64 t) {
    produce(t);
    offers();
    move();
    craft();
}

/* ---- state: the checksum's terms (§5) or the records (§8) ---- */

static inline u64 mix(u64 z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct {
    u64 sum;   /* the checksum's accumulator */
    u64 *out;  /* records, when not 0 */
    u64 count; /* records seen */
} Terms;

static void term(Terms *e, u64 key, u64 value) {
    u64 kind = key >> 56;
    e->sum += (kind == 3 || kind == 6) ? mix(mix(key) + value) : mix(key);
    if (e->out) {
        e->out[2 * e->count] = key;
        e->out[2 * e->count + 1] = value;
    }
    e->count++;
}

static void state(Terms *e) {
    for (u32 c = 0; c < N; c++) {
        u64 at = (u64)c << 16;
        switch (cell[c].kind) {
        case BELT:
            for (u32 s = 0; s < 4; s++)
                if (now[c][s]) term(e, 1ull << 56 | at | (u64)s << 8 | now[c][s], 1);
            break;
        case SOURCE:
            if (now[c][3]) term(e, 2ull << 56 | at | now[c][3], 1);
            break;
        case SINK:
            for (u32 k = 1; k < 256; k++)
                if (sink[cell[c].ent].count[k]) term(e, 3ull << 56 | at | k, sink[cell[c].ent].count[k]);
            break;
        case ASSEMBLER: {
            Assembler *a = &asm_[cell[c].ent];
            term(e, 4ull << 56 | at | a->remaining, 1);
            if (now[c][3]) term(e, 5ull << 56 | at | now[c][3], 1);
            for (u32 j = 0; j < a->n; j++)
                if (a->buf[j]) term(e, 6ull << 56 | at | a->in[j], a->buf[j]);
            break;
        }
        default: break;
        }
    }
}

/* ---- the scenario (§6; the grader has validated it) ---- */

typedef struct {
    const u8 *p, *end;
} Text;

static int blank(u8 ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* the next word of the line into [*w, *w + length), 0 at the line's end */
static u32 word(Text *tx, const u8 **w) {
    while (tx->p < tx->end && blank(*tx->p)) tx->p++;
    *w = tx->p;
    while (tx->p < tx->end && *tx->p != '\n' && !blank(*tx->p)) tx->p++;
    return (u32)(tx->p - *w);
}

static void skip_line(Text *tx) {
    while (tx->p < tx->end && *tx->p++ != '\n') {
    }
}

static int same(const u8 *w, u32 n, const char *lit) {
    for (u32 i = 0; i < n; i++)
        if (!lit[i] || lit[i] != (char)w[i]) return 0;
    return !lit[n];
}

/* the decimal number at the start of w; *used (when given) receives its digit count */
static u64 decimal(const u8 *w, u32 n, u32 *used) {
    u64 v = 0;
    u32 i = 0;
    for (; i < n && w[i] >= '0' && w[i] <= '9'; i++) v = v * 10 + (u64)(w[i] - '0');
    if (used) *used = i;
    return v;
}

static u64 next_number(Text *tx) {
    const u8 *w;
    u32 n = word(tx, &w);
    return decimal(w, n, 0);
}

static u8 next_dir(Text *tx) {
    const u8 *w;
    word(tx, &w);
    return *w == 'N' ? NORTH : *w == 'E' ? EAST : *w == 'S' ? SOUTH : WEST;
}

static void *grow(void *old, u32 count, u32 *cap, u32 size) {
    if (count < *cap) return old;
    u32 more = *cap ? *cap * 2 : 64;
    u8 *fresh = grab((u64)more * size);
    for (u64 i = 0; i < (u64)count * size; i++) fresh[i] = ((u8 *)old)[i];
    *cap = more;
    return fresh;
}

static void load(const u8 *data, u32 len) {
    Text tx = {data, data + len};
    u32 *recipe_of = 0; /* the assemblers' recipe ids: a recipe may be defined after its user */
    nsrc = nasm = nsink = src_cap = asm_cap = 0;
    src = 0;
    asm_ = 0;
    for (u32 i = 0; i < 256; i++) recipe[i].n = 0;
    u32 rid_cap = 0;
    while (tx.p < tx.end) {
        const u8 *w;
        u32 n = word(&tx, &w);
        if (!n || *w == '#') {
            skip_line(&tx);
            continue;
        }
        if (same(w, n, "grid")) {
            skip_line(&tx);
            break;
        }
        if (same(w, n, "size")) {
            W = (u32)next_number(&tx);
            H = (u32)next_number(&tx);
        } else if (same(w, n, "ticks")) {
            T = next_number(&tx);
        } else if (same(w, n, "snapshot")) {
            S = next_number(&tx);
        } else if (same(w, n, "recipe")) {
            Recipe *r = &recipe[next_number(&tx) & 255];
            r->product = (u8)next_number(&tx);
            r->time = (u32)next_number(&tx);
            r->n = 0;
            const u8 *pair;
            u32 m;
            while (r->n < 4 && (m = word(&tx, &pair)) != 0) {
                u32 used;
                r->in[r->n] = (u8)decimal(pair, m, &used);
                r->cnt[r->n] = (u8)decimal(pair + used + 1, m - used - 1, 0);
                r->n++;
            }
        } else if (same(w, n, "source")) {
            src = grow(src, nsrc, &src_cap, sizeof(Source));
            Source *so = &src[nsrc++];
            so->x = (u32)next_number(&tx);
            so->y = (u32)next_number(&tx);
            so->dir = next_dir(&tx);
            so->type = (u8)next_number(&tx);
            so->period = (u32)next_number(&tx);
        } else if (same(w, n, "assembler")) {
            asm_ = grow(asm_, nasm, &asm_cap, sizeof(Assembler));
            recipe_of = grow(recipe_of, nasm, &rid_cap, sizeof(u32));
            Assembler *a = &asm_[nasm];
            a->x = (u32)next_number(&tx);
            a->y = (u32)next_number(&tx);
            a->dir = next_dir(&tx);
            recipe_of[nasm++] = (u32)next_number(&tx) & 255;
        }
        skip_line(&tx);
    }
    N = W * H;
    cell = grab((u64)N * sizeof(Cell) + 16);
    now = grab((u64)N * 4 + 16);
    for (u32 i = 0; i < 2; i++) {
        next[i] = grab((u64)N * 4 + 16);
        marks[i] = grab((u64)N * 4 + 16);
    }
    scratch = grab((u64)N * 4 + 16);
    for (u32 y = 0; y < H; y++) {
        for (u32 x = 0; x < W; x++) {
            u8 ch = tx.p < tx.end ? *tx.p : '.';
            if (tx.p < tx.end && ch != '\n') tx.p++;
            Cell *ce = &cell[y * W + x];
            ce->dir = NOWHERE;
            ce->kind = EMPTY;
            if (ch == '#') ce->kind = WALL;
            if (ch == '^' || ch == '>' || ch == 'v' || ch == '<') {
                ce->kind = BELT;
                ce->dir = ch == '^' ? NORTH : ch == '>' ? EAST : ch == 'v' ? SOUTH : WEST;
            }
            if (ch == 'S') ce->kind = SOURCE;
            if (ch == 'A') ce->kind = ASSEMBLER;
            if (ch == 'K') {
                ce->kind = SINK;
                ce->ent = nsink++;
            }
        }
        skip_line(&tx);
    }
    sink = grab((u64)nsink * sizeof(Sink) + 16);
    for (u32 i = 0; i < nsrc; i++) {
        Cell *ce = &cell[src[i].y * W + src[i].x];
        ce->ent = i;
        ce->dir = src[i].dir;
    }
    for (u32 i = 0; i < nasm; i++) {
        Assembler *a = &asm_[i];
        const Recipe *r = &recipe[recipe_of[i]];
        a->c = a->y * W + a->x;
        a->time = r->time;
        a->product = r->product;
        a->n = r->n;
        a->remaining = 0;
        for (u32 j = 0; j < 4; j++) {
            a->in[j] = j < r->n ? r->in[j] : 0;
            a->cnt[j] = j < r->n ? r->cnt[j] : 0;
            a->buf[j] = 0;
        }
        cell[a->c].ent = i;
        cell[a->c].dir = a->dir;
    }
}

/* ---- exports (§7, §8, and the playback's stepping) ---- */

static inline u64 packed(void *p, u64 len) { return (u64)(u32)(unsigned long)p << 32 | len; }

EXPORT("alloc") u32 alloc(u32 len) { return (u32)(unsigned long)grab(len); }

EXPORT("lattice_run") u64 lattice_run(u32 ptr, u32 len) {
    load((const u8 *)(unsigned long)ptr, len);
    u64 shots = T / S, k = 0;
    u64 *out = grab(shots * 8 + 8);
    for (u64 t = 1; t <= T; t++) {
        tick(t);
        if (t % S == 0) {
            Terms e = {0, 0, 0};
            state(&e);
            out[k++] = mix(e.sum ^ t);
        }
    }
    return packed(out, shots * 8);
}

static u64 *kept;     /* the records' buffer, reused: the bump allocator never frees */
static u64 kept_cap; /* in records */

static u64 records_now(void) {
    Terms e = {0, 0, 0};
    state(&e);
    if (e.count > kept_cap) {
        kept_cap = e.count + e.count / 4;
        kept = grab(kept_cap * 16 + 8);
    }
    u64 *out = kept;
    e.out = out;
    e.count = 0;
    state(&e);
    return packed(out, e.count * 16);
}

EXPORT("lattice_records") u64 lattice_records(u32 ptr, u32 len, i64 upto) {
    load((const u8 *)(unsigned long)ptr, len);
    for (i64 t = 1; t <= upto; t++) tick((u64)t);
    return records_now();
}

static u64 live_tick;

EXPORT("lattice_begin") u32 lattice_begin(u32 ptr, u32 len) {
    load((const u8 *)(unsigned long)ptr, len);
    live_tick = 0;
    return 0;
}

EXPORT("lattice_step") u32 lattice_step(u32 ticks) {
    for (u32 i = 0; i < ticks; i++) tick(++live_tick);
    return (u32)live_tick;
}

EXPORT("lattice_records_now") u64 lattice_records_now(void) { return records_now(); }
