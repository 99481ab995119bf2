/* Counting inversions the naive way: every pair, O(n²). Right on every input, and fast on
 * small ones; on the larger stress cases it goes over the ceiling and is measured on the
 * runway.
 *
 * The contract (case.toml): the grader calls alloc(len), writes the input there (decimal
 * u32 values separated by whitespace), calls count_inversions(ptr, len) and reads one u64,
 * the number of pairs i < j with a[i] > a[j], at (result >> 32). */
#define EXPORT(name) __attribute__((export_name(name)))
typedef unsigned int u32;
typedef unsigned long long u64;

extern unsigned char __heap_base;
static u32 top;

/* A bump allocator over linear memory, grown as needed; nothing is ever freed. */
EXPORT("alloc") u32 alloc(u32 n) {
    if (!top) top = ((u32)&__heap_base + 7) & ~7u;
    u64 p = top, end = p + n;
    u64 have = (u64)__builtin_wasm_memory_size(0) * 65536;
    if (end > have && __builtin_wasm_memory_grow(0, (unsigned long)((end - have + 65535) / 65536)) == (unsigned long)-1)
        __builtin_trap();
    top = (u32)((end + 7) & ~7ull);
    return (u32)p;
}

/* The values in order; anything that is not a digit separates them. */
static u32 parse(const unsigned char *s, u32 len, u32 *out) {
    u32 n = 0, i = 0;
    while (i < len) {
        if (s[i] < '0' || s[i] > '9') { i++; continue; }
        u32 v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') v = v * 10 + (u32)(s[i++] - '0');
        out[n++] = v;
    }
    return n;
}

/* Compares every pair: O(n²), correct, and over the ceiling on the larger inputs. */
static u64 count(const u32 *a, u32 n) {
    u64 inversions = 0;
    for (u32 i = 0; i < n; i++)
        for (u32 j = i + 1; j < n; j++) inversions += a[i] > a[j];
    return inversions;
}

EXPORT("count_inversions") u64 count_inversions(u32 ptr, u32 len) {
    u32 most = len / 2 + 1; /* a value and its separator take at least two bytes */
    u32 *values = (u32 *)(unsigned long)alloc(most * 4);
    u32 n = parse((const unsigned char *)(unsigned long)ptr, len, values);
    u64 *out = (u64 *)(unsigned long)alloc(8);
    *out = count(values, n);
    return ((u64)(unsigned long)out << 32) | 8;
}
