/*
 * datadir.h - where clearsim's data files are (the bundled machine files and
 * size distributions under configs/, the gnuplot templates under plots/): the
 * one rule every reader of a bundled file goes through.
 *
 * Notes
 *  - The data directory is the first of:
 *      1. $CLEARSIM_DATA_DIR, when set and not empty (used as given);
 *      2. <the running binary's directory>/CLEARSIM_BIN_TO_DATA (for an
 *         installed binary ../share/clearsim), when it is a directory: the
 *         installed layout, wherever the prefix was moved;
 *      3. the source tree, when the running binary is in its build tree: the
 *         build writes DATADIR_MARKER next to the binaries, holding the
 *         source directory, and it must name the source directory compiled
 *         in (CLEARSIM_SOURCE_DIR) and that directory must have configs/;
 *      4. the compile-time install prefix's share/clearsim
 *         (CLEARSIM_INSTALL_DATADIR), whether or not it exists.
 *    The binary is found through /proc/self/exe. A copied binary without its
 *    prefix or build tree gets rule 4; the errors of the readers then name the
 *    places tried (datadir_tried).
 *  - $CLEARSIM_CONFIGS and $CLEARSIM_PLOTS still name those two directories
 *    directly (they win over the data directory).
 *  - Thread-safe: the binary's location is looked up once.
 *  - Library code: never prints.
 */
#ifndef CLEARSIM_DATADIR_H
#define CLEARSIM_DATADIR_H

/* The build sets both (CMakeLists.txt); these are for a build without it. */
#ifndef CLEARSIM_INSTALL_DATADIR
#define CLEARSIM_INSTALL_DATADIR "/usr/local/share/clearsim"
#endif
#ifndef CLEARSIM_BIN_TO_DATA
#define CLEARSIM_BIN_TO_DATA "../share/clearsim"
#endif

#include <stdbool.h>
#include <stddef.h>

/* The file the build writes next to its binaries, naming the source tree. */
#define DATADIR_MARKER "clearsim-source-dir"

/* The data directory by the rule above (never NULL). */
const char *datadir_path(void);
/* Whether datadir_path() is an existing directory. */
bool datadir_found(void);
/* The places the rule looked at, in order ("A, B, C"), for error messages. */
const char *datadir_tried(void);
/* The source tree, when the running binary is in its build tree (rule 3's
 * test, whatever $CLEARSIM_DATA_DIR says); NULL for an installed or copied
 * binary. */
const char *datadir_source_dir(void);
/* For an error about a bundled file: "" when the data directory exists,
 * else " (no clearsim data directory; tried A, B; set CLEARSIM_DATA_DIR)".
 * Into buf; returns buf. */
const char *datadir_note(char *buf, size_t len);
/* <data directory>/sub into buf (sub: "configs", "plots"). Returns buf. */
const char *datadir_sub(const char *sub, char *buf, size_t len);

#endif
