-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (SET/DROP DEFAULT: "These forms set or remove the default value for a domain. Note that defaults only apply to subsequent INSERT commands"; DROP CONSTRAINT needs no check of existing data)
-- verified: PG15: relfilenode and seq_scan of products unchanged
-- given: CREATE DOMAIN sku_code AS text DEFAULT 'UNSET' CONSTRAINT sku_code_format CHECK (VALUE ~ '^[A-Z0-9-]{4,32}$');
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku sku_code NOT NULL);
ALTER DOMAIN sku_code DROP CONSTRAINT IF EXISTS sku_code_format;
ALTER DOMAIN sku_code DROP DEFAULT;
ALTER DOMAIN sku_code ADD CONSTRAINT sku_code_len CHECK (char_length(VALUE) <= 64) NOT VALID;
