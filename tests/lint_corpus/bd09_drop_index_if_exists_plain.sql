-- expect: unsafe require-concurrent-index-drop
-- doc: https://www.postgresql.org/docs/current/sql-dropindex.html ("A normal DROP INDEX acquires an ACCESS EXCLUSIVE lock on the table")
-- verified: PG15: inside BEGIN the DROP INDEX holds AccessExclusiveLock on products
-- given: CREATE TABLE products (id bigserial PRIMARY KEY, sku text NOT NULL, name text);
-- given: CREATE INDEX index_products_on_name ON products (name);
-- Alembic: op.drop_index('index_products_on_name', table_name='products', if_exists=True)
DROP INDEX IF EXISTS index_products_on_name;
