-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterindex.html (RENAME: changes only the name; no rule covers an index rename; running code does not name indexes)
-- verified: PG15: index relfilenode unchanged; ShareUpdateExclusiveLock on the index only
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku text NOT NULL);
-- given: CREATE INDEX CONCURRENTLY idx_tmp_sku ON products (sku);
ALTER INDEX IF EXISTS idx_tmp_sku RENAME TO products_sku_idx;
