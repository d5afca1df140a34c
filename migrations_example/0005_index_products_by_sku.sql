-- Written CONCURRENTLY by the author. It runs outside any transaction, under the longer
-- concurrent_lock_timeout; an invalid leftover from an interrupted build is dropped and rebuilt.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS products_sku_key ON products (sku);
