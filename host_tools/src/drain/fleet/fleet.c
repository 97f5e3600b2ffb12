/*
 * The fleet store in PostgreSQL (docs/FLEET.md). push: each profile file's bytes, with what
 * selects it (device, build id, session, kind, time range, labels) and a per-site rollup (the
 * symbolized stack, the task, every sample type's value by name, so variance types are kept as
 * well), and the leak verdicts drain stored in it. A profile is stored once (its SHA-256).
 * fleet: merge (merge.c on the stored bytes), top, devices, leaks over a selection.
 */
#include "fleet/fleet.h"

#include <dlfcn.h>
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/merge.h"
#include "pprof/prof_file.h"
#include "util.h"
#include "model/est.h"
#include "verdict/exhaust.h"
#include "verdict/growth.h"
#include "verdict/vprof.h"

/* libpq is loaded when a store is used (the first push, fleet or --push), not linked: linked, its
 * ~32 libraries (libssl, krb5, ldap...) load at every drain start (peak RSS 9.35 -> 15.07 MiB on a
 * plain stream). libpq-fe.h gives the types; each function fleet.c calls is resolved into pq, its
 * type checked against libpq-fe.h's declaration (_Generic does not evaluate, so nothing links). */
#define PQ_FNS(X)                                                                                \
    X(PGconn *, PQconnectdb, (const char *))                                                     \
    X(ConnStatusType, PQstatus, (const PGconn *))                                                \
    X(char *, PQerrorMessage, (const PGconn *))                                                  \
    X(void, PQfinish, (PGconn *))                                                                \
    X(PGresult *, PQexec, (PGconn *, const char *))                                              \
    X(PGresult *, PQexecParams,                                                                  \
      (PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *,   \
       int))                                                                                     \
    X(ExecStatusType, PQresultStatus, (const PGresult *))                                        \
    X(char *, PQresultErrorMessage, (const PGresult *))                                          \
    X(char *, PQresultErrorField, (const PGresult *, int))                                       \
    X(int, PQntuples, (const PGresult *))                                                        \
    X(char *, PQgetvalue, (const PGresult *, int, int))                                          \
    X(int, PQgetlength, (const PGresult *, int, int))                                            \
    X(void, PQclear, (PGresult *))
