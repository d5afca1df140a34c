-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (NOT VALID: "Do not verify existing stored data for constraint validity"; new values are checked at once)
-- verified: PG15: seq_scan of products and variants unchanged
-- given: CREATE DOMAIN sku_code AS text;
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku sku_code NOT NULL);
-- given: CREATE TABLE variants (id bigint PRIMARY KEY, product_id bigint NOT NULL, sku sku_code);
ALTER DOMAIN sku_code ADD CONSTRAINT sku_code_format CHECK (VALUE ~ '^[A-Z0-9-]{4,32}$') NOT VALID;
