-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: int -> bigint rewrites the table); the table is created earlier in this same file, so it is empty and no running code uses it: the rewrite is instant
-- verified: all scans and the rewrite hit only the new, empty account_limits; accounts only locked briefly (no scan of accounts, relfilenode unchanged)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
CREATE TABLE account_limits (account_id int PRIMARY KEY REFERENCES accounts (id), daily_limit int NOT NULL, currency char(3));
ALTER TABLE account_limits ALTER COLUMN account_id TYPE bigint, ALTER COLUMN daily_limit TYPE numeric(14,2), ALTER COLUMN currency TYPE text;
ALTER TABLE account_limits ALTER COLUMN currency SET NOT NULL;
