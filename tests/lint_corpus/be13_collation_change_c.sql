-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "if the collation for a column has been changed, an index rebuild is required")
-- verified: PG15+16: products heap relfilenode unchanged, products_sku_key index got a new relfilenode (rebuilt under ACCESS EXCLUSIVE)
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku text NOT NULL UNIQUE, title text);
ALTER TABLE products ALTER COLUMN sku TYPE text COLLATE "C";