#define PQ_FIELD(ret, name, args) ret(*name) args;
static struct {
    PQ_FNS(PQ_FIELD)
} pq;
#define PQ_CHECK(ret, name, args)                                                                \
    _Static_assert(_Generic(&name, ret(*) args: 1, default: 0), #name " as in libpq-fe.h");
PQ_FNS(PQ_CHECK)

/* The library's name, MSAMP_DRAIN_LIBPQ overriding it (docs/FLEET.md; the test of a missing one). */
void fleet_load_libpq(void)
{
    if (pq.PQclear)
        return;
    const char *name = getenv("MSAMP_DRAIN_LIBPQ");
    void *h = dlopen(name && *name ? name : "libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    void *f = NULL;
    const char *missing = NULL;
#define PQ_RESOLVE(ret, fn, args)                                                                \
    if (h && !missing && !(f = dlsym(h, #fn)))                                                   \
        missing = #fn;                                                                           \
    memcpy(&pq.fn, &f, sizeof(f));
    PQ_FNS(PQ_RESOLVE)
    if (!h || missing) {
        const char *why = dlerror();
        fprintf(stderr, "drain: the PostgreSQL store needs libpq (Debian package libpq5): %s\n",
                why ? why : missing);
        exit(1);
    }
}
/* From here on each PQ call goes through pq (a macro does not expand inside itself). */
#define PQconnectdb pq.PQconnectdb
#define PQstatus pq.PQstatus
#define PQerrorMessage pq.PQerrorMessage
#define PQexec pq.PQexec
#define PQexecParams pq.PQexecParams
#define PQresultStatus pq.PQresultStatus
#define PQresultErrorMessage pq.PQresultErrorMessage
#define PQresultErrorField pq.PQresultErrorField
#define PQntuples pq.PQntuples
#define PQgetvalue pq.PQgetvalue
#define PQgetlength pq.PQgetlength
#define PQclear pq.PQclear
/* libpq's PQfinish(NULL) does nothing; the callers rely on it. */
#define PQfinish(c) ((c) ? pq.PQfinish(c) : (void)0)

#define FLEET_SCHEMA_VERSION 3
#define MAX_FILTERS 64
#define MAX_TYPES 64 /* sample types top sums */

/* The schema, version 1 (docs/FLEET.md "Schema"). Every table carries device and has it in its
 * keys, so it can be distributed by device (Citus: create_distributed_table(..., 'device')). */
static const char schema_v1[] =
    "CREATE TABLE msamp_profile ("
    " device text NOT NULL, id bigserial NOT NULL, sha256 bytea NOT NULL,"
    " build_id text NOT NULL, session text NOT NULL,"
    " kind text NOT NULL CHECK (kind IN ('partial', 'final')),"
    " t_start timestamptz NOT NULL, t_end timestamptz NOT NULL,"
    " labels text[] NOT NULL, sample_types text[] NOT NULL, comments text[] NOT NULL,"
    " failures bigint NOT NULL, bytes bytea NOT NULL, pushed timestamptz NOT NULL DEFAULT now(),"
    " PRIMARY KEY (device, id), UNIQUE (device, sha256));"
    "CREATE INDEX msamp_profile_time ON msamp_profile (t_end, t_start);"
    "CREATE INDEX msamp_profile_build ON msamp_profile (build_id);"
    "CREATE INDEX msamp_profile_labels ON msamp_profile USING gin (labels);"
    "CREATE TABLE msamp_site ("
    " device text NOT NULL, profile_id bigint NOT NULL, site int NOT NULL,"
    " stack text[] NOT NULL, task text NOT NULL, vals jsonb NOT NULL,"
    " PRIMARY KEY (device, profile_id, site),"
    " FOREIGN KEY (device, profile_id) REFERENCES msamp_profile ON DELETE CASCADE);"
    "CREATE TABLE msamp_leak ("
    " device text NOT NULL, profile_id bigint NOT NULL, site int NOT NULL,"
    " slope double precision NOT NULL, slope_var double precision NOT NULL,"
    " since_s double precision NOT NULL,"
    " PRIMARY KEY (device, profile_id, site),"
    " FOREIGN KEY (device, profile_id, site) REFERENCES msamp_site ON DELETE CASCADE);"
    "INSERT INTO msamp_schema VALUES (1);";

/* Version 2: per profile its totals (each sample type summed over its sites: devices reads one
 * row a profile, not its sites) and the heap's figures (the profile's msamp-heap comment: the
 * last HEAP record; NULL unknown); an index for a device's sessions (leaks). Older profiles get
 * both from what they stored: totals from their sites, the heap from their comments. */
#define HEAP_FIG(name) \
    "(SELECT substring(c from ' " name "=([0-9]+)')::bigint FROM unnest(p.comments) c" \
    " WHERE c LIKE 'msamp-heap %' LIMIT 1)"
static const char schema_v2[] =
    "ALTER TABLE msamp_profile ADD COLUMN totals jsonb, ADD COLUMN heap_free bigint,"
    " ADD COLUMN heap_min_free bigint, ADD COLUMN heap_largest_free bigint,"
    " ADD COLUMN heap_total bigint;"
    "UPDATE msamp_profile p SET totals = coalesce((SELECT jsonb_object_agg(k, t) FROM"
    " (SELECT v.key AS k, sum(v.value::numeric) AS t FROM msamp_site st, jsonb_each_text(st.vals) v"
    " WHERE st.device = p.device AND st.profile_id = p.id GROUP BY v.key) x), '{}'),"
    " heap_free = " HEAP_FIG("free") ", heap_min_free = " HEAP_FIG("min_free") ","
    " heap_largest_free = " HEAP_FIG("largest_free") ", heap_total = " HEAP_FIG("total") ";"
    "ALTER TABLE msamp_profile ALTER COLUMN totals SET NOT NULL;"
    "CREATE INDEX msamp_profile_session ON msamp_profile (device, session);"
    "INSERT INTO msamp_schema VALUES (2);";

/* Version 3: the three tables partitioned by RANGE (t_end), a partition a month (UTC) made when
 * a profile needs it (msamp_partition: push calls it; rows of its month waiting in the DEFAULT
 * partition move into it) and a DEFAULT partition for times outside 2000 .. a year from now (a
 * wrong clock must not create a table a month). PostgreSQL requires the partition key in every
 * unique key: t_end joins the keys, and the site and leak rows carry it, so a month's rows of all three tables lie in that month's partitions and a time
 * selection prunes the others. "Stored once" is unique (device, sha256, t_end): t_end follows
 * from the file's bytes, so the same rule. device stays first in every key (distribution by
 * device, docs/FLEET.md). No foreign keys: PostgreSQL 15 checks one to a partitioned table row by
 * row through the parent (a 1000-site push 245 ms with them, 53 ms without); push writes a
 * profile's three kinds of rows in one transaction, and deletes go by t_end on all three. The v2 tables are renamed, their rows copied into the new ones, then
 * dropped; the id sequence is kept. */
#define V3_MONTH_SQL(t) "(date_trunc('month', (" t ") AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')"
static const char schema_v3[] =
    "ALTER TABLE msamp_leak RENAME TO msamp_leak_v2;"
    "ALTER TABLE msamp_site RENAME TO msamp_site_v2;"
    "ALTER TABLE msamp_profile RENAME TO msamp_profile_v2;"
    "ALTER INDEX msamp_profile_pkey RENAME TO msamp_profile_v2_pkey;"
    "ALTER INDEX msamp_profile_device_sha256_key RENAME TO msamp_profile_v2_sha256;"
    "ALTER INDEX msamp_profile_time RENAME TO msamp_profile_v2_time;"
    "ALTER INDEX msamp_profile_build RENAME TO msamp_profile_v2_build;"
    "ALTER INDEX msamp_profile_labels RENAME TO msamp_profile_v2_labels;"
    "ALTER INDEX msamp_profile_session RENAME TO msamp_profile_v2_session;"
    "ALTER INDEX msamp_site_pkey RENAME TO msamp_site_v2_pkey;"
    "ALTER INDEX msamp_leak_pkey RENAME TO msamp_leak_v2_pkey;"
    "CREATE TABLE msamp_profile ("
    " device text NOT NULL, id bigint NOT NULL DEFAULT nextval('msamp_profile_id_seq'),"
    " sha256 bytea NOT NULL, build_id text NOT NULL, session text NOT NULL,"
    " kind text NOT NULL CHECK (kind IN ('partial', 'final')),"
    " t_start timestamptz NOT NULL, t_end timestamptz NOT NULL,"
    " labels text[] NOT NULL, sample_types text[] NOT NULL, comments text[] NOT NULL,"
    " failures bigint NOT NULL, bytes bytea NOT NULL, pushed timestamptz NOT NULL DEFAULT now(),"
    " totals jsonb NOT NULL, heap_free bigint, heap_min_free bigint, heap_largest_free bigint,"
    " heap_total bigint,"
    " PRIMARY KEY (device, id, t_end), UNIQUE (device, sha256, t_end)) PARTITION BY RANGE (t_end);"
    "ALTER SEQUENCE msamp_profile_id_seq OWNED BY msamp_profile.id;"
    "CREATE INDEX msamp_profile_time ON msamp_profile (t_end, t_start);"
    "CREATE INDEX msamp_profile_build ON msamp_profile (build_id);"
    "CREATE INDEX msamp_profile_labels ON msamp_profile USING gin (labels);"
    "CREATE INDEX msamp_profile_session ON msamp_profile (device, session);"
    "CREATE TABLE msamp_site ("
    " device text NOT NULL, profile_id bigint NOT NULL, t_end timestamptz NOT NULL,"
    " site int NOT NULL, stack text[] NOT NULL, task text NOT NULL, vals jsonb NOT NULL,"
    " PRIMARY KEY (device, profile_id, t_end, site)) PARTITION BY RANGE (t_end);"
    "CREATE TABLE msamp_leak ("
    " device text NOT NULL, profile_id bigint NOT NULL, t_end timestamptz NOT NULL,"
    " site int NOT NULL, slope double precision NOT NULL, slope_var double precision NOT NULL,"
    " since_s double precision NOT NULL,"
    " PRIMARY KEY (device, profile_id, t_end, site)) PARTITION BY RANGE (t_end);"
    "CREATE TABLE msamp_profile_default PARTITION OF msamp_profile DEFAULT;"
    "CREATE TABLE msamp_site_default PARTITION OF msamp_site DEFAULT;"
    "CREATE TABLE msamp_leak_default PARTITION OF msamp_leak DEFAULT;"
    /* The month of t's partitions (msamp_T_pYYYYMM, UTC), unless there or t out of range. */
    "CREATE FUNCTION msamp_partition(t timestamptz) RETURNS text LANGUAGE plpgsql AS $f$"
    " DECLARE lo timestamptz := " V3_MONTH_SQL("t") ";"
    " hi timestamptz := ((lo AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';"
    " sfx text := to_char(lo AT TIME ZONE 'UTC', 'YYYYMM'); tb text;"
    " BEGIN"
    " IF t < '2000-01-01 00:00+00' OR t >= now() + interval '1 year' THEN RETURN NULL; END IF;"
    " IF to_regclass('msamp_profile_p' || sfx) IS NOT NULL THEN RETURN sfx; END IF;"
    " PERFORM pg_advisory_xact_lock(7235871);"
    " IF to_regclass('msamp_profile_p' || sfx) IS NOT NULL THEN RETURN sfx; END IF;"
    " CREATE TEMP TABLE msamp_mv_p AS SELECT * FROM msamp_profile_default"
    "  WHERE t_end >= lo AND t_end < hi;"
    " CREATE TEMP TABLE msamp_mv_s AS SELECT * FROM msamp_site_default"
    "  WHERE t_end >= lo AND t_end < hi;"
    " CREATE TEMP TABLE msamp_mv_l AS SELECT * FROM msamp_leak_default"
    "  WHERE t_end >= lo AND t_end < hi;"
    " DELETE FROM msamp_leak_default WHERE t_end >= lo AND t_end < hi;"
    " DELETE FROM msamp_site_default WHERE t_end >= lo AND t_end < hi;"
    " DELETE FROM msamp_profile_default WHERE t_end >= lo AND t_end < hi;"
    " FOREACH tb IN ARRAY ARRAY['msamp_profile', 'msamp_site', 'msamp_leak'] LOOP"
    "  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',"
    "   tb || '_p' || sfx, tb, lo, hi);"
    " END LOOP;"
    " INSERT INTO msamp_profile SELECT * FROM msamp_mv_p;"
    " INSERT INTO msamp_site SELECT * FROM msamp_mv_s;"
    " INSERT INTO msamp_leak SELECT * FROM msamp_mv_l;"
    " DROP TABLE msamp_mv_p, msamp_mv_s, msamp_mv_l;"
    " RETURN sfx; END $f$;"
    "SELECT msamp_partition(m) FROM (SELECT DISTINCT " V3_MONTH_SQL("t_end")
    " AS m FROM msamp_profile_v2) x;"
    "INSERT INTO msamp_profile SELECT * FROM msamp_profile_v2;"
    "INSERT INTO msamp_site SELECT s.device, s.profile_id, p.t_end, s.site, s.stack, s.task,"
    " s.vals FROM msamp_site_v2 s JOIN msamp_profile_v2 p ON p.device = s.device"
    " AND p.id = s.profile_id;"
    "INSERT INTO msamp_leak SELECT l.device, l.profile_id, p.t_end, l.site, l.slope,"
    " l.slope_var, l.since_s FROM msamp_leak_v2 l JOIN msamp_profile_v2 p"
    " ON p.device = l.device AND p.id = l.profile_id;"
    "DROP TABLE msamp_leak_v2, msamp_site_v2, msamp_profile_v2;"
    "INSERT INTO msamp_schema VALUES (3);";

static PGconn *db_open(const char *conninfo, char *err, size_t errlen)
{
    fleet_load_libpq();
    PGconn *c = PQconnectdb(conninfo);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        snprintf(err, errlen, "cannot connect to the database: %s",
                 c ? PQerrorMessage(c) : "out of memory");
        size_t l = strlen(err);
        while (l && (err[l - 1] == '\n' || err[l - 1] == ' '))
            err[--l] = 0;
        PQfinish(c);
        return NULL;
    }
    PGresult *r = PQexec(c, "SET client_min_messages = warning");
    PQclear(r);
    return c;
}

/* The server's error (its message, then its SQLSTATE; class 53, insufficient resources, named:
 * 53100 a full disk, docs/FLEET.md) or the connection's. */
static int db_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r)
                                                                        : PQerrorMessage(c));
    size_t l = strlen(err);
    for (size_t i = 0; i < l; i++) /* one line: the server's DETAIL and HINT after a ';' */
        if (err[i] == '\n' && i + 1 < l)
            err[i] = ';';
    while (l && (err[l - 1] == '\n' || err[l - 1] == ' '))
        err[--l] = 0;
    const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (st && *st)
        snprintf(err + l, errlen - l, " (SQLSTATE %s%s)", st,
                 strcmp(st, "53100") == 0   ? ": the database server's disk is full"
                 : strncmp(st, "53", 2) == 0 ? ": the database server is out of resources"
                                             : "");
    PQclear(r);
    return -1;
}

static int db_cmd(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return db_err(c, r, what, err, errlen);
    PQclear(r);
    return 0;
}

/* Creates the schema, or checks its version (a newer one is an error: this drain does not know
 * it). Under an advisory lock, so that concurrent pushes create it once. */
static int db_schema(PGconn *c, int create, char *err, size_t errlen)
{
    if (db_cmd(c, "BEGIN", "begin", err, errlen) != 0)
        return -1;
    if (create && (db_cmd(c, "SELECT pg_advisory_xact_lock(7235871)", "lock", err, errlen) != 0 ||
                   db_cmd(c, "CREATE TABLE IF NOT EXISTS msamp_schema (version int NOT NULL)",
                          "creating msamp_schema", err, errlen) != 0))
        goto fail;
    PGresult *r = PQexec(c, "SELECT coalesce(max(version), 0) FROM msamp_schema");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        db_err(c, r, "reading the schema version (no fleet store here? drain push creates it)",
               err, errlen);
        goto fail;
    }
    int v = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    if (v > FLEET_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "the database's msamp schema is version %d, newer than this drain's (%d): use "
                 "a newer drain (nothing changed)", v, FLEET_SCHEMA_VERSION);
        goto fail;
    }
    if (v == 0 && !create) {
        snprintf(err, errlen, "the database holds no msamp profiles yet (drain push creates them)");
        goto fail;
    }
    /* Older versions are migrated (under the lock, in this transaction); fleet as well as push.
     * MSAMP_DRAIN_FLEET_SCHEMA=N stops at version N (the test of a migration makes a version 1
     * store with it). */
    const char *upto = getenv("MSAMP_DRAIN_FLEET_SCHEMA");
    int target = upto && atoi(upto) > 0 && atoi(upto) < FLEET_SCHEMA_VERSION ? atoi(upto)
                                                                               : FLEET_SCHEMA_VERSION;
    if (v < target && db_cmd(c, "SELECT pg_advisory_xact_lock(7235871)", "lock", err, errlen) != 0)
        goto fail;
    if (v < target && v > 0) { /* another drain may have migrated it meanwhile */
        PGresult *r2 = PQexec(c, "SELECT coalesce(max(version), 0) FROM msamp_schema");
        if (PQresultStatus(r2) != PGRES_TUPLES_OK) {
            db_err(c, r2, "reading the schema version", err, errlen);
            goto fail;
        }
        v = atoi(PQgetvalue(r2, 0, 0));
        PQclear(r2);
    }
    static const char *const steps[FLEET_SCHEMA_VERSION] = {schema_v1, schema_v2, schema_v3};
    for (; v < target; v++)
        if (db_cmd(c, steps[v], v ? "migrating the schema" : "creating the schema", err, errlen) !=
            0)
            goto fail;
    return db_cmd(c, "COMMIT", "commit", err, errlen);
fail:
    PQclear(PQexec(c, "ROLLBACK"));
    return -1;
}

static const char *pstr(const struct prof *p, int64_t i)
{
    return i >= 0 && (size_t)i < p->nstr ? p->str[i] : "";
}

