-- expect: safe
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/ddl-generated-columns.html (VIRTUAL: computed on read, nothing stored; default kind in 18); sql-altertable.html
-- verified: PG18: orders keeps its relfilenode, no seq scan. (PG16 rejects VIRTUAL: syntax error at or near "VIRTUAL")
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, net_cents bigint NOT NULL, vat_rate numeric(4,3) NOT NULL DEFAULT 0.19);
ALTER TABLE orders ADD COLUMN gross_cents numeric GENERATED ALWAYS AS (net_cents * (1 + vat_rate)) VIRTUAL;
ALTER TABLE orders ADD COLUMN net_eur numeric GENERATED ALWAYS AS (net_cents / 100.0);
