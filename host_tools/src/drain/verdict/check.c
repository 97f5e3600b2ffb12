/*
 * `drain check INPUT --budget SPEC...`: budgets judged on 95 % intervals (docs/VERDICTS.md
 * "Check"). SPEC is KIND[:WHERE]<=SIZE (or exhaustion>=TIME, the heap's time to exhaustion at
 * least TIME: s, min, h, d; judged on its interval's ends mirrored, docs/VERDICTS.md "Time to
 * exhaustion"): KIND inuse, alloc, peak or growth (SIZE per second),
 * WHERE a function on the site's stack, task=NAME, or nothing for the total; SIZE with K, M, G
 * (powers of 1024). A budget fails when its interval's low end is above it, warns when the
 * interval straddles it (or there is no data to judge, or the estimate is a lower bound: the
 * device refused samples or records were lost, docs/VERDICTS.md "Marks"), passes otherwise.
 * The budgets of one run are judged as a family (docs/VERDICTS.md "Budgets as a family"): a
 * FAIL needs its low end above the budget at the level Holm's step-down gives it, so that the
 * chance of any false FAIL among them stays 2.5 % (--per-budget: each alone, at 2.5 %).
 */
#include "verdict/check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/ended.h"
#include "verdict/exhaust.h"
#include "verdict/growth.h"
#include "verdict/load.h"
#include "verdict/vprof.h"
#include "util.h"

#define CHECK_MAX_BUDGETS 1024
#define CHECK_MAX_SPEC 512
#define CHECK_MAX_BUDGETS_FILE (1 << 20) /* bytes of a --budgets file at most */
#define CHECK_MAX_LEAKS 4096

enum kind { K_INUSE, K_ALLOC, K_PEAK, K_GROWTH, K_EXHAUST };
static const char *const kind_name[] = {"inuse", "alloc", "peak", "growth", "exhaustion"};
enum status { S_PASS, S_WARN, S_FAIL };
static const char *const status_name[] = {"PASS", "WARN", "FAIL"};
/* The one-sided level of a single budget's FAIL (its 95 % interval's low end), and of a family's
 * (the chance that any budget of a run fails while every one holds). */
#define CHECK_ALPHA 0.025

struct budget {
    char spec[CHECK_MAX_SPEC + 1];
    enum kind kind;
    char where[CHECK_MAX_SPEC + 1]; /* "" total, "task=NAME" or a function */
    double limit; /* bytes (per second for growth); seconds for exhaustion */
    /* exhaustion: the rate (bytes per second) above which the heap runs out before limit (its
     * FAIL: the rate's low end above it, as a growth budget's) */
    double rate_limit, free_b;
    /* the verdict */
    enum status st;
    struct est e;
    double lo, hi;
    int known;        /* there was data to judge */
    int lower;        /* a lower bound (docs/VERDICTS.md "Marks"): at best WARN */
    int unplaced;     /* a peak not placed: judged on its interval, no estimate shown */
    /* the low end of e's interval at a one-sided level (est_lo_at, est_sym_lo_at); NULL when lo
     * is not an estimate's interval end (no variance known): such a verdict is exact, outside
     * the family */
    double (*lo_at)(struct est e, double tail);
    /* the family (decide_family): 0 outside it, else the level a FAIL needed and the low end
     * there; held: above at its own 95 % but not at the family's level */
    double fam_tail, fam_lo;
    int held;
    char note[640];
};

/* How the budgets of one run were judged (decide_family). */
struct family {
    int per_budget; /* --per-budget: each alone */
    size_t m;       /* budgets judged as one family */
    size_t nb;      /* all budgets */
};

/* SIZE: a number >= 0 with an optional K, M or G (powers of 1024) and an optional B; growth
 * budgets may end in /s. */
static int parse_size(const char *t, int per_s, double *out, char *why, size_t whylen)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)t[0]) && t[0] != '.') {
        snprintf(why, whylen, "SIZE '%s': expected a number (K, M, G: powers of 1024)", t);
        return -1;
    }
    double v = strtod(t, &end);
    if (errno || !isfinite(v) || v < 0) {
        snprintf(why, whylen, "SIZE '%s': not a finite size", t);
        return -1;
    }
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        m = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        m = 1024.0 * 1024 * 1024, end++;
    if (*end == 'B')
        end++;
    if (per_s && strcmp(end, "/s") == 0)
        end += 2;
    if (*end) {
        snprintf(why, whylen, "SIZE '%s': unexpected '%s' (K, M, G: powers of 1024%s)", t, end,
                 per_s ? "; growth: per second, optionally /s" : "");
        return -1;
    }
    *out = v * m;
    if (!isfinite(*out) || *out > 9.0e18) {
        snprintf(why, whylen, "SIZE '%s': too large", t);
        return -1;
    }
    return 0;
}

