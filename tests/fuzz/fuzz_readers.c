/*
 * fuzz_readers.c - libFuzzer target for the file readers other than the
 * machine loader (fuzz_cfg): tune's size distributions (csv and YAML),
 * calibration data, the plot csv, and the csv reader under sweep --resume's
 * flags.
 *
 * Notes
 *  - The first byte picks the reader (modulo 5); the rest is the file's
 *    text, written to a private temporary file whose name ends as the reader
 *    wants (.csv, .yaml).
 *  - Besides crashes, hangs, leaks and UB (ASan + UBSan), it checks the
 *    readers' contracts and aborts when one is broken:
 *      - a failure sets a non-empty, one-line message;
 *      - sizes that load are ascending, distinct, whole 64-byte lines with
 *        positive weights;
 *      - calibration data that loads has 1..CAL_CASES_MAX cases with
 *        distinct ids.
 *  - Calibration data is read against zen3-epyc-7j13 (configs/), loaded
 *    once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/output/csv.h"
#include "sim/output/plot_data.h"
#include "sim/study/calibrate.h"
#include "sim/study/tune.h"

static void check(int ok)
{
    if (!ok)
        abort();
}

static void check_message(const char *err)
{
    check(err[0] != '\0' && strchr(err, '\n') == NULL);
}

static machine_t *zen3;
static char dir[64];

static int count_row(void *ctx, const csv_row_t *row, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    check(row->n == row->n_header);
    if (!row->is_header)
        (*(long *)ctx)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz_readers.XXXXXX");
        check(mkdtemp(dir) != NULL);
        char path[512], err[1024];
        snprintf(path, sizeof path, "%s/zen3-epyc-7j13.yaml", cfg_configs_dir());
        zen3 = cfg_machine_load(path, err, sizeof err);
        check(zen3 != NULL);
    }
    if (size == 0)
        return 0;
    const unsigned which = data[0] % 5;
    static const char *const ext[] = {".csv", ".yaml", ".yaml", ".csv", ".csv"};
    char path[128], err[1024] = "";
    snprintf(path, sizeof path, "%s/in%s", dir, ext[which]);
    FILE *f = fopen(path, "wb");
    check(f != NULL);
    check(fwrite(data + 1, 1, size - 1, f) == size - 1);
    check(fclose(f) == 0);

    if (which <= 1) {
        tune_size_t *v = NULL;
        size_t n = 0;
        if (tune_load_sizes(path, &v, &n, err, sizeof err) != 0) {
            check_message(err);
            check(v == NULL);
        } else {
            check(n >= 1 && n <= TUNE_SIZES_MAX);
            for (size_t i = 0; i < n; i++) {
                check(v[i].size_bytes % TUNE_LINE_BYTES == 0 && v[i].size_bytes > 0);
                check(v[i].weight > 0);
                check(i == 0 || v[i].size_bytes > v[i - 1].size_bytes);
            }
            free(v);
        }
    } else if (which == 2) {
        cal_data_t *d = cal_load(path, zen3, err, sizeof err);
        if (!d) {
            check_message(err);
        } else {
            check(d->n_cases >= 1 && d->n_cases <= CAL_CASES_MAX);
            for (size_t i = 0; i < d->n_cases; i++)
                for (size_t j = 0; j < i; j++)
                    check(strcmp(d->cases[i].id, d->cases[j].id) != 0);
            cal_destroy(d);
        }
    } else if (which == 3) {
        plot_csv_t c = {0};
        if (plot_csv_read(path, &c, err, sizeof err) != 0)
            check_message(err);
        plot_csv_free(&c);
    } else {
        long rows = 0;
        long rc =
            csv_read(path, CSV_MISSING_EMPTY | CSV_CUT_LAST, count_row, &rows, err, sizeof err);
        if (rc < 0)
            check_message(err);
        else
            check(rc == rows);
    }
    unlink(path);
    return 0;
}
