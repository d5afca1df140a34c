-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DEFAULT: "the new default only affects subsequent INSERT and UPDATE commands; it does not cause rows already in the table to change"); a volatile default on ALTER COLUMN is not an ADD COLUMN
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): tickets AccessExclusiveLock, tickets AccessShareLock, tickets_ref_no_seq AccessExclusiveLock, tickets_ref_no_seq RowExclusiveLock, tickets_ref_no_seq ShareRowExclusiveLock
-- given: CREATE TABLE tickets (id bigint PRIMARY KEY, ref_no bigint, subject text);
CREATE SEQUENCE tickets_ref_no_seq;
ALTER TABLE tickets ALTER COLUMN ref_no SET DEFAULT nextval('tickets_ref_no_seq');
ALTER SEQUENCE tickets_ref_no_seq OWNED BY tickets.ref_no;