/* The first value of the string label key over the samples ("" if none). */
static const char *first_label(const struct prof *p, const char *key)
{
    for (size_t s = 0; s < p->nsample; s++)
        for (uint32_t l = 0; l < p->sample[s].nlabel; l++) {
            const struct prof_label *lb = &p->labelpool[p->sample[s].label_off + l];
            if (lb->str && strcmp(pstr(p, lb->key), key) == 0)
                return pstr(p, lb->str);
        }
    return "";
}

/* The figure NAME of an msamp-heap comment (pprof/profile.c: " name=V", V '?' when unknown) into
 * out as digits; NULL when unknown or absent (the column's NULL). */
static const char *heap_fig(const char *comment, const char *name, char out[24])
{
    char key[32];
    snprintf(key, sizeof(key), " %s=", name);
    const char *v = strstr(comment, key);
    if (!v)
        return NULL;
    v += strlen(key);
    size_t n = strspn(v, "0123456789");
    if (n == 0 || n > 20)
        return NULL;
    memcpy(out, v, n);
    out[n] = 0;
    return out;
}

/* A site: a symbolized stack (innermost first) and a task; its samples' values summed. */
struct site {
    char *key;          /* the stack as JSON array text, a 0, the task */
    size_t key_len;
    size_t stack_len;   /* the JSON array's length in key */
    const char *task;
    int64_t *val;
};

static void frame_text(const struct prof *p, uint64_t locid, struct buf *b)
{
    const struct prof_location *l = &p->location[locid - 1];
    if (l->nline == 0) {
        char t[PROF_ADDR_TEXT];
        prof_addr_text(p, l, t, NULL);
        json_put_str(b, t, strlen(t), 0);
        return;
    }
    for (uint32_t i = 0; i < l->nline; i++) {
        const struct prof_line *ln = &p->linepool[l->line_off + i];
        const char *fn = ln->function_id ? pstr(p, p->function[ln->function_id - 1].name) : "?";
        if (i)
            buf_str(b, ",");
        json_put_str(b, fn, strlen(fn), 0);
    }
}

/* The profile's rollup by site, as JSON arrays msamp_site's rows are inserted from, of at most
 * SITE_BATCH sites each (a JSON value of PostgreSQL is at most 256 MiB). */
#define SITE_BATCH 4096
static size_t rollup_json(const struct prof *p, struct buf **batch, uint32_t **site_of_sample)
{
    struct site *sites = NULL;
    size_t nsites = 0, cap = 0;
    struct umap idx;
    memset(&idx, 0, sizeof(idx));
    *site_of_sample = xcalloc(p->nsample ? p->nsample : 1, sizeof(uint32_t));
    for (size_t s = 0; s < p->nsample; s++) {
        const struct prof_sample *sm = &p->sample[s];
        struct buf k = {0};
        buf_str(&k, "[");
        for (uint32_t i = 0; i < sm->nloc; i++) {
            if (i)
                buf_str(&k, ",");
            frame_text(p, p->locpool[sm->loc_off + i], &k);
        }
        buf_str(&k, "]");
        size_t stack_len = k.len;
        const char *task = "";
        for (uint32_t l = 0; l < sm->nlabel; l++) {
            const struct prof_label *lb = &p->labelpool[sm->label_off + l];
            if (lb->str && strcmp(pstr(p, lb->key), "task") == 0)
                task = pstr(p, lb->str);
        }
        buf_put(&k, "", 1); /* a 0 between stack and task in the key */
        buf_str(&k, task);
        uint64_t h = hash_bytes(k.p, k.len, 1);
        size_t j = umap_get(&idx, h);
        if (j < nsites && (sites[j].key_len != k.len || memcmp(sites[j].key, k.p, k.len) != 0))
            for (j = 0; j < nsites; j++) /* a hash collision: look through all (rare) */
                if (sites[j].key_len == k.len && memcmp(sites[j].key, k.p, k.len) == 0)
                    break;
        if (j > nsites)
            j = nsites;
        if (j == nsites) {
            grow((void **)&sites, &cap, nsites + 1, sizeof(*sites));
            sites[nsites] = (struct site){(char *)k.p, k.len, stack_len, task,
                                          xcalloc(p->nvt ? p->nvt : 1, 8)};
            umap_put(&idx, h, (uint32_t)nsites);
            nsites++;
        } else {
            buf_free(&k);
        }
        for (size_t v = 0; v < p->nvt; v++)
            sites[j].val[v] += p->valpool[sm->val_off + v];
        (*site_of_sample)[s] = (uint32_t)j;
    }
    size_t nb = (nsites + SITE_BATCH - 1) / SITE_BATCH;
    *batch = xcalloc(nb ? nb : 1, sizeof(**batch));
    for (size_t j = 0; j < nsites; j++) {
        struct buf *out = &(*batch)[j / SITE_BATCH];
        buf_printf(out, "%s{\"i\":%zu,\"stack\":", j % SITE_BATCH ? "," : "[", j);
        buf_put(out, sites[j].key, sites[j].stack_len);
        buf_str(out, ",\"task\":");
        json_put_str(out, sites[j].task, strlen(sites[j].task), 0);
        buf_str(out, ",\"vals\":{");
        for (size_t v = 0; v < p->nvt; v++) {
            const char *name = pstr(p, p->vt[v].type);
            if (v)
                buf_str(out, ",");
            json_put_str(out, name, strlen(name), 0);
            buf_printf(out, ":%lld", (long long)sites[j].val[v]);
        }
        buf_str(out, j % SITE_BATCH == SITE_BATCH - 1 || j == nsites - 1 ? "}}]" : "}}");
        free(sites[j].key);
        free(sites[j].val);
    }
    free(sites);
    umap_free(&idx);
    return nb;
}

/* "{a,b}" text array literal of strings. */
static void pg_array(struct buf *b, const char *const *v, size_t n)
{
    buf_str(b, "{");
    for (size_t i = 0; i < n; i++) {
        buf_str(b, i ? ",\"" : "\"");
        for (const char *s = v[i]; *s; s++) {
            if (*s == '"' || *s == '\\')
                buf_put(b, "\\", 1);
            buf_put(b, s, 1);
        }
        buf_str(b, "\"");
    }
    buf_str(b, "}");
}

/* Whether string i holds a NUL byte (its text cut there). */
static int has_nul(const struct prof *p, int64_t i)
{
    return i > 0 && (size_t)i < p->nstr && memchr(p->str[i], 0, p->strlen[i]) != NULL;
}

/* A string the store keeps as text (a label's key or value, a sample type, a comment, a mapping's
 * build id) that holds a NUL byte: PostgreSQL's text cannot hold one, and cut there a device's name
 * would be another's. 0 when there is none, else -1 with what it is in why. */
static int nul_check(const struct prof *p, char *why, size_t whylen)
{
    const char *what = NULL;
    int64_t at = 0, key = 0;
    for (size_t s = 0; s < p->nsample && !what; s++)
        for (uint32_t l = 0; l < p->sample[s].nlabel && !what; l++) {
            const struct prof_label *lb = &p->labelpool[p->sample[s].label_off + l];
            if (has_nul(p, lb->key) || has_nul(p, lb->str))
                what = "a label", key = lb->key, at = has_nul(p, lb->key) ? lb->key : lb->str;
        }
    for (size_t v = 0; v < p->nvt && !what; v++)
        if (has_nul(p, p->vt[v].type))
            what = "a sample type", at = p->vt[v].type;
    for (size_t i = 0; i < p->ncomment && !what; i++)
        if (has_nul(p, p->comment[i]))
            what = "a comment", at = p->comment[i];
    for (size_t m = 0; m < p->nmapping && !what; m++)
        if (has_nul(p, p->mapping[m].build_id))
            what = "a mapping's build id", at = p->mapping[m].build_id;
    if (!what)
        return 0;
    snprintf(why, whylen, "%s%s%s holds a NUL byte (\"%s\\0...\"): refused, nothing stored (the "
             "store's text cannot hold one; cut there, it would be another's)", what,
             key ? " " : "", key ? pstr(p, key) : "", pstr(p, at));
    return -1;
}

