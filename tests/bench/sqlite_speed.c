/*
 * An SQLite workload for `make bench-apps`, after SQLite's speedtest1: an in-memory database
 * (:memory:) filled with N rows of numbers and their names in words, then indexes, range and LIKE
 * selects, updates, a join, sorting without an index, deletes, and the same again on a second
 * table. Linked with Debian's static libsqlite3.a, whose allocations (sqlite3_malloc and friends:
 * malloc, realloc, free) go through msamp's wrappers when linked with it.
 *   sqlite_speed N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static sqlite3 *db;
static uint32_t rng = 0x12345678u;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void die(const char *what)
{
    fprintf(stderr, "sqlite_speed: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sqlite_speed: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        die(sql);
    return s;
}

/* Steps a statement to its end; returns the first column of the last row (0 if none). */
static int64_t run(sqlite3_stmt *s)
{
    int64_t v = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    if (rc != SQLITE_DONE)
        die("step");
    sqlite3_reset(s);
    return v;
}

/* A number in English words, as speedtest1 writes them. */
static void words(unsigned n, char *out, size_t cap)
{
    static const char *ones[] = {"zero", "one", "two", "three", "four", "five", "six", "seven",
                                 "eight", "nine", "ten", "eleven", "twelve", "thirteen",
                                 "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                                 "nineteen"};
    static const char *tens[] = {"", "ten", "twenty", "thirty", "forty", "fifty", "sixty",
                                 "seventy", "eighty", "ninety"};
    size_t len = 0;
    out[0] = '\0';
#define PUT(s) len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", s)
    if (n >= 1000000) {
        words(n / 1000000, out, cap);
        len = strlen(out);
        PUT("million");
        n %= 1000000;
    }
    if (n >= 1000) {
        char sub[128];
        words(n / 1000, sub, sizeof sub);
        PUT(sub);
        PUT("thousand");
        n %= 1000;
    }
    if (n >= 100) {
        PUT(ones[n / 100]);
        PUT("hundred");
        n %= 100;
    }
    if (n >= 20) {
        PUT(tens[n / 10]);
        n %= 10;
    }
    if (n > 0 || len == 0)
        PUT(ones[n]);
#undef PUT
}

static int64_t fill(const char *table, unsigned n)
{
    char sql[256], text[256];
    snprintf(sql, sizeof sql, "CREATE TABLE %s(a INTEGER PRIMARY KEY, b INTEGER, c TEXT)", table);
    exec(sql);
    snprintf(sql, sizeof sql, "INSERT INTO %s(b, c) VALUES(?1, ?2)", table);
    sqlite3_stmt *ins = prepare(sql);
    exec("BEGIN");
    for (unsigned i = 0; i < n; i++) {
        unsigned v = next() % (n * 4);
        words(v, text, sizeof text);
        sqlite3_bind_int64(ins, 1, v);
        sqlite3_bind_text(ins, 2, text, -1, SQLITE_TRANSIENT);
        run(ins);
    }
    exec("COMMIT");
    sqlite3_finalize(ins);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: sqlite_speed N\n", stderr);
        return 2;
    }
    unsigned n = (unsigned)strtoul(argv[1], NULL, 10);
    char sql[256], text[256];
    int64_t sum = 0;

    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("open");
    sum += fill("t1", n);

    /* Range selects on an unindexed column, then the indexes, then the same selects. */
    sqlite3_stmt *range = prepare("SELECT count(*), avg(b), sum(length(c)) FROM t1 WHERE b BETWEEN ?1 AND ?2");
    for (unsigned i = 0; i < 20; i++) {
        unsigned lo = next() % (n * 4);
        sqlite3_bind_int64(range, 1, lo);
        sqlite3_bind_int64(range, 2, lo + n / 10);
        sum += run(range);
    }
    exec("BEGIN");
    exec("CREATE INDEX t1b ON t1(b)");
    exec("CREATE INDEX t1c ON t1(c)");
    exec("COMMIT");
    for (unsigned i = 0; i < n / 10; i++) {
        unsigned lo = next() % (n * 4);
        sqlite3_bind_int64(range, 1, lo);
        sqlite3_bind_int64(range, 2, lo + 100);
        sum += run(range);
    }
    sqlite3_finalize(range);

    /* Prefix searches through the text index. */
    sqlite3_stmt *like = prepare("SELECT count(*) FROM t1 WHERE c >= ?1 AND c < ?1 || 'zz'");
    for (unsigned i = 0; i < n / 20; i++) {
        words(next() % 1000, text, sizeof text);
        sqlite3_bind_text(like, 1, text, -1, SQLITE_TRANSIENT);
        sum += run(like);
    }
    sqlite3_finalize(like);

    /* Updates by range and by key, in one transaction. */
    exec("BEGIN");
    sqlite3_stmt *upd = prepare("UPDATE t1 SET b = b * 2, c = c || ' and more' WHERE b BETWEEN ?1 AND ?2");
    for (unsigned i = 0; i < 200; i++) {
        unsigned lo = next() % (n * 4);
        sqlite3_bind_int64(upd, 1, lo);
        sqlite3_bind_int64(upd, 2, lo + 50);
        run(upd);
    }
    sqlite3_finalize(upd);
    sqlite3_stmt *updk = prepare("UPDATE t1 SET c = ?2 WHERE a = ?1");
    for (unsigned i = 0; i < n / 4; i++) {
        words(next() % 100000, text, sizeof text);
        sqlite3_bind_int64(updk, 1, 1 + next() % n);
        sqlite3_bind_text(updk, 2, text, -1, SQLITE_TRANSIENT);
        run(updk);
    }
    sqlite3_finalize(updk);
    exec("COMMIT");

    /* A second table, a join, and sorts without an index. */
    sum += fill("t2", n / 2);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM t1 JOIN t2 ON t1.b = t2.b WHERE t2.a %% 3 = 0");
    sqlite3_stmt *join = prepare(sql);
    sum += run(join);
    sqlite3_finalize(join);
    sqlite3_stmt *sort = prepare("SELECT c, b FROM t1 ORDER BY length(c), c DESC, b % 977");
    sum += run(sort);
    sqlite3_finalize(sort);
    sqlite3_stmt *group = prepare("SELECT substr(c, 1, 6) AS k, count(*), max(b) FROM t2 GROUP BY k ORDER BY 2 DESC");
    sum += run(group);
    sqlite3_finalize(group);

    /* Deletes, and the table dropped. */
    exec("BEGIN");
    exec("DELETE FROM t1 WHERE b % 3 = 1");
    exec("DELETE FROM t2 WHERE a % 2 = 0");
    exec("COMMIT");
    exec("DROP TABLE t2");
    sqlite3_stmt *cnt = prepare("SELECT count(*) FROM t1");
    sum += run(cnt);
    sqlite3_finalize(cnt);
    if (sqlite3_close(db) != SQLITE_OK)
        die("close");
    printf("sqlite_speed %u rows: %lld\n", n, (long long)sum);
    return 0;
}
