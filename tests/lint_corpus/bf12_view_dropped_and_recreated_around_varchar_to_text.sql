-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: varchar -> text is binary coercible, no rewrite; a column used by a view cannot change type: "cannot alter type of a column used by a view or rule"); DROP VIEW / CREATE VIEW are catalog-only
-- verified: PG15: without the DROP VIEW the ALTER fails (column used by view); as written all succeed, customers relfilenode and index relfilenode unchanged
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, email varchar(120) NOT NULL, full_name varchar(80), created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE INDEX customers_email_idx ON customers (email);
-- given: CREATE VIEW customer_directory AS SELECT id, email, full_name FROM customers;
BEGIN;
DROP VIEW customer_directory;
ALTER TABLE customers ALTER COLUMN email TYPE text;
ALTER TABLE customers ALTER COLUMN full_name TYPE text;
CREATE VIEW customer_directory AS SELECT id, email, full_name FROM customers;
COMMIT;
