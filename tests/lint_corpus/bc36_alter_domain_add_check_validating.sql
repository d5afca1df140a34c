-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-alterdomain.html (ADD domain_constraint: "When a new constraint is added to a domain, all columns using that domain will be checked against the newly added constraint ... NOT VALID ... skip"); typecmds.c validateDomainCheckConstraint opens each table using the domain with ShareLock
-- verified: PG15: seq_scan of both products and variants +1; ShareLock held on products and variants (writes blocked during the check)
-- given: CREATE DOMAIN sku_code AS text;
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku sku_code NOT NULL);
-- given: CREATE TABLE variants (id bigint PRIMARY KEY, product_id bigint NOT NULL, sku sku_code);
ALTER DOMAIN sku_code ADD CONSTRAINT sku_code_format CHECK (VALUE ~ '^[A-Z0-9-]{4,32}$');