/* TIME: a number >= 0 with an optional unit s, min, h or d (seconds without one). */
static int parse_time(const char *t, double *out, char *why, size_t whylen)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"", 1}, {"s", 1}, {"min", 60}, {"h", 3600}, {"d", 86400}};
    char *end;
    errno = 0;
    double v = isdigit((unsigned char)t[0]) || t[0] == '.' ? strtod(t, &end) : -1;
    if (errno || !isfinite(v) || v < 0) {
        snprintf(why, whylen, "TIME '%s': expected a number with s, min, h or d", t);
        return -1;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = v * units[i].s;
            return 0;
        }
    snprintf(why, whylen, "TIME '%s': unexpected '%s' (s, min, h or d)", t, end);
    return -1;
}

static int parse_spec(const char *spec, struct budget *b, char *why, size_t whylen)
{
    memset(b, 0, sizeof(*b));
    size_t len = strlen(spec);
    if (len == 0 || len > CHECK_MAX_SPEC) {
        snprintf(why, whylen, "budget '%.64s': %s", spec, len ? "too long" : "empty");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)spec[i] < 0x20 || spec[i] == 0x7f) {
            snprintf(why, whylen, "budget: a control character in '%.64s'", spec);
            return -1;
        }
    }
    memcpy(b->spec, spec, len + 1);
    const char *xk = kind_name[K_EXHAUST];
    if (strncmp(spec, xk, strlen(xk)) == 0 && strchr(":<>", spec[strlen(xk)])) {
        /* exhaustion>=TIME: the heap lasts at least TIME (docs/VERDICTS.md "Time to
         * exhaustion"); on the session's total */
        b->kind = K_EXHAUST;
        char sw[256];
        if (strncmp(spec + strlen(xk), ">=", 2) != 0) {
            snprintf(why, whylen, "budget '%s': expected exhaustion>=TIME (a heap that lasts at "
                                  "least TIME; on the total only)", spec);
            return -1;
        }
        if (parse_time(spec + strlen(xk) + 2, &b->limit, sw, sizeof(sw)) != 0) {
            snprintf(why, whylen, "budget '%s': %s", spec, sw);
            return -1;
        }
        return 0;
    }
    const char *le = strstr(spec, "<=");
    if (!le) {
        snprintf(why, whylen, "budget '%s': expected KIND[:WHERE]<=SIZE", spec);
        return -1;
    }
    size_t kl = strcspn(spec, ":<");
    int k;
    for (k = 0; k < 4; k++)
        if (strlen(kind_name[k]) == kl && strncmp(spec, kind_name[k], kl) == 0)
            break;
    if (k == 4) {
        snprintf(why, whylen, "budget '%s': KIND '%.*s' is none of inuse, alloc, peak, growth, "
                              "exhaustion",
                 spec, (int)(kl > 32 ? 32 : kl), spec);
        return -1;
    }
    b->kind = (enum kind)k;
    if (spec[kl] == ':') {
        size_t wl = (size_t)(le - (spec + kl + 1));
        memcpy(b->where, spec + kl + 1, wl);
        b->where[wl] = 0;
        if (wl == 0 || strcmp(b->where, "task=") == 0) {
            snprintf(why, whylen, "budget '%s': empty WHERE after ':' (leave out ':' for the "
                                  "total)", spec);
            return -1;
        }
        if (b->kind == K_PEAK) {
            snprintf(why, whylen, "budget '%s': a peak budget is on the total only", spec);
            return -1;
        }
    } else if (spec + kl != le) {
        snprintf(why, whylen, "budget '%s': expected KIND[:WHERE]<=SIZE", spec);
        return -1;
    }
    char sw[256];
    if (parse_size(le + 2, b->kind == K_GROWTH, &b->limit, sw, sizeof(sw)) != 0) {
        snprintf(why, whylen, "budget '%s': %s", spec, sw);
        return -1;
    }
    return 0;
}