static int push_one(PGconn *c, const char *path, int *stored, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct buf raw = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && raw.len <= PROF_MAX_FILE)
        buf_put(&raw, chunk, n);
    int rerr = ferror(f);
    fclose(f);
    if (rerr || raw.len > PROF_MAX_FILE) {
        snprintf(err, errlen, "%s: %s", path, rerr ? "read error" : "larger than the bound");
        buf_free(&raw);
        return -1;
    }
    struct prof p;
    char why[512];
    int bad = prof_read_mem(&p, raw.p, raw.len, why, sizeof(why));
    if (bad == 0 && nul_check(&p, why, sizeof(why)) != 0) {
        prof_free(&p);
        bad = -1;
    }
    if (bad != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        buf_free(&raw);
        return -1;
    }
    /* What selects it. */
    const char *device = first_label(&p, "device");
    const char *build = first_label(&p, "build_id");
    if (!*build)
        for (size_t m = 0; m < p.nmapping && !*build; m++)
            build = pstr(&p, p.mapping[m].build_id);
    const char *session = first_label(&p, "session");
    /* A device that sends no id (its configuration leaves it out) is known by its session only. */
    char anon[96];
    if (!*device) {
        snprintf(anon, sizeof(anon), "session-%s", *session ? session : "unknown");
        device = anon;
    }
    const char *kind = "final";
    long long failures = 0;
    const char *heap[4] = {NULL, NULL, NULL, NULL};
    char heapv[4][24];
    const char **cm = xcalloc(p.ncomment + 1, sizeof(char *));
    for (size_t i = 0; i < p.ncomment; i++) {
        cm[i] = pstr(&p, p.comment[i]);
        if (strstr(cm[i], "no END yet (the stream goes on)"))
            kind = "partial";
        unsigned long long a, g;
        if (sscanf(cm[i], "allocation failures: null=%llu giant_refused=%llu", &a, &g) == 2)
            failures = (long long)(a + g);
        if (strncmp(cm[i], "msamp-heap ", 11) == 0) {
            static const char *const fig[4] = {"free", "min_free", "largest_free", "total"};
            for (int f = 0; f < 4; f++)
                heap[f] = heap_fig(cm[i], fig[f], heapv[f]);
        }
    }
    /* The labels: every distinct string label K=V but the per-site ones. */
    struct buf lab = {0};
    char **lv = NULL;
    size_t nlv = 0, caplv = 0;
    for (size_t s = 0; s < p.nsample; s++)
        for (uint32_t l = 0; l < p.sample[s].nlabel; l++) {
            const struct prof_label *lb = &p.labelpool[p.sample[s].label_off + l];
            const char *k = pstr(&p, lb->key);
            if (!lb->str || strcmp(k, "task") == 0)
                continue;
            char kv[512];
            snprintf(kv, sizeof(kv), "%s=%s", k, pstr(&p, lb->str));
            size_t i = 0;
            while (i < nlv && strcmp(lv[i], kv) != 0)
                i++;
            if (i == nlv && nlv < 256) {
                grow((void **)&lv, &caplv, nlv + 1, sizeof(*lv));
                lv[nlv++] = xstrndup(kv, strlen(kv));
            }
        }
    pg_array(&lab, (const char *const *)lv, nlv);
    const char **vtn = xcalloc(p.nvt + 1, sizeof(char *));
    for (size_t v = 0; v < p.nvt; v++)
        vtn[v] = pstr(&p, p.vt[v].type);
    struct buf vts = {0}, cms = {0}, leaks = {0}, *sites;
    pg_array(&vts, vtn, p.nvt);
    /* The totals: each type summed over the samples, as a JSON object. */
    struct buf tot = {0};
    int64_t *sum = xcalloc(p.nvt + 1, sizeof(int64_t));
    for (size_t i = 0; i < p.nsample; i++)
        for (size_t v = 0; v < p.nvt; v++)
            sum[v] += p.valpool[p.sample[i].val_off + v];
    buf_str(&tot, "{");
    for (size_t v = 0; v < p.nvt; v++) {
        json_put_str(&tot, vtn[v], strlen(vtn[v]), 0);
        buf_printf(&tot, ":%lld%s", (long long)sum[v], v + 1 < p.nvt ? "," : "");
    }
    buf_str(&tot, "}");
    free(sum);
    pg_array(&cms, cm, p.ncomment);
    uint32_t *site_of;
    size_t nbatch = rollup_json(&p, &sites, &site_of);
    struct growth_leak gl[256];
    size_t ngl = growth_leaks_from_prof(&p, gl, 256);
    buf_str(&leaks, "[");
    for (size_t i = 0; i < ngl; i++)
        buf_printf(&leaks, "%s{\"i\":%u,\"slope\":%.17g,\"var\":%.17g,\"since\":%.17g}",
                  i ? "," : "", gl[i].sample < p.nsample ? site_of[gl[i].sample] : 0,
                  gl[i].slope_bytes_per_s.est, gl[i].slope_bytes_per_s.var, gl[i].since_s);
    buf_str(&leaks, "]");
    char t0[32], t1[32], fl[32];
    snprintf(t0, sizeof(t0), "%lld", (long long)p.time_nanos);
    snprintf(t1, sizeof(t1), "%lld", (long long)(p.time_nanos + p.duration_nanos));
    snprintf(fl, sizeof(fl), "%lld", failures);
    const char *vals[16] = {device, build, session, kind, t0, t1, buf_cstr(&lab),
                            buf_cstr(&vts), buf_cstr(&cms), fl, (const char *)raw.p,
                            buf_cstr(&tot), heap[0], heap[1], heap[2], heap[3]};
    int lens[16] = {0};
    int fmts[16] = {0};
    lens[10] = (int)raw.len;
    fmts[10] = 1;
    /* One transaction: the profile unless its hash is there, then its sites and leaks. */
    static const char sql[] =
        "INSERT INTO msamp_profile (device, build_id, session, kind, t_start, t_end,"
        " labels, sample_types, comments, failures, bytes, sha256, totals, heap_free,"
        " heap_min_free, heap_largest_free, heap_total)"
        " VALUES ($1, $2, $3, $4, to_timestamp($5::numeric / 1e9), to_timestamp($6::numeric / 1e9),"
        " $7::text[], $8::text[], $9::text[], $10::bigint, $11::bytea, sha256($11::bytea),"
        " $12::jsonb, $13::bigint, $14::bigint, $15::bigint, $16::bigint)"
        " ON CONFLICT (device, sha256, t_end) DO NOTHING RETURNING id, t_end";
    static const char sql_sites[] =
        "INSERT INTO msamp_site (device, profile_id, t_end, site, stack, task, vals)"
        " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int,"
        " ARRAY(SELECT jsonb_array_elements_text(e->'stack')), e->>'task', e->'vals'"
        " FROM jsonb_array_elements($3::jsonb) e";
    static const char sql_leaks[] =
        "INSERT INTO msamp_leak (device, profile_id, t_end, site, slope, slope_var, since_s)"
        " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int, (e->>'slope')::float8,"
        " (e->>'var')::float8, (e->>'since')::float8 FROM jsonb_array_elements($3::jsonb) e"
        " ON CONFLICT DO NOTHING";
    /* The month's partitions first (made once, in their own transaction: msamp_partition). */
    static const char sql_part[] = "SELECT msamp_partition(to_timestamp($1::numeric / 1e9))";
    char what[600];
    snprintf(what, sizeof(what), "%s: storing it", path);
    PGresult *r = PQexecParams(c, sql_part, 1, NULL, &vals[5], NULL, NULL, 0);
    int rc = PQresultStatus(r) != PGRES_TUPLES_OK ? db_err(c, r, what, err, errlen) : 0;
    if (rc == 0)
        PQclear(r);
    rc = rc ? rc : db_cmd(c, "BEGIN", what, err, errlen);
    r = rc ? NULL : PQexecParams(c, sql, 16, NULL, vals, lens, fmts, 0);
    *stored = 0;
    if (r && PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = db_err(c, r, what, err, errlen);
    } else if (r) {
        char id[32], te[64];
        *stored = PQntuples(r);
        snprintf(id, sizeof(id), "%s", *stored ? PQgetvalue(r, 0, 0) : "");
        snprintf(te, sizeof(te), "%s", *stored ? PQgetvalue(r, 0, 1) : "");
        PQclear(r);
        for (size_t i = 0; *stored && rc == 0 && i <= nbatch; i++) {
            const char *rows = buf_cstr(i < nbatch ? &sites[i] : &leaks);
            const char *v[4] = {device, id, rows, te};
            r = PQexecParams(c, i < nbatch ? sql_sites : sql_leaks, 4, NULL, v, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                rc = db_err(c, r, what, err, errlen);
            else
                PQclear(r);
        }
    }
    if (rc == 0)
        rc = db_cmd(c, "COMMIT", what, err, errlen);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    for (size_t i = 0; i < nbatch; i++)
        buf_free(&sites[i]);
    free(sites);
    for (size_t i = 0; i < nlv; i++)
        free(lv[i]);
    free(lv);
    free(vtn);
    free(cm);
    free(site_of);
    buf_free(&lab);
    buf_free(&vts);
    buf_free(&tot);
    buf_free(&cms);
    buf_free(&leaks);
    prof_free(&p);
    buf_free(&raw);
    return rc;
}

int fleet_push_file(const char *conninfo, const char *path, char *err, size_t errlen)
{
    PGconn *c = db_open(conninfo, err, errlen);
    if (!c)
        return -1;
    int stored = 0;
    int rc = db_schema(c, 1, err, errlen) == 0 ? push_one(c, path, &stored, err, errlen) : -1;
    PQfinish(c);
    return rc;
}

/* The head drain push and drain fleet share: --help, or --db CONNINFO and at least one more word.
 * Returns -1 to go on, else the exit status (0 after --help; 2 after a usage error). */
static int db_head(int argc, char **argv, const char *usage)
{
    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 4 || strcmp(argv[1], "--db") != 0) {
        fputs(usage, stderr);
        return 2;
    }
    return -1;
}

static const char push_usage[] =
    "usage: drain push --db CONNINFO PROFILE...\n"
    "Stores pprof profiles (drain's) in PostgreSQL: CONNINFO is a libpq connection string or URI.\n"
    "A profile already stored (the same bytes) is stored once. See docs/FLEET.md.\n";

