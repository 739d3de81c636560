/*
 * cg_clear.c - the peer side of bench/run's cachegrind comparison: clear a
 * buffer the way `clearsim run -f unrolled` models it, so that cachegrind
 * simulates the same lines.
 *
 * Notes
 *  - Like clearsim's memset workload (sim/engine/workload.c), the buffer is
 *    first written once with 0xff by the same kernel (warm-up), then cleared
 *    with it: 8-byte stores, eight per 64-byte line (clear_page_orig's
 *    pattern), through a volatile pointer so that the compiler keeps them as
 *    single 8-byte stores. The warm-up is not a libc memset: valgrind runs
 *    glibc's as one-byte rep stosb stores, eight times the references of the
 *    clear for the same lines.
 *  - Both passes are simulated by cachegrind, as both are by clearsim: the
 *    line count per run is 2 x bytes / 64, of which bytes / 64 measured.
 *  - usage: cg_clear [BYTES] (default 256 MiB). Prints one checksum word so
 *    the work cannot be optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Write `bytes` at w with `v`: eight 8-byte stores per line. */
static void clear(volatile uint64_t *w, uint64_t bytes, uint64_t v)
{
    for (uint64_t i = 0; i < bytes / 8; i += 8) {
        w[i + 0] = v;
        w[i + 1] = v;
        w[i + 2] = v;
        w[i + 3] = v;
        w[i + 4] = v;
        w[i + 5] = v;
        w[i + 6] = v;
        w[i + 7] = v;
    }
}

int main(int argc, char **argv)
{
    uint64_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (256ull << 20);
    bytes &= ~(uint64_t)63;
    if (bytes == 0) {
        fprintf(stderr, "cg_clear: size must be at least 64 bytes\n");
        return 2;
    }
    unsigned char *buf = aligned_alloc(64, bytes);
    if (buf == NULL) {
        fprintf(stderr, "cg_clear: out of memory\n");
        return 1;
    }
    volatile uint64_t *w = (volatile uint64_t *)(void *)buf;
    clear(w, bytes, ~(uint64_t)0); /* warm-up */
    clear(w, bytes, 0);
    printf("%llu\n", (unsigned long long)(w[0] + w[bytes / 8 - 1]));
    free(buf);
    return 0;
}
