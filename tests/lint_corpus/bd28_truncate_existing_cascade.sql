-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (removes all rows, ACCESS EXCLUSIVE on each table; CASCADE also truncates referencing tables)
-- verified: PG15: NOTICE truncate cascades to table "import_rows"; both tables get new relfilenodes (all rows gone) and the sequences restart
-- given: CREATE TABLE import_batches (id bigserial PRIMARY KEY, started_at timestamptz);
-- given: CREATE TABLE import_rows (id bigserial PRIMARY KEY, batch_id bigint REFERENCES import_batches(id), raw jsonb);
TRUNCATE TABLE ONLY import_batches RESTART IDENTITY CASCADE;
