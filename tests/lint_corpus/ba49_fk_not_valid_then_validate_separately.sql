-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint NOT VALID; VALIDATE CONSTRAINT: "acquires only a SHARE UPDATE EXCLUSIVE lock on the table being altered"); each statement is its own transaction
-- verified: ADD ... NOT VALID: no scan, ShareRowExclusiveLock on both tables; VALIDATE: scan of orders under ShareUpdateExclusiveLock (accounts only RowShareLock)
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
ALTER TABLE orders ADD CONSTRAINT orders_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_fkey;
