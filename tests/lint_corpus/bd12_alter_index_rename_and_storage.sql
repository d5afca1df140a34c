-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterindex.html (RENAME: "no effect on the stored data"; SET ( storage_parameter ): "the index contents won't be modified immediately"; ALTER COLUMN SET STATISTICS on an expression index)
-- verified: PG15: rename + SET (fillfactor) + SET STATISTICS only take ShareUpdateExclusiveLock on the index; no relfilenode change, no scan
-- given: CREATE TABLE accounts (id bigserial PRIMARY KEY, email text NOT NULL);
-- given: CREATE INDEX idx_accounts_email ON accounts (lower(email));
ALTER INDEX idx_accounts_email RENAME TO accounts_lower_email_idx;
ALTER INDEX accounts_lower_email_idx SET (fillfactor = 80);
ALTER INDEX accounts_lower_email_idx ALTER COLUMN 1 SET STATISTICS 500;
