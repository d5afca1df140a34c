-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a non-volatile DEFAULT is evaluated once and stored in the catalog, PG 11+); https://www.postgresql.org/docs/current/functions-datetime.html#FUNCTIONS-DATETIME-CURRENT (statement_timestamp() is STABLE: pg_proc.provolatile = 's')
-- verified: PG15: pg_proc provolatile of statement_timestamp = 's'; webhooks relfilenode unchanged after the ADD COLUMN (attmissingval set); with clock_timestamp() instead the relfilenode changes
-- given: CREATE TABLE webhooks (id bigint PRIMARY KEY, url text NOT NULL, secret text);
ALTER TABLE webhooks ADD COLUMN registered_at timestamptz NOT NULL DEFAULT statement_timestamp();
ALTER TABLE webhooks ADD COLUMN active boolean NOT NULL DEFAULT true;
