-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (NO INHERIT / INHERIT: catalog changes; INHERIT checks that columns and constraints match, no data scan)
-- verified: PG15+16: no relfilenode changed, no seq scan
-- given: CREATE TABLE logs (id bigint, at timestamptz NOT NULL, msg text);
-- given: CREATE TABLE logs_2023 () INHERITS (logs);
-- given: CREATE TABLE logs_archive_root (id bigint, at timestamptz NOT NULL, msg text);
-- move the 2023 child under the archive root
BEGIN;
ALTER TABLE logs_2023 NO INHERIT logs;
ALTER TABLE logs_2023 INHERIT logs_archive_root;
COMMIT;
