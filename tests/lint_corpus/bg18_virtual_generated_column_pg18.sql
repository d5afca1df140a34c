-- expect: safe
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD COLUMN ... GENERATED ALWAYS AS ... VIRTUAL: computed on read, no rewrite); rules text: virtual generated columns are not reported
-- verified: PG18 server: no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): products AccessExclusiveLock
-- given: CREATE TABLE products (id bigint PRIMARY KEY, price_cents int NOT NULL, vat_rate numeric(4,3) NOT NULL DEFAULT 0.2);
ALTER TABLE products ADD COLUMN price_gross numeric GENERATED ALWAYS AS (price_cents * (1 + vat_rate) / 100.0) VIRTUAL;
