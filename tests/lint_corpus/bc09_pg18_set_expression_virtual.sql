-- expect: safe
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (SET EXPRESSION AS: "Existing data in a stored generated column is rewritten"; a virtual generated column stores nothing, its value is computed on read); tablecmds.c ATExecSetExpression (observed: no rewrite for a virtual column; https://www.mail-archive.com/pgsql-hackers%40lists.postgresql.org/msg205392.html: for a VIRTUAL column "table rewrite will not happen")
-- verified: PG18: relfilenode of order_lines unchanged, seq_scan unchanged; new expression visible on read at once
-- pg-version: 18
-- given: CREATE TABLE order_lines (id bigint PRIMARY KEY, qty int NOT NULL, unit_price numeric(10,2) NOT NULL, line_total numeric GENERATED ALWAYS AS (qty * unit_price) VIRTUAL);
ALTER TABLE order_lines ALTER COLUMN line_total SET EXPRESSION AS (round(qty * unit_price * 1.2, 2));
