-- expect: unsafe table-rewrite
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ALTER COLUMN SET EXPRESSION: "Existing data in the column is rewritten")
-- verified: PG18 server: relfilenode changed for line_items, line_items_pkey; seq_scan rose on public.line_items; locks held (whole file in one test transaction): line_items AccessExclusiveLock, line_items ShareLock, line_items_pkey AccessExclusiveLock
-- given: CREATE TABLE line_items (id bigint PRIMARY KEY, qty int NOT NULL, unit_price numeric(10,2) NOT NULL, total numeric GENERATED ALWAYS AS (qty * unit_price) STORED);
ALTER TABLE line_items ALTER COLUMN total SET EXPRESSION AS (qty * unit_price * 1.2);
