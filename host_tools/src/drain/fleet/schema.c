/*
 * The fleet store's schema (docs/FLEET.md "Schema"): its six versions as SQL, each migrating the
 * one before (version 3: the tables partitioned by month, msamp_partition making a month's;
 * version 4: the rollups; version 5: the buckets' merged profiles; version 6: site rows' values
 * as bigint[], no primary key on them; version 7: rollup rows' sums as bigint[], keyed by a
 * hash of the stack), and
 * db_schema, which creates the schema or migrates it to this drain's version under the advisory
 * lock, in one transaction.
 */
#include "fleet/schema.h"

#include <stdio.h>
#include <stdlib.h>

#include "fleet/pq.h"

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

/* msamp_rollup_rebuild's first statements, the same in every version that defines it (4, 6, 7):
 * the buckets' rollup rows dropped, emptied buckets dropped, the others' counts and time bounds
 * computed again from their profiles. */
#define ROLLUP_REBUILD_BOUNDS \
    " DELETE FROM msamp_rollup WHERE bucket = ANY (ids);" \
    " DELETE FROM msamp_bucket b WHERE b.id = ANY (ids) AND NOT EXISTS (SELECT 1" \
    "  FROM msamp_profile p WHERE p.device = b.device AND p.build_id = b.build_id" \
    "  AND p.labels = b.labels AND msamp_day(p.t_end) = b.day);" \
    " UPDATE msamp_bucket b SET (profiles, t_start_min, t_start_max, t_end_min, t_end_max) =" \
    "  (SELECT count(*), min(p.t_start), max(p.t_start), min(p.t_end), max(p.t_end)" \
    "  FROM msamp_profile p WHERE p.device = b.device AND p.build_id = b.build_id" \
    "  AND p.labels = b.labels AND msamp_day(p.t_end) = b.day) WHERE b.id = ANY (ids);"

/* Version 4: the rollups (docs/FLEET.md "Rollups"). A bucket is the profiles of one device, build
 * id, labels and UTC day (msamp_day of t_end), with their count and time bounds; msamp_rollup
 * holds, per bucket, each site's (stack, task) sum of each sample type over the bucket's
 * profiles. push adds to both in the profile's transaction; prune rebuilds the buckets it cut
 * (msamp_rollup_rebuild: from the site rows that are left). A query reads the rollups of the
 * buckets the selection holds whole, and the site rows of the other profiles it selects. */
static const char schema_v4[] =
    /* the file's bytes (gzip) stored as they are: no compression tried on them */
    "ALTER TABLE msamp_profile ALTER COLUMN bytes SET STORAGE EXTERNAL;"
    "CREATE FUNCTION msamp_day(t timestamptz) RETURNS bigint LANGUAGE sql IMMUTABLE AS"
    " $f$ SELECT floor(extract(epoch FROM t) / 86400)::bigint $f$;"
    "CREATE TABLE msamp_bucket (device text NOT NULL, id bigserial NOT NULL,"
    " build_id text NOT NULL, labels text[] NOT NULL, day bigint NOT NULL,"
    " profiles bigint NOT NULL, t_start_min timestamptz, t_start_max timestamptz,"
    " t_end_min timestamptz, t_end_max timestamptz,"
    " PRIMARY KEY (device, id), UNIQUE (device, build_id, labels, day));"
    "CREATE INDEX msamp_bucket_time ON msamp_bucket (t_end_min);"
    "CREATE TABLE msamp_rollup (device text NOT NULL, bucket bigint NOT NULL,"
    " stack text[] NOT NULL, task text NOT NULL, vals jsonb NOT NULL,"
    " PRIMARY KEY (device, bucket, stack, task));"
    /* Two sites' sums (jsonb: sample type to value) added: a type either has, summed. */
    "CREATE FUNCTION msamp_vals_add(a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS"
    " $f$ SELECT jsonb_object_agg(k, coalesce((a->>k)::numeric, 0) + coalesce((b->>k)::numeric, 0))"
    " FROM jsonb_object_keys(a || b) k $f$;"
    /* The buckets ids from the profiles left: emptied ones go, the others' bounds and sums
     * computed again from their site rows. */
    "CREATE FUNCTION msamp_rollup_rebuild(ids bigint[]) RETURNS void LANGUAGE sql AS $f$"
    ROLLUP_REBUILD_BOUNDS
    " INSERT INTO msamp_rollup SELECT device, id, stack, task, jsonb_object_agg(k, s) FROM"
    "  (SELECT b.device, b.id, st.stack, st.task, v.key AS k, sum(v.value::numeric) AS s"
    "  FROM msamp_bucket b JOIN msamp_profile p ON p.device = b.device"
    "  AND p.build_id = b.build_id AND p.labels = b.labels AND msamp_day(p.t_end) = b.day"
    "  JOIN msamp_site st ON st.device = p.device AND st.profile_id = p.id"
    "  AND st.t_end = p.t_end, jsonb_each_text(st.vals) v WHERE b.id = ANY (ids)"
    "  GROUP BY b.device, b.id, st.stack, st.task, v.key) x GROUP BY device, id, stack, task;"
    " $f$;"
    "INSERT INTO msamp_bucket (device, build_id, labels, day, profiles, t_start_min, t_start_max,"
    " t_end_min, t_end_max) SELECT device, build_id, labels, msamp_day(t_end), count(*),"
    " min(t_start), max(t_start), min(t_end), max(t_end) FROM msamp_profile GROUP BY 1, 2, 3, 4;"
    "SELECT msamp_rollup_rebuild(array_agg(id)) FROM msamp_bucket;"
    "INSERT INTO msamp_schema VALUES (4);";

