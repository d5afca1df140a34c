-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible changes need no rewrite); numeric_support (numeric(10,2) -> numeric(14,2): same scale, larger precision) and restating varchar(100) as it is change nothing on disk; Alembic op.alter_column(..., type_=sa.Numeric(14, 2), existing_type=...) and Hibernate schema update emit these
-- verified: PG15: relfilenode of invoices and of invoices_number_idx unchanged, seq_scan unchanged
-- given: CREATE TABLE invoices (id SERIAL NOT NULL, number VARCHAR(100) NOT NULL, total NUMERIC(10, 2), PRIMARY KEY (id));
-- given: CREATE INDEX CONCURRENTLY invoices_number_idx ON invoices (number);
BEGIN;
ALTER TABLE invoices ALTER COLUMN total TYPE NUMERIC(14, 2);
ALTER TABLE invoices ALTER COLUMN number TYPE VARCHAR(100);
COMMIT;
