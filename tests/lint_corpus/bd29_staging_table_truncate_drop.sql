-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html, https://www.postgresql.org/docs/current/sql-droptable.html; TRUNCATE/DROP only touch the staging table created in this file; INSERT ... SELECT / UPDATE ... FROM with WHERE are bounded reads/writes
-- verified: PG15: only products is read (2 scans: INSERT ... SELECT and UPDATE ... FROM), no relfilenode change; the UPDATE has a WHERE; TRUNCATE/DROP hit only the temp table
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku text NOT NULL, legacy_category text, category_id int);
-- given: CREATE TABLE categories (id serial PRIMARY KEY, name text UNIQUE NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS _cat_map (legacy text PRIMARY KEY, category_id int NOT NULL);
TRUNCATE _cat_map;
INSERT INTO _cat_map (legacy, category_id)
SELECT DISTINCT p.legacy_category, c.id
FROM products p JOIN categories c ON c.name = p.legacy_category;
UPDATE products p SET category_id = m.category_id
FROM _cat_map m
WHERE m.legacy = p.legacy_category AND p.category_id IS NULL;
DROP TABLE _cat_map;
