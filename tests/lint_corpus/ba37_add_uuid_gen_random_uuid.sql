-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "Adding a column with a volatile DEFAULT ... will require the entire table and its indexes to be rewritten"); gen_random_uuid() is provolatile 'v'
-- verified: orders and orders_pkey relfilenodes changed (rewrite, seq scan) under AccessExclusiveLock
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric(12,2));
ALTER TABLE orders ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