/* Version 5: each bucket's merged profile (docs/FLEET.md "Merged buckets"): drain merge of the
 * bucket's files (by start time and id), the bytes prof_write_file writes, made by the first
 * fleet merge that reads the bucket whole. It holds while the bucket's gen is the one it was made
 * at (push moves gen on, prune too) and drain's version the one that made it; peaks: how many of
 * its profiles have a peak verdict (merge.c sums them). */
static const char schema_v5[] =
    "ALTER TABLE msamp_bucket ADD COLUMN gen bigint NOT NULL DEFAULT 0;"
    "CREATE TABLE msamp_merged (device text NOT NULL, bucket bigint NOT NULL, gen bigint NOT NULL,"
    " drain text NOT NULL, profiles bigint NOT NULL, peaks bigint NOT NULL, bytes bytea NOT NULL,"
    " PRIMARY KEY (device, bucket));"
    "ALTER TABLE msamp_merged ALTER COLUMN bytes SET STORAGE EXTERNAL;"
    "INSERT INTO msamp_schema VALUES (5);";

/* The site rows' values (k: a sample type, x: its value) of the profiles of buckets ids, from
 * version 6's site rows (vals: a bigint[] in the profile's sample_types order): what versions 6 and
 * 7's msamp_rollup_rebuild sum. */
#define ROLLUP_REBUILD_VALUES \
    "  FROM msamp_bucket b JOIN msamp_profile p ON p.device = b.device" \
    "  AND p.build_id = b.build_id AND p.labels = b.labels AND msamp_day(p.t_end) = b.day" \
    "  JOIN msamp_site st ON st.device = p.device AND st.profile_id = p.id" \
    "  AND st.t_end = p.t_end, unnest(p.sample_types, st.vals) v(k, x) WHERE b.id = ANY (ids)"

/* Version 6: site rows cheaper to store (docs/FLEET.md "Push"): vals, each sample type's value,
 * a bigint[] in the order of the profile's sample_types (jsonb before: its parsing was most of a
 * push's server time), sent by COPY's binary format; the site rows' primary key (device,
 * profile_id, t_end, site: a text key push paid for on every row, which no query needs unique)
 * an index on (profile_id, t_end): a profile's rows, as the queries join them (with profile_id
 * alone the planner takes a profile's rows for 1000 and top's join for a scan of every row). msamp_vals gives a site row's vals as version 5's jsonb (NULL and
 * unnamed values left out); msamp_rollup_rebuild reads the arrays. */
