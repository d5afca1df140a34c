-- expect: safe
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html and https://www.postgresql.org/docs/18/ddl-generated-columns.html (PG 18: generated columns are VIRTUAL by default, computed on read, not stored)
-- verified: PG18: ADD COLUMN succeeds; line_items relfilenode unchanged; attgenerated = 'v'. On PG15 the statement fails (syntax requires STORED), and with STORED it rewrites (relfilenode changes)
-- pg-version: 18
-- given: CREATE TABLE line_items (id bigint PRIMARY KEY, unit_price_cents bigint NOT NULL, quantity int NOT NULL);
ALTER TABLE line_items
    ADD COLUMN total_cents bigint GENERATED ALWAYS AS (unit_price_cents * quantity);
