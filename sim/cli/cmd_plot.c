/*
 * cmd_plot.c - `clearsim plot`: read a csv that clearsim wrote (sweep,
 * tune, or a crosscheck csv), write gnuplot's data file, and run gnuplot
 * with a template from plots/ to make a PNG or SVG image.
 *
 * Notes
 *  - The kinds, the csv columns they read and the data file:
 *    sim/output/plot_data.c.
 *  - The templates are $CLEARSIM_PLOTS/<kind>.gp, else the data directory's
 *    plots/ (sim/machine/datadir.h). gnuplot is $CLEARSIM_GNUPLOT, else `gnuplot` on PATH. It runs
 *    with its variables given by -e (no shell), writes into a private
 *    temporary directory, and the image is then copied to --output through
 *    sim/output/outfile.c (atomic). gnuplot's own messages are kept and the first
 *    one is shown in the one-line error.
 *  - Exit status: 0 success, 1 runtime error (no gnuplot, an unreadable or
 *    bad csv, gnuplot failed, output), 2 usage error.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cli/cmd_common.h"
#include "sim/cli/options.h"
#include "sim/cli/commands.h"
#include "sim/machine/datadir.h"
#include "sim/machine/optval.h"
#include "models/base/errbuf.h"
#include "sim/output/outfile.h"
#include "sim/output/plot_data.h"
#include "sim/machine/units.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("plot", __VA_ARGS__)

void cmd_plot_usage(FILE *out)
{
    fputs("usage: clearsim plot --input CSV --output FILE.png|FILE.svg [options]\n"
          "\n"
          "Draw a csv written by clearsim with gnuplot (templates in the data directory's\n"
          "plots/, see 'clearsim --help').\n"
          "\n"
          "  -i, --input CSV     the csv to draw\n"
          "  -o, --output FILE   the image: .png or .svg (written atomically)\n"
          "      --kind K        throughput (default): GB/sec against size per function,\n"
          "                        from 'clearsim sweep'\n"
          "                      predicted-vs-native: predicted against measured, with\n"
          "                        y = x (columns predicted_bytes_per_sec,\n"
          "                        measured_bytes_per_sec, optional function)\n"
          "                      tuning: GB/sec per strategy, with and without the\n"
          "                        re-fetch, from 'clearsim tune --format csv'\n"
          "                      machines: one bar per machine, from 'clearsim sweep\n"
          "                        --sweep machine=A,B,...'\n"
          "                      validation: predicted against published, log-log, one\n"
          "                        colour per machine, y = x and a 15% band, from\n"
          "                        'clearsim validate --format csv'\n"
          "      --title TEXT    the plot's title\n"
          "  -h, --help          show this help\n"
          "\n"
          "Needs gnuplot (Debian: gnuplot-nox); $CLEARSIM_GNUPLOT overrides the program and\n"
          "$CLEARSIM_PLOTS the template folder. Rows with an 'error' are left out.\n",
          out);
}

/* ------------------------------------------------------------------------ */
/* gnuplot                                                                   */

/* The gnuplot program, or NULL. */
static const char *find_gnuplot(char *buf, size_t len)
{
    const char *env = getenv("CLEARSIM_GNUPLOT");
    if (env && env[0])
        return access(env, X_OK) == 0 ? env : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l > 0 && l + 9 < len) {
            snprintf(buf, len, "%.*s/gnuplot", (int)l, p);
            if (access(buf, X_OK) == 0)
                return buf;
        }
        if (!c)
            return NULL;
        p = c + 1;
    }
}

/* s as a gnuplot single-quoted string body ('' for '). */
static void gp_quote(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 3 < len; s++) {
        if ((unsigned char)*s < 0x20)
            continue;
        if (*s == '\'')
            buf[o++] = '\'';
        buf[o++] = *s;
    }
    buf[o] = '\0';
}

/* Run gnuplot; 0, or -1 with its first message. */
static int run_gnuplot(const char *prog, const char *script, const char *vars, const char *logf,
                       char *err, size_t errlen)
{
    pid_t pid = fork();
    if (pid < 0)
        return errbuf_set(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        FILE *lf = freopen(logf, "w", stderr);
        (void)lf;
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin))
            _exit(126);
        execl(prog, prog, "-e", vars, script, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return errbuf_set(err, errlen, "waiting for gnuplot: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char msg[300] = "";
    FILE *lf = fopen(logf, "r");
    if (lf) {
        char line[300];
        while (fgets(line, sizeof line, lf)) {
            char *s = line + strspn(line, " \t^");
            s[strcspn(s, "\r\n")] = '\0';
            if (*s) {
                snprintf(msg, sizeof msg, "%s", s);
                if (strstr(s, "rror") || strstr(s, "annot"))
                    break;
            }
        }
        fclose(lf);
    }
    if (WIFEXITED(st))
        return errbuf_set(err, errlen, "gnuplot failed (exit %d)%s%s", WEXITSTATUS(st),
                          msg[0] ? ": " : "", msg);
    return errbuf_set(err, errlen, "gnuplot was killed by signal %d", WTERMSIG(st));
}

static int copy_out(const char *from, const char *to, char *err, size_t errlen)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return errbuf_set(err, errlen, "gnuplot wrote no image");
    outfile_t *of = outfile_open(to, err, errlen);
    if (!of) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n, total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        total += n;
        if (fwrite(buf, 1, n, outfile_fp(of)) != n)
            break;
    }
    bool bad = ferror(in) || ferror(outfile_fp(of));
    fclose(in);
    if (bad || total == 0) {
        outfile_abort(of);
        return errbuf_set(err, errlen,
                          total == 0 ? "gnuplot wrote an empty image"
                                     : "cannot copy the image to --output");
    }
    return outfile_commit(of, err, errlen);
}

