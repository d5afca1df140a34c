-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint FOREIGN KEY: existing rows are checked unless NOT VALID); the referenced table is new, but the referencing table orders is existing and large: its rows are scanned under SHARE ROW EXCLUSIVE
-- verified: seq scan of the existing orders (and of the new currencies) under ShareRowExclusiveLock on both
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, currency char(3));
CREATE TABLE currencies (code char(3) PRIMARY KEY, name text NOT NULL);
ALTER TABLE orders ADD CONSTRAINT orders_currency_fkey FOREIGN KEY (currency) REFERENCES currencies (code);
