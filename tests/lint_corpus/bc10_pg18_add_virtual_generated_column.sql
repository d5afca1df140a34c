-- expect: safe
-- doc: https://www.postgresql.org/docs/18/ddl-generated-columns.html (a virtual generated column occupies no storage and is computed when read); https://www.postgresql.org/docs/18/sql-altertable.html (ADD COLUMN; only stored generated columns need a rewrite)
-- verified: PG18: relfilenode of customers unchanged, seq_scan unchanged; full_name readable at once
-- pg-version: 18
-- given: CREATE SCHEMA crm;
-- given: CREATE TABLE crm.customers (id bigint PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL);
ALTER TABLE crm.customers ADD COLUMN full_name text GENERATED ALWAYS AS (first_name || ' ' || last_name);
