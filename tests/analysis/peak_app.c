/*
 * An honest peak (tests/analysis/t_peak.sh, docs/VERDICTS.md "The peak"): a real library's churn
 * with an exact tracker's peak. SQLite (Debian's libsqlite3) allocates through memory methods
 * this program installs (SQLITE_CONFIG_MALLOC), which call malloc/realloc/free (recorded by the
 * hosted library) and keep the exact bytes in use and their maximum; lookaside is off, so every
 * allocation SQLite makes is one. The work: ROUNDS rounds on an in-memory database, each creating
 * a table, inserting a seed-dependent number of rows with random text, an ordered and a grouped
 * query, deleting and dropping it. Prints "exact_peak BYTES" on stdout at the end.
 * usage: peak_app   (MSAMP_OUTPUT, MSAMP_INTERVAL, MSAMP_SEED from the environment)
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 6

static uint64_t inuse, peak;

/* Each block carries its size in front (8 bytes): malloc sees n + 8, the exact tracker too. */
static void *x_malloc(int n)
{
    uint64_t *p = malloc((size_t)n + 8);
    if (!p)
        return NULL;
    p[0] = (uint64_t)n + 8;
    inuse += p[0];
    if (inuse > peak)
        peak = inuse;
    return p + 1;
}

static void x_free(void *q)
{
    if (!q)
        return;
    uint64_t *p = (uint64_t *)q - 1;
    inuse -= p[0];
    free(p);
}

static void *x_realloc(void *q, int n)
{
    if (!q)
        return x_malloc(n);
    uint64_t *p = (uint64_t *)q - 1, old = p[0];
    uint64_t *r = realloc(p, (size_t)n + 8);
    if (!r)
        return NULL;
    inuse -= old;
    r[0] = (uint64_t)n + 8;
    inuse += r[0];
    if (inuse > peak)
        peak = inuse;
    return r + 1;
}

static int x_size(void *q)
{
    return q ? (int)(((uint64_t *)q - 1)[0] - 8) : 0;
}

static int x_roundup(int n)
{
    return (n + 7) & ~7;
}

static int x_init(void *a)
{
    (void)a;
    return SQLITE_OK;
}

static void x_shutdown(void *a)
{
    (void)a;
}

static void run(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "peak_app: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

int main(void)
{
    static const sqlite3_mem_methods mm = {x_malloc, x_free,     x_realloc, x_size,
                                           x_roundup, x_init, x_shutdown, NULL};
    const char *seed = getenv("MSAMP_SEED");
    unsigned s = seed ? (unsigned)strtoul(seed, NULL, 10) : 1;
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mm) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) {
        fprintf(stderr, "peak_app: sqlite3_config failed\n");
        return 1;
    }
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        fprintf(stderr, "peak_app: sqlite3_open failed\n");
        return 1;
    }
    char sql[256];
    for (int r = 0; r < ROUNDS; r++) {
        unsigned rows = 4000 + (s * 7919u + (unsigned)r * 104729u) % 4000;
        run(db, "CREATE TABLE t(a INTEGER, b TEXT, c BLOB)");
        snprintf(sql, sizeof(sql),
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %u) "
                 "INSERT INTO t SELECT abs(random()) %% 1000, hex(randomblob(%u + i %% 97)), "
                 "randomblob(i %% 300) FROM n",
                 rows, 8 + (s + (unsigned)r) % 40);
        run(db, sql);
        run(db, "CREATE INDEX ti ON t(b)");
        run(db, "SELECT a, count(*), max(length(c)) FROM t GROUP BY a ORDER BY 2 DESC");
        run(db, "SELECT b FROM t ORDER BY c, b LIMIT 10");
        run(db, "DELETE FROM t WHERE a % 2 = 0");
        run(db, "DROP TABLE t");
    }
    sqlite3_close(db);
    printf("exact_peak %llu\n", (unsigned long long)peak);
    return 0;
}