static const char schema_v6[] =
    "ALTER TABLE msamp_site ADD COLUMN vals6 bigint[] NOT NULL DEFAULT '{}';"
    "UPDATE msamp_site st SET vals6 = ARRAY(SELECT (st.vals->>t)::numeric::bigint"
    " FROM unnest(p.sample_types) WITH ORDINALITY u(t, o) ORDER BY o) FROM msamp_profile p"
    " WHERE p.device = st.device AND p.id = st.profile_id AND p.t_end = st.t_end;"
    "ALTER TABLE msamp_site DROP COLUMN vals;"
    "ALTER TABLE msamp_site RENAME COLUMN vals6 TO vals;"
    "ALTER TABLE msamp_site ALTER COLUMN vals DROP DEFAULT;"
    "ALTER TABLE msamp_site DROP CONSTRAINT msamp_site_pkey;"
    "CREATE INDEX msamp_site_profile ON msamp_site (profile_id, t_end);"
    "CREATE FUNCTION msamp_vals(types text[], vals bigint[]) RETURNS jsonb LANGUAGE sql IMMUTABLE"
    " AS $f$ SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM unnest(types, vals) x(k, v)"
    " WHERE k IS NOT NULL AND v IS NOT NULL $f$;"
    "CREATE OR REPLACE FUNCTION msamp_rollup_rebuild(ids bigint[]) RETURNS void LANGUAGE sql AS $f$"
    ROLLUP_REBUILD_BOUNDS
    " INSERT INTO msamp_rollup SELECT device, id, stack, task, jsonb_object_agg(k, s) FROM"
    "  (SELECT b.device, b.id, st.stack, st.task, v.k, sum(v.x) AS s"
    ROLLUP_REBUILD_VALUES
    "  AND v.k IS NOT NULL AND v.x IS NOT NULL"
    "  GROUP BY b.device, b.id, st.stack, st.task, v.k) x GROUP BY device, id, stack, task;"
    " $f$;"
    "INSERT INTO msamp_schema VALUES (6);";

/* Version 7: rollup rows cheaper to add to (docs/FLEET.md "Push"): a row's sums as types text[]
 * (the sample types it has) and vals bigint[] (their sums, in that order), sent by COPY's binary
 * format (jsonb before: its parsing was half of their COPY); its key (device, bucket, h), h a
 * 64-bit hash of the stack and task the server computes (a generated column), not the stack's
 * text[] (comparing and storing it in the index was most of the upsert). A push adds a row to the
 * stored one of its key only when their stack and task are the same (the ON CONFLICT's WHERE):
 * a row that is not (two sites' hashes equal in a bucket) fails the push with an error, never
 * joins two sites. msamp_rvals_sum adds two rows' sums of the same types (elementwise: plpgsql,
 * cheaper than a SQL function's subquery), msamp_rvals_add by type name (their types differ).
 * Version 6's rows converted, their types by name. */
#define V7_ROLLUP_SUMS(k, s) \
    "array_agg(" k " ORDER BY " k "), array_agg(" s " ORDER BY " k ")"
static const char schema_v7[] =
    "ALTER TABLE msamp_rollup RENAME TO msamp_rollup_v6;"
    "ALTER INDEX msamp_rollup_pkey RENAME TO msamp_rollup_v6_pkey;"
    "CREATE TABLE msamp_rollup (device text NOT NULL, bucket bigint NOT NULL,"
    " stack text[] NOT NULL, task text NOT NULL, types text[] NOT NULL, vals bigint[] NOT NULL,"
    " h bigint NOT NULL GENERATED ALWAYS AS " MSAMP_STACK_H("stack", "task") " STORED,"
    " PRIMARY KEY (device, bucket, h)) WITH (fillfactor = 50);"
    "INSERT INTO msamp_rollup (device, bucket, stack, task, types, vals) SELECT r.device,"
    " r.bucket, r.stack, r.task, coalesce(array_agg(k ORDER BY k) FILTER (WHERE k IS NOT NULL),"
    " '{}'), coalesce(array_agg(v::numeric::bigint ORDER BY k) FILTER (WHERE k IS NOT NULL), '{}')"
    " FROM msamp_rollup_v6 r LEFT JOIN LATERAL jsonb_each_text(r.vals) x(k, v) ON true"
    " GROUP BY r.device, r.bucket, r.stack, r.task;"
    "DROP TABLE msamp_rollup_v6;"
    "DROP FUNCTION msamp_vals_add(jsonb, jsonb);"
    "CREATE FUNCTION msamp_types_add(ta text[], tb text[]) RETURNS text[] LANGUAGE sql IMMUTABLE"
    " AS $f$ SELECT CASE WHEN ta = tb THEN ta ELSE ta || ARRAY(SELECT t FROM unnest(tb)"
    " WITH ORDINALITY u(t, o) WHERE t <> ALL (ta) ORDER BY o) END $f$;"
    "CREATE FUNCTION msamp_rvals_sum(va bigint[], vb bigint[]) RETURNS bigint[] LANGUAGE plpgsql"
    " IMMUTABLE AS $f$ DECLARE r bigint[] := va; BEGIN"
    " FOR i IN 1 .. coalesce(array_length(va, 1), 0) LOOP r[i] := r[i] + vb[i]; END LOOP;"
    " RETURN r; END $f$;"
    "CREATE FUNCTION msamp_rvals_add(ta text[], va bigint[], tb text[], vb bigint[])"
    " RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $f$ SELECT CASE WHEN ta = tb THEN"
    " ARRAY(SELECT x + y FROM unnest(va, vb) WITH ORDINALITY u(x, y, o) ORDER BY o) ELSE"
    " ARRAY(SELECT coalesce(va[array_position(ta, t)], 0) + coalesce(vb[array_position(tb, t)], 0)"
    " FROM unnest(msamp_types_add(ta, tb)) WITH ORDINALITY u(t, o) ORDER BY o) END $f$;"
    "CREATE OR REPLACE FUNCTION msamp_rollup_rebuild(ids bigint[]) RETURNS void LANGUAGE sql AS $f$"
    ROLLUP_REBUILD_BOUNDS
    " INSERT INTO msamp_rollup (device, bucket, stack, task, types, vals) SELECT device, id,"
    "  stack, task, " V7_ROLLUP_SUMS("k", "s") " FROM"
    "  (SELECT b.device, b.id, st.stack, st.task, v.k, sum(v.x)::bigint AS s"
    ROLLUP_REBUILD_VALUES
    "  AND v.k IS NOT NULL AND v.x IS NOT NULL"
    "  GROUP BY b.device, b.id, st.stack, st.task, v.k) x GROUP BY device, id, stack, task;"
    " $f$;"
    "INSERT INTO msamp_schema VALUES (7);";

