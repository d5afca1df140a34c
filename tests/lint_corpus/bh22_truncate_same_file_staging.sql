-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html ; the truncated and dropped table is created in this same file (no running code uses it)
-- verified: PG15: all statements succeed; customers untouched (relfilenode unchanged)
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, country text);
CREATE TABLE import_staging (id bigint, country text);
INSERT INTO import_staging VALUES (1, 'DE'), (2, 'FR');
TRUNCATE import_staging;
DROP TABLE IF EXISTS import_staging;
