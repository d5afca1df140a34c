-- expect: unsafe table-rewrite
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/17/sql-altertable.html (ALTER COLUMN SET EXPRESSION, new in 17: "Existing data in the column is rewritten")
-- verified: PG18: orders and orders_pkey got new relfilenodes (stored generated column)
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, net_cents bigint NOT NULL, gross_cents bigint GENERATED ALWAYS AS (net_cents * 119 / 100) STORED);
-- VAT changed
ALTER TABLE orders ALTER COLUMN gross_cents SET EXPRESSION AS (net_cents * 120 / 100);
