-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: binary coercible, no rewrite); tablecmds.c ATPostAlterTypeParse/TryReuseForeignKey: when neither side is rewritten the re-added FOREIGN KEY keeps its validated state, and indexcmds.c CheckIndexCompatible lets the varchar index be reused for text
-- verified: orders relfilenode and orders_account_code_idx relfilenode unchanged, no scan of orders or accounts (FK not re-validated); brief AccessExclusiveLock on orders and accounts (FK triggers re-created)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, code varchar(20) NOT NULL UNIQUE);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_code varchar(20) REFERENCES accounts (code), total numeric(12,2));
-- given: CREATE INDEX CONCURRENTLY orders_account_code_idx ON orders (account_code);
ALTER TABLE orders ALTER COLUMN account_code TYPE text;
