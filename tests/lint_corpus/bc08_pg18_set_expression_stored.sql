-- expect: unsafe table-rewrite
-- doc: https://www.postgresql.org/docs/17/sql-altertable.html (SET EXPRESSION AS: "Existing data in the column is rewritten and all the future changes will apply the new generation expression"); new in PG 17
-- verified: PG18: relfilenode of order_lines changed (full rewrite), its primary-key index relfilenode changed too; AccessExclusiveLock
-- pg-version: 17
-- given: CREATE TABLE order_lines (id bigint PRIMARY KEY, qty int NOT NULL, unit_price numeric(10,2) NOT NULL, line_total numeric(12,2) GENERATED ALWAYS AS (qty * unit_price) STORED);
ALTER TABLE order_lines ALTER COLUMN line_total SET EXPRESSION AS (round(qty * unit_price * 1.2, 2));
