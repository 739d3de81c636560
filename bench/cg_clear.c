/*
 * cg_clear.c - the peer side of bench/run's cachegrind comparison: clear a
 * buffer the way `clearsim run -f unrolled` models it, so that cachegrind
 * simulates the same lines.
 *
 * Notes
 *  - Like perf bench mem memset (and clearsim's memset workload), the buffer
 *    is first written once with 0xff (warm-up, memset), then cleared with
 *    8-byte stores, eight per 64-byte line (clear_page_orig's pattern). The
 *    stores go through a volatile pointer so the compiler keeps them as
 *    single 8-byte stores.
 *  - Both passes are simulated by cachegrind, as both are by clearsim: the
 *    line count per run is 2 x bytes / 64.
 *  - usage: cg_clear [BYTES] (default 256 MiB). Prints one checksum word so
 *    the work cannot be optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    memset(buf, 0xff, bytes);
    volatile uint64_t *w = (volatile uint64_t *)(void *)buf;
    for (uint64_t i = 0; i < bytes / 8; i += 8) {
        w[i + 0] = 0;
        w[i + 1] = 0;
        w[i + 2] = 0;
        w[i + 3] = 0;
        w[i + 4] = 0;
        w[i + 5] = 0;
        w[i + 6] = 0;
        w[i + 7] = 0;
    }
    printf("%llu\n", (unsigned long long)(w[0] + w[bytes / 8 - 1]));
    free(buf);
    return 0;
}
