-- expect: unsafe add-column-rewrites
-- doc: https://www.postgresql.org/docs/current/ddl-generated-columns.html (a stored generated column is computed when written); ALTER TABLE ADD COLUMN of a stored generated column computes it for every existing row: full table rewrite
-- verified: PG15: relfilenode of crm.customers changed; pkey index relfilenode changed
-- given: CREATE SCHEMA crm;
-- given: CREATE TABLE crm.customers (id bigint PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL);
ALTER TABLE crm.customers ADD COLUMN search_name text GENERATED ALWAYS AS (lower(first_name || ' ' || last_name)) STORED;