/* push's connection, its schema made or migrated; NULL with err. */
static PGconn *push_open(const char *conninfo, char *err, size_t errlen)
{
    PGconn *c = db_open(conninfo, err, errlen);
    if (c && db_schema(c, 1, err, errlen) != 0) {
        PQfinish(c);
        return NULL;
    }
    const char *upto = getenv("MSAMP_DRAIN_FLEET_SCHEMA");
    if (c && upto && atoi(upto) > 0 && atoi(upto) < FLEET_SCHEMA_VERSION) {
        snprintf(err, errlen, "the schema is at version %d at most (MSAMP_DRAIN_FLEET_SCHEMA)",
                 atoi(upto));
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Every file is pushed or named with why not. A connection lost on a file (the server went down,
 * its backend ended) is opened again for the next one; when that fails, each file left is named
 * with the reason (not tried again: a server that is down would make each wait). */
int drain_push(int argc, char **argv)
{
    int head = db_head(argc, argv, push_usage);
    if (head >= 0)
        return head;
    char err[1024];
    PGconn *c = push_open(argv[2], err, sizeof(err));
    int nnew = 0, nold = 0, nfail = 0;
    for (int i = 3; i < argc; i++) {
        int stored = 0;
        if (c && PQstatus(c) != CONNECTION_OK) {
            PQfinish(c);
            c = push_open(argv[2], err, sizeof(err));
        }
        if (!c) {
            fprintf(stderr, "drain push: %s: not pushed: %s\n", argv[i], err);
            nfail++;
        } else if (push_one(c, argv[i], &stored, err, sizeof(err)) != 0) {
            fprintf(stderr, "drain push: %s\n", err);
            nfail++;
        } else {
            stored ? nnew++ : nold++;
        }
    }
    fprintf(stderr, "drain push: %d profiles stored, %d already there, %d not pushed\n", nnew, nold,
            nfail);
    PQfinish(c);
    return nfail ? 1 : 0;
}

/* ---- drain fleet ---- */

struct sel {
    const char *device[MAX_FILTERS];
    int ndevice;
    const char *build, *since, *until, *json;
    const char *label[MAX_FILTERS];
    int nlabel;
    const char *params[2 * MAX_FILTERS + 4 + MAX_TYPES];
    int nparams;
    struct buf where;    /* over msamp_profile p */
    struct buf where_st; /* over msamp_site st: --since on its t_end too (partition pruning) */
};

static const char *add_param(struct sel *s, const char *v)
{
    static char num[2 * MAX_FILTERS + 4 + MAX_TYPES][16];
    s->params[s->nparams] = v;
    snprintf(num[s->nparams], sizeof(num[0]), "$%u", (unsigned)(s->nparams + 1) % 1000u);
    return num[s->nparams++];
}

/* A time: seconds since the epoch, or anything PostgreSQL's timestamptz reads (parameter pn). */
static void time_sql(struct buf *b, const char *pn)
{
    buf_printf(b, "(CASE WHEN %s ~ '^[0-9]+(\\.[0-9]*)?$' THEN to_timestamp(%s::float8)"
              " ELSE %s::timestamptz END)", pn, pn, pn);
}
/* Whether the server reads t as a time (time_sql): 0; 2 with why when it does not (a data
 * exception, SQLSTATE class 22: bad input, the command line's); -1 with why on another error. */
static int time_check(PGconn *c, const char *opt, const char *t, char *why, size_t whylen)
{
    struct buf q = {0};
    buf_str(&q, "SELECT ");
    time_sql(&q, "$1::text");
    PGresult *r = PQexecParams(c, buf_cstr(&q), 1, NULL, &t, NULL, NULL, 0);
    buf_free(&q);
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        PQclear(r);
        return 0;
    }
    const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    int bad = st && strncmp(st, "22", 2) == 0;
    char what[128];
    snprintf(what, sizeof(what), "%s %s%s", opt, t,
             bad ? ": not a time (seconds since the epoch or a timestamp)" : "");
    db_err(c, r, what, why, whylen);
    return bad ? 2 : -1;
}

static void time_cond(struct sel *s, const char *col, const char *op, const char *t)
{
    const char *pn = add_param(s, t);
    buf_printf(&s->where, " AND p.%s %s ", col, op);
    time_sql(&s->where, pn);
    if (strcmp(col, "t_end") == 0) { /* the site rows carry t_end: their partitions pruned too */
        buf_printf(&s->where_st, " AND st.%s %s ", col, op);
        time_sql(&s->where_st, pn);
    }
}

static void sel_build(struct sel *s)
{
    buf_str(&s->where, "TRUE");
    buf_str(&s->where_st, "");
    if (s->ndevice) {
        buf_str(&s->where, " AND p.device IN (");
        for (int i = 0; i < s->ndevice; i++)
            buf_printf(&s->where, "%s%s", i ? ", " : "", add_param(s, s->device[i]));
        buf_str(&s->where, ")");
    }
    if (s->build)
        buf_printf(&s->where, " AND p.build_id = %s", add_param(s, s->build));
    if (s->since)
        time_cond(s, "t_end", ">=", s->since);
    if (s->until)
        time_cond(s, "t_start", "<=", s->until);
    for (int i = 0; i < s->nlabel; i++)
        buf_printf(&s->where, " AND %s = ANY (p.labels)", add_param(s, s->label[i]));
}

static PGresult *sel_query(PGconn *c, struct sel *s, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexecParams(c, sql, s->nparams, NULL, s->params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        db_err(c, r, "query", err, errlen);
        return NULL;
    }
    return r;
}

static int fleet_merge(PGconn *c, struct sel *s, const char *out, char *err, size_t errlen)
{
    struct buf q = {0};
    buf_printf(&q, "SELECT p.bytes FROM msamp_profile p WHERE %s ORDER BY p.t_start, p.device, p.id",
              buf_cstr(&s->where));
    PGresult *r = PQexecParams(c, buf_cstr(&q), s->nparams, NULL, s->params, NULL, NULL, 1);
    buf_free(&q);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        return db_err(c, r, "query", err, errlen);
    int n = PQntuples(r);
    if (n == 0) {
        PQclear(r);
        snprintf(err, errlen, "no stored profile matches the selection");
        return -1;
    }
    struct merger mg;
    merge_init(&mg);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct prof in;
        if (prof_read_mem(&in, (const uint8_t *)PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0),
                          err, errlen) != 0) {
            rc = -1;
            break;
        }
        rc = merge_add(&mg, &in, err, errlen);
        prof_free(&in);
    }
    PQclear(r);
    if (rc == 0) {
        merge_finish(&mg);
        rc = prof_write_file(&mg.out, out, err, errlen);
        if (rc == 0)
            fprintf(stderr, "drain fleet merge: %d profiles merged into %s\n", n, out);
    }
    merge_free(&mg);
    return rc;
}

/* The sample type the ranking uses: inuse_space when there, else the last one. */
static const char rank_sql[] =
    "(SELECT coalesce((SELECT t FROM unnest(p.sample_types) t WHERE t = 'inuse_space'),"
    " p.sample_types[array_length(p.sample_types, 1)]))";

/* --json FILE of a query, written whole or not at all (util.h's out_file): *jf the open file
 * (NULL without --json); -1 with why ("--json PATH: reason") when it cannot be opened. */
