-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (a column used by a view cannot change type: drop/recreate the view; varchar(n)->varchar(m>=n) binary coercible, varchar_support)
-- verified: PG15+16: customers relfilenode unchanged, no seq scan; without the DROP VIEW PG refuses ("cannot alter type of a column used by a view or rule")
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(80) NOT NULL, city varchar(40));
-- given: CREATE VIEW customer_directory AS SELECT id, name, city FROM customers;
BEGIN;
DROP VIEW customer_directory;
ALTER TABLE customers ALTER COLUMN name TYPE varchar(255);
CREATE VIEW customer_directory AS SELECT id, name, city FROM customers;
COMMIT;
