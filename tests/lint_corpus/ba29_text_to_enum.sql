-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); text -> enum is an I/O conversion (enum_in for every row, enum values are stored as OIDs): rewrite
-- verified: orders and orders_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TYPE order_status AS ENUM ('pending', 'paid', 'shipped');
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'pending');
ALTER TABLE orders ALTER COLUMN status DROP DEFAULT, ALTER COLUMN status TYPE order_status USING status::order_status, ALTER COLUMN status SET DEFAULT 'pending';
