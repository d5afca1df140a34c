-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (VALIDATE CONSTRAINT: "validation acquires only a SHARE UPDATE EXCLUSIVE lock on the table being altered"); the constraint was added NOT VALID by an earlier migration
-- verified: scan of products under ShareUpdateExclusiveLock only
-- given: CREATE TABLE products (id bigint PRIMARY KEY, price numeric(10,2));
-- given: ALTER TABLE products ADD CONSTRAINT products_price_positive CHECK (price > 0) NOT VALID;
ALTER TABLE products VALIDATE CONSTRAINT products_price_positive;
