-- expect: unsafe add-column-rewrites
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN; Notes: a stored generated column is computed for every existing row); https://www.postgresql.org/docs/15/ddl-generated-columns.html
-- verified: line_items and line_items_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE line_items (id bigint PRIMARY KEY, qty int NOT NULL, unit_price numeric(12,2) NOT NULL);
ALTER TABLE line_items ADD COLUMN amount numeric(14,2) GENERATED ALWAYS AS (qty * unit_price) STORED;