static int json_open(struct out_file *o, FILE **jf, const char *path, char *err, size_t errlen)
{
    *jf = NULL;
    if (!path)
        return 0;
    char why[512]; /* a path and a reason, within err's 1024 with the prefix */
    if (out_open(o, path, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--json %s", why);
        return -1;
    }
    *jf = o->f;
    return 0;
}

/* Ends the document with tail and completes it: -1 with why when the writes failed (a full disk). */
static int json_close(struct out_file *o, FILE *jf, const char *tail, char *err, size_t errlen)
{
    if (!jf)
        return 0;
    fputs(tail, jf);
    char why[512]; /* a path and a reason, within err's 1024 with the prefix */
    if (out_close(o, 0, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--json %s", why);
        return -1;
    }
    return 0;
}

/* top: the selection's sample types (in the profiles' order), then one row per site (stack, task)
 * with each type's sum, aggregated by the server over the site rows (one GROUP BY, no row per
 * type); the first --top N by the ranking type. */
static int fleet_top(PGconn *c, struct sel *s, long ntop, char *err, size_t errlen)
{
    struct buf q = {0};
    buf_printf(&q,
              "SELECT t FROM msamp_profile p, unnest(p.sample_types) WITH ORDINALITY u(t, o)"
              " WHERE %s GROUP BY t ORDER BY min(o), t", buf_cstr(&s->where));
    PGresult *ty = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    if (!ty)
        return -1;
    int nt = PQntuples(ty), rank = nt - 1;
    for (int k = 0; k < nt; k++)
        if (strcmp(PQgetvalue(ty, k, 0), "inuse_space") == 0)
            rank = k;
    if (nt > MAX_TYPES)
        nt = MAX_TYPES;
    int base = s->nparams;
    q = (struct buf){0};
    buf_str(&q, "SELECT array_to_json(st.stack)::text, st.task, count(*) OVER ()");
    for (int k = 0; k < nt; k++) {
        add_param(s, PQgetvalue(ty, k, 0));
        buf_printf(&q, ", sum((st.vals->>$%d)::numeric)::text", base + k + 1);
    }
    buf_printf(&q, " FROM msamp_profile p JOIN msamp_site st ON st.device = p.device AND"
              " st.profile_id = p.id AND st.t_end = p.t_end WHERE %s%s GROUP BY st.stack, st.task",
              buf_cstr(&s->where), buf_cstr(&s->where_st));
    if (nt > 0)
        buf_printf(&q, " ORDER BY sum((st.vals->>$%d)::numeric) DESC NULLS LAST, 1, 2",
                  base + (rank < nt ? rank : 0) + 1);
    buf_printf(&q, " LIMIT %ld", ntop);
    PGresult *r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    struct out_file jo;
    FILE *jf = NULL;
    if (!r || json_open(&jo, &jf, s->json, err, errlen) < 0) {
        PQclear(r);
        PQclear(ty);
        return -1;
    }
    if (jf)
        fputs("{\"sites\":[", jf);
    printf("top sites of the selection (%s sites; value [95 %% interval] when the variance is "
           "stored)\n", PQntuples(r) ? PQgetvalue(r, 0, 2) : "0");
    for (int i = 0; i < PQntuples(r); i++) {
        printf("%d. %s%s%s\n", i + 1, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1)[0] ? " task=" : "",
               PQgetvalue(r, i, 1));
        if (jf) {
            struct buf b = {0};
            json_put_str(&b, PQgetvalue(r, i, 1), strlen(PQgetvalue(r, i, 1)), 0);
            fprintf(jf, "%s{\"stack\":%s,\"task\":%s,\"values\":{", i ? "," : "",
                    PQgetvalue(r, i, 0), buf_cstr(&b));
            buf_free(&b);
        }
        int first = 1;
        for (int k = 0; k < nt; k++) {
            const char *key = PQgetvalue(ty, k, 0);
            size_t kl = strlen(key);
            if ((kl > 4 && strcmp(key + kl - 4, "_var") == 0) || PQgetlength(r, i, 3 + k) == 0)
                continue;
            const char *val = PQgetvalue(r, i, 3 + k);
            struct est e = {atof(val), -1};
            for (int m = 0; m < nt; m++)
                if (strncmp(PQgetvalue(ty, m, 0), key, kl) == 0 &&
                    strcmp(PQgetvalue(ty, m, 0) + kl, "_var") == 0 && PQgetlength(r, i, 3 + m))
                    e.var = atof(PQgetvalue(r, i, 3 + m));
            if (e.var >= 0)
                printf("   %s %s [%.0f, %.0f]\n", key, val, est_lo(e), est_hi(e));
            else
                printf("   %s %s\n", key, val);
            if (jf) {
                fprintf(jf, "%s\"%s\":{\"value\":%s", first ? "" : ",", key, val);
                if (e.var >= 0)
                    fprintf(jf, ",\"lo\":%.17g,\"hi\":%.17g", est_lo(e), est_hi(e));
                fputs("}", jf);
            }
            first = 0;
        }
        if (jf)
            fputs("}}", jf);
    }
    int rc = json_close(&jo, jf, "]}\n", err, errlen);
    PQclear(r);
    PQclear(ty);
    return rc;
}

/* A JSON value of a column: its text, or null when SQL NULL. */
static const char *jv(const PGresult *r, int i, int k)
{
    return PQgetlength(r, i, k) ? PQgetvalue(r, i, k) : "null";
}
/* A text column's value, or "?" when SQL NULL (unknown). */
static const char *tv(const PGresult *r, int i, int k)
{
    return PQgetlength(r, i, k) ? PQgetvalue(r, i, k) : "?";
}

/* A device's time to exhaustion (docs/FLEET.md), from its latest profile's comment c ("": none,
 * an older drain's) and driver (its fastest leak's innermost frame, "" none): into txt, the
 * devices table's column ("3.70 h [3.20 h, 4.38 h] leak_record", "not within 13.3 min", "?"
 * unknown), or into js, ',"exhaustion":...' as drain's --json says it. */
static void device_exhaustion(FILE *txt, FILE *js, const char *c, const char *driver)
{
    struct exhaustion e;
    int have = exhaust_parse(c, 0, &e);
    char t[32], lo[32], hi[32];
    fmt_secs(t, sizeof(t), e.t);
    fmt_secs(lo, sizeof(lo), e.lo);
    fmt_secs(hi, sizeof(hi), e.hi);
    int out = exhaust_running_out(&e);
    if (txt) {
        if (!e.known)
            fputs("  ?", txt);
        else if (out)
            fprintf(txt, "  %s [%s, %s] %s", t, lo, hi, driver);
        else
            fprintf(txt, "  not within %s", lo);
        return;
    }
    fputs(",\"exhaustion\":", js);
    if (!have) {
        fputs("null", js);
        return;
    }
    if (!exhaust_json(js, &e))
        return;
    fputs(", \"driver\": ", js);
    json_str(js, out && driver[0] ? driver : NULL);
    fputc('}', js);
}

static int fleet_devices(PGconn *c, struct sel *s, char *err, size_t errlen)
{
    struct buf q = {0};
    /* Per device: the smallest free heap its allocator reported (min_free of its profiles'
     * last HEAP records), its failures (per session the most its profiles count, summed over
     * sessions), its latest profile's in-use, free, largest free block and heap size (a final
     * one before a partial at the same end), its profiles, its smallest and largest in-use.
     * Ranked by minimum free heap (unknown last), then failures, then in-use. One row a
     * profile is read (its totals), not its sites; of the latest profile, its time to exhaustion
     * (its msamp-verdict exhaustion comment, as drain stored it) and its fastest leak's innermost
     * frame (the forecast's driver); its sessions a reset ended (their profiles' msamp-verdict
     * ended comments: verdict/ended.h). */
    buf_printf(&q,
              "WITH sel AS (SELECT p.device, p.id, p.session, p.t_end, p.kind, p.failures,"
              " p.heap_free, p.heap_min_free, p.heap_largest_free, p.heap_total,"
              " (p.totals->>%s)::numeric AS inuse, %s AS rank_type,"
              " EXISTS (SELECT 1 FROM unnest(p.comments) c"
              " WHERE c LIKE 'msamp-verdict ended|how=reset|%%') AS reset_ended"
              " FROM msamp_profile p WHERE %s),"
              " lat AS (SELECT DISTINCT ON (device) * FROM sel"
              " ORDER BY device, t_end DESC, kind = 'final' DESC, id DESC),"
              " fl AS (SELECT device, sum(f) AS f FROM (SELECT device, max(failures) AS f FROM sel"
              " GROUP BY device, session) x GROUP BY device),"
              " agg AS (SELECT device, count(*) AS n, min(inuse) AS lo, max(inuse) AS hi,"
              " min(heap_min_free) AS min_free,"
              " count(DISTINCT session) FILTER (WHERE reset_ended) AS resets"
              " FROM sel GROUP BY device)"
              " SELECT agg.device, agg.min_free, fl.f, lat.inuse, agg.n, agg.lo, agg.hi,"
              " lat.heap_free, lat.heap_largest_free, lat.heap_total, lat.rank_type,"
              " (SELECT c FROM msamp_profile pp, unnest(pp.comments) c WHERE pp.device ="
              " lat.device AND pp.id = lat.id AND pp.t_end = lat.t_end"
              " AND c LIKE 'msamp-verdict exhaustion|%%' LIMIT 1),"
              " (SELECT st.stack[1] FROM msamp_leak l JOIN msamp_site st"
              " USING (device, profile_id, t_end, site) WHERE l.device = lat.device"
              " AND l.profile_id = lat.id AND l.t_end = lat.t_end ORDER BY l.slope DESC LIMIT 1),"
              " agg.resets FROM agg JOIN fl USING (device) JOIN lat USING (device)"
              " ORDER BY agg.min_free ASC NULLS LAST, fl.f DESC, lat.inuse DESC NULLS LAST,"
              " agg.device",
              rank_sql, rank_sql, buf_cstr(&s->where));
    PGresult *r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    struct out_file jo;
    FILE *jf = NULL;
    if (!r || json_open(&jo, &jf, s->json, err, errlen) < 0) {
        PQclear(r);
        return -1;
    }
    if (jf)
        fputs("{\"devices\":[", jf);
    printf("devices by minimum free heap (the allocator's HEAP records; ? unknown), failures, "
           "in-use (their latest profile's %s)\n", PQntuples(r) ? PQgetvalue(r, 0, 10) : "");
    static const char *const col[10] = {"device", "min free", "failures", "in-use", "profiles",
                                        "min in-use", "max in-use", "free", "largest free",
                                        "heap"};
    static const char *const key[10] = {"device",    "min_free",  "failures",   "inuse",
                                        "profiles",  "min_inuse", "max_inuse",  "free",
                                        "largest_free", "heap_total"};
    printf("  %-24s", col[0]);
    for (int k = 1; k < 10; k++)
        printf(" %*s", k == 2 || k == 4 ? 9 : 12, col[k]);
    printf(" %7s  %s\n", "resets", "runs out in (95 %), driven by");
    for (int i = 0; i < PQntuples(r); i++) {
        printf("  %-24s", PQgetvalue(r, i, 0));
        for (int k = 1; k < 10; k++)
            printf(" %*s", k == 2 || k == 4 ? 9 : 12, tv(r, i, k));
        printf(" %7s", tv(r, i, 13));
        device_exhaustion(stdout, NULL, PQgetvalue(r, i, 11), PQgetvalue(r, i, 12));
        printf("\n");
        if (jf) {
            struct buf b = {0};
            json_put_str(&b, PQgetvalue(r, i, 0), strlen(PQgetvalue(r, i, 0)), 0);
            fprintf(jf, "%s{\"device\":%s", i ? "," : "", buf_cstr(&b));
            for (int k = 1; k < 10; k++)
                fprintf(jf, ",\"%s\":%s", key[k], jv(r, i, k));
            fprintf(jf, ",\"resets\":%s", jv(r, i, 13));
            device_exhaustion(NULL, jf, PQgetvalue(r, i, 11), PQgetvalue(r, i, 12));
            fputs("}", jf);
            buf_free(&b);
        }
    }
    int rc = json_close(&jo, jf, "]}\n", err, errlen);
    PQclear(r);
    return rc;
}

/* leaks: two kinds of evidence (docs/FLEET.md). The leak verdicts of each device's latest profile,
 * as drain stored them (verdict_leaks). And the verdicts' test (docs/VERDICTS.md "Leaks by
 * growth") over consecutive profiles of a device. Per session of the device (its profiles:
 * partials and the final), ordered by the device time they cover (t_end - t_start, from the
 * session's first record), the change D of each site's in-use from the session's middle (its first
 * profile at or after half the time its last covers, before the last) to its last profile. D's
 * variance is that of the sampled blocks whose state differs between the two (growth.c); from the
 * rollups it is bounded above by: the blocks born between them and live at the end (at most the
 * last's inuse_space_var and at most the growth of its alloc_space_var), plus, unless the site
 * freed nothing between them (freed_objects did not grow), the blocks live at the middle (its
 * inuse_space_var). An upper bound: the test is conservative. The sessions' changes, variances and
 * times add up (their samples are independent). A site is a suspect when D >= 3.29 sd (or, exact,
 * a byte or more) and so is its group's: the sites of the same innermost frame together. Sites are
 * matched by stack (unsymbolized frames as "?") and task. */
#define F(row, key) "coalesce((" row "->>'" key "')::float8, 0)"
/* A site's stack with its raw addresses ("0x...") as "?": across sessions a raw address names
 * no place (profiles of drains before hosted images' frames became "[lib.so]+0xOFF", which ASLR
 * does not move and which are kept), so the same call path of two sessions is one site. */
#define STACK_SQL                                                                                \
    "ARRAY(SELECT CASE WHEN f ~ '^0x[0-9a-f]+$' THEN '?' ELSE f END FROM"                        \
    " unnest(st.stack) WITH ORDINALITY u(f, o) ORDER BY o)"

/* A leak suspect of fleet leaks: a device's site with the evidence it has, the leak verdict of
 * the device's latest profile (v: its slope, since) and the growth across consecutive profiles
 * (c: the change d over dt seconds, its sessions and profiles); the slope reported is the
 * verdict's when there is one (the profile's own, as drain --leaks gave it), else the growth's. */
struct suspect {
    const char *device, *stack, *task;
    int has_v, has_c;
    struct est v, d;
    double since, dt;
    const char *nses, *nprof;
};

static struct est suspect_slope(const struct suspect *x)
{
    if (x->has_v)
        return x->v;
    return (struct est){x->d.est / x->dt, x->d.var / (x->dt * x->dt)};
}

static int by_suspect_slope(const void *a, const void *b)
{
    const struct suspect *x = a, *y = b;
    double sx = suspect_slope(x).est, sy = suspect_slope(y).est;
    if (sx != sy)
        return sx < sy ? 1 : -1;
    int c = strcmp(x->device, y->device);
    c = c ? c : strcmp(x->stack, y->stack);
    return c ? c : strcmp(x->task, y->task);
}

/* The leak verdicts (msamp_leak rows, the profile's msamp-verdict leak comments) of each selected
 * device's latest profile (the latest end; a final before a partial), with their sites' stacks. */
static PGresult *verdict_leaks(PGconn *c, struct sel *s, char *err, size_t errlen)
{
    struct buf q = {0};
    buf_printf(&q,
              "WITH sel AS (SELECT p.device, p.id, p.t_end, p.kind FROM msamp_profile p WHERE %s),"
              " lat AS (SELECT DISTINCT ON (device) device, id, t_end FROM sel"
              " ORDER BY device, t_end DESC, kind = 'final' DESC, id DESC)"
              " SELECT lat.device, array_to_json(" STACK_SQL ")::text, st.task, lk.slope,"
              " lk.slope_var, lk.since_s FROM lat JOIN msamp_leak lk ON lk.device = lat.device"
              " AND lk.profile_id = lat.id AND lk.t_end = lat.t_end JOIN msamp_site st"
              " ON st.device = lk.device AND st.profile_id = lk.profile_id AND st.t_end = lk.t_end"
              " AND st.site = lk.site WHERE TRUE%s",
              buf_cstr(&s->where), buf_cstr(&s->where_st));
    PGresult *r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    return r;
}

static int fleet_leaks(PGconn *c, struct sel *s, char *err, size_t errlen)
{
    struct buf q = {0};
    buf_printf(&q,
              "WITH sel AS (SELECT p.device, p.id, p.t_end AS te, p.session, p.kind,"
              " extract(epoch FROM p.t_end - p.t_start)::float8 AS up FROM msamp_profile p WHERE %s),"
              " ses AS (SELECT device, session, max(up) / 2 AS half, max(up) AS u1, count(*) AS n"
              " FROM sel GROUP BY device, session HAVING count(*) > 1 AND max(up) > min(up)),"
              " lst AS (SELECT DISTINCT ON (sel.device, sel.session) sel.device, sel.session, sel.id,"
              " sel.te, sel.up FROM sel JOIN ses USING (device, session)"
              " ORDER BY sel.device, sel.session, sel.up DESC, sel.kind = 'final' DESC, sel.id DESC),"
              " mid AS (SELECT DISTINCT ON (sel.device, sel.session) sel.device, sel.session, sel.id,"
              " sel.te, sel.up, ses.n FROM sel JOIN ses USING (device, session) WHERE sel.up < ses.u1"
              " ORDER BY sel.device, sel.session, sel.up < ses.half,"
              " CASE WHEN sel.up >= ses.half THEN sel.up END, sel.up DESC, sel.id),"
              " pr AS (SELECT l.device, m.id AS mid_id, m.te AS mid_te, l.id AS last_id,"
              " l.te AS last_te, l.up - m.up AS dt, m.n"
              " FROM lst l JOIN mid m USING (device, session)),"
              " dev AS (SELECT device, sum(dt) AS dt, count(*) AS nses, sum(n) AS nprof FROM pr"
              " GROUP BY device),"
              " m AS (SELECT pr.device, pr.mid_id AS pair, " STACK_SQL " AS stack, st.task, st.vals"
              " FROM pr JOIN msamp_site st ON st.device = pr.device AND st.profile_id = pr.mid_id"
              " AND st.t_end = pr.mid_te WHERE TRUE%s),"
              " l AS (SELECT pr.device, pr.mid_id AS pair, " STACK_SQL " AS stack, st.task, st.vals"
              " FROM pr JOIN msamp_site st ON st.device = pr.device AND st.profile_id = pr.last_id"
              " AND st.t_end = pr.last_te WHERE TRUE%s),"
              " ml AS (SELECT coalesce(l.device, m.device) AS device, coalesce(l.stack, m.stack)"
              " AS stack, coalesce(l.task, m.task) AS task, coalesce(m.vals, '{}') AS a,"
              " coalesce(l.vals, '{}') AS b FROM m FULL JOIN l ON l.device = m.device AND"
              " l.pair = m.pair AND l.stack = m.stack AND l.task = m.task),"
              " ch AS (SELECT device, stack, task, " F("b", "inuse_space") " - " F("a", "inuse_space")
              " AS d, least(" F("b", "inuse_space_var") ", CASE WHEN b ? 'alloc_space_var' THEN"
              " greatest(" F("b", "alloc_space_var") " - " F("a", "alloc_space_var") ", 0) ELSE "
              F("b", "inuse_space_var") " END) + CASE WHEN b ? 'freed_objects' AND "
              F("b", "freed_objects") " <= " F("a", "freed_objects") " THEN 0 ELSE "
              F("a", "inuse_space_var") " END AS v FROM ml),"
              " site AS (SELECT device, stack, task, sum(d) AS d, sum(v) AS v FROM ch"
              " GROUP BY device, stack, task),"
              " grp AS (SELECT device, stack[1] AS f, sum(d) AS d, sum(v) AS v FROM site"
              " GROUP BY device, stack[1])"
              " SELECT st.device, array_to_json(st.stack)::text, st.task, st.d, st.v, dev.dt,"
              " dev.nses, dev.nprof FROM site st JOIN dev USING (device) JOIN grp"
              " ON grp.device = st.device AND grp.f IS NOT DISTINCT FROM st.stack[1]"
              " WHERE st.d > 0.5 AND (st.v <= 0 OR st.d >= %.17g * sqrt(st.v))"
              " AND grp.d > 0.5 AND (grp.v <= 0 OR grp.d >= %.17g * sqrt(grp.v))"
              " ORDER BY st.d / dev.dt DESC, st.device, 2, st.task",
              buf_cstr(&s->where), buf_cstr(&s->where_st), buf_cstr(&s->where_st), GR_Z_LEAK,
              GR_Z_LEAK);
    PGresult *r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    PGresult *rv = r ? verdict_leaks(c, s, err, errlen) : NULL;
    struct out_file jo;
    FILE *jf = NULL;
    if (!r || !rv || json_open(&jo, &jf, s->json, err, errlen) < 0) {
        PQclear(r);
        PQclear(rv);
        return -1;
    }
    /* The suspects: each growth row, joined by the verdict of its device's site when there is
     * one; the verdicts without growth after them. */
    int nc = PQntuples(r), nv = PQntuples(rv), n = 0;
    struct suspect *x = xcalloc((size_t)(nc + nv) + 1, sizeof(*x));
    for (int i = 0; i < nc; i++, n++)
        x[n] = (struct suspect){PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2), 0, 1,
                                {0, 0}, {atof(PQgetvalue(r, i, 3)), atof(PQgetvalue(r, i, 4))},
                                0, atof(PQgetvalue(r, i, 5)), PQgetvalue(r, i, 6),
                                PQgetvalue(r, i, 7)};
    for (int i = 0; i < nv; i++) {
        int k = 0;
        while (k < nc && (strcmp(x[k].device, PQgetvalue(rv, i, 0)) != 0 ||
                          strcmp(x[k].stack, PQgetvalue(rv, i, 1)) != 0 ||
                          strcmp(x[k].task, PQgetvalue(rv, i, 2)) != 0))
            k++;
        if (k == nc)
            x[k = n++] = (struct suspect){PQgetvalue(rv, i, 0), PQgetvalue(rv, i, 1),
                                          PQgetvalue(rv, i, 2), 0, 0, {0, 0}, {0, 0}, 0, 0, "0",
                                          "0"};
        x[k].has_v = 1;
        x[k].v = (struct est){atof(PQgetvalue(rv, i, 3)), atof(PQgetvalue(rv, i, 4))};
        x[k].since = atof(PQgetvalue(rv, i, 5));
    }
    qsort(x, (size_t)n, sizeof(*x), by_suspect_slope);
    if (jf)
        fputs("{\"leaks\":[", jf);
    printf("leak suspects by device (%d): +bytes/s [95 %% interval], the evidence (verdict: the "
           "leak verdict of the device's latest profile, as drain --leaks gave it; growth: in-use "
           "grown over the recent half of the device's sessions, across consecutive profiles), "
           "site\n", n);
    /* by site: the suspects of the same stack and task on several devices, their rates added */
    int *site_of = xcalloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i < n; i++) {
        struct est sl = suspect_slope(&x[i]);
        struct est g = {x[i].has_c ? x[i].d.est / x[i].dt : 0,
                        x[i].has_c ? x[i].d.var / (x[i].dt * x[i].dt) : 0};
        printf("  %s +%.0f/s [%.0f/s, %.0f/s] evidence:", x[i].device, sl.est, est_sym_lo(sl),
               est_sym_hi(sl));
        if (x[i].has_v)
            printf(" verdict (latest profile, since %.3f s)%s", x[i].since, x[i].has_c ? ";" : "");
        if (x[i].has_c)
            printf(" growth +%.0f B (z %.1f) +%.0f/s [%.0f/s, %.0f/s] %s sessions, %s profiles",
                   x[i].d.est, x[i].d.var > 0 ? x[i].d.est / sqrt(x[i].d.var) : INFINITY, g.est,
                   est_sym_lo(g), est_sym_hi(g), x[i].nses, x[i].nprof);
        printf("  %s%s%s\n", x[i].stack, x[i].task[0] ? " task=" : "", x[i].task);
        if (jf) {
            struct buf b = {0}, t = {0};
            json_put_str(&b, x[i].device, strlen(x[i].device), 0);
            json_put_str(&t, x[i].task, strlen(x[i].task), 0);
            fprintf(jf, "%s{\"device\":%s,\"stack\":%s,\"task\":%s,\"evidence\":[%s%s%s],"
                    "\"slope\":%.17g,\"lo\":%.17g,\"hi\":%.17g,\"verdict\":",
                    i ? "," : "", buf_cstr(&b), x[i].stack, buf_cstr(&t),
                    x[i].has_v ? "\"verdict\"" : "",
                    x[i].has_v && x[i].has_c ? "," : "", x[i].has_c ? "\"growth\"" : "",
                    sl.est, est_sym_lo(sl), est_sym_hi(sl));
            if (x[i].has_v)
                fprintf(jf, "{\"slope\":%.17g,\"var\":%.17g,\"lo\":%.17g,\"hi\":%.17g,"
                        "\"since_s\":%.17g}", x[i].v.est, x[i].v.var, est_sym_lo(x[i].v),
                        est_sym_hi(x[i].v), x[i].since);
            else
                fputs("null", jf);
            if (x[i].has_c) /* the growth's: its change, time and rate */
                fprintf(jf, ",\"growth_bytes\":%.17g,\"growth_var\":%.17g,\"seconds\":%.17g,"
                        "\"growth_slope\":%.17g,\"growth_lo\":%.17g,\"growth_hi\":%.17g",
                        x[i].d.est, x[i].d.var, x[i].dt, g.est, est_sym_lo(g), est_sym_hi(g));
            else
                fputs(",\"growth_bytes\":null,\"growth_var\":null,\"seconds\":null,"
                      "\"growth_slope\":null,\"growth_lo\":null,\"growth_hi\":null", jf);
            /* sessions and profiles: those the growth compared (0 without it) */
            fprintf(jf, ",\"sessions\":%s,\"profiles\":%s}", x[i].nses, x[i].nprof);
            buf_free(&b);
            buf_free(&t);
        }
        site_of[i] = i;
        for (int j = 0; j < i; j++)
            if (strcmp(x[j].stack, x[i].stack) == 0 && strcmp(x[j].task, x[i].task) == 0) {
                site_of[i] = site_of[j];
                break;
            }
    }
    if (jf)
        fputs("],\"sites\":[", jf);
    printf("leak suspects by site: devices, +bytes/s summed, site\n");
    int nsite = 0;
    for (int i = 0; i < n; i++) {
        if (site_of[i] != i)
            continue;
        struct est sum = {0, 0};
        struct buf devs = {0}, jdevs = {0};
        int nd = 0;
        for (int j = i; j < n; j++) {
            if (site_of[j] != i)
                continue;
            struct est sl = suspect_slope(&x[j]);
            sum.est += sl.est;
            sum.var += sl.var;
            buf_printf(&devs, "%s%s", nd ? "," : "", x[j].device);
            if (nd)
                buf_str(&jdevs, ",");
            json_put_str(&jdevs, x[j].device, strlen(x[j].device), 0);
            nd++;
        }
        printf("  %d device%s (%s) +%.0f/s [%.0f/s, %.0f/s]  %s%s%s\n", nd, nd > 1 ? "s" : "",
               buf_cstr(&devs), sum.est, est_sym_lo(sum), est_sym_hi(sum), x[i].stack,
               x[i].task[0] ? " task=" : "", x[i].task);
        if (jf) {
            struct buf t = {0};
            json_put_str(&t, x[i].task, strlen(x[i].task), 0);
            fprintf(jf, "%s{\"stack\":%s,\"task\":%s,\"devices\":[%s],\"slope\":%.17g,"
                    "\"lo\":%.17g,\"hi\":%.17g}", nsite ? "," : "", x[i].stack, buf_cstr(&t),
                    buf_cstr(&jdevs), sum.est, est_sym_lo(sum), est_sym_hi(sum));
            buf_free(&t);
        }
        nsite++;
        buf_free(&devs);
        buf_free(&jdevs);
    }
    free(site_of);
    free(x);
    int rc = json_close(&jo, jf, "]}\n", err, errlen);
    PQclear(r);
    PQclear(rv);
    return rc;
}