/* ------------------------------------------------------------------------ */

typedef struct plot_args {
    const char *input, *output, *title;
    int kind;
} plot_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    plot_args_t *a = ctx;
    switch (id) {
    case CLI_O_INPUT:
        return optval_text(opt, arg, "a file name", &a->input, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    case CLI_O_TITLE:
        a->title = arg;
        return 0;
    case CLI_O_KIND:
        return optval_choice(opt, arg, plot_kind_names, &a->kind, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

int cmd_plot_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_INPUT, CLI_O_OUTPUT, CLI_O_KIND, CLI_O_TITLE, CLI_O_END};
    char err[ERR_LEN] = "";
    plot_args_t a = {.title = "", .kind = K_THROUGHPUT};
    cli_spec_t spec = {opts, NULL, NULL, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, err, sizeof err)) {
    case CLI_HELP:
        cmd_plot_usage(stdout);
        return cmd_finish_stdout("plot");
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        return CMD_EXIT_USAGE;
    }
    const char *input = a.input, *output = a.output, *title = a.title;
    int kind = a.kind;
    if (!input || !output) {
        errorf("%s is required", !input ? "--input CSV" : "--output FILE.png|FILE.svg");
        return CMD_EXIT_USAGE;
    }
    const char *dot = strrchr(output, '.');
    const char *fmt = dot && strcmp(dot, ".png") == 0   ? "png"
                      : dot && strcmp(dot, ".svg") == 0 ? "svg"
                                                        : NULL;
    if (!fmt) {
        errorf("--output '%.64s': the file name must end in .png or .svg", output);
        return CMD_EXIT_USAGE;
    }
    char gpbuf[4096];
    const char *gnuplot = find_gnuplot(gpbuf, sizeof gpbuf);
    if (!gnuplot) {
        errorf("gnuplot not found%s; install it (Debian: apt-get install gnuplot-nox)",
               getenv("CLEARSIM_GNUPLOT") ? " at $CLEARSIM_GNUPLOT" : " on PATH");
        return CMD_EXIT_RUNTIME;
    }
    const char *plots = getenv("CLEARSIM_PLOTS");
    char plotsdir[4096], script[4200];
    char note[1024] = "";
    if (plots && plots[0])
        snprintf(plotsdir, sizeof plotsdir, "%s", plots);
    else {
        datadir_sub("plots", plotsdir, sizeof plotsdir);
        datadir_note(note, sizeof note);
    }
    snprintf(script, sizeof script, "%s/%s.gp", plotsdir, name_of(plot_kind_names, kind));
    if (access(script, R_OK) != 0) {
        errorf("template %s: %s%s", script, strerror(errno), note);
        return CMD_EXIT_RUNTIME;
    }

    plot_csv_t csv;
    if (plot_csv_read(input, &csv, err, sizeof err) != 0) {
        errorf("%s", err);
        return CMD_EXIT_RUNTIME;
    }
    plot_in_t in = {.path = input, .c = &csv, .err_col = plot_csv_col(&csv, "error")};
    int rc = CMD_EXIT_RUNTIME;
    const char *tmp = getenv("TMPDIR");
    char dir[4096], datafile[4200], img[4200], logf[4200];
    snprintf(dir, sizeof dir, "%s/clearsim-plot.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        errorf("cannot create a temporary directory in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
               strerror(errno));
        plot_csv_free(&csv);
        return CMD_EXIT_RUNTIME;
    }
    snprintf(datafile, sizeof datafile, "%s/data.dat", dir);
    snprintf(img, sizeof img, "%s/image.%s", dir, fmt);
    snprintf(logf, sizeof logf, "%s/gnuplot.log", dir);
    FILE *df = fopen(datafile, "w");
    size_t nseries = 0;
    char extra[4096];
    if (!df) {
        errorf("cannot write %s: %s", datafile, strerror(errno));
        goto cleanup;
    }
    int wr =
        plot_write_data(df, (plot_kind_t)kind, &in, &nseries, extra, sizeof extra, err, sizeof err);
    if (fclose(df) != 0 && wr == 0)
        wr = errbuf_set(err, sizeof err, "cannot write %s", datafile);
    if (wr != 0) {
        errorf("%s", err);
        goto cleanup;
    }
    char q_data[8400], q_img[8400], q_title[1024], q_dir[8400];
    gp_quote(datafile, q_data, sizeof q_data);
    gp_quote(img, q_img, sizeof q_img);
    gp_quote(title, q_title, sizeof q_title);
    gp_quote(plotsdir, q_dir, sizeof q_dir);
    size_t vlen =
        strlen(q_data) + strlen(q_img) + strlen(q_title) + strlen(q_dir) + strlen(extra) + 512;
    char *vars = malloc(vlen);
    if (!vars) {
        errorf("out of memory");
        goto cleanup;
    }
    snprintf(vars, vlen,
             "datafile='%s'; outfile='%s'; fmt='%s'; plottitle='%s'; nseries=%zu; "
             "plotsdir='%s'; %s",
             q_data, q_img, fmt, q_title, nseries, q_dir, extra);
    int g = run_gnuplot(gnuplot, script, vars, logf, err, sizeof err);
    free(vars);
    if (g != 0 || copy_out(img, output, err, sizeof err) != 0) {
        errorf("%s", err);
        goto cleanup;
    }
    rc = CMD_EXIT_OK;
cleanup:
    unlink(datafile);
    unlink(img);
    unlink(logf);
    rmdir(dir);
    plot_csv_free(&csv);
    return rc;
}
