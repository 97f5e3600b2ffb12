-- bench-fleet's FILL=sql (tests/fleet/bench_fleet.sh): a store of :n profiles made from the one
-- profile pushed (its rows: the source), without pushing them. Copy i is device bench-(i mod
-- :devices), its j = i / :devices-th profile, :per_day of them a UTC day going back from the day
-- before the source's (so :n / :per_day buckets of :per_day profiles each), with its own id and
-- SHA-256 (the file's bytes and i), the source's file bytes, columns and (when :sites is 1) site
-- and leak rows. The source's rows then removed; the buckets made as schema version 4's migration
-- makes them, each bucket's rollup the source's sites times the bucket's profiles (every profile
-- of it has the source's sites).
CREATE TEMP TABLE src AS SELECT * FROM msamp_profile;
CREATE TEMP TABLE src_site AS SELECT * FROM msamp_site;
CREATE TEMP TABLE src_leak AS SELECT * FROM msamp_leak;
CREATE TEMP TABLE g AS SELECT i, 'bench-' || lpad((i % :devices)::text, 6, '0') AS device,
  nextval('msamp_profile_id_seq') AS id,
  to_timestamp(((SELECT msamp_day(t_end) FROM src) - 1 - (i / :devices) / :per_day) * 86400
    + ((i / :devices) % :per_day) * (86400 / :per_day) + 1) AS t_end
  FROM generate_series(0, :n - 1) i;
SELECT count(msamp_partition(t)) FROM (SELECT min(t_end) AS t FROM g
  GROUP BY date_trunc('month', t_end AT TIME ZONE 'UTC')) m;
INSERT INTO msamp_profile (device, id, sha256, build_id, session, kind, t_start, t_end, labels,
  sample_types, comments, failures, bytes, totals, heap_free, heap_min_free, heap_largest_free,
  heap_total)
  SELECT g.device, g.id, sha256(s.bytes || int8send(g.i)), s.build_id, s.session, s.kind,
  g.t_end - (s.t_end - s.t_start), g.t_end, s.labels, s.sample_types, s.comments, s.failures,
  s.bytes, s.totals, s.heap_free, s.heap_min_free, s.heap_largest_free, s.heap_total FROM g, src s;
\if :sites
INSERT INTO msamp_site (device, profile_id, t_end, site, h, vals)
  SELECT g.device, g.id, g.t_end, st.site, st.h, st.vals
  FROM g, src_site st;
INSERT INTO msamp_leak SELECT g.device, g.id, g.t_end, l.site, l.slope, l.slope_var, l.since_s
  FROM g, src_leak l;
\endif
DELETE FROM msamp_leak l USING src s WHERE l.device = s.device AND l.profile_id = s.id;
DELETE FROM msamp_site st USING src s WHERE st.device = s.device AND st.profile_id = s.id;
DELETE FROM msamp_profile p USING src s WHERE p.device = s.device AND p.id = s.id;
DELETE FROM msamp_merged;
DELETE FROM msamp_rollup;
DELETE FROM msamp_bucket;
INSERT INTO msamp_bucket (device, build_id, labels, day, profiles, t_start_min, t_start_max,
  t_end_min, t_end_max) SELECT device, build_id, labels, msamp_day(t_end), count(*), min(t_start),
  max(t_start), min(t_end), max(t_end) FROM msamp_profile GROUP BY 1, 2, 3, 4;
-- (schema version 8: the source's stacks are in msamp_stack already, its site rows name them by
-- h; its sample types a set of msamp_tset)
INSERT INTO msamp_rollup (device, bucket, h, tid, vals) SELECT b.device, b.id,
  st.h, msamp_tset_id(s.sample_types), ARRAY(SELECT v * b.profiles FROM unnest(st.vals) WITH ORDINALITY x(v, o) ORDER BY o)
  FROM msamp_bucket b, src_site st, src s;
