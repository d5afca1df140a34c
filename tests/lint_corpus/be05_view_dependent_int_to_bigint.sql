-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE int -> bigint rewrites table and indexes under ACCESS EXCLUSIVE)
-- verified: PG15+16: order_lines and its pkey got new relfilenodes; the dependent view had to be dropped and recreated
-- given: CREATE TABLE order_lines (id int PRIMARY KEY, order_id int NOT NULL, qty int NOT NULL);
-- given: CREATE VIEW order_totals AS SELECT order_id, sum(qty) AS qty FROM order_lines GROUP BY order_id;
BEGIN;
DROP VIEW order_totals;
ALTER TABLE order_lines ALTER COLUMN order_id TYPE bigint;
CREATE VIEW order_totals AS SELECT order_id, sum(qty) AS qty FROM order_lines GROUP BY order_id;
COMMIT;
