-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN ... REFERENCES); parse_utilcmd.c: skipValidation only when the new column has no default; with DEFAULT 1 every row references 1, the FK is validated by a scan of the table under SHARE ROW EXCLUSIVE on both tables
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on public.accounts; locks held (whole file in one test transaction): accounts AccessExclusiveLock, accounts AccessShareLock, accounts ShareRowExclusiveLock, accounts_pkey AccessShareLock, plans AccessShareLock, plans RowExclusiveLock, plans RowShareLock, plans ShareRowExclusiveLock, plans_pkey AccessShareLock
-- given: CREATE TABLE plans (id int PRIMARY KEY, name text);
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text);
INSERT INTO plans (id, name) VALUES (1, 'free') ON CONFLICT DO NOTHING;
ALTER TABLE accounts ADD COLUMN plan_id int NOT NULL DEFAULT 1 REFERENCES plans (id);
