/*
 * suggest.h - "did you mean": the one nearest-name helper for every name a
 * user types (machines, functions, commands, options, choices, machine-file
 * keys).
 *
 * Notes
 *  - A candidate is near when the word is a prefix of it or a part of it
 *    between separators ('-', '_', '.'), or when the two differ by at most
 *    SUGGEST_MAX_EDITS edits (Levenshtein distance, case-insensitive) and
 *    3 x edits is at most the word's length + 2 (one edit in a word of one
 *    letter, two in four, three in seven or more). Of several, the one with
 *    the fewest edits wins, then the shortest, then the first offered.
 *  - suggest_t is a small value the caller keeps on its stack: init it,
 *    offer each candidate, then read the best. It keeps a pointer to the
 *    best candidate, so candidates must outlive it (or be copied with
 *    suggest_copy).
 */
#ifndef CLEARSIM_SUGGEST_H
#define CLEARSIM_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#define SUGGEST_MAX_EDITS 3
#define SUGGEST_NAME_MAX  256 /* longer words and candidates are never near */

typedef struct suggest {
    const char *word; /* what the user typed */
    const char *best; /* the nearest candidate so far, or NULL */
    size_t best_score;
    size_t best_len;
} suggest_t;

void suggest_init(suggest_t *s, const char *word);
/* Consider one candidate (NULL is ignored). True when it is now the best. */
bool suggest_offer(suggest_t *s, const char *candidate);
/* Copy the best candidate into buf and keep that copy as the best, for a
 * caller that reuses the candidate's buffer. */
void suggest_keep(suggest_t *s, char *buf, size_t len);
/* The nearest candidate offered, or NULL when none is near. */
const char *suggest_best(const suggest_t *s);
/* The best candidate copied into buf (so that it outlives its list), or
 * NULL (buf is then ""). */
const char *suggest_copy(const suggest_t *s, char *buf, size_t len);

/* The nearest of n names (names may be NULL-terminated when n is SIZE_MAX). */
const char *suggest_nearest(const char *word, const char *const *names, size_t n);
/* The Levenshtein distance of a and b, case-insensitive; SIZE_MAX when
 * either is longer than SUGGEST_NAME_MAX. */
size_t suggest_distance(const char *a, const char *b);

/* " (did you mean 'X'?)" for best, or "" for NULL: for the end of a message. */
const char *suggest_hint(const char *best, char *buf, size_t len);

#endif
