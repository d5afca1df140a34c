-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN with a column CHECK constraint: the check is verified against every existing row, ACCESS EXCLUSIVE); parse_utilcmd.c transformCheckConstraints skips validation only for CREATE TABLE
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.employees; locks held (whole file in one test transaction): employees AccessExclusiveLock
-- given: CREATE TABLE employees (id bigint PRIMARY KEY, name text NOT NULL);
ALTER TABLE employees ADD COLUMN vacation_days int NOT NULL DEFAULT 25 CHECK (vacation_days BETWEEN 0 AND 60);
