-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-dropview.html ; no rule covers dropping/recreating a view (drop-table-or-column covers DROP TABLE and DROP COLUMN); no table is rewritten
-- verified: PG15: block succeeded; orders relfilenode unchanged
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, total numeric(12,2), status text);
-- given: CREATE VIEW open_orders AS SELECT id, total FROM orders WHERE status = 'open';
BEGIN;
DROP VIEW IF EXISTS open_orders;
CREATE VIEW open_orders AS SELECT id, total, status FROM orders WHERE status IN ('open', 'pending');
COMMIT;
