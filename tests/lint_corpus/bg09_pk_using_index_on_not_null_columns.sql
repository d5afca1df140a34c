-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: SET NOT NULL is attempted only for columns not already NOT NULL); the earlier migration created both columns NOT NULL and built the index concurrently
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations order_items_pkey; dropped/renamed order_items_pk_idx; seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): order_items AccessExclusiveLock, order_items_pkey AccessShareLock, order_items_pkey ShareUpdateExclusiveLock
-- given: CREATE TABLE order_items (order_id bigint NOT NULL, line_no int NOT NULL, sku text);
-- given: CREATE UNIQUE INDEX CONCURRENTLY order_items_pk_idx ON order_items (order_id, line_no);
ALTER TABLE order_items ADD CONSTRAINT order_items_pkey PRIMARY KEY USING INDEX order_items_pk_idx;