/* prune --before T: the profiles whose t_end is before T go, with their sites and leaks: each
 * month's partitions that end at or before T are dropped whole (DROP TABLE: no row by row
 * delete, no dead rows left), then the rest of them (the month T falls in, the DEFAULT
 * partition) deleted. One transaction, under the schema's advisory lock (no partition is made
 * meanwhile). */
static int fleet_prune(PGconn *c, struct sel *s, const char *before, char *err, size_t errlen)
{
    struct buf q = {0}, t = {0};
    PGresult *parts = NULL;
    time_sql(&t, add_param(s, before));
    if (db_cmd(c, "BEGIN", "begin", err, errlen) != 0 ||
        db_cmd(c, "SELECT pg_advisory_xact_lock(7235871)", "lock", err, errlen) != 0)
        goto fail;
    buf_printf(&q, "SELECT substr(c.relname, 16) FROM pg_inherits i JOIN pg_class c"
              " ON c.oid = i.inhrelid WHERE i.inhparent = 'msamp_profile'::regclass"
              " AND CASE WHEN c.relname ~ '^msamp_profile_p[0-9]{6}$' THEN ((to_date("
              "substr(c.relname, 16), 'YYYYMM') + interval '1 month')::timestamp AT TIME ZONE"
              " 'UTC') <= %s END ORDER BY 1",
              buf_cstr(&t));
    parts = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    long long dropped = 0, deleted = 0;
    int np = parts ? PQntuples(parts) : 0;
    for (int i = 0; parts && i < np; i++) {
        const char *m = PQgetvalue(parts, i, 0);
        char sql[512];
        snprintf(sql, sizeof(sql), "SELECT count(*) FROM msamp_profile_p%s", m);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            db_err(c, r, "counting a partition's profiles", err, errlen);
            goto fail;
        }
        dropped += atoll(PQgetvalue(r, 0, 0));
        PQclear(r);
        snprintf(sql, sizeof(sql), "DROP TABLE msamp_leak_p%s, msamp_site_p%s, msamp_profile_p%s",
                 m, m, m);
        if (db_cmd(c, sql, "dropping a partition", err, errlen) != 0)
            goto fail;
    }
    q = (struct buf){0};
    buf_printf(&q, "WITH l AS (DELETE FROM msamp_leak WHERE t_end < %s),"
              " s AS (DELETE FROM msamp_site WHERE t_end < %s),"
              " d AS (DELETE FROM msamp_profile WHERE t_end < %s RETURNING 1)"
              " SELECT count(*) FROM d", buf_cstr(&t), buf_cstr(&t), buf_cstr(&t));
    PGresult *r = parts ? sel_query(c, s, buf_cstr(&q), err, errlen) : NULL;
    buf_free(&q);
    if (!r)
        goto fail;
    deleted = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    if (db_cmd(c, "COMMIT", "commit", err, errlen) != 0)
        goto fail;
    printf("drain fleet prune: %d month partitions dropped (%lld profiles), %lld profiles deleted"
           " from the others; the profiles ending at or after %s kept\n", np, dropped, deleted,
           before);
    PQclear(parts);
    buf_free(&t);
    return 0;