/* Line no of a budgets file (its newline gone, NUL-terminated): its SPEC into b[*nb], if any. */
static int budget_line(char *line, const char *path, int no, struct budget *b, size_t *nb,
                       char *why, size_t whylen)
{
    char *h = strchr(line, '#');
    if (h)
        *h = 0;
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    if (!*s)
        return 0;
    if (*nb >= CHECK_MAX_BUDGETS) {
        snprintf(why, whylen, "%s:%d: more than %d budgets", path, no, CHECK_MAX_BUDGETS);
        return -1;
    }
    char w[600];
    if (parse_spec(s, &b[*nb], w, sizeof(w)) != 0) {
        snprintf(why, whylen, "%s:%d: %s", path, no, w);
        return -1;
    }
    (*nb)++;
    return 0;
}

/* --budgets FILE: one SPEC a line; '#' starts a comment, blank lines are skipped. Text only: a
 * NUL byte, a line longer than CHECK_MAX_SPEC + 2 bytes or a file longer than
 * CHECK_MAX_BUDGETS_FILE bytes (/dev/zero, a pipe that never ends) is refused, read no further. */
static int read_budgets(const char *path, struct budget *b, size_t *nb, char *why, size_t whylen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, whylen, "--budgets %s: %s", path, strerror(errno));
        return -1;
    }
    char line[CHECK_MAX_SPEC + 3];
    size_t l = 0, total = 0;
    int no = 1, rc = 0, c;
    while (rc == 0 && (c = getc(f)) != EOF) {
        if (++total > CHECK_MAX_BUDGETS_FILE) {
            snprintf(why, whylen, "%s: larger than %d bytes: not a budgets file", path,
                     CHECK_MAX_BUDGETS_FILE);
            rc = -1;
        } else if (c == 0) {
            snprintf(why, whylen, "%s:%d: a NUL byte (a budgets file is text)", path, no);
            rc = -1;
        } else if (c != '\n' && l == sizeof(line) - 1) {
            snprintf(why, whylen, "%s:%d: line too long (over %zu bytes)", path, no, l);
            rc = -1;
        } else if (c != '\n') {
            line[l++] = (char)c;
        } else {
            line[l] = 0;
            rc = budget_line(line, path, no++, b, nb, why, whylen);
            l = 0;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(why, whylen, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && l > 0) { /* the last line without its newline */
        line[l] = 0;
        rc = budget_line(line, path, no, b, nb, why, whylen);
    }
    fclose(f);
    return rc;
}

/* exhaustion>=TIME on the profile's forecast: its interval [lo, hi] in seconds; in the family as
 * the rate it stands on (e), whose low end above rate_limit (free / TIME) is the time's high end
 * below TIME. A forecast without a leak (not running out: its high end unbounded) cannot fail and
 * stays out of the family. */
static void judge_exhaustion(struct budget *b, const struct vprof *v)
{
    struct exhaustion ex;
    if (!exhaust_from_prof(v->p, &ex)) {
        snprintf(b->note, sizeof(b->note), "no time-to-exhaustion forecast in this profile (a "
                                           "drain before it, or a merge): not judged");
        return;
    }
    if (!ex.known) {
        snprintf(b->note, sizeof(b->note), "time to exhaustion unknown: %s: not judged", ex.why);
        return;
    }
    b->known = 1;
    b->e = ex.rate;
    b->lo = ex.lo;
    b->hi = ex.hi;
    b->free_b = ex.free_b;
    b->rate_limit = b->limit > 0 ? ex.free_b / b->limit : INFINITY;
    b->lo_at = exhaust_running_out(&ex) ? est_sym_lo_at : NULL;
    b->unplaced = !isfinite(ex.t); /* not running out: no estimate, its bound */
    char fr[32];
    fmt_bytes(fr, sizeof(fr), ex.free_b);
    snprintf(b->note, sizeof(b->note), "%s free, growth %s", fr,
             ex.basis == EX_LEAKS ? "the leaks by growth summed"
                                  : "the sampled in-use trend (no leak): not running out");
}

/* inuse or alloc of the sites of task, or with fn on their stack (neither: the total): whether it
 * is a lower bound (docs/VERDICTS.md "Marks"; mark says why when samples were refused). */
static int judge_sum(struct budget *b, const struct vprof *v, const char *task, const char *fn,
                     char *mark, size_t marklen)
{
    struct est sum[E_COUNT];
    struct vrefused ref;
    double add = 0;
    size_t n = vprof_sum(v, task, fn, sum, &ref);
    int e = b->kind == K_INUSE ? E_INUSE_B : E_ALLOC_B;
    b->e = sum[e];
    b->known = 1;
    int marked = vprof_marked(v, &ref, !b->where[0], e, &add);
    if (marked && ref.samples && e == E_INUSE_B)
        snprintf(mark, marklen, "a lower bound: %llu samples refused by the live table "
                                "(in use: up to %.0f bytes more)",
                 (unsigned long long)ref.samples, ref.b);
    if (n == 0 && b->where[0])
        snprintf(b->note, sizeof(b->note), "no site %s", task ? "of this task" :
                                                         "has this function on its stack");
    if (!v->has_var) {
        b->lo = b->e.est;
        b->hi = b->e.est + add;
        snprintf(b->note, sizeof(b->note), "variance unknown (an older profile): judged on "
                                           "the estimate");
        return marked;
    }
    b->lo_at = est_lo_at;
    if (!vprof_interval(v, e, b->e, add, &b->lo, &b->hi))
        return marked;
    /* no sample in the set: its upper end what the sampling may have missed */
    char up[32];
    size_t l = strlen(b->note);
    fmt_bytes(up, sizeof(up), b->hi - add);
    b->known = !isnan(b->hi);
    if (b->known)
        snprintf(b->note + l, sizeof(b->note) - l, "%sno %ssample: up to %s may be %s unseen "
                 "(docs/VERDICTS.md \"No live sample\")", l ? "; " : "",
                 e == E_INUSE_B ? "live " : "", up, e == E_INUSE_B ? "in use" : "allocated");
    else
        snprintf(b->note + l, sizeof(b->note) - l, "%sno sample, and no bound of what the "
                 "sampling missed in this profile (an older drain's): not judged", l ? "; " : "");
    return marked;
}

/* peak<=SIZE on the profile's peak interval; *marked set when it is a lower bound. */
static void judge_peak(struct budget *b, const struct vprof *v, int *marked)
{
    struct growth_peak pk;
    if (!growth_peak_interval(v->p, &pk, &b->lo, &b->hi, marked)) {
        snprintf(b->note, sizeof(b->note), "no peak in this profile: not judged");
        return;
    }
    /* not placed: judged on its interval alone (no estimate shown) */
    b->known = 1;
    b->e = pk.inuse_bytes;
    b->lo_at = est_lo_at;
    b->unplaced = !pk.known;
    snprintf(b->note, sizeof(b->note), "%s", pk.known ? pk.method : "too few sampled "
             "blocks to place it: judged on its interval");
}

/* growth<=SIZE: the leaks' slopes summed over the sites of task, or with fn on their stack. */
static void judge_growth(struct budget *b, const struct vprof *v, const char *task,
                         const char *fn)
{
    struct growth_leak *lk = xmalloc(CHECK_MAX_LEAKS * sizeof(*lk));
    size_t nl = growth_leaks_from_prof(v->p, lk, CHECK_MAX_LEAKS);
    int any = growth_peak_from_prof(v->p, &(struct growth_peak){0}) || nl;
    if (!any) {
        snprintf(b->note, sizeof(b->note), "no growth data in this profile: not judged");
    } else {
        b->known = 1;
        for (size_t i = 0; i < nl && i < CHECK_MAX_LEAKS; i++) {
            if (lk[i].sample >= v->p->nsample)
                continue;
            const struct vsite *s = &v->site[v->site_of[lk[i].sample]];
            if ((task && (!s->task || strcmp(s->task, task))) ||
                (fn && !vsite_has_frame(v, s, fn)))
                continue;
            b->e.est += lk[i].slope_bytes_per_s.est;
            b->e.var += lk[i].slope_bytes_per_s.var;
        }
        b->lo = est_sym_lo(b->e);
        b->hi = est_sym_hi(b->e);
        b->lo_at = est_sym_lo_at;
    }
    free(lk);
}

static void judge(struct budget *b, const struct vprof *v)
{
    const char *task = strncmp(b->where, "task=", 5) == 0 ? b->where + 5 : NULL;
    const char *fn = b->where[0] && !task ? b->where : NULL;
    /* A lower bound (docs/VERDICTS.md "Marks"): never a clean PASS. Growth sums sites' slopes:
     * any mark; the peak and in-use and allocated estimates: below. */
    int marked = marks_any(&v->marks);
    char mark[448] = "";
    if (b->kind == K_INUSE || b->kind == K_ALLOC)
        marked = judge_sum(b, v, task, fn, mark, sizeof(mark));
    else if (b->kind == K_PEAK)
        judge_peak(b, v, &marked);
    else if (b->kind == K_EXHAUST)
        judge_exhaustion(b, v);
    else
        judge_growth(b, v, task, fn);
    if (!b->known)
        b->st = S_WARN;
    else if (b->kind == K_EXHAUST) /* at least TIME: FAIL when the high end is below it */
        b->st = b->hi < b->limit ? S_FAIL : b->lo < b->limit ? S_WARN : S_PASS;
    else if (b->lo > b->limit)
        b->st = S_FAIL;
    else if (b->hi > b->limit)
        b->st = S_WARN;
    else
        b->st = S_PASS;
    if (b->known && marked) {
        b->lower = 1;
        if (b->st == S_PASS)
            b->st = S_WARN;
        if (!mark[0])
            snprintf(mark, sizeof(mark), "%s: %s",
                     b->kind == K_EXHAUST ? "its growth a lower bound (the time may be shorter)"
                                          : "a lower bound",
                     v->marks.note);
        size_t l = strlen(b->note);
        snprintf(b->note + l, sizeof(b->note) - l, "%s%s", l ? "; " : "", mark);
    }
}

/* An exhaustion budget's time at the family's level: its high end, the free bytes over the rate's
 * low end there (unbounded when that is not above 0). */
static double fam_time_hi(const struct budget *b)
{
    return b->fam_lo > 0 ? b->free_b / b->fam_lo : INFINITY;
}

/* The family (docs/VERDICTS.md "Budgets as a family"): judge() gave each budget its verdict at
 * its own 95 % interval; here a FAIL is kept only where Holm's step-down keeps the family-wise
 * error at CHECK_ALPHA: with r budgets of the family not yet failed, every one whose low end at
 * the one-sided level CHECK_ALPHA / r is above its budget fails (its p-value is below
 * CHECK_ALPHA / r), r drops by their number, and the others are tested again at the new level,
 * until a round fails none. A FAIL at CHECK_ALPHA / r is one at CHECK_ALPHA, so the family only
 * turns FAILs into WARNs (their reason in the note), and a family of one is judged as alone.
 * The family holds the budgets whose estimate has a variance: an exact value (variance 0, every
 * block counted, or none known) cannot be wrong by sampling and keeps its verdict; so do the
 * budgets not judged. */
static void decide_family(struct budget *b, size_t nb, int per_budget, struct family *fam)
{
    fam->per_budget = per_budget;
    fam->nb = nb;
    fam->m = 0;
    for (size_t i = 0; i < nb; i++) {
        b[i].fam_tail = 0;
        if (!per_budget && b[i].known && b[i].lo_at && b[i].e.var > 0 && isfinite(b[i].e.var)) {
            b[i].fam_tail = CHECK_ALPHA; /* in the family, not failed yet */
            fam->m++;
        }
    }
    /* failed[i]: 0 still tested, 1 failed in this round, 2 failed in an earlier one */
    unsigned char *failed = xcalloc(nb ? nb : 1, 1);
    for (size_t left = fam->m; left > 0;) {
        double tail = CHECK_ALPHA / (double)left;
        size_t now = 0;
        for (size_t i = 0; i < nb; i++) {
            if (b[i].fam_tail == 0 || failed[i])
                continue;
            b[i].fam_tail = tail;
            b[i].fam_lo = b[i].lo_at(b[i].e, tail);
            if (b[i].fam_lo > (b[i].kind == K_EXHAUST ? b[i].rate_limit : b[i].limit))
                failed[i] = 1, now++;
        }
        if (now == 0)
            break;
        for (size_t i = 0; i < nb; i++)
            failed[i] = failed[i] ? 2 : 0;
        left -= now;
    }
    for (size_t i = 0; i < nb; i++) {
        if (b[i].fam_tail == 0)
            continue;
        if (failed[i]) {
            b[i].st = S_FAIL;
        } else if (b[i].st == S_FAIL) {
            char lo[32];
            int x = b[i].kind == K_EXHAUST;
            if (x)
                fmt_secs(lo, sizeof(lo), fam_time_hi(&b[i]));
            else
                fmt_bytes(lo, sizeof(lo), b[i].fam_lo);
            b[i].st = S_WARN;
            b[i].held = 1;
            size_t l = strlen(b[i].note);
            snprintf(b[i].note + l, sizeof(b[i].note) - l,
                     "%s%s at its own 95 %% but not at the family's level: %s end %s%s at "
                     "one-sided %.2g %% (Holm over %zu budgets)", l ? "; " : "",
                     x ? "below" : "above", x ? "high" : "low", lo,
                     b[i].kind == K_GROWTH ? "/s" : "", 100 * b[i].fam_tail, fam->m);
        }
    }
    free(failed);
}

/* The line that says how the budgets were judged (text; JSON and JUnit say it as fields). */
static void family_line(const struct family *fam, char *out, size_t n)
{
    if (fam->per_budget)
        snprintf(out, n, "family: none (--per-budget): each of %zu budgets judged alone at "
                         "one-sided %.2g %%; the chance that any fails while all hold grows with "
                         "their number", fam->nb, 100 * CHECK_ALPHA);
    else if (fam->m == 0)
        snprintf(out, n, "family: none of %zu budgets is an estimate with a variance: each exact "
                         "or not judged, on its own", fam->nb);
    else
        snprintf(out, n, "family: %zu of %zu budgets judged as one family, family-wise error "
                         "one-sided %.2g %% (Holm: the first FAIL at %.2g %%)%s", fam->m, fam->nb,
                 100 * CHECK_ALPHA, 100 * CHECK_ALPHA / (double)fam->m,
                 fam->m < fam->nb ? "; the others exact or not judged, each on its own" : "");
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void line_of(const struct budget *b, char *out, size_t n)
{
    char e[32], lo[32], hi[32], lim[32];
    if (b->kind == K_EXHAUST) { /* seconds, the budget a floor */
        fmt_secs(lim, sizeof(lim), b->limit);
        if (!b->known) {
            snprintf(out, n, "%s %s: %s (budget %s)", status_name[b->st], b->spec, b->note, lim);
            return;
        }
        if (!b->unplaced)
            fmt_secs(e, sizeof(e), b->free_b / b->e.est);
        else
            snprintf(e, sizeof(e), "not running out");
        fmt_secs(lo, sizeof(lo), b->lo);
        fmt_secs(hi, sizeof(hi), b->hi);
        snprintf(out, n, "%s %s: %s (95 %% %s..%s) %s budget %s%s%s", status_name[b->st],
                 b->spec, e, lo, hi,
                 b->hi < b->limit ? "below" : b->lo < b->limit ? "straddles" : "at or above", lim,
                 b->note[0] ? "; " : "", b->note);
        return;
    }
    const char *ps = b->kind == K_GROWTH ? "/s" : "";
    fmt_bytes(lim, sizeof(lim), b->limit);
    if (!b->known) {
        snprintf(out, n, "%s %s: %s (budget %s%s)", status_name[b->st], b->spec, b->note, lim, ps);
        return;
    }
    if (b->unplaced) /* a peak not placed: its interval only */
        snprintf(e, sizeof(e), "not placed");
    else
        fmt_bytes(e, sizeof(e), b->e.est);
    fmt_bytes(lo, sizeof(lo), b->lo);
    fmt_bytes(hi, sizeof(hi), b->hi);
    snprintf(out, n, "%s %s: %s%s (95 %% %s%s..%s%s) %s budget %s%s%s%s", status_name[b->st],
             b->spec, e, ps, lo, ps, hi, ps,
             b->lo > b->limit ? "above" : b->hi > b->limit ? "straddles" : "within", lim, ps,
             b->note[0] ? "; " : "", b->note);
}

static int write_junit(const char *path, const struct budget *b, size_t nb, const char *input,
                       const struct family *fam, char *why, size_t whylen)
{
    struct out_file o;
    if (out_open(&o, path, why, whylen) != 0)
        return -1;
    FILE *f = o.f;
    size_t fails = 0;
    for (size_t i = 0; i < nb; i++)
        fails += b[i].st == S_FAIL;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite "
               "name=\"drain check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", nb, fails);
    fprintf(f, "  <properties>\n    <property name=\"family.method\" value=\"%s\"/>\n"
               "    <property name=\"family.alpha\" value=\"%g\"/>\n"
               "    <property name=\"family.budgets\" value=\"%zu\"/>\n  </properties>\n",
            fam->per_budget ? "none" : "holm", CHECK_ALPHA, fam->m);
    for (size_t i = 0; i < nb; i++) {
        char l[1536];
        line_of(&b[i], l, sizeof(l));
        fputs("  <testcase classname=\"drain.check.", f);
        xml_text(f, kind_name[b[i].kind]);
        fputs("\" name=\"", f);
        xml_text(f, b[i].spec);
        fputs("\">\n", f);
        if (b[i].st == S_FAIL) {
            fputs("    <failure message=\"", f);
            xml_text(f, l);
            fputs("\"/>\n", f);
        }
        fputs("    <system-out>", f);
        xml_text(f, l);
        fputs(" [", f);
        xml_text(f, input);
        fputs("]</system-out>\n  </testcase>\n", f);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    return out_close(&o, 0, why, whylen);
}

static int write_check_json(const char *path, const struct budget *b, size_t nb,
                            const struct family *fam, const struct prof *p, char *why,
                            size_t whylen)
{
    struct out_file o;
    if (out_open(&o, path, why, whylen) != 0)
        return -1;
    FILE *f = o.f;
    fputs("{\"family\": {\"method\": ", f);
    json_str(f, fam->per_budget ? "none" : "holm");
    fputs(", \"alpha\": ", f);
    json_num(f, CHECK_ALPHA);
    fprintf(f, ", \"budgets\": %zu}", fam->m);
    struct ended en; /* how the input's session ended (verdict/ended.h) */
    ended_from_prof(p, &en);
    ended_json(f, &en);
    fputs(",\n \"budgets\": [", f);
    for (size_t i = 0; i < nb; i++) {
        fputs(i ? ",\n  {\"spec\": " : "\n  {\"spec\": ", f);
        json_str(f, b[i].spec);
        fputs(", \"kind\": ", f);
        json_str(f, kind_name[b[i].kind]);
        fputs(", \"where\": ", f);
        json_str(f, b[i].where[0] ? b[i].where : NULL);
        fputs(", \"limit\": ", f);
        json_num(f, b[i].limit);
        fputs(", \"status\": ", f);
        json_str(f, b[i].st == S_FAIL ? "fail" : b[i].st == S_WARN ? "warn" : "pass");
        fputs(", \"value\": ", f);
        if (b[i].known) { /* exhaustion: seconds (null: unbounded, never), its family's high end */
            int x = b[i].kind == K_EXHAUST;
            fputs("{\"est\": ", f);
            json_num(f, b[i].unplaced ? NAN : x ? b[i].free_b / b[i].e.est : b[i].e.est);
            fputs(", \"lo\": ", f);
            json_num(f, b[i].lo);
            fputs(", \"hi\": ", f);
            json_num(f, b[i].hi);
            if (b[i].lower)
                fputs(", \"lower_bound\": true", f);
            if (b[i].fam_tail > 0) {
                fputs(", \"family\": {\"tail\": ", f);
                json_num(f, b[i].fam_tail);
                fputs(x ? ", \"hi\": " : ", \"lo\": ", f);
                json_num(f, x ? fam_time_hi(&b[i]) : b[i].fam_lo);
                fputs(b[i].held ? ", \"held\": true}" : "}", f);
            }
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fputs(", \"note\": ", f);
        json_str(f, b[i].note[0] ? b[i].note : NULL);
        fputc('}', f);
    }
    fputs("]}\n", f);
    return out_close(&o, 0, why, whylen);
}

static const char check_usage[] =
    "usage: drain check INPUT --budget SPEC... [--budgets FILE] [--junit FILE] [--json FILE]\n"
    "                  [--elf FILE] [--per-budget]\n"
    "Judges budgets on a profile drain wrote (or a stream, read as drain would) with 95 %\n"
    "intervals. SPEC: KIND[:WHERE]<=SIZE; KIND inuse, alloc, peak or growth (SIZE per second);\n"
    "or exhaustion>=TIME (s, min, h, d): the heap's time to exhaustion at least TIME, FAIL when\n"
    "its interval's high end is below it, PASS when its low end is not;\n"
    "WHERE a function on the site's stack, task=NAME, or nothing for the total; SIZE with K, M,\n"
    "G (powers of 1024). FAIL when the interval's low end is above the budget, WARN when it\n"
    "straddles it (or there is no data to judge, or the estimate is a lower bound: samples\n"
    "refused or records lost), PASS otherwise. --budgets FILE: one SPEC a line, '#' comments.\n"
    "The budgets are one family: a FAIL needs its low end above the budget at the level of\n"
    "Holm's step-down, so that any false FAIL among them has a chance of at most 2.5 % (a\n"
    "budget above at its own 95 % only: WARN). --per-budget: each judged alone at 2.5 %.\n"
    "Exit status: 0 none failed, 1 one failed (or the input could not be read), 2 bad command\n"
    "line, SPEC or budgets file. See docs/VERDICTS.md.\n";

int drain_check(int argc, char **argv)
{
    static const char *const valued[] = {"--budget", "--budgets", "--junit", NULL};
    const char *input = NULL, *junit = NULL;
    int per_budget = 0;
    struct verdict_args va = {{0}, 0, NULL};
    size_t nb = 0;
    struct budget *b = xcalloc(CHECK_MAX_BUDGETS, sizeof(*b));
    char why[1024];
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc, common = verdict_arg(&va, argc, argv, &i, valued, why,
                                                        sizeof(why));
        if (common) {
            rc = common < 0 ? 2 : 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(check_usage, stdout);
            free(b);
            return 0;
        } else if (strcmp(a, "--budget") == 0 && more) {
            if (nb >= CHECK_MAX_BUDGETS) {
                snprintf(why, sizeof(why), "more than %d budgets", CHECK_MAX_BUDGETS);
                rc = 2;
            } else if (parse_spec(argv[++i], &b[nb], why, sizeof(why)) != 0) {
                rc = 2;
            } else {
                nb++;
            }
        } else if (strcmp(a, "--budgets") == 0 && more) {
            if (read_budgets(argv[++i], b, &nb, why, sizeof(why)) != 0)
                rc = 2;
        } else if (strcmp(a, "--junit") == 0 && more) {
            junit = argv[++i];
        } else if (strcmp(a, "--per-budget") == 0) {
            per_budget = 1;
        } else if (a[0] == '-' && a[1] && !input) {
            snprintf(why, sizeof(why), "unknown option or missing argument: %s", a);
            rc = 2;
        } else if (!input) {
            input = a;
        } else {
            snprintf(why, sizeof(why), "unexpected argument: %s", a);
            rc = 2;
        }
    }
    if (rc == 0 && (!input || nb == 0)) {
        snprintf(why, sizeof(why), "%s", !input ? "no INPUT" : "no budget (--budget SPEC)");
        rc = 2;
    }
    if (rc != 0) {
        fprintf(stderr, "drain check: %s\n%s", why, check_usage);
        free(b);
        return rc;
    }
    struct prof p;
    if (verdict_load(&p, input, va.elf, va.nelf, why, sizeof(why)) != 0) {
        fprintf(stderr, "drain check: %s\n", why);
        free(b);
        return 1;
    }
    struct vprof v;
    if (vprof_build(&p, &v, why, sizeof(why)) != 0) {
        fprintf(stderr, "drain check: %s: %s\n", input, why);
        prof_free(&p);
        free(b);
        return 1;
    }
    if (!v.has_var)
        fprintf(stderr, "drain check: %s carries no variances (an older drain wrote it): "
                        "budgets are judged on the estimates alone\n", input);
    int failed = 0;
    for (size_t i = 0; i < nb; i++)
        judge(&b[i], &v);
    struct family fam;
    decide_family(b, nb, per_budget, &fam);
    char l[1536];
    for (size_t i = 0; i < nb; i++) {
        line_of(&b[i], l, sizeof(l));
        printf("%s\n", l);
        failed |= b[i].st == S_FAIL;
    }
    family_line(&fam, l, sizeof(l));
    printf("%s\n", l);
    if (junit && write_junit(junit, b, nb, input, &fam, why, sizeof(why)) != 0) {
        fprintf(stderr, "drain check: --junit %s\n", why);
        rc = 1;
    }
    if (va.json && write_check_json(va.json, b, nb, &fam, &p, why, sizeof(why)) != 0) {
        fprintf(stderr, "drain check: --json %s\n", why);
        rc = 1;
    }
    vprof_free(&v);
    prof_free(&p);
    free(b);
    return failed ? 1 : rc;
}
