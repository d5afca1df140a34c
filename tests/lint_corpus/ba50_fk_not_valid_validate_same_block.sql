-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (VALIDATE CONSTRAINT); https://www.postgresql.org/docs/15/explicit-locking.html: the ADD ... NOT VALID took SHARE ROW EXCLUSIVE on orders and accounts, held to COMMIT, so the validation scan runs with writes to both tables blocked
-- verified: in the block the VALIDATE scan of orders runs while ShareRowExclusiveLock on orders and accounts (from the ADD) is still held
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email varchar(100) NOT NULL);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
BEGIN;
ALTER TABLE orders ADD CONSTRAINT orders_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_account_id_fkey;
COMMIT;