fail:
    PQclear(parts);
    buf_free(&t);
    PQclear(PQexec(c, "ROLLBACK"));
    return -1;
}

static const char fleet_usage[] =
    "usage: drain fleet --db CONNINFO merge OUT.pb.gz [FILTER]...\n"
    "       drain fleet --db CONNINFO top|devices|leaks [--json FILE] [--top N] [FILTER]...\n"
    "       drain fleet --db CONNINFO prune --before T\n"
    "Queries the profiles drain push stored. FILTER: --device D (repeatable), --build-id B,\n"
    "--since T, --until T (seconds since the epoch or a timestamp), --label K=V (repeatable).\n"
    "prune removes the profiles that end before T (their month's partitions dropped whole).\n"
    "See docs/FLEET.md.\n";

int drain_fleet(int argc, char **argv)
{
    int head = db_head(argc, argv, fleet_usage);
    if (head >= 0)
        return head;
    const char *conninfo = argv[2], *cmd = argv[3], *out = NULL;
    int i = 4;
    if (strcmp(cmd, "merge") == 0) {
        if (argc < 5) {
            fputs(fleet_usage, stderr);
            return 2;
        }
        out = argv[i++];
    } else if (strcmp(cmd, "prune") == 0) {
        if (argc != 6 || strcmp(argv[4], "--before") != 0) {
            fputs(fleet_usage, stderr);
            return 2;
        }
        i = argc;
    } else if (strcmp(cmd, "top") != 0 && strcmp(cmd, "devices") != 0 &&
               strcmp(cmd, "leaks") != 0) {
        fprintf(stderr, "drain fleet: unknown query '%s'\n%s", cmd, fleet_usage);
        return 2;
    }
    struct sel s;
    memset(&s, 0, sizeof(s));
    double ntop = 20;
    for (; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "drain fleet: %s needs a value\n", o);
            return 2;
        }
        i++;
        if (strcmp(o, "--device") == 0 && s.ndevice < MAX_FILTERS)
            s.device[s.ndevice++] = v;
        else if (strcmp(o, "--build-id") == 0)
            s.build = v;
        else if (strcmp(o, "--since") == 0)
            s.since = v;
        else if (strcmp(o, "--until") == 0)
            s.until = v;
        else if (strcmp(o, "--label") == 0 && s.nlabel < MAX_FILTERS && strchr(v, '='))
            s.label[s.nlabel++] = v;
        else if (strcmp(o, "--json") == 0 && !out)
            s.json = v;
        else if (strcmp(o, "--top") == 0 && !out && parse_num(v, 1, 1e9, &ntop) == 0)
            ;
        else {
            fprintf(stderr, "drain fleet: bad option %s %s\n%s", o, v, fleet_usage);
            return 2;
        }
    }
    sel_build(&s);
    char err[1024];
    PGconn *c = db_open(conninfo, err, sizeof(err));
    int rc = c && db_schema(c, 0, err, sizeof(err)) == 0 ? 0 : -1;
    /* The times first: one the server does not read is bad input (exit 2), named. */
    const char *topt[3] = {"--since", "--until", "--before"};
    const char *tval[3] = {s.since, s.until, strcmp(cmd, "prune") == 0 ? argv[5] : NULL};
    for (int t = 0; t < 3 && rc == 0; t++)
        rc = tval[t] ? time_check(c, topt[t], tval[t], err, sizeof(err)) : 0;
    if (rc == 0) {
        if (out)
            rc = fleet_merge(c, &s, out, err, sizeof(err));
        else if (strcmp(cmd, "prune") == 0)
            rc = fleet_prune(c, &s, argv[5], err, sizeof(err));
        else if (strcmp(cmd, "top") == 0)
            rc = fleet_top(c, &s, (long)ntop, err, sizeof(err));
        else if (strcmp(cmd, "devices") == 0)
            rc = fleet_devices(c, &s, err, sizeof(err));
        else
            rc = fleet_leaks(c, &s, err, sizeof(err));
    }
    if (rc != 0)
        fprintf(stderr, "drain fleet %s: %s\n", cmd, err);
    PQfinish(c);
    buf_free(&s.where);
    buf_free(&s.where_st);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}
