-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); SET TIME ZONE 'UTC' is the SQL-standard spelling of SET timezone; tablecmds.c ATColumnChangeRequiresRewrite treats timestamptz -> timestamp like the other direction
-- verified: after SET TIME ZONE UTC audit_log relfilenode unchanged, no scan; AccessExclusiveLock only
-- given: CREATE TABLE audit_log (id bigint PRIMARY KEY, actor text, logged_at timestamptz DEFAULT now());
SET TIME ZONE 'UTC';
ALTER TABLE audit_log ALTER COLUMN logged_at TYPE timestamp without time zone;