/* Version 8: rows cheaper to write and to add to (docs/FLEET.md "Push"): a stack and task are
 * kept once in msamp_stack (by h, for every profile, bucket and device) and a set of sample
 * types' names once in msamp_tset (by tid); a site row is (device, profile_id, t_end, site, h,
 * vals), a rollup row (device, bucket, h, tid, vals): about 250 bytes, not 900-1200, and a push
 * sends a batch's stacks and sets once rather than once a row. A stack whose h is another stored
 * stack's (a 64-bit hash's collision) fails the push with an error, never joins two sites.
 * msamp_tset_id: a set's tid, made when new; msamp_tset_types: a tid's names. Version 7's site
 * rows take their h (every row rewritten twice: h set, then the stack's bytes dropped), their
 * stacks are checked alike (an error: nothing migrated), its rollup rows are moved. */
static const char schema_v8[] =
    "CREATE TABLE msamp_stack (h bigint PRIMARY KEY, stack text[] NOT NULL, task text NOT NULL);"
    "CREATE TABLE msamp_tset (tid serial PRIMARY KEY, types text[] NOT NULL UNIQUE);"
    "CREATE FUNCTION msamp_tset_id(t text[]) RETURNS int LANGUAGE plpgsql AS $f$"
    " DECLARE i int; BEGIN SELECT tid INTO i FROM msamp_tset WHERE types = t;"
    " IF i IS NULL THEN INSERT INTO msamp_tset (types) VALUES (t) ON CONFLICT (types) DO NOTHING"
    " RETURNING tid INTO i; END IF;"
    " IF i IS NULL THEN SELECT tid INTO i FROM msamp_tset WHERE types = t; END IF;"
    " RETURN i; END $f$;"
    "CREATE FUNCTION msamp_tset_types(i int) RETURNS text[] LANGUAGE sql STABLE AS"
    " $f$ SELECT types FROM msamp_tset WHERE tid = i $f$;"
    "ALTER TABLE msamp_site ADD COLUMN h bigint;"
    "UPDATE msamp_site SET h = " MSAMP_STACK_H("stack", "task") ";"
    "INSERT INTO msamp_stack SELECT DISTINCT ON (h) h, stack, task FROM msamp_site ORDER BY h;"
    "INSERT INTO msamp_stack SELECT DISTINCT ON (h) h, stack, task FROM msamp_rollup ORDER BY h"
    " ON CONFLICT (h) DO NOTHING;"
    "DO $d$ BEGIN IF EXISTS (SELECT 1 FROM msamp_site x JOIN msamp_stack s ON s.h = x.h"
    " WHERE s.stack <> x.stack OR s.task <> x.task) OR EXISTS (SELECT 1 FROM msamp_rollup x"
    " JOIN msamp_stack s ON s.h = x.h WHERE s.stack <> x.stack OR s.task <> x.task)"
    " THEN RAISE EXCEPTION 'two stacks of one hash (msamp_stack''s key h): not migrated';"
    " END IF; END $d$;"
    "ALTER TABLE msamp_site DROP COLUMN stack, DROP COLUMN task, ALTER COLUMN h SET NOT NULL,"
    " ALTER COLUMN vals TYPE bigint[] USING vals;"
    "ALTER TABLE msamp_rollup RENAME TO msamp_rollup_v7;"
    "ALTER INDEX msamp_rollup_pkey RENAME TO msamp_rollup_v7_pkey;"
    "CREATE TABLE msamp_rollup (device text NOT NULL, bucket bigint NOT NULL, h bigint NOT NULL,"
    " tid int NOT NULL, vals bigint[] NOT NULL, PRIMARY KEY (device, bucket, h))"
    " WITH (fillfactor = 50);"
    "INSERT INTO msamp_tset (types) SELECT DISTINCT types FROM msamp_rollup_v7 ORDER BY 1;"
    "INSERT INTO msamp_rollup SELECT r.device, r.bucket, r.h, t.tid, r.vals FROM msamp_rollup_v7 r"
    " JOIN msamp_tset t ON t.types = r.types;"
    "DROP TABLE msamp_rollup_v7;"
    "CREATE OR REPLACE FUNCTION msamp_rollup_rebuild(ids bigint[]) RETURNS void LANGUAGE sql AS $f$"
    ROLLUP_REBUILD_BOUNDS
    " INSERT INTO msamp_rollup (device, bucket, h, tid, vals) SELECT device, id, h,"
    "  msamp_tset_id(array_agg(k ORDER BY k)), array_agg(s ORDER BY k) FROM"
    "  (SELECT b.device, b.id, st.h, v.k, sum(v.x)::bigint AS s"
    ROLLUP_REBUILD_VALUES
    "  AND v.k IS NOT NULL AND v.x IS NOT NULL"
    "  GROUP BY b.device, b.id, st.h, v.k) y GROUP BY device, id, h;"
    " $f$;"
    "INSERT INTO msamp_schema VALUES (8);";

