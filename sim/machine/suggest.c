/*
 * suggest.c - the nearest-name helper (see suggest.h).
 */
#include "sim/machine/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

size_t suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SUGGEST_NAME_MAX || lb > SUGGEST_NAME_MAX)
        return SIZE_MAX;
    size_t prev[SUGGEST_NAME_MAX + 1], cur[SUGGEST_NAME_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            bool same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1, sub = prev[j - 1] + !same;
            size_t best = del < ins ? del : ins;
            cur[j] = sub < best ? sub : best;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

static bool is_sep(char c)
{
    return c == '-' || c == '_' || c == '.';
}

/* The word is the candidate's prefix, or a run of its parts between
 * separators (case-insensitive). */
static bool is_part(const char *word, const char *cand)
{
    size_t lw = strlen(word), lc = strlen(cand);
    if (lw == 0 || lw >= lc)
        return false;
    for (size_t at = 0; at + lw <= lc; at++) {
        if (at > 0 && !is_sep(cand[at - 1]))
            continue;
        if (strncasecmp(cand + at, word, lw) == 0 &&
            (at == 0 || at + lw == lc || is_sep(cand[at + lw])))
            return true;
    }
    return false;
}

void suggest_init(suggest_t *s, const char *word)
{
    s->word = word ? word : "";
    s->best = NULL;
    s->best_score = SIZE_MAX;
    s->best_len = SIZE_MAX;
}

bool suggest_offer(suggest_t *s, const char *cand)
{
    if (!cand || !cand[0] || strcasecmp(cand, s->word) == 0)
        return false;
    size_t lw = strlen(s->word), lc = strlen(cand);
    size_t score;
    if (is_part(s->word, cand)) {
        score = 0; /* a prefix or a whole part is nearer than any edit */
    } else {
        size_t d = suggest_distance(s->word, cand);
        if (d == SIZE_MAX || d > SUGGEST_MAX_EDITS || 3 * d > lw + 2)
            return false;
        score = d;
    }
    if (score < s->best_score || (score == s->best_score && lc < s->best_len)) {
        s->best = cand;
        s->best_score = score;
        s->best_len = lc;
        return true;
    }
    return false;
}

void suggest_keep(suggest_t *s, char *buf, size_t len)
{
    if (s->best && s->best != buf && len) {
        snprintf(buf, len, "%s", s->best);
        s->best = buf;
    }
}

const char *suggest_best(const suggest_t *s)
{
    return s->best;
}

const char *suggest_copy(const suggest_t *s, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!s->best || !len)
        return NULL;
    snprintf(buf, len, "%s", s->best);
    return buf;
}

const char *suggest_nearest(const char *word, const char *const *names, size_t n)
{
    suggest_t s;
    suggest_init(&s, word);
    for (size_t i = 0; i < n && names[i]; i++)
        suggest_offer(&s, names[i]);
    return suggest_best(&s);
}

const char *suggest_hint(const char *best, char *buf, size_t len)
{
    if (!best)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, " (did you mean '%s'?)", best);
    return buf;
}