int schema_target(void)
{
    const char *upto = getenv("MSAMP_DRAIN_FLEET_SCHEMA");
    return upto && atoi(upto) > 0 && atoi(upto) < FLEET_SCHEMA_VERSION ? atoi(upto)
                                                                         : FLEET_SCHEMA_VERSION;
}

/* The store's version into *v (0: no schema yet): 0, or -1 with what and the server's error. */
static int schema_version(PGconn *c, int *v, const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, "SELECT coalesce(max(version), 0) FROM msamp_schema");
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        return db_err(c, r, what, err, errlen);
    *v = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return 0;
}

/* Under an advisory lock, so that concurrent pushes create it once. */
int db_schema(PGconn *c, int create, char *err, size_t errlen)
{
    if (db_cmd(c, "BEGIN", "begin", err, errlen) != 0)
        return -1;
    if (create && (db_cmd(c, FLEET_LOCK_SQL, "lock", err, errlen) != 0 ||
                   db_cmd(c, "CREATE TABLE IF NOT EXISTS msamp_schema (version int NOT NULL)",
                          "creating msamp_schema", err, errlen) != 0))
        goto fail;
    int v;
    if (schema_version(c, &v, "reading the schema version (no fleet store here? drain push "
                       "creates it)", err, errlen) != 0)
        goto fail;
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
    /* Older versions are migrated (under the lock, in this transaction); fleet as well as push. */
    int target = schema_target();
    if (v < target && db_cmd(c, FLEET_LOCK_SQL, "lock", err, errlen) != 0)
        goto fail;
    /* another drain may have migrated it meanwhile */
    if (v < target && v > 0 && schema_version(c, &v, "reading the schema version", err, errlen))
        goto fail;
    static const char *const steps[FLEET_SCHEMA_VERSION] = {schema_v1, schema_v2, schema_v3,
                                                                   schema_v4, schema_v5, schema_v6,
                                                                   schema_v7, schema_v8};
    for (; v < target; v++)
        if (db_cmd(c, steps[v], v ? "migrating the schema" : "creating the schema", err, errlen) !=
            0)
            goto fail;
    return db_cmd(c, "COMMIT", "commit", err, errlen);
fail:
    PQclear(PQexec(c, "ROLLBACK"));
    return -1;
}
